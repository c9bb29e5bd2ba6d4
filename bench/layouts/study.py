"""The peer benchmark's stream at the SQLite level in four layouts: what a stored sample costs SQLite
in today's rows, and in samples packed into blocks per (type, device) with three ways to keep UUIDs
unique. Each batch's rows are staged in a temporary table before the clock starts and inserted with one
INSERT … SELECT, so the figures are SQLite's work alone (no Python binding); building the blocks' and
runs' bytes is not timed either (healthd would build them in Swift while decoding).

usage: study.py SAMPLES LAYOUT [SYNCHRONOUS]   (LAYOUT: rows | blocks | blocks-runs | blocks-only)"""
import heapq, os, random, sqlite3, struct, sys, tempfile, time

BATCH, TYPES, DEVICES = 5000, 8, 20
RECENT_CAP = 262_144   # UUID level rows before the recent level moves to the merged one
RUN_FANOUT = 8          # UUID runs of one level merged into one run of the next
RUN_CHUNK = 4096        # entries a run row holds
ENTRY = 20              # a run entry: the UUID's first 8 bytes, type (4), anchor (8), big-endian

ROWS_SCHEMA = """
CREATE TABLE samples (owner INTEGER NOT NULL, type INTEGER NOT NULL, anchor INTEGER NOT NULL, uuid BLOB NOT NULL,
  start_time INTEGER NOT NULL, duration INTEGER NOT NULL DEFAULT 0, created_offset INTEGER NOT NULL DEFAULT 0,
  value REAL, unit TEXT, raw_value REAL, count INTEGER, category INTEGER, source INTEGER NOT NULL,
  revision INTEGER NOT NULL, device INTEGER, flags INTEGER NOT NULL DEFAULT 0, sync_id TEXT, sync_version INTEGER,
  parent INTEGER, metadata BLOB, PRIMARY KEY (owner, type, anchor)) WITHOUT ROWID;
CREATE INDEX samples_by_source ON samples(owner, type, source, start_time);"""
BLOCKS_SCHEMA = """
CREATE TABLE sample_blocks (owner INTEGER NOT NULL, type INTEGER NOT NULL, anchor INTEGER NOT NULL,
  count INTEGER NOT NULL, source INTEGER NOT NULL, revision INTEGER NOT NULL, device INTEGER,
  start_min INTEGER NOT NULL, start_max INTEGER NOT NULL, end_max INTEGER NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY (owner, type, anchor)) WITHOUT ROWID;
CREATE INDEX blocks_by_source ON sample_blocks(owner, type, source, start_min);"""
LEVELS_SCHEMA = """
CREATE TABLE uuids_recent (head BLOB NOT NULL, owner INTEGER NOT NULL, type INTEGER NOT NULL, anchor INTEGER NOT NULL,
  PRIMARY KEY (head, owner, type, anchor)) WITHOUT ROWID;
CREATE TABLE uuids_merged (head BLOB NOT NULL, owner INTEGER NOT NULL, type INTEGER NOT NULL, anchor INTEGER NOT NULL,
  PRIMARY KEY (head, owner, type, anchor)) WITHOUT ROWID;"""
RUNS_SCHEMA = """
CREATE TABLE uuid_runs (level INTEGER NOT NULL, run INTEGER NOT NULL, first BLOB NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY (level, run, first)) WITHOUT ROWID;"""
SCHEMAS = {"rows": ROWS_SCHEMA + LEVELS_SCHEMA, "blocks": BLOCKS_SCHEMA + LEVELS_SCHEMA,
           "blocks-runs": BLOCKS_SCHEMA + RUNS_SCHEMA, "blocks-only": BLOCKS_SCHEMA}


