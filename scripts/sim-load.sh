#!/usr/bin/env bash
# Load check: 1,000 simulated devices, each its own connection, saving 5 samples/s for 5 s against
# a fresh healthd; fails unless every generated sample was acknowledged and the store holds them.
#   scripts/sim-load.sh [DEVICES] [RATE] [SECONDS]
set -euo pipefail
source "$(dirname "$0")/healthd-fixture.sh"
devices="${1:-1000}" rate="${2:-5}" seconds="${3:-5}"
ulimit -Sn "$(( devices + 1024 ))" 2>/dev/null || ulimit -Sn "$(ulimit -Hn)"
build_all
start_healthd load --max-connections "$(( devices + 64 ))"
sim --approve --devices "$devices" --rate "$rate" --duration "$seconds" --report "$work/load.json"
stored="$("$bin/healthctl" overview --server "$server_addr" --token-file "$server_data/owner.token" --type HeartRate --format json |
  python3 -c 'import json,sys; print(sum(int(r["samples"]) for r in json.load(sys.stdin) if r["by"] == "type"))')"
python3 - "$work/load.json" "$stored" "$devices" <<'PY'
import json, sys
r, stored, devices = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
ok = r["samplesAcknowledged"] == r["samplesGenerated"] == stored and not r["rejectedByCode"]
print(f"{'ok' if ok else 'FAIL'}  {devices} devices: generated {r['samplesGenerated']}, acknowledged "
      f"{r['samplesAcknowledged']}, stored {stored}, rejected {r['rejectedByCode']}, reconnects {r['reconnects']}, "
      f"{r['throughputPerSecond']:.0f}/s, p99 {r['saveLatencyMs']['p99']} ms")
sys.exit(0 if ok else 1)
PY
