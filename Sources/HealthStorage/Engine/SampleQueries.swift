import Foundation
import HealthModel

/// The read paths, each run on a reader thread.
extension ReadContext {
    /// An owner's readable rows of `types` matching `predicate`: the table to read (`s`) and the
    /// WHERE clause (without the word). Each way of seeing a type is a part of its own, read through
    /// an index that holds nothing the caller may not see, so no query's cost depends on data it
    /// may not read (docs/semantics.md decision 7): the types it reads in full; its own rows of the others; and other
    /// sources' correlations found through their readable readings (§3.6). Several parts are read
    /// as one UNION ALL.
    func filter(owner: Int64, types: [(type: HealthType, id: Int64)], predicate: QueryPredicate?, scope: ReadScope,
                        table: PredicateSQL.Table) throws(HealthError) -> FilterPart {
        let parts = try filterParts(owner: owner, types: types, predicate: predicate, scope: scope, table: table)
        guard let first = parts.first else { return ("\(table == .samples ? "samples" : "tombstones") s", "FALSE", []) }
        guard parts.count > 1 else { return first }
        let union = parts.map { "SELECT * FROM \($0.from) WHERE \($0.sql)" }.joined(separator: " UNION ALL ")
        return ("(\(union)) s", "TRUE", parts.flatMap(\.arguments))
    }

    /// A table to read (`s`), the WHERE clause (without the word) and its arguments.
    typealias FilterPart = (from: String, sql: String, arguments: [SQLValue])

    /// The parts `filter` reads as one UNION ALL. After an anchor, each fully readable type is a part
    /// of its own, read through (owner, type, anchor) (the samples table's primary key, tombstones'
    /// `tombstones_by_type`), or, for tombstones, all of them one part read through the primary key
    /// (owner, anchor) when they are every stored type: each such part yields its rows in anchor
    /// order without a sort, for `queryAnchored` to merge.
    private func filterParts(owner: Int64, types: [(type: HealthType, id: Int64)], predicate: QueryPredicate?, scope: ReadScope,
                             table: PredicateSQL.Table, afterAnchor: Int64? = nil) throws(HealthError) -> [FilterPart] {
        let name = table == .samples ? "samples" : "tombstones"
        func part(_ types: [(type: HealthType, id: Int64)], _ from: String, _ visible: (sql: String, arguments: [SQLValue])?,
                  everyType: Bool = false) throws(HealthError) -> FilterPart {
            var builder = PredicateSQL(table: table, owner: owner, types: types, metadataUnits: try db.metadataUnits(owner: owner, for: predicate))
            var clauses = ["s.owner = ?"]
            if !everyType { clauses.append("s.type IN (" + types.map { String($0.id) }.joined(separator: ", ") + ")") }
            var arguments: [SQLValue] = [.int(owner)]
            if let afterAnchor {
                clauses.append("s.anchor > ?")
                arguments.append(.int(afterAnchor))
            }
            if let predicate {
                clauses.append(try builder.clause(predicate))
                if afterAnchor == nil, let hint = builder.indexHint(for: predicate) { clauses.append(hint) }
            }
            arguments += builder.arguments
            if let visible {
                clauses.append(visible.sql)
                arguments += visible.arguments
            }
            return (from, clauses.joined(separator: " AND "), arguments)
        }
        let full = types.filter { scope.canReadAll($0.type.identifier) }
        let restricted = types.filter { !scope.canReadAll($0.type.identifier) }
        var parts: [FilterPart] = []
        if afterAnchor != nil, table == .tombstones, restricted.isEmpty, try includesEveryStoredType(full, owner: owner) {
            // Every tombstone of the owner is of a type asked for and read in full: the primary key
            // (owner, anchor) yields them in anchor order by itself, with no index lookups.
            parts.append(try part(full, "\(name) s", nil, everyType: true))
        } else if afterAnchor != nil {
            // Anchored queries read each type's changes after the anchor through (owner, type, anchor).
            let byType = table == .samples ? db.dialect.byPrimaryKey : db.dialect.indexedBy("tombstones_by_type")
            for type in full { parts.append(try part([type], "\(name) s \(byType)", nil)) }
        } else if !full.isEmpty {
            parts.append(try part(full, "\(name) s", nil))
        }
        if let readable = scope.readableTypes, !restricted.isEmpty {
            let caller = SQLValue.int(try sourceID(scope.callerBundleID, owner: owner) ?? -1)
            parts.append(try part(restricted, "\(name) s \(db.dialect.indexedBy("\(name)_by_source"))", ("s.source = ?", [caller])))
            let correlations = restricted.filter { !($0.type.correlationContents ?? []).isDisjoint(with: readable) }
            if !correlations.isEmpty {
                let readings = Set(correlations.flatMap { $0.type.correlationContents ?? [] }).intersection(readable).sorted()
                let byReadings = correlationsByReadings(readings, owner: owner, caller: caller, table: table, afterAnchor: afterAnchor)
                parts.append(try part(correlations, "\(name) s", byReadings))
            }
        }
        return parts
    }

