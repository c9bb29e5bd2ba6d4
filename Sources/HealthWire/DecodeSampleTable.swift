import CProtobufC
import Foundation
import HealthModel
import HealthProto

/// protobuf-c samples → a `SampleTable`: a plain quantity or category sample (no metadata, no series
/// summary) becomes a row, and each distinct type, unit, device and source revision of the message
/// is read into Swift once, found again by its C fields' bytes; any other sample is decoded whole.
/// An anchored page of thousands of samples from a few devices then costs a row per sample instead
/// of a `Sample` with its own copies of every string.
extension WireDecode {
    static func sampleTable(_ pointers: UnsafeMutablePointer<UnsafeMutablePointer<Healthstore__V1__Sample>?>?, _ count: Int,
                            _ field: String) throws(HealthError) -> SampleTable {
        guard count > 0 else { return SampleTable() }
        guard let pointers else { throw CRead.malformed("\(field) has \(count) entries but no storage", field: field) }
        var reader = TableReader()
        for i in 0..<count {
            do throws(HealthError) {
                guard let element = pointers[i] else { throw CRead.malformed("sample is missing", field: "sample") }
                try reader.append(element)
            } catch {
                throw error.inObject(i, of: field)
            }
        }
        return reader.table
    }

    /// An anchored page's answer with its samples (the page's rows) already read.
    static func anchored(_ a: Healthstore__V1__AnchoredPage, samples: SampleTable) throws(HealthError) -> ServerResult {
        .anchored(samples: samples, deleted: try CRead.list(a.deleted, a.n_deleted, "deleted", deletedObject),
                  newAnchor: CRead.data(a.new_anchor), initial: a.initial != 0,
                  initialComplete: a.initial_complete != 0, lastSampleAnchor: CRead.data(a.last_sample_anchor))
    }

    /// The `ServerMessage` in `bytes` when it is an anchored page, read sample by sample: each
    /// sample's type, device and source revision are found by their wire bytes among those met
    /// before in the page (a page's thousands of samples are of one type, from a few devices) and
    /// only the first of each is read, so protobuf-c unpacks and the pre-scan walks each sample
    /// without the fields that make up most of its bytes. Nil for any other message and for anything out
    /// of the ordinary (a field met twice, a NUL, a sample that does not decode): the caller then
    /// decodes the whole message as any other, with the error it has, if any.
    static func anchoredPage(_ bytes: UnsafeRawBufferPointer) -> ServerMessage? {
        var envelope: [UInt8] = []
        var page: UnsafeRawBufferPointer?
        var offset = 0
        while offset < bytes.count {
            let start = offset
            guard let field = WireScan.next(bytes, &offset) else { return nil }
            switch field.tag >> 3 {
            case UInt64(HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_ANCHORED.rawValue):
                guard page == nil, let body = field.body else { return nil }
                page = UnsafeRawBufferPointer(rebasing: bytes[body])
            case 1, 2:
                envelope.append(contentsOf: bytes[start..<offset])
            default:
                return nil
            }
        }
        guard let page else { return nil }
        // Everything unpacked lives in the arena until the page's values are read out of it.
        let arena = WireArena(initialBlockSize: min(max(4096, page.count * 2), 1 << 20))
        return withExtendedLifetime(arena) { () -> ServerMessage? in
            var allocator = arena.allocator
            var reader = TableReader()
            // Room for any sample, into which a sample that is not plain is copied but its type, device and revision.
            let splice = UnsafeMutableRawBufferPointer(start: arena.allocate(page.count), count: page.count)
            // The samples are read as the page is walked; its other fields are unpacked after.
            var pageRest: [UInt8] = []
            var offset = 0
            while offset < page.count {
                let start = offset
                guard let field = WireScan.next(page, &offset) else { return nil }
                if field.tag >> 3 == 1 {
                    // A page's samples are mostly of one size: room for as many rows as the first one's
                    // size goes into the page, not the rows' storage doubled a dozen times.
                    if reader.table.rows.isEmpty { reader.table.reserveCapacity(rows: page.count / (offset - start)) }
                    guard let body = field.body,
                          reader.append(wire: UnsafeRawBufferPointer(rebasing: page[body]), splice: splice, &allocator) else { return nil }
                } else {
                    pageRest.append(contentsOf: page[start..<offset])
                }
            }
            guard let header = envelope.withUnsafeBytes({ unpacked($0, healthstore__v1__server_message__descriptor, depth: 1, &allocator,
                                                                   healthstore__v1__server_message__unpack) }),
                  let rest = pageRest.withUnsafeBytes({ unpacked($0, healthstore__v1__anchored_page__descriptor, depth: 2, &allocator,
                                                                  healthstore__v1__anchored_page__unpack) }),
                  let result = try? anchored(rest.pointee, samples: reader.table) else { return nil }
            return ServerMessage(callID: header.pointee.call_id, more: header.pointee.more != 0, result: result)
        }
    }

