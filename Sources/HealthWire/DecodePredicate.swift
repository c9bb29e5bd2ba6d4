import Foundation
import HealthModel
import HealthProto

/// protobuf-c predicate trees → `QueryPredicate`, every leaf included.
extension WireDecode {
    static func optionalPredicate(_ pointer: UnsafeMutablePointer<Healthstore__V1__Predicate>?) throws(HealthError) -> QueryPredicate? {
        guard let pointer else { return nil }
        return try predicate(pointer.pointee, depth: 0)
    }

    static func predicate(_ p: Healthstore__V1__Predicate, depth: Int) throws(HealthError) -> QueryPredicate {
        guard depth < WireLimits.maxNestingDepth else {
            throw CRead.malformed("predicate nested deeper than \(WireLimits.maxNestingDepth)", field: "predicate")
        }
        switch p.kind_case {
        case HEALTHSTORE__V1__PREDICATE__KIND_ALL_OF:
            return .allOf(try children(p.all_of, "predicate.all_of", depth: depth))
        case HEALTHSTORE__V1__PREDICATE__KIND_ANY_OF:
            return .anyOf(try children(p.any_of, "predicate.any_of", depth: depth))
        case HEALTHSTORE__V1__PREDICATE__KIND_NEGATION:
            return .not(try predicate(try CRead.required(p.negation, "predicate.negation"), depth: depth + 1))
        case HEALTHSTORE__V1__PREDICATE__KIND_DATE_RANGE:
            let r = try CRead.required(p.date_range, "predicate.date_range")
            return .dateRange(DateRange(start: r.has_start != 0 ? r.start_time : nil, end: r.has_end != 0 ? r.end_time : nil,
                                        strictStart: r.strict_start != 0, strictEnd: r.strict_end != 0))
        case HEALTHSTORE__V1__PREDICATE__KIND_UUIDS:
            let u = try CRead.required(p.uuids, "predicate.uuids")
            return .uuids(Set(try CRead.uuids(u.uuids, u.n_uuids, "predicate.uuids")))
        case HEALTHSTORE__V1__PREDICATE__KIND_SOURCES:
            let s = try CRead.required(p.sources, "predicate.sources")
            return .sources(Set(try CRead.strings(s.bundle_ids, s.n_bundle_ids, "predicate.sources.bundle_ids")))
        case HEALTHSTORE__V1__PREDICATE__KIND_SOURCE_REVISIONS:
            let r = try CRead.required(p.source_revisions, "predicate.source_revisions")
            return .sourceRevisions(try CRead.list(r.revisions, r.n_revisions, "predicate.source_revisions", revisionPattern))
        case HEALTHSTORE__V1__PREDICATE__KIND_DEVICES:
            let d = try CRead.required(p.devices, "predicate.devices")
            return .devices(try CRead.list(d.devices, d.n_devices, "predicate.devices", device))
        case HEALTHSTORE__V1__PREDICATE__KIND_DEVICE_PROPERTY:
            let d = try CRead.required(p.device_property, "predicate.device_property")
            return .deviceProperty(try CRead.enumValue(d.property.rawValue, "predicate.device_property.property"),
                                   Set(try CRead.strings(d.allowed_values, d.n_allowed_values, "predicate.device_property.allowed_values")))
        case HEALTHSTORE__V1__PREDICATE__KIND_METADATA:
            return try metadataPredicate(try CRead.required(p.metadata, "predicate.metadata"))
        case HEALTHSTORE__V1__PREDICATE__KIND_QUANTITY:
            let q = try CRead.required(p.quantity, "predicate.quantity")
            return .quantity(try CRead.enumValue(q.comparison.rawValue, "predicate.quantity.comparison"),
                             try requiredQuantity(q.quantity, "predicate.quantity.quantity"))
        case HEALTHSTORE__V1__PREDICATE__KIND_CATEGORY_VALUE:
            return try categoryPredicate(try CRead.required(p.category_value, "predicate.category_value"))
        case HEALTHSTORE__V1__PREDICATE__KIND_WORKOUT_ACTIVITY_TYPE:
            return .workoutActivityType(try CRead.required(p.workout_activity_type, "predicate.workout_activity_type").activity_type)
        case HEALTHSTORE__V1__PREDICATE__KIND_NO_CORRELATION:
            _ = try CRead.required(p.no_correlation, "predicate.no_correlation")
            return .noCorrelation
        case HEALTHSTORE__V1__PREDICATE__KIND_WORKOUT:
            let w = try CRead.required(p.workout, "predicate.workout")
            return .workout(try CRead.uuid(w.workout_uuid, "predicate.workout.workout_uuid"))
        case HEALTHSTORE__V1__PREDICATE__KIND_WORKOUT_DURATION:
            let d = try CRead.required(p.workout_duration, "predicate.workout_duration")
            return .workoutDuration(try CRead.enumValue(d.comparison.rawValue, "predicate.workout_duration.comparison"), d.duration)
        default:
            throw CRead.malformed("predicate kind is not set", field: "predicate")
        }
    }

