import Foundation
import HealthModel
import HealthProto

/// protobuf-c `ServerMessage` → `ServerMessage`, as strict as the server side.
extension WireDecode {
    static func serverMessage(_ m: Healthstore__V1__ServerMessage) throws(HealthError) -> ServerMessage {
        ServerMessage(callID: m.call_id, more: m.more != 0, result: try serverResult(m))
    }

    // One case per result: the switch is long by nature, each arm is a short mapping.
    private static func serverResult(_ m: Healthstore__V1__ServerMessage) throws(HealthError) -> ServerResult {
        switch m.result_case {
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_ERROR:
            return .error(try error(try CRead.required(m.error, "error")))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_HELLO:
            return .hello(try helloResult(try CRead.required(m.hello, "hello")))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_PONG:
            let p = try CRead.required(m.pong, "pong")
            return .pong(payload: CRead.data(p.payload), serverTime: p.server_time)
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_CANCEL:
            return .cancel(cancelled: try CRead.required(m.cancel, "cancel").cancelled != 0)
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_ACK_OBSERVER_EVENT:
            return .ackObserverEvent(acknowledged: try CRead.required(m.ack_observer_event, "ack_observer_event").acknowledged != 0)
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_CALL_ENDED:
            return .callEnded(try CRead.enumValue(try CRead.required(m.call_ended, "call_ended").reason.rawValue, "call_ended.reason"))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_REQUEST_AUTHORIZATION:
            _ = try CRead.required(m.request_authorization, "request_authorization")
            return .requestAuthorization
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_GET_AUTHORIZATION_STATUS:
            let g = try CRead.required(m.get_authorization_status, "get_authorization_status")
            return .authorizationStatus(try CRead.list(g.statuses, g.n_statuses, "statuses") { (s) throws(HealthError) in
                TypeAuthorizationStatus(type: try CRead.string(s.type, "statuses.type"),
                                        status: try CRead.enumValue(s.status.rawValue, "statuses.status"))
            })
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_GET_REQUEST_STATUS_FOR_AUTHORIZATION:
            let r = try CRead.required(m.get_request_status_for_authorization, "get_request_status_for_authorization")
            return .requestStatus(try CRead.enumValue(r.status.rawValue, "status"))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_SAVE_OBJECTS:
            return .saveObjects(try saveOutcomes(try CRead.required(m.save_objects, "save_objects")))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_DELETE_OBJECTS:
            return .deleteObjects(deletedCount: try CRead.required(m.delete_objects, "delete_objects").deleted_count)
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_INSERT_SERIES_DATA:
            return .insertSeriesData(count: try CRead.required(m.insert_series_data, "insert_series_data").count)
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_FINISH_SERIES:
            let f = try CRead.required(m.finish_series, "finish_series")
            return .finishSeries(try samples(f.samples, f.n_samples, "samples"))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_DISCARD_SERIES:
            _ = try CRead.required(m.discard_series, "discard_series")
            return .discardSeries
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_SERIES_DATA:
            return .seriesData(try seriesDataPage(try CRead.required(m.series_data, "series_data")))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_SAMPLES:
            let p = try CRead.required(m.samples, "samples")
            return .samples(try samples(p.samples, p.n_samples, "samples"))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_ANCHORED:
            let a = try CRead.required(m.anchored, "anchored")
            return try anchored(a, samples: try sampleTable(a.samples, a.n_samples, "samples"))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_STATISTICS:
            let s = try CRead.required(m.statistics, "statistics")
            return .statistics(try statistics(try CRead.required(s.statistics, "statistics.statistics")))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_STATISTICS_COLLECTION:
            let c = try CRead.required(m.statistics_collection, "statistics_collection")
            return .statisticsCollection(buckets: try CRead.list(c.buckets, c.n_buckets, "buckets", statistics),
                                         initial: c.initial != 0, initialComplete: c.initial_complete != 0)
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_CORRELATIONS:
            let c = try CRead.required(m.correlations, "correlations")
            return .correlations(try samples(c.correlations, c.n_correlations, "correlations"))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_SOURCES:
            let s = try CRead.required(m.sources, "sources")
            return .sources(try CRead.list(s.sources, s.n_sources, "sources") { (s) throws(HealthError) in try source(s, "sources") })
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_OBSERVER_EVENT:
            let o = try CRead.required(m.observer_event, "observer_event")
            return .observerEvent(changedTypes: try CRead.strings(o.changed_types, o.n_changed_types, "changed_types"),
                                  sequence: o.sequence)
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_ACTIVITY_SUMMARIES:
            let a = try CRead.required(m.activity_summaries, "activity_summaries")
            return .activitySummaries(try CRead.list(a.summaries, a.n_summaries, "summaries", activitySummary))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_DEVICES:
            let d = try CRead.required(m.devices, "devices")
            return .devices(try CRead.list(d.devices, d.n_devices, "devices", device))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_SAMPLE_COUNTS:
            let c = try CRead.required(m.sample_counts, "sample_counts")
            return .sampleCounts(try CRead.list(c.counts, c.n_counts, "counts", sampleCount))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_CHARACTERISTICS:
            return .characteristics(try characteristics(try CRead.required(m.characteristics, "characteristics")))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_WRITE_CHARACTERISTICS:
            _ = try CRead.required(m.write_characteristics, "write_characteristics")
            return .writeCharacteristics
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_APP_CREDENTIAL:
            let a = try CRead.required(m.app_credential, "app_credential")
            return .appCredential(app: try requiredSource(a.app, "app_credential.app"), token: try CRead.string(a.token, "app_credential.token"))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_LIST_APPS:
            let l = try CRead.required(m.list_apps, "list_apps")
            return .listApps(try CRead.list(l.apps, l.n_apps, "apps") { (a) throws(HealthError) in
                AppInfo(source: try requiredSource(a.source, "apps.source"), createdTime: a.created_time, revoked: a.revoked != 0)
            })
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_REVOKE_APP:
            return .revokeApp(connectionsClosed: try CRead.required(m.revoke_app, "revoke_app").connections_closed)
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_AUTHORIZATION_REQUESTS:
            let r = try CRead.required(m.authorization_requests, "authorization_requests")
            return .authorizationRequests(try CRead.list(r.requests, r.n_requests, "requests", authorizationRequest))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_DECIDE_AUTHORIZATION:
            return .decideAuthorization(recorded: try CRead.required(m.decide_authorization, "decide_authorization").recorded)
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_LIST_PERMISSIONS:
            let l = try CRead.required(m.list_permissions, "list_permissions")
            return .listPermissions(try CRead.list(l.permissions, l.n_permissions, "permissions", permission))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_SOURCE_PRIORITY:
            let s = try CRead.required(m.source_priority, "source_priority")
            return .sourcePriority(type: try CRead.string(s.type, "source_priority.type"),
                                   sources: try CRead.list(s.sources, s.n_sources, "source_priority.sources") { (s) throws(HealthError) in
                                       try source(s, "source_priority.sources")
                                   })
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_OWNER_CREDENTIAL:
            let o = try CRead.required(m.owner_credential, "owner_credential")
            return .ownerCredential(name: try CRead.string(o.name, "owner_credential.name"),
                                    token: try CRead.string(o.token, "owner_credential.token"))
        case HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_LIST_OWNERS:
            let l = try CRead.required(m.list_owners, "list_owners")
            return .listOwners(try CRead.strings(l.names, l.n_names, "names"))
        default:
            throw CRead.malformed("ServerMessage.result is not set or unknown (field number \(m.result_case.rawValue))", field: "result")
        }
    }