    /// Whether `types` hold every sample type the owner's store has interned (unknown identifiers
    /// counting as sample types), so that every sample or tombstone row is of one of them.
    private func includesEveryStoredType(_ types: [(type: HealthType, id: Int64)], owner: Int64) throws(HealthError) -> Bool {
        let ids = Set(types.map(\.id))
        let all = try db.prepare("SELECT id, identifier FROM types WHERE owner = ?")
        all.bind(1, owner)
        var every = true
        while try all.step() {
            if !ids.contains(all.int(0)), all.text(1).flatMap(TypeCatalog.type)?.isSampleType != false { every = false }
        }
        return every
    }

    /// Other sources' correlations holding a reading of one of `readings`, found from those
    /// readings (their `parent` is the correlation's current anchor; a deleted reading's, the
    /// deleted correlation's `live_anchor`), so correlations without one are never read at all.
    private func correlationsByReadings(_ readings: [String], owner: Int64, caller: SQLValue, table: PredicateSQL.Table,
                                        afterAnchor: Int64?) -> (sql: String, arguments: [SQLValue]) {
        let names = readings.map { SQLValue.text($0) }
        let readingsByType = table == .samples ? "samples c \(db.dialect.indexedBy("samples_by_reading"))"
            : "tombstones c \(db.dialect.indexedBy("tombstones_by_type"))"
        var found = "SELECT c.parent FROM \(readingsByType) WHERE c.owner = ? AND c.parent IS NOT NULL"
            + " AND c.type IN (SELECT id FROM types WHERE owner = ? AND " + PredicateSQL.isIn("identifier", names.map { _ in "?" }) + ")"
        var arguments: [SQLValue] = [caller, .int(owner), .int(owner)] + names
        // Live correlations changed after the anchor are those whose readings point above it.
        if table == .samples, let afterAnchor {
            found += " AND c.parent > ?"
            arguments.append(.int(afterAnchor))
        }
        return ("s.source <> ? AND \(table == .samples ? "s.anchor" : "s.live_anchor") IN (\(found))", arguments)
    }

    /// Read scope on a correlation's readings: the caller's own, and those of types it reads.
    private func childFilter(_ scope: ReadScope, owner: Int64) throws(HealthError) -> (sql: String, arguments: [SQLValue])? {
        guard let readable = scope.readableTypes else { return nil }
        let names = readable.sorted().map { SQLValue.text($0) }
        let sql = "(s.source = ? OR s.type IN (SELECT id FROM types WHERE owner = ? AND " + PredicateSQL.isIn("identifier", names.map { _ in "?" }) + "))"
        return (sql, [.int(try sourceID(scope.callerBundleID, owner: owner) ?? -1), .int(owner)] + names)
    }

