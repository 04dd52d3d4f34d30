#!/usr/bin/env bash
# The conventions every command shares, through the real binary:
# --color auto|always|never (a bad or missing value is a usage error, exit
# 2, wherever the flag stands), NO_COLOR (set and non-empty), -v/-vv/-vvv,
# 'help --help', usage hints that point at a help that exists, and
# summaries in good English ("Resolved 1 package in 3ms", never "1
# packages" or "in 0.0s").
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_index_from_spec <<'SPEC'
simple solo 1.0 py3-none-any
SPEC
export TORCHSOLVE_CACHE_DIR=$work/cache
unset TORCHSOLVE_INDEX_URL TORCHSOLVE_PYTHON VIRTUAL_ENV NO_COLOR
ts_make_venv "$work/venv"
I=(-i "$TS_NGINX_URL/simple" --python "$work/venv")

expect_usage() { # MESSAGE ARGS... : exit 2 and MESSAGE on stderr
  local msg=$1 rc=0; shift
  "$T" "$@" >"$work/out" 2>"$work/err" || rc=$?
  [ $rc = 2 ] || ts_fail "torchsolve $*: exit $rc, want 2: $(cat "$work/err")"
  grep -qF -- "$msg" "$work/err" || ts_fail "torchsolve $*: no '$msg' in: $(cat "$work/err")"
  # the hint names a help that works
  local hint
  hint=$(sed -n "s/^  see '\(.*\)'$/\1/p" "$work/err")
  [ -n "$hint" ] || ts_fail "torchsolve $*: no 'see ...' hint: $(cat "$work/err")"
  eval "\"$T\" ${hint#torchsolve }" >/dev/null 2>&1 || ts_fail "torchsolve $*: hint '$hint' fails"
}

# --- --color values -----------------------------------------------------
expect_usage "--color must be auto, always or never, not 'bogus'" install --color bogus --dry-run "${I[@]}" solo
expect_usage "--color must be auto, always or never, not 'bogus'" --color bogus version
expect_usage "--color must be auto, always or never, not 'x'" lock --color=x "${I[@]}" solo
expect_usage "--color needs a value" install --dry-run "${I[@]}" solo --color
expect_usage "--color must be auto" detect --color sometimes
expect_usage "unknown command 'nosuch'" nosuch
expect_usage "no command or topic 'nosuch'" help nosuch
"$T" help --help | grep -q '^commands:' || ts_fail "help --help"
"$T" -vvv install --dry-run -q "${I[@]}" solo >/dev/null 2>&1 || ts_fail "-vvv refused"
"$T" detect -q --color never >/dev/null || ts_fail "detect refuses the global flags"

# --- colour: on a tty only, never with NO_COLOR or --color never ----------
# (Captured into a file first: with pipefail, grep -q closing a pipe early
# would fail the pipeline by SIGPIPE.)
if command -v script >/dev/null; then
  colour_of() { # ENV FLAGS: stderr of a failing dry run on a pty, escapes visible
    script -qec "$1 \"$T\" $2 install --dry-run ${I[*]} 'solo==9'" /dev/null >"$work/tty" 2>&1 || true
    cat -v "$work/tty"
  }
  has() { grep -q "$1" <<<"$2"; }
  has '\^\[\[1;31merror' "$(colour_of "" "")" || ts_fail "no colour on a tty"
  has '\^\[\[' "$(colour_of "NO_COLOR=1" "")" && ts_fail "NO_COLOR=1 still coloured"
  has '\^\[\[1;31merror' "$(colour_of "NO_COLOR=" "")" ||
    ts_fail "an empty NO_COLOR disabled colour (no-color.org: non-empty only)"
  has '\^\[\[1;31merror' "$(colour_of "NO_COLOR=1" "--color always")" ||
    ts_fail "--color always loses to NO_COLOR"
  has '\^\[\[' "$(colour_of "" "--color never")" && ts_fail "--color never still coloured"
fi
"$T" --color always install --dry-run "${I[@]}" 'solo==9' 2>"$work/err" >/dev/null || true
grep -q $'\e\[1;31merror' "$work/err" || ts_fail "--color always not coloured when piped"
"$T" install --dry-run "${I[@]}" 'solo==9' 2>"$work/err" >/dev/null || true
grep -q $'\e' "$work/err" && ts_fail "colour in a pipe"

# --- summaries ------------------------------------------------------------
"$T" install "${I[@]}" solo 2>"$work/err" || ts_fail "install: $(cat "$work/err")"
cat "$work/err"
grep -qE '^Resolved 1 package in [0-9]+ms$' "$work/err" || ts_fail "Resolved summary: $(cat "$work/err")"
grep -qE '^Installed 1 package in ([0-9]+ms|[0-9]+\.[0-9]s)$' "$work/err" || ts_fail "Installed summary: $(cat "$work/err")"
grep -q ' 0\.0s' "$work/err" && ts_fail "a duration of 0.0s"
"$T" lock "${I[@]}" solo -o "$work/pylock.toml" 2>"$work/err" || ts_fail "lock"
grep -q '^Locked 1 package in ' "$work/err" || ts_fail "Locked summary: $(cat "$work/err")"
# --- error text never carries a terminal escape from its input ---------
rc=0; "$T" install --python $'/nonexistent\x1b[2Jx' solo 2>"$work/err" || rc=$?
[ $rc != 0 ] || ts_fail "a missing interpreter was accepted"
grep -q $'\x1b' "$work/err" && ts_fail "an escape sequence reached the terminal: $(od -c "$work/err" | head -3)"
grep -q 'nonexistent?\[2Jx' "$work/err" || ts_fail "the bad path is not named: $(cat "$work/err")"
echo "ok: cli conventions"
