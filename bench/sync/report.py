"""Formats bench/sync.sh's raw figures (KEY=VALUE arguments: seconds, CPU-seconds, KiB, counts) as
its table or as one JSON object of rates and shares."""

import argparse
import json


def per(count, seconds):
    return count / seconds if seconds > 0 else None


def figures(raw):
    n = int(raw["samples"])
    postgres = raw["engine"] == "postgres"
    ingest_rate = per(n, float(raw["fill_seconds"]))
    result = {
        "engine": raw["engine"], "samples": n, "config": raw["config"], "cores": int(raw["cores"]),
        "load": [float(raw["load_start"]), float(raw["load_end"])],
        "durability": "PostgreSQL fsync on, synchronous_commit on" if postgres else "SQLite power-loss (fsync every commit)",
        "ingest": {"per_second": ingest_rate, "healthd_per_cpu_second": per(n, float(raw["fill_healthd_cpu"]))},
    }
    synced = int(raw["sync_samples"])
    sync_rate = per(synced, float(raw["sync_seconds"]))
    result["sync"] = {
        "samples": synced, "per_second": sync_rate,
        "client_decode_per_second": float(raw["sync_client_decode_per_second"]),
        "healthd_per_cpu_second": per(synced, float(raw["sync_healthd_cpu"])),
        "frames": int(raw["sync_frames"]), "bytes_per_sample": int(raw["sync_bytes"]) / max(1, synced),
        "healthd_peak_rss_kib": int(raw["sync_healthd_rss_kib"]),
    }
    if "export_lines" in raw:
        lines = int(raw["export_lines"])
        export_rate = per(lines, float(raw["export_seconds"]))
        result["export"] = {
            "lines": lines, "per_second": export_rate, "share_of_sync": export_rate / sync_rate,
            "healthctl_per_cpu_second": per(lines, float(raw["export_ctl_cpu"])),
            "healthd_per_cpu_second": per(lines, float(raw["export_healthd_cpu"])),
            "healthctl_peak_rss_kib": int(raw["export_rss_kib"]), "bytes_per_line": int(raw["export_bytes"]) / max(1, lines),
        }
        if "export_raw_write_seconds" in raw:
            raw_rate = per(lines, float(raw["export_raw_write_seconds"]))
            result["export"].update({"raw_write_per_second": raw_rate, "share_of_raw_write": export_rate / raw_rate})
        import_rate = per(lines, float(raw["import_seconds"]))
        result["import"] = {
            "stored": int(raw["import_stored"]), "per_second": import_rate, "share_of_ingest": import_rate / ingest_rate,
            "healthctl_per_cpu_second": per(lines, float(raw["import_ctl_cpu"])),
            "healthd_per_cpu_second": per(lines, float(raw["import_healthd_cpu"])),
            "healthctl_peak_rss_kib": int(raw["import_rss_kib"]),
            "healthd_peak_rss_kib": int(raw["import_healthd_rss_kib"]),
        }
    if postgres:
        for part, prefix in (("ingest", "fill"), ("sync", "sync"), ("export", "export"), ("import", "import")):
            if part in result:
                count = n if part == "ingest" else synced if part == "sync" else result["export"]["lines"]
                result[part]["postgres_per_cpu_second"] = per(count, float(raw[f"{prefix}_store_cpu"]))
    return result


def rate(value):
    return "-" if value is None else f"{value:,.0f}"


def table(f):
    def cpu(part, unit="samples"):
        text = f"healthd {rate(part['healthd_per_cpu_second'])} {unit}/CPU-s"
        if "postgres_per_cpu_second" in part:
            text += f", PostgreSQL {rate(part['postgres_per_cpu_second'])}/CPU-s"
        return text

    out = [f"read throughput: {f['samples']} samples (8 types, 20 devices), {f['config']} healthd on {f['durability']}, "
           f"{f['cores']} cores, load {f['load'][0]} → {f['load'][1]}",
           f"{'measurement':42s} {'samples/s':>11s}  beside it"]
    row = "{:42s} {:>11s}  {}".format
    out.append(row("ingest (4 writers × 5,000, pre-encoded)", rate(f["ingest"]["per_second"]), cpu(f["ingest"])))
    s = f["sync"]
    out.append(row("anchored sync, all 8 types, no anchor", rate(s["per_second"]),
                   f"client decodes the same bytes at {rate(s['client_decode_per_second'])}/s; {cpu(s)}; {s['frames']} frames, "
                   f"{s['bytes_per_sample']:.0f} B/sample; healthd peak RSS {s['healthd_peak_rss_kib'] // 1024} MiB"))
    if "export" in f:
        e, i = f["export"], f["import"]
        out.append(row(f"healthctl export ({e['lines']} lines)", rate(e["per_second"]),
                       f"{100 * e['share_of_sync']:.0f} % of the sync; healthctl {rate(e['healthctl_per_cpu_second'])} lines/CPU-s, "
                       f"{cpu(e)}; peak RSS {e['healthctl_peak_rss_kib'] // 1024} MiB; {e['bytes_per_line']:.0f} B/line"))
        if "raw_write_per_second" in e:
            out.append(row("  its bytes written alone (dd, direct)", rate(e["raw_write_per_second"]),
                           f"lines/s: the export at {100 * e['share_of_raw_write']:.0f} % of this disk's raw write"))
        out.append(row(f"healthctl import ({i['stored']} stored)", rate(i["per_second"]),
                       f"{100 * i['share_of_ingest']:.0f} % of ingest; healthctl {rate(i['healthctl_per_cpu_second'])} lines/CPU-s, "
                       f"{cpu(i)}; peak RSS {i['healthctl_peak_rss_kib'] // 1024} MiB; "
                       f"healthd peak RSS {i['healthd_peak_rss_kib'] // 1024} MiB"))
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("figures", nargs="+", help="KEY=VALUE")
    args = parser.parse_args()
    result = figures(dict(item.split("=", 1) for item in args.figures))
    print(json.dumps(result) if args.format == "json" else table(result))


if __name__ == "__main__":
    main()
