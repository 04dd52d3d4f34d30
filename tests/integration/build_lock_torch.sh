#!/usr/bin/env bash
# A torch extension sdist from an index in a fleet lock, no network: a
# PyTorch-shaped index (tiny torch wheels +cu126/+cpu with a
# torch/version.py), Debian's setuptools for the build environments.  The
# sdist's setup.py imports torch and writes torch.__version__ into the
# package it builds.
#  - lock --profile cpu --profile cu126 fingerprints each profile's build
#    environment with that profile's runtime torch: two torchext entries,
#    one per extra, whose build-env holds torch 2.9.1+cpu from whl/cpu and
#    torch 2.9.1+cu126 from whl/cu126; the same inputs in another order
#    give the same bytes;
#  - sync --profile P builds it in exactly P's locked environment, also
#    --offline with nginx stopped and the build cache emptied: built with
#    the torch it runs with.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_debian_build_wheels
S=$TS_SOURCE_DIR/fixtures/sysroot
work=$(ts_tmpdir)
cp=$(/usr/bin/python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
tag="$cp-$cp-manylinux_2_28_x86_64"
ts_index_from_spec <<SPEC
whl/cu126 torch 2.9.1+cu126 $tag,cuda=12.6
whl/cpu torch 2.9.1+cpu $tag
simple torch 2.10.0 $tag
simple beta 1.0 py3-none-any
SPEC
# torchext on the general index, an sdist only: setup.py imports torch
d=$work/sd/torchext-1.0
mkdir -p "$d/torchext"
printf 'Metadata-Version: 2.1\nName: torchext\nVersion: 1.0\n' >"$d/PKG-INFO"
printf '[build-system]\nrequires = ["setuptools>=40.8.0", "torch"]\nbuild-backend = "setuptools.build_meta"\n' \
  >"$d/pyproject.toml"
cat >"$d/setup.py" <<'PY'
import os
import torch
from setuptools import setup
with open(os.path.join("torchext", "built_with.py"), "w") as f:
    f.write("TORCH = %r\n" % torch.__version__)
setup(name="torchext", version="1.0", packages=["torchext"], install_requires=["torch", "beta"])
PY
: >"$d/torchext/__init__.py"
tar -C "$work/sd" -czf "$work/www/simple/torchext-1.0.tar.gz" torchext-1.0
sha=$(sha256sum "$work/www/simple/torchext-1.0.tar.gz" | cut -d' ' -f1)
mkdir -p "$work/www/simple/torchext"
printf '<a href="../torchext-1.0.tar.gz#sha256=%s">torchext-1.0.tar.gz</a>\n' "$sha" \
  >"$work/www/simple/torchext/index.html"
export TORCHSOLVE_CACHE_DIR=$work/cache
ts_clear_pip_env
unset TORCH_CUDA_ARCH_LIST FORCE_CUDA MAX_JOBS CUDA_HOME CUDA_PATH PYTORCH_ROCM_ARCH
"$T" venv -q --python /usr/bin/python3 "$work/venv"
IX=(-i "$TS_NGINX_URL/simple" -f "$WHEELS" --torch-index-url "$TS_NGINX_URL/whl")

# --- lock: one fingerprint per profile --------------------------------------------
"$T" lock --python "$work/venv" "${IX[@]}" --profile cpu --profile cu126:cc=9.0 torchext \
  -o "$work/pylock.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "profile lock failed"; }
cat "$work/pylock.toml"
python3 - "$work/pylock.toml" "$TS_NGINX_URL" "$sha" <<'PY' || ts_fail "the profiles' fingerprints are not their torch builds"
import sys, tomllib
lock = tomllib.load(open(sys.argv[1], "rb"))
url, sha = sys.argv[2:]
ext = [p for p in lock["packages"] if p["name"] == "torchext"]
assert len(ext) == 2, ext
seen = {}
for p in ext:
    assert p["sdist"]["hashes"]["sha256"] == sha and "wheels" not in p, p
    env = {e["name"]: e for e in p["tool"]["torchsolve"]["build-env"]}
    assert "setuptools" in env, env
    t = env["torch"]
    label = t["version"].split("+")[1]
    assert t["url"].startswith(url + "/whl/" + label + "/"), t
    seen[label] = p["marker"]
assert sorted(seen) == ["cpu", "cu126"], seen
assert "'cu126' in extras" in seen["cu126"], seen
PY
"$T" lock --python "$work/venv" "${IX[@]}" torchext --profile cpu --profile cu126:cc=9.0 \
  -o "$work/pylock2.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "second lock failed"; }
cmp "$work/pylock.toml" "$work/pylock2.toml" || ts_fail "the same inputs in another order gave other bytes"

# --- sync each profile: built with the torch it runs with --------------------------
built_with() { # VENV
  "$1/bin/python" -c 'import torchext.built_with as b, torch; print(b.TORCH, torch.__version__)'
}
sync_profile() { # VENV PROFILE ARGS...
  local v=$1 p=$2; shift 2
  "$T" venv -q --python /usr/bin/python3 "$v"
  "$T" sync "$work/pylock.toml" --python "$v" --profile "$p" --ignore-host "${IX[@]}" "$@" \
    2>"$work/err" || { cat "$work/err"; ts_fail "sync --profile $p $*"; }
}
sync_profile "$work/cu126" cu126
[ "$(built_with "$work/cu126")" = "2.9.1+cu126 2.9.1+cu126" ] || ts_fail "cu126: $(built_with "$work/cu126")"
sync_profile "$work/cpu" cpu
[ "$(built_with "$work/cpu")" = "2.9.1+cpu 2.9.1+cpu" ] || ts_fail "cpu: $(built_with "$work/cpu")"
ts_nginx_stop
rm -rf "$work/cache/builds-v1"
sync_profile "$work/cu126-offline" cu126 --offline
grep -q '^Built torchext 1.0 in' "$work/err" || ts_fail "offline sync did not build: $(cat "$work/err")"
[ "$(built_with "$work/cu126-offline")" = "2.9.1+cu126 2.9.1+cu126" ] ||
  ts_fail "cu126 offline: $(built_with "$work/cu126-offline")"
echo OK
