import Foundation
import HealthModel

/// The rows a finished quantity series adds to its sample: the row's flag, and the discrete summary
/// (in the row's unit) read back with the sample.
struct QuantitySeriesRows {
    let db: Database

    func markStored(owner: Int64, _ sample: Sample) throws(HealthError) {
        let flag = try db.prepare("UPDATE samples SET flags = flags | ? WHERE \(db.dialect.sampleByUUID())")
        flag.bind(all: [.int(SampleRows.quantitySeries), .int(owner), .uuid(sample.uuid)])
        try flag.run()
        guard let summary = sample.discreteSeries else { return }
        let insert = try db.prepare("""
            INSERT INTO discrete_series (owner, uuid, minimum, maximum, most_recent, most_recent_start, most_recent_end)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        insert.bind(all: [.int(owner), .uuid(sample.uuid), .double(summary.minimum.value), .double(summary.maximum.value),
                          .double(summary.mostRecent.value), .int(summary.mostRecentStart), .int(summary.mostRecentEnd)])
        try insert.run()
    }

    /// The discrete summary of a flagged row whose quantity is in `unit`; nil for a cumulative series.
    func summary(owner: Int64, uuid: UUID, unit: String) throws(HealthError) -> DiscreteSeriesSummary? {
        let row = try db.prepare("""
            SELECT minimum, maximum, most_recent, most_recent_start, most_recent_end FROM discrete_series WHERE owner = ? AND uuid = ?
            """)
        row.bind(all: [.int(owner), .uuid(uuid)])
        defer { row.reset() }
        guard try row.step() else { return nil }
        return DiscreteSeriesSummary(minimum: Quantity(row.double(0), unit), maximum: Quantity(row.double(1), unit),
                                     mostRecent: Quantity(row.double(2), unit), mostRecentStart: row.int(3), mostRecentEnd: row.int(4))
    }

    /// Drops a deleted series sample's points and summary.
    func delete(owner: Int64, uuid: UUID) throws(HealthError) {
        try SeriesChunks(db: db).delete(owner: owner, series: uuid)
        let delete = try db.prepare("DELETE FROM discrete_series WHERE owner = ? AND uuid = ?")
        delete.bind(all: [.int(owner), .uuid(uuid)])
        try delete.run()
    }

    /// Every point of a stored series, as statistics take them: in the type's `canonical` unit.
    func statisticsPoints(owner: Int64, uuid: UUID, canonical: String, source: Source,
                          wasUserEntered: Bool) throws(HealthError) -> [StatInput] {
        let points: [QuantitySeriesPoint] = try SeriesChunks(db: db).read(owner: owner, series: uuid, from: 0, limit: .max)
        var result: [StatInput] = []
        result.reserveCapacity(points.count)
        for point in points {
            let value = point.quantity.unit == canonical ? point.quantity.value : try point.quantity.value(in: canonical)
            result.append(StatInput(start: point.start, end: point.end, value: value, sourceBundleID: source.bundleID,
                                    sourceName: source.name, wasUserEntered: wasUserEntered))
        }
        return result
    }
}
