#!/usr/bin/env bash
# Storage benchmark: builds storage-bench in release and prints save rates (batch 1/100/1000, with
# concurrent batches exercising group commit) in both durability modes (power-loss: synchronous=FULL,
# process-crash: NORMAL) beside a raw-SQLite baseline on the same schema at the same synchronous
# setting, the ratios, and time-range query latency. Options: --samples N (default 200000) --concurrency N;
# --stream runs the peer benchmark's stream (8 types, 20 devices, random UUIDs, 4 savers × 5,000) instead,
# printing the rate and CPU time per sample of each tenth of the run and the bytes per sample on disk
# (--page-size, --checkpoint-pages, --cache-mib set the store options for it).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scratch="${STORAGE_BENCH_SCRATCH:-$root/.build}"
swift build -c release --product storage-bench --scratch-path "$scratch" >&2
"$scratch/release/storage-bench" "$@"
