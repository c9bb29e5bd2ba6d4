#!/usr/bin/env bash
# Statistics benchmark: builds stats-bench in release, loads ≈1M step samples from three overlapping
# sources over a year (plus 30 days of heart rate) into a fresh store, and prints the time of a merged
# daily step collection and an hourly heart-rate average next to a plain SQL GROUP BY of the same rows.
# Options: --step-period SECONDS (default 90, ≈1.05M steps) --repeats N (default 3).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scratch="${STATS_BENCH_SCRATCH:-$root/.build}"
swift build -c release --product stats-bench --scratch-path "$scratch" >&2
"$scratch/release/stats-bench" "$@"
