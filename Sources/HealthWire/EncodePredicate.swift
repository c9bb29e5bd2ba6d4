import Foundation
import HealthModel
import HealthProto

/// `QueryPredicate` → protobuf-c predicate trees, every leaf included.
extension WireArena {
    func predicate(_ predicate: QueryPredicate) -> UnsafeMutablePointer<Healthstore__V1__Predicate> {
        let p = message(healthstore__v1__predicate__init)
        switch predicate {
        case .allOf(let children):
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_ALL_OF
            p.pointee.all_of = predicateList(children)
        case .anyOf(let children):
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_ANY_OF
            p.pointee.any_of = predicateList(children)
        case .not(let child):
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_NEGATION
            p.pointee.negation = self.predicate(child)
        case .dateRange(let range):
            let r = message(healthstore__v1__date_range_predicate__init)
            r.pointee.has_start = range.start == nil ? 0 : 1
            r.pointee.start_time = range.start ?? 0
            r.pointee.has_end = range.end == nil ? 0 : 1
            r.pointee.end_time = range.end ?? 0
            r.pointee.strict_start = range.strictStart ? 1 : 0
            r.pointee.strict_end = range.strictEnd ? 1 : 0
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_DATE_RANGE
            p.pointee.date_range = r
        case .uuids(let uuids):
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_UUIDS
            p.pointee.uuids = uuidsPredicate(uuids)
        case .sources(let bundleIDs):
            let s = message(healthstore__v1__sources_predicate__init)
            (s.pointee.n_bundle_ids, s.pointee.bundle_ids) = cStrings(bundleIDs)
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_SOURCES
            p.pointee.sources = s
        case .sourceRevisions(let patterns):
            let r = message(healthstore__v1__source_revisions_predicate__init)
            (r.pointee.n_revisions, r.pointee.revisions) = list(patterns, revisionPattern)
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_SOURCE_REVISIONS
            p.pointee.source_revisions = r
        case .devices(let devices):
            let d = message(healthstore__v1__devices_predicate__init)
            (d.pointee.n_devices, d.pointee.devices) = list(devices, device)
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_DEVICES
            p.pointee.devices = d
        case .deviceProperty(let property, let values):
            let d = message(healthstore__v1__device_property_predicate__init)
            d.pointee.property = cEnum(property)
            (d.pointee.n_allowed_values, d.pointee.allowed_values) = cStrings(values)
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_DEVICE_PROPERTY
            p.pointee.device_property = d
        case .metadataExists(let key):
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_METADATA
            p.pointee.metadata = metadataPredicate(key, HEALTHSTORE__V1__METADATA_MATCH__METADATA_MATCH_EXISTS)
        case .metadataCompare(let key, let comparison, let value):
            let m = metadataPredicate(key, HEALTHSTORE__V1__METADATA_MATCH__METADATA_MATCH_COMPARE)
            m.pointee.comparison = cEnum(comparison)
            m.pointee.value = metadataValue(value)
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_METADATA
            p.pointee.metadata = m
        case .metadataIn(let key, let values):
            let m = metadataPredicate(key, HEALTHSTORE__V1__METADATA_MATCH__METADATA_MATCH_IN)
            (m.pointee.n_allowed_values, m.pointee.allowed_values) = list(values, metadataValue)
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_METADATA
            p.pointee.metadata = m
        case .quantity(let comparison, let q):
            let c = message(healthstore__v1__quantity_predicate__init)
            c.pointee.comparison = cEnum(comparison)
            c.pointee.quantity = quantity(q)
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_QUANTITY
            p.pointee.quantity = c
        case .categoryValue(let comparison, let value):
            let c = message(healthstore__v1__category_value_predicate__init)
            c.pointee.comparison = cEnum(comparison)
            c.pointee.value = value
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_CATEGORY_VALUE
            p.pointee.category_value = c
        case .categoryValueIn(let values):
            let c = message(healthstore__v1__category_value_predicate__init)
            if let storage = array(values.count, of: Int64.self) {
                for (i, value) in values.enumerated() { (storage + i).initialize(to: value) }
                (c.pointee.n_allowed_values, c.pointee.allowed_values) = (values.count, storage)
            }
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_CATEGORY_VALUE
            p.pointee.category_value = c
        case .workoutActivityType(let activityType):
            let w = message(healthstore__v1__workout_activity_type_predicate__init)
            w.pointee.activity_type = activityType
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_WORKOUT_ACTIVITY_TYPE
            p.pointee.workout_activity_type = w
        case .noCorrelation:
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_NO_CORRELATION
            p.pointee.no_correlation = message(healthstore__v1__no_correlation_predicate__init)
        case .workout(let uuid):
            let w = message(healthstore__v1__workout_predicate__init)
            w.pointee.workout_uuid = binary(uuid)
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_WORKOUT
            p.pointee.workout = w
        case .workoutDuration(let comparison, let duration):
            let d = message(healthstore__v1__duration_predicate__init)
            d.pointee.comparison = cEnum(comparison)
            d.pointee.duration = duration
            p.pointee.kind_case = HEALTHSTORE__V1__PREDICATE__KIND_WORKOUT_DURATION
            p.pointee.workout_duration = d
        }
        return p
    }

    func optionalPredicate(_ predicate: QueryPredicate?) -> UnsafeMutablePointer<Healthstore__V1__Predicate>? {
        predicate.map(self.predicate)
    }

    func uuidsPredicate(_ uuids: some Collection<UUID>) -> UnsafeMutablePointer<Healthstore__V1__UuidsPredicate> {
        let u = message(healthstore__v1__uuids_predicate__init)
        (u.pointee.n_uuids, u.pointee.uuids) = binaries(uuids)
        return u
    }

    private func predicateList(_ children: [QueryPredicate]) -> UnsafeMutablePointer<Healthstore__V1__PredicateList> {
        let l = message(healthstore__v1__predicate_list__init)
        (l.pointee.n_predicates, l.pointee.predicates) = list(children, predicate)
        return l
    }

    /// A nil OS version is all zeros, the wire's wildcard.
    private func revisionPattern(_ pattern: SourceRevisionPattern) -> UnsafeMutablePointer<Healthstore__V1__SourceRevision> {
        let os = pattern.osVersion ?? []
        func component(_ i: Int) -> Int { i < os.count ? os[i] : 0 }
        return sourceRevision(SourceRevision(source: Source(name: "", bundleID: pattern.bundleID), version: pattern.version,
                                             productType: pattern.productType,
                                             osMajor: component(0), osMinor: component(1), osPatch: component(2)))
    }

    private func metadataPredicate(_ key: String, _ match: Healthstore__V1__MetadataMatch)
        -> UnsafeMutablePointer<Healthstore__V1__MetadataPredicate> {
        let m = message(healthstore__v1__metadata_predicate__init)
        m.pointee.key = cString(key)
        m.pointee.match = match
        return m
    }
}
