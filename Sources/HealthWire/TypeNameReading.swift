import HealthModel

/// Type names from the wire: every spelling the catalog resolves ("HeartRate", "heart_rate") is
/// read as its identifier, so clients in any language may use the short names the Swift tools
/// accept. An unknown name is kept as sent, for the call's own "unknown type" error.
extension CRead {
    static func typeName(_ pointer: UnsafePointer<CChar>?, _ field: @autoclosure () -> String) throws(HealthError) -> String {
        identifier(try string(pointer, field()))
    }

    static func typeNames(_ pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ count: Int,
                          _ field: @autoclosure () -> String) throws(HealthError) -> [String] {
        try strings(pointers, count, field()).map(identifier)
    }

    static func identifier(_ name: String) -> String { TypeCatalog.identifier(named: name) ?? name }

    /// A sample's type name read as `typeName` does, with its catalogue entry (nil for an unknown name).
    /// An exact identifier, what clients send, is found from the field's bytes without a String made of them.
    static func sampleType(_ pointer: UnsafePointer<CChar>?, _ field: @autoclosure () -> String) throws(HealthError)
        -> (name: String, type: HealthType?) {
        if let pointer, let type = TypeCatalog.entry(identifierBytes: pointer) { return (type.identifier, type) }
        let name = try string(pointer, field())
        guard let type = TypeCatalog.entry(named: name) else { return (name, nil) }
        return (type.identifier, type)
    }
}