    private static func error(_ e: Healthstore__V1__Error) throws(HealthError) -> HealthError {
        HealthError(try CRead.enumValue(e.code.rawValue, "error.code"),
                    try CRead.string(e.message, "error.message"),
                    objectIndex: e.has_object_index != 0 ? Int(e.object_index) : nil,
                    field: try CRead.optionalString(e.field, "error.field"))
    }

    private static func helloResult(_ h: Healthstore__V1__HelloResult) throws(HealthError) -> HelloResult {
        HelloResult(serverVersion: try CRead.string(h.server_version, "hello.server_version"),
                    protocolVersion: h.protocol_version, maxFrameBytes: h.max_frame_bytes,
                    maxCallsInFlight: h.max_calls_in_flight, maxBatchObjects: h.max_batch_objects,
                    serverTime: h.server_time,
                    role: try CRead.enumValue(h.role.rawValue, "hello.role"),
                    ownerName: try CRead.string(h.owner_name, "hello.owner_name"),
                    source: try h.source.map { (s) throws(HealthError) in try source(s.pointee, "hello.source") },
                    maxOutputBytes: h.max_output_bytes, frameTimeoutMilliseconds: h.frame_timeout_ms,
                    maxHelloFrameBytes: h.max_hello_frame_bytes)
    }

    private static func saveOutcomes(_ s: Healthstore__V1__SaveObjectsResult) throws(HealthError) -> [SaveOutcome] {
        guard s.n_outcomes > 0 else { return [] }
        guard let outcomes = s.outcomes else {
            throw CRead.malformed("outcomes has \(s.n_outcomes) entries but no storage", field: "outcomes")
        }
        var result = [SaveOutcome]()
        result.reserveCapacity(s.n_outcomes)
        for i in 0..<s.n_outcomes { result.append(try CRead.enumValue(outcomes[i].rawValue, "outcomes")) }
        return result
    }

    private static func authorizationRequest(_ r: Healthstore__V1__AuthorizationRequest) throws(HealthError) -> AuthorizationRequest {
        AuthorizationRequest(app: try requiredSource(r.app, "requests.app"), type: try CRead.string(r.type, "requests.type"),
                             direction: try CRead.enumValue(r.direction.rawValue, "requests.direction"),
                             requestedTime: r.requested_time)
    }

    private static func sampleCount(_ c: Healthstore__V1__SampleCount) throws(HealthError) -> SampleCount {
        SampleCount(type: try CRead.string(c.type, "counts.type"), source: try requiredSource(c.source, "counts.source"),
                    device: try optionalDevice(c.device), count: c.count)
    }

    private static func permission(_ p: Healthstore__V1__Permission) throws(HealthError) -> Permission {
        Permission(type: try CRead.string(p.type, "permissions.type"),
                   direction: try CRead.enumValue(p.direction.rawValue, "permissions.direction"),
                   state: try CRead.enumValue(p.state.rawValue, "permissions.state"),
                   updatedTime: p.updated_time)
    }
}
