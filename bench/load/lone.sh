#!/usr/bin/env bash
# One app saving one sample a call and waiting for each answer (peer_bench.py --batch 1 --writers 1), on
# a copy of a grown SQLite store STORE (e.g. run.sh's PREFILL_STORE) with healthd started WAIT seconds
# before: what a lone device pays while the store merges its UUID runs. Prints saves/s, ms a save, the
# server's CPU a save and the UUID levels before and after. BENCH_BIN=DIR runs the healthd in DIR.
#   bench/load/lone.sh STORE [SAVES] [WAIT]        BENCH_BIN=/tmp/main-rel bench/load/lone.sh /tmp/fill 300 2
set -euo pipefail
source "$(dirname "$0")/../../scripts/healthd-fixture.sh"
store="$1" saves="${2:-300}" wait="${3:-2}"
if [ -n "${BENCH_BIN:-}" ]; then bin="$BENCH_BIN"; else build_all; fi
mkdir -p "$work/lone" && cp -a "$store/." "$work/lone/" && sync "$work/lone/"*
echo "store $store: UUID levels $(uuid_levels "$work/lone")"
start_healthd lone
sleep "$wait"
ticks_before="$(awk '{print $14 + $15}' "/proc/$server_pid/stat")"
# A seed of its own: a store filled by run.sh holds the default seed's UUIDs.
result="$(python3 "$root/bench/peer/peer_bench.py" --engine healthd --address "$server_addr" \
  --token-file "$server_data/owner.token" --samples "$saves" --writers 1 --batch 1 --seed 1000)"
ticks_after="$(awk '{print $14 + $15}' "/proc/$server_pid/stat")"
stop_servers
rate="$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["per_second"])' "$result")"
python3 - "$rate" "$saves" "$(( ticks_after - ticks_before ))" "$(getconf CLK_TCK)" <<'PY'
import sys
rate, saves, ticks, hz = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
print(f"{saves} saves: {rate:,.0f} saves/s, {1000 / rate:.2f} ms a save, healthd {ticks / hz / saves * 1e6:,.0f} µs CPU a save (idle merging included)")
PY
echo "UUID levels after: $(uuid_levels "$work/lone")"
