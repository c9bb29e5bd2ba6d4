#!/usr/bin/env bash
# RPC benchmark: builds healthd in release, starts it on an ephemeral port with a throwaway data
# directory, runs rpc_bench.py (Ping and SaveObjects x1/x100/x1000 over 1/10/100 connections), then
# prints the storage benchmark's raw-SQLite limit for comparison when asked (--with-storage).
# Options are passed to rpc_bench.py, e.g. --duration 5 --connections 1,10.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="${RPC_BENCH_SCRATCH:-$root/.build}"
with_storage=0
args=()
for arg in "$@"; do
  if [ "$arg" = "--with-storage" ]; then with_storage=1; else args+=("$arg"); fi
done
swift build -c release --product healthd --scratch-path "$scratch" >&2
work="$(mktemp -d "${TMPDIR:-/tmp}/rpc-bench.XXXXXX")"
"$scratch/release/healthd" --data "$work/data" --listen 127.0.0.1:0 --log-level info 2> "$work/healthd.log" &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT INT TERM
for _ in $(seq 1 200); do
  [ -s "$work/data/owner.token" ] && grep -q "ready" "$work/healthd.log" 2>/dev/null && break
  sleep 0.05
done
port="$(sed -n 's/.*listening on tcp 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/healthd.log" | head -1)"
[ -n "$port" ] || { cat "$work/healthd.log" >&2; echo "healthd did not start" >&2; exit 1; }
python3 "$root/bench/rpc/rpc_bench.py" --port "$port" --token "$(cat "$work/data/owner.token")" "${args[@]}"
if [ "$with_storage" = 1 ]; then
  echo
  echo "storage benchmark (in-process, includes the raw-SQLite limit):"
  STORAGE_BENCH_SCRATCH="${STORAGE_BENCH_SCRATCH:-$scratch}" "$root/bench/storage.sh"
fi
