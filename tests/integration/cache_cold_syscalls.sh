#!/usr/bin/env bash
# What a first run (empty cache) costs the kernel and the server, counted,
# never timed (index/cache.h, index/http.h):
# - the cache's folders are made once per run: a cold resolve of 60
#   projects makes at most 6 mkdir calls under the cache (the root,
#   packs-v1/, the interpreter probes' folder, and a little room), not
#   two per project (183 before) nor 16 shards per kind (36 before); a
#   warm run makes none below the root;
# - no entry a first run cannot have is looked for: no failing open under
#   packs-v1/, pages-v2/, metadata-v2/ or wheels-v1/, and ~/.netrc is
#   looked for once, not once per request;
# - a run's entries go to one pack: one new file and one rename for the
#   120 entries (a new inode per entry cost most of a cold run's system
#   time after the previous cache was deleted), and a warm run reads one
#   pack instead of a file per entry;
# - requests share keep-alive connections: with 4 transfers at once, the
#   120 requests of the run reach the server over at most 8 connections
#   (nginx's $connection; libcurl may open one more when a connection is
#   not yet back in its pool as the next transfer starts).
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
command -v strace >/dev/null || ts_skip "strace not installed"
strace -f -qq -e trace=mkdir -o /dev/null true 2>/dev/null || ts_skip "strace cannot trace here"
work=$(ts_tmpdir)
n=60
TS_NGINX_LOG_EXTRA=' conn=$connection' \
  ts_index_from_spec < <(for i in $(seq -w 1 $n); do echo "simple proj$i 1.0 py3-none-any"; done)
U=$TS_NGINX_URL
ts_make_venv "$work/venv"
export TORCHSOLVE_CACHE_DIR=$work/cache HOME=$work/home TORCHSOLVE_CONCURRENCY=4
mkdir -p "$HOME"
names=$(seq -f 'proj%02g' 1 $n)
resolve() {
  # LeakSanitizer's own tracer cannot run under strace (sanitizer builds)
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=mkdir,mkdirat,openat,open,rename,renameat,renameat2,access,faccessat,faccessat2 \
    -o "$1" "$T" install --dry-run --python "$work/venv" --index-url "$U/simple" $names \
    >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "resolve failed"; }
}
mark=$(ts_nginx_log_mark)
resolve "$work/cold.trace"
grep -q "proj$n" "$work/out" || { cat "$work/out"; ts_fail "proj$n not in the plan"; }
C=$TORCHSOLVE_CACHE_DIR
mkdirs=$(grep -cE "mkdir(at)?\(.*\"$C" "$work/cold.trace" || true)
[ "$mkdirs" -le 6 ] || { grep -E "mkdir(at)?\(.*\"$C" "$work/cold.trace" | head; ts_fail "a cold resolve of $n projects made $mkdirs mkdir calls under the cache (at most 6)"; }
probes=$(grep -E "open(at)?\(.*\"$C/(packs-v1|pages-v2|metadata-v2|wheels-v1)/.*ENOENT" "$work/cold.trace" || true)
[ -z "$probes" ] || { echo "$probes" | head -5; ts_fail "a cold run looked for cache entries it cannot have: $(echo "$probes" | wc -l)"; }
netrc=$(grep -cE "\"$HOME/\.netrc\"" "$work/cold.trace" || true)
[ "$netrc" -le 1 ] || ts_fail "~/.netrc looked for $netrc times (once per run is enough)"
read -r entries packs < <(python3 "$(dirname "$0")/cache_pack.py" count "$C")
created=$(grep -cE "open(at)?\(.*\"$C/(packs-v1|pages-v2|metadata-v2)/.*O_CREAT" "$work/cold.trace" || true)
renames=$(grep -cE "rename(at2?)?\(.*\"$C/(packs-v1|pages-v2|metadata-v2)/" "$work/cold.trace" || true)
[ "$entries" -ge $((2 * n)) ] || ts_fail "only $entries cache entries for $n projects"
[ "$packs" = 1 ] && [ "$created" = 1 ] && [ "$renames" = 1 ] ||
  ts_fail "$entries entries: $packs packs, $created files created, $renames renames (one each)"
log=$(ts_nginx_log_since "$mark")
requests=$(echo "$log" | grep -c . || true)
connections=$(echo "$log" | sed -n 's/.* conn=\([0-9]*\)$/\1/p' | sort -u | wc -l)
[ "$requests" -ge $((2 * n)) ] || ts_fail "only $requests requests for $n projects"
[ "$connections" -ge 1 ] && [ "$connections" -le 8 ] ||
  ts_fail "$requests requests over $connections connections (keep-alive: at most 8)"

# warm: the entries are there, their folders too
resolve "$work/warm.trace"
# (the root itself may be asked for once, by the check that it is writable)
mkdirs=$(grep -cE "mkdir(at)?\(.*\"$C/" "$work/warm.trace" || true)
[ "$mkdirs" = 0 ] || { grep -E "mkdir(at)?\(.*\"$C/" "$work/warm.trace"; ts_fail "a warm resolve made $mkdirs mkdir calls in the cache"; }
# (this server sends no max-age: the pages are revalidated, and the 304s
# stored again, in one new pack)
created=$(grep -cE "open(at)?\(.*\"$C/(packs-v1|pages-v2|metadata-v2)/.*O_CREAT" "$work/warm.trace" || true)
opened=$(grep -cE "open(at)?\(.*\"$C/(packs-v1|pages-v2|metadata-v2)/" "$work/warm.trace" || true)
[ "$created" -le 1 ] || { grep -E "open(at)?\(.*\"$C/.*O_CREAT" "$work/warm.trace" | head; ts_fail "a warm resolve created $created files in the cache"; }
# the pack read, its folder, the pack written: not a file per entry
[ "$opened" -le 3 ] || ts_fail "a warm resolve opened $opened cache files for $entries entries"
echo "cache_cold_syscalls: all checks passed ($entries entries, $requests requests over $connections connections)"