    private static func children(_ list: UnsafeMutablePointer<Healthstore__V1__PredicateList>?, _ field: String,
                                 depth: Int) throws(HealthError) -> [QueryPredicate] {
        let l = try CRead.required(list, field)
        return try CRead.list(l.predicates, l.n_predicates, field) { (child) throws(HealthError) in
            try predicate(child, depth: depth + 1)
        }
    }

    /// Empty version/product type and an all-zero OS version are wildcards.
    private static func revisionPattern(_ r: Healthstore__V1__SourceRevision) throws(HealthError) -> SourceRevisionPattern {
        let revision = try sourceRevision(r)
        let os = [revision.osMajor, revision.osMinor, revision.osPatch]
        return SourceRevisionPattern(bundleID: revision.source.bundleID, version: revision.version,
                                     productType: revision.productType, osVersion: os == [0, 0, 0] ? nil : os)
    }

    private static func metadataPredicate(_ m: Healthstore__V1__MetadataPredicate) throws(HealthError) -> QueryPredicate {
        let key = try CRead.string(m.key, "predicate.metadata.key")
        switch m.match {
        case HEALTHSTORE__V1__METADATA_MATCH__METADATA_MATCH_EXISTS:
            return .metadataExists(key: key)
        case HEALTHSTORE__V1__METADATA_MATCH__METADATA_MATCH_COMPARE:
            let value = try CRead.required(m.value, "predicate.metadata.value")
            return .metadataCompare(key: key, try CRead.enumValue(m.comparison.rawValue, "predicate.metadata.comparison"),
                                    try metadataValue(value, "predicate.metadata.value"))
        case HEALTHSTORE__V1__METADATA_MATCH__METADATA_MATCH_IN:
            return .metadataIn(key: key, try CRead.list(m.allowed_values, m.n_allowed_values, "predicate.metadata.allowed_values") {
                (value) throws(HealthError) in try metadataValue(value, "predicate.metadata.allowed_values")
            })
        default:
            throw CRead.malformed("predicate.metadata.match has unknown or unspecified value \(m.match.rawValue)",
                                  field: "predicate.metadata.match")
        }
    }

    /// UNSPECIFIED comparison means membership in allowed_values; an operator with allowed values is ambiguous.
    private static func categoryPredicate(_ c: Healthstore__V1__CategoryValuePredicate) throws(HealthError) -> QueryPredicate {
        if c.comparison.rawValue == 0 {
            guard c.n_allowed_values == 0 || c.allowed_values != nil else {
                throw CRead.malformed("predicate.category_value.allowed_values has no storage", field: "predicate.category_value.allowed_values")
            }
            return .categoryValueIn(Set(UnsafeBufferPointer(start: c.allowed_values, count: c.n_allowed_values)))
        }
        guard c.n_allowed_values == 0 else {
            throw CRead.malformed("predicate.category_value sets both a comparison and allowed_values",
                                  field: "predicate.category_value.allowed_values")
        }
        return .categoryValue(try CRead.enumValue(c.comparison.rawValue, "predicate.category_value.comparison"), c.value)
    }
}
