#!/usr/bin/env bash
# Storage benchmark: builds storage-bench in release and prints save rates (batch 1/100/1000, with
# concurrent batches exercising group commit) in both durability modes (power-loss: synchronous=FULL,
# process-crash: NORMAL) beside a raw-SQLite baseline on the same schema at the same synchronous
# setting, the ratios, and time-range query latency. Options: --samples N (default 200000) --concurrency N;
# --stream runs the peer benchmark's stream (8 types, 20 devices, random UUIDs, 4 savers × 5,000) instead,
# printing the rate, CPU time and bytes written (WAL and checkpoints) per sample of each tenth of the run and the bytes per sample on disk
# (--page-size, --checkpoint-pages, --cache-mib, --durability power-loss|process-crash set the store options for it).
# --postgres runs that stream on SQLite, then on a throw-away PostgreSQL (scripts/postgres) with fsync on
# and with fsync off (--fast), each beside PostgreSQL's raw limit for the same rows: one psql session
# COPYing them, one transaction per 5,000, into a table with the samples table's columns and indexes.
# BENCH_BIN=DIR runs the storage-bench in DIR unbuilt (to alternate two builds).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scratch="${STORAGE_BENCH_SCRATCH:-$root/.build}"
if [ -n "${BENCH_BIN:-}" ]; then
  bench="$BENCH_BIN/storage-bench"
else
  swift build -c release --product storage-bench --scratch-path "$scratch" >&2
  bench="$scratch/release/storage-bench"
fi
[ "${1:-}" = --postgres ] || exec "$bench" "$@"
shift
samples=200000 args=("$@")
while [ $# -gt 0 ]; do
  if [ "$1" = --samples ] && [ $# -gt 1 ]; then samples="$2"; fi
  shift
done
"$bench" --stream "${args[@]}"
# As root the cluster runs as "postgres", so it gets a directory of its own under /tmp.
pgdir=""
trap '[ -z "$pgdir" ] || scripts/postgres stop "$pgdir"' EXIT
trap 'exit 130' INT TERM
for fsync in on off; do
  fast=(); [ "$fsync" = on ] || fast=(--fast)
  pgdir="$(mktemp -d /tmp/storage-bench-pg.XXXXXX)"
  url="$(scripts/postgres start "$pgdir" "${fast[@]}")"
  echo "PostgreSQL, fsync $fsync:"
  "$bench" --stream --postgres "$url" "${args[@]}"
  python3 bench/peer/peer_bench.py --engine copy --address "$url" --samples "$samples" | python3 -c \
    'import json, sys; print("raw COPY, same shape    %9.0f samples/s" % json.load(sys.stdin)["per_second"])'
  scripts/postgres stop "$pgdir"; pgdir=""
done
