"""bench/all.sh's table: reads what each benchmark script printed into the results directory (JSON
from bench/peer/run.sh and bench/sync.sh, the tables of bench/load/run.sh and bench/stats.sh) and
prints one row per figure: figure, healthd, peer or raw limit, ratio, target, met?"""

import argparse
import json
import os
import re
import sys


def load_json(results, name):
    path = os.path.join(results, name)
    return json.load(open(path)) if os.path.exists(path) else None


def rate(value):
    return f"{value:,.0f}/s"


def verdict(ok):
    return "yes" if ok else "no"


def peer_rows(peer, samples):
    rows = []
    by = {}
    for line in peer["lines"]:
        by[(line["samples"], line["store"], line["durability"])] = line
    for n in sorted({line["samples"] for line in peer["lines"]}):
        influx = by.get((n, "tsm", "WAL fsync per write"))
        for line in peer["lines"]:
            if line["samples"] != n or line["engine"] != "healthd":
                continue
            label = f"ingest {n:,}, {line['store']} ({line['durability']})"
            rows.append({"figure": label, "healthd": rate(line["per_second"]),
                         "peer": f"InfluxDB 1.6 {rate(influx['per_second'])}", "ratio": f"{line['ratio']:.2f}×",
                         "target": "≥ 1.0×", "met": verdict(line["ratio"] >= 1.0)})
        for line in peer["lines"]:
            if line["samples"] != n or line["engine"] != "healthd" or line["durability"] == "process-crash":
                continue
            ratio = line["bytes_per_sample"] / influx["bytes_per_sample"]
            rows.append({"figure": f"bytes on disk per sample, {n:,}, {line['store']}",
                         "healthd": f"{line['bytes_per_sample']:.1f} B",
                         "peer": f"InfluxDB 1.6 {influx['bytes_per_sample']:.1f} B", "ratio": f"{ratio:.2f}×",
                         "target": "≤ 80 B", "met": verdict(line["bytes_per_sample"] <= 80)})
    small = by.get((1_000_000, "SQLite", "power-loss"))
    large = by.get((samples, "SQLite", "power-loss"))
    if small and large and samples > 1_000_000:
        ratio = large["per_second"] / small["per_second"]
        rows.append({"figure": f"ingest at {samples:,} against 1,000,000 (SQLite, power-loss)",
                     "healthd": rate(large["per_second"]), "peer": f"1M: {rate(small['per_second'])}",
                     "ratio": f"{ratio:.2f}×", "target": "≥ 0.80×", "met": verdict(ratio >= 0.8)})
    return rows


def sync_rows(sync):
    store = "PostgreSQL" if sync["engine"] == "postgres" else "SQLite"
    s = sync["sync"]
    rows = [{"figure": f"anchored sync {sync['samples']:,}, {store}", "healthd": rate(s["per_second"]),
             "peer": f"client decode {rate(s['client_decode_per_second'])}",
             "ratio": f"{s['per_second'] / s['client_decode_per_second']:.2f}×",
             "target": "≥ 500,000/s", "met": verdict(s["per_second"] >= 500_000)}]
    if "export" in sync:
        e, i = sync["export"], sync["import"]
        rows.append({"figure": f"healthctl export, {store}", "healthd": rate(e["per_second"]), "peer": f"sync {rate(s['per_second'])}",
                     "ratio": f"{100 * e['share_of_sync']:.0f} %", "target": "≥ 80 % of sync", "met": verdict(e["share_of_sync"] >= 0.8)})
        if "raw_write_per_second" in e:
            rows.append({"figure": f"healthctl export against its bytes written alone (dd, direct), {store}",
                         "healthd": rate(e["per_second"]), "peer": f"raw write {rate(e['raw_write_per_second'])}",
                         "ratio": f"{100 * e['share_of_raw_write']:.0f} %", "target": "— (the export's raw limit)", "met": "—"})
        rows += [
            {"figure": f"healthctl import, {store}", "healthd": rate(i["per_second"]),
             "peer": f"ingest {rate(sync['ingest']['per_second'])}", "ratio": f"{100 * i['share_of_ingest']:.0f} %",
             "target": "≥ 80 % of ingest", "met": verdict(i["share_of_ingest"] >= 0.8)},
            {"figure": f"peak RSS export / import, {store}",
             "healthd": f"{e['healthctl_peak_rss_kib'] // 1024} / {i['healthctl_peak_rss_kib'] // 1024} MiB",
             "peer": "—", "ratio": "—", "target": "bounded", "met": "one size: compare runs"},
        ]
    return rows


LOAD_COLUMNS = ["devices", "schedule", "generated", "acknowledged", "per_second", "p50", "p99", "rejected",
                "cpu_per_call_us", "sys_percent", "peak_mb", "kib_per_conn", "generator_us_per_call"]


# What the report could not read from a step's output: printed after the table, and the exit status is 1.
PROBLEMS = []


