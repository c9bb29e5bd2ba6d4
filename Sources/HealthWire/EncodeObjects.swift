import CProtobufC
import Foundation
import HealthModel
import HealthProto

/// HealthModel values → protobuf-c structs living in the arena: identities, values and samples.
extension WireArena {
    typealias CList<C> = (count: Int, items: UnsafeMutablePointer<UnsafeMutablePointer<C>?>?)

    /// A repeated submessage field.
    func list<T, C>(_ items: some Collection<T>, _ build: (T) -> UnsafeMutablePointer<C>) -> CList<C> {
        guard let storage = array(items.count, of: UnsafeMutablePointer<C>?.self) else { return (0, nil) }
        for (i, item) in items.enumerated() { (storage + i).initialize(to: build(item)) }
        return (items.count, storage)
    }

    func cStrings(_ strings: some Collection<String>) -> CList<CChar> {
        list(strings, cString)
    }

    func binaries(_ uuids: some Collection<UUID>) -> (count: Int, items: UnsafeMutablePointer<ProtobufCBinaryData>?) {
        guard let storage = array(uuids.count, of: ProtobufCBinaryData.self) else { return (0, nil) }
        for (i, uuid) in uuids.enumerated() { (storage + i).initialize(to: binary(uuid)) }
        return (uuids.count, storage)
    }

    /// A generated C enum from a Swift enum sharing its raw values.
    func cEnum<C: RawRepresentable<UInt32>>(_ value: some RawRepresentable<Int32>) -> C {
        C(rawValue: UInt32(bitPattern: value.rawValue))!
    }

    func quantity(_ q: Quantity) -> UnsafeMutablePointer<Healthstore__V1__Quantity> {
        let p = message(healthstore__v1__quantity__init)
        p.pointee.value = q.value
        p.pointee.unit = cString(q.unit)
        return p
    }

    func optionalQuantity(_ q: Quantity?) -> UnsafeMutablePointer<Healthstore__V1__Quantity>? {
        q.map(quantity)
    }

    /// A duration in seconds as a quantity in "s".
    func seconds(_ value: Double?) -> UnsafeMutablePointer<Healthstore__V1__Quantity>? {
        value.map { quantity(Quantity($0, "s")) }
    }

    func metadataValue(_ value: MetadataValue) -> UnsafeMutablePointer<Healthstore__V1__MetadataValue> {
        let p = message(healthstore__v1__metadata_value__init)
        switch value {
        case .string(let s):
            p.pointee.value_case = HEALTHSTORE__V1__METADATA_VALUE__VALUE_STRING_VALUE
            p.pointee.string_value = cString(s)
        case .double(let d):
            p.pointee.value_case = HEALTHSTORE__V1__METADATA_VALUE__VALUE_DOUBLE_VALUE
            p.pointee.double_value = d
        case .int(let i):
            p.pointee.value_case = HEALTHSTORE__V1__METADATA_VALUE__VALUE_INT_VALUE
            p.pointee.int_value = i
        case .bool(let b):
            p.pointee.value_case = HEALTHSTORE__V1__METADATA_VALUE__VALUE_BOOL_VALUE
            p.pointee.bool_value = b ? 1 : 0
        case .date(let t):
            p.pointee.value_case = HEALTHSTORE__V1__METADATA_VALUE__VALUE_DATE_TIME
            p.pointee.date_time = t
        case .quantity(let q):
            p.pointee.value_case = HEALTHSTORE__V1__METADATA_VALUE__VALUE_QUANTITY_VALUE
            p.pointee.quantity_value = quantity(q)
        }
        return p
    }

    /// Entries sorted by key, so equal metadata always encodes to equal bytes.
    func metadata<E: CMetadataEntry>(_ metadata: Metadata) -> CList<E> {
        guard !metadata.isEmpty else { return (0, nil) }
        return list(metadata.sorted { $0.key < $1.key }) { entry in
            let p = message(E.initialise)
            p.pointee.key = cString(entry.key)
            p.pointee.value = metadataValue(entry.value)
            return p
        }
    }

