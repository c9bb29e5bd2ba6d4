import Foundation
import HealthModel

/// The schema, versioned by `PRAGMA user_version`; `migrate` runs every step above the file's version
/// in one transaction at open. Add a step to `migrations` for every change; never edit a shipped step.
enum Schema {
    /// One step: its SQL and what it does, in one phrase (healthd logs it while the step runs).
    struct Step {
        let summary: String
        let sql: String
        /// For a step that goes through every row of a table: SQL counting those rows, and what the
        /// step does to each. Its SQL calls `hs_migration_row(1)` once a row (`MigrationReporter`).
        var counted: (rows: String, verb: String)?
        /// What the step does in Swift after its SQL, where SQL cannot (packing entries into runs).
        var then: (@Sendable (SQLiteConnection) throws(HealthError) -> Void)?

        init(_ summary: String, _ sql: String, counted: (rows: String, verb: String)? = nil,
             then: (@Sendable (SQLiteConnection) throws(HealthError) -> Void)? = nil) {
            (self.summary, self.sql, self.counted, self.then) = (summary, sql, counted, then)
        }
    }

    /// Step n (1-based) brings the file from version n-1 to n.
    static let migrations: [Step] = [
        Step("creating the schema", version1),
        Step("recording each type's longest sample", version2),
        Step("keeping the anchor a deleted object had", version3),
        Step("sealing anchors with the store's key", version4),
        Step("indexing workout associations by sample", version5),
        Step("keeping a deleted workout's activity type", version6),
        Step("indexing samples and deletions by type and source", version7),
        Step("narrowing sample rows", version8),
        Step("recording imported sources", version9),
        Step("adding series points", version10),
        Step("adding sample details", version11),
        Step("adding discrete quantity series", version12),
        Step("giving each owner its own types, sources, devices and apps", version13),
        Step("adding series builders", version14),
        Step("clustering sample rows by type", version15),
        Step("moving UUIDs to the UUID levels", version16),
        Step("counting the UUID levels' moves", version17),
        Step("dropping the samples' index by time", version18),
        Step("rebuilding the UUID levels from every sample, keyed by the UUID's first 8 bytes", version19,
             counted: ("SELECT count(*) FROM samples", "read and sorted")),
        Step("packing the older UUID levels into a sorted run", version20,
             counted: ("SELECT (SELECT count(*) FROM uuids_middle) + (SELECT count(*) FROM uuids_merged)", "packed"), then: packOldLevels),
    ]

    static var currentVersion: Int { migrations.count }

    /// Brings the file to `target` (tests stop at an earlier step to build a store as an older server
    /// left it), telling `report` how it goes (nothing for a new file, which has nothing to migrate).
    static func migrate(_ db: SQLiteConnection, to target: Int = currentVersion, report: ((MigrationProgress) -> Void)? = nil,
                        interval: Duration = .seconds(5)) throws(HealthError) {
        let statement = try db.prepareOnce("PRAGMA user_version")
        _ = try statement.step()
        let version = Int(statement.int(0))
        // A statement still on its row would keep the schema from being renamed or dropped.
        statement.reset()
        guard version <= currentVersion else {
            throw HealthError(.databaseInaccessible, "store schema version \(version) is newer than this server's \(currentVersion)")
        }
        guard version < target else { return }
        let began = ContinuousClock.now
        let reporter = MigrationReporter(report: version == 0 ? nil : report, interval: interval)
        try reporter.attached(to: db) { () throws(HealthError) in
            try db.execute("BEGIN IMMEDIATE")
            do throws(HealthError) {
                reporter.began(from: version, to: target)
                for (index, step) in migrations[version..<target].enumerated() {
                    reporter.stepBegan(version + index + 1, summary: step.summary, verb: step.counted?.verb)
                    if let rows = step.counted?.rows { reporter.total = try count(rows, db) }
                    try db.execute(step.sql)
                    try step.then?(db)
                    reporter.stepEnded()
                }
                try db.execute("PRAGMA user_version = \(target)")
                try db.execute("COMMIT")
            } catch {
                try? db.execute("ROLLBACK")
                throw error
            }
        }
        reporter.ended(to: target, after: began)
    }

    private static func count(_ sql: String, _ db: SQLiteConnection) throws(HealthError) -> Int {
        let statement = try db.prepareOnce(sql)
        _ = try statement.step()
        return Int(statement.int(0))
    }

