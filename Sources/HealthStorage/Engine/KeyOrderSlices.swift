import Foundation
import HealthModel

/// A run of a type's rows consecutive in (start, anchor) order, at most a fixed number of them, with
/// the ranges of the primary key (owner, type, anchor) that hold them all.
struct KeyOrderSlice {
    /// The run's first and last rows' (start, anchor): the run is every row between them, both included.
    var first: (start: Microseconds, anchor: Int64)
    var last: (start: Microseconds, anchor: Int64)
    var count: Int
    /// Ascending, disjoint ranges of anchors holding every row of the run (and some rows of others).
    var anchors: [ClosedRange<Int64>] = []
    /// Rows of the type in those ranges, at most: `count` when they hold no other run's rows.
    var visits = 0
    /// The parts of the type's anchors (`KeyOrderPlan.parts`) holding rows of the run, one bit each.
    fileprivate var parts: [UInt64]

    fileprivate init(start: Microseconds, anchor: Int64) {
        first = (start, anchor)
        last = first
        count = 1
        parts = [UInt64](repeating: 0, count: KeyOrderPlan.parts / 64)
    }
}

/// A statistics read of a whole type cut into slices, and what reading them by key costs.
struct KeyOrderPlan {
    /// How many equal parts of its anchors a type's rows are counted in: the grain of a slice's ranges.
    static let parts = 16_384
    /// What starting one more range of the key costs, in rows passed over: a seek, a reset and a bind.
    static let rangeCost = 16

    var slices: [KeyOrderSlice] = []
    /// Rows that reading each slice's ranges of the key visits (its own and other slices'), at most.
    var visits = 0

    var rows: Int { slices.reduce(0) { $0 + $1.count } }
    var ranges: Int { slices.reduce(0) { $0 + $1.anchors.count } }

    /// Whether reading the slices' key ranges costs less than seeking every row through
    /// `samples_by_source`. A row of a key range outside its slice costs SQLite ≈ 0.17 µs to pass over,
    /// a range's seek about as much as `rangeCost` of them, while seeking a row through the index
    /// costs ≈ 1.8 µs more than reading it in key order; so up to about ten rows visited per row read
    /// still win. Rows saved in time order, or sources saved one after another each in time order,
    /// give slices whose rows lie in a few runs of anchors; rows saved in no order give every slice
    /// a range a row or nearly the whole type.
    var keyRangesWin: Bool { visits + Self.rangeCost * ranges <= 8 * rows }
}

extension ReadContext {
    /// The owner's rows of `typeID` cut in (start, anchor) order into slices of at most `rows` rows,
    /// from `samples_by_source`'s entries alone, its sources merged (`typeBySource`; an entry holds
    /// the anchor: no row of the table is read), each with the ranges of anchors its rows lie in.
    func keyOrderPlan(owner: Int64, typeID: Int64, rows: Int) throws(HealthError) -> KeyOrderPlan {
        // Two subqueries, each an index seek: SQLite takes MIN or MAX from one end of an index only
        // when it is the query's sole aggregate, and scans every row of the type for both at once.
        let extent = try db.prepare("""
            SELECT (SELECT MIN(anchor) FROM samples WHERE owner = ?1 AND type = ?2),
                   (SELECT MAX(anchor) FROM samples WHERE owner = ?1 AND type = ?2)
            """)
        extent.bind(all: [.int(owner), .int(typeID)])
        defer { extent.reset() }
        guard try extent.step(), let lowest = extent.optionalInt(0), let highest = extent.optionalInt(1) else { return KeyOrderPlan() }
        // The type's rows counted in equal parts of its anchors, and each slice's parts marked, so a
        // slice reads only the parts its rows lie in and the rows each visits are known, in constant
        // memory a slice.
        let width = (highest - lowest) / Int64(KeyOrderPlan.parts) + 1
        var perPart = [Int](repeating: 0, count: KeyOrderPlan.parts)
        var plan = KeyOrderPlan()
        let bySource = try db.typeBySource(owner: owner, typeID: typeID)
        let statement = try db.prepareStreamed("SELECT s.start_time, s.anchor FROM \(bySource.from) ORDER BY s.start_time, s.anchor")
        statement.bind(all: bySource.arguments)
        var slice: KeyOrderSlice?
        while try statement.step() {
            let start = statement.int(0), anchor = statement.int(1)
            let part = Int((anchor - lowest) / width)
            perPart[part] += 1
            if slice == nil || slice!.count == rows {
                if let full = slice { plan.slices.append(full) }
                slice = KeyOrderSlice(start: start, anchor: anchor)
            } else {
                slice!.last = (start, anchor)
                slice!.count += 1
            }
            slice!.parts[part >> 6] |= 1 << UInt64(part & 63)
        }
        if let slice { plan.slices.append(slice) }
        for index in plan.slices.indices {
            // Runs of marked parts, joined across gaps whose rows cost less to pass over than a seek.
            var runs: [(from: Int, to: Int)] = []
            for (word, bits) in plan.slices[index].parts.enumerated() where bits != 0 {
                var rest = bits
                while rest != 0 {
                    let part = word * 64 + rest.trailingZeroBitCount
                    rest &= rest - 1
                    plan.slices[index].visits += perPart[part]
                    if let last = runs.last, case let between = perPart[last.to + 1..<part].reduce(0, +), between <= KeyOrderPlan.rangeCost {
                        plan.slices[index].visits += between
                        runs[runs.count - 1].to = part
                    } else {
                        runs.append((part, part))
                    }
                }
            }
            plan.slices[index].anchors = runs.map { lowest + Int64($0.from) * width...lowest + Int64($0.to + 1) * width - 1 }
            plan.slices[index].parts = []
            plan.visits += plan.slices[index].visits
        }
        return plan
    }
}
