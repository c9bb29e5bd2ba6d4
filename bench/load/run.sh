#!/usr/bin/env bash
# Load ladder: healthsim's load mode at 10, 100, 1,000 and 10,000 devices (one connection each,
# RATE heart-rate samples/s per device for SECONDS) against a fresh release healthd per step, each
# step twice: devices spread over their period by a seeded phase (as real devices send) and all in
# the same tick (--burst, the worst case). One row per run: samples generated and acknowledged,
# acknowledged samples/s, save latency p50/p99, server CPU per save call (from /proc: Hellos and
# connection setup included, so short runs at low rates overstate it), the kernel's share of that CPU
# (socket I/O, fsync) and the server's peak RSS, in all and per connection; beside the server's CPU,
# healthsim's own CPU per call (it shares the machine's cores with healthd, so a generator that needs
# more than the server is what latency waits for). GENERATOR=lean drives the same load from
# bench/load/lean_load.py instead (frames encoded before the run, one epoll thread), so the latency
# measured is the server's rather than the generator's own queue (its CPU column then counts only the
# seconds its devices were sending); it also reads the server's threads in /proc as its devices start and
# stop sending, and a second line gives the server's CPU per call of that span only (connection setup and
# Hellos left out) and each thread's user+system µs per call (names as in docs/architecture.md). The last
# columns are the writer's, from healthd's /metrics: its commits, jobs per commit and the seconds spent in
# commits (the one serial thread's busy time).
# BENCH_BIN=DIR runs the healthd (and healthsim) in DIR unbuilt, to compare two builds; HEALTHD_ARGS
# adds options to healthd's command line (e.g. "--threads 1"). SYSCALLS=1 adds the server's system calls,
# page faults and context switches per save call while the generator runs, in all and for the usual
# calls (`perf stat` of the syscall tracepoints and software events: counted in the kernel, so cheap;
# connection setup included, like the CPU column). The column ">25ms" counts the commits that took longer.
# PREFILL=N starts every step's healthd on a copy of one store filled before the first step with N samples
# of the peer benchmark's stream (bench/peer/peer_bench.py), so the run meets what a store of that size
# does: on SQLite the UUID index's runs are merged a slice a commit while a merge is due (UUIDLevels).
# The fill is one connection saving 4,096 samples a call, so every level-0 run holds 8,192 entries (the
# recent level's limit): the commit that writes a level's eighth run starts its merge, level 0's every
# 65,536 samples, level 1's at 524,288 (8 slices of up to 65,536 entries), level 2's at 4,194,304 (64
# slices), and the run's own samples (DEVICES × RATE × SECONDS) count towards the next one:
# `DEVICE_COUNTS=10000 PREFILL=480000 … run.sh 1 10` has level 1 merged during the run (and level 0, as
# every 65,536 samples), PREFILL=4150000 level 1 then level 2. PREFILL_STORE=DIR keeps the filled store in DIR
# (filled there when DIR does not exist, reused when it does), to compare builds on one fill. Each copy
# is synced before its healthd starts. The UUID
# levels (runs a level, entries, whether a merge is running; rows in the recent level) are printed before
# and after each run.
#   bench/load/run.sh [RATE] [SECONDS]        DEVICE_COUNTS="10 100" SCHEDULES="spread" GENERATOR=lean bench/load/run.sh
# Every device is a real socket (healthsim reads them all on one queue), so a step needs about
# DEVICES + 1,024 file descriptors in each of healthd and healthsim; the script raises `ulimit -n`
# up to the hard limit and skips (saying why) a step that cannot fit.
set -euo pipefail
source "$(dirname "$0")/../../scripts/healthd-fixture.sh"
rate="${1:-5}" seconds="${2:-10}"
counts="${DEVICE_COUNTS:-10 100 1000 10000}"
schedules="${SCHEDULES:-spread burst}"
generator="${GENERATOR:-healthsim}"
if [ -n "${BENCH_BIN:-}" ]; then
  bin="$BENCH_BIN"
else
  for product in healthd healthsim; do swift build -c "$config" --scratch-path "$scratch" --product "$product" >&2; done
  bin="$scratch/$config"
fi

