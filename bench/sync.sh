#!/usr/bin/env bash
# Read throughput: fills a fresh release healthd with N quantity samples (the peer benchmark's
# pre-encoded stream: 8 types, 20 devices, 4 writers, 5,000 per save; that rate is the ingest
# figure), then times
#   - a full anchored sync (QueryAnchored of all 8 types, no anchor) read by a raw-socket client that
#     only frames the answers, beside that client's own protobuf decode rate on the same bytes;
#   - `healthctl export` of everything to a file, beside the sync rate and beside the same bytes
#     written alone (dd, 2 MiB direct writes: the export's raw limit on this disk);
#   - `healthctl import` of that file into a second fresh healthd, beside the ingest rate;
# with the peak RSS of healthctl and of the server.
#   bench/sync.sh [--engine sqlite|postgres] [--format text|json] [SAMPLES]      default 1000000
# --engine postgres runs each healthd on a fresh throw-away PostgreSQL cluster (bench/postgres.sh:
# fsync and synchronous_commit on, as SQLite's power-loss default fsyncs every commit) and adds the
# cluster's samples per CPU-second beside healthd's. --format json prints one JSON object instead of
# the table.
# BENCH_BIN=DIR uses the healthd and healthctl built in DIR (e.g. a copy of the merge base's) unbuilt.
# PERF=1 records a perf profile of healthd during the sync into $PERF_OUT (default /tmp/sync.perf).
# SYNC_ONLY=1 stops after the sync (no export or import; BENCH_BIN then needs only healthd).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/healthd-fixture.sh"
source "$root/bench/postgres.sh"
source "$root/bench/options.sh"
engine=sqlite format=text positional=1000000
bench_options "$@"
samples="$positional"
case "$samples" in *" "*) echo "sync.sh: one SAMPLES count, not \"$samples\"" >&2; exit 2 ;; esac
case "$engine" in sqlite|postgres) ;; *) echo "sync.sh: --engine is sqlite or postgres" >&2; exit 2 ;; esac
trap 'stop_servers; stop_postgres; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
if [ -n "${BENCH_BIN:-}" ]; then
  bin="$BENCH_BIN"
else
  products=(healthd healthctl)
  [ "${SYNC_ONLY:-0}" = 1 ] && products=(healthd)
  for product in "${products[@]}"; do swift build -c "$config" --scratch-path "$scratch" --product "$product" >&2; done
  bin="$scratch/$config"
fi
source "$root/bench/sync/helpers.sh"
# ctl: sets the array `ctl` to healthctl as the last started server's owner (an array, not a
# function, so /usr/bin/time can run it).
ctl() { ctl=("$bin/healthctl" --server "$server_addr" --token-file "$server_data/owner.token"); }
# timed OUT CMD…: runs CMD, stores "seconds peak-KiB cpu-seconds" in OUT.
timed() { local out="$1"; shift; /usr/bin/time -f "%e %M %U %S" -o "$out" "$@"; }
# store_cpu: CPU-seconds of the PostgreSQL cluster so far (0 on SQLite, which runs inside healthd).
store_cpu() { if [ "$engine" = postgres ]; then postgres_cpu_seconds; else echo 0; fi; }
# start_store_healthd NAME: a fresh healthd on a fresh store of the engine.
start_store_healthd() {
  local store=()
  if [ "$engine" = postgres ]; then start_postgres; store=(--store "$pg_url"); fi
  start_healthd "$1" "${store[@]}"
}
# Raw figures, formatted at the end as a table or as JSON.
figures=(engine="$engine" samples="$samples" config="$config" cores="$(nproc)" load_start="$(cut -d' ' -f1 /proc/loadavg)")
measured() { figures+=("$@"); }

