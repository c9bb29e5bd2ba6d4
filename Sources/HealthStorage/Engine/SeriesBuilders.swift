import Foundation
import HealthModel

/// Series builders on the writer thread: an open builder is a `series_builders` row whose points are
/// in `series_chunks` under the builder id; finishing saves the sample through the ordinary save path
/// (anchor, change feed, sync-version replacement) with that id as its UUID, so no point moves.
extension WriteContext {
    /// An open builder's row.
    private struct OpenBuilder {
        let type: String
        let source: Int64
        let revision: Int64
        let device: Int64?
        let start: Microseconds
    }

    /// Opens the builder on its first call (as the kept source an owner's import names, else as the
    /// connection's revision), then appends the points after its last one; returns how many it holds.
    func insertSeriesData(owner: Int64, _ insert: SeriesInsert, revision connection: SourceRevision, defaultDevice: Device?,
                          byOwner: Bool) throws(HealthError) -> Int {
        try lockOwner(owner)
        let revision = try insert.sourceRevision.map { given throws(HealthError) in try SourceRules.keptRevision(given) } ?? connection
        let source = try sourceID(revision.source.bundleID, owner: owner)
        let type: String, start: Microseconds
        if let open = try openBuilder(owner: owner, insert.builderID, source: byOwner ? nil : source) {
            if let given = insert.type, !given.isEmpty, given != open.type {
                throw HealthError.invalid("Builder \(insert.builderID) builds \(open.type), not \(given)", field: "type")
            }
            (type, start) = (open.type, open.start)
        } else {
            try refuseUsedBuilderID(owner: owner, insert.builderID, source: source)
            guard let given = insert.type, !given.isEmpty else {
                throw HealthError.invalid("The first InsertSeriesData of a builder names its type", field: "type")
            }
            type = try Self.seriesType(given).identifier
            start = type == TypeCatalog.workoutRouteType.identifier ? 0 : insert.start
            try TimeRules.checkInstant(start, field: "start_time")
            let row = try db.prepare("""
                INSERT INTO series_builders (owner, builder, type, source, revision, device, start_time, created)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            row.bind(all: [.int(owner), .uuid(insert.builderID), .int(try typeID(type, owner: owner)), .int(source),
                           .int(try revisionID(revision, owner: owner)), try deviceID(insert.device ?? defaultDevice, owner: owner).map { .int($0) } ?? .null,
                           .int(start), .int(now)])
            try row.run()
        }
        let healthType = try Self.seriesType(type)
        guard insert.points.count == 0 || insert.points.belong(to: healthType) else {
            throw HealthError.invalid("Builder \(insert.builderID) builds \(type), which holds no \(insert.points.field)",
                                      field: insert.points.field)
        }
        if case .quantities(let quantities) = insert.points {
            return try appendQuantityPoints(owner: owner, builder: insert.builderID, type: healthType, start: start, quantities)
        }
        return try appendPoints(owner: owner, series: insert.builderID, insert.points)
    }

    /// Appends locations or beats after the series' last one, checked against it.
    func appendPoints(owner: Int64, series: UUID, _ points: SeriesPoints) throws(HealthError) -> Int {
        let chunks = SeriesChunks(db: db)
        let tail = try chunks.tail(owner: owner, series: series)
        switch points {
        case .locations(let locations):
            try SeriesRules.checkLocations(locations, after: tail.lastKey)
            try chunks.append(owner: owner, series: series, locations)
        case .beats(let beats):
            try SeriesRules.checkBeats(beats, count: tail.count, after: tail.lastKey)
            try chunks.append(owner: owner, series: series, beats)
        case .quantities, .voltages:
            throw HealthError(.internalError, "\(points.field) are not appended as route or heartbeat points")
        }
        return tail.count + points.count
    }

    /// Stores the builder's sample and closes the builder; returns the stored sample (none when a
    /// stored sample with the same sync identifier and a version at least as high is kept instead).
    func finishSeries(owner: Int64, _ finish: SeriesFinish, by finisher: Deleter) throws(HealthError) -> [Sample] {
        try lockOwner(owner)
        let source = try sourceID(finisher.bundleID, owner: owner)
        let builderID = finish.builderID
        guard let open = try openBuilder(owner: owner, builderID, source: finisher.isOwner ? nil : source) else {
            try refuseUsedBuilderID(owner: owner, builderID, source: source)
            throw Self.notOpen(builderID)
        }
        if let quantityType = TypeCatalog.type(open.type), quantityType.kind == .quantity {
            let device = try open.device.map { id throws(HealthError) in try registry.device(id, owner: owner, db) }
            let sample = try finishQuantitySeries(owner: owner, builder: builderID, type: quantityType, start: open.start,
                                                  end: finish.end, metadata: finish.metadata, device: device,
                                                  revision: try registry.revision(open.revision, owner: owner, db),
                                                  imported: open.source != source)
            try closeBuilder(owner: owner, builderID)
            return [sample]
        }
        let chunks = SeriesChunks(db: db)
        let tail = try chunks.tail(owner: owner, series: builderID)
        guard let last = tail.lastKey else {
            throw HealthError.invalid("Builder \(builderID) holds no points; insert at least one before finishing it", field: "builder_id")
        }
        var workout: (anchor: Int64, start: Microseconds, end: Microseconds)?
        let start: Microseconds, end: Microseconds
        if open.type == TypeCatalog.workoutRouteType.identifier {
            guard let workoutUUID = finish.workoutUUID else {
                throw HealthError.invalid("A route is finished with the workout it belongs to", field: "workout_uuid")
            }
            let found = try storedWorkout(owner: owner, workoutUUID, source: finisher.isOwner ? nil : open.source)
            let first: [RouteLocation] = try chunks.read(owner: owner, series: builderID, from: 0, limit: 1)
            start = first.first?.time ?? last
            end = last
            try SeriesRules.checkRoute(first: start, last: end, workoutStart: found.start, workoutEnd: found.end)
            workout = found
        } else {
            start = open.start
            let lastBeat = open.start + last
            end = finish.end ?? lastBeat
            if end < lastBeat {
                throw HealthError.invalid("end_time \(end) is before the series' last beat at \(lastBeat) µs", field: "end_time")
            }
        }
        let sample = Sample(uuid: builderID, type: open.type, start: start, end: end, metadata: finish.metadata,
                            device: try open.device.map { id throws(HealthError) in try registry.device(id, owner: owner, db) },
                            body: .series(count: Int64(tail.count)))
        try SampleValidator.validateFinished(sample)
        let revision = try registry.revision(open.revision, owner: owner, db)
        let outcome = try saveFinished(sample, owner: owner, revision: revision, imported: open.source != source)
        try closeBuilder(owner: owner, builderID)
        guard outcome != .keptExisting else {
            try chunks.delete(owner: owner, series: builderID)
            return []
        }
        if let workout {
            let link = try db.prepare("INSERT INTO workout_samples (owner, workout, sample_uuid) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
            link.bind(all: [.int(owner), .int(workout.anchor), .uuid(builderID)])
            try link.run()
            try reanchor(owner: owner, workout.anchor, bundleID: revision.source.bundleID)
        }
        return try SampleRows(db: db, registry: registry).sample(owner: owner, uuid: builderID).map { [$0] } ?? []
    }

    /// Drops an open builder and its points. A builder that is not open is answered with the refusal
    /// returned, having written nothing, rather than thrown: an import discards every series' builder
    /// before building it, and a job that throws undoes the whole group of jobs committed with it (an
    /// import's batch of thousands of samples among them) to run them all again with savepoints.
    func discardSeries(owner: Int64, builder: UUID, bundleID: String, byOwner: Bool) throws(HealthError) -> HealthError? {
        try lockOwner(owner)
        // Not interned: a source new to the store has no open builder, and the job must write nothing when it refuses.
        let source = try existingSourceID(bundleID, owner: owner)
        let open = byOwner || source != nil ? try openBuilder(owner: owner, builder, source: byOwner ? nil : source) : nil
        guard open != nil else {
            do {
                try refuseUsedBuilderID(owner: owner, builder, source: source)
            } catch {
                return error
            }
            return Self.notOpen(builder)
        }
        try closeBuilder(owner: owner, builder)
        try SeriesChunks(db: db).delete(owner: owner, series: builder)
        return nil
    }

    /// The finished sample saved as the builder's revision: a builder whose source is not the
    /// finisher's was opened by the owner's import, so it is saved as keep_sources saves (the source marked imported).
    func saveFinished(_ sample: Sample, owner: Int64, revision: SourceRevision, imported: Bool) throws(HealthError) -> SaveOutcome {
        let batch = imported
            ? SaveBatch(owner: OwnerID(owner), revision: revision, defaultDevice: nil, objects: [sample.saved(as: revision)], keepsSources: true)
            : SaveBatch(owner: OwnerID(owner), revision: revision, defaultDevice: nil, objects: [sample])
        return try save(batch)[0]
    }

    /// The open builder `id` of `source` (nil: of any source, for the owner); another app's builder is not open for it.
    private func openBuilder(owner: Int64, _ id: UUID, source: Int64?) throws(HealthError) -> OpenBuilder? {
        let row = try db.prepare("""
            SELECT type, source, revision, device, start_time FROM series_builders WHERE owner = ? AND builder = ?
            """)
        row.bind(all: [.int(owner), .uuid(id)])
        defer { row.reset() }
        guard try row.step(), source == nil || row.int(1) == source else { return nil }
        return OpenBuilder(type: try registry.type(row.int(0), owner: owner, db), source: row.int(1), revision: row.int(2),
                           device: row.optionalInt(3), start: row.int(4))
    }

    private func closeBuilder(owner: Int64, _ id: UUID) throws(HealthError) {
        let delete = try db.prepare("DELETE FROM series_builders WHERE owner = ? AND builder = ?")
        delete.bind(all: [.int(owner), .uuid(id)])
        try delete.run()
    }

    /// A builder id naming a stored sample: finished already when the caller saved it; otherwise the
    /// id is taken (another source's sample reads as any used UUID, never as that source's data).
    private func refuseUsedBuilderID(owner: Int64, _ id: UUID, source: Int64?) throws(HealthError) {
        let stored = try db.prepare("SELECT type, source FROM samples WHERE \(db.dialect.sampleByUUID())")
        stored.bind(all: [.int(owner), .uuid(id)])
        defer { stored.reset() }
        guard try stored.step() else { return }
        let type = try registry.type(stored.int(0), owner: owner, db)
        if stored.int(1) == source, let kind = TypeCatalog.type(type), kind.kind == .series {
            throw SeriesRules.alreadyFinished(kind == TypeCatalog.workoutRouteType ? "route" : "heartbeat series")
        }
        throw HealthError.invalid("builder_id \(id) is already the UUID of a stored object; use a new id", field: "builder_id")
    }

    /// The workout a route is finished with: stored, a workout, and (for an app) saved by the route's app.
    private func storedWorkout(owner: Int64, _ uuid: UUID, source: Int64?) throws(HealthError) -> (anchor: Int64, start: Microseconds, end: Microseconds) {
        let row = try db.prepare("SELECT anchor, start_time, end_time, source, flags FROM samples WHERE \(db.dialect.sampleByUUID())")
        row.bind(all: [.int(owner), .uuid(uuid)])
        defer { row.reset() }
        guard try row.step(), row.int(4) & SampleRows.workout != 0, source == nil || row.int(3) == source else {
            throw HealthError.invalid("Workout \(uuid) is not stored by this app; save the workout before finishing its route",
                                      field: "workout_uuid")
        }
        return (row.int(0), row.int(1), row.int(2))
    }

    /// A type a builder of ours builds.
    private static func seriesType(_ identifier: String) throws(HealthError) -> HealthType {
        guard let type = TypeCatalog.type(identifier) else { throw TypeCatalog.unknownType(identifier) }
        if type == TypeCatalog.workoutRouteType || type == TypeCatalog.heartbeatSeriesType || type.kind == .quantity { return type }
        throw HealthError.invalid("\(identifier) is not built with a series builder; use \(TypeCatalog.workoutRouteType.identifier), "
            + "\(TypeCatalog.heartbeatSeriesType.identifier) or a quantity type", field: "type")
    }

    private static func notOpen(_ id: UUID) -> HealthError {
        HealthError.invalid("No open series builder \(id) of this app; InsertSeriesData opens one", field: "builder_id")
    }
}
