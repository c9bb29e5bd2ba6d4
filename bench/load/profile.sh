#!/usr/bin/env bash
# Instructions per single-sample SaveObjects call, counted by callgrind (repeatable on a busy
# machine, unlike timings): a release healthd runs under valgrind, one app connection saves
# CALLS single-sample batches after a warm-up, IN_FLIGHT at a time (1 = every save is a lone
# commit), and the counters cover exactly those calls. Prints instructions per call and the top
# functions by inclusive count. THREADS=1 prints instead the instructions per call of each thread
# (the writer against the event loops; `perf stat` has no hardware counters on this virtual machine);
# (KEEP_DUMP=PATH then keeps each thread's dump as PATH.writer, PATH.event-loop);
# BENCH_BIN=DIR profiles the healthd in DIR unbuilt, to compare two builds; PER_CONNECTION=N has each
# lane connect again (a Hello with the same app token) every N saves, so connection set-up counts too.
#   bench/load/profile.sh [CALLS] [IN_FLIGHT]        TOP=40 KEEP_DUMP=/tmp/cg.out bench/load/profile.sh 2000 1
#   THREADS=1 BENCH_BIN=/tmp/base bench/load/profile.sh 2000 32
set -euo pipefail
source "$(dirname "$0")/../../scripts/healthd-fixture.sh"
calls="${1:-2000}" in_flight="${2:-1}" top="${TOP:-25}"
if [ -n "${BENCH_BIN:-}" ]; then
  built="$BENCH_BIN/healthd"
else
  swift build -c "$config" --scratch-path "$scratch" --product healthd >&2
  built="$scratch/$config/healthd"
fi
bin="$work/bin"
mkdir -p "$bin"
saves() {  # saves MARK DONE: the calls, with MARK run before them and DONE after
  python3 "$root/bench/load/save_calls.py" --port "${server_addr##*:}" --owner-token "$(cat "$server_data/owner.token")" \
    --calls "$calls" --in-flight "$in_flight" --per-connection "${PER_CONNECTION:-0}" --mark "$1" --done "$2"
}
# Valgrind 3.19 cannot read the toolchain's DWARF 5 (symbols are enough), and writes into the mask
# sigsuspend is given, which libdispatch keeps in read-only memory: the shim passes a copy.
cp "$built" "$bin/healthd" && strip --strip-debug "$bin/healthd"
printf '%s\n' '#define _GNU_SOURCE' '#include <dlfcn.h>' '#include <signal.h>' \
  'int sigsuspend(const sigset_t *mask) {' \
  '    int (*real)(const sigset_t *) = (int (*)(const sigset_t *))dlsym(RTLD_NEXT, "sigsuspend");' \
  '    sigset_t copy = *mask;' '    return real(&copy);' '}' > "$work/shim.c"
cc -shared -fPIC -O2 -o "$work/shim.so" "$work/shim.c" -ldl
healthd_prefix=(env LD_PRELOAD="$work/shim.so" valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" --dump-instr=no)
[ -n "${THREADS:-}" ] && healthd_prefix+=(--separate-threads=yes)
start_healthd profile
saves "callgrind_control -z $server_pid" "callgrind_control -d $server_pid"
if [ -n "${THREADS:-}" ]; then
  # One dump per thread; callgrind does not name threads, so each is named by what it runs.
  echo "$calls single-sample saves, $in_flight in flight, instructions per call by thread:"
  for dump in "$work"/callgrind.out.*-[0-9]*; do
    total="$(sed -n 's/^summary: *\([0-9]*\).*/\1/p; s/^totals: *\([0-9]*\).*/\1/p' "$dump" | head -1)"
    [ "${total:-0}" -ge "$(( calls * 100 ))" ] || continue
    if grep -q 'uv_run' "$dump"; then name="event loop"
    elif grep -q 'commitGroup' "$dump"; then name=writer
    else name=other; fi
    printf "%-12s %9d\n" "$name" "$(( total / calls ))"
    [ -n "${KEEP_DUMP:-}" ] && cp "$dump" "$KEEP_DUMP.${name// /-}"  # e.g. /tmp/cg.out.event-loop
  done
  exit 0
fi
dump="$(ls "$work"/callgrind.out.* | head -1)"
total="$(sed -n 's/^summary: *\([0-9]*\).*/\1/p; s/^totals: *\([0-9]*\).*/\1/p' "$dump" | head -1)"
[ -n "${KEEP_DUMP:-}" ] && cp "$dump" "$KEEP_DUMP"  # for callgrind_annotate --tree=caller etc.
echo "$calls single-sample saves, $in_flight in flight: $total instructions, $(( total / calls )) per call"
echo
# Exclusive counts are unreliable after callgrind's counters are zeroed mid-run; inclusive ones hold.
echo "top functions, inclusive, instructions per call:"
callgrind_annotate --inclusive=yes --threshold=100 "$dump" | sed -n '/file:function/,$p' | sed -n "3,$(( top + 2 ))p" |
  awk -v calls="$calls" '{ n = $1; gsub(",", "", n); sub(/^ *[0-9,]+ *\( *[0-9.]+%\) */, ""); printf "%9d %s\n", n / calls, substr($0, 1, 150) }'