start_store_healthd source
healthd_before="$(cpu_seconds "$server_pid")" store_before="$(store_cpu)"
fill="$(client fill --samples "$samples")"
measured fill_seconds="$(field seconds "$fill")" fill_healthd_cpu="$(python3 -c "print($(cpu_seconds "$server_pid") - $healthd_before)")" \
  fill_store_cpu="$(python3 -c "print($(store_cpu) - $store_before)")"

if [ "${PERF:-0}" = 1 ]; then
  perf record -F 999 -g -o "${PERF_OUT:-/tmp/sync.perf}" -p "$server_pid" 2>/dev/null &
  perf_pid=$!
  sleep 0.5
fi
healthd_before="$(cpu_seconds "$server_pid")" store_before="$(store_cpu)"
sync="$(client sync)"
measured sync_healthd_cpu="$(python3 -c "print($(cpu_seconds "$server_pid") - $healthd_before)")" \
  sync_store_cpu="$(python3 -c "print($(store_cpu) - $store_before)")"
if [ "${PERF:-0}" = 1 ]; then kill -INT "$perf_pid"; wait "$perf_pid" || true; fi
measured sync_samples="$(field samples "$sync")" sync_seconds="$(field seconds "$sync")" sync_frames="$(field frames "$sync")" \
  sync_bytes="$(field bytes "$sync")" sync_client_decode_per_second="$(field client_decode_per_second "$sync")" \
  sync_healthd_rss_kib="$(peak_rss_kib "$server_pid")"

if [ "${SYNC_ONLY:-0}" != 1 ]; then
  healthd_before="$(cpu_seconds "$server_pid")" store_before="$(store_cpu)"
  ctl; timed "$work/export.time" "${ctl[@]}" export --output "$work/export.jsonl" >/dev/null 2>"$work/export.log"
  measured export_healthd_cpu="$(python3 -c "print($(cpu_seconds "$server_pid") - $healthd_before)")" \
    export_store_cpu="$(python3 -c "print($(store_cpu) - $store_before)")"
  read -r seconds rss user sys < "$work/export.time"
  measured export_seconds="$seconds" export_rss_kib="$rss" export_ctl_cpu="$(python3 -c "print($user + $sys)")" \
    export_lines="$(wc -l < "$work/export.jsonl")" export_bytes="$(stat -c %s "$work/export.jsonl")"
  # The export's raw limit: as many bytes written alone to a new file beside it, as healthctl writes
  # them (2 MiB direct writes; through the cache where the file system refuses those, as it does).
  blocks=$(( ($(stat -c %s "$work/export.jsonl") + (2 << 20) - 1) / (2 << 20) ))
  started="$(date +%s.%N)"
  dd if=/dev/zero of="$work/raw-write" bs=2M count="$blocks" oflag=direct status=none 2>/dev/null \
    || dd if=/dev/zero of="$work/raw-write" bs=2M count="$blocks" status=none
  measured export_raw_write_seconds="$(python3 -c "print($(date +%s.%N) - $started)")"
  rm -f "$work/raw-write"

  stop_servers; stop_postgres
  start_store_healthd target
  healthd_before="$(cpu_seconds "$server_pid")" store_before="$(store_cpu)"
  ctl; timed "$work/import.time" "${ctl[@]}" --format json import "$work/export.jsonl" >"$work/import.json" 2>"$work/import.log"
  measured import_healthd_cpu="$(python3 -c "print($(cpu_seconds "$server_pid") - $healthd_before)")" \
    import_store_cpu="$(python3 -c "print($(store_cpu) - $store_before)")"
  read -r seconds rss user sys < "$work/import.time"
  measured import_seconds="$seconds" import_rss_kib="$rss" import_ctl_cpu="$(python3 -c "print($user + $sys)")" \
    import_stored="$(field stored "$(cat "$work/import.json")")" import_healthd_rss_kib="$(peak_rss_kib "$server_pid")"
fi
measured load_end="$(cut -d' ' -f1 /proc/loadavg)"
python3 "$root/bench/sync/report.py" --format "$format" "${figures[@]}"
