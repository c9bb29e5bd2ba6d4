#!/usr/bin/env bash
# Load check: 1,000 simulated devices, each its own connection, saving 5 samples/s for 5 s against
# a fresh healthd; fails unless every generated sample was acknowledged, the store holds them, and
# the server closed no connection over a protocol error (healthsim never resends a refused batch).
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
protocol_errors="$(grep -c "protocol error" "$server_data/healthd.log" || true)"
python3 - "$work/load.json" "$stored" "$devices" "$protocol_errors" <<'PY'
import json, sys
r, stored, devices, protocol_errors = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
ok = r["samplesAcknowledged"] == r["samplesGenerated"] == stored and not r["rejectedByCode"] and protocol_errors == 0
print(f"{'ok' if ok else 'FAIL'}  {devices} devices: generated {r['samplesGenerated']}, acknowledged "
      f"{r['samplesAcknowledged']}, stored {stored}, rejected {r['rejectedByCode']} {r.get('rejectedExamples', {})}, "
      f"protocol errors {protocol_errors}, reconnects {r['reconnects']}, "
      f"{r['throughputPerSecond']:.0f}/s, p99 {r['saveLatencyMs']['p99']} ms")
sys.exit(0 if ok else 1)
PY