    /// `bytes` unpacked by protobuf-c after the pre-scan's checks at `depth`; nil when either refuses them.
    fileprivate static func unpacked<M>(_ bytes: UnsafeRawBufferPointer, _ descriptor: ProtobufCMessageDescriptor, depth: Int,
                                        _ allocator: inout ProtobufCAllocator,
                                        _ unpack: (UnsafeMutablePointer<ProtobufCAllocator>?, Int, UnsafePointer<UInt8>?) -> UnsafeMutablePointer<M>?)
        -> UnsafeMutablePointer<M>? {
        guard (try? WireScan.check(bytes, descriptor, depth: depth)) == .some(nil) else { return nil }
        return unpack(&allocator, bytes.count, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
    }
}

private struct TableReader {
    var table = SampleTable()
    private var types = Interned<UnsafeMutablePointer<CChar>>()
    private var units = Interned<UnsafeMutablePointer<CChar>>()
    private var devices = Interned<UnsafeMutablePointer<Healthstore__V1__Device>>()
    private var revisions = Interned<UnsafeMutablePointer<Healthstore__V1__SourceRevision>>()
    private var typeWires = Interned<UnsafeRawBufferPointer>()
    private var deviceWires = Interned<UnsafeRawBufferPointer>()
    private var revisionWires = Interned<UnsafeRawBufferPointer>()
    private var unitWires = Interned<UnsafeRawBufferPointer>()

    mutating func append(_ p: UnsafeMutablePointer<Healthstore__V1__Sample>) throws(HealthError) {
        let s = p.pointee
        guard let body = try plainBody(s) else { return table.append(try WireDecode.sample(s)) }
        var device: Int32 = -1, revision: Int32 = -1
        if let d = s.device {
            device = try devices.index(of: d, hash: Self.hash, same: Self.same, in: &table) { (table) throws(HealthError) in
                Self.add(try WireDecode.device(d.pointee), to: &table)
            }
        }
        if let r = s.source_revision {
            revision = try revisions.index(of: r, hash: Self.hash, same: Self.same, in: &table) { (table) throws(HealthError) in
                table.add(revision: try WireDecode.sourceRevision(r.pointee))
            }
        }
        guard let typeName = s.type else { throw CRead.malformed("type is required", field: "type") }
        let type = try types.index(of: typeName, hash: Self.hash, same: Self.same, in: &table) { (table) throws(HealthError) in
            table.add(type: try CRead.typeName(typeName, "type"))
        }
        table.append(try RowFields(s, body).row(type: type, device: device, revision: revision))
    }