    /// The middle and merged UUID levels, B-trees of an entry a sample inserted at random, become sorted
    /// runs of packed entries (`UUIDLevels`, bench/history/2026-12-03-uuidruns.md): the directory of
    /// runs and their rows, keyed so one seek finds the row of a run that may hold a head. The recent
    /// level stays. `packOldLevels` then packs both old levels into one run, of the level its size
    /// belongs to, and drops them; the moves' count goes (runs merge by level, not by slice).
    private static let version20 = """
    DROP VIEW sample_uuids;
    CREATE TABLE uuid_run_dir (run INTEGER PRIMARY KEY, level INTEGER NOT NULL, entries INTEGER NOT NULL,
                               merge_into INTEGER, cursor BLOB);
    CREATE TABLE uuid_runs (id INTEGER PRIMARY KEY AUTOINCREMENT, run INTEGER NOT NULL, first_head BLOB NOT NULL, data BLOB NOT NULL);
    CREATE UNIQUE INDEX uuid_runs_by_head ON uuid_runs (run, first_head);
    ALTER TABLE store_info DROP COLUMN uuid_level_moves;
    """

    /// Step 20's packing: both old levels, in key order, counted as they are read.
    private static func packOldLevels(_ db: SQLiteConnection) throws(HealthError) {
        try UUIDLevels.writeRun(db, level: nil, from: """
            SELECT head, owner, type, anchor FROM (SELECT * FROM uuids_middle UNION ALL SELECT * FROM uuids_merged)
            WHERE hs_migration_row(1) ORDER BY 1, 2, 3, 4
            """)
        try db.execute("DROP TABLE uuids_middle; DROP TABLE uuids_merged")
    }

    /// The UUID levels keep a UUID's first 8 bytes instead of all 16, keyed by (head, owner, type,
    /// anchor): the sample's row holds the whole UUID, which the claim and every lookup check
    /// (`UUIDLevels`): a level record 8 bytes shorter, the levels 9 bytes less a sample with their
    /// page fill (bench/history 2026-12-03-narrowuuid). Rebuilt from `samples`, whose UUIDs are exactly what the old levels
    /// held: a delete took its sample's UUID out of them (`forgetUUID`), so a deleted sample's UUID
    /// was free to save again before this step and stays so after it. Every row goes to the merged
    /// level, in key order, as at step 16. Each sample is counted as it is read into SQLite's sorter, for
    /// the progress report (`MigrationReporter`); the writing that follows is not counted: counting it
    /// after the sort takes a subquery with a LIMIT, which makes SQLite sort in a B-tree instead of its
    /// sorter (3x the CPU at 2M rows), or a trigger (+16 %). Only the count was added after the step
    /// shipped: the levels it builds are the same.
    private static let version19 = """
    DROP VIEW sample_uuids;
    DROP TABLE uuids_recent;
    DROP TABLE uuids_middle;
    DROP TABLE uuids_merged;
    CREATE TABLE uuids_recent (head BLOB NOT NULL, owner INTEGER NOT NULL, type INTEGER NOT NULL, anchor INTEGER NOT NULL,
                               PRIMARY KEY (head, owner, type, anchor)) WITHOUT ROWID;
    CREATE TABLE uuids_middle (head BLOB NOT NULL, owner INTEGER NOT NULL, type INTEGER NOT NULL, anchor INTEGER NOT NULL,
                               PRIMARY KEY (head, owner, type, anchor)) WITHOUT ROWID;
    CREATE TABLE uuids_merged (head BLOB NOT NULL, owner INTEGER NOT NULL, type INTEGER NOT NULL, anchor INTEGER NOT NULL,
                               PRIMARY KEY (head, owner, type, anchor)) WITHOUT ROWID;
    INSERT INTO uuids_merged SELECT substr(uuid, 1, 8), owner, type, anchor FROM samples WHERE hs_migration_row(1) ORDER BY 1, 2, 3, 4;
    CREATE VIEW sample_uuids AS
        SELECT head, owner, type, anchor FROM uuids_recent
        UNION ALL SELECT head, owner, type, anchor FROM uuids_middle
        UNION ALL SELECT head, owner, type, anchor FROM uuids_merged;
    """

    /// `samples_by_time` (owner, type, start) goes: 22 bytes and one B-tree insert a sample. A type's
    /// rows in start order are its few sources' ranges of `samples_by_source` (owner, type, source,
    /// start), each in that order, merged (TypeSources.swift); a date range is one seek a source.
    private static let version18 = """
    DROP INDEX samples_by_time;
    """