    func source(_ s: Source) -> UnsafeMutablePointer<Healthstore__V1__Source> {
        let p = message(healthstore__v1__source__init)
        p.pointee.name = cString(s.name)
        p.pointee.bundle_id = cString(s.bundleID)
        p.pointee.imported = s.isImported ? 1 : 0
        p.pointee.imported_time = s.importedTime ?? 0
        return p
    }

    func sourceRevision(_ r: SourceRevision) -> UnsafeMutablePointer<Healthstore__V1__SourceRevision> {
        let p = message(healthstore__v1__source_revision__init)
        p.pointee.source = source(r.source)
        p.pointee.version = cString(r.version ?? "")
        p.pointee.product_type = cString(r.productType ?? "")
        p.pointee.os_major = Int32(clamping: r.osMajor)
        p.pointee.os_minor = Int32(clamping: r.osMinor)
        p.pointee.os_patch = Int32(clamping: r.osPatch)
        return p
    }

    func device(_ d: Device) -> UnsafeMutablePointer<Healthstore__V1__Device> {
        let p = message(healthstore__v1__device__init)
        p.pointee.name = cString(d.name ?? "")
        p.pointee.manufacturer = cString(d.manufacturer ?? "")
        p.pointee.model = cString(d.model ?? "")
        p.pointee.hardware_version = cString(d.hardwareVersion ?? "")
        p.pointee.firmware_version = cString(d.firmwareVersion ?? "")
        p.pointee.software_version = cString(d.softwareVersion ?? "")
        p.pointee.local_identifier = cString(d.localIdentifier ?? "")
        p.pointee.udi_device_identifier = cString(d.udiDeviceIdentifier ?? "")
        return p
    }

    func calendarDay(_ d: CalendarDay) -> UnsafeMutablePointer<Healthstore__V1__CalendarDay> {
        let p = message(healthstore__v1__calendar_day__init)
        p.pointee.year = Int32(clamping: d.year)
        p.pointee.month = Int32(clamping: d.month)
        p.pointee.day = Int32(clamping: d.day)
        return p
    }

    func sample(_ s: Sample) -> UnsafeMutablePointer<Healthstore__V1__Sample> {
        let p = message(healthstore__v1__sample__init)
        p.pointee.uuid = binary(s.uuid)
        p.pointee.type = cString(s.type)
        p.pointee.start_time = s.start
        p.pointee.end_time = s.end
        (p.pointee.n_metadata, p.pointee.metadata) = metadata(s.metadata)
        p.pointee.device = s.device.map(device)
        p.pointee.source_revision = s.sourceRevision.map(sourceRevision)
        p.pointee.creation_time = s.creationTime ?? 0
        switch s.body {
        case .quantity(let q, let count):
            let body = message(healthstore__v1__quantity_body__init)
            body.pointee.quantity = quantity(q)
            body.pointee.count = count
            if let series = s.discreteSeries {
                body.pointee.minimum = quantity(series.minimum)
                body.pointee.maximum = quantity(series.maximum)
                body.pointee.most_recent = quantity(series.mostRecent)
                body.pointee.most_recent_start_time = series.mostRecentStart
                body.pointee.most_recent_end_time = series.mostRecentEnd
            }
            p.pointee.body_case = HEALTHSTORE__V1__SAMPLE__BODY_QUANTITY
            p.pointee.quantity = body
        case .category(let value):
            let body = message(healthstore__v1__category_body__init)
            body.pointee.value = value
            p.pointee.body_case = HEALTHSTORE__V1__SAMPLE__BODY_CATEGORY
            p.pointee.category = body
        case .correlation(let children):
            let body = message(healthstore__v1__correlation_body__init)
            (body.pointee.n_objects, body.pointee.objects) = list(children, sample)
            p.pointee.body_case = HEALTHSTORE__V1__SAMPLE__BODY_CORRELATION
            p.pointee.correlation = body
        case .workout(let w):
            p.pointee.body_case = HEALTHSTORE__V1__SAMPLE__BODY_WORKOUT
            p.pointee.workout = workout(w)
        case .electrocardiogram, .audiogram, .stateOfMind, .scoredAssessment:
            kindBody(s, into: p)
        case .series(let count):
            let body = message(healthstore__v1__series_body__init)
            body.pointee.count = count
            p.pointee.body_case = HEALTHSTORE__V1__SAMPLE__BODY_SERIES
            p.pointee.series = body
        }
        return p
    }

