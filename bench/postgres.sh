# Sourced by the bench scripts that run healthd on PostgreSQL: a throw-away cluster from
# scripts/postgres, its CPU time and the size of what healthd stored in it. Without --fast the
# cluster keeps PostgreSQL's durable defaults (fsync, synchronous_commit and full_page_writes on:
# every commit is flushed before it is acknowledged), the counterpart of healthd's power-loss
# durability on SQLite. Needs $root. As root the cluster runs as "postgres", which cannot enter a
# 0700 work directory, so it gets a directory of its own under /tmp.
pgdir=""

# start_postgres [--fast]: a fresh cluster; sets pg_url.
start_postgres() {
  pgdir="$(mktemp -d /tmp/bench-pg.XXXXXX)"
  pg_url="$("$root/scripts/postgres" start "$pgdir" "$@")"
}

stop_postgres() {
  [ -z "$pgdir" ] || "$root/scripts/postgres" stop "$pgdir"
  pgdir=""
}

# postgres_cpu_seconds: user + system CPU the cluster used so far: the postmaster, its backends
# that exited (reaped by it, so counted in its children's times) and those still running.
postgres_cpu_seconds() {
  local main; main="$(head -1 "$pgdir/data/postmaster.pid")"
  local pids; pids="$(ps -o pid= --ppid "$main" | tr '\n' ' ')"
  # shellcheck disable=SC2086
  # A process that exited since ps (an autovacuum worker) fails cat, and under pipefail the caller.
  (cd /proc && cat "$main/stat" $(printf '%s/stat ' $pids) 2>/dev/null || true) \
    | awk -v hz="$(getconf CLK_TCK)" -v main="$main" \
      '{ total += $14 + $15; if ($1 == main) total += $16 + $17 } END { print total / hz }'
}

# postgres_stored_bytes: after a checkpoint, the bytes of every table, index and TOAST table in
# the database's public schema (not the WAL, which PostgreSQL keeps up to max_wal_size whatever
# was stored, nor the catalog of an empty database).
postgres_stored_bytes() {
  psql --no-psqlrc --quiet --tuples-only --no-align --dbname "$pg_url" --command "CHECKPOINT" \
    --command "SELECT sum(pg_total_relation_size(oid)) FROM pg_class
               WHERE relkind IN ('r', 'm') AND relnamespace = 'public'::regnamespace"
}
