#!/usr/bin/env bash
# Load ladder: healthsim's load mode at 10, 100, 1,000 and 10,000 devices (one connection each,
# RATE heart-rate samples/s per device for SECONDS) against a fresh release healthd per step; prints
# one row per step: samples generated and acknowledged, acknowledged samples/s, save latency p50/p99
# and the server's peak RSS.
#   bench/load/run.sh [RATE] [SECONDS]        DEVICE_COUNTS="10 100" bench/load/run.sh
# Every device is a real socket (healthsim reads them all on one queue), so a step needs about
# DEVICES + 1,024 file descriptors in each of healthd and healthsim; the script raises `ulimit -n`
# up to the hard limit and skips (saying why) a step that cannot fit.
set -euo pipefail
source "$(dirname "$0")/../../scripts/healthd-fixture.sh"
rate="${1:-5}" seconds="${2:-10}"
counts="${DEVICE_COUNTS:-10 100 1000 10000}"
build_all

hard_fds="$(ulimit -Hn)"
echo "load ladder: $rate samples/s per device for $seconds s, ${config} build, fresh healthd per step"
printf "%8s %11s %12s %10s %9s %9s %9s %14s\n" \
  devices generated acknowledged "samples/s" "p50 ms" "p99 ms" rejected "server peak MB"
for n in $counts; do
  need=$(( n + 1024 ))
  if [ "$hard_fds" != unlimited ] && [ "$need" -gt "$hard_fds" ]; then
    printf "%8d  skipped: needs %d file descriptors per process, the hard limit (ulimit -Hn) is %s\n" "$n" "$need" "$hard_fds"
    continue
  fi
  ulimit -Sn "$need"  # soft only: a plain `ulimit -n` would lower the hard limit for later steps
  start_healthd "bench-$n" --max-connections "$(( n + 64 ))" --authorization-policy allow-all
  report="$work/bench-$n.json"
  sim --devices "$n" --rate "$rate" --duration "$seconds" --report "$report" > /dev/null 2> "$work/sim-$n.log" || true
  rss="$(peak_rss_kib "$server_pid")"
  stop_servers
  if [ ! -s "$report" ]; then
    printf "%8d  failed: healthsim wrote no report; its last words:\n" "$n"
    tail -3 "$work/sim-$n.log" | sed 's/^/          /'
    continue
  fi
  python3 - "$report" "$n" "$rss" <<'PY'
import json, sys
r, n, rss = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
lat = r["saveLatencyMs"]
print(f"{n:8d} {r['samplesGenerated']:11d} {r['samplesAcknowledged']:12d} {r['throughputPerSecond']:10.0f} "
      f"{lat['p50']:9.1f} {lat['p99']:9.1f} {sum(r['rejectedByCode'].values()):9d} {rss / 1024:14.1f}")
PY
done
