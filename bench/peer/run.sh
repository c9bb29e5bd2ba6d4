#!/usr/bin/env bash
# Ingest peer benchmark: healthd against InfluxDB 1.6 (Debian's `influxdb`, installed if missing)
# on the same generated stream — 8 quantity types, 20 devices, 4 writer connections, 5,000 samples
# per write, pre-encoded — at each size, both durable: InfluxDB fsyncs its WAL on every write by
# default, healthd fsyncs on commit by default (power-loss durability); a second healthd line runs
# with --durability process-crash. Each server starts fresh in a temporary directory on loopback.
# Prints samples/s, the ratio to InfluxDB, and bytes on disk per sample once each has settled
# (healthd: stopped, so its WAL is checkpointed into the file; InfluxDB: WAL compacted into TSM).
#   bench/peer/run.sh [--engine sqlite|postgres|both] [--format text|json] [SIZES]
#       default "1000000 10000000"; e.g. bench/peer/run.sh 200000. --engine postgres (or both) adds a
#       healthd line on a fresh throw-away PostgreSQL cluster with its durable defaults (bench/postgres.sh:
#       fsync and synchronous_commit on), its bytes per sample those of its tables and indexes after a
#       checkpoint. --format json prints one JSON object of all lines instead of the table.
#   bench/peer/run.sh --postgres [SIZES]
#       the same stream into healthd on SQLite, then on a throw-away PostgreSQL (scripts/postgres) with
#       fsync on and with --fast (fsync off): one node, two nodes on the same database with the writers
#       split over them, and PostgreSQL's raw limit for the same rows (one psql session COPYing them,
#       one transaction per batch, into a table with the samples table's columns and indexes).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/healthd-fixture.sh"
source "$root/bench/postgres.sh"
source "$root/bench/options.sh"
postgres=0
if [ "${1:-}" = --postgres ]; then postgres=1; shift; fi
engine=sqlite format=text positional="1000000 10000000"
bench_options "$@"
sizes="$positional" engines="$engine"
case "$engines" in sqlite|postgres) ;; both) engines="sqlite postgres" ;; *) echo "peer: --engine is sqlite, postgres or both" >&2; exit 2 ;; esac
writers=4 batch=5000

if [ "$postgres" = 0 ] && ! command -v influxd >/dev/null; then
  echo "peer: installing InfluxDB (Debian package influxdb)" >&2
  sudo_cmd=(); [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  # The package starts a system service on install where systemd runs; the benchmark uses its own.
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq influxdb >/dev/null
fi
if [ -n "${BENCH_BIN:-}" ]; then
  bin="$BENCH_BIN"
else
  swift build -c "$config" --scratch-path "$scratch" --product healthd >&2
  bin="$scratch/$config"
fi
influx_pid=""
trap 'stop_servers; [ -n "$influx_pid" ] && kill "$influx_pid" 2>/dev/null; stop_postgres; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
bytes_in() { du -sb "$@" | awk '{n += $1} END {print n}'; }

# start_influx NAME: a fresh influxd in $work/NAME, durable defaults (WAL fsync on every write),
# compaction after a second of quiet so the settled size can be read soon after the run.
start_influx() {
  local dir="$work/$1" port; port="$(free_port)"
  mkdir -p "$dir"
  cat > "$dir/influxdb.conf" <<CONF
reporting-disabled = true
bind-address = "127.0.0.1:$(free_port)"
[meta]
  dir = "$dir/meta"
[data]
  dir = "$dir/data"
  wal-dir = "$dir/wal"
  wal-fsync-delay = "0s"
  query-log-enabled = false
  cache-snapshot-write-cold-duration = "1s"
  compact-full-write-cold-duration = "2s"
[http]
  bind-address = "127.0.0.1:$port"
  log-enabled = false
[monitor]
  store-enabled = false
CONF
  influxd -config "$dir/influxdb.conf" > "$dir/influxd.log" 2>&1 &
  influx_pid=$!
  influx_addr="127.0.0.1:$port" influx_dir="$dir"
  for _ in $(seq 1 200); do
    curl -sf "http://$influx_addr/ping" >/dev/null 2>&1 && break
    sleep 0.05
  done
  curl -sf -XPOST "http://$influx_addr/query" --data-urlencode "q=CREATE DATABASE bench" >/dev/null
}

# settled_influx_bytes: waits until the shard files stop changing (WAL compacted into TSM).
settled_influx_bytes() {
  local last=-1 now stable=0
  for _ in $(seq 1 120); do
    now="$(bytes_in "$influx_dir/data" "$influx_dir/wal")"
    if [ "$now" = "$last" ]; then stable=$((stable + 1)); else stable=0; fi
    [ "$stable" -ge 3 ] && break
    last="$now"
    sleep 1
  done
  echo "$now"
}

run() { python3 "$root/bench/peer/peer_bench.py" --writers "$writers" --batch "$batch" "$@"; }
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])['$1'])" "$2"; }

durability_flag=(--durability process-crash)
# Not `--help | grep -q`: grep stopping early fails the pipeline under pipefail.
[[ "$("$bin/healthd" --help 2>&1)" == *--durability* ]] || durability_flag=()