    /// Appends the sample whose wire bytes are `wire` (see `WireDecode.anchoredPage`), its type, device
    /// and source revision found by their bytes; false where it cannot (the page is then decoded whole).
    /// A plain row (`PlainFields`) is read from the wire as it is walked; any other sample is unpacked
    /// by protobuf-c without its type, device and revision.
    mutating func append(wire: UnsafeRawBufferPointer, splice: UnsafeMutableRawBufferPointer, _ allocator: inout ProtobufCAllocator) -> Bool {
        var type: UnsafeRawBufferPointer?, device: UnsafeRawBufferPointer?, revision: UnsafeRawBufferPointer?
        // Where those three fields lie in `wire`: only a sample that is not plain is spliced without them.
        var cut: (type: Range<Int>?, device: Range<Int>?, revision: Range<Int>?)
        var plain = PlainFields()
        if let packed = PlainFields.packed(wire) {
            let body = PackedFields(wire: wire).body
            plain = packed.fields
            (type, cut.type) = (body(packed.type), packed.type)
            if let field = packed.device { (device, cut.device) = (body(field), field) }
            if let field = packed.revision { (revision, cut.revision) = (body(field), field) }
        } else {
            var offset = 0
            while offset < wire.count {
                let start = offset
                guard let field = WireScan.next(wire, &offset) else { return false }
                let number = field.tag >> 3
                guard number == 2 || number == 6 || number == 7 else {
                    plain.read(field, in: wire)
                    continue
                }
                // protobuf-c keeps the last of a string met twice and merges a submessage met twice; the
                // whole decode does that.
                guard let body = field.body, (number == 2 ? type : number == 6 ? device : revision) == nil else { return false }
                let bytes = UnsafeRawBufferPointer(rebasing: wire[body])
                switch number {
                case 2: (type, cut.type) = (bytes, start..<offset)
                case 6: (device, cut.device) = (bytes, start..<offset)
                default: (revision, cut.revision) = (bytes, start..<offset)
                }
            }
        }
        guard let type else { return false }
        do {
            let row: RowFields
            if let fields = try plain.row(unit: { (bytes) throws(HealthError) in
                try unitWires.index(of: bytes, hash: Self.hash, same: Self.same, in: &table) { (table) throws(HealthError) in
                    try Self.add(unit: bytes, to: &table)
                }
            }) {
                row = fields
            } else {
                guard let fields = try unpackedRow(wire, without: cut, splice: splice, &allocator) else { return true }
                row = fields
            }
            var deviceIndex: Int32 = -1, revisionIndex: Int32 = -1
            if let device {
                deviceIndex = try deviceWires.index(of: device, hash: Self.hash, same: Self.same, in: &table) { (table) throws(HealthError) in
                    try Self.add(device: device, to: &table, &allocator)
                }
            }
            if let revision {
                revisionIndex = try revisionWires.index(of: revision, hash: Self.hash, same: Self.same, in: &table) { (table) throws(HealthError) in
                    try Self.add(revision: revision, to: &table, &allocator)
                }
            }
            let typeIndex = try typeWires.index(of: type, hash: Self.hash, same: Self.same, in: &table) { (table) throws(HealthError) in
                try Self.add(type: type, to: &table)
            }
            table.append(row.row(type: typeIndex, device: deviceIndex, revision: revisionIndex))
            return true
        } catch {
            return false
        }
    }

    // What `append(wire:splice:_:)` does only for a sample that is not plain, or for a type, unit,
    // device or revision met first, out of line: kept apart, the walk and the look-ups that run for
    // every sample are small enough to have the wire walk's steps inlined into them.

    /// The row of a sample that is not plain, unpacked by protobuf-c without its type, device and
    /// revision (at `cut`); nil where it was appended whole. Throws where it does not unpack.
    @inline(never)
    private mutating func unpackedRow(_ wire: UnsafeRawBufferPointer, without cut: (type: Range<Int>?, device: Range<Int>?, revision: Range<Int>?),
                                      splice: UnsafeMutableRawBufferPointer, _ allocator: inout ProtobufCAllocator) throws(HealthError) -> RowFields? {
        var spliced = 0
        var copied = 0
        for range in [cut.type, cut.device, cut.revision, wire.count..<wire.count].compactMap({ $0 }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            splice.baseAddress!.advanced(by: spliced).copyMemory(from: wire.baseAddress!.advanced(by: copied), byteCount: range.lowerBound - copied)
            spliced += range.lowerBound - copied
            copied = range.upperBound
        }
        guard let s = WireDecode.unpacked(UnsafeRawBufferPointer(rebasing: splice[..<spliced]), healthstore__v1__sample__descriptor,
                                          depth: 3, &allocator, healthstore__v1__sample__unpack)?.pointee else { throw Self.unreadable }
        guard let body = try plainBody(s) else {
            guard let whole = WireDecode.unpacked(wire, healthstore__v1__sample__descriptor, depth: 3, &allocator,
                                                  healthstore__v1__sample__unpack) else { throw Self.unreadable }
            table.append(try WireDecode.sample(whole.pointee))
            return nil
        }
        return try RowFields(s, body)
    }

    @inline(never)
    private static func add(unit bytes: UnsafeRawBufferPointer, to table: inout SampleTable) throws(HealthError) -> Int32 {
        table.add(unit: try text(bytes) { (unit) throws(HealthError) in try CRead.string(unit, "quantity.quantity.unit") })
    }

