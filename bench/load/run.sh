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
# FLOOR=1 (lean generator only) runs each step's load a second time, against transport-floor
# (bench/load/floor: healthd's listener and I/O loops, each frame answered at once with a reply packed at
# start, nothing stored or decoded): the transport's raw limit on this machine. Lines under the step's give
# its CPU per call (user + system, in all and while the devices send, per thread; with SYSCALLS=1 its
# system calls a call) beside healthd's and how many of healthd's µs are above it; a floor run that leaves
# a call unanswered or refused stops the script.
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
if [ -n "${FLOOR:-}" ] && [ "$generator" != lean ]; then
  echo "FLOOR=1 needs GENERATOR=lean (the floor answers only the lean generator's calls)" >&2
  exit 2
fi
if [ -n "${BENCH_BIN:-}" ]; then
  bin="$BENCH_BIN"
else
  for product in healthd healthsim ${FLOOR:+transport-floor}; do swift build -c "$config" --scratch-path "$scratch" --product "$product" >&2; done
  bin="$scratch/$config"
fi

hard_fds="$(ulimit -Hn)"
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
events="raw_syscalls:sys_enter,page-faults,context-switches"
for call in read write writev epoll_wait epoll_ctl futex pwrite64 pread64 fdatasync fsync mprotect madvise accept4 close; do
  events+=",syscalls:sys_enter_$call"
done
# measure PID SYSCALL_LOG GENERATOR_LOG GENERATOR…: runs the generator (with the step's devices, rate,
# duration and schedule) against the server PID, its system calls counted into SYSCALL_LOG when SYSCALLS is
# set; sets ticks and sys, the server's CPU and system clock ticks meanwhile.
measure() {
  local pid="$1" log="$2" generator_log="$3" counter="" before sys_before
  shift 3
  before="$(cpu_ticks "$pid")" sys_before="$(sys_ticks "$pid")"
  if [ -n "${SYSCALLS:-}" ]; then
    perf stat -x, -e "$events" -p "$pid" -o "$log" & counter=$!
  fi
  "$@" --devices "$n" --rate "$rate" --duration "$seconds" "${flags[@]}" > /dev/null 2> "$generator_log" || true
  if [ -n "$counter" ]; then kill -INT "$counter"; wait "$counter" || true; fi
  ticks="$(( $(cpu_ticks "$pid") - before ))" sys="$(( $(sys_ticks "$pid") - sys_before ))"
}
# run_floor: the step's load against a fresh transport-floor; sets floor_args (its report, CPU and system
# ticks, syscall log) for the step's report.
run_floor() {
  # ticks and sys local: measure sets these, and the step's own (healthd's) are still to be reported.
  local data="$work/floor-$n-$schedule" pid port ticks sys
  mkdir -p "$data"
  echo floor > "$data/owner.token"  # the floor takes any credential
  "$bin/transport-floor" --listen 127.0.0.1:0 2> "$data/floor.log" &
  pid=$!
  servers+=("$pid")
  for _ in $(seq 1 200); do grep -q "listening on" "$data/floor.log" 2>/dev/null && break; sleep 0.05; done
  port="$(sed -n 's/.*listening on tcp [0-9.]*:\([0-9]*\).*/\1/p' "$data/floor.log")"
  [ -n "$port" ] || { cat "$data/floor.log" >&2; echo "transport-floor did not start" >&2; exit 1; }
  measure "$pid" "$data/syscalls.csv" "$data/generator.log" python3 "$root/bench/load/lean_load.py" --port "$port" \
    --owner-token-file "$data/owner.token" --server-pid "$pid" --report "$data/report.json"
  stop_servers
  if [ ! -s "$data/report.json" ]; then
    echo "transport floor at $n devices: the generator wrote no report; its last words:" >&2
    tail -3 "$data/generator.log" >&2
    exit 1
  fi
  floor_args=("$data/report.json" "$ticks" "$sys" "$data/syscalls.csv")
}
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
  flags=(); [ "$schedule" = burst ] && flags=(--burst)
  # The generator's CPU (user + system seconds, its setup included), written by time(1) when it exits.
  sim_cpu="$work/sim-$n-$schedule.cpu"
  if [ "$generator" = lean ]; then
    command=(python3 "$root/bench/load/lean_load.py" --port "${server_addr##*:}" --owner-token-file "$server_data/owner.token"
             --server-pid "$server_pid")
  else
    command=("$bin/healthsim" --server "$server_addr" --owner-token-file "$server_data/owner.token" --state-dir "$server_data/healthsim")
  fi
  syscall_log="$work/syscalls-$n-$schedule.csv"
  measure "$server_pid" "$syscall_log" "$work/sim-$n.log" /usr/bin/time -f "%U %S" -o "$sim_cpu" "${command[@]}" --report "$report"
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
  floor_args=()
  if [ -n "${FLOOR:-}" ]; then run_floor; fi
  python3 - "$report" "$n" "$rss" "$idle_rss" "$ticks" "$(getconf CLK_TCK)" "$schedule" "$sys" "$(tail -1 "$sim_cpu")" $commits "$syscall_log" "${floor_args[@]}" <<'PY'
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


