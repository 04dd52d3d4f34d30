#!/usr/bin/env bash
# torchsolve lock: a PEP 751 lock from a small index served by nginx;
# byte-identical across runs; a cross-target lock (--python-version 3.12
# --platform manylinux_2_28_x86_64 --cuda 12.6) with no 3.12 interpreter;
# host facts and rule ids under [tool.torchsolve]; install -> lock -> sync
# into a fresh venv gives the same set; sync refuses the CUDA lock on a
# CPU-only host.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
S=$TS_SOURCE_DIR/fixtures/sysroot
python3 -m pip --version >/dev/null 2>&1 || ts_skip "python3 has no pip"
ts_isolate_from_host
work=$(ts_tmpdir)
export XDG_CONFIG_HOME=$work/config TORCHSOLVE_CACHE_DIR=$work/cache
ts_make_venv "$work/venv"
PY=$work/venv/bin/python
cp=$("$PY" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
ts_index_from_spec < <({
  echo "simple alpha 1.0 py3-none-any beta>=1.0"
  echo "simple beta 1.0 py3-none-any"
  echo "simple beta 2.0 py3-none-any gamma"
  echo "simple gamma 0.5 py3-none-any"
  for c in "$cp" cp312; do
    for v in 2.9.1+cu126:cu126 2.9.1+cu130:cu130 2.9.1+cpu:cpu; do
      echo "whl/${v#*:} torch ${v%:*} $c-$c-manylinux_2_28_x86_64"
    done
  done
} | sort -u)
IDX=(-i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl")

# 1. A lock for the venv's interpreter; two runs, identical bytes.
"$T" lock --python "$work/venv" "${IDX[@]}" --cpu alpha -o "$work/l1.toml" 2>"$work/err" \
  || { cat "$work/err"; ts_fail "lock"; }
cat "$work/l1.toml"
"$T" lock --python "$work/venv" "${IDX[@]}" --cpu alpha -o "$work/l2.toml" 2>/dev/null || ts_fail "lock 2"
cmp "$work/l1.toml" "$work/l2.toml" || ts_fail "two runs gave different bytes"
python3 - "$work/l1.toml" <<'PY' || ts_fail "lock content"
import sys, tomllib
d = tomllib.load(open(sys.argv[1], "rb"))
assert d["lock-version"] == "1.0" and d["created-by"] == "torchsolve", d
assert d["environments"] and d["requires-python"], d
got = {(p["name"], p["version"]) for p in d["packages"]}
assert got == {("alpha", "1.0"), ("beta", "2.0"), ("gamma", "0.5")}, got
deps = {p["name"]: [x["name"] for x in p.get("dependencies", [])] for p in d["packages"]}
assert deps == {"alpha": ["beta"], "beta": ["gamma"], "gamma": []}, deps
for p in d["packages"]:
    assert p["index"].endswith("/simple"), p
    w, = p["wheels"]
    assert w["url"].startswith("http://127.0.0.1") and w.get("size", 1) > 0, w
    assert len(w["hashes"]["sha256"]) == 64, w
PY
"$T" lock --python "$work/venv" "${IDX[@]}" --cpu alpha -o - 2>/dev/null | cmp - "$work/l1.toml" \
  || ts_fail "-o - differs from the file"

# 2. install -> lock -> sync into a fresh venv: the same set.
"$T" install --python "$work/venv" "${IDX[@]}" --cpu alpha >/dev/null 2>&1 || ts_fail "install"
ts_make_venv "$work/fresh"
"$T" sync "$work/l1.toml" --python "$work/fresh" --cpu 2>"$work/err" || { cat "$work/err"; ts_fail "sync"; }
a=$(python3 -m pip --python "$work/venv/bin/python" list --format=freeze 2>/dev/null | sort)
b=$(python3 -m pip --python "$work/fresh/bin/python" list --format=freeze 2>/dev/null | sort)
[ -n "$a" ] && [ "$a" = "$b" ] || ts_fail "install and lock+sync differ: [$a] [$b]"
python3 -m pip --python "$work/fresh/bin/python" check >/dev/null 2>&1 || ts_fail "pip check after sync"
echo "install -> lock -> sync: $(echo $b)"

# 3. Cross-target: Python 3.12 on manylinux_2_28_x86_64 with CUDA 12.6,
#    no 3.12 interpreter involved (PATH holds no python for the run).
mkdir -p "$work/nopy"
PATH=$work/nopy "$T" lock "${IDX[@]}" --python-version 3.12 --platform manylinux_2_28_x86_64 \
  --cuda 12.6 --cuda-driver 560.35 --compute-capability 8.9 torch -o "$work/cu.toml" 2>"$work/err" \
  || { cat "$work/err"; ts_fail "cross-target lock"; }
cat "$work/cu.toml"
python3 - "$work/cu.toml" <<'PY' || ts_fail "cross-target lock content"
import sys, tomllib
d = tomllib.load(open(sys.argv[1], "rb"))
assert d["requires-python"] == "==3.12.*", d
assert 'python_version == "3.12"' in d["environments"][0], d
torch, = [p for p in d["packages"] if p["name"] == "torch"]
assert torch["version"] == "2.9.1+cu126", torch
assert "cp312-cp312-manylinux_2_28_x86_64" in torch["wheels"][0]["name"], torch
assert torch["index"].endswith("/whl/cu126"), torch
ts = d["tool"]["torchsolve"]
assert ts["host"]["__cuda"] == "12.6", ts
# the target's glibc (the manylinux_2_28 floor), not this build machine's
assert ts["host"]["__glibc"] == "2.28", ts
PY
PATH=$work/nopy "$T" lock "${IDX[@]}" --python-version 3.12 --platform manylinux_2_28_x86_64 \
  --cuda 12.6 --cuda-driver 560.35 --compute-capability 8.9 torch -o "$work/cu2.toml" 2>/dev/null
cmp "$work/cu.toml" "$work/cu2.toml" || ts_fail "cross-target lock not deterministic"

# 4. sync refuses the CUDA lock on a CPU-only host (exit 5), not with
#    --ignore-host (dry runs in a 3.12 venv when this machine has 3.12).
PY312=
for c in /root/.pyenv/versions/3.12*/bin/python3.12 /usr/bin/python3.12 /usr/local/bin/python3.12; do
  [ -x "$c" ] && "$c" -c pass 2>/dev/null && { PY312=$c; break; }
done
if [ -n "$PY312" ]; then
  "$PY312" -m venv --without-pip "$work/v312"
  rc=0; "$T" sync "$work/cu.toml" --python "$work/v312" --sysroot "$S/cpu-only" --dry-run 2>"$work/err" || rc=$?
  [ $rc = 5 ] || { cat "$work/err"; ts_fail "CUDA lock on a CPU-only host: exit $rc"; }
  "$T" sync "$work/cu.toml" --python "$work/v312" --sysroot "$S/cpu-only" --dry-run --ignore-host \
    >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "--ignore-host"; }
  grep -q "^install torch 2.9.1+cu126 cu126 " "$work/out" || ts_fail "cuda lock plan: $(cat "$work/out")"
fi

# 5. export of our lock is pinned with hashes.
"$T" export "$work/cu.toml" | grep -q "^torch==2.9.1+cu126" || ts_fail "export of the CUDA lock"
# 6. A local wheel given relative to the working directory: its `path` is
#    relative to the lock file's directory (PEP 751), so sync finds it.
mkdir -p "$work/proj/wheels" "$work/proj/locks"
cp "$work/www/simple/gamma-0.5-py3-none-any.whl" "$work/proj/wheels/"
(cd "$work/proj" && "$T" lock --python "$work/venv" --no-index ./wheels/gamma-0.5-py3-none-any.whl \
   -o locks/pylock.toml) 2>"$work/err" || { cat "$work/err"; ts_fail "lock of a local wheel"; }
grep -qx 'path = "../wheels/gamma-0.5-py3-none-any.whl"' "$work/proj/locks/pylock.toml" \
  || { cat "$work/proj/locks/pylock.toml"; ts_fail "local wheel path not relative to the lock file"; }
ts_make_venv "$work/v-local"
(cd / && "$T" sync "$work/proj/locks/pylock.toml" --python "$work/v-local" --cpu) 2>"$work/err" \
  || { cat "$work/err"; ts_fail "sync of a local-wheel lock from another directory"; }
"$work/v-local/bin/python" -c 'import gamma' || ts_fail "local wheel not installed by sync"
# ... and export writes that wheel as its path, which pip --require-hashes
# installs from any directory (name==version would send pip to an index).
"$T" export "$work/proj/locks/pylock.toml" >"$work/local-req.txt" || ts_fail "export of a local-wheel lock"
cat "$work/local-req.txt"
grep -q "^$work/proj/locks/.*gamma-0.5-py3-none-any.whl" "$work/local-req.txt" ||
  ts_fail "export did not write the local wheel's path"
ts_make_venv "$work/v-pip-local"
(cd / && env -u PIP_FIND_LINKS -u PIP_CERT python3 -m pip --python "$work/v-pip-local/bin/python" \
   install -q --no-index --require-hashes -r "$work/local-req.txt") 2>"$work/err" ||
  { cat "$work/err"; ts_fail "pip --require-hashes rejected the exported local wheel"; }
"$work/v-pip-local/bin/python" -c 'import gamma' || ts_fail "exported local wheel not installed by pip"
echo "lock_lock: ok"
