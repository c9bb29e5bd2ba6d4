import CSQLite
import Foundation
import HealthModel

/// `hs_meta(metadata BLOB, leaf BLOB)`: evaluates one metadata predicate leaf inside SQL, so metadata
/// filters compose with the rest of the WHERE clause and LIMIT stays exact. The leaf is encoded by
/// `MetadataLeaf.encode`; comparisons follow `MetadataOrdering` (NSPredicate's rules).
enum MetadataSQLFunctions {
    static func register(on db: OpaquePointer) {
        sqlite3_create_function_v2(db, "hs_meta", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, _, arguments in
            guard let arguments, let leafValue = arguments[1], let leafBytes = sqlite3_value_blob(leafValue) else {
                sqlite3_result_int(context, 0)
                return
            }
            let leafData = Data(bytes: leafBytes, count: Int(sqlite3_value_bytes(leafValue)))
            var metadata: Data?
            if let value = arguments[0], sqlite3_value_type(value) == SQLITE_BLOB, let bytes = sqlite3_value_blob(value) {
                metadata = Data(bytes: bytes, count: Int(sqlite3_value_bytes(value)))
            }
            sqlite3_result_int(context, MetadataLeaf.matches(leafData, metadata: metadata) ? 1 : 0)
        }, nil, nil, nil)
    }
}

/// The metadata predicate leaves, encoded as a bound SQL parameter.
enum MetadataLeaf {
    private enum Kind: UInt8 { case exists = 1, compare, isIn, compareConverted }

    static func exists(key: String) -> Data {
        var writer = BinaryWriter()
        writer.byte(Kind.exists.rawValue)
        writer.string(key)
        return writer.data
    }

    static func compare(key: String, _ op: ComparisonOperator, _ value: MetadataValue) -> Data {
        var writer = BinaryWriter()
        writer.byte(Kind.compare.rawValue)
        writer.string(key)
        writer.byte(UInt8(op.rawValue))
        MetadataCoding.encode(value, into: &writer)
        return writer.data
    }

    /// A comparison with a quantity, already converted (in Swift, exactly as `MetadataOrdering` does)
    /// into each unit `conversions` lists; a stored quantity in another unit is incomparable. For SQL
    /// functions that cannot convert units themselves (PostgreSQL's `hs_meta`).
    static func compareConverted(key: String, _ op: ComparisonOperator, _ conversions: [(unit: String, value: Double)]) -> Data {
        var writer = BinaryWriter()
        writer.byte(Kind.compareConverted.rawValue)
        writer.string(key)
        writer.byte(UInt8(op.rawValue))
        writer.varint(UInt64(conversions.count))
        for (unit, value) in conversions {
            writer.string(unit)
            writer.double(value)
        }
        return writer.data
    }

    static func isIn(key: String, _ values: [MetadataValue]) -> Data {
        var writer = BinaryWriter()
        writer.byte(Kind.isIn.rawValue)
        writer.string(key)
        writer.varint(UInt64(values.count))
        for value in values { MetadataCoding.encode(value, into: &writer) }
        return writer.data
    }

    /// A sample without the key matches no comparison, not even `!=` (as HealthModel's evaluator says).
    static func matches(_ leaf: Data, metadata: Data?) -> Bool {
        var reader = BinaryReader(leaf)
        guard let kindByte = try? reader.byte(), let kind = Kind(rawValue: kindByte), let key = try? reader.string() else {
            return false
        }
        let stored = metadata.flatMap { MetadataCoding.value(forKey: key, in: $0) }
        switch kind {
        case .exists:
            return stored != nil
        case .compare:
            guard let opByte = try? reader.byte(), let op = ComparisonOperator(rawValue: Int32(opByte)),
                  let operand = try? MetadataCoding.decodeValue(&reader) else { return false }
            guard let stored else { return false }
            return MetadataOrdering.evaluate(stored, op, operand)
        case .compareConverted:
            guard let opByte = try? reader.byte(), let op = ComparisonOperator(rawValue: Int32(opByte)),
                  let count = try? reader.count() else { return false }
            guard let stored else { return false }
            guard case .quantity(let quantity) = stored else { return op == .notEqual }
            for _ in 0..<count {
                guard let unit = try? reader.string(), let value = try? reader.double() else { return false }
                if unit == quantity.unit { return MetadataOrdering.evaluate(stored, op, .quantity(Quantity(value, unit))) }
            }
            return op == .notEqual
        case .isIn:
            guard let stored, let count = try? reader.count() else { return false }
            for _ in 0..<count {
                guard let operand = try? MetadataCoding.decodeValue(&reader) else { return false }
                if MetadataOrdering.evaluate(stored, .equal, operand) { return true }
            }
            return false
        }
    }
}
