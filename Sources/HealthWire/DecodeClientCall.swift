import Foundation
import HealthModel
import HealthProto

/// protobuf-c `ClientMessage` → `ClientMessage`.
extension WireDecode {
    // One case per call: the switch is long by nature, each arm is a one-line mapping.
    static func clientCall(_ m: Healthstore__V1__ClientMessage) throws(HealthError) -> ClientCall {
        switch m.call_case {
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_HELLO:
            let h = try CRead.required(m.hello, "hello")
            return .hello(Hello(protocolVersion: h.protocol_version, token: try CRead.string(h.token, "hello.token"),
                                sourceRevision: try optionalSourceRevision(h.source_revision),
                                defaultDevice: try optionalDevice(h.default_device)))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_PING:
            return .ping(CRead.data(try CRead.required(m.ping, "ping").payload))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_CANCEL:
            return .cancel(targetCallID: try CRead.required(m.cancel, "cancel").target_call_id)
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_ACK_OBSERVER_EVENT:
            let a = try CRead.required(m.ack_observer_event, "ack_observer_event")
            return .ackObserverEvent(targetCallID: a.target_call_id, sequence: a.sequence)
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_REQUEST_AUTHORIZATION:
            let r = try CRead.required(m.request_authorization, "request_authorization")
            return .requestAuthorization(share: try CRead.typeNames(r.share_types, r.n_share_types, "share_types"),
                                         read: try CRead.typeNames(r.read_types, r.n_read_types, "read_types"))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_GET_AUTHORIZATION_STATUS:
            let g = try CRead.required(m.get_authorization_status, "get_authorization_status")
            return .getAuthorizationStatus(types: try CRead.typeNames(g.types, g.n_types, "types"))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_GET_REQUEST_STATUS_FOR_AUTHORIZATION:
            let r = try CRead.required(m.get_request_status_for_authorization, "get_request_status_for_authorization")
            return .getRequestStatusForAuthorization(share: try CRead.typeNames(r.share_types, r.n_share_types, "share_types"),
                                                     read: try CRead.typeNames(r.read_types, r.n_read_types, "read_types"))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_SAVE_OBJECTS:
            let s = try CRead.required(m.save_objects, "save_objects")
            return .saveObjects(try samples(s.objects, s.n_objects, "objects"), keepSources: s.keep_sources != 0)
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_DELETE_OBJECTS:
            return .deleteObjects(try deleteTarget(try CRead.required(m.delete_objects, "delete_objects")))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_INSERT_SERIES_DATA:
            return .insertSeriesData(try seriesInsert(try CRead.required(m.insert_series_data, "insert_series_data")))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_FINISH_SERIES:
            return .finishSeries(try seriesFinish(try CRead.required(m.finish_series, "finish_series")))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_DISCARD_SERIES:
            return .discardSeries(builderID: try CRead.uuid(try CRead.required(m.discard_series, "discard_series").builder_id, "builder_id"))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_SERIES_DATA:
            return .querySeriesData(try seriesDataQuery(try CRead.required(m.query_series_data, "query_series_data")))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_SAMPLES:
            let q = try CRead.required(m.query_samples, "query_samples")
            return .querySamples(SampleQuery(types: try CRead.typeNames(q.types, q.n_types, "types"),
                                             predicate: try optionalPredicate(q.predicate),
                                             sort: try CRead.list(q.sort, q.n_sort, "sort", sortDescriptor),
                                             limit: Int(q.limit)))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_ANCHORED:
            let q = try CRead.required(m.query_anchored, "query_anchored")
            return .queryAnchored(AnchoredQuery(types: try CRead.typeNames(q.types, q.n_types, "types"),
                                                predicate: try optionalPredicate(q.predicate),
                                                anchor: q.anchor.len == 0 ? nil : CRead.data(q.anchor),
                                                limit: Int(q.limit), updates: q.updates != 0))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_STATISTICS:
            let q = try CRead.required(m.query_statistics, "query_statistics")
            return .queryStatistics(StatisticsQuery(type: try CRead.typeName(q.type, "type"),
                                                    predicate: try optionalPredicate(q.predicate),
                                                    options: statisticsOptions(q.options),
                                                    unit: try CRead.optionalString(q.unit, "unit")))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_STATISTICS_COLLECTION:
            return .queryStatisticsCollection(try statisticsCollectionQuery(
                try CRead.required(m.query_statistics_collection, "query_statistics_collection")))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_CORRELATIONS:
            let q = try CRead.required(m.query_correlations, "query_correlations")
            return .queryCorrelations(CorrelationQuery(type: try CRead.typeName(q.type, "type"),
                                                       predicate: try optionalPredicate(q.predicate),
                                                       samplePredicates: try CRead.list(q.sample_predicates, q.n_sample_predicates,
                                                                                        "sample_predicates", typedPredicate)))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_SOURCES:
            let q = try CRead.required(m.query_sources, "query_sources")
            return .querySources(type: try CRead.typeName(q.type, "type"), predicate: try optionalPredicate(q.predicate))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_OBSERVE:
            let o = try CRead.required(m.observe, "observe")
            return .observe(types: try CRead.typeNames(o.types, o.n_types, "types"), predicate: try optionalPredicate(o.predicate),
                            frequency: try CRead.optionalEnum(o.frequency.rawValue, "frequency"))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_ACTIVITY_SUMMARIES:
            let q = try CRead.required(m.query_activity_summaries, "query_activity_summaries")
            return .queryActivitySummaries(from: try calendarDay(q.from_day, "from_day"), to: try calendarDay(q.to_day, "to_day"),
                                           timeZone: try CRead.optionalString(q.time_zone, "time_zone"))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_DEVICES:
            let q = try CRead.required(m.query_devices, "query_devices")
            return .queryDevices(type: try CRead.optionalString(q.type, "type").map(CRead.identifier))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_COUNT_SAMPLES:
            let c = try CRead.required(m.count_samples, "count_samples")
            return .countSamples(types: try CRead.typeNames(c.types, c.n_types, "types"), predicate: try optionalPredicate(c.predicate))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_READ_CHARACTERISTICS:
            _ = try CRead.required(m.read_characteristics, "read_characteristics")
            return .readCharacteristics
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_WRITE_CHARACTERISTICS:
            let w = try CRead.required(m.write_characteristics, "write_characteristics")
            return .writeCharacteristics(try characteristics(try CRead.required(w.characteristics, "characteristics")))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_REGISTER_APP:
            let r = try CRead.required(m.register_app, "register_app")
            return .registerApp(bundleID: try CRead.string(r.bundle_id, "bundle_id"), name: try CRead.string(r.name, "name"))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_LIST_APPS:
            _ = try CRead.required(m.list_apps, "list_apps")
            return .listApps
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_REVOKE_APP:
            return .revokeApp(bundleID: try CRead.string(try CRead.required(m.revoke_app, "revoke_app").bundle_id, "bundle_id"))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_ROTATE_APP_TOKEN:
            return .rotateAppToken(bundleID: try CRead.string(try CRead.required(m.rotate_app_token, "rotate_app_token").bundle_id,
                                                              "bundle_id"))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_LIST_AUTHORIZATION_REQUESTS:
            let l = try CRead.required(m.list_authorization_requests, "list_authorization_requests")
            return .listAuthorizationRequests(bundleID: try CRead.optionalString(l.bundle_id, "bundle_id"), updates: l.updates != 0)
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_DECIDE_AUTHORIZATION:
            let d = try CRead.required(m.decide_authorization, "decide_authorization")
            return .decideAuthorization(bundleID: try CRead.string(d.bundle_id, "bundle_id"),
                                        decisions: try CRead.list(d.decisions, d.n_decisions, "decisions", decision))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_LIST_PERMISSIONS:
            return .listPermissions(bundleID: try CRead.string(try CRead.required(m.list_permissions, "list_permissions").bundle_id,
                                                               "bundle_id"))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_SET_SOURCE_PRIORITY:
            let s = try CRead.required(m.set_source_priority, "set_source_priority")
            return .setSourcePriority(type: try CRead.typeName(s.type, "type"),
                                      bundleIDs: try CRead.strings(s.bundle_ids, s.n_bundle_ids, "bundle_ids"))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_GET_SOURCE_PRIORITY:
            return .getSourcePriority(type: try CRead.typeName(try CRead.required(m.get_source_priority, "get_source_priority").type, "type"))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_ADD_OWNER:
            return .addOwner(name: try CRead.string(try CRead.required(m.add_owner, "add_owner").name, "name"))
        case HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_LIST_OWNERS:
            _ = try CRead.required(m.list_owners, "list_owners")
            return .listOwners
        default:
            throw CRead.malformed("ClientMessage.call is not set or unknown (field number \(m.call_case.rawValue))", field: "call")
        }
    }

