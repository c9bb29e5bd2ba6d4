import CProtobufC
import HealthModel
import HealthProto

/// A `SampleTable` → protobuf-c samples. Each type and unit a table row names is built once per
/// message and every sample's field points at it. Each device and source revision is built and
/// packed once per message, and every sample carries those bytes as its `device` and
/// `source_revision` through protobuf-c's unknown fields, which protobuf-c writes as given after the
/// sample's other fields: the same message (fields may come in any order), without protobuf-c
/// sizing and packing the same submessages again for every sample of a page.
extension WireArena {
    func samples(_ table: SampleTable) -> CList<Healthstore__V1__Sample> {
        let types = Shared<CChar>(table.types.count, in: self), units = Shared<CChar>(table.units.count, in: self)
        let devices = Shared<ProtobufCMessageUnknownField>(table.devices.count, in: self)
        let revisions = Shared<ProtobufCMessageUnknownField>(table.revisions.count, in: self)
        return list(table.rows) { row in
            let p: UnsafeMutablePointer<Healthstore__V1__Sample>
            switch row.body {
            case .whole(let index):
                return sample(table.wholes[index])
            case .quantity(let value, let unit, let count):
                p = message(healthstore__v1__sample__init)
                let body = message(healthstore__v1__quantity_body__init)
                let q = message(healthstore__v1__quantity__init)
                q.pointee.value = value
                q.pointee.unit = units.get(unit) { cString(table.units[$0]) }
                body.pointee.quantity = q
                body.pointee.count = count
                p.pointee.body_case = HEALTHSTORE__V1__SAMPLE__BODY_QUANTITY
                p.pointee.quantity = body
            case .category(let value):
                p = message(healthstore__v1__sample__init)
                let body = message(healthstore__v1__category_body__init)
                body.pointee.value = value
                p.pointee.body_case = HEALTHSTORE__V1__SAMPLE__BODY_CATEGORY
                p.pointee.category = body
            }
            p.pointee.uuid = binary(row.uuid)
            p.pointee.type = types.get(row.type) { cString(table.types[$0]) }
            p.pointee.start_time = row.start
            p.pointee.end_time = row.end
            let fields = array(2, of: ProtobufCMessageUnknownField.self)!
            var count = 0
            if row.device >= 0 {
                (fields + count).initialize(to: devices.get(row.device) { field(6, device(table.devices[$0])) }.pointee)
                count += 1
            }
            if row.revision >= 0 {
                (fields + count).initialize(to: revisions.get(row.revision) { field(7, sourceRevision(table.revisions[$0])) }.pointee)
                count += 1
            }
            if count > 0 { (p.pointee.base.n_unknown_fields, p.pointee.base.unknown_fields) = (UInt32(count), fields) }
            p.pointee.creation_time = row.creationTime ?? 0
            return p
        }
    }

    /// `message` packed as field `number` of its parent. An unknown field's data is everything after
    /// its tag: for a submessage, its length as a varint, then its bytes.
    private func field<C>(_ number: UInt32, _ message: UnsafeMutablePointer<C>) -> UnsafeMutablePointer<ProtobufCMessageUnknownField> {
        let base = UnsafeRawPointer(message).assumingMemoryBound(to: ProtobufCMessage.self)
        let size = protobuf_c_message_get_packed_size(base)
        var prefix = 1
        while size >> (7 * prefix) != 0 { prefix += 1 }
        let bytes = allocate(prefix + size).assumingMemoryBound(to: UInt8.self)
        for i in 0..<prefix { bytes[i] = UInt8(truncatingIfNeeded: size >> (7 * i)) & 0x7f | (i < prefix - 1 ? 0x80 : 0) }
        precondition(protobuf_c_message_pack(base, bytes + prefix) == size, "protobuf-c packed a field of another size than it measured")
        let field = array(1, of: ProtobufCMessageUnknownField.self)!
        field.initialize(to: ProtobufCMessageUnknownField(tag: number, wire_type: PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED,
                                                          len: prefix + size, data: bytes))
        return field
    }

    /// One pointer per shared part, built on first use.
    private struct Shared<C> {
        private let built: UnsafeMutablePointer<UnsafeMutablePointer<C>?>?

        init(_ count: Int, in arena: WireArena) {
            built = arena.array(count, of: UnsafeMutablePointer<C>?.self)
            built?.initialize(repeating: nil, count: count)
        }

        func get(_ index: Int32, build: (Int) -> UnsafeMutablePointer<C>) -> UnsafeMutablePointer<C> {
            if let known = built![Int(index)] { return known }
            let made = build(Int(index))
            built![Int(index)] = made
            return made
        }
    }
}
