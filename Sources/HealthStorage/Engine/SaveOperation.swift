import Foundation
import HealthModel

/// Saving a batch on the writer thread (inside the batch's savepoint, so a throw undoes the batch).
extension WriteContext {
    func save(_ batch: SaveBatch) throws(HealthError) -> [SaveOutcome] {
        let owner = batch.owner.rawValue
        try lockOwner(owner)
        let insertRow = try db.prepare(ObjectSaver.insertSQL(db.dialect))
        var savers: [SourceRevision: ObjectSaver] = [:]
        func saver(for revision: SourceRevision) throws(HealthError) -> ObjectSaver {
            if let known = savers[revision] { return known }
            let source = try sourceID(revision.source.bundleID)
            if batch.keepsSources { try noteImport(owner: owner, source: source) }
            let saver = ObjectSaver(context: self, owner: owner, source: source, revision: try revisionID(revision),
                                    bundleID: revision.source.bundleID, insertRow: insertRow)
            savers[revision] = saver
            return saver
        }
        // An ordinary batch has one saver, found once rather than hashed per object.
        let connectionSaver = batch.keepsSources ? nil : try saver(for: batch.revision)
        var outcomes: [SaveOutcome] = []
        outcomes.reserveCapacity(batch.objects.count)
        for (index, object) in batch.objects.enumerated() {
            do {
                let objectSaver = if let connectionSaver { connectionSaver } else { try saver(for: Self.keptRevision(object)) }
                outcomes.append(try objectSaver.save(object, device: object.device ?? batch.defaultDevice, parent: nil))
            } catch {
                throw error.objectIndex == nil ? error.at(index: index) : error
            }
        }
        return outcomes
    }

    private static func keptRevision(_ object: Sample) throws(HealthError) -> SourceRevision {
        guard let revision = object.sourceRevision, !revision.source.name.isEmpty, !revision.source.bundleID.isEmpty else {
            throw HealthError.invalid("with keep_sources every object needs a complete source revision", field: "source_revision.source")
        }
        return revision
    }

    /// Marks `source` as imported into the owner's store unless the owner already holds data it saved
    /// (first time only: the mark keeps the time of the import that brought the source in).
    private func noteImport(owner: Int64, source: Int64) throws(HealthError) {
        let insert = try db.prepare("""
            INSERT INTO source_imports (owner, source, imported) SELECT ?, ?, ?
            WHERE NOT EXISTS (SELECT 1 FROM type_sources WHERE owner = ? AND source = ?) ON CONFLICT DO NOTHING
            """)
        insert.bind(1, owner); insert.bind(2, source); insert.bind(3, now); insert.bind(4, owner); insert.bind(5, source)
        try insert.run()
    }
}

/// Saves one object (and a correlation's children) for one batch.
private struct ObjectSaver {
    let context: WriteContext
    let owner: Int64
    let source: Int64
    let revision: Int64
    let bundleID: String
    /// `insertSQL`, prepared once per batch: looking it up per sample hashed the whole statement text.
    let insertRow: Statement

    static func insertSQL(_ dialect: SQLDialect) -> String {
        """
        \(dialect.insertOrFail) INTO samples (owner, anchor, uuid, type, start_time, duration, value, unit, raw_value, count,
                             category, source, revision, device, created_offset, flags, sync_id, sync_version, parent, metadata)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
        """
    }

