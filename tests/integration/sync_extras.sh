#!/usr/bin/env bash
# A project's fleet lock (issue 16): pyproject.toml with extras, PEP 735
# groups (include-group) and [tool.torchsolve] profiles, locked by a bare
# `lock` exactly as `lock --profile ...` locks it; synced into fresh venvs
# with no flags, --extra, --group, --all-extras/--all-groups, with the
# profile sync picks (or --profile) added; the installed sets checked with
# pip list and pip check; unknown names refused (exit 2) with the venv left
# as it was; export with the same options; bad [tool.torchsolve] values
# refused naming pyproject.toml and the key, a target Python outside the
# project's requires-python refused.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
S=$TS_SOURCE_DIR/fixtures/sysroot
ts_isolate_from_host
python3 -c 'import tomllib' 2>/dev/null || ts_skip "python3 has no tomllib (3.11+)"
python3 -m pip --version >/dev/null 2>&1 || ts_skip "python3 has no pip to list the venvs with"
ts_venv_for_wheels
export XDG_CONFIG_HOME=$work/config TORCHSOLVE_CACHE_DIR=$work/cache
ts_index_from_spec < <(
  for b in cpu cu126 rocm6.4; do
    echo "whl/$b torch 2.9.1+$b $tag filelock"
  done
  echo "simple numpy 2.1.0 $tag"
  echo "simple filelock 3.16.1 py3-none-any"
  echo "simple rich 13.9.0 py3-none-any markdown-it-py"
  echo "simple markdown-it-py 3.0.0 py3-none-any"
  echo "simple matplotlib 3.9.0 py3-none-any numpy"
  echo "simple pytest 8.3.0 py3-none-any iniconfig"
  echo "simple iniconfig 2.0.0 py3-none-any"
  echo "simple ruff 0.6.0 py3-none-any"
  echo "simple mkdocs 1.6.0 py3-none-any"
)
mkdir -p "$work/app"
cd "$work/app"
cat >pyproject.toml <<EOF
[project]
name = "app"
version = "0.1"
dependencies = ["torch", "numpy"]

[project.optional-dependencies]
Cli = ["rich"]
viz = ["matplotlib"]

[dependency-groups]
test = ["pytest", {include-group = "lint"}]
lint = ["ruff"]
docs = ["mkdocs"]

[tool.torchsolve]
index-url = "$TS_NGINX_URL/simple"
torch-index-url = "$TS_NGINX_URL/whl"
profiles = ["cpu", "cu126", "rocm6.4:gfx=gfx942"]
EOF

# --- lock: the file's profiles, exactly as --profile gives them ----------
"$T" lock --python "$work/venv" -o pylock.toml 2>"$work/err" || { cat "$work/err"; ts_fail "lock of the project"; }
cat "$work/err"
grep -q "Locked .* for 3 profiles (default cpu)" "$work/err" || ts_fail "the project's profiles were not locked"
"$T" lock --python "$work/venv" -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" \
  --profile cpu --profile cu126 --profile rocm6.4:gfx=gfx942 -o flags.toml 2>/dev/null ||
  ts_fail "lock --profile of the project"
cmp pylock.toml flags.toml || { diff pylock.toml flags.toml; ts_fail "[tool.torchsolve] profiles and --profile locks differ"; }
python3 - <<'PY' || ts_fail "the project's fleet lock"
import tomllib
lock = tomllib.load(open("pylock.toml", "rb"))
assert lock["extras"] == ["cli", "cpu", "cu126", "rocm6-4", "viz"], lock["extras"]
assert lock["dependency-groups"] == ["docs", "lint", "test"], lock["dependency-groups"]
marks = {(p["name"], p["version"]): p.get("marker") for p in lock["packages"]}
assert marks[("rich", "13.9.0")] == "'cli' in extras", marks
assert marks[("ruff", "0.6.0")] == "'lint' in dependency_groups or 'test' in dependency_groups", marks
assert marks[("numpy", "2.1.0")] is None, marks
assert sorted(v for n, v in marks if n == "torch") == ["2.9.1+cpu", "2.9.1+cu126", "2.9.1+rocm6.4"], marks
assert lock["tool"]["torchsolve"]["profiles"]["rocm6-4"]["host"]["__gfx942"] == "present"
PY
# --profile on the command line overrides the file's list
"$T" lock --python "$work/venv" --profile cu126 -o one.toml 2>"$work/err" || { cat "$work/err"; ts_fail "lock --profile cu126"; }
grep -q "for 1 profile (default cu126)" "$work/err" || ts_fail "--profile did not override the file: $(cat "$work/err")"