def varint(value, out):
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def stream(samples, seed=7):
    """Batches of the peer stream: each a writer's 5,000 samples, one a device and type each second."""
    rng, anchor, t0 = random.Random(seed), 0, 1_700_000_000_000_000
    for b in range(samples // BATCH):
        batch = []
        for i in range(BATCH):
            kind, device = i % TYPES + 1, (i // TYPES) % DEVICES + 1
            start = t0 + (b * 31 + i // (TYPES * DEVICES)) * 1_000_000 + rng.randrange(1000)
            value = float(rng.randrange(40, 180)) if kind != 4 else round(rng.uniform(0, 5), 3)
            anchor += 1
            batch.append((kind, device, anchor, rng.getrandbits(128).to_bytes(16, "little"), start, value))
        yield batch


def staged(layout, batch):
    """The batch as the layout stores it: (rows or blocks, UUID rows or one sorted run)."""
    if layout == "rows":
        rows = [(1, k, a, u, s, 0, 0, v, None, None, None, None, 1, 1, d, 0, None, None, None, None) for k, d, a, u, s, v in batch]
        return rows, [(u[:8], 1, k, a) for k, d, a, u, s, v in batch]
    runs = {}
    for sample in batch:
        runs.setdefault(sample[:2], []).append(sample)
    blocks = []
    for (kind, device), run in runs.items():
        data = bytearray(b"".join(u for _, _, _, u, _, _ in run))
        for column in (4, 2):   # starts and anchors as deltas from the run's first
            previous = run[0][column]
            for sample in run:
                varint(sample[column] - previous, data)
                previous = sample[column]
        data += b"".join(struct.pack("<d", v) for *_, v in run)
        starts = [s for _, _, _, _, s, _ in run]
        blocks.append((1, kind, run[0][2], len(run), 1, 1, device, min(starts), max(starts), max(starts), bytes(data)))
    if layout == "blocks-runs":
        return blocks, [(b"".join(sorted(u[:8] + struct.pack(">IQ", k, a) for k, d, a, u, s, v in batch)), 0, 0, 0)]
    return blocks, [(u[:8], 1, k, a) for k, d, a, u, s, v in batch] if layout == "blocks" else []


def merge_runs(db, level, run_id):
    """Merges a level's runs into one run of the next level once it holds RUN_FANOUT (LSM-style);
    returns the seconds spent sorting in Python, which Swift would spend in a merge of sorted arrays."""
    sorting = 0.0
    while db.execute("SELECT count(DISTINCT run) FROM uuid_runs WHERE level = ?", (level,)).fetchone()[0] >= RUN_FANOUT:
        runs = [[] for _ in range(RUN_FANOUT)]
        began = time.process_time()
        blobs = db.execute("SELECT run, data FROM uuid_runs WHERE level = ? ORDER BY run, first", (level,)).fetchall()
        merged = b"".join(heapq.merge(*[[b[i:i + ENTRY] for i in range(0, len(b), ENTRY)] for _, b in blobs]))
        sorting += time.process_time() - began
        db.execute("DELETE FROM uuid_runs WHERE level = ?", (level,))
        step = RUN_CHUNK * ENTRY
        db.executemany("INSERT INTO uuid_runs VALUES (?, ?, ?, ?)",
                       [(level + 1, run_id, merged[i:i + 8], merged[i:i + step]) for i in range(0, len(merged), step)])
        level += 1
    return sorting


def main():
    samples, layout = int(sys.argv[1]), sys.argv[2]
    synchronous = sys.argv[3] if len(sys.argv) > 3 else "FULL"
    directory = tempfile.mkdtemp(prefix="layout-study-")
    path = os.path.join(directory, "store.sqlite")
    db = sqlite3.connect(path, isolation_level=None)
    for pragma in ("page_size=8192", "journal_mode=WAL", f"synchronous={synchronous}", "wal_autocheckpoint=8000",
                   "cache_size=-524288", "temp_store=MEMORY"):
        db.execute("PRAGMA " + pragma)   # healthd's writer's settings
    db.executescript(SCHEMAS[layout])
    width = 20 if layout == "rows" else 11
    db.execute(f"CREATE TEMP TABLE stage_rows ({', '.join(f'c{i}' for i in range(width))})")
    db.execute("CREATE TEMP TABLE stage_uuids (c0, c1, c2, c3)")
    bounds, rows_at, uuids_at = [], 0, 0
    db.execute("BEGIN")
    for batch in stream(samples):
        rows, uuids = staged(layout, batch)
        db.executemany(f"INSERT INTO stage_rows VALUES ({', '.join('?' * width)})", rows)
        db.executemany("INSERT INTO stage_uuids VALUES (?, ?, ?, ?)", uuids)
        bounds.append((rows_at + 1, rows_at + len(rows), uuids_at + 1, uuids_at + len(uuids)))
        rows_at, uuids_at = rows_at + len(rows), uuids_at + len(uuids)
    db.execute("COMMIT")

    table = "samples" if layout == "rows" else "sample_blocks"
    recent, sorting = 0, 0.0
    wall, cpu = time.perf_counter(), time.process_time()
    for index, (r0, r1, u0, u1) in enumerate(bounds):
        db.execute("BEGIN IMMEDIATE")
        if layout == "blocks-runs":
            db.execute("INSERT INTO uuid_runs SELECT 0, ?1, substr(c0, 1, 8), c0 FROM stage_uuids WHERE rowid = ?1", (u0,))
        elif layout != "blocks-only":
            db.execute("INSERT INTO uuids_recent SELECT * FROM stage_uuids WHERE rowid BETWEEN ? AND ?", (u0, u1))
            recent += u1 - u0 + 1
        db.execute(f"INSERT INTO {table} SELECT * FROM stage_rows WHERE rowid BETWEEN ? AND ?", (r0, r1))
        if layout == "blocks-runs":
            sorting += merge_runs(db, 0, u0)
        elif recent >= RECENT_CAP:
            db.execute("INSERT INTO uuids_merged SELECT * FROM uuids_recent ORDER BY 1, 2, 3, 4")
            db.execute("DELETE FROM uuids_recent")
            recent = 0
        db.execute("COMMIT")
    wall, cpu = time.perf_counter() - wall - sorting, time.process_time() - cpu - sorting
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    size = os.path.getsize(path)
    print(f"{layout:<12} {synchronous:<7} {samples:>9} {samples / wall:>11.0f} {cpu / samples * 1e6:>11.2f} {size / samples:>12.1f}")
    for name in os.listdir(directory):
        os.remove(os.path.join(directory, name))
    os.rmdir(directory)


if __name__ == "__main__":
    main()
