#!/usr/bin/env bash
# toml/toml.c against Python's tomllib (Debian 12's python3 has it): every
# .toml file of ../shared/conformance and of fixtures/, and seeded random
# mutations of them, are accepted or refused exactly as tomllib does, and
# what both accept reads value for value the same (floats and date-times
# compared as tomllib reads the text toml/toml.c kept).
. "$(dirname "$0")/lib.sh"
dumper=${TS_BUILD_DIR:?}/tests/conf_toml_roundtrip
[ -x "$dumper" ] || ts_fail "no $dumper"
python3 -c 'import tomllib' 2>/dev/null || ts_skip "python3 has no tomllib"
work=$(ts_tmpdir)
files=()
while IFS= read -r f; do files+=("$f"); done < <(
  { [ -d "${TS_SHARED_DIR:-}/conformance" ] && find "$TS_SHARED_DIR/conformance" -name '*.toml'
    find "$TS_SOURCE_DIR/fixtures" -name '*.toml'; } | LC_ALL=C sort)
[ "${#files[@]}" -gt 0 ] || ts_skip "no .toml files"
python3 - "$dumper" "$work" "${files[@]}" <<'PY'
import json, math, random, subprocess, sys, tomllib

dumper, work, files = sys.argv[1], sys.argv[2], sys.argv[3:]

def from_dump(v):
    """The dumper's tagged JSON as the Python values tomllib gives."""
    if isinstance(v, bool) or isinstance(v, list):
        return v if isinstance(v, bool) else [from_dump(x) for x in v]
    (tag, x), = v.items()
    if tag == "s":
        return x
    if tag == "i":
        return int(x)
    if tag in ("f", "d"):  # the text toml/toml.c kept, read as tomllib reads it
        return tomllib.loads("v = " + x)["v"]
    return {k: from_dump(y) for k, y in x.items()}

def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b

def dump(paths):
    out = subprocess.run([dumper, "--dump", *paths], capture_output=True, check=True).stdout
    lines = out.decode("utf-8", "surrogateescape").splitlines()
    assert len(lines) == len(paths), (len(lines), len(paths))
    return [json.loads(l) for l in lines]

accepted = 0

def judge(paths, label):
    global accepted
    bad = 0
    for path, got in zip(paths, dump(paths)):
        try:
            with open(path, "rb") as f:
                want = tomllib.load(f)
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            want = None
        if want is None and "ok" in got:
            print(f"FAIL {label} {path}: accepted, tomllib refuses"); bad += 1
        elif want is not None and "error" in got:
            print(f"FAIL {label} {path}: refused ({got['error']}), tomllib accepts"); bad += 1
        elif want is not None and not same(from_dump(got["ok"]), want):
            print(f"FAIL {label} {path}: values differ from tomllib"); bad += 1
        accepted += want is not None and "ok" in got
    return bad

bad = judge(files, "file")
rng = random.Random(751)  # the same mutations every run
alphabet = b'"\'[]{}=.,#\n\r\t \\x0-+:TZe_u\x00\xc3\xa9\x7f'
mutants = []
for i in range(5500):
    src = open(files[i % len(files)], "rb").read()
    if not src:
        continue
    b = bytearray(src)
    for _ in range(rng.randint(1, 3)):
        pos = rng.randrange(len(b) + 1)
        op = rng.randrange(4)
        if op == 0 and pos < len(b):
            del b[pos]
        elif op == 1:
            b[pos:pos] = bytes([rng.choice(alphabet)])
        elif op == 2 and pos < len(b):
            b[pos] = rng.choice(alphabet)
        else:  # a line repeated: duplicate keys and tables
            lines = bytes(b).split(b"\n")
            k = rng.randrange(len(lines))
            lines.insert(k, lines[k])
            b = bytearray(b"\n".join(lines))
    path = f"{work}/m{i}.toml"
    open(path, "wb").write(bytes(b))
    mutants.append(path)
for k in range(0, len(mutants), 500):
    bad += judge(mutants[k:k + 500], "mutation")
print(f"{len(files)} files and {len(mutants)} mutations against tomllib "
      f"({accepted} accepted by both, the rest refused by both): {bad} differences")
sys.exit(1 if bad else 0)
PY