    @inline(never)
    private static func add(type bytes: UnsafeRawBufferPointer, to table: inout SampleTable) throws(HealthError) -> Int32 {
        table.add(type: try text(bytes) { (name) throws(HealthError) in try CRead.typeName(name, "type") })
    }

    @inline(never)
    private static func add(device bytes: UnsafeRawBufferPointer, to table: inout SampleTable,
                            _ allocator: inout ProtobufCAllocator) throws(HealthError) -> Int32 {
        guard let d = WireDecode.unpacked(bytes, healthstore__v1__device__descriptor, depth: 4, &allocator,
                                          healthstore__v1__device__unpack) else { throw unreadable }
        return add(try WireDecode.device(d.pointee), to: &table)
    }

    @inline(never)
    private static func add(revision bytes: UnsafeRawBufferPointer, to table: inout SampleTable,
                            _ allocator: inout ProtobufCAllocator) throws(HealthError) -> Int32 {
        guard let r = WireDecode.unpacked(bytes, healthstore__v1__source_revision__descriptor, depth: 4, &allocator,
                                          healthstore__v1__source_revision__unpack) else { throw unreadable }
        return table.add(revision: try WireDecode.sourceRevision(r.pointee))
    }

    /// `bytes` (a string field's, off the wire) as the C string `read` takes; throws where they hold a NUL.
    fileprivate static func text(_ bytes: UnsafeRawBufferPointer,
                                 _ read: (UnsafePointer<CChar>) throws(HealthError) -> String) throws(HealthError) -> String {
        guard memchr(bytes.baseAddress!, 0, bytes.count) == nil else { throw Self.unreadable }
        return try withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { (text) throws(HealthError) in
            text.baseAddress!.withMemoryRebound(to: UInt8.self, capacity: bytes.count) {
                $0.update(from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), count: bytes.count)
            }
            text[bytes.count] = 0
            return try read(text.baseAddress!)
        }
    }

    /// Thrown where a device's or revision's bytes do not unpack: the page is then decoded whole.
    private static let unreadable = HealthError(.malformed, "a submessage does not unpack", field: "samples")

    private static func add(_ device: Device, to table: inout SampleTable) -> Int32 {
        device.isEmpty ? -1 : table.add(device: device)
    }

    /// The row body of a plain quantity or category sample (its unit found among the page's), nil
    /// for a sample decoded whole.
    private mutating func plainBody(_ s: Healthstore__V1__Sample) throws(HealthError) -> SampleTable.Body? {
        switch s.body_case {
        case HEALTHSTORE__V1__SAMPLE__BODY_QUANTITY where s.n_metadata == 0:
            guard let q = s.quantity?.pointee, q.minimum == nil, q.maximum == nil, q.most_recent == nil,
                  let quantity = q.quantity, let unitName = quantity.pointee.unit else { return nil }
            let unit = try units.index(of: unitName, hash: Self.hash, same: Self.same, in: &table) { (table) throws(HealthError) in
                table.add(unit: try CRead.string(unitName, "quantity.quantity.unit"))
            }
            return .quantity(value: quantity.pointee.value, unit: unit, count: q.count == 0 ? 1 : q.count)
        case HEALTHSTORE__V1__SAMPLE__BODY_CATEGORY where s.n_metadata == 0:
            guard let category = s.category else { return nil }
            return .category(category.pointee.value)
        default:
            return nil
        }
    }


