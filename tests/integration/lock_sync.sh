#!/usr/bin/env bash
# torchsolve sync and export: wheels built at test time served by nginx,
# locks written here; sync into a fresh venv matches the lock (pip list,
# pip check), removes extraneous packages, changes versions, picks the
# best-tagged wheel, refuses a tampered hash with the venv byte-identical,
# --offline names what the cache lacks, the host gate, pip/uv/spec shapes;
# export is accepted by pip install --require-hashes.
. "$(dirname "$0")/lib.sh"
python3 -m pip --version >/dev/null 2>&1 || ts_skip "python3 has no pip"
ts_isolate_from_host
ts_clear_pip_env
tmp=$(ts_tmpdir)
export XDG_CONFIG_HOME=$tmp/config TORCHSOLVE_CACHE_DIR=$tmp/cache
FIX=$TS_SOURCE_DIR/fixtures/sysroot
PYTAG=$(python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
ARCH=$(uname -m)

# Wheels: alpha needs beta; delta has a generic and a platform wheel.
mkdir -p "$tmp/root/files"
python3 - "$tmp/root/files" "$PYTAG" "$ARCH" <<'PY'
import base64, hashlib, sys, zipfile
out, pytag, arch = sys.argv[1:4]
def rec(d):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
def wheel(name, ver, tag="py3-none-any", requires=(), body=None):
    mod = name.replace("-", "_")
    di = "%s-%s.dist-info" % (mod, ver)
    md = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, ver)
    md += "".join("Requires-Dist: %s\n" % r for r in requires)
    files = [("%s.py" % mod, (body or "VERSION = %r\nTAG = %r\n" % (ver, tag)).encode()),
             (di + "/METADATA", md.encode()),
             (di + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: %s\n" % tag).encode())]
    record = "".join("%s,%s,%d\n" % (n, rec(d), len(d)) for n, d in files) + di + "/RECORD,,\n"
    fn = "%s/%s-%s-%s.whl" % (out, mod, ver.replace("-", "_"), tag)
    with zipfile.ZipFile(fn, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files:
            z.writestr(n, d)
        z.writestr(di + "/RECORD", record)
wheel("alpha", "1.0", requires=["beta>=1"])
wheel("beta", "1.0"); wheel("beta", "2.0")
wheel("gamma", "1.0")
wheel("delta", "1.0")
wheel("delta", "1.0", tag="%s-%s-manylinux_2_17_%s" % (pytag, pytag, arch))
wheel("winonly", "1.0")
wheel("torch", "2.5.1+rocm6.2")
PY
ts_nginx_start "$tmp/root"
U=$TS_NGINX_URL/files

# mklock OUT PKG==VER... : a pylock.toml with every wheel of each pin.
mklock() {
  python3 - "$tmp/root/files" "$U" "$@" <<'PY'
import hashlib, os, sys
files, url, out, pins = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
s = 'lock-version = "1.0"\nrequires-python = ">=3.8"\ncreated-by = "test"\n'
for pin in pins:
    marker = None
    if ";" in pin:
        pin, marker = [x.strip() for x in pin.split(";", 1)]
    name, ver = pin.split("==")
    s += '\n[[packages]]\nname = "%s"\nversion = "%s"\n' % (name, ver)
    if marker:
        s += "marker = '%s'\n" % marker
    for fn in sorted(os.listdir(files)):
        if fn.startswith("%s-%s-" % (name.replace("-", "_"), ver)):
            d = open(os.path.join(files, fn), "rb").read()
            s += '\n[[packages.wheels]]\nname = "%s"\nurl = "%s/%s"\nsize = %d\nhashes = {sha256 = "%s"}\n' % (
                fn, url, fn.replace("+", "%2B"), len(d), hashlib.sha256(d).hexdigest())
open(out, "w").write(s)
PY
}
pipq() { python3 -m pip --python "$1/bin/python" "${@:2}" 2>/dev/null; }
snapshot() { # listing + hash of every file of a venv
  (cd "$1" && find . -path ./lib/python3*/site-packages/__pycache__ -prune -o -print0 | LC_ALL=C sort -z |
     xargs -0 -I{} sh -c 'if [ -f "{}" ] && [ ! -L "{}" ]; then echo "{} $(sha256sum <"{}" | cut -c1-64)"; else echo "{}"; fi')
}

mklock "$tmp/lock1.toml" alpha==1.0 beta==1.0 delta==1.0 "winonly==1.0 ; sys_platform == \"win32\""
ts_make_venv "$tmp/v"
"$TORCHSOLVE" sync "$tmp/lock1.toml" --python "$tmp/v" --dry-run >"$tmp/dry.out" 2>"$tmp/dry.txt" ||
  ts_fail "dry run"
# the plan goes to standard output, shaped as install --dry-run's
grep -q "^install alpha 1.0 - " "$tmp/dry.out" || ts_fail "dry run plan: $(cat "$tmp/dry.out")"
[ "$(grep -c '' "$tmp/dry.out")" = 3 ] || ts_fail "dry run plan lines: $(cat "$tmp/dry.out")"
! grep -q alpha "$tmp/dry.txt" || ts_fail "dry run plan on stderr: $(cat "$tmp/dry.txt")"
grep -q "Would install 3, change 0, remove 0" "$tmp/dry.txt" || ts_fail "dry run summary: $(cat "$tmp/dry.txt")"
[ -z "$(ls "$tmp"/v/lib/python3*/site-packages)" ] || ts_fail "dry run changed the venv"

# 1. Sync into a fresh venv: exactly the lock, winonly skipped by marker.
"$TORCHSOLVE" sync "$tmp/lock1.toml" --python "$tmp/v" || ts_fail "sync 1"
got=$(pipq "$tmp/v" list --format=freeze | LC_ALL=C sort | tr '\n' ' ')
[ "$got" = "alpha==1.0 beta==1.0 delta==1.0 " ] || ts_fail "after sync 1: $got"
pipq "$tmp/v" check >/dev/null || ts_fail "pip check after sync"
"$tmp/v/bin/python" -c "import delta; assert delta.TAG != 'py3-none-any', delta.TAG" \
  || ts_fail "the platform wheel of delta was not preferred"
out=$("$TORCHSOLVE" sync "$tmp/lock1.toml" --python "$tmp/v" 2>&1) || ts_fail "sync again"
echo "$out" | grep -q "0 installed, 0 changed, 0 removed, 3 unchanged" || ts_fail "second sync not a no-op: $out"

# 2. An extraneous package is removed; a changed pin is changed.
"$TORCHSOLVE" wheel install --python "$tmp/v" "$tmp/root/files/gamma-1.0-py3-none-any.whl" >/dev/null 2>&1 \
  || ts_fail "installing gamma"
mklock "$tmp/lock2.toml" alpha==1.0 beta==2.0 delta==1.0
"$TORCHSOLVE" sync "$tmp/lock2.toml" --python "$tmp/v" --dry-run >"$tmp/dry2.out" 2>/dev/null ||
  ts_fail "dry run 2"
printf 'keep alpha 1.0 - -\nupgrade beta 2.0 - - (was 1.0)\nkeep delta 1.0 - -\nremove gamma 1.0 - -\n' |
  diff - "$tmp/dry2.out" >&2 || ts_fail "dry run 2 plan"
"$TORCHSOLVE" sync "$tmp/lock2.toml" --python "$tmp/v" 2>"$tmp/s2.txt" || ts_fail "sync 2: $(cat "$tmp/s2.txt")"
got=$(pipq "$tmp/v" list --format=freeze | LC_ALL=C sort | tr '\n' ' ')
[ "$got" = "alpha==1.0 beta==2.0 delta==1.0 " ] || ts_fail "after sync 2: $got"
grep -q " - gamma==1.0" "$tmp/s2.txt" || ts_fail "gamma removal not shown"

# 2b. A distribution whose METADATA does not parse (no Name, a Requires-Dist
# that is no requirement) is part of the installed set install sees
# (target/site.h): sync sees it by its directory name and removes it.
site=$(echo "$tmp/v"/lib/python*/site-packages)
mkdir -p "$site/junk-9.9.dist-info"
printf 'Metadata-Version: 2.1\nRequires-Dist: ][not a requirement\n' >"$site/junk-9.9.dist-info/METADATA"
printf 'junk-9.9.dist-info/METADATA,,\njunk-9.9.dist-info/RECORD,,\n' >"$site/junk-9.9.dist-info/RECORD"
"$TORCHSOLVE" sync "$tmp/lock2.toml" --python "$tmp/v" 2>"$tmp/s2b.txt" || ts_fail "sync 2b: $(cat "$tmp/s2b.txt")"
grep -q " - junk==9.9" "$tmp/s2b.txt" || ts_fail "the unparseable junk was not removed: $(cat "$tmp/s2b.txt")"
[ ! -e "$site/junk-9.9.dist-info" ] || ts_fail "junk-9.9.dist-info is still there"

# 3. A tampered hash: sync fails (exit 4), venv byte-identical.
mklock "$tmp/lock3.toml" alpha==1.0 beta==1.0 delta==1.0 gamma==1.0
python3 - "$tmp/lock3.toml" <<'PY'
import re, sys
p = sys.argv[1]; s = open(p).read()
i = s.index('name = "gamma-1.0')
j = s.index('sha256 = "', i) + 10
s = s[:j] + ("0" if s[j] != "0" else "1") + s[j + 1:]
open(p, "w").write(s)
PY
snapshot "$tmp/v" >"$tmp/before.txt"
st=0; "$TORCHSOLVE" sync "$tmp/lock3.toml" --python "$tmp/v" 2>"$tmp/s3.txt" || st=$?
[ $st = 4 ] || ts_fail "tampered hash: exit $st: $(cat "$tmp/s3.txt")"
# the expected digest is the lock's: the message says whose it is
grep -q "sha256 is [0-9a-f]* but the lock says" "$tmp/s3.txt" ||
  ts_fail "tampered hash: the message does not blame the lock: $(cat "$tmp/s3.txt")"
snapshot "$tmp/v" >"$tmp/after.txt"
diff "$tmp/before.txt" "$tmp/after.txt" >&2 || ts_fail "the venv changed after a hash failure"
# Nothing was installed or removed, so nothing may read as if it had been.
! grep -E '^ [-+~] ' "$tmp/s3.txt" || ts_fail "a failed sync listed changes as done: $(cat "$tmp/s3.txt")"
echo "tampered hash: exit 4, $(wc -l <"$tmp/before.txt") paths byte-identical"

# 3b. Progress: a status line on a terminal (pty via script(1)), nothing
#     of it when stderr is a pipe.
if command -v script >/dev/null; then
  ts_make_venv "$tmp/vt"
  TORCHSOLVE_CACHE_DIR=$tmp/cache-tty script -qec \
    "'$TORCHSOLVE' sync '$tmp/lock1.toml' --python '$tmp/vt'" /dev/null >"$tmp/tty.txt" 2>&1 \
    || ts_fail "sync on a pty: $(cat "$tmp/tty.txt")"
  grep -q "Downloading 3 wheels" "$tmp/tty.txt" || ts_fail "no progress on a terminal: $(cat -v "$tmp/tty.txt")"
  ts_make_venv "$tmp/vp"
  TORCHSOLVE_CACHE_DIR=$tmp/cache-pipe "$TORCHSOLVE" sync "$tmp/lock1.toml" --python "$tmp/vp" 2>"$tmp/pipe.txt" \
    || ts_fail "sync piped"
  grep -q "Downloading 3 wheels\|$(printf '\033')" "$tmp/pipe.txt" && ts_fail "progress escapes reached a pipe"
  grep -q "Downloaded 3 wheels" "$tmp/pipe.txt" || ts_fail "no download summary when piped"
fi

# 4. --offline: an empty cache names what is missing (exit 3); a filled
#    cache syncs a fresh venv without the server.
ts_make_venv "$tmp/v2"
st=0; TORCHSOLVE_CACHE_DIR=$tmp/empty-cache "$TORCHSOLVE" sync "$tmp/lock1.toml" --python "$tmp/v2" --offline \
  2>"$tmp/s4.txt" || st=$?
[ $st = 3 ] || ts_fail "offline with an empty cache: exit $st"
grep -q "alpha-1.0-py3-none-any.whl" "$tmp/s4.txt" && grep -q "beta-1.0-py3-none-any.whl" "$tmp/s4.txt" \
  || ts_fail "offline: missing wheels not named: $(cat "$tmp/s4.txt")"
ts_nginx_stop
"$TORCHSOLVE" sync "$tmp/lock1.toml" --python "$tmp/v2" --offline || ts_fail "offline from the cache"
got=$(pipq "$tmp/v2" list --format=freeze | LC_ALL=C sort | tr '\n' ' ')
[ "$got" = "alpha==1.0 beta==1.0 delta==1.0 " ] || ts_fail "offline sync: $got"

# 4b. Wheels given by a path relative to the lock file (no server needed).
sed -e "s|^url = \"$U/\(.*\)\"|path = \"files/\1\"|" "$tmp/lock2.toml" >"$tmp/root/lockp.toml"
grep -q '^path = "files/' "$tmp/root/lockp.toml" || ts_fail "path lock not written"
ts_make_venv "$tmp/vpath"
"$TORCHSOLVE" sync "$tmp/root/lockp.toml" --python "$tmp/vpath" 2>"$tmp/sp.txt" || ts_fail "path lock: $(cat "$tmp/sp.txt")"
got=$(pipq "$tmp/vpath" list --format=freeze | LC_ALL=C sort | tr '\n' ' ')
[ "$got" = "alpha==1.0 beta==2.0 delta==1.0 " ] || ts_fail "path lock: $got"

# 5. The host gate: torch 2.5.1+rocm6.2 on an RX 7900 XT (gfx1100).
mklock "$tmp/lock5.toml" torch==2.5.1+rocm6.2
st=0; "$TORCHSOLVE" sync "$tmp/lock5.toml" --python "$tmp/v2" --dry-run --sysroot "$FIX/rx7900xt-rocm62" \
  2>"$tmp/s5.txt" || st=$?
[ $st = 5 ] || ts_fail "host gate: exit $st: $(cat "$tmp/s5.txt")"
grep -q "hipblaslt" "$tmp/s5.txt" || ts_fail "host gate: rule not named"
"$TORCHSOLVE" sync "$tmp/lock5.toml" --python "$tmp/v2" --dry-run --sysroot "$FIX/rx7900xt-rocm62" \
  --ignore-host 2>/dev/null || ts_fail "--ignore-host did not pass the gate"

# 6. Other writers' shapes.
# its directory, git and archive sources are built when the sync applies
st=0; "$TORCHSOLVE" sync "$TS_SOURCE_DIR/fixtures/lock/pylock.pip-style.toml" --python "$tmp/v2" --dry-run \
  --cpu >"$tmp/s6.out" 2>"$tmp/s6.txt" || st=$?
[ $st = 0 ] && grep -qx "install mylib - - -" "$tmp/s6.out" && grep -qx "install pkg-from-git - - -" "$tmp/s6.out" &&
  grep -qx "install tarball 1.2 - -" "$tmp/s6.out" || ts_fail "pip-style: $st $(cat "$tmp/s6.out" "$tmp/s6.txt")"
SPEC=$TS_SHARED_DIR/conformance/packaging/tests/pylock/pylock.spec-example.toml
PY312=
for c in /root/.pyenv/versions/3.12*/bin/python3.12 /usr/bin/python3.12 /usr/local/bin/python3.12; do
  [ -x "$c" ] && "$c" -c pass 2>/dev/null && { PY312=$c; break; }
done
if [ -f "$SPEC" ] && [ -n "$PY312" ]; then
  "$PY312" -m venv --without-pip "$tmp/v312"
  "$TORCHSOLVE" sync "$SPEC" --python "$tmp/v312" --dry-run --cpu >"$tmp/s7.txt" || ts_fail "spec example: $(cat "$tmp/s7.txt")"
  grep -q "^install numpy 2.2.3 " "$tmp/s7.txt" || ts_fail "spec example plan: $(cat "$tmp/s7.txt")"
  "$TORCHSOLVE" sync "$TS_SOURCE_DIR/fixtures/lock/pylock.uv-style.toml" --python "$tmp/v312" --dry-run --ignore-host \
    >"$tmp/s8.txt" || ts_fail "uv-style: $(cat "$tmp/s8.txt")"
  grep -q "^install torch 2.9.1+cu130 cu130 " "$tmp/s8.txt" || [ "$ARCH" != x86_64 ] || ts_fail "uv-style plan: $(cat "$tmp/s8.txt")"
fi
[ -f "$SPEC" ] && { st=0; "$TORCHSOLVE" sync "$SPEC" --python "$tmp/v2" --dry-run --cpu 2>"$tmp/s9.txt" || st=$?
  [ "$PYTAG" = cp312 ] || grep -q "requires Python ==3.12" "$tmp/s9.txt" || ts_fail "requires-python: $(cat "$tmp/s9.txt")"; }

# 7. export → pip install --require-hashes accepts it (no index, the wheels here).
"$TORCHSOLVE" export "$tmp/lock2.toml" -o "$tmp/req.txt" 2>/dev/null || ts_fail "export"
grep -q -- "--hash=sha256:" "$tmp/req.txt" || ts_fail "export: no hashes"
ts_make_venv "$tmp/v3"
pipq "$tmp/v3" install --require-hashes --dry-run --no-index --find-links "$tmp/root/files" -r "$tmp/req.txt" \
  >"$tmp/pip.txt" || ts_fail "pip refused the export: $(cat "$tmp/pip.txt")"
grep -q "Would install.*alpha-1.0.*beta-2.0.*delta-1.0" "$tmp/pip.txt" || ts_fail "pip plan: $(cat "$tmp/pip.txt")"
python3 - "$tmp/req.txt" <<'PY' || ts_fail "tampered export accepted"
import re, sys
p = sys.argv[1]; s = open(p).read()
i = s.index("sha256:") + 7
open(p + ".bad", "w").write(s[:i] + ("1" if s[i] == "0" else "0") + s[i + 1:])
PY
st=0; pipq "$tmp/v3" install --require-hashes --dry-run --no-index --find-links "$tmp/root/files" \
  -r "$tmp/req.txt.bad" >"$tmp/pipbad.txt" 2>&1 || st=$?
[ $st != 0 ] || ts_fail "pip accepted a tampered export (the test cannot fail): $(cat "$tmp/req.txt.bad" "$tmp/pipbad.txt")"
if [ -f "$SPEC" ]; then
  "$TORCHSOLVE" export "$SPEC" >"$tmp/spec.txt" || ts_fail "export of the spec example"
  grep -q "^numpy==2.2.3" "$tmp/spec.txt" && [ "$(grep -c -- '--hash=sha256:' "$tmp/spec.txt")" -ge 3 ] \
    || ts_fail "spec export: $(cat "$tmp/spec.txt")"
fi
echo "lock_sync: ok"
