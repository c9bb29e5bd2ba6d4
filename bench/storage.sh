#!/usr/bin/env bash
# Storage benchmark: builds storage-bench in release and prints save rates (batch 1/100/1000, with
# concurrent batches exercising group commit), time-range query latency over the stored heart-rate
# samples, a raw-SQLite baseline on the same schema, and the ratio. Options: --samples N --concurrency N.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scratch="${STORAGE_BENCH_SCRATCH:-$root/.build}"
swift build -c release --product storage-bench --scratch-path "$scratch" >&2
"$scratch/release/storage-bench" "$@"