hard_fds="$(ulimit -Hn)"
# uuid_levels DIR: the store's UUID levels, "level:runs/entries[, merging]" and the recent level's rows.
uuid_levels() {
  sqlite3 "$1/healthstore.sqlite" "SELECT group_concat(line, ' ') FROM (SELECT 'L' || level || ':' || count(*) || '/' || sum(entries)
      || iif(count(cursor) > 0, '+merging', '') AS line FROM uuid_run_dir GROUP BY level ORDER BY level)
    UNION ALL SELECT 'recent ' || count(*) FROM uuids_recent" | paste -sd' '
}
prefill="${PREFILL:-0}" template=""
if [ "$prefill" -gt 0 ]; then
  template="${PREFILL_STORE:-$work/prefilled}"
  if [ ! -d "$template" ]; then
    echo "filling a store with $prefill samples of the peer stream (one connection, 4,096 a call)" >&2
    start_healthd prefill
    python3 "$root/bench/peer/peer_bench.py" --engine healthd --address "$server_addr" --token-file "$server_data/owner.token" \
      --samples "$prefill" --writers 1 --batch 4096 >&2
    stop_servers
    rm "$server_data/healthd.log"
    mv "$server_data" "$template"
  fi
  echo "prefilled store ($prefill samples): UUID levels $(uuid_levels "$template")"
fi
echo "load ladder: $rate samples/s per device for $seconds s, ${config} build, fresh healthd per step, generator $generator"
printf "%8s %8s %11s %12s %10s %9s %9s %9s %12s %6s %9s %11s %12s %8s %9s %10s %6s\n" \
  devices schedule generated acknowledged "samples/s" "p50 ms" "p99 ms" rejected "µs CPU/call" "sys %" "peak MB" "KiB/conn" "gen µs/call" \
  commits "jobs/commit" "commit s" ">25ms"
# sys_ticks PID / cpu_ticks PID: system / user + system clock ticks the process has used.
sys_ticks() { awk '{print $15}' "/proc/$1/stat"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for n in $counts; do
 for schedule in $schedules; do
  need=$(( n + 1024 ))
  if [ "$hard_fds" != unlimited ] && [ "$need" -gt "$hard_fds" ]; then
    printf "%8d  skipped: needs %d file descriptors per process, the hard limit (ulimit -Hn) is %s\n" "$n" "$need" "$hard_fds"
    continue
  fi
  ulimit -Sn "$need"  # soft only: a plain `ulimit -n` would lower the hard limit for later steps
  if [ -n "$template" ]; then
    mkdir -p "$work/bench-$n-$schedule" && cp -a "$template/." "$work/bench-$n-$schedule/"
    # Unsynced, the copy's pages are still the kernel's to write back, and the store's first checkpoint
    # fsyncs them during the run: a stall a grown server does not have (bench/history/2026-12-03-ckpt.md).
    sync "$work/bench-$n-$schedule/"*
  fi
  start_healthd "bench-$n-$schedule" --max-connections "$(( n + 64 ))" --authorization-policy allow-all --http 127.0.0.1:0 ${HEALTHD_ARGS:-}
  http_addr="$(sed -n 's/.*listening on.*http \([0-9.]*:[0-9]*\).*/\1/p' "$server_data/healthd.log" | head -1)"
  report="$work/bench-$n-$schedule.json"
  idle_rss="$(awk '/VmRSS/ {print $2}' "/proc/$server_pid/status")"
  ticks_before="$(cpu_ticks "$server_pid")" sys_before="$(sys_ticks "$server_pid")"
  flags=(); [ "$schedule" = burst ] && flags=(--burst)
  # The generator's CPU (user + system seconds, its setup included), written by time(1) when it exits.
  sim_cpu="$work/sim-$n-$schedule.cpu"
  if [ "$generator" = lean ]; then
    command=(python3 "$root/bench/load/lean_load.py" --port "${server_addr##*:}" --owner-token-file "$server_data/owner.token"
             --server-pid "$server_pid")
  else
    command=("$bin/healthsim" --server "$server_addr" --owner-token-file "$server_data/owner.token" --state-dir "$server_data/healthsim")
  fi
  syscall_log="$work/syscalls-$n-$schedule.csv" syscall_counter=""
  if [ -n "${SYSCALLS:-}" ]; then
    events="raw_syscalls:sys_enter,page-faults,context-switches"
    for call in read write writev epoll_wait epoll_ctl futex pwrite64 pread64 fdatasync fsync mprotect madvise accept4 close; do
      events+=",syscalls:sys_enter_$call"
    done
    perf stat -x, -e "$events" -p "$server_pid" -o "$syscall_log" & syscall_counter=$!
  fi
  /usr/bin/time -f "%U %S" -o "$sim_cpu" "${command[@]}" --devices "$n" --rate "$rate" --duration "$seconds" "${flags[@]}" \
    --report "$report" > /dev/null 2> "$work/sim-$n.log" || true
  if [ -n "$syscall_counter" ]; then kill -INT "$syscall_counter"; wait "$syscall_counter" || true; fi
  ticks="$(( $(cpu_ticks "$server_pid") - ticks_before ))" sys="$(( $(sys_ticks "$server_pid") - sys_before ))"
  rss="$(peak_rss_kib "$server_pid")"
  # Commits, jobs committed, seconds in commits (histogram counts and sums) and commits over 25 ms.
  commits="$(curl -s "http://$http_addr/metrics" | awk '/^healthstore_commit_batch_jobs_count/ {c = $2} /^healthstore_commit_batch_jobs_sum/ {j = $2}
    /^healthstore_commit_duration_seconds_sum/ {t = $2} /^healthstore_commit_duration_seconds_bucket\{le="0.025"\}/ {fast = $2}
    END {print c + 0, j + 0, t + 0, c - fast}')"
  stop_servers
  if [ ! -s "$report" ]; then
    printf "%8d  failed: the generator wrote no report; its last words:\n" "$n"
    tail -3 "$work/sim-$n.log" | sed 's/^/          /'
    continue
  fi
  python3 - "$report" "$n" "$rss" "$idle_rss" "$ticks" "$(getconf CLK_TCK)" "$schedule" "$sys" "$(tail -1 "$sim_cpu")" $commits "$syscall_log" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
n, rss, idle, ticks, hz, schedule, sys_ticks = (int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]),
                                                int(sys.argv[6]), sys.argv[7], int(sys.argv[8]))