def per_call(clock_ticks, count):
    return clock_ticks / hz / count * 1e6


def while_sending(report, count):
    """The lean generator's: the server's user and system ticks while the devices sent (setup left out),
    and its threads' user+system µs a call."""
    run_ticks = report.get("serverRunTicks")
    if not run_ticks:
        return None
    user, system = (sum(t[i] for t in run_ticks.values()) for i in (0, 1))
    threads = sorted(run_ticks.items(), key=lambda t: -sum(t[1]))
    return user, system, ", ".join(f"{name} {per_call(u, count):.1f}+{per_call(s, count):.1f}" for name, (u, s) in threads if u + s)


def syscalls(path, count):
    """System calls, page faults and context switches a call from a `perf stat -x,` log (count,unit,event,…)."""
    try:
        counts = {f[2].split("sys_enter_")[-1].split(":")[-1]: int(f[0]) for f in (line.split(",") for line in open(path))
                  if len(f) > 2 and f[0].isdigit()}
        return (f"{counts.pop('sys_enter') / count:.2f} system calls, {counts.pop('page-faults') / count:.2f} page faults, "
                f"{counts.pop('context-switches') / count:.2f} context switches; "
                + ", ".join(f"{name} {number / count:.3f}" for name, number in sorted(counts.items(), key=lambda c: -c[1]) if number))
    except (OSError, KeyError):
        return None


def split(total, system, count):
    return f"{per_call(total, count):.1f} µs (user {per_call(total - system, count):.1f} + sys {per_call(system, count):.1f})"


sending = while_sending(r, calls)
if sending:
    user, system, threads = sending
    print(f"{'':17s} while sending: {per_call(user + system, calls):.1f} µs CPU/call, sys {100 * system / max(1, user + system):.0f} %; "
          "per thread (user+sys µs/call): " + threads)
counted = syscalls(sys.argv[14], calls)
if counted:
    print(f"{'':17s} per call: {counted}")
if len(sys.argv) > 15:  # FLOOR=1: the same load against transport-floor
    f = json.load(open(sys.argv[15]))
    floor_ticks, floor_sys, floor_calls = int(sys.argv[16]), int(sys.argv[17]), max(1, f["batches"])
    floor_lat = f["saveLatencyMs"]
    print(f"{'':17s} transport floor: {f['samplesAcknowledged']} of {f['samplesGenerated']} acknowledged, p50 {floor_lat['p50']:.1f} ms, "
          f"p99 {floor_lat['p99']:.1f} ms; CPU/call {split(floor_ticks, floor_sys, floor_calls)}, healthd {split(ticks, sys_ticks, calls)}: "
          f"{per_call(ticks, calls) - per_call(floor_ticks, floor_calls):.1f} µs above the floor")
    floor_sending = while_sending(f, floor_calls)
    if floor_sending and sending:
        floor_user, floor_system, floor_threads = floor_sending
        print(f"{'':17s} floor while sending: {split(floor_user + floor_system, floor_system, floor_calls)}, "
              f"healthd {split(user + system, system, calls)}: "
              f"{per_call(user + system, calls) - per_call(floor_user + floor_system, floor_calls):.1f} µs above the floor; "
              f"floor per thread (user+sys µs/call): {floor_threads}")
    counted = syscalls(sys.argv[18], floor_calls)
    if counted:
        print(f"{'':17s} floor per call: {counted}")
    unanswered = f["samplesGenerated"] - f["samplesAcknowledged"] + sum(f["rejectedByCode"].values())
    if unanswered:
        print(f"{'':17s} the floor left {unanswered} calls unanswered or refused ({f['rejectedByCode']}): not a raw limit")
        sys.exit(1)
PY
  if [ -n "$template" ]; then printf "%17s UUID levels after the run: %s\n" "" "$(uuid_levels "$server_data")"; fi
 done
done