    func querySamples(owner: Int64, types: [String], predicate: QueryPredicate?, sort: [SampleSortDescriptor],
                      limit: Int, scope: ReadScope) throws(HealthError) -> [Sample] {
        guard limit >= 0 else { throw HealthError.invalid("limit must be 0 (no limit) or positive, got \(limit)", field: "limit") }
        let resolved = try resolve(types, owner: owner)
        guard !resolved.isEmpty else { return [] }
        let (from, whereSQL, arguments) = try filter(owner: owner, types: resolved, predicate: predicate, scope: scope, table: .samples)
        var order = sort.map { descriptor in
            let key = switch descriptor.key {
            case .startDate: "s.start_time"
            case .endDate: "s.end_time"
            case .workoutDuration: "(SELECT w.duration FROM workouts w WHERE w.owner = s.owner AND w.anchor = s.anchor)"
            }
            return key + (descriptor.descending ? " DESC" : " ASC")
        }
        order.append("s.anchor ASC")
        var sql = "SELECT \(SampleRows.columns) FROM \(from) WHERE \(whereSQL) ORDER BY " + order.joined(separator: ", ")
        if limit > 0 { sql += " LIMIT \(limit)" }
        return try rows.samples(sql, arguments, childFilter: try childFilter(scope, owner: owner))
    }

    func queryAnchored(owner: Int64, types: [String], predicate: QueryPredicate?, anchor: Data?, limit: Int,
                       scope: ReadScope) throws(HealthError) -> AnchoredResult {
        guard limit >= 0 else { throw HealthError.invalid("limit must be 0 (no limit) or positive, got \(limit)", field: "limit") }
        guard limit > 0 else {
            var answer: AnchoredResult?
            try streamAnchored(owner: owner, types: types, predicate: predicate, anchor: anchor, scope: scope, partRows: .max,
                               head: { answer = $0 }, part: { samples in
                answer = answer.map { AnchoredResult(samples: samples, deleted: $0.deleted, newAnchor: $0.newAnchor, scannedThrough: $0.scannedThrough) }
                return true
            })
            guard let answer else { throw HealthError(.internalError, "an anchored read ended without its anchors") }
            return answer
        }
        let window = try anchoredWindow(owner: owner, types: types, anchor: anchor, scope: scope)
        guard !window.types.isEmpty else { return window.nothing }
        var samples = SampleTableRows(rows, childFilter: try childFilter(scope, owner: owner))
        var sampleAnchors: [Int64] = []
        try mergedByAnchor(owner: owner, types: window.types, predicate: predicate, scope: scope, table: .samples,
                           after: window.start.sequence, columns: SampleRows.columns, anchorColumn: 1, limit: limit) { anchor, row throws(HealthError) in
            sampleAnchors.append(anchor)
            try samples.append(from: row)
            return true
        }
        let (deleted, deletedAnchors) = try deletions(owner: owner, types: window.types, predicate: predicate, scope: scope,
                                                      after: window.start.sequence, limit: limit)

        let taken = Self.firstInAnchorOrder(sampleAnchors, deletedAnchors, limit: limit)
        guard let lastTaken = taken.lastTaken else { return window.nothing }
        let pageSamples = taken.samples == sampleAnchors.count ? samples.table : samples.table.rows(0..<taken.samples)
        let pageDeleted = taken.deleted == deletedAnchors.count ? deleted : Array(deleted[..<taken.deleted])
        guard taken.complete else {
            // Cut by the limit: the caller has not caught up yet, so it keeps the horizon it started from.
            let next = AnchorToken(owner: owner, sequence: lastTaken, horizon: window.start.horizon).encoded(key: anchorKey)
            return AnchoredResult(samples: pageSamples, deleted: pageDeleted, newAnchor: next)
        }
        return AnchoredResult(samples: pageSamples, deleted: pageDeleted, newAnchor: window.anchor(after: lastTaken),
                              scannedThrough: window.scanned)
    }

