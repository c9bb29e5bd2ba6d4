#!/usr/bin/env bash
# Statistics benchmark: builds stats-bench in release, loads ≈1M step samples from three overlapping
# sources and ≈630k heart-rate samples from two over a year into a fresh store, and prints the time of a
# merged daily step collection and of hourly heart-rate averages (the year, its last 30 days) next to a
# plain SQL GROUP BY of the same rows (through samples_by_source, and through the primary key as the server
# reads a range covering most of a type), all timed in each repeat; medians of the repeats.
# Options: --step-period SECONDS (default 90, ≈1.05M steps) --heart-period SECONDS (default 60; the
# second source reads every 5 periods) --repeats N (default 5) --store PATH (keep the store at PATH; a
# store already there is read again instead of loaded, so two builds can read one layout of the rows:
# give it the same periods as the run that loaded it) --only TEXT (time only the queries whose name
# holds TEXT, e.g. to profile one).
# BENCH_BIN=DIR runs the stats-bench in DIR unbuilt (to alternate two builds).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scratch="${STATS_BENCH_SCRATCH:-$root/.build}"
if [ -n "${BENCH_BIN:-}" ]; then
  exec "$BENCH_BIN/stats-bench" "$@"
fi
swift build -c release --product stats-bench --scratch-path "$scratch" >&2
"$scratch/release/stats-bench" "$@"
