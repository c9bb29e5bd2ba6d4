#!/usr/bin/env bash
# One run of every figure issue 14 names, at one size, as one table: ingest beside InfluxDB 1.6 (both
# durable; healthd on SQLite in both durability modes and on PostgreSQL) and bytes per sample
# (bench/peer/run.sh), the anchored sync beside the client's decode rate, export beside the sync and
# import beside ingest with their peak RSS, on SQLite and on PostgreSQL (bench/sync.sh), 10,000
# devices × 1 sample/s spread and in bursts, from the lean generator (bench/load/run.sh), and the
# statistics beside a plain GROUP BY (bench/stats.sh). Each row: figure, healthd, peer or raw limit,
# ratio, target, met?. The scripts run one after another, each saying when it starts and, every 30 s,
# how long it has run; their own output goes to a log shown if one fails.
#   bench/all.sh [--samples N] [--format text|json] [--skip-peer] [--skip-sync] [--skip-postgres]
#                [--skip-export] [--skip-load] [--skip-stats]
# --samples N: the size of the peer and sync runs (default 1000000). Above 1M the peer benchmark also
# runs at 1M, for the growth figure (10M within 20 % of 1M): `bench/all.sh --samples 10000000`.
# --skip-postgres leaves PostgreSQL out (its ingest is the slowest part); --skip-export stops the
# sync runs after the sync. --format json prints the rows and the machine as one JSON object.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
samples=1000000 format=text skip=" "
while [ $# -gt 0 ]; do
  case "$1" in
    --samples) samples="$2"; shift ;;
    --format) format="$2"; shift ;;
    --skip-peer|--skip-sync|--skip-postgres|--skip-export|--skip-load|--skip-stats) skip+="${1#--skip-} " ;;
    *) echo "all.sh: unknown argument $1 (see the comment at the top of bench/all.sh)" >&2; exit 2 ;;
  esac
  shift
done
case "$format" in text|json) ;; *) echo "all.sh: --format is text or json" >&2; exit 2 ;; esac
skipped() { [[ "$skip" == *" $1 "* ]]; }
results="$(mktemp -d "${TMPDIR:-/tmp}/bench-all.XXXXXX")"
trap 'rm -rf "$results"' EXIT
trap 'exit 130' INT TERM

progress() { printf '[bench/all %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
# step NAME CMD…: runs CMD with its stdout in $results/NAME and its stderr in $results/NAME.log; a
# failed step is reported with the end of its log and left out of the table. Each step starts once the
# disk has written back what the steps before left (`sync`): the load step's commits wait for their
# fsyncs, and a load run begun with 2.3 GB of dirty pages had a spread p99 of 93.5 ms against 32.6
# (bench/history/2026-12-05-fourteenth-sessions-end.md).
step() {
  local name="$1"; shift
  local started=$SECONDS ticks=0 status=0
  sync
  progress "$name: $*"
  "$@" > "$results/$name" 2> "$results/$name.log" &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    ticks=$((ticks + 1))
    cut -d' ' -f1 /proc/loadavg >> "$results/loads"
    [ $((ticks % 30)) -ne 0 ] || progress "$name: running for $((SECONDS - started)) s, load $(cut -d' ' -f1 /proc/loadavg)"
  done
  wait "$pid" || status=$?
  if [ "$status" -ne 0 ]; then
    progress "$name: FAILED (exit $status) after $((SECONDS - started)) s; the end of its log:"
    tail -15 "$results/$name.log" | sed 's/^/    /' >&2
    rm -f "$results/$name"
  else
    progress "$name: done in $((SECONDS - started)) s"
  fi
}

load_start="$(cut -d' ' -f1 /proc/loadavg)" started_at="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
peer_sizes="$samples"; [ "$samples" -le 1000000 ] || peer_sizes="1000000 $samples"
peer_engines=both; skipped postgres && peer_engines=sqlite
sync_env=(); skipped export && sync_env=(SYNC_ONLY=1)
skipped peer || step peer "$root/bench/peer/run.sh" --engine "$peer_engines" --format json "$peer_sizes"
skipped sync || step sync-sqlite env "${sync_env[@]}" "$root/bench/sync.sh" --format json "$samples"
skipped sync || skipped postgres || step sync-postgres env "${sync_env[@]}" "$root/bench/sync.sh" --engine postgres --format json "$samples"
skipped load || step load env DEVICE_COUNTS=10000 GENERATOR=lean "$root/bench/load/run.sh" 1 10
skipped stats || step stats "$root/bench/stats.sh"
python3 "$root/bench/all/report.py" --format "$format" --results "$results" --samples "$samples" \
  --commit "$(git -C "$root" rev-parse --short HEAD)" --started "$started_at" --cores "$(nproc)" \
  --memory-gib "$(awk '/MemTotal/ {printf "%.0f", $2 / 1048576}' /proc/meminfo)" \
  --load "$load_start" "$(cut -d' ' -f1 /proc/loadavg)"
