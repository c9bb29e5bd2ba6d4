#!/usr/bin/env bash
# Apple Health import speed: a generated export (bench/apple-import/generate.py, DAYS days of a heavy
# watch user; 365 ≈ 130 MB) read three ways (libxml2's reader, Foundation's XMLParser, the importer's
# mapping without a server), then `healthctl import-apple-health` into a fresh healthd beside
# healthkit-to-sqlite 1.0.1 (PyPI), which only flattens rows into SQLite, on the same zip.
# usage: bench/apple-import/run.sh [DAYS]
# EXPORT_DIR=DIR reads an export generate.py wrote before (with --zip) instead of generating one;
# SKIP_PEER=1 leaves healthkit-to-sqlite out (it takes minutes per 100 MB); BATCH=N passes --batch N.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
days="${1:-365}"
source "$root/scripts/toolchain.sh"
cd "$root"
swift build -c release --product healthd >/dev/null
swift build -c release --product healthctl >/dev/null
swift build -c release --product apple-import-bench >/dev/null
bin="$(swift build -c release --show-bin-path)"

work="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
gen="${EXPORT_DIR:-$work/gen}"
[ -n "${EXPORT_DIR:-}" ] || python3 bench/apple-import/generate.py "$gen" --days "$days" --zip
xml="$gen/apple_health_export/export.xml"
zip="$gen/export.zip"
records=$(grep -c '<Record[ >]' "$xml" || true)
echo "export: ${EXPORT_DIR:-$days days}, $(du -m "$xml" | cut -f1) MB export.xml, $(du -m "$zip" | cut -f1) MB zip, $records Record elements"

# XMLParser crashes on the Health app's inline DTD (docs/architecture.md), so both parsers also read a copy without it.
python3 - "$xml" "$work/nodtd.xml" <<'PY'
import sys
with open(sys.argv[1]) as src, open(sys.argv[2], "w") as out:
    inside = False
    for line in src:
        if line.startswith("<!DOCTYPE"): inside = True
        if not inside: out.write(line)
        if inside and line.startswith("]>"): inside = False
PY
echo
printf "%-32s %10s %8s %8s %10s\n" "reader" "elements" "seconds" "MB/s" "peak MB"
row() { printf "%-32s %10s %8s %8s %10s\n" "$1" "$3" "$4" "$5" "$6"; }
row "libxml2 xmlTextReader" $("$bin/apple-import-bench" libxml2 "$work/nodtd.xml")
row "Foundation XMLParser" $("$bin/apple-import-bench" xmlparser "$work/nodtd.xml" 2>/dev/null || echo "xmlparser - crashed - - -")
row "XMLParser, with the DTD" $("$bin/apple-import-bench" xmlparser "$xml" 2>/dev/null || echo "xmlparser - crashed - - -")
row "importer mapping (no server)" $("$bin/apple-import-bench" export "$xml")

"$bin/healthd" --listen none --unix "$work/s.sock" --data "$work/data" >"$work/healthd.log" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "ready" "$work/healthd.log" 2>/dev/null && break; sleep 0.1; done
# CPU-seconds (user + system) of healthd so far, from /proc: the machine is shared, so wall clock alone says little.
healthd_cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.1f", ($14 + $15) / hz}' "/proc/$pid/stat"; }
batch=(${BATCH:+--batch "$BATCH"})
cpu0=$(healthd_cpu)
start=$(date +%s.%N)
/usr/bin/time -f "%U %S" -o "$work/ours.cpu" "$bin/healthctl" --unix "$work/s.sock" --token-file "$work/data/owner.token" \
  import-apple-health "$zip" "${batch[@]}" --format json >"$work/ours.json" 2>"$work/ours.err" || true
ours_s=$(echo "$(date +%s.%N) - $start" | bc)
cpu1=$(healthd_cpu)
again_start=$(date +%s.%N)
/usr/bin/time -f "%U %S" -o "$work/again.cpu" "$bin/healthctl" --unix "$work/s.sock" --token-file "$work/data/owner.token" \
  import-apple-health "$zip" "${batch[@]}" --format json >"$work/again.json" 2>/dev/null || true