    private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hash = WordHash()
        hash.add(bytes)
        return hash.value
    }

    private static func same(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }

    // Strings hash (a word at a time: these run for every sample, a device's eight strings each) and
    // compare by their bytes, NULL as empty (as CRead.string reads it).

    private static func hash(_ s: UnsafeMutablePointer<CChar>) -> Int {
        var hash = WordHash()
        hash.add(s)
        return hash.value
    }

    private static func same(_ a: UnsafeMutablePointer<CChar>, _ b: UnsafeMutablePointer<CChar>) -> Bool {
        strcmp(a, b) == 0
    }

    private static func hash(_ p: UnsafeMutablePointer<Healthstore__V1__Device>) -> Int {
        let d = p.pointee
        var hash = WordHash()
        hash.add(d.name)
        hash.add(d.manufacturer)
        hash.add(d.model)
        hash.add(d.hardware_version)
        hash.add(d.firmware_version)
        hash.add(d.software_version)
        hash.add(d.local_identifier)
        hash.add(d.udi_device_identifier)
        return hash.value
    }

    private static func same(_ a: UnsafeMutablePointer<Healthstore__V1__Device>, _ b: UnsafeMutablePointer<Healthstore__V1__Device>) -> Bool {
        let (a, b) = (a.pointee, b.pointee)
        return sameText(a.name, b.name) && sameText(a.manufacturer, b.manufacturer) && sameText(a.model, b.model)
            && sameText(a.hardware_version, b.hardware_version) && sameText(a.firmware_version, b.firmware_version)
            && sameText(a.software_version, b.software_version) && sameText(a.local_identifier, b.local_identifier)
            && sameText(a.udi_device_identifier, b.udi_device_identifier)
    }

    private static func hash(_ p: UnsafeMutablePointer<Healthstore__V1__SourceRevision>) -> Int {
        let r = p.pointee
        var hash = WordHash()
        hash.add(r.source?.pointee.name)
        hash.add(r.source?.pointee.bundle_id)
        hash.add(r.version)
        hash.add(r.product_type)
        hash.add(UInt64(UInt32(bitPattern: r.os_major)) << 32 | UInt64(UInt32(bitPattern: r.os_minor)))
        hash.add(UInt64(UInt32(bitPattern: r.os_patch)))
        return hash.value
    }

    /// Equal revisions, their sources' import included.
    private static func same(_ a: UnsafeMutablePointer<Healthstore__V1__SourceRevision>,
                             _ b: UnsafeMutablePointer<Healthstore__V1__SourceRevision>) -> Bool {
        let (a, b) = (a.pointee, b.pointee)
        guard (a.source == nil) == (b.source == nil), a.os_major == b.os_major, a.os_minor == b.os_minor, a.os_patch == b.os_patch,
              sameText(a.version, b.version), sameText(a.product_type, b.product_type) else { return false }
        guard let sa = a.source?.pointee, let sb = b.source?.pointee else { return true }
        return sameText(sa.name, sb.name) && sameText(sa.bundle_id, sb.bundle_id) && (sa.imported != 0) == (sb.imported != 0)
            && (sa.imported == 0 || sa.imported_time == sb.imported_time)
    }

    private static func sameText(_ a: UnsafeMutablePointer<CChar>?, _ b: UnsafeMutablePointer<CChar>?) -> Bool {
        switch (a, b) {
        case let (a?, b?): strcmp(a, b) == 0
        case let (a?, nil): a.pointee == 0
        case let (nil, b?): b.pointee == 0
        case (nil, nil): true
        }
    }
}

/// A row's fields but its type, device and source revision, from protobuf-c's sample or off the wire.
private struct RowFields {
    let uuid: UUID
    let start: Int64
    let end: Int64
    /// Zero on the wire.
    let creationTime: Int64
    let body: SampleTable.Body

    init(uuid: UUID, start: Int64, end: Int64, creationTime: Int64, body: SampleTable.Body) {
        (self.uuid, self.start, self.end, self.creationTime, self.body) = (uuid, start, end, creationTime, body)
    }

    init(_ s: Healthstore__V1__Sample, _ body: SampleTable.Body) throws(HealthError) {
        self.init(uuid: try CRead.uuid(s.uuid, "uuid"), start: s.start_time, end: s.end_time, creationTime: s.creation_time, body: body)
    }

    func row(type: Int32, device: Int32, revision: Int32) -> SampleTable.Row {
        SampleTable.Row(uuid: uuid, type: type, device: device, revision: revision, start: start, end: end,
                        creationTime: creationTime == 0 ? nil : creationTime, body: body)
    }
}