def load_rows(text):
    # Columns after these (commits, jobs a commit, …) are run.sh's later additions: a step line is
    # known by its first cells, so a table that grows keeps its rows here.
    runs = {}
    for line in text.splitlines():
        cells = line.split()
        if len(cells) >= len(LOAD_COLUMNS) and cells[0].isdigit() and cells[1] in ("spread", "burst"):
            runs[cells[1]] = dict(zip(LOAD_COLUMNS, cells))
    if not runs:
        PROBLEMS.append("no step line in bench/load/run.sh's output (has its table changed?)")
    rows = []
    spread = runs.get("spread")
    if spread:
        cpu = float(spread["cpu_per_call_us"])
        rows.append({"figure": "server CPU per single-sample save, 10,000 devices spread", "healthd": f"{cpu:.1f} µs",
                     "peer": "—", "ratio": "—", "target": "≤ 25 µs", "met": verdict(cpu <= 25)})
    for schedule, run in runs.items():
        ack, generated = int(run["acknowledged"]), int(run["generated"])
        p99, kib = float(run["p99"]), float(run["kib_per_conn"])
        rows += [
            {"figure": f"10,000 devices × 1/s {schedule}: acknowledged", "healthd": f"{ack:,}",
             "peer": f"generated {generated:,}", "ratio": f"{100 * ack / max(1, generated):.1f} %",
             "target": "all", "met": verdict(ack == generated)},
            {"figure": f"10,000 devices × 1/s {schedule}: p99 save latency", "healthd": f"{p99:,.1f} ms",
             "peer": "—", "ratio": "—", "target": "< 50 ms", "met": verdict(p99 < 50)},
            {"figure": f"10,000 devices × 1/s {schedule}: server RSS per connection", "healthd": f"{kib:.1f} KiB",
             "peer": "—", "ratio": "—", "target": "< 25 KiB", "met": verdict(kib < 25)},
        ]
    return rows


STATS = [("daily steps, 1 year, merged", "merged daily steps over a year", 1.5),
         ("hourly HR average, 1 year", "hourly heart-rate average over a year", 1.0)]


def stats_rows(text):
    totals, current = {}, None
    for line in text.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if line.startswith("SQL GROUP BY (samples_by_source)") and current:
            totals[(current, "samples_by_source")] = cells[5]
        elif line.startswith("SQL GROUP BY (primary key)") and current:
            totals[(current, "the primary key")] = cells[5]
        elif len(cells) >= 6:
            current = cells[0]
            totals[(current, "server")] = cells[5]
    rows = []
    for access, targeted in (("samples_by_source", True), ("the primary key", False)):
        line = next((l for l in text.splitlines() if l.startswith(f"server / GROUP BY through {access}")), "")
        for name, figure, target in STATS:
            match = re.search(re.escape(name) + r" ([\d.]+)x \(repeats ([\d.]+)–([\d.]+)x\)", line)
            if not match:
                continue
            median, low, high = match.groups()
            rows.append({"figure": f"{figure}, against GROUP BY through {access}",
                         "healthd": f"{totals.get((name, 'server'), '?')} ms",
                         "peer": f"GROUP BY {totals.get((name, access), '?')} ms", "ratio": f"{median}× ({low}–{high})",
                         "target": f"≤ {target}×" if targeted else "— (the issue's baseline: the row above)",
                         "met": verdict(float(median) <= target) if targeted else "—"})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", required=True)
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--samples", type=int, required=True)
    parser.add_argument("--commit", required=True)
    parser.add_argument("--started", required=True)
    parser.add_argument("--cores", type=int, required=True)
    parser.add_argument("--memory-gib", type=int, required=True)
    parser.add_argument("--load", nargs=2, type=float, required=True, help="at the start and at the end")
    args = parser.parse_args()

    rows = []
    peer = load_json(args.results, "peer")
    if peer:
        rows += peer_rows(peer, args.samples)
    for engine in ("sqlite", "postgres"):
        sync = load_json(args.results, f"sync-{engine}")
        if sync:
            rows += sync_rows(sync)
    if os.path.exists(os.path.join(args.results, "load")):
        rows += load_rows(open(os.path.join(args.results, "load")).read())
    if os.path.exists(os.path.join(args.results, "stats")):
        statistics = stats_rows(open(os.path.join(args.results, "stats")).read())
        if not statistics:
            PROBLEMS.append("no figure in bench/stats.sh's output (has its table changed?)")
        rows += statistics
    loads = [float(x) for x in open(os.path.join(args.results, "loads"))] if os.path.exists(
        os.path.join(args.results, "loads")) else []
    machine = {"commit": args.commit, "started": args.started, "samples": args.samples, "cores": args.cores,
               "memory_gib": args.memory_gib, "load_start": args.load[0], "load_end": args.load[1],
               "load_min": min(loads, default=None), "load_max": max(loads, default=None)}
    if args.format == "json":
        print(json.dumps({"machine": machine, "rows": rows}))
    else:
        print_table(args, machine, rows, loads)
    for problem in PROBLEMS:
        print(f"report: {problem}", file=sys.stderr)
    sys.exit(1 if PROBLEMS else 0)


def print_table(args, machine, rows, loads):
    load_range = f", 1-minute load {machine['load_min']}–{machine['load_max']} during the run" if loads else ""
    print(f"bench/all.sh at {args.samples:,} samples, commit {args.commit}, started {args.started}: "
          f"{args.cores} cores, {args.memory_gib} GiB{load_range}")
    header = ["figure", "healthd", "peer / raw limit", "ratio", "target", "met?"]
    keys = ["figure", "healthd", "peer", "ratio", "target", "met"]
    print("| " + " | ".join(header) + " |")
    print("|---|---:|---:|---:|---|---|")
    for row in rows:
        print("| " + " | ".join(row[k] for k in keys) + " |")


if __name__ == "__main__":
    main()