    /// An anchored read with no limit whose samples go to `part`, in tables of at most `partRows`
    /// rows, as they are read. `head` first gets the answer without its samples — its deletions and
    /// anchors, found before any sample is read (the last sample's anchor by one indexed MAX per
    /// filter part, in the same read transaction) — so a caller can send each part while the next
    /// is read. Reading stops when `part` returns false.
    func streamAnchored(owner: Int64, types: [String], predicate: QueryPredicate?, anchor: Data?, scope: ReadScope, partRows: Int,
                        head: (AnchoredResult) -> Void, part: (SampleTable) -> Bool) throws(HealthError) {
        let window = try anchoredWindow(owner: owner, types: types, anchor: anchor, scope: scope)
        guard !window.types.isEmpty else { return head(window.nothing) }
        let after = window.start.sequence
        let (deleted, deletedAnchors) = try deletions(owner: owner, types: window.types, predicate: predicate, scope: scope, after: after, limit: 0)
        let lastSample = try lastSampleAnchor(owner: owner, types: window.types, predicate: predicate, scope: scope, after: after)
        let lastTaken = [lastSample, deletedAnchors.last].compactMap { $0 }.max()
        head(lastTaken.map { AnchoredResult(samples: [], deleted: deleted, newAnchor: window.anchor(after: $0), scannedThrough: window.scanned) }
             ?? window.nothing)
        guard lastSample != nil else { return }
        var samples = SampleTableRows(rows, childFilter: try childFilter(scope, owner: owner))
        var lastRead: Int64?
        var reading = true
        try mergedByAnchor(owner: owner, types: window.types, predicate: predicate, scope: scope, table: .samples,
                           after: after, columns: SampleRows.columns, anchorColumn: 1, limit: 0) { anchor, row throws(HealthError) in
            lastRead = anchor
            try samples.append(from: row)
            if samples.table.count >= partRows { reading = part(samples.takeTable()) }
            return reading
        }
        guard reading else { return }
        guard lastRead == lastSample else {
            throw HealthError(.internalError, "an anchored read ended at anchor \(lastRead ?? 0), not at its last sample's \(lastSample ?? 0)")
        }
        if !samples.table.isEmpty { _ = part(samples.takeTable()) }
    }

    /// Where an anchored read starts and what it answers with: the caller's anchor checked against
    /// the store, the types to read, and the anchors it may return.
    private func anchoredWindow(owner: Int64, types: [String], anchor: Data?, scope: ReadScope) throws(HealthError) -> AnchoredWindow {
        let last = try lastAnchor(owner: owner)
        let resolved = try resolve(types, owner: owner)
        let horizon = try purgeHorizon(owner: owner, types: resolved, scope: scope)
        // No anchor: nothing seen yet, and nothing at or below the horizon is left to see.
        var start = AnchorToken(owner: owner, sequence: 0, horizon: horizon)
        if let anchor {
            start = try AnchorToken(decoding: anchor, key: anchorKey, owner: owner)
            guard start.sequence <= last, start.horizon <= last else {
                throw HealthError(.invalidAnchor, "anchor is ahead of this store; was the store restored?", field: "anchor")
            }
            // A holder given nothing cannot miss the deletion of something it saw; otherwise deletions
            // above both its position and the horizon it synced against must all still be stored.
            guard start.sequence == 0 || max(start.sequence, start.horizon) >= horizon else {
                throw HealthError(.anchorExpired, "deletions this anchor may still need were purged; resync without an anchor", field: "anchor")
            }
        }
        let unchanged = anchor ?? AnchorToken(owner: owner, sequence: 0, horizon: 0).encoded(key: anchorKey)
        let scanned = AnchorToken(owner: owner, sequence: last, horizon: horizon).encoded(key: anchorKey)
        return AnchoredWindow(owner: owner, types: resolved, start: start, horizon: horizon, key: anchorKey,
                              nothing: AnchoredResult(samples: [], deleted: [], newAnchor: unchanged, scannedThrough: scanned))
    }

    /// An anchored read's bounds (see `anchoredWindow`).
    private struct AnchoredWindow {
        let owner: Int64
        let types: [(type: HealthType, id: Int64)]
        let start: AnchorToken
        let horizon: Int64
        let key: Data
        /// The answer when nothing is returned: the caller's anchor unchanged.
        let nothing: AnchoredResult
        var scanned: Data { nothing.scannedThrough }

        /// The anchor of a whole answer whose last object is at `lastTaken`.
        func anchor(after lastTaken: Int64) -> Data {
            AnchorToken(owner: owner, sequence: lastTaken, horizon: horizon).encoded(key: key)
        }
    }

