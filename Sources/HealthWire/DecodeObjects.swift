import Foundation
import HealthModel
import HealthProto

/// protobuf-c structs → HealthModel values for identities, values and samples.
enum WireDecode {
    static func quantity(_ q: Healthstore__V1__Quantity, _ field: @autoclosure () -> String) throws(HealthError) -> Quantity {
        Quantity(q.value, try CRead.string(q.unit, field() + ".unit"))
    }

    static func requiredQuantity(_ pointer: UnsafeMutablePointer<Healthstore__V1__Quantity>?,
                                 _ field: @autoclosure () -> String) throws(HealthError) -> Quantity {
        try quantity(try CRead.required(pointer, field()), field())
    }

    static func optionalQuantity(_ pointer: UnsafeMutablePointer<Healthstore__V1__Quantity>?,
                                 _ field: @autoclosure () -> String) throws(HealthError) -> Quantity? {
        guard let pointer else { return nil }
        return try quantity(pointer.pointee, field())
    }

    /// A duration carried as a quantity in seconds.
    static func optionalSeconds(_ pointer: UnsafeMutablePointer<Healthstore__V1__Quantity>?,
                                _ field: @autoclosure () -> String) throws(HealthError) -> Double? {
        guard let q = try optionalQuantity(pointer, field()) else { return nil }
        guard q.unit == "s" else {
            throw CRead.malformed("\(field()) must be in \"s\", got \"\(q.unit)\"", field: field() + ".unit")
        }
        return q.value
    }

    static func metadataValue(_ v: Healthstore__V1__MetadataValue, _ field: @autoclosure () -> String) throws(HealthError) -> MetadataValue {
        switch v.value_case {
        case HEALTHSTORE__V1__METADATA_VALUE__VALUE_STRING_VALUE: .string(try CRead.string(v.string_value, field()))
        case HEALTHSTORE__V1__METADATA_VALUE__VALUE_DOUBLE_VALUE: .double(v.double_value)
        case HEALTHSTORE__V1__METADATA_VALUE__VALUE_INT_VALUE: .int(v.int_value)
        case HEALTHSTORE__V1__METADATA_VALUE__VALUE_BOOL_VALUE: .bool(v.bool_value != 0)
        case HEALTHSTORE__V1__METADATA_VALUE__VALUE_DATE_TIME: .date(v.date_time)
        case HEALTHSTORE__V1__METADATA_VALUE__VALUE_QUANTITY_VALUE: .quantity(try requiredQuantity(v.quantity_value, field()))
        default: throw CRead.malformed("\(field()) has no value set", field: field())
        }
    }

    static func metadata<E: CMetadataEntry>(_ entries: UnsafeMutablePointer<UnsafeMutablePointer<E>?>?,
                                            _ count: Int) throws(HealthError) -> Metadata {
        guard count > 0 else { return [:] }
        guard let entries else { throw CRead.malformed("metadata has \(count) entries but no storage", field: "metadata") }
        var result = Metadata(minimumCapacity: count)
        for i in 0..<count {
            guard let entry = entries[i]?.pointee else { throw CRead.malformed("metadata[\(i)] is missing", field: "metadata") }
            let key = try CRead.string(entry.key, "metadata")
            guard let value = entry.value else {
                throw CRead.malformed("metadata.\(key) has no value", field: "metadata.\(key)")
            }
            result[key] = try metadataValue(value.pointee, "metadata.\(key)")
        }
        return result
    }

    static func source(_ s: Healthstore__V1__Source, _ field: @autoclosure () -> String) throws(HealthError) -> Source {
        Source(name: try CRead.string(s.name, field() + ".name"), bundleID: try CRead.string(s.bundle_id, field() + ".bundle_id"),
               importedTime: s.imported != 0 ? s.imported_time : nil)
    }

    static func requiredSource(_ pointer: UnsafeMutablePointer<Healthstore__V1__Source>?,
                               _ field: @autoclosure () -> String) throws(HealthError) -> Source {
        try source(try CRead.required(pointer, field()), field())
    }

    /// A revision; an absent source reads as empty (Hello: "use the token's app").
    static func sourceRevision(_ r: Healthstore__V1__SourceRevision) throws(HealthError) -> SourceRevision {
        let source = try r.source.map { p throws(HealthError) in try self.source(p.pointee, "source_revision.source") }
        return SourceRevision(source: source ?? Source(name: "", bundleID: ""),
                              version: try CRead.optionalString(r.version, "source_revision.version"),
                              productType: try CRead.optionalString(r.product_type, "source_revision.product_type"),
                              osMajor: Int(r.os_major), osMinor: Int(r.os_minor), osPatch: Int(r.os_patch))
    }

    static func optionalSourceRevision(_ pointer: UnsafeMutablePointer<Healthstore__V1__SourceRevision>?) throws(HealthError) -> SourceRevision? {
        guard let pointer else { return nil }
        return try sourceRevision(pointer.pointee)
    }

    static func device(_ d: Healthstore__V1__Device) throws(HealthError) -> Device {
        Device(name: try CRead.optionalString(d.name, "device.name"),
               manufacturer: try CRead.optionalString(d.manufacturer, "device.manufacturer"),
               model: try CRead.optionalString(d.model, "device.model"),
               hardwareVersion: try CRead.optionalString(d.hardware_version, "device.hardware_version"),
               firmwareVersion: try CRead.optionalString(d.firmware_version, "device.firmware_version"),
               softwareVersion: try CRead.optionalString(d.software_version, "device.software_version"),
               localIdentifier: try CRead.optionalString(d.local_identifier, "device.local_identifier"),
               udiDeviceIdentifier: try CRead.optionalString(d.udi_device_identifier, "device.udi_device_identifier"))
    }

    /// Absent or all-empty → nil.
    static func optionalDevice(_ pointer: UnsafeMutablePointer<Healthstore__V1__Device>?) throws(HealthError) -> Device? {
        guard let pointer else { return nil }
        let device = try device(pointer.pointee)
        return device.isEmpty ? nil : device
    }

    static func calendarDay(_ pointer: UnsafeMutablePointer<Healthstore__V1__CalendarDay>?,
                            _ field: @autoclosure () -> String) throws(HealthError) -> CalendarDay {
        let d = try CRead.required(pointer, field())
        return CalendarDay(year: Int(d.year), month: Int(d.month), day: Int(d.day))
    }

    static func deletedObject(_ d: Healthstore__V1__DeletedObject) throws(HealthError) -> DeletedObject {
        DeletedObject(uuid: try CRead.uuid(d.uuid, "uuid"), type: try CRead.string(d.type, "type"),
                      metadata: try metadata(d.metadata, d.n_metadata))
    }
}