    /// How many times the UUID levels moved on (`UUIDLevels.countMoveSQL`), which picks the middle
    /// level's slice each move takes to the merged one.
    private static let version17 = """
    ALTER TABLE store_info ADD COLUMN uuid_level_moves INTEGER NOT NULL DEFAULT 0;
    """

    /// UUIDs leave `samples` for the narrow levels of `UUIDLevels`, each row naming its sample's key:
    /// `samples_by_uuid`, in random order over every UUID, cost each sample of a large store a whole
    /// leaf in the WAL and again at checkpoint. Existing UUIDs go to the merged level, in key order.
    /// Keyed by (uuid, owner), not (owner, uuid): every lookup names both, and a move takes a UUID
    /// range of every owner at once.
    private static let version16 = """
    CREATE TABLE uuids_recent (uuid BLOB NOT NULL, owner INTEGER NOT NULL, type INTEGER NOT NULL, anchor INTEGER NOT NULL,
                               PRIMARY KEY (uuid, owner)) WITHOUT ROWID;
    CREATE TABLE uuids_middle (uuid BLOB NOT NULL, owner INTEGER NOT NULL, type INTEGER NOT NULL, anchor INTEGER NOT NULL,
                               PRIMARY KEY (uuid, owner)) WITHOUT ROWID;
    CREATE TABLE uuids_merged (uuid BLOB NOT NULL, owner INTEGER NOT NULL, type INTEGER NOT NULL, anchor INTEGER NOT NULL,
                               PRIMARY KEY (uuid, owner)) WITHOUT ROWID;
    INSERT INTO uuids_merged SELECT uuid, owner, type, anchor FROM samples ORDER BY uuid, owner;
    DROP INDEX samples_by_uuid;
    CREATE VIEW sample_uuids AS
        SELECT uuid, owner, type, anchor FROM uuids_recent
        UNION ALL SELECT uuid, owner, type, anchor FROM uuids_middle
        UNION ALL SELECT uuid, owner, type, anchor FROM uuids_merged;
    """

    /// Sample rows clustered on (owner, type, anchor) instead of (owner, anchor): each type's changes
    /// are a range of the table itself, so anchored reads of a type need no index and
    /// `samples_by_type` (12 bytes and one index insert a sample) is gone. Inserts still append, at
    /// the end of each type's range. A row found by anchor alone is looked up under each of the
    /// owner's types (a few seeks); every frequent path knows the type. Anchors stay unique per
    /// owner by construction (one counter for samples and tombstones), as before.
    private static let version15 = """
    ALTER TABLE samples RENAME TO samples_by_anchor;
    CREATE TABLE samples (
        owner INTEGER NOT NULL,
        type INTEGER NOT NULL,        -- types.id
        anchor INTEGER NOT NULL,      -- position in the owner's change sequence
        uuid BLOB NOT NULL,
        start_time INTEGER NOT NULL,
        duration INTEGER NOT NULL DEFAULT 0,        -- end − start
        created_offset INTEGER NOT NULL DEFAULT 0,  -- creation − start
        value REAL,                   -- quantity in the type's canonical unit
        unit TEXT,                    -- the client's unit when not canonical
        raw_value REAL,               -- the client's value in that unit (exact round trip)
        count INTEGER,                -- quantity count when not 1
        category INTEGER,
        source INTEGER NOT NULL,      -- sources.id (denormalised from the revision for scope filters)
        revision INTEGER NOT NULL,
        device INTEGER,               -- devices.id; NULL = no device
        flags INTEGER NOT NULL DEFAULT 0,
        sync_id TEXT,
        sync_version INTEGER,
        parent INTEGER,               -- anchor of the correlation holding this sample
        metadata BLOB,
        end_time INTEGER GENERATED ALWAYS AS (start_time + duration) VIRTUAL,
        created INTEGER GENERATED ALWAYS AS (start_time + created_offset) VIRTUAL,
        PRIMARY KEY (owner, type, anchor)
    ) WITHOUT ROWID;
    INSERT INTO samples (owner, type, anchor, uuid, start_time, duration, created_offset, value, unit, raw_value, count, category,
                         source, revision, device, flags, sync_id, sync_version, parent, metadata)
        SELECT owner, type, anchor, uuid, start_time, duration, created_offset, value, unit, raw_value, count, category,
               source, revision, device, flags, sync_id, sync_version, parent, metadata FROM samples_by_anchor;
    DROP TABLE samples_by_anchor;
    CREATE UNIQUE INDEX samples_by_uuid ON samples(owner, uuid);
    CREATE INDEX samples_by_time ON samples(owner, type, start_time);
    CREATE INDEX samples_by_source ON samples(owner, type, source, start_time);
    CREATE INDEX samples_by_sync_id ON samples(owner, sync_id) WHERE sync_id IS NOT NULL;
    CREATE INDEX samples_by_parent ON samples(owner, parent) WHERE parent IS NOT NULL;
    CREATE INDEX samples_by_reading ON samples(owner, type, parent) WHERE parent IS NOT NULL;
    """