    /// The first `limit` (0: all) deletions after `after`, with their anchors.
    private func deletions(owner: Int64, types: [(type: HealthType, id: Int64)], predicate: QueryPredicate?, scope: ReadScope,
                           after: Int64, limit: Int) throws(HealthError) -> ([DeletedObject], [Int64]) {
        var deleted: [DeletedObject] = []
        var anchors: [Int64] = []
        try mergedByAnchor(owner: owner, types: types, predicate: predicate, scope: scope, table: .tombstones,
                           after: after, columns: "s.anchor, s.uuid, s.type, s.metadata", anchorColumn: 0, limit: limit) { anchor, row throws(HealthError) in
            anchors.append(anchor)
            deleted.append(DeletedObject(uuid: row.uuid(1), type: try registry.type(row.int(2), owner: owner, db),
                                         metadata: try MetadataCoding.decode(row.blob(3))))
            return true
        }
        return (deleted, anchors)
    }

    /// The anchor of the last sample an anchored read after `after` returns (nil: none), without
    /// reading the rows: each filter part's MAX is read through the index that part is read through.
    private func lastSampleAnchor(owner: Int64, types: [(type: HealthType, id: Int64)], predicate: QueryPredicate?, scope: ReadScope,
                            after: Int64) throws(HealthError) -> Int64? {
        var last: Int64?
        for part in try filterParts(owner: owner, types: types, predicate: predicate, scope: scope, table: .samples, afterAnchor: after) {
            let statement = try db.prepareOnce("SELECT MAX(s.anchor) FROM \(part.from) WHERE \(part.sql)")
            statement.bind(all: part.arguments)
            if try statement.step(), let anchor = statement.optionalInt(0) { last = max(last ?? anchor, anchor) }
        }
        return last
    }

    /// Visits the first `limit` (0: all) rows of `table` changed after `after` with their anchors, in
    /// anchor order, until `visit` returns false: each filter part is read by its own statement in anchor order and
    /// merged here, so SQLite never sorts the whole answer.
    private func mergedByAnchor(owner: Int64, types: [(type: HealthType, id: Int64)], predicate: QueryPredicate?, scope: ReadScope,
                                table: PredicateSQL.Table, after: Int64, columns: String, anchorColumn: Int32, limit: Int,
                                visit: (_ anchor: Int64, Statement) throws(HealthError) -> Bool) throws(HealthError) {
        let parts = try filterParts(owner: owner, types: types, predicate: predicate, scope: scope, table: table, afterAnchor: after)
        var streams: [Statement] = []
        // Heads of the streams not yet exhausted, by descending anchor: the next row is the last.
        var heads: [(anchor: Int64, stream: Int)] = []
        func advance(_ stream: Int) throws(HealthError) {
            guard try streams[stream].step() else { return }
            let anchor = streams[stream].int(anchorColumn)
            var low = 0, high = heads.count
            while low < high {
                let middle = (low + high) / 2
                if heads[middle].anchor > anchor { low = middle + 1 } else { high = middle }
            }
            heads.insert((anchor, stream), at: low)
        }
        for part in parts {
            let statement = try db.prepareOnce("SELECT \(columns) FROM \(part.from) WHERE \(part.sql) ORDER BY s.anchor" + (limit > 0 ? " LIMIT \(limit)" : ""))
            statement.bind(all: part.arguments)
            streams.append(statement)
            try advance(streams.count - 1)
        }
        var visited = 0
        while limit == 0 || visited < limit, let head = heads.popLast() {
            visited += 1
            guard try visit(head.anchor, streams[head.stream]) else { return }
            try advance(head.stream)
        }
    }