/// A sample's fields gathered from the wire while `TableReader` walks it, for a plain row without
/// protobuf-c's unpack and the pre-scan before it (most of a page's decoding): a 16-byte UUID, times,
/// and a quantity (value, unit, count) or category body, nothing else. Anything else — metadata,
/// another body or another field of one, a field met twice or with another wire type, a unit with a
/// NUL — is not plain, and protobuf-c unpacks the sample as before. Absent numbers are zero, as
/// protobuf-c reads them (a value or category of 0 is not sent).
private struct PlainFields {
    private var plain = true
    private var seen: UInt64 = 0
    private var uuid: UnsafeRawBufferPointer?
    private var start: UInt64 = 0, end: UInt64 = 0, creation: UInt64 = 0
    private var quantity: UnsafeRawBufferPointer?, category: UnsafeRawBufferPointer?

    /// A sample's fields where its bytes are laid out as healthd packs a plain sample — a UUID of 16
    /// bytes, its type, start, end and creation time, a quantity or a category body, then its device
    /// and revision (protobuf-c packs them last, as the page's fields it does not know; before the
    /// creation time, in their numbers' order, is read too), each number of 0 left out as
    /// protobuf-c leaves it and every length under 128 — read from their places in one pass, with
    /// where the type, device and revision fields lie; nil for any other layout (or bytes that do
    /// not make sense), which the field walk reads as it did. This is nearly every sample of an export.
    @inline(__always)
    static func packed(_ wire: UnsafeRawBufferPointer) -> (fields: PlainFields, type: Range<Int>, device: Range<Int>?, revision: Range<Int>?)? {
        var read = PackedFields(wire: wire)
        guard let uuid = read.field(1 << 3 | 2), uuid.count == 18, let type = read.field(2 << 3 | 2),
              let start = read.number(3 << 3), let end = read.number(4 << 3) else { return nil }
        var device = read.field(6 << 3 | 2), revision = read.field(7 << 3 | 2)
        guard let creation = read.number(8 << 3) else { return nil }
        let quantity = read.field(10 << 3 | 2), category = quantity == nil ? read.field(11 << 3 | 2) : nil
        if device == nil { device = read.field(6 << 3 | 2) }
        if revision == nil { revision = read.field(7 << 3 | 2) }
        guard quantity != nil || category != nil, read.at == wire.count else { return nil }
        var fields = PlainFields()
        (fields.uuid, fields.start, fields.end, fields.creation) = (read.body(uuid), start, end, creation)
        (fields.quantity, fields.category) = (quantity.map(read.body), category.map(read.body))
        return (fields, type, device, revision)
    }

    /// Takes one of the sample's fields (any but its type, device and revision).
    @inline(__always)
    mutating func read(_ field: WireScan.WireField, in wire: UnsafeRawBufferPointer) {
        guard plain, Self.first(field, &seen) else { return plain = false }
        switch (field.tag >> 3, field.tag & 7) {
        case (1, 2): uuid = Self.bytes(field, wire)
        case (3, 0): start = field.number
        case (4, 0): end = field.number
        case (8, 0): creation = field.number
        case (10, 2): quantity = Self.bytes(field, wire)
        case (11, 2): category = Self.bytes(field, wire)
        default: plain = false
        }
    }

    /// The row's fields, its unit's index from `unit`; nil when the sample is not plain.
    func row(unit: (UnsafeRawBufferPointer) throws(HealthError) -> Int32) throws(HealthError) -> RowFields? {
        guard plain, let uuid, uuid.count == 16 else { return nil }
        let body: SampleTable.Body
        switch (quantity, category) {
        case (let wire?, nil):
            var (value, count): (UInt64, UInt64) = (0, 0)
            var unitBytes: UnsafeRawBufferPointer?
            if let packed = Self.quantityAsPacked(wire) {
                (value, unitBytes, count) = packed
            } else {
                var measured: UnsafeRawBufferPointer?
                guard Self.fields(wire, { field in
                    switch (field.tag >> 3, field.tag & 7) {
                    case (1, 2): measured = Self.bytes(field, wire)
                    case (2, 0): count = field.number
                    default: return false
                    }
                    return true
                }), let measured else { return nil }
                guard Self.fields(measured, { field in
                    switch (field.tag >> 3, field.tag & 7) {
                    case (1, 1): value = field.number
                    case (2, 2): unitBytes = Self.bytes(field, measured)
                    default: return false
                    }
                    return true
                }) else { return nil }
            }
            guard let unitBytes else { return nil }
            body = .quantity(value: Double(bitPattern: value), unit: try unit(unitBytes),
                             count: count == 0 ? 1 : Int64(bitPattern: count))
        case (nil, let wire?):
            var value: UInt64 = 0
            guard Self.fields(wire, { field in
                guard field.tag == 1 << 3 else { return false }
                value = field.number
                return true
            }) else { return nil }
            body = .category(Int64(bitPattern: value))
        default:
            return nil
        }
        return RowFields(uuid: UUID(uuid: uuid.loadUnaligned(as: uuid_t.self)), start: Int64(bitPattern: start),
                         end: Int64(bitPattern: end), creationTime: Int64(bitPattern: creation), body: body)
    }

