#!/usr/bin/env bash
# lock with no requirement given reads ./pyproject.toml: [project]
# dependencies, optional-dependencies (extras), requires-python, PEP 735
# [dependency-groups] (include-group expanded) and [tool.torchsolve]
# environments and index-url.  Packages only an extra or a group needs are
# marked as PEP 751 says ('cli' in extras, 'test' in dependency_groups), the
# lock declares `extras` and `dependency-groups`; single-target and
# --universal; bad pyproject files are refused with one error line.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
python3 -c 'import tomllib' 2>/dev/null || ts_skip "python3 lacks tomllib"
ts_isolate_from_host
work=$(ts_tmpdir)
export XDG_CONFIG_HOME=$work/config TORCHSOLVE_CACHE_DIR=$work/cache
ts_index_from_spec < <(
  echo "simple alpha 1.0 py3-none-any beta"
  echo "simple beta 1.0 py3-none-any"
  echo "simple gamma 1.0 py3-none-any beta"
  echo "simple delta 1.0 py3-none-any"
  echo "simple epsilon 1.0 py3-none-any"
)
mkdir -p "$work/app"
cat >"$work/app/pyproject.toml" <<EOF
[project]
name = "app"
version = "0.1"
requires-python = ">=3.12"
dependencies = ["alpha"]

[project.optional-dependencies]
Cli = ["gamma"]

[dependency-groups]
test = ["delta", {include-group = "lint"}]
lint = ["epsilon"]

[tool.torchsolve]
environments = ["sys_platform == 'linux'"]
index-url = "$TS_NGINX_URL/simple"
EOF
cd "$work/app"
TIDX=(--torch-index-url "$TS_NGINX_URL/whl" --cpu)

check() {
  python3 - "$1" "$2" <<'PY' || ts_fail "project lock $1"
import sys, tomllib
lock = tomllib.load(open(sys.argv[1], "rb"))
universal = sys.argv[2] == "universal"
assert lock["extras"] == ["cli"], lock.get("extras")
assert lock["dependency-groups"] == ["lint", "test"], lock.get("dependency-groups")
marks = {p["name"]: p.get("marker") for p in lock["packages"]}
assert marks == {"alpha": None, "beta": None, "gamma": "'cli' in extras",
                 "delta": "'test' in dependency_groups",
                 "epsilon": "'lint' in dependency_groups or 'test' in dependency_groups"}, marks
if universal:
    assert lock["requires-python"] == ">=3.12", lock["requires-python"]
    assert lock["environments"] == ["sys_platform == 'linux'"], lock["environments"]
assert all(p["index"] == sys.argv[1] or p["index"].endswith("/simple") for p in lock["packages"])
print(sys.argv[1], "ok")
PY
}

# 1. --universal: requires-python, environments and the index from the project.
"$T" lock --universal "${TIDX[@]}" -o pylock.toml 2>"$work/err" || { cat "$work/err"; ts_fail "lock --universal of the project"; }
cat pylock.toml
check pylock.toml universal
grep -q "Resolved 16 environments (requires-python >=3.12)" "$work/err" || { cat "$work/err"; ts_fail "not the project's grid"; }

# 2. One target.
"$T" lock --python-version 3.12 --platform manylinux_2_28_x86_64 "${TIDX[@]}" -o one.toml 2>"$work/err" ||
  { cat "$work/err"; ts_fail "lock of the project"; }
check one.toml one

# 3. Requirements given: the project is not read.
"$T" lock --python-version 3.12 --platform manylinux_2_28_x86_64 "${TIDX[@]}" \
  -i "$TS_NGINX_URL/simple" delta -o given.toml 2>/dev/null || ts_fail "lock delta"
python3 -c 'import sys, tomllib; l = tomllib.load(open("given.toml", "rb"))
assert [p["name"] for p in l["packages"]] == ["delta"] and "extras" not in l, l' || ts_fail "REQ given: project read"

# 4. Bad projects: one error line each.
cp pyproject.toml good.toml
printf '[project]\ndependencies = [1]\n' >pyproject.toml
ts_fails 1 "pyproject.toml: project.dependencies must be an array of strings" lock "${TIDX[@]}" -o x.toml
printf '[project]\ndependencies = ["alpha >>> 1"]\n' >pyproject.toml
ts_fails 1 "is no PEP 508 requirement" lock "${TIDX[@]}" -o x.toml
printf '[dependency-groups]\ntest = [{include-group = "nope"}]\n' >pyproject.toml
ts_fails 1 "no group 'nope' to include" lock "${TIDX[@]}" -o x.toml
printf '[dependency-groups]\na = [{include-group = "b"}]\nb = [{include-group = "a"}]\n' >pyproject.toml
ts_fails 1 "includes itself" lock "${TIDX[@]}" -o x.toml
echo "lock from pyproject.toml: ok"
