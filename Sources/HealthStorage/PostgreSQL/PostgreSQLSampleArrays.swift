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
    static let arraysSQL = """
        INSERT INTO samples (\(insertedColumns))
        SELECT unnest(?::bigint[]), unnest(?::bigint[]), unnest(?::bytea[]), unnest(?::bigint[]), unnest(?::bigint[]),
               unnest(?::bigint[]), unnest(?::float8[]), unnest(?::text[]), unnest(?::float8[]), unnest(?::bigint[]),
               unnest(?::bigint[]), unnest(?::bigint[]), unnest(?::bigint[]), unnest(?::bigint[]), unnest(?::bigint[]),
               unnest(?::bigint[]), unnest(?::text[]), unnest(?::bigint[]), unnest(?::bigint[]), unnest(?::bytea[])
        ON CONFLICT (owner, uuid) DO NOTHING
        """

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