    /// A quantity body's value, unit and count (0 when left out) where its bytes are laid out as
    /// protobuf-c packs it — the quantity (a value, then a unit of under 128 bytes), then a count if
    /// any — read from their places without walking its fields one by one; nil for any other layout
    /// (a value of 0, which is not sent; fields in another order, twice, or of other kinds), which
    /// `fields` walks. This is nearly every quantity sample of an export.
    @inline(__always)
    private static func quantityAsPacked(_ wire: UnsafeRawBufferPointer) -> (value: UInt64, unit: UnsafeRawBufferPointer, count: UInt64)? {
        // 0x0A length [0x09 value×8 0x12 length unit…] [0x10 count…]
        guard wire.count >= 13, wire[0] == 1 << 3 | 2, wire[2] == 1 << 3 | 1, wire[11] == 2 << 3 | 2 else { return nil }
        let measured = Int(wire[1]), unitCount = Int(wire[12])
        guard measured < 0x80, unitCount < 0x80, measured == 11 + unitCount, 2 + measured <= wire.count else { return nil }
        let value = UInt64(littleEndian: wire.loadUnaligned(fromByteOffset: 3, as: UInt64.self))
        let unit = UnsafeRawBufferPointer(rebasing: wire[13..<13 + unitCount])
        var offset = 2 + measured
        guard offset < wire.count else { return (value, unit, 0) }
        guard wire[offset] == 2 << 3 else { return nil }
        offset += 1
        guard let count = WireScan.varint(wire, &offset), offset == wire.count else { return nil }
        return (value, unit, count)
    }

    /// Walks a submessage's fields, each met once and taken by `take`; false where one is not.
    @inline(__always)
    private static func fields(_ bytes: UnsafeRawBufferPointer, _ take: (WireScan.WireField) -> Bool) -> Bool {
        var (offset, seen): (Int, UInt64) = (0, 0)
        while offset < bytes.count {
            guard let field = WireScan.next(bytes, &offset), first(field, &seen), take(field) else { return false }
        }
        return true
    }

    /// Whether `field` is the first of its number (below 64), noting it in `seen`.
    private static func first(_ field: WireScan.WireField, _ seen: inout UInt64) -> Bool {
        let number = field.tag >> 3
        guard number < 64, seen & (1 << number) == 0 else { return false }
        seen |= 1 << number
        return true
    }

    private static func bytes(_ field: WireScan.WireField, _ wire: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        field.body.map { UnsafeRawBufferPointer(rebasing: wire[$0]) }
    }
}

/// `PlainFields.packed`'s place in a sample's bytes: a value with its steps, where local functions
/// sharing a captured offset had their accesses checked at run time.
private struct PackedFields {
    let wire: UnsafeRawBufferPointer
    var at = 0

    /// The field `tag` (its tag and length a byte each, its body under 128 bytes) when it comes
    /// next, read past: where it lies, its tag and length included.
    @inline(__always)
    mutating func field(_ tag: UInt8) -> Range<Int>? {
        guard wire.count - at >= 2, wire[at] == tag, case let count = Int(wire[at + 1]), count < 0x80, wire.count - at - 2 >= count else {
            return nil
        }
        at += 2 + count
        return at - 2 - count..<at
    }

    /// The varint field `tag` when it comes next, read past; 0 when it does not come (a number of 0
    /// is left out), nil for a varint cut short.
    @inline(__always)
    mutating func number(_ tag: UInt8) -> UInt64? {
        guard at < wire.count, wire[at] == tag else { return 0 }
        at += 1
        return WireScan.varint(wire, &at)
    }

    /// The body of `field`, a range that `field(_:)` returned.
    func body(_ field: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: wire[field.lowerBound + 2..<field.upperBound])
    }
}