    /// Open series builders (InsertSeriesData until FinishSeries or DiscardSeries): whose they are and
    /// what the finished sample will carry. Their points are in `series_chunks` under the builder id,
    /// which becomes the finished sample's UUID, so finishing moves no point.
    private static let version14 = """
    CREATE TABLE series_builders (
        owner INTEGER NOT NULL,
        builder BLOB NOT NULL,        -- the finished sample's UUID
        type INTEGER NOT NULL,        -- types.id
        source INTEGER NOT NULL,      -- sources.id: only this app inserts into, finishes or discards it
        revision INTEGER NOT NULL,    -- revisions.id the finished sample is saved as
        device INTEGER,               -- devices.id
        start_time INTEGER NOT NULL,  -- heartbeat and quantity series: the series start; routes: 0
        created INTEGER NOT NULL,
        PRIMARY KEY (owner, builder)
    ) WITHOUT ROWID;
    """

    /// Every per-owner row keyed by its owner, as on PostgreSQL (where it lets the tables be
    /// distributed by owner; here it keeps one code path): the interned tables get an `owner` column
    /// (each owner keeps the shared rows under the same ids, so stored rows keep their meaning; new ids
    /// are allocated per owner), app ids are unique per owner only, and the anchor counter moves from
    /// `owners` to `anchor_counters`. Tables that referenced the rebuilt ones lose their (never
    /// enforced) REFERENCES clauses.
    private static let version13 = """
    ALTER TABLE types RENAME TO shared_types;
    ALTER TABLE sources RENAME TO shared_sources;
    ALTER TABLE revisions RENAME TO shared_revisions;
    ALTER TABLE devices RENAME TO shared_devices;
    ALTER TABLE apps RENAME TO shared_apps;
    ALTER TABLE tokens RENAME TO shared_tokens;
    DROP INDEX tokens_by_app;
    CREATE TABLE types (
        owner INTEGER NOT NULL,
        id INTEGER NOT NULL,
        identifier TEXT NOT NULL,
        PRIMARY KEY (owner, id),
        UNIQUE (owner, identifier)
    ) WITHOUT ROWID;
    CREATE TABLE sources (
        owner INTEGER NOT NULL,
        id INTEGER NOT NULL,
        bundle_id TEXT NOT NULL,
        PRIMARY KEY (owner, id),
        UNIQUE (owner, bundle_id)
    ) WITHOUT ROWID;
    CREATE TABLE revisions (
        owner INTEGER NOT NULL,
        id INTEGER NOT NULL,
        key BLOB NOT NULL,            -- encoding of every field (NULLs included): the dedup key
        source INTEGER NOT NULL,      -- sources.id of the same owner
        name TEXT NOT NULL,
        version TEXT,
        product_type TEXT,
        os_major INTEGER NOT NULL,
        os_minor INTEGER NOT NULL,
        os_patch INTEGER NOT NULL,
        PRIMARY KEY (owner, id),
        UNIQUE (owner, key)
    ) WITHOUT ROWID;
    CREATE TABLE devices (
        owner INTEGER NOT NULL,
        id INTEGER NOT NULL,
        key BLOB NOT NULL,            -- encoding of all eight optional fields: the dedup key
        name TEXT, manufacturer TEXT, model TEXT, hardware_version TEXT, firmware_version TEXT,
        software_version TEXT, local_identifier TEXT, udi_device_identifier TEXT,
        PRIMARY KEY (owner, id),
        UNIQUE (owner, key)
    ) WITHOUT ROWID;
    CREATE TABLE apps (
        owner INTEGER NOT NULL,
        id INTEGER NOT NULL,          -- unique per owner
        bundle_id TEXT NOT NULL,
        name TEXT NOT NULL,
        created INTEGER NOT NULL,
        revoked INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (owner, bundle_id)
    ) WITHOUT ROWID;
    CREATE TABLE tokens (
        hash BLOB PRIMARY KEY,        -- SHA-256 of the token; the token itself is never stored
        kind INTEGER NOT NULL,        -- 1 app, 2 owner, 3 operator (Role raw values)
        owner INTEGER,
        app INTEGER,                  -- apps.id of the same owner
        created INTEGER NOT NULL
    ) WITHOUT ROWID;
    INSERT INTO types SELECT o.id, t.* FROM owners o CROSS JOIN shared_types t;
    INSERT INTO sources SELECT o.id, t.* FROM owners o CROSS JOIN shared_sources t;
    INSERT INTO revisions SELECT o.id, t.* FROM owners o CROSS JOIN shared_revisions t;
    INSERT INTO devices SELECT o.id, t.* FROM owners o CROSS JOIN shared_devices t;
    INSERT INTO apps (owner, id, bundle_id, name, created, revoked) SELECT owner, id, bundle_id, name, created, revoked FROM shared_apps;
    INSERT INTO tokens (hash, kind, owner, app, created) SELECT hash, kind, owner, app, created FROM shared_tokens;
    DROP TABLE shared_types;
    DROP TABLE shared_sources;
    DROP TABLE shared_revisions;
    DROP TABLE shared_devices;
    DROP TABLE shared_apps;
    DROP TABLE shared_tokens;
    CREATE INDEX revisions_by_source ON revisions(owner, source, id);
    CREATE UNIQUE INDEX apps_by_id ON apps(owner, id);
    CREATE INDEX tokens_by_app ON tokens(owner, app) WHERE app IS NOT NULL;

    CREATE TABLE anchor_counters (
        owner INTEGER PRIMARY KEY,
        last_anchor INTEGER NOT NULL  -- highest anchor committed for this owner
    );
    INSERT INTO anchor_counters SELECT id, last_anchor FROM owners;
    ALTER TABLE owners DROP COLUMN last_anchor;
    ALTER TABLE owners DROP COLUMN purged_anchor;
    """

