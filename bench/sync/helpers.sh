# Shell helpers of the sync, export and import benchmarks (sourced): the raw-socket client against the
# healthd of scripts/healthd-fixture.sh, a field of its JSON answer, and a process's CPU-seconds.
client() { python3 "$root/bench/sync/sync_bench.py" "$@" --address "$server_addr" --token-file "$server_data/owner.token"; }
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])['$1'])" "$2"; }
# cpu_seconds PID: user + system CPU the process used so far. On a machine shared with other work,
# samples per CPU-second of the process that limits the rate compare better than wall-clock rates.
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"; }