sim_seconds = r.get("generatorRunCPUSeconds", sum(float(part) for part in sys.argv[9].split()))
lat = r["saveLatencyMs"]
calls = max(1, r["batches"])
print(f"{n:8d} {schedule:>8s} {r['samplesGenerated']:11d} {r['samplesAcknowledged']:12d} {r['throughputPerSecond']:10.0f} "
      f"{lat['p50']:9.1f} {lat['p99']:9.1f} {sum(r['rejectedByCode'].values()):9d} {ticks / hz / calls * 1e6:12.1f} "
      f"{100 * sys_ticks / max(1, ticks):6.0f} "
      f"{rss / 1024:9.1f} {max(0, rss - idle) / n:11.1f} {sim_seconds / calls * 1e6:12.1f} "
      f"{int(sys.argv[10]):8d} {float(sys.argv[11]) / max(1, int(sys.argv[10])):9.0f} {float(sys.argv[12]):10.1f} {int(sys.argv[13]):6d}")
by_second = r.get("saveLatencyP99MsBySecond")
if by_second:
    print(f"{'':17s} p99 ms by second sent: " + " ".join(f"{ms:.0f}" for ms in by_second))
run_ticks = r.get("serverRunTicks")
if run_ticks:  # the lean generator's: the server's threads while the devices sent, setup left out
    user, system = (sum(t[i] for t in run_ticks.values()) for i in (0, 1))
    threads = sorted(run_ticks.items(), key=lambda t: -sum(t[1]))
    print(f"{'':17s} while sending: {(user + system) / hz / calls * 1e6:.1f} µs CPU/call, sys {100 * system / max(1, user + system):.0f} %; "
          "per thread (user+sys µs/call): " + ", ".join(f"{name} {u / hz / calls * 1e6:.1f}+{s / hz / calls * 1e6:.1f}"
                                                     for name, (u, s) in threads if u + s))
try:  # perf stat -x, lines: count,unit,event,…
    counts = {f[2].split("sys_enter_")[-1].split(":")[-1]: int(f[0]) for f in (line.split(",") for line in open(sys.argv[14]))
              if len(f) > 2 and f[0].isdigit()}
    print(f"{'':17s} per call: {counts.pop('sys_enter') / calls:.2f} system calls, {counts.pop('page-faults') / calls:.2f} page faults, "
          f"{counts.pop('context-switches') / calls:.2f} context switches; "
          + ", ".join(f"{name} {count / calls:.3f}" for name, count in sorted(counts.items(), key=lambda c: -c[1]) if count))
except (OSError, KeyError):
    pass
PY
  if [ -n "$template" ]; then printf "%17s UUID levels after the run: %s\n" "" "$(uuid_levels "$server_data")"; fi
 done
done
