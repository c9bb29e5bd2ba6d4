#!/usr/bin/env bash
# End-to-end check of healthsim against a real healthd:
#  1. a clean accelerated day of the default fleet: what healthsim says was acknowledged equals
#     what `healthctl overview` finds, per source and per device;
#  2. the same under --faults (disconnects mid-batch, duplicate sends, out-of-order batches, invalid
#     samples): every valid sample lands exactly once, only the invalid ones are rejected;
#  3. re-running the same seed over the same window stores nothing twice.
set -euo pipefail
source "$(dirname "$0")/healthd-fixture.sh"
build_all

check() {  # check REPORT: compare the report with healthctl overview on the current server
  "$bin/healthctl" overview --server "$server_addr" --token-file "$server_data/owner.token" --format json \
    > "$server_data/overview.json"
  python3 - "$1" "$server_data/overview.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
rows = json.load(open(sys.argv[2]))
found = {kind: {r["name"]: int(r["samples"]) for r in rows if r["by"] == kind} for kind in ("source", "device")}
problems = []
for kind, key in (("source", "acknowledgedBySource"), ("device", "acknowledgedByDevice")):
    if report[key] != found[kind]:
        problems.append(f"{kind}: healthsim acknowledged {report[key]} but the store holds {found[kind]}")
if report["samplesAcknowledged"] != report["samplesGenerated"]:
    problems.append(f"generated {report['samplesGenerated']} but acknowledged {report['samplesAcknowledged']}")
invalid = sum(n for k, n in report["faults"].items() if k.startswith("invalid."))
expected_rejects = {"INVALID_ARGUMENT": invalid} if invalid else {}
if report["rejectedByCode"] != expected_rejects:
    problems.append(f"rejected {report['rejectedByCode']}, expected only the {invalid} invalid samples")
if problems:
    print("FAIL " + sys.argv[1] + "\n  " + "\n  ".join(problems)); sys.exit(1)
total = sum(found["source"].values())
print(f"ok   {sys.argv[1].rsplit('/', 1)[-1]}: {total} samples from {len(found['source'])} sources and "
      f"{len(found['device'])} devices match; faults {report['faults'] or 'none'}; reconnects {report['reconnects']}")
PY
}

end="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
start_healthd clean
sim --approve --speed 40000 --days 1 --seed 7 --end "$end" --report "$work/clean.json" > /dev/null
check "$work/clean.json"

start_healthd faults
sim --approve --speed 40000 --days 1 --seed 7 --end "$end" --fault-rate 0.2 --batch 40 --report "$work/faults.json" > /dev/null
check "$work/faults.json"

# Same seed and window again, as a backfill: every object is already stored, the store does not grow.
count() {
  "$bin/healthctl" overview --server "$server_addr" --token-file "$server_data/owner.token" --format json |
    python3 -c 'import json,sys; print(sum(int(r["samples"]) for r in json.load(sys.stdin) if r["by"] == "source"))'
}
before="$(count)"
sim --approve --days 1 --seed 7 --end "$end" --report "$work/again.json" > /dev/null
after="$(count)"
python3 - "$work/again.json" "$before" "$after" <<'PY'
import json, sys
report, before, after = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
if after != before or report["outcomes"].get("stored", 0) != 0:
    print(f"FAIL re-run stored again: outcomes {report['outcomes']}, store {before} -> {after}"); sys.exit(1)
print(f"ok   re-run of the same window: outcomes {report['outcomes']}, store unchanged at {after}")
PY
echo "sim-e2e: all checks passed"
