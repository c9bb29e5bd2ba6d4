#!/usr/bin/env bash
# Load benchmark: healthsim's load mode at 10, 100, 1,000 and 10,000 devices (one connection each,
# RATE samples/s per device, SECONDS each) against a fresh healthd per step; prints acknowledged
# throughput, save latency p99 and the server's peak RSS.
#   bench/load/run.sh [RATE] [SECONDS]      DEVICE_COUNTS="10 100" bench/load/run.sh
set -euo pipefail
source "$(dirname "$0")/../../scripts/healthd-fixture.sh"
rate="${1:-10}" seconds="${2:-10}"
counts="${DEVICE_COUNTS:-10 100 1000 10000}"
build_all
printf "%8s %12s %12s %10s %10s %14s\n" devices acknowledged "samples/s" "p99 ms" rejected "server peak MB"
for n in $counts; do
  ulimit -n "$(( n * 2 + 1024 ))" 2>/dev/null || ulimit -n "$(ulimit -Hn)"
  start_healthd "bench-$n" --max-connections "$(( n + 64 ))" --authorization-policy allow-all
  sim --devices "$n" --rate "$rate" --duration "$seconds" --report "$work/bench-$n.json" > /dev/null 2>&1 || true
  rss="$(peak_rss_kib "$server_pid")"
  python3 - "$work/bench-$n.json" "$n" "$rss" <<'PY'
import json, sys
r, n, rss = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
print(f"{n:8d} {r['samplesAcknowledged']:12d} {r['throughputPerSecond']:12.0f} {r['saveLatencyMs']['p99']:10.1f} "
      f"{sum(r['rejectedByCode'].values()):10d} {rss / 1024:14.1f}")
PY
  stop_servers
done
