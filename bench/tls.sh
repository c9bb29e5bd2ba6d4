#!/usr/bin/env bash
# TLS's cost on ingest: healthsim's backfill (the default fleet's last DAYS simulated days, saved as
# fast as the server accepts) against a fresh release healthd over plaintext TCP, then against one
# serving TLS with a throwaway certificate; the same load at two batch sizes. Prints samples/s and
# save latency for both and TLS's throughput as a share of plaintext's.
#   bench/tls.sh [DAYS]          (default 7)      ROUNDS=N bench/tls.sh (runs per figure, default 3)
set -euo pipefail
source "$(dirname "$0")/../scripts/healthd-fixture.sh"
days="${1:-7}"
build_all

certs="$work/certs"
mkdir -p "$certs"
key_options=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
openssl req -x509 "${key_options[@]}" -keyout "$certs/ca.key" -out "$certs/ca.pem" -days 1 -subj /CN=bench-ca 2>/dev/null
openssl req "${key_options[@]}" -keyout "$certs/server.key" -out "$certs/server.csr" -subj /CN=bench 2>/dev/null
echo "subjectAltName=IP:127.0.0.1" > "$certs/server.ext"
openssl x509 -req -in "$certs/server.csr" -CA "$certs/ca.pem" -CAkey "$certs/ca.key" -CAcreateserial \
  -out "$certs/server.pem" -days 1 -extfile "$certs/server.ext" 2>/dev/null

# run NAME BATCH [healthsim flags…]: one backfill against a fresh server; prints "samples/s p50 p99".
run() {
  local name="$1" batch="$2"; shift 2
  local server_flags=()
  if [ "$name" = tls ]; then server_flags=(--tls-cert "$certs/server.pem" --tls-key "$certs/server.key"); fi
  start_healthd "$name-$batch" --authorization-policy allow-all "${server_flags[@]}"
  sim --days "$days" --end 2026-01-01T00:00:00Z --batch "$batch" --report "$work/$name-$batch.json" "$@" \
    > /dev/null 2> "$work/$name-$batch.log" || { tail -3 "$work/$name-$batch.log" >&2; exit 1; }
  stop_servers
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); l = r["saveLatencyMs"]
print(r["samplesAcknowledged"], round(r["throughputPerSecond"]), l["p50"], l["p99"])' "$work/$name-$batch.json"
}

# best NAME BATCH [healthsim flags…]: the fastest of `rounds` runs (the machine is shared: the best
# run is the one least disturbed); prints "samples samples/s p50 p99".
rounds="${ROUNDS:-3}"
best() {
  for _ in $(seq 1 "$rounds"); do run "$@"; done | sort -k2,2n | tail -1
}

echo "TLS cost on ingest: healthsim backfill of $days simulated day(s), ${config} build, fresh healthd per run, best of $rounds"
printf "%6s %10s | %12s %8s %8s | %12s %8s %8s | %9s\n" batch samples "plain /s" "p50 ms" "p99 ms" "TLS /s" "p50 ms" "p99 ms" "TLS/plain"
for batch in 200 10; do
  read -r count plain plain50 plain99 < <(best plain "$batch")
  read -r _ secure secure50 secure99 < <(best tls "$batch" --tls --ca "$certs/ca.pem")
  printf "%6d %10d | %12d %8s %8s | %12d %8s %8s | %8.0f%%\n" "$batch" "$count" "$plain" "$plain50" "$plain99" \
    "$secure" "$secure50" "$secure99" "$(python3 -c "print(100 * $secure / max($plain, 1))")"
done
