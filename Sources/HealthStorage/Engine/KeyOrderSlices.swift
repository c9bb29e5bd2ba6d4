import Foundation
import HealthModel

/// A run of a type's rows consecutive in (start, anchor) order, at most a fixed number of them, with
/// the range of the primary key (owner, type, anchor) that holds them all.
struct KeyOrderSlice {
    /// The run's first and last rows' (start, anchor): the run is every row between them, both included.
    var first: (start: Microseconds, anchor: Int64)
    var last: (start: Microseconds, anchor: Int64)
    var count: Int
    var lowestAnchor: Int64
    var highestAnchor: Int64

    init(start: Microseconds, anchor: Int64) {
        first = (start, anchor)
        last = first
        count = 1
        lowestAnchor = anchor
        highestAnchor = anchor
    }

    mutating func add(start: Microseconds, anchor: Int64) {
        last = (start, anchor)
        count += 1
        lowestAnchor = min(lowestAnchor, anchor)
        highestAnchor = max(highestAnchor, anchor)
    }
}

/// A statistics read of a whole type cut into slices, and what reading them by key costs.
struct KeyOrderPlan {
    var slices: [KeyOrderSlice] = []
    /// Rows that reading each slice's range of the key visits (its own and other slices'), at most.
    var visits = 0

    var rows: Int { slices.reduce(0) { $0 + $1.count } }

    /// Whether reading the slices' key ranges costs less than seeking every row through
    /// `samples_by_time`. A row of a key range outside its slice costs SQLite ≈ 0.17 µs to pass over,
    /// while seeking a row through the index costs ≈ 1.8 µs more than reading it in key order; so up
    /// to about ten rows visited per row read still win. Rows saved in time order give slices whose
    /// ranges barely overlap; sources saved one after another, each in time order, a few visits a
    /// row (a model of the stats bench's load: 3.7 for its year of steps, 2.2 for heart rate, at
    /// 262,144 rows a slice; more slices, more visits); rows saved in no order give every slice
    /// nearly the whole type.
    var keyRangesWin: Bool { visits <= 8 * rows }
}

extension ReadContext {
    /// The owner's rows of `typeID` cut in (start, anchor) order into slices of at most `rows` rows,
    /// from `samples_by_time` alone (its entries hold the anchor: no row of the table is read).
    func keyOrderPlan(owner: Int64, typeID: Int64, rows: Int) throws(HealthError) -> KeyOrderPlan {
        let extent = try db.prepare("SELECT MIN(anchor), MAX(anchor) FROM samples WHERE owner = ? AND type = ?")
        extent.bind(all: [.int(owner), .int(typeID)])
        defer { extent.reset() }
        guard try extent.step(), let lowest = extent.optionalInt(0), let highest = extent.optionalInt(1) else { return KeyOrderPlan() }
        // The type's rows counted in 4,096 equal parts of its anchors, so the rows of each slice's
        // key range are known to within the two parts it ends in, in constant memory.
        let width = (highest - lowest) / 4_096 + 1
        func part(_ anchor: Int64) -> Int { Int((anchor - lowest) / width) }
        var perPart = [Int](repeating: 0, count: 4_096)
        var plan = KeyOrderPlan()
        let statement = try db.prepare("""
            SELECT s.start_time, s.anchor FROM samples s \(db.dialect.indexedBy("samples_by_time"))
            WHERE s.owner = ? AND s.type = ? ORDER BY s.start_time, s.anchor
            """)
        statement.bind(all: [.int(owner), .int(typeID)])
        while try statement.step() {
            let start = statement.int(0), anchor = statement.int(1)
            perPart[part(anchor)] += 1
            if let last = plan.slices.indices.last, plan.slices[last].count < rows {
                plan.slices[last].add(start: start, anchor: anchor)
            } else {
                plan.slices.append(KeyOrderSlice(start: start, anchor: anchor))
            }
        }
        var before = [0]
        for count in perPart { before.append(before[before.count - 1] + count) }
        plan.visits = plan.slices.reduce(0) { $0 + before[part($1.highestAnchor) + 1] - before[part($1.lowestAnchor)] }
        return plan
    }
}