    /// What a discrete quantity series sample adds to its row (its value is the points' average), in the
    /// row's unit; keyed like `series_chunks` by the sample's UUID.
    private static let version12 = """
    CREATE TABLE discrete_series (
        owner INTEGER NOT NULL,
        uuid BLOB NOT NULL,
        minimum REAL NOT NULL,
        maximum REAL NOT NULL,
        most_recent REAL NOT NULL,
        most_recent_start INTEGER NOT NULL,
        most_recent_end INTEGER NOT NULL,
        PRIMARY KEY (owner, uuid)
    ) WITHOUT ROWID;
    """

    /// The body of an electrocardiogram, audiogram, state of mind or scored assessment (`KindCoding`),
    /// one row per sample flagged `SampleRows.detail`; an ECG's voltages are in `series_chunks` under its UUID.
    private static let version11 = """
    CREATE TABLE sample_details (
        owner INTEGER NOT NULL,
        anchor INTEGER NOT NULL,
        detail BLOB NOT NULL,         -- KindCoding
        PRIMARY KEY (owner, anchor)
    ) WITHOUT ROWID;
    """

    /// Points of series samples (workout routes, heartbeat series), packed up to `SeriesChunks.chunkSize`
    /// to a row; `last_key` is the last point's time (or offset) so appends check order without unpacking.
    private static let version10 = """
    CREATE TABLE series_chunks (
        owner INTEGER NOT NULL,
        series BLOB NOT NULL,         -- the series sample's UUID
        chunk INTEGER NOT NULL,       -- 0, 1, …; every chunk but the last is full
        points INTEGER NOT NULL,
        last_key INTEGER NOT NULL,
        data BLOB NOT NULL,           -- SeriesPacking
        PRIMARY KEY (owner, series, chunk)
    ) WITHOUT ROWID;
    """

    /// Sources an owner's import (SaveObjects with keep_sources) brought into the owner's store, with
    /// the time of that import. Per owner, not on `sources`: the sources table is shared by every
    /// owner of the file, and one owner's import must not mark another owner's app as imported.
    private static let version9 = """
    CREATE TABLE source_imports (
        owner INTEGER NOT NULL,
        source INTEGER NOT NULL,      -- sources.id
        imported INTEGER NOT NULL,    -- time of the first keep_sources save that stored the source's data
        PRIMARY KEY (owner, source)
    ) WITHOUT ROWID;
    """

