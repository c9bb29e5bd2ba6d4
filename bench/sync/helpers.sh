# Shell helpers of the sync, export and import benchmarks (sourced): the raw-socket client against the
# healthd of scripts/healthd-fixture.sh, a field of its JSON answer, a process's CPU-seconds, and the
# arguments of the A/B scripts.
client() { python3 "$root/bench/sync/sync_bench.py" "$@" --address "$server_addr" --token-file "$server_data/owner.token"; }
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])['$1'])" "$2"; }
# cpu_seconds PID: user + system CPU the process used so far. On a machine shared with other work,
# samples per CPU-second of the process that limits the rate compare better than wall-clock rates.
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"; }
# ab_arguments MEASURED [SAMPLES] [ROUNDS]: the A/B scripts' samples and rounds (default 1000000 and 2);
# BASE_BIN and BENCH_BIN (MEASURED says what of BENCH_BIN the script runs) must be set.
ab_arguments() {
  samples="${2:-1000000}"
  rounds="${3:-2}"
  : "${BASE_BIN:?BASE_BIN=DIR: the healthd and healthctl to compare against}" "${BENCH_BIN:?BENCH_BIN=DIR: $1}"
}
