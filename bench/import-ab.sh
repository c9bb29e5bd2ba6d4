#!/usr/bin/env bash
# Two builds' `healthctl import` alternated on one export, for a loaded machine where bench/sync.sh's
# two runs (a fill, a sync and an export each) take too long and their rates swing between runs:
# fills a release healthd (from BASE_BIN) with N samples of the sync benchmark's stream and exports it
# once with BASE_BIN's healthctl (or takes EXPORT=FILE, an export kept from an earlier run), then for
# ROUNDS rounds, for each build in turn, the ingest (the same stream into a fresh healthd) and the
# import of the export into another fresh healthd, each with the build's healthd and healthctl:
# import rate beside that ingest's, healthctl lines/CPU-s, healthd samples/CPU-s for the ingest and
# the import, healthctl peak RSS. KEEP_EXPORT=FILE keeps the export for a later EXPORT=FILE run.
#   BASE_BIN=DIR BENCH_BIN=DIR bench/import-ab.sh [SAMPLES] [ROUNDS]     default 1000000 2
set -euo pipefail
# The fixture sets root, the repository's top folder.
source "$(dirname "$0")/../scripts/healthd-fixture.sh"
source "$root/bench/sync/helpers.sh"
ab_arguments "the healthd and healthctl to measure" "$@"

export_file="${EXPORT:-$work/export.jsonl}"
if [ -z "${EXPORT:-}" ]; then
  bin="$BASE_BIN"
  start_healthd source
  client fill --samples "$samples" >/dev/null
  "$bin/healthctl" --server "$server_addr" --token-file "$server_data/owner.token" export --output "$export_file" >/dev/null 2>&1
  stop_servers
  [ -n "${KEEP_EXPORT:-}" ] && cp "$export_file" "$KEEP_EXPORT"
fi
lines="$(wc -l < "$export_file")"
echo "import A/B: $lines lines, ingest of $samples samples, $(nproc) cores"
for round in $(seq 1 "$rounds"); do
  for build in base bench; do
    bin="$BASE_BIN"; [ "$build" = bench ] && bin="$BENCH_BIN"
    start_healthd "ingest-$round-$build"
    before="$(cpu_seconds "$server_pid")"
    ingest="$(field per_second "$(client fill --samples "$samples")")"
    ingest_cpu="$(python3 -c "print($(cpu_seconds "$server_pid") - $before)")"
    stop_servers
    start_healthd "import-$round-$build"
    before="$(cpu_seconds "$server_pid")"
    /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$bin/healthctl" --server "$server_addr" \
      --token-file "$server_data/owner.token" --format json import "$export_file" >"$work/import.json" 2>"$work/import.log"
    import_cpu="$(python3 -c "print($(cpu_seconds "$server_pid") - $before)")"
    stop_servers
    read -r seconds rss user sys < "$work/time"
    stored="$(field stored "$(cat "$work/import.json")")"
    python3 -c "
stored, seconds, ingest = $stored, $seconds, $ingest
print(f'round $round $build: import {stored / seconds:,.0f}/s = {100 * stored / seconds / ingest:.0f} % of the ingest before it ({ingest:,.0f}/s); '
      f'healthctl {$lines / ($user + $sys):,.0f} lines/CPU-s; healthd {$samples / $ingest_cpu:,.0f}/CPU-s ingesting, '
      f'{stored / $import_cpu:,.0f}/CPU-s importing; healthctl peak RSS {$rss // 1024} MiB; load $(cut -d' ' -f1 /proc/loadavg)')"
  done
done
