#!/usr/bin/env bash
# Storage layouts at the SQLite level: the peer benchmark's stream (8 types, 20 devices, 5,000 samples a
# transaction) stored as today's rows (the row, samples_by_source, a UUID level row a sample) and as
# samples packed into blocks per (type, device), with UUIDs kept unique by a UUID level row a sample, by
# one sorted run a transaction merged LSM-style, or not at all (the blocks' own floor). Prints samples/s,
# SQLite CPU µs a sample and bytes a sample after a checkpoint, at synchronous FULL (power-loss) and
# NORMAL (process-crash). Python's sqlite3 on the system SQLite; see study.py for what is timed.
# usage: bench/layouts/run.sh [SAMPLES]   (default 1000000)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
samples="${1:-1000000}"
printf '%-12s %-7s %9s %11s %11s %12s\n' layout sync samples samples/s "CPU µs/smp" bytes/sample
for synchronous in FULL NORMAL; do
  for layout in rows blocks blocks-runs blocks-only; do
    python3 "$here/study.py" "$samples" "$layout" "$synchronous"
  done
done