# postgres_row SIZE LABEL NODES [--fast]: a fresh cluster, NODES healthd nodes on it (or, with NODES
# "copy", psql COPYing the same rows), the stream through them, one table row.
postgres_row() {
  local n="$1" label="$2" nodes="$3" result addresses=()
  start_postgres "${@:4}"
  local url="$pg_url"
  start_healthd "pg-$n-$label-schema" --store "$url"
  if [ "$nodes" = copy ]; then
    stop_servers
    result="$(run --engine copy --address "$url" --samples "$n")"
  else
    addresses=("$server_addr") token="$server_data/owner.token"
    for i in $(seq 2 "$nodes"); do
      start_healthd "pg-$n-$label-$i" --store "$url"
      addresses+=("$server_addr")
    done
    result="$(run --engine healthd --address "$(IFS=,; echo "${addresses[*]}")" --token-file "$token" --samples "$n")"
    stop_servers
  fi
  stop_postgres
  printf "%10d  %-46s %9.1f %11.0f\n" "$n" "$label" "$(field seconds "$result")" "$(field per_second "$result")"
}

if [ "$postgres" = 1 ]; then
  echo "ingest on PostgreSQL: $writers writers, $batch samples per write, ${config} healthd, $(nproc) cores"
  printf "%10s  %-46s %9s %11s\n" samples engine seconds "samples/s"
  for n in $sizes; do
    start_healthd "sqlite-$n"
    result="$(run --engine healthd --address "$server_addr" --token-file "$server_data/owner.token" --samples "$n")"
    stop_servers
    printf "%10d  %-46s %9.1f %11.0f\n" "$n" "healthd, SQLite (power-loss)" "$(field seconds "$result")" \
      "$(field per_second "$result")"
    for fsync in on off; do
      fast=(); [ "$fsync" = on ] || fast=(--fast)
      postgres_row "$n" "raw COPY, PostgreSQL fsync $fsync" copy "${fast[@]}"
      postgres_row "$n" "healthd, 1 node, PostgreSQL fsync $fsync" 1 "${fast[@]}"
      postgres_row "$n" "healthd, 2 nodes, PostgreSQL fsync $fsync" 2 "${fast[@]}"
    done
  done
  exit 0
fi

# line N ENGINE STORE DURABILITY SECONDS RATE RATIO BYTES: one line of the table, or of the JSON.
line() {
  if [ "$format" = json ]; then
    python3 -c 'import json, sys; n, engine, store, durability, seconds, rate, ratio, size = sys.argv[1:]
print(json.dumps({"samples": int(n), "engine": engine, "store": store, "durability": durability, "seconds": float(seconds),
                  "per_second": float(rate), "ratio": float(ratio), "bytes_per_sample": float(size)}))' "$@" >> "$work/lines.jsonl"
  else
    local label="$2 ($4)"; [ "$2" = healthd ] && label="healthd, $3 ($4)"
    printf "%10d  %-52s %9.1f %11.0f %8.2f %13.1f\n" "$1" "$label" "$5" "$6" "$7" "$8"
  fi
}

if [ "$format" = text ]; then
  echo "ingest peer benchmark: $writers writers, $batch samples per write, ${config} healthd, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
  printf "%10s  %-52s %9s %11s %8s %13s\n" samples engine seconds "samples/s" ratio "bytes/sample"
fi
for n in $sizes; do
  start_influx "influx-$n"
  influx="$(run --engine influxdb --address "$influx_addr" --samples "$n")"
  influx_rate="$(field per_second "$influx")"
  influx_bytes="$(settled_influx_bytes)"
  kill "$influx_pid"; wait "$influx_pid" 2>/dev/null || true; influx_pid=""
  line "$n" "InfluxDB 1.6" tsm "WAL fsync per write" "$(field seconds "$influx")" "$influx_rate" 1 \
    "$(python3 -c "print($influx_bytes / $n)")"
  for engine in $engines; do
    modes=(power-loss process-crash)
    [ "$engine" = postgres ] && modes=("fsync on, synchronous_commit on")
    for mode in "${modes[@]}"; do
      flags=()
      if [ "$mode" = process-crash ]; then
        [ ${#durability_flag[@]} -gt 0 ] || continue
        flags+=("${durability_flag[@]}")
      fi
      if [ "$engine" = postgres ]; then start_postgres; flags+=(--store "$pg_url"); fi
      start_healthd "healthd-$n-$engine-${mode%%,*}" "${flags[@]}"
      result="$(run --engine healthd --address "$server_addr" --token-file "$server_data/owner.token" --samples "$n")"
      stop_servers
      if [ "$engine" = postgres ]; then
        healthd_bytes="$(postgres_stored_bytes)"
        stop_postgres
        store=PostgreSQL
      else
        healthd_bytes="$(bytes_in "$server_data"/healthstore.sqlite*)"
        store=SQLite
      fi
      rate="$(field per_second "$result")"
      line "$n" healthd "$store" "$mode" "$(field seconds "$result")" "$rate" "$(python3 -c "print($rate / $influx_rate)")" \
        "$(python3 -c "print($healthd_bytes / $n)")"
    done
  done
done
if [ "$format" = json ]; then
  python3 -c 'import json, sys
print(json.dumps({"writers": int(sys.argv[1]), "batch": int(sys.argv[2]), "cores": int(sys.argv[3]),
                  "lines": [json.loads(l) for l in open(sys.argv[4])]}))' "$writers" "$batch" "$(nproc)" "$work/lines.jsonl"
fi