    func save(_ sample: Sample, device: Device?, parent: Int64?) throws(HealthError) -> SaveOutcome {
        guard let type = TypeCatalog.type(sample.type), type.isSampleType else {
            throw HealthError.invalid("'\(sample.type)' is not a sample type", field: "type")
        }
        // The store computes durations from these; in range, no difference of two can overflow.
        try TimeRules.checkInstant(sample.start, field: "start_time")
        try TimeRules.checkInstant(sample.end, field: "end_time")
        let typeID = try context.typeID(type.identifier)
        var outcome = SaveOutcome.stored
        var parent = parent
        var replaced: (uuid: UUID, parent: Int64?)?
        if let sync = sample.syncKey, let existing = try syncMatch(sync.identifier), existing.uuid != sample.uuid {
            // docs/semantics.md decision 2: matched per (source, sync identifier); a greater version replaces.
            guard sync.version > existing.version else { return .keptExisting }
            // docs/semantics.md §7.3: the new object also takes the old one's place in its correlation, unless it is itself
            // a reading of a correlation saved now: it stays in that one (the old correlation loses the reading).
            if parent == nil, let oldParent = existing.parent {
                guard existing.type == typeID else {
                    let oldType = try context.registry.type(existing.type, context.db)
                    throw HealthError.invalid("sync identifier '\(sync.identifier)' belongs to a '\(oldType)' reading of a correlation; "
                                              + "its replacement must have that type, not '\(type.identifier)'", field: "metadata")
                }
                parent = oldParent
            }
            try context.deleteRow(owner: owner, anchor: existing.anchor, replaced: true)
            replaced = (existing.uuid, existing.parent)
            outcome = .replaced
        }
        let anchor = try context.nextAnchor(owner: owner)
        guard try insert(sample, type: type, typeID: typeID, anchor: anchor, device: device, parent: parent) else {
            return try compareWithStored(sample, device: device)
        }
        if let replaced {
            // The workouts and the correlation that held the old object now hold something else.
            let holders = try context.moveWorkoutAssociations(owner: owner, from: replaced.uuid, to: sample.uuid)
            for holder in holders + (replaced.parent.map { [$0] } ?? []) {
                try context.reanchor(owner: owner, holder, bundleID: bundleID)
            }
        }
        try context.noteTypeSource(owner: owner, type: typeID, source: source)
        try context.noteDuration(owner: owner, type: typeID, duration: sample.end - sample.start)
        context.noteChange(owner: owner, type: type.identifier, span: TimeSpan(start: sample.start, end: sample.end), bundleID: bundleID)
        switch sample.body {
        case .correlation(let children):
            for child in children {
                _ = try save(child, device: child.device ?? device, parent: anchor)
            }
        case .workout(let workout):
            try insertWorkout(workout, sample: sample, anchor: anchor)
        case .quantity, .category, .series:
            break
        }
        return outcome
    }

    private func syncMatch(_ identifier: String) throws(HealthError) -> (anchor: Int64, uuid: UUID, version: Int64, type: Int64, parent: Int64?)? {
        // INDEXED BY: without statistics SQLite 3.40 prefers the primary key's `owner` prefix (a scan
        // of every sample of the owner per saved sample) over this partial, non-covering index.
        let query = try context.db.prepare("""
            SELECT anchor, uuid, sync_version, type, parent FROM samples \(context.db.dialect.indexedBy("samples_by_sync_id"))
            WHERE owner = ? AND sync_id = ? AND source = ?
            """)
        query.bind(1, owner)
        query.bind(2, identifier)
        query.bind(3, source)
        guard try query.step() else { return nil }
        return (query.int(0), query.uuid(1), query.int(2), query.int(3), query.optionalInt(4))
    }

    /// Inserts the row; false when the UUID is already stored for this owner.
    /// The unit is stored only when it is not the type's canonical one (the row then keeps the client's value too).
    private func insert(_ sample: Sample, type: HealthType, typeID: Int64, anchor: Int64, device: Device?,
                        parent: Int64?) throws(HealthError) -> Bool {
        // The row keeps the end and creation time as offsets from the start; they must fit in 64 bits.
        let (duration, durationOverflow) = sample.end.subtractingReportingOverflow(sample.start)
        let (createdOffset, createdOverflow) = context.now.subtractingReportingOverflow(sample.start)
        guard !durationOverflow, !createdOverflow else {
            throw HealthError.invalid("start_time \(sample.start) is too far from end_time \(sample.end) or from now to be stored",
                                      field: "start_time")
        }
        let statement = insertRow
        statement.reset()
        statement.bind(1, owner)
        statement.bind(2, anchor)
        statement.bind(3, sample.uuid)
        statement.bind(4, typeID)
        statement.bind(5, sample.start)
        statement.bind(6, duration)
        var flags: Int64 = sample.wasUserEntered ? SampleRows.userEntered : 0
        switch sample.body {
        case .quantity(let quantity, let count):
            guard let canonical = type.canonicalUnit else {
                throw HealthError.invalid("type '\(type.identifier)' does not hold quantities", field: "quantity")
            }
            if quantity.unit == canonical {
                statement.bind(7, quantity.value)
            } else {
                statement.bind(7, try quantity.value(in: canonical))
                statement.bind(8, quantity.unit)
                statement.bind(9, quantity.value)
            }
            statement.bind(10, count == 1 ? nil : count)
        case .category(let value):
            statement.bind(11, value)
        case .correlation:
            flags |= SampleRows.correlation
        case .workout:
            flags |= SampleRows.workout
        case .series(let count):
            flags |= SampleRows.series
            statement.bind(10, count)
        }
        statement.bind(12, source)
        statement.bind(13, revision)
        statement.bind(14, try context.deviceID(device))
        statement.bind(15, createdOffset)
        statement.bind(16, flags)
        if let sync = sample.syncKey {
            statement.bind(17, sync.identifier)
            statement.bind(18, sync.version)
        }
        statement.bind(19, parent)
        statement.bind(20, MetadataCoding.encode(sample.metadata))
        if context.db.dialect.convertsMetadataUnitsBeforehand {
            for case .quantity(let quantity) in sample.metadata.values { try context.noteMetadataUnit(owner: owner, quantity.unit) }
        }
        try statement.run()
        return context.db.changes > 0
    }

