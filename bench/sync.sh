#!/usr/bin/env bash
# Read throughput: fills a fresh release healthd with N quantity samples (the peer benchmark's
# pre-encoded stream: 8 types, 20 devices, 4 writers, 5,000 per save; that rate is the ingest
# figure), then times
#   - a full anchored sync (QueryAnchored of all 8 types, no anchor) read by a raw-socket client that
#     only frames the answers, beside that client's own protobuf decode rate on the same bytes;
#   - `healthctl export` of everything to a file, beside the sync rate;
#   - `healthctl import` of that file into a second fresh healthd, beside the ingest rate;
# with the peak RSS of healthctl and of the server.
#   bench/sync.sh [SAMPLES]      default 1000000
# BENCH_BIN=DIR uses the healthd and healthctl built in DIR (e.g. a copy of the merge base's) unbuilt.
# PERF=1 records a perf profile of healthd during the sync into $PERF_OUT (default /tmp/sync.perf).
# SYNC_ONLY=1 stops after the sync (no export or import; BENCH_BIN then needs only healthd).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/healthd-fixture.sh"
samples="${1:-1000000}"
if [ -n "${BENCH_BIN:-}" ]; then
  bin="$BENCH_BIN"
else
  products=(healthd healthctl)
  [ "${SYNC_ONLY:-0}" = 1 ] && products=(healthd)
  for product in "${products[@]}"; do swift build -c "$config" --scratch-path "$scratch" --product "$product" >&2; done
  bin="$scratch/$config"
fi
client() { python3 "$root/bench/sync/sync_bench.py" "$@" --address "$server_addr" --token-file "$server_data/owner.token"; }
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])['$1'])" "$2"; }
# ctl: sets the array `ctl` to healthctl as the last started server's owner (an array, not a
# function, so /usr/bin/time can run it).
ctl() { ctl=("$bin/healthctl" --server "$server_addr" --token-file "$server_data/owner.token"); }
# timed OUT CMD…: runs CMD, stores "seconds peak-KiB cpu-seconds" in OUT.
timed() { local out="$1"; shift; /usr/bin/time -f "%e %M %U %S" -o "$out" "$@"; }
# cpu_seconds PID: user + system CPU the process used so far. On a machine shared with other work,
# samples per CPU-second of the process that limits the rate compare better than wall-clock rates.
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"; }

start_healthd source
fill_cpu_before="$(cpu_seconds "$server_pid")"
fill="$(client fill --samples "$samples")"
fill_cpu="$(python3 -c "print($(cpu_seconds "$server_pid") - $fill_cpu_before)")"
ingest_rate="$(field per_second "$fill")"

if [ "${PERF:-0}" = 1 ]; then
  perf record -F 999 -g -o "${PERF_OUT:-/tmp/sync.perf}" -p "$server_pid" 2>/dev/null &
  perf_pid=$!
  sleep 0.5
fi
sync_cpu_before="$(cpu_seconds "$server_pid")"
sync="$(client sync)"
sync_cpu="$(python3 -c "print($(cpu_seconds "$server_pid") - $sync_cpu_before)")"
if [ "${PERF:-0}" = 1 ]; then kill -INT "$perf_pid"; wait "$perf_pid" || true; fi
sync_rate="$(field per_second "$sync")"
synced_rss="$(peak_rss_kib "$server_pid")"

rate() { python3 -c "print(f'{$1 / $2:,.0f}')"; }
share() { python3 -c "print(f'{100 * $1 / $2:.0f} %')"; }
synced="$(field samples "$sync")"
echo "read throughput: $samples samples (8 types, 20 devices), $config healthd, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf "%-42s %11s  %s\n" measurement "samples/s" "beside it"
printf "%-42s %11s  %s\n" "ingest (4 writers × 5,000, pre-encoded)" "$(rate "$samples" "$(field seconds "$fill")")" \
  "server $(rate "$samples" "$fill_cpu")/CPU-s"
printf "%-42s %11s  %s\n" "anchored sync, all 8 types, no anchor" "$(rate "$synced" "$(field seconds "$sync")")" \
  "client decodes the same bytes at $(rate "$(field client_decode_per_second "$sync")" 1)/s; server $(rate "$synced" "$sync_cpu")/CPU-s; $(field frames "$sync") frames, $(rate "$(field bytes "$sync")" "$synced") B/sample; server peak RSS $((synced_rss / 1024)) MiB"
[ "${SYNC_ONLY:-0}" = 1 ] && exit 0

export_cpu_before="$(cpu_seconds "$server_pid")"
ctl; timed "$work/export.time" "${ctl[@]}" export --output "$work/export.jsonl" >/dev/null 2>"$work/export.log"
export_server_cpu="$(python3 -c "print($(cpu_seconds "$server_pid") - $export_cpu_before)")"
read -r export_seconds export_rss export_user export_sys < "$work/export.time"
exported="$(wc -l < "$work/export.jsonl")"
export_bytes="$(stat -c %s "$work/export.jsonl")"

start_healthd target
ctl; timed "$work/import.time" "${ctl[@]}" --format json import "$work/export.jsonl" >"$work/import.json" 2>"$work/import.log"
import_server_cpu="$(cpu_seconds "$server_pid")"
read -r import_seconds import_rss import_user import_sys < "$work/import.time"
imported="$(field stored "$(cat "$work/import.json")")"
import_server_rss="$(peak_rss_kib "$server_pid")"

printf "%-42s %11s  %s\n" "healthctl export ($exported lines)" "$(rate "$exported" "$export_seconds")" \
  "$(share "$exported / $export_seconds" "$sync_rate") of the sync; healthctl $(rate "$exported" "$export_user + $export_sys")/CPU-s, server $(rate "$exported" "$export_server_cpu")/CPU-s, peak RSS $((export_rss / 1024)) MiB; $((export_bytes / exported)) B/line"
printf "%-42s %11s  %s\n" "healthctl import ($imported stored)" "$(rate "$exported" "$import_seconds")" \
  "$(share "$exported / $import_seconds" "$ingest_rate") of ingest; healthctl $(rate "$exported" "$import_user + $import_sys")/CPU-s, server $(rate "$exported" "$import_server_cpu")/CPU-s, peak RSS $((import_rss / 1024)) MiB; server peak RSS $((import_server_rss / 1024)) MiB"
