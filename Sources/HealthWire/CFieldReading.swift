import CProtobufC
import Foundation
import HealthModel

/// Reads protobuf-c fields into Swift values without trusting them: every violation is a
/// `.malformed` error naming the field, with a message that begins with that field's name.
enum CRead {
    static func malformed(_ message: String, field: String) -> HealthError {
        HealthError(.malformed, message, field: field)
    }

    /// A proto3 string; NULL reads as empty, invalid UTF-8 is rejected.
    static func string(_ pointer: UnsafePointer<CChar>?, _ field: @autoclosure () -> String) throws(HealthError) -> String {
        guard let pointer, pointer.pointee != 0 else { return "" }
        guard let string = String(validatingCString: pointer) else {
            throw malformed("\(field()) is not valid UTF-8", field: field())
        }
        return string
    }

    /// An optional string: empty means not set.
    static func optionalString(_ pointer: UnsafePointer<CChar>?, _ field: @autoclosure () -> String) throws(HealthError) -> String? {
        let string = try string(pointer, field())
        return string.isEmpty ? nil : string
    }

    static func strings(_ pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ count: Int,
                        _ field: @autoclosure () -> String) throws(HealthError) -> [String] {
        guard count > 0 else { return [] }
        guard let pointers else { throw malformed("\(field()) has \(count) entries but no storage", field: field()) }
        var result = [String]()
        result.reserveCapacity(count)
        for i in 0..<count { result.append(try string(pointers[i], field())) }
        return result
    }

    static func data(_ binary: ProtobufCBinaryData) -> Data {
        guard binary.len > 0, let bytes = binary.data else { return Data() }
        return Data(bytes: bytes, count: binary.len)
    }

    /// Exactly 16 raw bytes.
    static func uuid(_ binary: ProtobufCBinaryData, _ field: @autoclosure () -> String) throws(HealthError) -> UUID {
        guard binary.len == 16, let bytes = binary.data else {
            throw malformed("\(field()) must be 16 bytes, got \(binary.len)", field: field())
        }
        return UUID(uuid: UnsafeRawPointer(bytes).loadUnaligned(as: uuid_t.self))
    }

    static func uuids(_ binaries: UnsafeMutablePointer<ProtobufCBinaryData>?, _ count: Int,
                      _ field: @autoclosure () -> String) throws(HealthError) -> [UUID] {
        guard count > 0 else { return [] }
        guard let binaries else { throw malformed("\(field()) has \(count) entries but no storage", field: field()) }
        var result = [UUID]()
        result.reserveCapacity(count)
        for i in 0..<count { result.append(try uuid(binaries[i], field())) }
        return result
    }

    /// A submessage that must be present.
    static func required<C>(_ pointer: UnsafeMutablePointer<C>?, _ field: @autoclosure () -> String) throws(HealthError) -> C {
        guard let pointer else { throw malformed("\(field()) is required", field: field()) }
        return pointer.pointee
    }

    /// A repeated submessage field, each element mapped by `transform`.
    static func list<C, T>(_ pointers: UnsafeMutablePointer<UnsafeMutablePointer<C>?>?, _ count: Int, _ field: @autoclosure () -> String,
                           _ transform: (C) throws(HealthError) -> T) throws(HealthError) -> [T] {
        guard count > 0 else { return [] }
        guard let pointers else { throw malformed("\(field()) has \(count) entries but no storage", field: field()) }
        var result = [T]()
        result.reserveCapacity(count)
        for i in 0..<count {
            guard let element = pointers[i] else { throw malformed("\(field())[\(i)] is missing", field: field()) }
            result.append(try transform(element.pointee))
        }
        return result
    }

    /// A wire enum whose zero (UNSPECIFIED) value is invalid.
    static func enumValue<E: RawRepresentable<Int32>>(_ raw: UInt32, _ field: @autoclosure () -> String) throws(HealthError) -> E {
        guard let value = E(rawValue: Int32(bitPattern: raw)) else {
            throw malformed("\(field()) has unknown or unspecified value \(raw)", field: field())
        }
        return value
    }

    /// A wire enum whose zero (UNSPECIFIED) value means not set.
    static func optionalEnum<E: RawRepresentable<Int32>>(_ raw: UInt32, _ field: @autoclosure () -> String) throws(HealthError) -> E? {
        raw == 0 ? nil : try enumValue(raw, field()) as E
    }

    /// A wire enum value kept as its raw value (characteristics): 0 = not set, above `max` rejected.
    static func rawEnum(_ raw: UInt32, max: UInt32, _ field: @autoclosure () -> String) throws(HealthError) -> Int32? {
        guard raw <= max else { throw malformed("\(field()) has unknown value \(raw)", field: field()) }
        return raw == 0 ? nil : Int32(raw)
    }
}

extension HealthError {
    /// A decoding error of an element of a list, placed under `path` ("correlation.objects[1]"):
    /// decoding messages begin with their field, so both get the prefix.
    func under(_ path: String) -> HealthError {
        HealthError(code, "\(path).\(message)", objectIndex: objectIndex, field: field.map { "\(path).\($0)" } ?? path)
    }

    /// A decoding error of object `index` of the request's `list`: the field stays relative to the
    /// object, the message says where ("objects[3].uuid must be 16 bytes, got 5").
    func inObject(_ index: Int, of list: String) -> HealthError {
        HealthError(code, "\(list)[\(index)].\(message)", objectIndex: index, field: field)
    }
}
