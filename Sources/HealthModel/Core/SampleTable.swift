import Foundation

/// Samples as rows that name their type, unit, device and source revision by index, each distinct
/// one held once: a large read costs a small record per plain quantity or category sample instead
/// of a `Sample` with its own copies of every string, and an encoder builds each shared part once.
/// Reads as a collection of `Sample`; any other sample is kept whole.
public struct SampleTable: Sendable {
    /// One sample; `device` and `revision` are -1 for none.
    public struct Row: Sendable {
        public let uuid: UUID
        public let type: Int32
        public let device: Int32
        public let revision: Int32
        public let start: Microseconds
        public let end: Microseconds
        public let creationTime: Microseconds?
        public let body: Body

        public init(uuid: UUID, type: Int32, device: Int32, revision: Int32, start: Microseconds, end: Microseconds,
                    creationTime: Microseconds?, body: Body) {
            (self.uuid, self.type, self.device, self.revision) = (uuid, type, device, revision)
            (self.start, self.end, self.creationTime, self.body) = (start, end, creationTime, body)
        }
    }

    /// A row's body: plain values, or the index of a sample kept whole (it has metadata, or a body
    /// of another kind, or a series summary).
    public enum Body: Sendable {
        case quantity(value: Double, unit: Int32, count: Int64)
        case category(Int64)
        case whole(Int)
    }

    public private(set) var types: [String] = []
    public private(set) var units: [String] = []
    public private(set) var devices: [Device] = []
    public private(set) var revisions: [SourceRevision] = []
    public private(set) var wholes: [Sample] = []
    public private(set) var rows: [Row] = []

    public init() {}

    /// Every sample kept whole.
    public init(_ samples: some Sequence<Sample>) {
        for sample in samples { append(sample) }
    }

    /// The index of a new shared part; callers add each distinct one once and remember its index.
    public mutating func add(type: String) -> Int32 { Self.add(type, to: &types) }
    public mutating func add(device: Device) -> Int32 { Self.add(device, to: &devices) }
    public mutating func add(revision: SourceRevision) -> Int32 { Self.add(revision, to: &revisions) }

    /// The index of `unit`, added when new (units are few: a short scan finds one).
    public mutating func add(unit: String) -> Int32 {
        units.firstIndex(of: unit).map(Int32.init) ?? Self.add(unit, to: &units)
    }

    private static func add<T>(_ part: T, to parts: inout [T]) -> Int32 {
        parts.append(part)
        return Int32(parts.count - 1)
    }

    /// Makes room for `count` rows in all, so that appending that many grows the rows' storage once.
    public mutating func reserveCapacity(rows count: Int) {
        rows.reserveCapacity(count)
    }

    /// Appends a row whose indexes this table gave out.
    public mutating func append(_ row: Row) {
        rows.append(row)
    }

    /// Appends a sample kept whole.
    public mutating func append(_ sample: Sample) {
        wholes.append(sample)
        rows.append(Row(uuid: sample.uuid, type: -1, device: -1, revision: -1, start: sample.start, end: sample.end,
                        creationTime: sample.creationTime, body: .whole(wholes.count - 1)))
    }

    /// Appends every row of `other`, its parts added after this table's.
    public mutating func append(contentsOf other: SampleTable) {
        let (type, unit, device, revision, whole) = (Int32(types.count), Int32(units.count), Int32(devices.count),
                                                     Int32(revisions.count), wholes.count)
        func shifted(_ index: Int32, _ by: Int32) -> Int32 { index < 0 ? index : index + by }
        types += other.types
        units += other.units
        devices += other.devices
        revisions += other.revisions
        wholes += other.wholes
        rows.reserveCapacity(rows.count + other.rows.count)
        for row in other.rows {
            let body: Body = switch row.body {
            case .quantity(let value, let u, let count): .quantity(value: value, unit: u + unit, count: count)
            case .category: row.body
            case .whole(let index): .whole(index + whole)
            }
            rows.append(Row(uuid: row.uuid, type: shifted(row.type, type), device: shifted(row.device, device),
                            revision: shifted(row.revision, revision), start: row.start, end: row.end,
                            creationTime: row.creationTime, body: body))
        }
    }

    /// Drops every row and whole sample, keeping the shared parts and their indexes.
    public mutating func removeRows() {
        rows.removeAll(keepingCapacity: true)
        wholes.removeAll()
    }

    /// The rows in `range`, sharing this table's parts.
    public func rows(_ range: Range<Int>) -> SampleTable {
        var page = self
        page.rows = Array(rows[range])
        return page
    }

    /// The same rows with the whole samples replaced by `wholes`, one for one.
    public func replacingWholes(_ wholes: [Sample]) -> SampleTable {
        precondition(wholes.count == self.wholes.count, "\(wholes.count) samples replace \(self.wholes.count)")
        var replaced = self
        replaced.wholes = wholes
        return replaced
    }
}

extension SampleTable: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { rows.count }

    public subscript(position: Int) -> Sample {
        let row = rows[position]
        let body: SampleBody
        switch row.body {
        case .whole(let index): return wholes[index]
        case .quantity(let value, let unit, let count): body = .quantity(Quantity(value, units[Int(unit)]), count: count)
        case .category(let value): body = .category(value)
        }
        return Sample(uuid: row.uuid, type: types[Int(row.type)], start: row.start, end: row.end,
                      device: row.device < 0 ? nil : devices[Int(row.device)],
                      sourceRevision: row.revision < 0 ? nil : revisions[Int(row.revision)],
                      creationTime: row.creationTime, body: body)
    }
}

extension SampleTable: ExpressibleByArrayLiteral {
    public init(arrayLiteral samples: Sample...) {
        self.init(samples)
    }
}

/// Equal when they read as equal samples, however each is held.
extension SampleTable: Hashable {
    public static func == (lhs: SampleTable, rhs: SampleTable) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for sample in self { hasher.combine(sample) }
    }
}

extension SampleTable: CustomStringConvertible {
    public var description: String { Array(self).description }
}
