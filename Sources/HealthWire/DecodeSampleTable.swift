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
}

private struct TableReader {
    var table = SampleTable()
    private var types = Interned<CChar>()
    private var units = Interned<CChar>()
    private var devices = Interned<Healthstore__V1__Device>()
    private var revisions = Interned<Healthstore__V1__SourceRevision>()

    mutating func append(_ p: UnsafeMutablePointer<Healthstore__V1__Sample>) throws(HealthError) {
        let s = p.pointee
        let body: SampleTable.Body
        switch s.body_case {
        case HEALTHSTORE__V1__SAMPLE__BODY_QUANTITY where s.n_metadata == 0:
            guard let q = s.quantity?.pointee, q.minimum == nil, q.maximum == nil, q.most_recent == nil,
                  let quantity = q.quantity, let unitName = quantity.pointee.unit else { return table.append(try WireDecode.sample(s)) }
            let unit = try units.index(of: unitName, hash: Self.hash, same: Self.same, in: &table) { (table) throws(HealthError) in
                table.add(unit: try CRead.string(unitName, "quantity.quantity.unit"))
            }
            body = .quantity(value: quantity.pointee.value, unit: unit, count: q.count == 0 ? 1 : q.count)
        case HEALTHSTORE__V1__SAMPLE__BODY_CATEGORY where s.n_metadata == 0:
            guard let category = s.category else { return table.append(try WireDecode.sample(s)) }
            body = .category(category.pointee.value)
        default:
            return table.append(try WireDecode.sample(s))
        }
        guard let typeName = s.type else { throw CRead.malformed("type is required", field: "type") }
        let type = try types.index(of: typeName, hash: Self.hash, same: Self.same, in: &table) { (table) throws(HealthError) in
            table.add(type: try CRead.typeName(typeName, "type"))
        }
        var device: Int32 = -1, revision: Int32 = -1
        if let d = s.device {
            device = try devices.index(of: d, hash: Self.hash, same: Self.same, in: &table) { (table) throws(HealthError) in
                let device = try WireDecode.device(d.pointee)
                return device.isEmpty ? -1 : table.add(device: device)
            }
        }
        if let r = s.source_revision {
            revision = try revisions.index(of: r, hash: Self.hash, same: Self.same, in: &table) { (table) throws(HealthError) in
                table.add(revision: try WireDecode.sourceRevision(r.pointee))
            }
        }
        table.append(SampleTable.Row(uuid: try CRead.uuid(s.uuid, "uuid"), type: type, device: device, revision: revision,
                                     start: s.start_time, end: s.end_time,
                                     creationTime: s.creation_time == 0 ? nil : s.creation_time, body: body))
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

    mutating func add(_ n: UInt64) {
        hash = (hash ^ n) &* 0x9E37_79B9_7F4A_7C15
        hash ^= hash >> 32
    }
}

/// The table index of each distinct C value read so far in one message, found by a hash of its
/// contents and confirmed by comparing them.
private struct Interned<C> {
    private typealias Slot = (hash: Int, value: UnsafeMutablePointer<C>, index: Int32)
    /// Open addressing on the hash's low bits, at most half full: a dictionary would hash the hash
    /// again, for every sample.
    private var slots = [Slot?](repeating: nil, count: 16)
    private var count = 0
    /// The value met last: a page is of one type and unit, and mostly of one source revision, so
    /// comparing with it first skips the hash and the look-up for most samples.
    private var last: (value: UnsafeMutablePointer<C>, index: Int32)?

    /// The index of `value`, from `add` (which adds it to `table`) the first time.
    mutating func index(of value: UnsafeMutablePointer<C>, hash: (UnsafeMutablePointer<C>) -> Int,
                        same: (UnsafeMutablePointer<C>, UnsafeMutablePointer<C>) -> Bool, in table: inout SampleTable,
                        add: (inout SampleTable) throws(HealthError) -> Int32) throws(HealthError) -> Int32 {
        if let last, same(last.value, value) { return last.index }
        let key = hash(value)
        var at = key & (slots.count - 1)
        while let slot = slots[at] {
            if slot.hash == key, same(slot.value, value) {
                last = (value, slot.index)
                return slot.index
            }
            at = (at + 1) & (slots.count - 1)
        }
        let index = try add(&table)
        slots[at] = (key, value, index)
        count += 1
        if count * 2 > slots.count { grow() }
        last = (value, index)
        return index
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot?](repeating: nil, count: old.count * 2)
        for case let slot? in old {
            var at = slot.hash & (slots.count - 1)
            while slots[at] != nil { at = (at + 1) & (slots.count - 1) }
            slots[at] = slot
        }
    }
}
