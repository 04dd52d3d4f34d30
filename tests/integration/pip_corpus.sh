#!/usr/bin/env bash
# pip's own test corpus (pypa/pip tests/data and the functional tests that
# use it), rewritten as fixtures this test writes: for each odd input pip's
# maintainers collected, pip's outcome (installed or refused, its message
# where it matters, the versions) through the real binary, and every
# installed file checked against the RECORDs.  Where this machine's pip
# wheel behaves as today's pip, it runs on the same fixture too.  The
# cases and what pip expects: tests/integration/pip_corpus.py.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_debian_build_wheels
ts_isolate_from_host
ts_clear_pip_env
work=$(ts_tmpdir)
python3 "$TS_SOURCE_DIR/tests/integration/pip_corpus.py" "$T" "$work" "$WHEELS" "$@"
