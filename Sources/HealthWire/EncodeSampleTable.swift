import CProtobufC
import Foundation
import HealthModel
import HealthProto

/// A `SampleTable` → its samples packed as protobuf bytes, each one an unknown field of the message
/// holding them (field `number`, a repeated `Sample`), which protobuf-c writes as given after that
/// message's other fields: the same message (fields may come in any order, a repeated field's
/// elements keep theirs). A plain quantity or category row is written here directly, byte for byte
/// as protobuf-c packs the same `Sample` (field-number order, proto3 zero values left out); each type
/// and unit string is copied and each device and source revision packed once per message, so a row
/// costs a few stores instead of three protobuf-c messages sized twice and packed. A sample kept
/// whole is packed by protobuf-c.
extension WireArena {
    func samples(_ table: SampleTable, asField number: UInt32) -> (count: Int, fields: UnsafeMutablePointer<ProtobufCMessageUnknownField>?) {
        guard let fields = array(table.rows.count, of: ProtobufCMessageUnknownField.self) else { return (0, nil) }
        let types = Spans(table.types.count, in: self), units = Spans(table.units.count, in: self)
        let devices = Spans(table.devices.count, in: self), revisions = Spans(table.revisions.count, in: self)
        for (i, row) in table.rows.enumerated() {
            let body: PackedSample.Body
            switch row.body {
            case .whole(let index):
                let whole = packedBytes(sample(table.wholes[index]))
                (fields + i).initialize(to: lengthDelimited(number, size: whole.count) { $0.raw(whole) })
                continue
            case .quantity(let value, let unit, let count):
                body = .quantity(value: value, unit: units.get(unit) { bytes(table.units[$0]) }, count: count)
            case .category(let value):
                body = .category(value)
            }
            let packed = PackedSample(row, type: types.get(row.type) { bytes(table.types[$0]) },
                                      device: row.device < 0 ? nil : devices.get(row.device) { packedBytes(device(table.devices[$0])) },
                                      revision: row.revision < 0 ? nil : revisions.get(row.revision) { packedBytes(sourceRevision(table.revisions[$0])) },
                                      body: body)
            (fields + i).initialize(to: lengthDelimited(number, size: packed.size) { packed.write(to: &$0) })
        }
        return (table.rows.count, fields)
    }

    /// A copy of `string`'s UTF-8 bytes.
    private func bytes(_ string: String) -> Span {
        var string = string
        return string.withUTF8 { utf8 in
            let copy = allocate(utf8.count).assumingMemoryBound(to: UInt8.self)
            if let base = utf8.baseAddress { copy.update(from: base, count: utf8.count) }
            return Span(start: copy, count: utf8.count)
        }
    }

    /// `message` packed: its bytes without tag or length.
    private func packedBytes<C>(_ message: UnsafeMutablePointer<C>) -> Span {
        let base = UnsafeRawPointer(message).assumingMemoryBound(to: ProtobufCMessage.self)
        let size = protobuf_c_message_get_packed_size(base)
        let bytes = allocate(size).assumingMemoryBound(to: UInt8.self)
        precondition(protobuf_c_message_pack(base, bytes) == size, "protobuf-c packed a message of another size than it measured")
        return Span(start: bytes, count: size)
    }

    /// Bytes in the arena.
    private struct Span {
        let start: UnsafeMutablePointer<UInt8>
        let count: Int
    }

    /// One span per shared part, made on first use.
    private struct Spans {
        private let made: UnsafeMutablePointer<Span?>?

        init(_ count: Int, in arena: WireArena) {
            made = arena.array(count, of: Span?.self)
            made?.initialize(repeating: nil, count: count)
        }

        func get(_ index: Int32, make: (Int) -> Span) -> Span {
            if let known = made![Int(index)] { return known }
            let span = make(Int(index))
            made![Int(index)] = span
            return span
        }
    }

    /// A plain row's `Sample` fields, sized before they are written (the length comes first).
    private struct PackedSample {
        enum Body {
            case quantity(value: Double, unit: Span, count: Int64)
            case category(Int64)
        }

        let uuid: UUID
        let type: Span
        let start: Int64, end: Int64, creation: Int64
        let device: Span?, revision: Span?
        let body: Body

        init(_ row: SampleTable.Row, type: Span, device: Span?, revision: Span?, body: Body) {
            (uuid, self.type, start, end, creation) = (row.uuid, type, row.start, row.end, row.creationTime ?? 0)
            (self.device, self.revision, self.body) = (device, revision, body)
        }

        // Field numbers of `Sample`, `QuantityBody`, `Quantity` and `CategoryBody` (healthstore.proto).
        private static let uuidField: UInt8 = 1, typeField: UInt8 = 2, startField: UInt8 = 3, endField: UInt8 = 4
        private static let deviceField: UInt8 = 6, revisionField: UInt8 = 7, creationField: UInt8 = 8
        private static let quantityField: UInt8 = 10, categoryField: UInt8 = 11
        private static let bodyQuantityField: UInt8 = 1, bodyCountField: UInt8 = 2
        private static let valueField: UInt8 = 1, unitField: UInt8 = 2, categoryValueField: UInt8 = 1

        /// The `Quantity` message's size.
        private var quantitySize: Int {
            guard case .quantity(let value, let unit, _) = body else { return 0 }
            return (value == 0 ? 0 : 9) + ByteWriter.bytesSize(unit.count)
        }

