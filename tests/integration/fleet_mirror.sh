#!/usr/bin/env bash
# torchsolve mirror LOCK DIR (issue 27): a fleet lock's files (every
# profile) downloaded and verified into DIR with a static index (PEP 503
# HTML and PEP 691 JSON pages, PEP 658 .metadata, whl/VARIANT pages, a
# pylock.toml pointing into DIR/files, a README); a second run fetches
# nothing (nginx's access log); with the origin stopped, sync from the
# folder installs each profile, and install against the mirror served by
# nginx works.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
S=$TS_SOURCE_DIR/fixtures/sysroot
python3 -c 'import tomllib' 2>/dev/null || ts_skip "python3 has no tomllib (3.11+)"
ts_isolate_from_host
ts_venv_for_wheels
export XDG_CONFIG_HOME=$work/config TORCHSOLVE_CACHE_DIR=$work/cache
ts_index_from_spec < <(
  for b in cpu cu126; do echo "whl/$b torch 2.9.1+$b $tag filelock"; done
  echo "simple numpy 2.1.0 $tag"
  echo "simple filelock 3.16.1 py3-none-any"
)
"$T" lock --python "$work/venv" -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" \
  --profile cpu --profile cu126 torch numpy -o "$work/pylock.toml" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "lock --profile"; }

# 1. The mirror: every file of both profiles, its pages, its lock.
M=$work/mirror
"$T" mirror "$work/pylock.toml" "$M" 2>"$work/err" || { cat "$work/err"; ts_fail "mirror"; }
cat "$work/err"
grep -q "^Mirrored 4 files of 3 projects into .* (4 fetched, 0 already there)" "$work/err" ||
  ts_fail "mirror's summary"
for f in simple/index.html simple/index.json simple/torch/index.html simple/torch/index.json \
         simple/numpy/index.json whl/cu126/torch/index.html whl/cpu/torch/index.json \
         pylock.toml README.md; do
  [ -s "$M/$f" ] || ts_fail "the mirror has no $f"
done
python3 - "$M" <<'PY' || ts_fail "the mirror's pages and lock"
import hashlib, json, os, sys, tomllib
m = sys.argv[1]
root = json.load(open(f"{m}/simple/index.json"))
assert [p["name"] for p in root["projects"]] == ["filelock", "numpy", "torch"], root
page = json.load(open(f"{m}/simple/torch/index.json"))
assert sorted(f["filename"].split("-")[1] for f in page["files"]) == ["2.9.1+cpu", "2.9.1+cu126"], page
for f in page["files"]:
    data = open(os.path.join(m, "simple", "torch", f["url"]), "rb").read()
    assert hashlib.sha256(data).hexdigest() == f["hashes"]["sha256"], f
    meta = open(os.path.join(m, "simple", "torch", f["url"]) + ".metadata", "rb").read()
    assert hashlib.sha256(meta).hexdigest() == f["core-metadata"]["sha256"], f
    assert b"Name: torch" in meta
html = open(f"{m}/simple/torch/index.html").read()
assert 'data-core-metadata="sha256=' in html and 'href="../../files/torch-2.9.1+cpu-' in html, html
lock = tomllib.load(open(f"{m}/pylock.toml", "rb"))
for p in lock["packages"]:
    for w in p.get("wheels", []):
        assert "url" not in w and w["path"].startswith("files/"), w
        assert os.path.exists(os.path.join(m, w["path"])), w
PY

# 2. Again: nothing fetched from the origin.
mark=$(ts_nginx_log_mark)
"$T" mirror "$work/pylock.toml" "$M" 2>"$work/err" || { cat "$work/err"; ts_fail "mirror again"; }
grep -q "(0 fetched, 4 already there)" "$work/err" || { cat "$work/err"; ts_fail "second summary"; }
if ts_nginx_log_since "$mark" | grep -q '\.whl'; then
  ts_nginx_log_since "$mark"
  ts_fail "the second mirror run downloaded files again"
fi

# 3. The origin stopped: sync each profile from the folder (another cache).
ts_nginx_stop
for p in cpu cu126; do
  ts_make_venv "$work/img-$p"
  TORCHSOLVE_CACHE_DIR=$work/cache2 "$T" sync "$M/pylock.toml" --python "$work/img-$p" \
    --profile "$p" --ignore-host --sysroot "$S/cpu-only" 2>"$work/err" ||
    { cat "$work/err"; ts_fail "sync $p from the mirror folder"; }
  got=$("$work/img-$p/bin/python" -c 'import importlib.metadata as m
print(" ".join(sorted("%s==%s" % (d.metadata["Name"], d.version) for d in m.distributions())))')
  [ "$got" = "filelock==3.16.1 numpy==2.1.0 torch==2.9.1+$p" ] || ts_fail "sync $p: installed '$got'"
done

# 4. The mirror served over HTTP: an install from it alone.
ts_nginx_start "$M"
ts_make_venv "$work/net"
TORCHSOLVE_CACHE_DIR=$work/cache3 "$T" install --python "$work/net" --cpu \
  --index-url "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" torch numpy \
  2>"$work/err" || { cat "$work/err"; ts_fail "install from the served mirror"; }
"$work/net/bin/python" -c 'import importlib.metadata as m; assert m.version("torch") == "2.9.1+cpu"' ||
  ts_fail "the served mirror did not give torch 2.9.1+cpu"
echo "fleet_mirror: ok"
