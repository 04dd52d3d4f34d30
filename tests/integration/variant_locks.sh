#!/usr/bin/env bash
# PEP 825 variant wheels in fleet and universal locks (issue 24): a lock
# --profile lock lists every variant wheel with [packages.variants-json];
# sync --profile NAME installs the variant that profile's machine (its
# backend and GPU targets) selects, not this host's; sync --dry-run shows
# the label; lock --universal lists the variant wheels and variants-json.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_variant_index_start
IX=(-i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl")
HOST_A=(--cuda-driver 570.86.10 --compute-capability 8.9) # an RTX 4090: nvlib cu12
site=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
check_lock() { # LOCK: nvlib's entries list both variants and the variants.json
  python3 - "$1" <<'PY' || { cat "$1"; ts_fail "$1: nvlib's variants or variants-json missing"; }
import re, sys, tomllib
pkgs = [p for p in tomllib.load(open(sys.argv[1], "rb"))["packages"] if p["name"] == "nvlib"]
assert pkgs, "no nvlib"
for p in pkgs:
    labels = {m.group(1) for w in p["wheels"]
              for m in [re.search(r"-any-(.*)\.whl$", w["name"])] if m}
    assert {"cu12", "cu13"} <= labels, labels
    vj = p["variants-json"]
    assert vj["name"] == "nvlib-1.0-variants.json", vj
    assert re.fullmatch("[0-9a-f]{64}", vj["hashes"]["sha256"]), vj
PY
}

# a fleet lock made on host A for two profiles
"$T" lock --python "$work/venv" "${IX[@]}" --profile cu128:cc=8.9 \
  --profile cu130:cc=9.0 -o "$work/fleet.toml" nvlib 2>"$work/err" || { cat "$work/err"; ts_fail "lock --profile"; }
check_lock "$work/fleet.toml"
# sync --dry-run says the label the lock's wheel is
"$T" sync --python "$work/venv" "${HOST_A[@]}" --profile cu130 --dry-run "$work/fleet.toml" \
  >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "sync --dry-run --profile cu130"; }
grep -Eq '^install nvlib 1\.0 \[cu13\] ' "$work/out" || { cat "$work/out"; ts_fail "sync --dry-run: no [cu13]"; }
# on host A, sync --profile cu130 installs the other profile's variant
"$T" sync --python "$work/venv" "${HOST_A[@]}" --profile cu130 "$work/fleet.toml" \
  >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "sync --profile cu130"; }
[ "$(cat "$site/nvlib/build.txt")" = cu13 ] ||
  ts_fail "sync --profile cu130 on host A: nvlib is $(cat "$site/nvlib/build.txt"), wanted cu13"
# and without --profile, host A's own profile and variant
"$T" sync --python "$work/venv" "${HOST_A[@]}" --dry-run "$work/fleet.toml" >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "sync --dry-run"; }
grep -Eq '^(upgrade|downgrade|reinstall|change) nvlib 1\.0 \[cu12\] ' "$work/out" ||
  { cat "$work/out"; ts_fail "sync --dry-run on host A: no [cu12]"; }
"$T" sync --python "$work/venv" "${HOST_A[@]}" "$work/fleet.toml" >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "sync"; }
[ "$(cat "$site/nvlib/build.txt")" = cu12 ] || ts_fail "sync on host A: nvlib is $(cat "$site/nvlib/build.txt")"

# a plain lock's sync --dry-run shows the label too
"$T" lock --python "$work/venv" "${IX[@]}" "${HOST_A[@]}" -o "$work/lock.toml" nvlib 2>"$work/err" ||
  { cat "$work/err"; ts_fail "lock"; }
check_lock "$work/lock.toml"
"$T" sync --python "$work/venv" --cuda-driver 580.65.06 --compute-capability 9.0 --dry-run \
  "$work/lock.toml" >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "sync --dry-run (H100)"; }
grep -Eq '^[a-z]+ nvlib 1\.0 \[cu13\] ' "$work/out" || { cat "$work/out"; ts_fail "sync --dry-run on an H100: no [cu13]"; }

# lock --universal lists the variant wheels with their variants.json
"$T" lock --universal --python "$work/venv" "${IX[@]}" -o "$work/universal.toml" nvlib 2>"$work/err" ||
  { cat "$work/err"; ts_fail "lock --universal"; }
check_lock "$work/universal.toml"
"$T" sync --python "$work/venv" --cuda-driver 580.65.06 --compute-capability 9.0 --dry-run \
  "$work/universal.toml" >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "sync --dry-run of the universal lock"; }
grep -Eq '^[a-z]+ nvlib 1\.0 \[cu13\] ' "$work/out" || { cat "$work/out"; ts_fail "universal lock on an H100: no [cu13]"; }
echo "ok"
