# Sourced by the simulator scripts: builds the three executables and starts throwaway healthd
# servers on ephemeral ports, each in its own data directory, all stopped on exit.
#   SIM_CONFIG=debug|release (default release)   SIM_SCRATCH=<build dir> (default .build)
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
config="${SIM_CONFIG:-release}"
scratch="${SIM_SCRATCH:-$root/.build}"
work="$(mktemp -d "${TMPDIR:-/tmp}/healthsim-run.XXXXXX")"
servers=()

stop_servers() {
  for pid in "${servers[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${servers[@]}"; do wait "$pid" 2>/dev/null || true; done
  servers=()
}
trap 'stop_servers; rm -rf "$work"' EXIT INT TERM

build_all() {
  for product in healthd healthsim healthctl; do
    swift build -c "$config" --scratch-path "$scratch" --product "$product" >&2
  done
  bin="$scratch/$config"
}

# start_healthd NAME [healthd flags…]: sets server_pid, server_addr and server_data; no dashboard
# unless the flags name --http. A command in the healthd_prefix array (e.g. valgrind) runs healthd;
# it must exec it, keeping the process id.
healthd_prefix=()
start_healthd() {
  local name="$1"; shift
  server_data="$work/$name"
  mkdir -p "$server_data"
  # No dashboard unless asked for: its default port is fixed (7480), and a CI run may hold it.
  local http=(--http off) arg
  for arg in "$@"; do [ "$arg" = --http ] && http=(); done
  "${healthd_prefix[@]}" "$bin/healthd" --data "$server_data" --listen 127.0.0.1:0 "${http[@]}" "$@" 2> "$server_data/healthd.log" &
  server_pid=$!
  servers+=("$server_pid")
  for _ in $(seq 1 3600); do  # up to 3 minutes: healthd under valgrind on a loaded machine is slow to start
    # healthd writes a new store's owner token before it logs ready.
    grep -q " ready: " "$server_data/healthd.log" 2>/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.05
  done
  server_addr="$(sed -n 's/.*listening on tcp \([0-9.]*:[0-9]*\).*/\1/p' "$server_data/healthd.log" | head -1)"
  [ -n "$server_addr" ] || { cat "$server_data/healthd.log" >&2; echo "healthd did not start" >&2; exit 1; }
}

# sim [healthsim flags…]: runs healthsim against the last started server as its owner.
sim() {
  "$bin/healthsim" --server "$server_addr" --owner-token-file "$server_data/owner.token" \
    --state-dir "$server_data/healthsim" "$@"
}

# peak_rss_kib PID: the process's peak resident set size so far.
peak_rss_kib() { awk '/VmHWM/ {print $2}' "/proc/$1/status"; }

# uuid_levels DIR: the store's UUID levels, "level:runs/entries[, merging]" and the recent level's rows.
uuid_levels() {
  sqlite3 "$1/healthstore.sqlite" "SELECT group_concat(line, ' ') FROM (SELECT 'L' || level || ':' || count(*) || '/' || sum(entries)
      || iif(count(cursor) > 0, '+merging', '') AS line FROM uuid_run_dir GROUP BY level ORDER BY level)
    UNION ALL SELECT 'recent ' || count(*) FROM uuids_recent" | paste -sd' '
}