    /// One point of a quantity series (InsertSeriesData.quantities, SeriesDataPage.quantities).
    func quantitySeriesPoint(_ point: QuantitySeriesPoint) -> UnsafeMutablePointer<Healthstore__V1__QuantitySeriesPoint> {
        let p = message(healthstore__v1__quantity_series_point__init)
        p.pointee.quantity = quantity(point.quantity)
        p.pointee.start_time = point.start
        p.pointee.end_time = point.end
        return p
    }

    func workout(_ w: Workout) -> UnsafeMutablePointer<Healthstore__V1__WorkoutBody> {
        let p = message(healthstore__v1__workout_body__init)
        p.pointee.activity_type = w.activityType
        p.pointee.duration = w.duration ?? 0
        (p.pointee.n_events, p.pointee.events) = list(w.events, workoutEvent)
        (p.pointee.n_activities, p.pointee.activities) = list(w.activities, workoutActivity)
        (p.pointee.n_statistics, p.pointee.statistics) = list(w.statistics, workoutStatistic)
        (p.pointee.n_associated_sample_uuids, p.pointee.associated_sample_uuids) = binaries(w.associatedSampleUUIDs)
        return p
    }

    func workoutEvent(_ e: WorkoutEvent) -> UnsafeMutablePointer<Healthstore__V1__WorkoutEvent> {
        let p = message(healthstore__v1__workout_event__init)
        p.pointee.type = cEnum(e.type)
        p.pointee.start_time = e.start
        p.pointee.end_time = e.end
        (p.pointee.n_metadata, p.pointee.metadata) = metadata(e.metadata)
        return p
    }

    func workoutStatistic(_ s: WorkoutStatistic) -> UnsafeMutablePointer<Healthstore__V1__WorkoutStatistic> {
        let p = message(healthstore__v1__workout_statistic__init)
        p.pointee.quantity_type = cString(s.quantityType)
        p.pointee.sum = optionalQuantity(s.sum)
        p.pointee.average = optionalQuantity(s.average)
        p.pointee.minimum = optionalQuantity(s.minimum)
        p.pointee.maximum = optionalQuantity(s.maximum)
        return p
    }

    func workoutActivity(_ a: WorkoutActivity) -> UnsafeMutablePointer<Healthstore__V1__WorkoutActivity> {
        let p = message(healthstore__v1__workout_activity__init)
        p.pointee.uuid = binary(a.uuid)
        p.pointee.activity_type = a.activityType
        p.pointee.start_time = a.start
        p.pointee.end_time = a.end
        (p.pointee.n_metadata, p.pointee.metadata) = metadata(a.metadata)
        (p.pointee.n_events, p.pointee.events) = list(a.events, workoutEvent)
        (p.pointee.n_statistics, p.pointee.statistics) = list(a.statistics, workoutStatistic)
        return p
    }

    func deletedObject(_ d: DeletedObject) -> UnsafeMutablePointer<Healthstore__V1__DeletedObject> {
        let p = message(healthstore__v1__deleted_object__init)
        p.pointee.uuid = binary(d.uuid)
        p.pointee.type = cString(d.type)
        (p.pointee.n_metadata, p.pointee.metadata) = metadata(d.metadata)
        return p
    }
}
