import Foundation
import HealthModel
import HealthProto

/// `ServerMessage` → protobuf-c `ServerMessage` in the arena.
extension WireArena {
    func serverMessage(_ m: ServerMessage) -> UnsafeMutablePointer<Healthstore__V1__ServerMessage> {
        let p = message(healthstore__v1__server_message__init)
        p.pointee.call_id = m.callID
        p.pointee.more = m.more ? 1 : 0
        setResult(m.result, on: p)
        return p
    }

    // One case per result: the switch is long by nature, each arm is a short mapping.
    private func setResult(_ result: ServerResult, on p: UnsafeMutablePointer<Healthstore__V1__ServerMessage>) {
        switch result {
        case .error(let error):
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_ERROR
            p.pointee.error = self.error(error)
        case .hello(let hello):
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_HELLO
            p.pointee.hello = helloResult(hello)
        case .pong(let payload, let serverTime):
            let pong = message(healthstore__v1__pong__init)
            pong.pointee.payload = binary(payload)
            pong.pointee.server_time = serverTime
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_PONG
            p.pointee.pong = pong
        case .cancel(let cancelled):
            let c = message(healthstore__v1__cancel_result__init)
            c.pointee.cancelled = cancelled ? 1 : 0
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_CANCEL
            p.pointee.cancel = c
        case .ackObserverEvent(let acknowledged):
            let a = message(healthstore__v1__ack_observer_event_result__init)
            a.pointee.acknowledged = acknowledged ? 1 : 0
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_ACK_OBSERVER_EVENT
            p.pointee.ack_observer_event = a
        case .callEnded(let reason):
            let c = message(healthstore__v1__call_ended__init)
            c.pointee.reason = cEnum(reason)
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_CALL_ENDED
            p.pointee.call_ended = c
        case .requestAuthorization:
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_REQUEST_AUTHORIZATION
            p.pointee.request_authorization = message(healthstore__v1__request_authorization_result__init)
        case .authorizationStatus(let statuses):
            let g = message(healthstore__v1__get_authorization_status_result__init)
            (g.pointee.n_statuses, g.pointee.statuses) = list(statuses) { status in
                let s = message(healthstore__v1__type_authorization_status__init)
                s.pointee.type = cString(status.type)
                s.pointee.status = cEnum(status.status)
                return s
            }
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_GET_AUTHORIZATION_STATUS
            p.pointee.get_authorization_status = g
        case .requestStatus(let status):
            let r = message(healthstore__v1__get_request_status_for_authorization_result__init)
            r.pointee.status = cEnum(status)
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_GET_REQUEST_STATUS_FOR_AUTHORIZATION
            p.pointee.get_request_status_for_authorization = r
        case .saveObjects(let outcomes):
            let s = message(healthstore__v1__save_objects_result__init)
            if let storage = array(outcomes.count, of: Healthstore__V1__SaveOutcome.self) {
                for (i, outcome) in outcomes.enumerated() { (storage + i).initialize(to: cEnum(outcome)) }
                (s.pointee.n_outcomes, s.pointee.outcomes) = (outcomes.count, storage)
            }
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_SAVE_OBJECTS
            p.pointee.save_objects = s
        case .deleteObjects(let deletedCount):
            let d = message(healthstore__v1__delete_objects_result__init)
            d.pointee.deleted_count = deletedCount
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_DELETE_OBJECTS
            p.pointee.delete_objects = d
        case .insertSeriesData(let count):
            let r = message(healthstore__v1__insert_series_data_result__init)
            r.pointee.count = count
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_INSERT_SERIES_DATA
            p.pointee.insert_series_data = r
        case .finishSeries(let samples):
            let r = message(healthstore__v1__finish_series_result__init)
            (r.pointee.n_samples, r.pointee.samples) = list(samples, sample)
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_FINISH_SERIES
            p.pointee.finish_series = r
        case .discardSeries:
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_DISCARD_SERIES
            p.pointee.discard_series = message(healthstore__v1__discard_series_result__init)
        case .seriesData(let page):
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_SERIES_DATA
            p.pointee.series_data = seriesDataPage(page)
        case .samples(let samples):
            let s = message(healthstore__v1__samples_page__init)
            (s.pointee.n_samples, s.pointee.samples) = list(samples, sample)
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_SAMPLES
            p.pointee.samples = s
        case .anchored(let samples, let deleted, let newAnchor, let initial, let initialComplete, let lastSampleAnchor):
            let a = message(healthstore__v1__anchored_page__init)
            (a.pointee.n_samples, a.pointee.samples) = self.samples(samples)
            (a.pointee.n_deleted, a.pointee.deleted) = list(deleted, deletedObject)
            a.pointee.new_anchor = binary(newAnchor)
            a.pointee.last_sample_anchor = binary(lastSampleAnchor)
            a.pointee.initial = initial ? 1 : 0
            a.pointee.initial_complete = initialComplete ? 1 : 0
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_ANCHORED
            p.pointee.anchored = a
        case .statistics(let statistics):
            let s = message(healthstore__v1__statistics_result__init)
            s.pointee.statistics = self.statistics(statistics)
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_STATISTICS
            p.pointee.statistics = s
        case .statisticsCollection(let buckets, let initial, let initialComplete):
            let c = message(healthstore__v1__statistics_collection_result__init)
            (c.pointee.n_buckets, c.pointee.buckets) = list(buckets, statistics)
            c.pointee.initial = initial ? 1 : 0
            c.pointee.initial_complete = initialComplete ? 1 : 0
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_STATISTICS_COLLECTION
            p.pointee.statistics_collection = c
        case .correlations(let correlations):
            let c = message(healthstore__v1__correlations_result__init)
            (c.pointee.n_correlations, c.pointee.correlations) = list(correlations, sample)
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_CORRELATIONS
            p.pointee.correlations = c
        case .sources(let sources):
            let s = message(healthstore__v1__sources_result__init)
            (s.pointee.n_sources, s.pointee.sources) = list(sources, source)
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_SOURCES
            p.pointee.sources = s
        case .observerEvent(let changedTypes, let sequence):
            let o = message(healthstore__v1__observer_event__init)
            (o.pointee.n_changed_types, o.pointee.changed_types) = cStrings(changedTypes)
            o.pointee.sequence = sequence
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_OBSERVER_EVENT
            p.pointee.observer_event = o
        case .activitySummaries(let summaries):
            let a = message(healthstore__v1__activity_summaries_result__init)
            (a.pointee.n_summaries, a.pointee.summaries) = list(summaries, activitySummary)
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_ACTIVITY_SUMMARIES
            p.pointee.activity_summaries = a
        case .devices(let devices):
            let d = message(healthstore__v1__devices_result__init)
            (d.pointee.n_devices, d.pointee.devices) = list(devices, device)
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_DEVICES
            p.pointee.devices = d
        case .sampleCounts(let counts):
            let c = message(healthstore__v1__sample_counts__init)
            (c.pointee.n_counts, c.pointee.counts) = list(counts, sampleCount)
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_SAMPLE_COUNTS
            p.pointee.sample_counts = c
        case .characteristics(let values):
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_CHARACTERISTICS
            p.pointee.characteristics = characteristics(values)
        case .writeCharacteristics:
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_WRITE_CHARACTERISTICS
            p.pointee.write_characteristics = message(healthstore__v1__write_characteristics_result__init)
        case .appCredential(let app, let token):
            let a = message(healthstore__v1__app_credential__init)
            a.pointee.app = source(app)
            a.pointee.token = cString(token)
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_APP_CREDENTIAL
            p.pointee.app_credential = a
        case .listApps(let apps):
            let l = message(healthstore__v1__list_apps_result__init)
            (l.pointee.n_apps, l.pointee.apps) = list(apps) { app in
                let a = message(healthstore__v1__app__init)
                a.pointee.source = source(app.source)
                a.pointee.created_time = app.createdTime
                a.pointee.revoked = app.revoked ? 1 : 0
                return a
            }
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_LIST_APPS
            p.pointee.list_apps = l
        case .revokeApp(let connectionsClosed):
            let r = message(healthstore__v1__revoke_app_result__init)
            r.pointee.connections_closed = connectionsClosed
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_REVOKE_APP
            p.pointee.revoke_app = r
        case .authorizationRequests(let requests):
            let r = message(healthstore__v1__authorization_requests__init)
            (r.pointee.n_requests, r.pointee.requests) = list(requests, authorizationRequest)
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_AUTHORIZATION_REQUESTS
            p.pointee.authorization_requests = r
        case .decideAuthorization(let recorded):
            let d = message(healthstore__v1__decide_authorization_result__init)
            d.pointee.recorded = recorded
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_DECIDE_AUTHORIZATION
            p.pointee.decide_authorization = d
        case .listPermissions(let permissions):
            let l = message(healthstore__v1__list_permissions_result__init)
            (l.pointee.n_permissions, l.pointee.permissions) = list(permissions, permission)
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_LIST_PERMISSIONS
            p.pointee.list_permissions = l
        case .sourcePriority(let type, let sources):
            let s = message(healthstore__v1__source_priority__init)
            s.pointee.type = cString(type)
            (s.pointee.n_sources, s.pointee.sources) = list(sources, source)
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_SOURCE_PRIORITY
            p.pointee.source_priority = s
        case .ownerCredential(let name, let token):
            let o = message(healthstore__v1__owner_credential__init)
            o.pointee.name = cString(name)
            o.pointee.token = cString(token)
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_OWNER_CREDENTIAL
            p.pointee.owner_credential = o
        case .listOwners(let names):
            let l = message(healthstore__v1__list_owners_result__init)
            (l.pointee.n_names, l.pointee.names) = cStrings(names)
            p.pointee.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_LIST_OWNERS
            p.pointee.list_owners = l
        }
    }