/// A 64-bit multiplicative hash over strings, eight bytes at a time (each string ended by its
/// length, so "ab","c" and "a","bc" differ), and numbers. Equal hashes are confirmed by comparing
/// the values, so it needs to spread, not to resist collisions.
private struct WordHash {
    private var hash: UInt64 = 0xcbf2_9ce4_8422_2325

    var value: Int { Int(truncatingIfNeeded: hash ^ hash >> 29) }

    /// NULL hashes as the empty string, as the two compare equal.
    mutating func add(_ s: UnsafeMutablePointer<CChar>?) {
        let length = s.map { strlen($0) } ?? 0
        var at = 0
        var tail: UInt64 = 0
        if let s {
            let bytes = UnsafeRawPointer(s)
            while at + 8 <= length {
                add(bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
                at += 8
            }
            for i in at..<length { tail |= UInt64(bytes.load(fromByteOffset: i, as: UInt8.self)) << (8 * UInt64(i - at)) }
        }
        add(tail)
        add(UInt64(length))
    }

    /// Bytes that are not a C string (a submessage's on the wire). A tail of fewer than eight bytes
    /// is taken as the last eight (overlapping the last word added) where there are eight: a
    /// sample's device is hashed for nearly every sample.
    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var at = 0
        while at + 8 <= bytes.count {
            add(bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
            at += 8
        }
        var tail: UInt64 = 0
        if at < bytes.count, bytes.count >= 8 {
            tail = bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
        } else {
            for i in at..<bytes.count { tail |= UInt64(bytes[i]) << (8 * UInt64(i - at)) }
        }
        add(tail)
        add(UInt64(bytes.count))
    }

    mutating func add(_ n: UInt64) {
        hash = (hash ^ n) &* 0x9E37_79B9_7F4A_7C15
        hash ^= hash >> 32
    }
}

/// The table index of each distinct value (C fields, or wire bytes) read so far in one message, found by a hash of its
/// contents and confirmed by comparing them.
private struct Interned<Key> {
    private typealias Entry = (hash: Int, value: Key, index: Int32, next: Int)
    /// Every value met, in the order first met; `next` is the entry met right after it the last
    /// time it was met (-1: none yet).
    private var entries: [Entry] = []
    /// Open addressing on the hash's low bits, at most half full, of places in `entries` (-1:
    /// empty): a dictionary would hash the hash again, for every sample.
    private var slots = [Int](repeating: -1, count: 16)
    /// The entry met last: a page is of one type and unit, and mostly of one source revision, so
    /// comparing with it first skips the hash and the look-up for most samples; and where samples
    /// take turns among a few devices, the one met after it last time is mostly the one met next.
    private var last = -1

    /// The index of `value`, from `add` (which adds it to `table`) the first time.
    @inline(__always)
    mutating func index(of value: Key, hash: (Key) -> Int,
                        same: (Key, Key) -> Bool, in table: inout SampleTable,
                        add: (inout SampleTable) throws(HealthError) -> Int32) throws(HealthError) -> Int32 {
        if last >= 0 {
            if same(entries[last].value, value) { return entries[last].index }
            let guess = entries[last].next
            if guess >= 0, same(entries[guess].value, value) { return met(guess) }
        }
        let key = hash(value)
        var at = key & (slots.count - 1)
        while case let entry = slots[at], entry >= 0 {
            if entries[entry].hash == key, same(entries[entry].value, value) { return met(entry) }
            at = (at + 1) & (slots.count - 1)
        }
        let index = try add(&table)
        slots[at] = entries.count
        entries.append((key, value, index, -1))
        if entries.count * 2 > slots.count { grow() }
        return met(entries.count - 1)
    }

    /// Notes the entry met now as the one after the last, and as the last.
    @inline(__always)
    private mutating func met(_ entry: Int) -> Int32 {
        if last >= 0 { entries[last].next = entry }
        last = entry
        return entries[entry].index
    }

    private mutating func grow() {
        slots = [Int](repeating: -1, count: slots.count * 2)
        for (place, entry) in entries.enumerated() {
            var at = entry.hash & (slots.count - 1)
            while slots[at] >= 0 { at = (at + 1) & (slots.count - 1) }
            slots[at] = place
        }
    }
}