    /// Narrower sample rows: the unit is stored only when it is not the type's canonical unit (exactly
    /// the rows that keep a `raw_value`), and the end and creation times are stored as offsets from the
    /// start (0 for instantaneous samples, a few bytes for a recent creation) behind virtual columns of
    /// the old names, so every query reads them as before. About 20 of a quantity row's 94 bytes.
    private static let version8 = """
    UPDATE samples SET unit = NULL WHERE raw_value IS NULL;
    ALTER TABLE samples ADD COLUMN duration INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE samples ADD COLUMN created_offset INTEGER NOT NULL DEFAULT 0;
    UPDATE samples SET duration = end_time - start_time, created_offset = created - start_time;
    ALTER TABLE samples DROP COLUMN end_time;
    ALTER TABLE samples DROP COLUMN created;
    ALTER TABLE samples ADD COLUMN end_time INTEGER GENERATED ALWAYS AS (start_time + duration) VIRTUAL;
    ALTER TABLE samples ADD COLUMN created INTEGER GENERATED ALWAYS AS (start_time + created_offset) VIRTUAL;
    """

    /// Every read touches only rows of the types it reads, and of a type the caller may not read only
    /// its own rows, so no query's cost depends on what it may not see: read denial stays invisible in
    /// timing too (docs/semantics.md decision 7). With the primary key appended, `…_by_type` is (owner, type, anchor):
    /// anchored queries seek each type's changes after the anchor instead of walking every type's.
    /// `tombstones_by_source` is likewise (owner, type, source, anchor). Other sources' correlations
    /// are found from their readable readings (`samples_by_reading`, then by anchor or
    /// `tombstones_by_live_anchor`), never by walking every correlation of the type.
    private static let version7 = """
    CREATE INDEX samples_by_source ON samples(owner, type, source, start_time);
    CREATE INDEX samples_by_type ON samples(owner, type);
    CREATE INDEX samples_by_reading ON samples(owner, type, parent) WHERE parent IS NOT NULL;
    CREATE INDEX tombstones_by_source ON tombstones(owner, type, source);
    CREATE INDEX tombstones_by_type ON tombstones(owner, type);
    CREATE INDEX tombstones_by_live_anchor ON tombstones(owner, live_anchor) WHERE live_anchor IS NOT NULL;
    """

    /// A deleted workout's tombstone keeps its activity type, so anchored queries filtered by activity type
    /// report the deletion. Tombstones from before this step have none and match no activity type.
    private static let version6 = """
    ALTER TABLE tombstones ADD COLUMN activity_type INTEGER;
    """

    /// A sync-version replacement moves the old object's workout associations to the new object
    /// (docs/semantics.md §7.3): finding them by sample UUID must not scan every association of the owner.
    private static let version5 = """
    CREATE INDEX workout_samples_by_sample ON workout_samples(owner, sample_uuid);
    """

    /// Anchors are sealed with a secret key of the store (the epoch they carried in clear is no longer
    /// in them; anchors of format 1 are refused as not issued by this store). Purge horizons are kept
    /// per type and source instead of per owner (`owners.purged_anchor` is no longer used), so an
    /// anchor expires only for purged deletions its holder could have been shown (docs/semantics.md decision 7).
    private static let version4 = """
    ALTER TABLE store_info ADD COLUMN anchor_key BLOB;
    UPDATE store_info SET anchor_key = randomblob(32);
    CREATE TABLE purge_horizons (
        owner INTEGER NOT NULL,
        type INTEGER NOT NULL,
        source INTEGER NOT NULL,
        purged_through INTEGER NOT NULL,  -- highest anchor of a purged tombstone of this type and source
        PRIMARY KEY (owner, type, source)
    ) WITHOUT ROWID;
    """

    /// A tombstone keeps the anchor its object had while stored (`live_anchor`): the tombstones of a
    /// correlation's children point at it through `parent`, so a deleted correlation is shown to a
    /// read-restricted app only when one of its readings is readable, as it was while stored
    /// (docs/semantics.md decision 7). Tombstones from before this step have none and count as having no readings.
    private static let version3 = """
    ALTER TABLE tombstones ADD COLUMN live_anchor INTEGER;
    CREATE INDEX tombstones_by_parent ON tombstones(owner, parent) WHERE parent IS NOT NULL;
    """