    private func error(_ e: HealthError) -> UnsafeMutablePointer<Healthstore__V1__Error> {
        let p = message(healthstore__v1__error__init)
        p.pointee.code = cEnum(e.code)
        p.pointee.message = cString(e.message)
        if let index = e.objectIndex {
            p.pointee.has_object_index = 1
            p.pointee.object_index = UInt32(clamping: index)
        }
        p.pointee.field = cString(e.field ?? "")
        return p
    }

    private func helloResult(_ h: HelloResult) -> UnsafeMutablePointer<Healthstore__V1__HelloResult> {
        let p = message(healthstore__v1__hello_result__init)
        p.pointee.server_version = cString(h.serverVersion)
        p.pointee.protocol_version = h.protocolVersion
        p.pointee.max_frame_bytes = h.maxFrameBytes
        p.pointee.max_calls_in_flight = h.maxCallsInFlight
        p.pointee.max_batch_objects = h.maxBatchObjects
        p.pointee.server_time = h.serverTime
        p.pointee.role = cEnum(h.role)
        p.pointee.owner_name = cString(h.ownerName)
        p.pointee.source = h.source.map(source)
        p.pointee.max_output_bytes = h.maxOutputBytes
        p.pointee.frame_timeout_ms = h.frameTimeoutMilliseconds
        p.pointee.max_hello_frame_bytes = h.maxHelloFrameBytes
        return p
    }

    private func authorizationRequest(_ r: AuthorizationRequest) -> UnsafeMutablePointer<Healthstore__V1__AuthorizationRequest> {
        let p = message(healthstore__v1__authorization_request__init)
        p.pointee.app = source(r.app)
        p.pointee.type = cString(r.type)
        p.pointee.direction = cEnum(r.direction)
        p.pointee.requested_time = r.requestedTime
        return p
    }

    private func sampleCount(_ c: SampleCount) -> UnsafeMutablePointer<Healthstore__V1__SampleCount> {
        let p = message(healthstore__v1__sample_count__init)
        p.pointee.type = cString(c.type)
        p.pointee.source = source(c.source)
        p.pointee.device = c.device.map(device)
        p.pointee.count = c.count
        return p
    }

    private func permission(_ perm: Permission) -> UnsafeMutablePointer<Healthstore__V1__Permission> {
        let p = message(healthstore__v1__permission__init)
        p.pointee.type = cString(perm.type)
        p.pointee.direction = cEnum(perm.direction)
        p.pointee.state = cEnum(perm.state)
        p.pointee.updated_time = perm.updatedTime
        return p
    }
}