        /// The body message's size (`QuantityBody` or `CategoryBody`).
        private var bodySize: Int {
            switch body {
            case .quantity(_, _, let count): ByteWriter.messageSize(quantitySize) + ByteWriter.varintFieldSize(count)
            case .category(let value): ByteWriter.varintFieldSize(value)
            }
        }

        var size: Int {
            18 + ByteWriter.bytesSize(type.count) + ByteWriter.varintFieldSize(start) + ByteWriter.varintFieldSize(end)
                + ByteWriter.varintFieldSize(creation) + ByteWriter.messageSize(bodySize)
                + (device.map { ByteWriter.messageSize($0.count) } ?? 0) + (revision.map { ByteWriter.messageSize($0.count) } ?? 0)
        }

        /// In field-number order, as protobuf-c packs a `Sample`.
        func write(to out: inout ByteWriter) {
            withUnsafeBytes(of: uuid.uuid) { out.bytes(Self.uuidField, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), 16) }
            out.bytes(Self.typeField, type)
            out.varint(Self.startField, start)
            out.varint(Self.endField, end)
            if let device { out.message(Self.deviceField, device) }
            if let revision { out.message(Self.revisionField, revision) }
            out.varint(Self.creationField, creation)
            switch body {
            case .quantity(let value, let unit, let count):
                out.header(Self.quantityField, length: bodySize)
                out.header(Self.bodyQuantityField, length: quantitySize)
                out.double(Self.valueField, value)
                out.bytes(Self.unitField, unit)
                out.varint(Self.bodyCountField, count)
            case .category(let value):
                out.header(Self.categoryField, length: bodySize)
                out.varint(Self.categoryValueField, value)
            }
        }
    }

    /// Writes protobuf fields into memory sized for them. Zero scalars and empty strings are left
    /// out, as protobuf-c leaves out proto3 fields at their default.
    private struct ByteWriter {
        let start: UnsafeMutablePointer<UInt8>
        private var cursor: UnsafeMutablePointer<UInt8>
        var written: Int { cursor - start }

        init(_ memory: UnsafeMutableRawPointer) {
            start = memory.assumingMemoryBound(to: UInt8.self)
            cursor = start
        }

        static func varintSize(_ value: UInt64) -> Int {
            var size = 1
            while value >> (7 * UInt64(size)) != 0 && size < 10 { size += 1 }
            return size
        }

        /// A varint field's size (tag included); 0 when left out.
        static func varintFieldSize(_ value: Int64) -> Int {
            value == 0 ? 0 : 1 + varintSize(UInt64(bitPattern: value))
        }

        /// A string or bytes field's size (tag included) of `count` bytes; 0 when left out.
        static func bytesSize(_ count: Int) -> Int {
            count == 0 ? 0 : messageSize(count)
        }

        /// A submessage field's size (tag included) of `count` bytes: written even when empty.
        static func messageSize(_ count: Int) -> Int {
            1 + varintSize(UInt64(count)) + count
        }

        mutating func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                cursor.pointee = UInt8(truncatingIfNeeded: value) | 0x80
                cursor += 1
                value >>= 7
            }
            cursor.pointee = UInt8(value)
            cursor += 1
        }

        /// A tag of a field number below 16 and its wire type.
        private mutating func tag(_ field: UInt8, _ wireType: UInt8) {
            cursor.pointee = field << 3 | wireType
            cursor += 1
        }

        mutating func varint(_ field: UInt8, _ value: Int64) {
            guard value != 0 else { return }
            tag(field, 0)
            varint(UInt64(bitPattern: value))
        }

        mutating func double(_ field: UInt8, _ value: Double) {
            guard value != 0 else { return }
            tag(field, 1)
            withUnsafeBytes(of: value.bitPattern.littleEndian) { UnsafeMutableRawPointer(cursor).copyMemory(from: $0.baseAddress!, byteCount: 8) }
            cursor += 8
        }

        /// A length-delimited field's tag and length; its bytes follow.
        mutating func header(_ field: UInt8, length: Int) {
            tag(field, 2)
            varint(UInt64(length))
        }

        mutating func bytes(_ field: UInt8, _ span: Span) {
            bytes(field, span.start, span.count)
        }

        /// A packed submessage as field `field`.
        mutating func message(_ field: UInt8, _ span: Span) {
            header(field, length: span.count)
            raw(span)
        }

        /// `span` as it is, with no tag.
        mutating func raw(_ span: Span) {
            cursor.update(from: span.start, count: span.count)
            cursor += span.count
        }

        mutating func bytes(_ field: UInt8, _ bytes: UnsafePointer<UInt8>, _ count: Int) {
            guard count > 0 else { return }
            header(field, length: count)
            raw(Span(start: UnsafeMutablePointer(mutating: bytes), count: count))
        }
    }

    /// A length-delimited unknown field numbered `number`: its data is everything after the tag,
    /// the length as a varint and then the `size` bytes `write` writes.
    private func lengthDelimited(_ number: UInt32, size: Int, write: (inout ByteWriter) -> Void) -> ProtobufCMessageUnknownField {
        var out = ByteWriter(allocate(ByteWriter.varintSize(UInt64(size)) + size))
        out.varint(UInt64(size))
        write(&out)
        precondition(out.written == ByteWriter.varintSize(UInt64(size)) + size, "wrote \(out.written) bytes of a field sized \(size)")
        return ProtobufCMessageUnknownField(tag: number, wire_type: PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, len: out.written, data: out.start)
    }
}