again_s=$(echo "$(date +%s.%N) - $again_start" | bc)
cpu2=$(healthd_cpu)
ours_ctl=$(awk '{print $1 + $2}' "$work/ours.cpu"); ours_healthd=$(echo "$cpu1 - $cpu0" | bc)
again_ctl=$(awk '{print $1 + $2}' "$work/again.cpu"); again_healthd=$(echo "$cpu2 - $cpu1" | bc)
echo
echo "CPU-seconds (user + system): first import healthctl $ours_ctl, healthd $ours_healthd;" \
  "again healthctl $again_ctl, healthd $again_healthd${BATCH:+ (--batch $BATCH)}"

[ -n "${SKIP_PEER:-}" ] || python3 -m pip install -q "healthkit-to-sqlite==1.0.1" >/dev/null 2>&1 || true
start=$(date +%s.%N)
if [ -z "${SKIP_PEER:-}" ] && command -v healthkit-to-sqlite >/dev/null; then
  /usr/bin/time -f "%M %U %S" -o "$work/peer.rss" healthkit-to-sqlite "$zip" "$work/peer.db" --silent
  peer_s=$(echo "$(date +%s.%N) - $start" | bc)
  peer_rows=$(python3 - "$work/peer.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
tables = [t for (t,) in db.execute("select name from sqlite_master where type='table'") if t.startswith("r")]
print(sum(db.execute(f"select count(*) from [{t}]").fetchone()[0] for t in tables))
PY
)
  peer_rss=$(( $(awk '{print $1}' "$work/peer.rss") / 1024 ))
  peer_cpu=$(awk '{print $2 + $3}' "$work/peer.rss")
else
  peer_s=""; peer_rows=""; peer_rss=""; peer_cpu=""
fi

python3 - "$work/ours.json" "$work/again.json" "$ours_s" "$again_s" "$records" "$peer_s" "$peer_rows" "$peer_rss" \
  "$ours_ctl" "$ours_healthd" "$again_ctl" "$again_healthd" "$peer_cpu" <<'PY'
import json, sys
ours, again = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ours_s, again_s, records = float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
ctl, healthd, again_ctl, again_healthd = (float(v) for v in sys.argv[9:13])
def total(r, k): return sum(t.get(k, 0) for t in r["types"].values())
samples = total(ours, "stored")
print()
print(f"µs of CPU per sample ({samples} samples): first import healthctl {1e6 * ctl / samples:.1f}, healthd {1e6 * healthd / samples:.1f}; "
      f"again healthctl {1e6 * again_ctl / samples:.1f}, healthd {1e6 * again_healthd / samples:.1f}")
print()
print(f"{'importer':40} {'records/s':>10} {'seconds':>8} {'peak MB':>8}  notes")
print(f"{'healthctl import-apple-health':40} {records / ours_s:10.0f} {ours_s:8.1f} {ours['peak_rss_bytes'] / 2**20:8.1f}  "
      f"stored {total(ours, 'stored')}, typed, validated, sources and devices kept, durable")
print(f"{'  the same export again':40} {records / again_s:10.0f} {again_s:8.1f} {again['peak_rss_bytes'] / 2**20:8.1f}  "
      f"stored {total(again, 'stored')}, already present {total(again, 'already_present')}")
if sys.argv[6]:
    peer_s = float(sys.argv[6])
    print(f"{'healthkit-to-sqlite 1.0.1':40} {records / peer_s:10.0f} {peer_s:8.1f} {sys.argv[8]:>8}  "
          f"{sys.argv[7]} rows, untyped, no validation, no provenance, no idempotency")
    print(f"\nratio (ours / healthkit-to-sqlite): {peer_s / ours_s:.2f}x")
    # On a shared machine wall clock follows the other load; CPU-seconds (ours: both processes) follow the work.
    peer_cpu = float(sys.argv[13])
    print(f"records per CPU-second: ours {records / (ctl + healthd):.0f}, healthkit-to-sqlite {records / peer_cpu:.0f} "
          f"({peer_cpu:.1f} CPU-s); ratio {peer_cpu / (ctl + healthd):.2f}x")
PY