    private func insertWorkout(_ workout: Workout, sample: Sample, anchor: Int64) throws(HealthError) {
        let row = try context.db.prepare("""
            INSERT INTO workouts (owner, anchor, activity_type, duration, explicit_duration, detail) VALUES (?, ?, ?, ?, ?, ?)
            """)
        row.bind(1, owner)
        row.bind(2, anchor)
        row.bind(3, Int64(workout.activityType))
        row.bind(4, workout.activeDuration(start: sample.start, end: sample.end))
        row.bind(5, workout.duration)
        row.bind(6, WorkoutCoding.encode(workout))
        try row.run()
        let stored = try context.db.prepare("SELECT 1 FROM samples WHERE owner = ? AND uuid = ? AND source = ?")
        let link = try context.db.prepare("INSERT INTO workout_samples (owner, workout, sample_uuid) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
        for (index, uuid) in workout.associatedSampleUUIDs.enumerated() {
            // Only the app's own saved samples: another source's UUID reads as not stored (docs/semantics.md decision 7).
            stored.reset()
            stored.bind(1, owner)
            stored.bind(2, uuid)
            stored.bind(3, source)
            guard try stored.step() else {
                throw HealthError.invalid("Sample \(uuid) is not stored by this app, so it cannot be associated with the "
                    + "workout; save it first", field: "workout.associated_sample_uuids[\(index)]")
            }
            link.reset()
            link.bind(1, owner)
            link.bind(2, anchor)
            link.bind(3, uuid)
            try link.run()
        }
    }

    /// docs/semantics.md decision 1: the same UUID from the same source with identical content is a retry.
    private func compareWithStored(_ sample: Sample, device: Device?) throws(HealthError) -> SaveOutcome {
        let rows = SampleRows(db: context.db, registry: context.registry)
        guard let stored = try rows.samples("SELECT \(SampleRows.columns) FROM samples s WHERE s.owner = ? AND s.uuid = ?",
                                            [.int(owner), .uuid(sample.uuid)], childFilter: nil).first else {
            throw HealthError(.internalError, "UUID \(sample.uuid) conflicted but cannot be read back")
        }
        guard stored.sourceRevision?.source.bundleID == bundleID else {
            throw HealthError.invalid("UUID \(sample.uuid) is already used by an object saved by another source", field: "uuid")
        }
        guard Self.comparable(try withoutRoutes(stored), device: stored.device) == Self.comparable(sample, device: device) else {
            throw HealthError.invalid("UUID \(sample.uuid) is already stored with different content", field: "uuid")
        }
        return .alreadyStored
    }

    /// A stored workout without the routes FinishSeries associated with it later: they are no part of
    /// what was saved, so a retry of the workout (a re-import) still matches.
    private func withoutRoutes(_ stored: Sample) throws(HealthError) -> Sample {
        let flags = try context.db.prepare("SELECT flags FROM samples WHERE owner = ? AND uuid = ?")
        return try stored.droppingAssociations { uuid throws(HealthError) in
            flags.reset()
            flags.bind(all: [.int(owner), .uuid(uuid)])
            return try flags.step() && flags.int(0) & SampleRows.series != 0
        }
    }

    /// The fields a retry must repeat exactly: everything but the store-stamped revision and time.
    private static func comparable(_ sample: Sample, device: Device?) -> Sample {
        let effectiveDevice = device.flatMap { $0.isEmpty ? nil : $0 }
        let body: SampleBody
        switch sample.body {
        case .correlation(let children):
            body = .correlation(children.map { comparable($0, device: $0.device ?? effectiveDevice) }
                .sorted { $0.uuid.uuidString < $1.uuid.uuidString })
        case .workout(let w):
            // A derived duration reads back as its value, so compare active durations.
            body = .workout(Workout(activityType: w.activityType, duration: w.activeDuration(start: sample.start, end: sample.end),
                                    events: w.events,
                                    activities: w.activities, statistics: w.statistics,
                                    associatedSampleUUIDs: Array(Set(w.associatedSampleUUIDs)).sorted { $0.uuidString < $1.uuidString }))
        case .quantity, .category, .series:
            body = sample.body
        }
        return Sample(uuid: sample.uuid, type: sample.type, start: sample.start, end: sample.end, metadata: sample.metadata,
                      device: effectiveDevice, sourceRevision: nil, creationTime: nil, body: body)
    }
}