    /// How many of each list's first objects the first `limit` (0: all) of both in anchor order
    /// take; `lastTaken` is the anchor of the last object taken, `complete` whether nothing was left out.
    private static func firstInAnchorOrder(_ samples: [Int64], _ deleted: [Int64],
                                           limit: Int) -> (samples: Int, deleted: Int, lastTaken: Int64?, complete: Bool) {
        let total = samples.count + deleted.count
        let count = limit > 0 ? min(limit, total) : total
        var i = 0, j = 0
        if count == total {
            (i, j) = (samples.count, deleted.count)
        } else {
            while i + j < count {
                if j >= deleted.count || (i < samples.count && samples[i] < deleted[j]) { i += 1 } else { j += 1 }
            }
        }
        // Each list is in anchor order, so the last taken is the larger of the two last taken.
        let lastTaken = count == 0 ? nil : max(i > 0 ? samples[i - 1] : .min, j > 0 ? deleted[j - 1] : .min)
        return (i, j, lastTaken, limit == 0 || total < limit)
    }

    /// What `querySamples` would return, counted per type, source and device in one GROUP BY over the
    /// same filter (so a read-restricted caller counts only what it could read); each source is named
    /// by its latest revision among the counted rows.
    func countSamples(owner: Int64, types: [String], predicate: QueryPredicate?, scope: ReadScope) throws(HealthError) -> [SampleCount] {
        let resolved = try resolve(types, owner: owner)
        guard !resolved.isEmpty else { return [] }
        let (from, whereSQL, arguments) = try filter(owner: owner, types: resolved, predicate: predicate, scope: scope, table: .samples)
        let statement = try db.prepareOnce("""
            SELECT s.type, MAX(s.revision), s.device, COUNT(*) FROM \(from) WHERE \(whereSQL)
            GROUP BY s.type, s.source, s.device
            """)
        statement.bind(all: arguments)
        var counts: [(count: SampleCount, device: Int64)] = []
        while try statement.step() {
            let device = statement.optionalInt(2)
            counts.append((SampleCount(type: try registry.type(statement.int(0), owner: owner, db),
                                       source: try registry.revision(statement.int(1), owner: owner, db).source,
                                       device: try device.map { id throws(HealthError) in try registry.device(id, owner: owner, db) },
                                       count: UInt64(statement.int(3))), device ?? -1))
        }
        return counts.sorted { ($0.count.type, $0.count.source.bundleID, $0.device) < ($1.count.type, $1.count.source.bundleID, $1.device) }
            .map(\.count)
    }

    /// Distinct sources of readable rows, named by their latest revision.
    func querySources(owner: Int64, type: String, predicate: QueryPredicate?, scope: ReadScope) throws(HealthError) -> [Source] {
        let resolved = try resolve([type], owner: owner)
        guard !resolved.isEmpty else { return [] }
        let (from, whereSQL, arguments) = try filter(owner: owner, types: resolved, predicate: predicate, scope: scope, table: .samples)
        let statement = try db.prepareOnce("SELECT MAX(s.revision), s.source FROM \(from) WHERE \(whereSQL) GROUP BY s.source")
        statement.bind(all: arguments)
        let imports = try db.prepare("SELECT imported FROM source_imports WHERE owner = ? AND source = ?")
        var sources: [Source] = []
        while try statement.step() {
            let source = try registry.revision(statement.int(0), owner: owner, db).source
            imports.reset()
            imports.bind(1, owner)
            imports.bind(2, statement.int(1))
            let importedTime = try imports.step() ? imports.int(0) : nil
            sources.append(Source(name: source.name, bundleID: source.bundleID, importedTime: importedTime))
        }
        return sources.sorted { $0.bundleID < $1.bundleID }
    }

    /// Distinct devices of readable rows, of one type or of every stored type.
    func queryDevices(owner: Int64, type: String?, scope: ReadScope) throws(HealthError) -> [Device] {
        let types = if let type { try resolve([type], owner: owner) } else { try storedSampleTypes(owner: owner) }
        guard !types.isEmpty else { return [] }
        let (from, whereSQL, arguments) = try filter(owner: owner, types: types, predicate: nil, scope: scope, table: .samples)
        let statement = try db.prepareOnce("SELECT DISTINCT s.device FROM \(from) WHERE \(whereSQL) AND s.device IS NOT NULL")
        statement.bind(all: arguments)
        var devices: [Device] = []
        while try statement.step() { devices.append(try registry.device(statement.int(0), owner: owner, db)) }
        return devices
    }
}
