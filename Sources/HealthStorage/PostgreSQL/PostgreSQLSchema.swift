import Foundation
import HealthModel

/// The PostgreSQL schema, versioned in `schema_version`; `migrate` runs every step above the
/// database's version in one transaction at open, under an advisory lock so nodes starting together
/// migrate once. Add a step to `migrations` for every change; never edit a shipped step.
///
/// Built to be distributed by owner (Citus-style `create_distributed_table(…, 'owner')`): since
/// step 7 every table but the global ones (`store_info`, `schema_version`, `owners`, `tokens`; see
/// docs/scaling.md) has a key and indexes leading with `owner`, no query of the engine reads two
/// owners' rows together, nothing comes from a sequence, and no foreign key exists at all. Ids are
/// the owner's highest id plus one taken inside the writing transaction, and anchors come from the
/// owner's own counter row (see `WriteContext.nextAnchor` for why that keeps anchors in commit order).
enum PostgreSQLSchema {
    /// Step n (1-based) brings the database from version n-1 to n.
    static let migrations: [String] = [version1, version2, version3, version4, version5, version6, version7, version8, version9, version10, version11]

    static var currentVersion: Int { migrations.count }

    /// Brings the schema to `target` (tests stop at an earlier step to build a store as an older server left it).
    static func migrate(_ db: PostgreSQLConnection, anchorKey: Data, to target: Int = currentVersion) throws(HealthError) {
        try db.execute("BEGIN")
        do throws(HealthError) {
            // One lock per schema: nodes opening the same store wait for the first to finish migrating.
            try db.execute("""
                SELECT pg_advisory_xact_lock(hashtext('healthstore-migrate:' || current_schema()));
                CREATE TABLE IF NOT EXISTS schema_version (id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL);
                INSERT INTO schema_version (id, version) VALUES (1, 0) ON CONFLICT DO NOTHING;
                """)
            let read = try db.prepareOnce("SELECT version FROM schema_version WHERE id = 1")
            _ = try read.step()
            let version = Int(read.int(0))
            guard version <= currentVersion else {
                throw HealthError(.databaseInaccessible, "the PostgreSQL store at \(db.address) has schema version \(version), "
                                  + "newer than this server's \(currentVersion); run a newer healthd")
            }
            for step in migrations[version..<max(version, target)] { try db.execute(step) }
            if version == 0 {
                let info = try db.prepareOnce("INSERT INTO store_info (id, anchor_key, created) VALUES (1, ?, ?)")
                info.bind(1, anchorKey)
                info.bind(2, Time.now())
                try info.run()
            }
            try db.execute("UPDATE schema_version SET version = \(max(version, target)) WHERE id = 1; COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// `samples_by_time` goes, as SQLite's step 18: the query SQL is shared, and reads a type's rows
    /// in start order or in a date range source by source through `samples_by_source`.
    private static let version11 = """
    DROP INDEX samples_by_time;
    """

    /// Sample rows in anchor order across types, PostgreSQL's alone (SQLite reads each type's range of
    /// its clustered table, which holds only that type's rows): the heap is in insertion order, all
    /// types interleaved, so reading a sync's types one by one through the key visits every heap page
    /// of the range once per type. One ordered scan of this index reads each page once, for all types.
    private static let version10 = """
    CREATE INDEX samples_by_anchor ON samples(owner, anchor);
    """

    /// Sample rows keyed by (owner, type, anchor), as SQLite's step 15: the key serves anchored
    /// reads of a type, so `samples_by_type` goes, and with it one index insert a sample.
    private static let version9 = """
    DROP INDEX samples_by_type;
    ALTER TABLE samples DROP CONSTRAINT samples_pkey, ADD PRIMARY KEY (owner, type, anchor);
    """

    /// Open series builders, as SQLite's step 14.
    private static let version8 = """
    CREATE TABLE series_builders (
        owner bigint NOT NULL,
        builder bytea NOT NULL,
        type bigint NOT NULL,
        source bigint NOT NULL,
        revision bigint NOT NULL,
        device bigint,
        start_time bigint NOT NULL,
        created bigint NOT NULL,
        PRIMARY KEY (owner, builder)
    );
    """

    /// Every per-owner row keyed by its owner, as SQLite's step 13: the interned tables get an
    /// `owner` column (each owner keeps the shared rows under the same ids, so stored rows keep their
    /// meaning; new ids are allocated per owner), app ids are unique per owner only, and the anchor
    /// counter moves from the global `owners` to `anchor_counters`, written by every saving transaction.
    private static let version7 = """
    CREATE TEMP TABLE shared_types AS SELECT * FROM types;
    CREATE TEMP TABLE shared_sources AS SELECT * FROM sources;
    CREATE TEMP TABLE shared_revisions AS SELECT * FROM revisions;
    CREATE TEMP TABLE shared_devices AS SELECT * FROM devices;
    DROP TABLE types, sources, revisions, devices;
    CREATE TABLE types (
        owner bigint NOT NULL,
        id bigint NOT NULL,
        identifier text NOT NULL,
        PRIMARY KEY (owner, id),
        UNIQUE (owner, identifier)
    );
    CREATE TABLE sources (
        owner bigint NOT NULL,
        id bigint NOT NULL,
        bundle_id text NOT NULL,
        PRIMARY KEY (owner, id),
        UNIQUE (owner, bundle_id)
    );
    CREATE TABLE revisions (
        owner bigint NOT NULL,
        id bigint NOT NULL,
        key bytea NOT NULL,
        source bigint NOT NULL,
        name text NOT NULL,
        version text,
        product_type text,
        os_major bigint NOT NULL,
        os_minor bigint NOT NULL,
        os_patch bigint NOT NULL,
        PRIMARY KEY (owner, id),
        UNIQUE (owner, key)
    );
    CREATE INDEX revisions_by_source ON revisions(owner, source, id);
    CREATE TABLE devices (
        owner bigint NOT NULL,
        id bigint NOT NULL,
        key bytea NOT NULL,
        name text, manufacturer text, model text, hardware_version text, firmware_version text,
        software_version text, local_identifier text, udi_device_identifier text,
        PRIMARY KEY (owner, id),
        UNIQUE (owner, key)
    );
    INSERT INTO types SELECT o.id, t.* FROM owners o CROSS JOIN shared_types t;
    INSERT INTO sources SELECT o.id, t.* FROM owners o CROSS JOIN shared_sources t;
    INSERT INTO revisions SELECT o.id, t.* FROM owners o CROSS JOIN shared_revisions t;
    INSERT INTO devices SELECT o.id, t.* FROM owners o CROSS JOIN shared_devices t;
    DROP TABLE shared_types, shared_sources, shared_revisions, shared_devices;

    DROP INDEX apps_by_id;
    CREATE UNIQUE INDEX apps_by_id ON apps(owner, id);
    DROP INDEX tokens_by_app;
    CREATE INDEX tokens_by_app ON tokens(owner, app) WHERE app IS NOT NULL;

    CREATE TABLE anchor_counters (
        owner bigint PRIMARY KEY,
        last_anchor bigint NOT NULL
    );
    INSERT INTO anchor_counters SELECT id, last_anchor FROM owners;
    ALTER TABLE owners DROP COLUMN last_anchor, DROP COLUMN purged_anchor;
    """

    /// Discrete quantity series summaries, as SQLite's step 12.
    private static let version6 = """
    CREATE TABLE discrete_series (
        owner bigint NOT NULL,
        uuid bytea NOT NULL,
        minimum double precision NOT NULL,
        maximum double precision NOT NULL,
        most_recent double precision NOT NULL,
        most_recent_start bigint NOT NULL,
        most_recent_end bigint NOT NULL,
        PRIMARY KEY (owner, uuid)
    );
    """

    /// Bodies of electrocardiograms, audiograms, states of mind and scored assessments, as SQLite's step 11.
    private static let version5 = """
    CREATE TABLE sample_details (
        owner bigint NOT NULL,
        anchor bigint NOT NULL,
        detail bytea NOT NULL,
        PRIMARY KEY (owner, anchor)
    );
    """

    /// Points of series samples, as SQLite's step 10.
    private static let version4 = """
    CREATE TABLE series_chunks (
        owner bigint NOT NULL,
        series bytea NOT NULL,
        chunk bigint NOT NULL,
        points bigint NOT NULL,
        last_key bigint NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (owner, series, chunk)
    );
    """

    /// The units of quantities stored in each owner's metadata: `hs_meta` cannot convert units, so
    /// quantity operands are converted into each of these in Swift (`MetadataLeaf.compareConverted`).
    private static let version3 = """
    CREATE TABLE metadata_units (
        owner bigint NOT NULL,
        unit text NOT NULL,
        PRIMARY KEY (owner, unit)
    );
    """

    /// Sources an owner's import (SaveObjects with keep_sources) brought in, as SQLite's step 9.
    private static let version2 = """
    CREATE TABLE source_imports (
        owner bigint NOT NULL,
        source bigint NOT NULL,
        imported bigint NOT NULL,
        PRIMARY KEY (owner, source)
    );
    """

    /// SQLite's schema as of its step 8 in PostgreSQL types. Samples and tombstones are keyed by
    /// (owner, anchor) like SQLite's clustered tables; the secondary indexes spell out the anchor
    /// SQLite appends implicitly. `hs_meta` evaluates one metadata predicate leaf (see
    /// `MetadataLeaf`) over the stored metadata encoding.
    private static let version1 = """
    CREATE TABLE store_info (
        id integer PRIMARY KEY CHECK (id = 1),
        anchor_key bytea NOT NULL,            -- seals anchors; kept here so every node shares it
        created bigint NOT NULL
    );
    CREATE TABLE owners (
        id bigint PRIMARY KEY,
        name text NOT NULL UNIQUE,
        created bigint NOT NULL,
        last_anchor bigint NOT NULL DEFAULT 0,    -- the owner's anchor counter, incremented by each saving transaction
        purged_anchor bigint NOT NULL DEFAULT 0
    );
    CREATE TABLE tokens (
        hash bytea PRIMARY KEY,               -- SHA-256 of the token; the token itself is never stored
        kind integer NOT NULL,
        owner bigint,
        app bigint,
        created bigint NOT NULL
    );
    CREATE INDEX tokens_by_app ON tokens(app) WHERE app IS NOT NULL;
    CREATE TABLE apps (
        owner bigint NOT NULL,
        id bigint NOT NULL,
        bundle_id text NOT NULL,
        name text NOT NULL,
        created bigint NOT NULL,
        revoked integer NOT NULL DEFAULT 0,
        PRIMARY KEY (owner, bundle_id)
    );
    CREATE UNIQUE INDEX apps_by_id ON apps(id);

    CREATE TABLE types (id bigint PRIMARY KEY, identifier text NOT NULL UNIQUE);
    CREATE TABLE sources (id bigint PRIMARY KEY, bundle_id text NOT NULL UNIQUE);
    CREATE TABLE revisions (
        id bigint PRIMARY KEY,
        key bytea NOT NULL UNIQUE,
        source bigint NOT NULL,
        name text NOT NULL,
        version text,
        product_type text,
        os_major bigint NOT NULL,
        os_minor bigint NOT NULL,
        os_patch bigint NOT NULL
    );
    CREATE INDEX revisions_by_source ON revisions(source, id);
    CREATE TABLE devices (
        id bigint PRIMARY KEY,
        key bytea NOT NULL UNIQUE,
        name text, manufacturer text, model text, hardware_version text, firmware_version text,
        software_version text, local_identifier text, udi_device_identifier text
    );

    CREATE TABLE samples (
        owner bigint NOT NULL,
        anchor bigint NOT NULL,
        uuid bytea NOT NULL,
        type bigint NOT NULL,
        start_time bigint NOT NULL,
        duration bigint NOT NULL DEFAULT 0,
        created_offset bigint NOT NULL DEFAULT 0,
        end_time bigint GENERATED ALWAYS AS (start_time + duration) STORED,
        created bigint GENERATED ALWAYS AS (start_time + created_offset) STORED,
        value double precision,
        unit text,
        raw_value double precision,
        count bigint,
        category bigint,
        source bigint NOT NULL,
        revision bigint NOT NULL,
        device bigint,
        flags bigint NOT NULL DEFAULT 0,
        sync_id text,
        sync_version bigint,
        parent bigint,
        metadata bytea,
        PRIMARY KEY (owner, anchor)
    );
    CREATE UNIQUE INDEX samples_by_uuid ON samples(owner, uuid);
    CREATE INDEX samples_by_time ON samples(owner, type, start_time);
    CREATE INDEX samples_by_sync_id ON samples(owner, sync_id) WHERE sync_id IS NOT NULL;
    CREATE INDEX samples_by_parent ON samples(owner, parent) WHERE parent IS NOT NULL;
    CREATE INDEX samples_by_source ON samples(owner, type, source, start_time);
    CREATE INDEX samples_by_type ON samples(owner, type, anchor);
    CREATE INDEX samples_by_reading ON samples(owner, type, parent) WHERE parent IS NOT NULL;

    CREATE TABLE workouts (
        owner bigint NOT NULL,
        anchor bigint NOT NULL,
        activity_type bigint NOT NULL,
        duration bigint NOT NULL,
        explicit_duration bigint,
        detail bytea,
        PRIMARY KEY (owner, anchor)
    );
    CREATE TABLE workout_samples (
        owner bigint NOT NULL,
        workout bigint NOT NULL,
        sample_uuid bytea NOT NULL,
        PRIMARY KEY (owner, workout, sample_uuid)
    );
    CREATE INDEX workout_samples_by_sample ON workout_samples(owner, sample_uuid);

    CREATE TABLE tombstones (
        owner bigint NOT NULL,
        anchor bigint NOT NULL,
        uuid bytea NOT NULL,
        type bigint NOT NULL,
        start_time bigint NOT NULL,
        end_time bigint NOT NULL,
        source bigint NOT NULL,
        revision bigint NOT NULL,
        device bigint,
        parent bigint,
        sync_id text,
        sync_version bigint,
        metadata bytea,
        deleted bigint NOT NULL,
        live_anchor bigint,
        activity_type bigint,
        PRIMARY KEY (owner, anchor)
    );
    CREATE INDEX tombstones_by_parent ON tombstones(owner, parent) WHERE parent IS NOT NULL;
    CREATE INDEX tombstones_by_source ON tombstones(owner, type, source, anchor);
    CREATE INDEX tombstones_by_type ON tombstones(owner, type, anchor);
    CREATE INDEX tombstones_by_live_anchor ON tombstones(owner, live_anchor) WHERE live_anchor IS NOT NULL;
    CREATE INDEX tombstones_by_deletion ON tombstones(owner, deleted);

    CREATE TABLE purge_horizons (
        owner bigint NOT NULL,
        type bigint NOT NULL,
        source bigint NOT NULL,
        purged_through bigint NOT NULL,
        PRIMARY KEY (owner, type, source)
    );
    CREATE TABLE type_extents (
        owner bigint NOT NULL,
        type bigint NOT NULL,
        max_duration bigint NOT NULL,
        PRIMARY KEY (owner, type)
    );
    CREATE TABLE type_sources (
        owner bigint NOT NULL,
        type bigint NOT NULL,
        source bigint NOT NULL,
        first_seen bigint NOT NULL,
        PRIMARY KEY (owner, type, source)
    );
    CREATE TABLE characteristics (
        owner bigint PRIMARY KEY,
        biological_sex bigint, blood_type bigint, date_of_birth text,
        fitzpatrick_skin_type bigint, wheelchair_use bigint, activity_move_mode bigint
    );
    CREATE TABLE permissions (
        owner bigint NOT NULL,
        bundle_id text NOT NULL,
        type text NOT NULL,
        direction bigint NOT NULL,
        state bigint NOT NULL,
        requested bigint NOT NULL,
        updated bigint NOT NULL,
        PRIMARY KEY (owner, bundle_id, type, direction)
    );
    CREATE INDEX permissions_pending ON permissions(owner, requested) WHERE state = 1;
    CREATE TABLE source_priority (
        owner bigint NOT NULL,
        type text NOT NULL,
        position bigint NOT NULL,
        bundle_id text NOT NULL,
        PRIMARY KEY (owner, type, position)
    );
    """ + PostgreSQLMetadataFunction.definition
}
