import Foundation
import HealthModel

/// The read paths, each run on a reader thread.
extension ReadContext {
    /// WHERE clause (without the word) selecting an owner's readable rows of `types` matching `predicate`.
    private func filter(owner: Int64, types: [(type: HealthType, id: Int64)], predicate: QueryPredicate?, scope: ReadScope,
                        table: PredicateSQL.Table, afterAnchor: Int64? = nil) throws(HealthError) -> (sql: String, arguments: [SQLValue]) {
        var builder = PredicateSQL(table: table, types: types)
        var clauses = ["s.owner = ?"]
        var arguments: [SQLValue] = [.int(owner)]
        // In anchored queries "+" keeps the type off the (owner, type, start) index: the primary key
        // range (owner, anchor > A) is the scan that stays short for a recent anchor.
        let typeColumn = afterAnchor == nil ? "s.type" : "+s.type"
        clauses.append("\(typeColumn) IN (" + types.map { String($0.id) }.joined(separator: ", ") + ")")
        if let afterAnchor {
            clauses.append("s.anchor > ?")
            arguments.append(.int(afterAnchor))
        }
        if let predicate {
            clauses.append(try builder.clause(predicate))
            if afterAnchor == nil, let hint = builder.indexHint(for: predicate, owner: owner) { clauses.append(hint) }
        }
        arguments += builder.arguments
        if let scopeSQL = try ScopeSQL(scope: scope, types: types.map(\.type), table: table, context: self) {
            clauses.append(scopeSQL.sql)
            arguments += scopeSQL.arguments
        }
        return (clauses.joined(separator: " AND "), arguments)
    }

    private func childFilter(_ scope: ReadScope) throws(HealthError) -> (sql: String, arguments: [SQLValue])? {
        try ScopeSQL(scope: scope, types: nil, table: .samples, context: self).map { ($0.sql, $0.arguments) }
    }

    func querySamples(owner: Int64, types: [String], predicate: QueryPredicate?, sort: [SampleSortDescriptor],
                      limit: Int, scope: ReadScope) throws(HealthError) -> [Sample] {
        guard limit >= 0 else { throw HealthError.invalid("limit must be 0 (no limit) or positive, got \(limit)", field: "limit") }
        let resolved = try resolve(types)
        guard !resolved.isEmpty else { return [] }
        let (whereSQL, arguments) = try filter(owner: owner, types: resolved, predicate: predicate, scope: scope, table: .samples)
        var order = sort.map { descriptor in
            let key = switch descriptor.key {
            case .startDate: "s.start_time"
            case .endDate: "s.end_time"
            case .workoutDuration: "(SELECT w.duration FROM workouts w WHERE w.owner = s.owner AND w.anchor = s.anchor)"
            }
            return key + (descriptor.descending ? " DESC" : " ASC")
        }
        order.append("s.anchor ASC")
        var sql = "SELECT \(SampleRows.columns) FROM samples s WHERE \(whereSQL) ORDER BY " + order.joined(separator: ", ")
        if limit > 0 { sql += " LIMIT \(limit)" }
        return try rows.samples(sql, arguments, childFilter: try childFilter(scope))
    }

    func queryAnchored(owner: Int64, types: [String], predicate: QueryPredicate?, anchor: Data?, limit: Int,
                       scope: ReadScope) throws(HealthError) -> AnchoredResult {
        guard limit >= 0 else { throw HealthError.invalid("limit must be 0 (no limit) or positive, got \(limit)", field: "limit") }
        let (last, purged) = try anchors(owner: owner)
        var after: Int64 = 0
        if let anchor {
            let token = try AnchorToken(decoding: anchor, epoch: epoch, owner: owner)
            guard token.sequence <= last else {
                throw HealthError(.invalidAnchor, "anchor \(token.sequence) is ahead of this store (at \(last)); was the store restored?", field: "anchor")
            }
            guard token.sequence >= purged else {
                throw HealthError(.anchorExpired, "deletions before anchor \(purged) were purged; resync without an anchor", field: "anchor")
            }
            after = token.sequence
        }
        let resolved = try resolve(types)
        guard !resolved.isEmpty else { return AnchoredResult(samples: [], deleted: [], newAnchor: anchorData(owner: owner, sequence: last)) }
        let limitSQL = limit > 0 ? " LIMIT \(limit)" : ""

        let live = try filter(owner: owner, types: resolved, predicate: predicate, scope: scope, table: .samples, afterAnchor: after)
        let sampleRows = try db.prepareOnce("SELECT \(SampleRows.columns) FROM samples s WHERE \(live.sql) ORDER BY s.anchor" + limitSQL)
        sampleRows.bind(all: live.arguments)
        let children = try childFilter(scope)
        var samples: [(anchor: Int64, sample: Sample)] = []
        while try sampleRows.step() { samples.append((sampleRows.int(1), try rows.sample(from: sampleRows, childFilter: children))) }

        let gone = try filter(owner: owner, types: resolved, predicate: predicate, scope: scope, table: .tombstones, afterAnchor: after)
        let tombstoneRows = try db.prepareOnce("SELECT s.anchor, s.uuid, s.type, s.metadata FROM tombstones s WHERE \(gone.sql) ORDER BY s.anchor" + limitSQL)
        tombstoneRows.bind(all: gone.arguments)
        var deleted: [(anchor: Int64, object: DeletedObject)] = []
        while try tombstoneRows.step() {
            deleted.append((tombstoneRows.int(0), DeletedObject(uuid: tombstoneRows.uuid(1), type: try registry.type(tombstoneRows.int(2), db),
                                                                metadata: try MetadataCoding.decode(tombstoneRows.blob(3)))))
        }
        return Self.merge(samples, deleted, limit: limit, owner: owner, last: last, context: self)
    }