# --- sync: fresh venvs, what each choice installs -------------------------
installed() { # VENV: "name==version ..." as pip lists it, after pip check
  python3 -m pip --python "$1/bin/python" --disable-pip-version-check check >/dev/null ||
    ts_fail "pip check in $1"
  python3 -m pip --python "$1/bin/python" --disable-pip-version-check list --format=freeze |
    tr 'A-Z_' 'a-z-' | sort | tr '\n' ' '
}
base="filelock==3.16.1 numpy==2.1.0"
cli="markdown-it-py==3.0.0 rich==13.9.0"
n=0
sync_fresh() { # MACHINE WANT ARGS...: a fresh venv synced with ARGS, its set compared
  local machine=$1 want=$2 v=$work/v$((n += 1))
  shift 2
  ts_make_venv "$v"
  "$T" sync pylock.toml --python "$v" --sysroot "$S/$machine" "$@" 2>"$work/err" ||
    { cat "$work/err"; ts_fail "sync $*"; }
  local got
  got=$(installed "$v")
  [ "$got" = "$(echo "$want" | tr ' ' '\n' | sort | tr '\n' ' ')" ] ||
    ts_fail "sync $* on $machine: installed '$got', wanted '$want'"
  echo "sync $* on $machine: $got"
}
sync_fresh cpu-only "$base torch==2.9.1+cpu"
sync_fresh cpu-only "$base torch==2.9.1+cpu $cli" --extra cli
sync_fresh cpu-only "$base torch==2.9.1+cpu iniconfig==2.0.0 pytest==8.3.0 ruff==0.6.0" --group test
sync_fresh cpu-only "$base torch==2.9.1+cpu ruff==0.6.0 mkdocs==1.6.0" --group Lint --group docs
sync_fresh cpu-only "$base torch==2.9.1+cpu $cli matplotlib==3.9.0" --all-extras
sync_fresh cpu-only "$base torch==2.9.1+cpu iniconfig==2.0.0 pytest==8.3.0 ruff==0.6.0 mkdocs==1.6.0" --all-groups
# the profile the host runs, and the extras asked for, together
sync_fresh h100-cu130 "$base torch==2.9.1+cu126 $cli" --extra CLI
grep -q "^Profile cu126" "$work/err" || ts_fail "h100: profile not said: $(cat "$work/err")"
sync_fresh cpu-only "$base torch==2.9.1+rocm6.4 $cli ruff==0.6.0" --profile rocm6.4 --ignore-host \
  --extra cli --group lint

# --- an environment synced again: exactly the new choice -------------------
v=$work/v$n
"$T" sync pylock.toml --python "$v" --ignore-host --profile rocm6.4 2>"$work/err" || { cat "$work/err"; ts_fail "resync"; }
[ "$(installed "$v")" = "$(echo "$base torch==2.9.1+rocm6.4" | tr ' ' '\n' | sort | tr '\n' ' ')" ] ||
  ts_fail "resync without --extra/--group kept their packages: $(installed "$v")"

# --- names the lock does not declare: exit 2, the venv as it was -----------
before=$(installed "$v")
ts_fails 2 "extra viz2: the lock has no such extra (it has cli, viz)" \
  sync pylock.toml --python "$v" --ignore-host --extra viz2
ts_fails 2 "extra cu126: that is a GPU profile of the lock; choose it with --profile cu126" \
  sync pylock.toml --python "$v" --ignore-host --extra cu126
ts_fails 2 "group dev: the lock has no such dependency group (it has docs, lint, test)" \
  sync pylock.toml --python "$v" --ignore-host --group dev
ts_fails 2 "extra needs a value" sync pylock.toml --python "$v" --extra
[ "$(installed "$v")" = "$before" ] || ts_fail "a refused sync changed the venv"

# --- export: the same choices, as pip requirements -------------------------
"$T" export pylock.toml --no-header --extra cli --group test -o dev.txt 2>/dev/null || ts_fail "export --extra --group"
[ "$(grep -v -e '^ ' -e '^--' dev.txt | tr -d '\\ ' | tr '\n' ' ')" = \
  "filelock==3.16.1 iniconfig==2.0.0 markdown-it-py==3.0.0 numpy==2.1.0 pytest==8.3.0 rich==13.9.0 ruff==0.6.0 torch==2.9.1+cpu " ] ||
  ts_fail "export --extra cli --group test: $(cat dev.txt)"
! grep -q "extras\|dependency_groups" dev.txt || ts_fail "a marker on extras or groups reached pip"
ts_fails 2 "group nope: the lock has no such dependency group" export pylock.toml --group nope

# --- bad [tool.torchsolve]: one line naming the file and the key -----------
cp pyproject.toml good.toml
bad_tool() { # TOML-LINE PATTERN [EXIT]: TOML-LINE instead of the profiles (or same key's) line
  local key=${1%% *}
  grep -q "^$key = " good.toml || key=profiles
  sed "s|^$key = .*|$1|" good.toml >pyproject.toml
  ts_fails "${3:-1}" "$2" lock --python "$work/venv" -o x.toml
  [ ! -e x.toml ] || ts_fail "a refused lock was written"
}
bad_tool 'profiles = "cpu"' "pyproject.toml: tool.torchsolve.profiles must be an array of strings"
bad_tool 'profiles = []' "pyproject.toml: tool.torchsolve.profiles must name at least one profile"
bad_tool 'profiles = ["cpu", "cu999"]' \
  "pyproject.toml: tool.torchsolve.profiles: profile 'cu999': 'cu999' is no backend of rules.yaml" 2
bad_tool 'profiles = ["cpu", "cpu"]' "pyproject.toml: tool.torchsolve.profiles: profile cpu given twice" 2
bad_tool 'profile = ["cpu"]' "pyproject.toml: tool.torchsolve: unknown key 'profile'"
bad_tool 'torch-index-url = 3' "pyproject.toml: tool.torchsolve.torch-index-url must be a string"
# requires-python: a valid specifier set, and the target must be inside it
sed 's|^version = "0.1"|&\nrequires-python = ">=3.99"|' good.toml >pyproject.toml
ts_fails 1 "the project requires Python >=3.99 (pyproject.toml); the target is 3\." \
  lock --python "$work/venv" -o x.toml
sed 's|^version = "0.1"|&\nrequires-python = "banana"|' good.toml >pyproject.toml
ts_fails 1 "pyproject.toml: project.requires-python 'banana' is no version specifier" \
  lock --python "$work/venv" -o x.toml
[ ! -e x.toml ] || ts_fail "a refused lock was written"
cp good.toml pyproject.toml
ts_fails 2 "tool.torchsolve.profiles name each machine's GPU stack" lock --python "$work/venv" --cuda 12.6 -o x.toml
echo "sync_extras: ok"
