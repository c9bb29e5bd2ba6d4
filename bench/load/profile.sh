#!/usr/bin/env bash
# Instructions per single-sample SaveObjects call, counted by callgrind (repeatable on a busy
# machine, unlike timings): a release healthd runs under valgrind, one app connection saves
# CALLS single-sample batches after a warm-up, IN_FLIGHT at a time (1 = every save is a lone
# commit), and the counters cover exactly those calls. Prints instructions per call and the top
# functions by exclusive and inclusive count.
#   bench/load/profile.sh [CALLS] [IN_FLIGHT]        TOP=30 KEEP=1 bench/load/profile.sh 2000 1
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
calls="${1:-2000}" in_flight="${2:-1}" top="${TOP:-25}"
scratch="${PROFILE_SCRATCH:-$root/.build}"
swift build -c release --product healthd --scratch-path "$scratch" >&2
work="$(mktemp -d "${TMPDIR:-/tmp}/save-profile.XXXXXX")"
# Valgrind 3.19 cannot read the toolchain's DWARF 5 (symbols are enough), and writes into the mask
# sigsuspend is given, which libdispatch keeps in read-only memory: the shim passes a copy.
cp "$scratch/release/healthd" "$work/healthd" && strip --strip-debug "$work/healthd"
printf '%s\n' '#define _GNU_SOURCE' '#include <dlfcn.h>' '#include <signal.h>' \
  'int sigsuspend(const sigset_t *mask) {' \
  '    int (*real)(const sigset_t *) = (int (*)(const sigset_t *))dlsym(RTLD_NEXT, "sigsuspend");' \
  '    sigset_t copy = *mask;' '    return real(&copy);' '}' > "$work/shim.c"
cc -shared -fPIC -O2 -o "$work/shim.so" "$work/shim.c" -ldl
LD_PRELOAD="$work/shim.so" valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" --dump-instr=no \
  "$work/healthd" --data "$work/data" --listen 127.0.0.1:0 2> "$work/healthd.log" &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT INT TERM
for _ in $(seq 1 1200); do
  [ -s "$work/data/owner.token" ] && grep -q "ready" "$work/healthd.log" 2>/dev/null && break
  sleep 0.1
done
port="$(sed -n 's/.*listening on tcp 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/healthd.log" | head -1)"
[ -n "$port" ] || { cat "$work/healthd.log" >&2; echo "healthd did not start" >&2; exit 1; }
python3 "$root/bench/load/save_calls.py" --port "$port" --owner-token "$(cat "$work/data/owner.token")" \
  --calls "$calls" --in-flight "$in_flight" --mark "callgrind_control -z $pid" --done "callgrind_control -d $pid"
dump="$(ls "$work"/callgrind.out.* | head -1)"
total="$(sed -n 's/^summary: *\([0-9]*\).*/\1/p; s/^totals: *\([0-9]*\).*/\1/p' "$dump" | head -1)"
echo "$calls single-sample saves, $in_flight in flight: $total instructions, $(( total / calls )) per call"
echo
echo "top functions, exclusive:"
callgrind_annotate --inclusive=no "$dump" 2>/dev/null | sed -n '/^Ir/,$p' | sed -n "3,$(( top + 2 ))p"
echo
echo "top functions, inclusive:"
callgrind_annotate --inclusive=yes "$dump" 2>/dev/null | sed -n '/^Ir/,$p' | sed -n "3,$(( top + 2 ))p"
[ -z "${KEEP:-}" ] || echo "kept $work"
