import Foundation

/// PostgreSQL's insert of a chunk of plain samples (`SQLDialect.insertsSampleArrays`): one array
/// parameter per column, unnested into rows, instead of a `VALUES` list of twenty parameters a row.
/// The server then parses one array per column rather than a parameter per value, and healthd builds
/// twenty buffers a chunk rather than two a value. The arrays are unnested in the select list, in
/// step, one row at a time: `FROM unnest(a, b, …)` stores each array's rows in a tuplestore of its
/// own before joining them.
///
/// A row whose UUID the owner already holds is skipped by `ON CONFLICT (owner, uuid) DO NOTHING`:
/// the unique index itself decides, so a UUID saved at the same time by another node's writer on the
/// same database (DESIGN.md, scale-out) is skipped once that writer commits, or inserted if it rolls
/// back, whatever locks either holds; and a UUID repeated within the chunk is skipped as stored by its
/// first row. Naming the conflict target keeps the speculative insertion to that one index (a bare
/// `ON CONFLICT DO NOTHING` probes the key's index too, a descent a row for nothing) and lets a clash on
/// the key still fail the chunk. It costs the backend what the earlier `WHERE NOT EXISTS` probe of the
/// same index did (bench/README.md, "PostgreSQL ingest: the UUID decided by its unique index"), and does
/// not lean on the owner's anchor-counter lock (lost with the savepoint of a job that failed after
/// taking it) nor on the planner keeping a nested-loop probe (a custom plan over a table it thinks small
/// hashes the whole samples table for every chunk).
extension SampleRow {
    static let arraysSQL = newArraysSQL + "\nON CONFLICT (owner, uuid) DO NOTHING"

    /// The same insert for rows taken to be new (`WriteContext.assumesNewUUIDs`): a UUID the owner
    /// holds, or one repeated in the chunk, fails the statement instead of being skipped. The unique
    /// index still checks every row, within the descent that inserts its entry; what goes is
    /// `ON CONFLICT`'s probe of that index before it, a second descent a row (18 % of the statement in
    /// the profile of bench/README.md, "PostgreSQL ingest: the UUID decided by its unique index").
    static let newArraysSQL = """
        INSERT INTO samples (\(insertedColumns))
        SELECT unnest(?::bigint[]), unnest(?::bigint[]), unnest(?::bytea[]), unnest(?::bigint[]), unnest(?::bigint[]),
               unnest(?::bigint[]), unnest(?::float8[]), unnest(?::text[]), unnest(?::float8[]), unnest(?::bigint[]),
               unnest(?::bigint[]), unnest(?::bigint[]), unnest(?::bigint[]), unnest(?::bigint[]), unnest(?::bigint[]),
               unnest(?::bigint[]), unnest(?::text[]), unnest(?::bigint[]), unnest(?::bigint[]), unnest(?::bytea[])
        """

    /// The stored rows of one owner's UUIDs (`?2`, a `bytea` array): `comparedColumns`, then the UUID
    /// and the anchor (`WriteContext.storedVerdicts`), through `samples_by_uuid`.
    static let storedByUUIDsSQL = "SELECT \(comparedColumns), uuid, anchor FROM samples WHERE owner = ? AND uuid = ANY(?::bytea[])"

    /// Binds `uuids` at `index` as one `bytea` array in its binary form.
    static func bindUUIDs(_ uuids: some Sequence<UUID>, at index: Int32, to statement: Statement) {
        var array = BinaryArray(.bytea, capacity: uuids.underestimatedCount)
        for uuid in uuids { array.append(uuid) }
        statement.bind(index, array.finished)
    }

    /// Binds `rows` as `arraysSQL`'s twenty arrays, in PostgreSQL's binary form of an array: the
    /// backend reads each value as it is (eight bytes for a number, the bytes of a UUID) where the text
    /// form had it parse every number, the doubles through `strtod`, and healthd print them first.
    static func bindArrays(_ rows: [SampleRow], to statement: Statement) {
        var arrays = elements.map { BinaryArray($0, capacity: rows.count) }
        for row in rows {
            arrays[0].append(row.owner)
            arrays[1].append(row.anchor)
            arrays[2].append(row.uuid)
            arrays[3].append(row.type)
            arrays[4].append(row.start)
            arrays[5].append(row.duration)
            arrays[6].append(row.value)
            arrays[7].append(row.unit)
            arrays[8].append(row.rawValue)
            arrays[9].append(row.count)
            arrays[10].append(row.category)
            arrays[11].append(row.source)
            arrays[12].append(row.revision)
            arrays[13].append(row.device)
            arrays[14].append(row.createdOffset)
            arrays[15].append(row.flags)
            arrays[16].append(row.syncID)
            arrays[17].append(row.syncVersion)
            arrays[18].append(row.parent)
            arrays[19].append(row.metadata)
        }
        for (offset, array) in arrays.enumerated() {
            // Bound as text, a value holding a NUL byte is refused as any text parameter holding one is.
            if let refused = array.textWithNUL { statement.bind(Int32(offset + 1), refused) } else { statement.bind(Int32(offset + 1), array.finished) }
        }
    }

    /// Each array's element type, in `arraysSQL`'s order.
    private static let elements: [BinaryArray.Element] = [
        .int8, .int8, .bytea, .int8, .int8, .int8, .float8, .text, .float8, .int8,
        .int8, .int8, .int8, .int8, .int8, .int8, .text, .int8, .int8, .bytea,
    ]
}

/// One array parameter in PostgreSQL's binary form (`array_recv`): dimensions, flags, element type,
/// the one dimension's length and lower bound, then each element as its length (−1: NULL) and bytes.
private struct BinaryArray {
    /// Element types by their OIDs (pg_type), which `array_recv` checks against the parameter's type.
    enum Element: UInt32 {
        case bytea = 17, int8 = 20, text = 25, float8 = 701
    }

    private var bytes: [UInt8] = []
    private var count: Int32 = 0
    /// The first text appended that holds a NUL byte.
    private(set) var textWithNUL: String?
    private static let headerSize = 20

    init(_ element: Element, capacity: Int) {
        bytes.reserveCapacity(Self.headerSize + capacity * 12)
        // Dimensions 1, no flags; the element count goes in at `finished`.
        for word in [1, 0, element.rawValue, 0, 1] as [UInt32] { appendWord(word) }
    }

    /// The array's bytes, its element count filled in.
    var finished: Data {
        var data = Data(bytes)
        withUnsafeBytes(of: UInt32(bitPattern: count).bigEndian) { data.replaceSubrange(12..<16, with: $0) }
        return data
    }

    private mutating func appendWord(_ word: UInt32) {
        withUnsafeBytes(of: word.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func appendNull() {
        count += 1
        appendWord(UInt32(bitPattern: -1))
    }

    mutating func append(_ value: Int64?) {
        guard let value else { return appendNull() }
        count += 1
        appendWord(8)
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ value: Double?) {
        guard let value else { return appendNull() }
        count += 1
        appendWord(8)
        withUnsafeBytes(of: value.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ value: String?) {
        guard let value else { return appendNull() }
        if textWithNUL == nil, value.utf8.contains(0) { textWithNUL = value }
        count += 1
        appendWord(UInt32(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
    }

    mutating func append(_ value: Data?) {
        guard let value else { return appendNull() }
        count += 1
        appendWord(UInt32(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func append(_ value: UUID) {
        count += 1
        appendWord(16)
        withUnsafeBytes(of: value.uuid) { bytes.append(contentsOf: $0) }
    }
}
