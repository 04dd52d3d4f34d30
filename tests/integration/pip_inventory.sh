#!/usr/bin/env bash
# freeze, list, show and uninstall print what pip 23 prints for the same
# environment: freeze (with -r FILE keeping its order), list in columns,
# freeze and json format, -v (Location, Installer), --not-required,
# --outdated against the index,
# show -f; uninstall removes through RECORD, refuses a name that is not
# installed (nothing removed), and pip agrees afterwards.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
python3 -m pip --version >/dev/null 2>&1 || ts_skip "python3 has no pip"
ts_index_from_spec <<'SPEC'
simple alpha 1.0 py3-none-any beta>=1.0
simple alpha 1.1 py3-none-any beta>=1.0
simple beta 1.0 py3-none-any
simple beta 2.0 py3-none-any
simple Gamma_Ray 0.5 py3-none-any
simple delta 3.0 py3-none-any gamma-ray;; beta; python_version < '3'
SPEC
export TORCHSOLVE_CACHE_DIR=$work/cache
unset TORCHSOLVE_INDEX_URL TORCHSOLVE_PYTHON VIRTUAL_ENV
ts_make_venv "$work/v"
IDX=(-i "$TS_NGINX_URL/simple")
pipv() { python3 -m pip --python "$work/v/bin/python" --disable-pip-version-check "$@"; }
tsv() { "$T" "$1" --python "$work/v" "${@:2}"; }
same() { # WHAT: compare $work/pip and $work/ts
  diff -u "$work/pip" "$work/ts" || ts_fail "$1 differs from pip's"
}

"$T" install -q "${IDX[@]}" --python "$work/v" 'alpha==1.0' delta || ts_fail "install"

pipv freeze >"$work/pip"; tsv freeze >"$work/ts"; same "freeze"
pipv freeze --exclude beta --exclude Gamma-Ray >"$work/pip"
tsv freeze --exclude beta --exclude Gamma-Ray >"$work/ts"; same "freeze --exclude"
printf '%s\n' 'delta' '# keep me' '-i https://example.invalid/simple' 'alpha>=1' 'nosuch==1' >"$work/req.txt"
pipv freeze -r "$work/req.txt" >"$work/pip" 2>/dev/null
tsv freeze -r "$work/req.txt" >"$work/ts" 2>"$work/err"; same "freeze -r"
grep -q "contains nosuch==1, but package 'nosuch' is not installed" "$work/err" ||
  ts_fail "freeze -r: no warning for nosuch: $(cat "$work/err")"
for fmt in columns freeze json; do
  pipv list --format "$fmt" >"$work/pip"; tsv list --format "$fmt" >"$work/ts"; same "list --format $fmt"
done
# -v: pip's Location and Installer columns ("location", "installer" in json)
for fmt in columns json; do
  pipv list -v --format "$fmt" >"$work/pip"; tsv list -v --format "$fmt" >"$work/ts"
  same "list -v --format $fmt"
done
grep -q "\"name\": \"alpha\", \"version\": \"1.0\", \"location\": \"$work/v/lib/python3[^\"]*/site-packages\", \"installer\": \"torchsolve\"" "$work/ts" ||
  ts_fail "list -v --format json: no location or installer: $(cat "$work/ts")"
pipv list --not-required --format freeze >"$work/pip"
tsv list --not-required --format freeze >"$work/ts"; same "list --not-required"
pipv list --outdated --format json "${IDX[@]}" >"$work/pip"
tsv list --outdated --format json "${IDX[@]}" >"$work/ts"; same "list --outdated"
pipv list --uptodate "${IDX[@]}" >"$work/pip"
tsv list --uptodate "${IDX[@]}" >"$work/ts"; same "list --uptodate"
pipv show -f alpha Gamma-Ray beta >"$work/pip"; tsv show -f alpha Gamma-Ray beta >"$work/ts"; same "show -f"

# show: a name not installed is warned about; none found is exit 1 (pip)
rc=0; tsv show nosuch >/dev/null 2>"$work/err" || rc=$?
[ $rc = 1 ] || ts_fail "show nosuch: exit $rc, want 1"
grep -q "Package(s) not found: nosuch" "$work/err" || ts_fail "show nosuch: $(cat "$work/err")"
tsv show alpha nosuch >/dev/null 2>&1 || ts_fail "show with one name found must succeed"

# uninstall: a name that is not installed refuses the whole command
rc=0; tsv uninstall alpha nosuch 2>"$work/err" || rc=$?
[ $rc = 1 ] || ts_fail "uninstall nosuch: exit $rc, want 1"
grep -q "'nosuch' is not installed" "$work/err" || ts_fail "uninstall nosuch: $(cat "$work/err")"
pipv show alpha >/dev/null 2>&1 || ts_fail "alpha removed although the command failed"
printf 'delta\n' >"$work/un.txt"
tsv uninstall -y alpha -r "$work/un.txt" || ts_fail "uninstall"
pipv freeze >"$work/pip"
printf '%s\n' 'beta==2.0' 'Gamma_Ray==0.5' >"$work/want"
diff -u "$work/want" "$work/pip" || ts_fail "pip freeze after uninstall"
[ ! -e "$work/v/lib/python3"*/site-packages/alpha ] || ts_fail "alpha's files left behind"
pipv check >/dev/null || ts_fail "pip check after uninstall"
rc=0; "$T" uninstall 2>/dev/null || rc=$?
[ $rc = 2 ] || ts_fail "uninstall without names: exit $rc, want 2"
echo "ok"