    /// Takes the first `limit` of both lists in anchor order; the new anchor is the last one taken when
    /// the limit cut the answer, else the owner's last anchor in this snapshot.
    private static func merge(_ samples: [(anchor: Int64, sample: Sample)], _ deleted: [(anchor: Int64, object: DeletedObject)],
                              limit: Int, owner: Int64, last: Int64, context: ReadContext) -> AnchoredResult {
        guard limit > 0, samples.count + deleted.count >= limit else {
            return AnchoredResult(samples: samples.map(\.sample), deleted: deleted.map(\.object),
                                  newAnchor: context.anchorData(owner: owner, sequence: last))
        }
        var takenSamples: [Sample] = [], takenDeleted: [DeletedObject] = []
        var i = 0, j = 0, lastTaken: Int64 = 0
        while i + j < limit {
            if j >= deleted.count || (i < samples.count && samples[i].anchor < deleted[j].anchor) {
                takenSamples.append(samples[i].sample); lastTaken = samples[i].anchor; i += 1
            } else {
                takenDeleted.append(deleted[j].object); lastTaken = deleted[j].anchor; j += 1
            }
        }
        return AnchoredResult(samples: takenSamples, deleted: takenDeleted, newAnchor: context.anchorData(owner: owner, sequence: lastTaken))
    }

    func statisticsSamples(owner: Int64, type: String, predicate: QueryPredicate?, scope: ReadScope) throws(HealthError) -> [StatisticsSample] {
        let resolved = try resolve([type])
        guard !resolved.isEmpty else { return [] }
        let (whereSQL, arguments) = try filter(owner: owner, types: resolved, predicate: predicate, scope: scope, table: .samples)
        let statement = try db.prepareOnce("""
            SELECT s.start_time, s.end_time, s.value, s.revision, s.flags FROM samples s
            WHERE \(whereSQL) AND s.value IS NOT NULL ORDER BY s.start_time, s.anchor
            """)
        statement.bind(all: arguments)
        var result: [StatisticsSample] = []
        while try statement.step() {
            result.append(StatisticsSample(start: statement.int(0), end: statement.int(1), value: statement.double(2),
                                           source: try registry.revision(statement.int(3), db).source,
                                           wasUserEntered: statement.int(4) & SampleRows.userEntered != 0))
        }
        return result
    }

    /// Distinct sources of readable rows, named by their latest revision.
    func querySources(owner: Int64, type: String, predicate: QueryPredicate?, scope: ReadScope) throws(HealthError) -> [Source] {
        let resolved = try resolve([type])
        guard !resolved.isEmpty else { return [] }
        let (whereSQL, arguments) = try filter(owner: owner, types: resolved, predicate: predicate, scope: scope, table: .samples)
        let statement = try db.prepareOnce("SELECT MAX(s.revision) FROM samples s WHERE \(whereSQL) GROUP BY s.source")
        statement.bind(all: arguments)
        var sources: [Source] = []
        while try statement.step() { sources.append(try registry.revision(statement.int(0), db).source) }
        return sources.sorted { $0.bundleID < $1.bundleID }
    }

    func queryDevices(owner: Int64, type: String?, scope: ReadScope) throws(HealthError) -> [Device] {
        var sql = "SELECT DISTINCT s.device FROM samples s WHERE s.owner = ? AND s.device IS NOT NULL"
        var arguments: [SQLValue] = [.int(owner)]
        var types: [HealthType]?
        if let type {
            let resolved = try resolve([type])
            guard let only = resolved.first else { return [] }
            sql += " AND s.type = \(only.id)"
            types = [only.type]
        }
        if let scopeSQL = try ScopeSQL(scope: scope, types: types, table: .samples, context: self) {
            sql += " AND " + scopeSQL.sql
            arguments += scopeSQL.arguments
        }
        let statement = try db.prepareOnce(sql)
        statement.bind(all: arguments)
        var devices: [Device] = []
        while try statement.step() { devices.append(try registry.device(statement.int(0), db)) }
        return devices
    }
}
