#!/usr/bin/env bash
# Instructions per single-sample SaveObjects call, counted by callgrind (repeatable on a busy
# machine, unlike timings): a release healthd runs under valgrind, one app connection saves
# CALLS single-sample batches after a warm-up, IN_FLIGHT at a time (1 = every save is a lone
# commit), and the counters cover exactly those calls. Prints instructions per call and the top
# functions by inclusive count.
#   bench/load/profile.sh [CALLS] [IN_FLIGHT]        TOP=40 KEEP_DUMP=/tmp/cg.out bench/load/profile.sh 2000 1
set -euo pipefail
source "$(dirname "$0")/../../scripts/healthd-fixture.sh"
calls="${1:-2000}" in_flight="${2:-1}" top="${TOP:-25}"
swift build -c "$config" --scratch-path "$scratch" --product healthd >&2
# Valgrind 3.19 cannot read the toolchain's DWARF 5 (symbols are enough), and writes into the mask
# sigsuspend is given, which libdispatch keeps in read-only memory: the shim passes a copy.
bin="$work/bin"
mkdir -p "$bin"
cp "$scratch/$config/healthd" "$bin/healthd" && strip --strip-debug "$bin/healthd"
printf '%s\n' '#define _GNU_SOURCE' '#include <dlfcn.h>' '#include <signal.h>' \
  'int sigsuspend(const sigset_t *mask) {' \
  '    int (*real)(const sigset_t *) = (int (*)(const sigset_t *))dlsym(RTLD_NEXT, "sigsuspend");' \
  '    sigset_t copy = *mask;' '    return real(&copy);' '}' > "$work/shim.c"
cc -shared -fPIC -O2 -o "$work/shim.so" "$work/shim.c" -ldl
healthd_prefix=(env LD_PRELOAD="$work/shim.so" valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" --dump-instr=no)
start_healthd profile
python3 "$root/bench/load/save_calls.py" --port "${server_addr##*:}" --owner-token "$(cat "$server_data/owner.token")" \
  --calls "$calls" --in-flight "$in_flight" --mark "callgrind_control -z $server_pid" --done "callgrind_control -d $server_pid"
dump="$(ls "$work"/callgrind.out.* | head -1)"
total="$(sed -n 's/^summary: *\([0-9]*\).*/\1/p; s/^totals: *\([0-9]*\).*/\1/p' "$dump" | head -1)"
[ -n "${KEEP_DUMP:-}" ] && cp "$dump" "$KEEP_DUMP"  # for callgrind_annotate --tree=caller etc.
echo "$calls single-sample saves, $in_flight in flight: $total instructions, $(( total / calls )) per call"
echo
# Exclusive counts are unreliable after callgrind's counters are zeroed mid-run; inclusive ones hold.
echo "top functions, inclusive, instructions per call:"
callgrind_annotate --inclusive=yes --threshold=100 "$dump" | sed -n '/file:function/,$p' | sed -n "3,$(( top + 2 ))p" |
  awk -v calls="$calls" '{ n = $1; gsub(",", "", n); sub(/^ *[0-9,]+ *\( *[0-9.]+%\) */, ""); printf "%9d %s\n", n / calls, substr($0, 1, 150) }'
