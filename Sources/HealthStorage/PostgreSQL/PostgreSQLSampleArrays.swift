import Foundation

/// PostgreSQL's insert of a chunk of plain samples (`SQLDialect.insertsSampleArrays`): one array
/// parameter per column, unnested into rows, instead of a `VALUES` list of twenty parameters a row.
/// The server then parses one array per column rather than a parameter per value, and healthd builds
/// twenty buffers a chunk rather than two a value.
///
/// A row whose UUID the owner already holds is skipped by `NOT EXISTS` rather than `ON CONFLICT DO
/// NOTHING`, whose speculative insertion probes the unique indexes, then inserts and confirms each
/// row with a WAL record of its own. The probe alone is exact here: every transaction that inserts an
/// owner's samples holds the owner's anchor-counter row locked until it ends (`WriteContext.lockOwner`,
/// taken before any anchor), so no other transaction can add one of the owner's UUIDs between the
/// probe and the insert; and the statement does not see its own rows, so a UUID repeated within a
/// chunk must not reach it (`firstOfEachUUID`). Should a row slip past anyway, the unique index
/// still refuses it and the whole chunk fails, undoing its batch.
extension SampleRow {
    static let arraysSQL = """
        INSERT INTO samples (\(insertedColumns))
        SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::bytea[], ?::bigint[], ?::bigint[], ?::bigint[], ?::float8[],
                             ?::text[], ?::float8[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[],
                             ?::bigint[], ?::bigint[], ?::text[], ?::bigint[], ?::bigint[], ?::bytea[]) v(\(insertedColumns))
        WHERE NOT EXISTS (SELECT 1 FROM samples s WHERE s.owner = v.owner AND s.uuid = v.uuid)
        """

    /// For each row, whether no earlier row of `rows` has its owner and UUID: a later one is stored by
    /// the earlier one and gets the outcome of a save of a stored UUID, as the UUID claim gives it on SQLite.
    static func firstOfEachUUID(_ rows: [SampleRow]) -> [Bool] {
        var seen = Set<OwnedUUID>(minimumCapacity: rows.count)
        return rows.map { seen.insert(OwnedUUID(owner: $0.owner, uuid: $0.uuid)).inserted }
    }

    private struct OwnedUUID: Hashable {
        let owner: Int64, uuid: UUID
    }

    /// Binds `rows` as `arraysSQL`'s twenty arrays, in PostgreSQL's text form of an array.
    static func bindArrays(_ rows: [SampleRow], to statement: Statement) {
        var arrays = (0..<columns).map { _ in ArrayText(capacity: rows.count) }
        for row in rows {
            arrays[0].append(row.owner)
            arrays[1].append(row.anchor)
            arrays[2].append(row.uuid.bytes)
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
        for (offset, array) in arrays.enumerated() { statement.bind(Int32(offset + 1), array.text) }
    }
}

/// One array parameter being written as PostgreSQL's array input text: `{1,NULL,"text"}`.
private struct ArrayText {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]

    init(capacity: Int) { bytes.reserveCapacity(capacity * 12) }

    /// The finished text; a NUL byte in a text value stays in it, for the statement's bind to refuse
    /// as it refuses any text parameter holding one.
    var text: String {
        var closed = bytes
        closed.append(UInt8(ascii: "}"))
        return String(decoding: closed, as: UTF8.self)
    }

    private mutating func separate() {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendNull() { bytes.append(contentsOf: "NULL".utf8) }

    mutating func append(_ value: Int64?) {
        separate()
        guard let value else { return appendNull() }
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func append(_ value: Double?) {
        separate()
        guard let value else { return appendNull() }
        // As `PostgreSQLStatement.bind(_:_: Double?)`: Swift's description reads back as the same double.
        bytes.append(contentsOf: (value.isNaN ? "NaN" : value.isInfinite ? (value < 0 ? "-Infinity" : "Infinity") : "\(value)").utf8)
    }

    /// Text, always quoted (so that the text "NULL" is not NULL), `"` and `\` escaped.
    mutating func append(_ value: String?) {
        separate()
        guard let value else { return appendNull() }
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// bytea in its hex form, `\x0a1b…`, its backslash escaped within the quoted element.
    mutating func append(_ value: Data?) {
        separate()
        guard let value else { return appendNull() }
        bytes.append(contentsOf: #""\\x"#.utf8)
        for byte in value {
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0x0F)])
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