    private static func deleteTarget(_ d: Healthstore__V1__DeleteObjects) throws(HealthError) -> DeleteTarget {
        switch d.target_case {
        case HEALTHSTORE__V1__DELETE_OBJECTS__TARGET_UUIDS:
            let u = try CRead.required(d.uuids, "uuids")
            return .uuids(try CRead.uuids(u.uuids, u.n_uuids, "uuids"))
        case HEALTHSTORE__V1__DELETE_OBJECTS__TARGET_MATCHING:
            let t = try typedPredicate(try CRead.required(d.matching, "matching"))
            return .matching(type: t.type, predicate: t.predicate)
        default:
            throw CRead.malformed("DeleteObjects.target (uuids or matching) is not set", field: "target")
        }
    }

    private static func statisticsCollectionQuery(_ q: Healthstore__V1__QueryStatisticsCollection) throws(HealthError) -> StatisticsCollectionQuery {
        StatisticsCollectionQuery(type: try CRead.typeName(q.type, "type"),
                                  predicate: try optionalPredicate(q.predicate),
                                  options: statisticsOptions(q.options),
                                  unit: try CRead.optionalString(q.unit, "unit"),
                                  anchor: q.anchor_time,
                                  interval: try interval(q.interval),
                                  timeZone: try CRead.optionalString(q.time_zone, "time_zone"),
                                  calendar: try CRead.optionalString(q.calendar, "calendar"),
                                  from: q.from_time, to: q.to_time, updates: q.updates != 0)
    }

    private static func decision(_ d: Healthstore__V1__AuthorizationDecision) throws(HealthError) -> AuthorizationDecision {
        AuthorizationDecision(type: try CRead.typeName(d.type, "decisions.type"),
                              direction: try CRead.enumValue(d.direction.rawValue, "decisions.direction"),
                              grant: d.grant != 0)
    }
}
