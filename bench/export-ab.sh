#!/usr/bin/env bash
# Two healthctl builds' exports alternated against one filled healthd, for a loaded machine where
# bench/sync.sh's fill (once per build) takes too long and the sync's rate swings between runs:
# fills a release healthd (from BASE_BIN) with N samples of the sync benchmark's stream, then for
# ROUNDS rounds, for each build in turn, a full anchored sync and then `healthctl export` to a file:
# export rate beside that sync's, healthctl lines/CPU-s, healthd samples/CPU-s, healthctl peak RSS,
# and whether the file is byte for byte the base build's.
#   BASE_BIN=DIR BENCH_BIN=DIR bench/export-ab.sh [SAMPLES] [ROUNDS]     default 1000000 2
# FRESH=1: every export writes a file of its own, kept until the end (1M samples: ≈ 675 MB each),
# so its pages come from the kernel's free memory, as a new file's do in bench/sync.sh and for a
# user. Without it each export reuses the pages its own build's previous file freed right before
# it; on this virtual machine new pages cost far more system time than pages just freed
# (bench/history/2026-12-03-export3.md).
set -euo pipefail
# The fixture sets root, the repository's top folder.
source "$(dirname "$0")/../scripts/healthd-fixture.sh"
source "$root/bench/sync/helpers.sh"
ab_arguments "the healthctl to measure" "$@"
bin="$BASE_BIN"

start_healthd source
client fill --samples "$samples" >/dev/null
echo "export A/B: $samples samples, $(nproc) cores, load after the fill $(cut -d' ' -f1 /proc/loadavg)"
for round in $(seq 1 "$rounds"); do
  for build in base bench; do
    dir="$BASE_BIN"; [ "$build" = bench ] && dir="$BENCH_BIN"
    sync_rate="$(field per_second "$(client sync)")"
    # A new file each time, as bench/sync.sh's: ext4 truncates a file opened over an old one and
    # flushes the new one at its close, inside the timed export (≈ 675 MB a million lines).
    rm -f "$work/$build.jsonl"
    before="$(cpu_seconds "$server_pid")"
    /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$dir/healthctl" --server "$server_addr" \
      --token-file "$server_data/owner.token" export --output "$work/$build.jsonl" >/dev/null 2>"$work/export.log"
    server_cpu="$(python3 -c "print($(cpu_seconds "$server_pid") - $before)")"
    read -r seconds rss user sys < "$work/time"
    lines="$(wc -l < "$work/$build.jsonl")"
    same="$(cmp -s "$work/$build.jsonl" "$work/base.jsonl" && echo "same file as base" || echo "FILE DIFFERS from base")"
    python3 -c "
lines, seconds, sync = $lines, $seconds, $sync_rate
print(f'round $round $build: export {lines / seconds:,.0f}/s = {100 * lines / seconds / sync:.0f} % of the sync before it ({sync:,.0f}/s); '
      f'healthctl {lines / ($user + $sys):,.0f} lines/CPU-s (user $user s, system $sys s), healthd {lines / $server_cpu:,.0f}/CPU-s; peak RSS {$rss // 1024} MiB; $same; load $(cut -d' ' -f1 /proc/loadavg)')"
    if [ -n "${FRESH:-}" ] && [ "$build" = bench ]; then
      for kept in base bench; do mv "$work/$kept.jsonl" "$work/$kept-$round.jsonl"; done
    fi
  done
done
