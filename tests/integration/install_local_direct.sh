#!/usr/bin/env bash
# A wheel file named on the command line is installed as pip installs it:
# its members are inflated straight into the transaction's stage, each file
# created once (no unpacked tree in the cache, no hardlink), and checked
# against RECORD as it is written, so that a member whose bytes do not match
# half-way through the wheel fails the install and leaves the environment as
# it was (the stage dropped, the installed version intact).  Installed a
# second time, the same file is unpacked into the cache as any wheel is,
# and the installs after it hardlink from there.
# Counted with strace, never timed.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || ts_skip "no python3"
command -v strace >/dev/null || ts_skip "strace not installed"
strace -f -qq -e trace=openat -o /dev/null true 2>/dev/null || ts_skip "strace cannot trace here"
T=${TORCHSOLVE:?}
tmp=$(ts_tmpdir)
export TORCHSOLVE_CACHE_DIR=$tmp/cache
# many 1.0: 300 modules in 30 packages; many 2.0 the same, but the bytes of
# its member 150 are not those RECORD hashes.
python3 - "$tmp" <<'PY'
import base64, hashlib, sys, zipfile
out = sys.argv[1]
def wheel(version, bad):
    di = "many-%s.dist-info" % version
    files = {"many/__init__.py": b"VERSION = %r\n" % version}
    for k in range(300):
        files["many/p%02d/f%03d.py" % (k % 30, k)] = b"X = %d  # %s\n" % (k, version.encode())
    for k in range(30):
        files["many/p%02d/__init__.py" % k] = b""
    files[di + "/METADATA"] = b"Metadata-Version: 2.1\nName: many\nVersion: %s\n" % version.encode()
    files[di + "/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    rows = []
    for name, data in files.items():
        h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append("%s,sha256=%s,%d" % (name, h, len(data)))
    rows.append(di + "/RECORD,,")
    if bad:
        files["many/p00/f150.py"] = b"X = 999  # 2.0\n"  # same size, other bytes
    with zipfile.ZipFile("%s/many-%s-py3-none-any.whl" % (out, version), "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
        z.writestr(di + "/RECORD", "\n".join(rows) + "\n")
wheel("1.0", False)
wheel("2.0", True)
PY
traced() { # trace-file args...: torchsolve under strace
  local tr=$1; shift
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq \
    -e trace=openat,open,creat,link,linkat,symlinkat -o "$tr" "$T" "$@"
}
trees() { find "$TORCHSOLVE_CACHE_DIR/wheels-v1" -maxdepth 1 -regextype egrep -regex '.*/[0-9a-f]{64}' 2>/dev/null | wc -l; }
V=$tmp/venv
"$T" venv -q "$V" || ts_fail "venv"
SITE=$(echo "$V"/lib/python3*/site-packages)

traced "$tmp/cold.trace" install -q --no-deps --no-index --python "$V" "$tmp/many-1.0-py3-none-any.whl" ||
  ts_fail "install of a local wheel"
[ "$("$V/bin/python" -c 'import many.p00.f150 as m, many; print(m.X, many.VERSION)')" = "150 1.0" ] ||
  ts_fail "installed files"
creates=$(grep -c 'O_CREAT' "$tmp/cold.trace" || true)
members=$(grep -cE 'open(at)?\(.*"([^"]*/)?f[0-9]{3}\.py", O_[A-Z|]*O_CREAT' "$tmp/cold.trace" || true)
[ "$members" = 300 ] || ts_fail "the 300 modules were created $members times (once each)"
links=$(grep -cE '^[0-9]+ +(link|linkat)\(' "$tmp/cold.trace" || true)
[ "$links" = 0 ] || ts_fail "a cold install of a local wheel made $links hardlinks (each file is written once)"
[ "$(trees)" = 0 ] || ts_fail "a local wheel left an unpacked tree in the cache"
[ ! -e "$SITE/.torchsolve-txn" ] || ts_fail "the transaction was left behind"
grep -q '^many/p00/f150.py,sha256=' "$SITE/many-1.0.dist-info/RECORD" || ts_fail "RECORD"
sha=$(sha256sum "$tmp/many-1.0-py3-none-any.whl" | cut -d' ' -f1)
[ "$(cat "$SITE/many-1.0.dist-info/torchsolve-wheel-sha256")" = "$sha" ] || ts_fail "the wheel's sha256 file"
grep -q "\"sha256=$sha\"" "$SITE/many-1.0.dist-info/direct_url.json" || ts_fail "direct_url.json's hash"
echo "cold: $members module creates, $creates creates in all, $links links"

# a bad member half-way through an upgrade: refused, nothing changed
snapshot() { (cd "$V" && find . -printf '%p %y %s %m %l\n' | sort && find . -type f -exec sha256sum {} + | sort); }
before=$(snapshot)
rc=0
out=$("$T" install -q --no-deps --no-index --python "$V" "$tmp/many-2.0-py3-none-any.whl" 2>&1) || rc=$?
[ $rc -ne 0 ] || ts_fail "a wheel with an altered member was installed"
grep -q "RECORD hash of 'many/p00/f150.py'" <<<"$out" || ts_fail "unexpected message: $out"
[ "$(snapshot)" = "$before" ] || ts_fail "the failed upgrade changed the venv"
[ ! -e "$SITE/.torchsolve-txn" ] || ts_fail "the failed upgrade left its stage"
[ "$("$V/bin/python" -c 'import many; print(many.VERSION)')" = "1.0" ] || ts_fail "many 1.0 not intact"
[ "$(trees)" = 0 ] || ts_fail "the failed install left a tree in the cache"

# installed a second time, the same file is worth a tree: unpacked into the
# cache, from where the installs after it hardlink (no member created)
"$T" venv -q "$tmp/v2" || ts_fail "venv 2"
"$T" install -q --no-deps --no-index --python "$tmp/v2" "$tmp/many-1.0-py3-none-any.whl" ||
  ts_fail "second install"
[ "$(trees)" = 1 ] || ts_fail "the second install of a local wheel kept no unpacked tree"
"$T" venv -q "$tmp/v3" || ts_fail "venv 3"
traced "$tmp/warm.trace" install -q --no-deps --no-index --python "$tmp/v3" "$tmp/many-1.0-py3-none-any.whl" ||
  ts_fail "install from the cached tree"
members=$(grep -cE 'open(at)?\(.*"([^"]*/)?f[0-9]{3}\.py", O_[A-Z|]*O_CREAT' "$tmp/warm.trace" || true)
links=$(grep -cE '^[0-9]+ +(link|linkat)\(' "$tmp/warm.trace" || true)
[ "$members" = 0 ] && [ "$links" -ge 300 ] ||
  ts_fail "a cached tree was not reused ($members creates, $links links)"
echo "install_local_direct: all checks passed"