    /// The longest end − start stored per owner and type: overlap queries (`end >= S`) bound their index
    /// scan with `start >= S − longest`, which for instantaneous data is the range itself instead of the
    /// catalog's 4-day maximum.
    private static let version2 = """
    CREATE TABLE type_extents (
        owner INTEGER NOT NULL,
        type INTEGER NOT NULL,
        max_duration INTEGER NOT NULL,
        PRIMARY KEY (owner, type)
    ) WITHOUT ROWID;
    INSERT INTO type_extents (owner, type, max_duration)
        SELECT owner, type, MAX(end_time - start_time) FROM samples GROUP BY owner, type;
    """

    /// Samples and tombstones are WITHOUT ROWID tables clustered on (owner, anchor): each owner's
    /// anchor sequence only grows, so inserts append at the end of that owner's key range (cheap), and
    /// anchored queries are a plain range scan of the primary key — no extra index needed for them.
    /// Every secondary index carries (owner, anchor) as its row pointer, just like a rowid would.
    private static let version1 = """
    CREATE TABLE store_info (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        epoch BLOB NOT NULL,          -- random per store file: anchors from another store are refused
        created INTEGER NOT NULL
    );
    INSERT INTO store_info (id, epoch, created) VALUES (1, randomblob(8), CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));

    CREATE TABLE owners (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,    -- owners add/list by name
        created INTEGER NOT NULL,
        last_anchor INTEGER NOT NULL DEFAULT 0,   -- highest anchor committed for this owner
        purged_anchor INTEGER NOT NULL DEFAULT 0  -- highest tombstone anchor purged: older anchors are expired
    );

    -- Tokens are stored only as SHA-256 hashes; authentication looks the hash up by primary key.
    CREATE TABLE tokens (
        hash BLOB PRIMARY KEY,
        kind INTEGER NOT NULL,        -- 1 app, 2 owner, 3 operator (Role raw values)
        owner INTEGER REFERENCES owners(id),
        app INTEGER REFERENCES apps(id),
        created INTEGER NOT NULL
    ) WITHOUT ROWID;
    -- Rotation and revocation delete an app's tokens.
    CREATE INDEX tokens_by_app ON tokens(app) WHERE app IS NOT NULL;

    CREATE TABLE apps (
        id INTEGER PRIMARY KEY,
        owner INTEGER NOT NULL REFERENCES owners(id),
        bundle_id TEXT NOT NULL,
        name TEXT NOT NULL,
        created INTEGER NOT NULL,
        revoked INTEGER NOT NULL DEFAULT 0,
        UNIQUE (owner, bundle_id)     -- one registration per owner and bundle id; serves lookups by both
    );

    -- Interned strings and deduplicated rows; all are small and cached in memory by the writer.
    CREATE TABLE types (id INTEGER PRIMARY KEY, identifier TEXT NOT NULL UNIQUE);
    CREATE TABLE sources (id INTEGER PRIMARY KEY, bundle_id TEXT NOT NULL UNIQUE);
    CREATE TABLE revisions (
        id INTEGER PRIMARY KEY,
        key BLOB NOT NULL UNIQUE,     -- encoding of every field (NULLs included): the dedup key
        source INTEGER NOT NULL REFERENCES sources(id),
        name TEXT NOT NULL,
        version TEXT,
        product_type TEXT,
        os_major INTEGER NOT NULL,
        os_minor INTEGER NOT NULL,
        os_patch INTEGER NOT NULL
    );
    CREATE TABLE devices (
        id INTEGER PRIMARY KEY,
        key BLOB NOT NULL UNIQUE,     -- encoding of all eight optional fields: the dedup key
        name TEXT, manufacturer TEXT, model TEXT, hardware_version TEXT, firmware_version TEXT,
        software_version TEXT, local_identifier TEXT, udi_device_identifier TEXT
    );

    CREATE TABLE samples (
        owner INTEGER NOT NULL,
        anchor INTEGER NOT NULL,      -- position in the owner's change sequence
        uuid BLOB NOT NULL,
        type INTEGER NOT NULL,        -- types.id
        start_time INTEGER NOT NULL,
        end_time INTEGER NOT NULL,
        value REAL,                   -- quantity in the type's canonical unit
        unit TEXT,                    -- the unit the client used
        raw_value REAL,               -- the client's value when its unit is not canonical (exact round trip)
        count INTEGER,                -- quantity count when not 1
        category INTEGER,
        source INTEGER NOT NULL,      -- sources.id (denormalised from the revision for scope filters)
        revision INTEGER NOT NULL,
        device INTEGER,               -- devices.id; NULL = no device
        created INTEGER NOT NULL,
        flags INTEGER NOT NULL DEFAULT 0,   -- 1 = HKWasUserEntered; 2 = correlation; 4 = workout
        sync_id TEXT,
        sync_version INTEGER,
        parent INTEGER,               -- anchor of the correlation holding this sample
        metadata BLOB,
        PRIMARY KEY (owner, anchor)
    ) WITHOUT ROWID;
    -- Idempotent saves, deletes by UUID and UUID predicates. The only random-order index: it is what
    -- makes large group commits pay off.
    CREATE UNIQUE INDEX samples_by_uuid ON samples(owner, uuid);
    -- Time-range queries and statistics per type: start-ordered scans bounded by the start of the
    -- range (and start >= S - maximum duration for overlap queries, docs/semantics.md §6.1).
    CREATE INDEX samples_by_time ON samples(owner, type, start_time);
    -- Sync identifier upserts: only rows carrying one are indexed.
    CREATE INDEX samples_by_sync_id ON samples(owner, sync_id) WHERE sync_id IS NOT NULL;
    -- Loading and deleting a correlation's children: only children are indexed.
    CREATE INDEX samples_by_parent ON samples(owner, parent) WHERE parent IS NOT NULL;

    CREATE TABLE workouts (
        owner INTEGER NOT NULL,
        anchor INTEGER NOT NULL,      -- the workout sample's anchor
        activity_type INTEGER NOT NULL,
        duration INTEGER NOT NULL,    -- active duration (explicit, or derived from the events)
        explicit_duration INTEGER,    -- as saved, for the round trip
        detail BLOB,                  -- events, activities, statistics (WorkoutCoding)
        PRIMARY KEY (owner, anchor)
    ) WITHOUT ROWID;
    -- Samples associated with a workout (predicateForObjects(from: workout)).
    CREATE TABLE workout_samples (
        owner INTEGER NOT NULL,
        workout INTEGER NOT NULL,     -- the workout's anchor
        sample_uuid BLOB NOT NULL,
        PRIMARY KEY (owner, workout, sample_uuid)
    ) WITHOUT ROWID;

    -- Deleted objects, in the same anchor sequence as samples. They keep what predicates look at.
    CREATE TABLE tombstones (
        owner INTEGER NOT NULL,
        anchor INTEGER NOT NULL,      -- deletion anchor
        uuid BLOB NOT NULL,
        type INTEGER NOT NULL,
        start_time INTEGER NOT NULL,
        end_time INTEGER NOT NULL,
        source INTEGER NOT NULL,
        revision INTEGER NOT NULL,
        device INTEGER,
        parent INTEGER,
        sync_id TEXT,
        sync_version INTEGER,
        metadata BLOB,                -- only the sync keys survive deletion (docs/semantics.md §1.8)
        deleted INTEGER NOT NULL,     -- deletion time, for the retention purge
        PRIMARY KEY (owner, anchor)
    ) WITHOUT ROWID;

    -- Which sources saved which type, and when first: source queries without a predicate and
    -- default source ordering (docs/semantics.md decision 5) without scanning samples.
    CREATE TABLE type_sources (
        owner INTEGER NOT NULL,
        type INTEGER NOT NULL,
        source INTEGER NOT NULL,
        first_seen INTEGER NOT NULL,
        PRIMARY KEY (owner, type, source)
    ) WITHOUT ROWID;

    CREATE TABLE characteristics (
        owner INTEGER PRIMARY KEY,
        biological_sex INTEGER, blood_type INTEGER, date_of_birth TEXT,
        fitzpatrick_skin_type INTEGER, wheelchair_use INTEGER, activity_move_mode INTEGER
    );

    CREATE TABLE permissions (
        owner INTEGER NOT NULL,
        bundle_id TEXT NOT NULL,
        type TEXT NOT NULL,
        direction INTEGER NOT NULL,
        state INTEGER NOT NULL,
        requested INTEGER NOT NULL,
        updated INTEGER NOT NULL,
        PRIMARY KEY (owner, bundle_id, type, direction)   -- an app's permissions are one range scan
    ) WITHOUT ROWID;
    -- Pending requests of an owner (the owner's approval queue).
    CREATE INDEX permissions_pending ON permissions(owner, requested) WHERE state = 1;

    CREATE TABLE source_priority (
        owner INTEGER NOT NULL,
        type TEXT NOT NULL,
        position INTEGER NOT NULL,
        bundle_id TEXT NOT NULL,
        PRIMARY KEY (owner, type, position)
    ) WITHOUT ROWID;
    """
}
