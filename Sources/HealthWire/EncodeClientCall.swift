import Foundation
import HealthModel
import HealthProto

/// `ClientMessage` → protobuf-c `ClientMessage` in the arena.
extension WireArena {
    func clientMessage(_ m: ClientMessage) -> UnsafeMutablePointer<Healthstore__V1__ClientMessage> {
        let p = message(healthstore__v1__client_message__init)
        p.pointee.call_id = m.callID
        setCall(m.call, on: p)
        return p
    }

    // One case per call: the switch is long by nature, each arm is a short mapping.
    private func setCall(_ call: ClientCall, on p: UnsafeMutablePointer<Healthstore__V1__ClientMessage>) {
        switch call {
        case .hello(let hello):
            let h = message(healthstore__v1__hello__init)
            h.pointee.protocol_version = hello.protocolVersion
            h.pointee.token = cString(hello.token)
            h.pointee.source_revision = hello.sourceRevision.map(sourceRevision)
            h.pointee.default_device = hello.defaultDevice.map(device)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_HELLO
            p.pointee.hello = h
        case .ping(let payload):
            let ping = message(healthstore__v1__ping__init)
            ping.pointee.payload = binary(payload)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_PING
            p.pointee.ping = ping
        case .cancel(let target):
            let c = message(healthstore__v1__cancel__init)
            c.pointee.target_call_id = target
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_CANCEL
            p.pointee.cancel = c
        case .ackObserverEvent(let target, let sequence):
            let a = message(healthstore__v1__ack_observer_event__init)
            a.pointee.target_call_id = target
            a.pointee.sequence = sequence
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_ACK_OBSERVER_EVENT
            p.pointee.ack_observer_event = a
        case .requestAuthorization(let share, let read):
            let r = message(healthstore__v1__request_authorization__init)
            (r.pointee.n_share_types, r.pointee.share_types) = cStrings(share)
            (r.pointee.n_read_types, r.pointee.read_types) = cStrings(read)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_REQUEST_AUTHORIZATION
            p.pointee.request_authorization = r
        case .getAuthorizationStatus(let types):
            let g = message(healthstore__v1__get_authorization_status__init)
            (g.pointee.n_types, g.pointee.types) = cStrings(types)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_GET_AUTHORIZATION_STATUS
            p.pointee.get_authorization_status = g
        case .getRequestStatusForAuthorization(let share, let read):
            let r = message(healthstore__v1__get_request_status_for_authorization__init)
            (r.pointee.n_share_types, r.pointee.share_types) = cStrings(share)
            (r.pointee.n_read_types, r.pointee.read_types) = cStrings(read)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_GET_REQUEST_STATUS_FOR_AUTHORIZATION
            p.pointee.get_request_status_for_authorization = r
        case .saveObjects(let objects, let keepSources):
            let s = message(healthstore__v1__save_objects__init)
            (s.pointee.n_objects, s.pointee.objects) = list(objects, sample)
            s.pointee.keep_sources = keepSources ? 1 : 0
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_SAVE_OBJECTS
            p.pointee.save_objects = s
        case .deleteObjects(let target):
            let d = message(healthstore__v1__delete_objects__init)
            switch target {
            case .uuids(let uuids):
                d.pointee.target_case = HEALTHSTORE__V1__DELETE_OBJECTS__TARGET_UUIDS
                d.pointee.uuids = uuidsPredicate(uuids)
            case .matching(let type, let predicate):
                d.pointee.target_case = HEALTHSTORE__V1__DELETE_OBJECTS__TARGET_MATCHING
                d.pointee.matching = typedPredicate(type: type, predicate: predicate)
            }
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_DELETE_OBJECTS
            p.pointee.delete_objects = d
        case .insertSeriesData(let insert):
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_INSERT_SERIES_DATA
            p.pointee.insert_series_data = seriesInsert(insert)
        case .finishSeries(let finish):
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_FINISH_SERIES
            p.pointee.finish_series = seriesFinish(finish)
        case .discardSeries(let builderID):
            let d = message(healthstore__v1__discard_series__init)
            d.pointee.builder_id = binary(builderID)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_DISCARD_SERIES
            p.pointee.discard_series = d
        case .querySeriesData(let query):
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_SERIES_DATA
            p.pointee.query_series_data = seriesDataQuery(query)
        case .querySamples(let query):
            let q = message(healthstore__v1__query_samples__init)
            (q.pointee.n_types, q.pointee.types) = cStrings(query.types)
            q.pointee.predicate = optionalPredicate(query.predicate)
            (q.pointee.n_sort, q.pointee.sort) = list(query.sort, sortDescriptor)
            q.pointee.limit = UInt32(clamping: query.limit)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_SAMPLES
            p.pointee.query_samples = q
        case .queryAnchored(let query):
            let q = message(healthstore__v1__query_anchored__init)
            (q.pointee.n_types, q.pointee.types) = cStrings(query.types)
            q.pointee.predicate = optionalPredicate(query.predicate)
            q.pointee.anchor = binary(query.anchor ?? Data())
            q.pointee.limit = UInt32(clamping: query.limit)
            q.pointee.updates = query.updates ? 1 : 0
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_ANCHORED
            p.pointee.query_anchored = q
        case .queryStatistics(let query):
            let q = message(healthstore__v1__query_statistics__init)
            q.pointee.type = cString(query.type)
            q.pointee.predicate = optionalPredicate(query.predicate)
            q.pointee.options = statisticsOptions(query.options)
            q.pointee.unit = cString(query.unit ?? "")
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_STATISTICS
            p.pointee.query_statistics = q
        case .queryStatisticsCollection(let query):
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_STATISTICS_COLLECTION
            p.pointee.query_statistics_collection = statisticsCollectionQuery(query)
        case .queryCorrelations(let query):
            let q = message(healthstore__v1__query_correlations__init)
            q.pointee.type = cString(query.type)
            q.pointee.predicate = optionalPredicate(query.predicate)
            (q.pointee.n_sample_predicates, q.pointee.sample_predicates) = list(query.samplePredicates) {
                typedPredicate(type: $0.type, predicate: $0.predicate)
            }
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_CORRELATIONS
            p.pointee.query_correlations = q
        case .querySources(let type, let predicate):
            let q = message(healthstore__v1__query_sources__init)
            q.pointee.type = cString(type)
            q.pointee.predicate = optionalPredicate(predicate)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_SOURCES
            p.pointee.query_sources = q
        case .observe(let types, let predicate, let frequency):
            let o = message(healthstore__v1__observe__init)
            (o.pointee.n_types, o.pointee.types) = cStrings(types)
            o.pointee.predicate = optionalPredicate(predicate)
            o.pointee.frequency = .init(rawValue: UInt32(bitPattern: frequency?.rawValue ?? 0))
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_OBSERVE
            p.pointee.observe = o
        case .queryActivitySummaries(let from, let to, let timeZone):
            let q = message(healthstore__v1__query_activity_summaries__init)
            q.pointee.from_day = calendarDay(from)
            q.pointee.to_day = calendarDay(to)
            q.pointee.time_zone = cString(timeZone ?? "")
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_ACTIVITY_SUMMARIES
            p.pointee.query_activity_summaries = q
        case .queryDevices(let type):
            let q = message(healthstore__v1__query_devices__init)
            q.pointee.type = cString(type ?? "")
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_QUERY_DEVICES
            p.pointee.query_devices = q
        case .countSamples(let types, let predicate):
            let c = message(healthstore__v1__count_samples__init)
            (c.pointee.n_types, c.pointee.types) = cStrings(types)
            c.pointee.predicate = optionalPredicate(predicate)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_COUNT_SAMPLES
            p.pointee.count_samples = c
        case .readCharacteristics:
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_READ_CHARACTERISTICS
            p.pointee.read_characteristics = message(healthstore__v1__read_characteristics__init)
        case .writeCharacteristics(let values):
            let w = message(healthstore__v1__write_characteristics__init)
            w.pointee.characteristics = characteristics(values)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_WRITE_CHARACTERISTICS
            p.pointee.write_characteristics = w
        case .registerApp(let bundleID, let name):
            let r = message(healthstore__v1__register_app__init)
            r.pointee.bundle_id = cString(bundleID)
            r.pointee.name = cString(name)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_REGISTER_APP
            p.pointee.register_app = r
        case .listApps:
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_LIST_APPS
            p.pointee.list_apps = message(healthstore__v1__list_apps__init)
        case .revokeApp(let bundleID):
            let r = message(healthstore__v1__revoke_app__init)
            r.pointee.bundle_id = cString(bundleID)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_REVOKE_APP
            p.pointee.revoke_app = r
        case .rotateAppToken(let bundleID):
            let r = message(healthstore__v1__rotate_app_token__init)
            r.pointee.bundle_id = cString(bundleID)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_ROTATE_APP_TOKEN
            p.pointee.rotate_app_token = r
        case .listAuthorizationRequests(let bundleID, let updates):
            let l = message(healthstore__v1__list_authorization_requests__init)
            l.pointee.bundle_id = cString(bundleID ?? "")
            l.pointee.updates = updates ? 1 : 0
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_LIST_AUTHORIZATION_REQUESTS
            p.pointee.list_authorization_requests = l
        case .decideAuthorization(let bundleID, let decisions):
            let d = message(healthstore__v1__decide_authorization__init)
            d.pointee.bundle_id = cString(bundleID)
            (d.pointee.n_decisions, d.pointee.decisions) = list(decisions, decision)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_DECIDE_AUTHORIZATION
            p.pointee.decide_authorization = d
        case .listPermissions(let bundleID):
            let l = message(healthstore__v1__list_permissions__init)
            l.pointee.bundle_id = cString(bundleID)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_LIST_PERMISSIONS
            p.pointee.list_permissions = l
        case .setSourcePriority(let type, let bundleIDs):
            let s = message(healthstore__v1__set_source_priority__init)
            s.pointee.type = cString(type)
            (s.pointee.n_bundle_ids, s.pointee.bundle_ids) = cStrings(bundleIDs)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_SET_SOURCE_PRIORITY
            p.pointee.set_source_priority = s
        case .getSourcePriority(let type):
            let g = message(healthstore__v1__get_source_priority__init)
            g.pointee.type = cString(type)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_GET_SOURCE_PRIORITY
            p.pointee.get_source_priority = g
        case .addOwner(let name):
            let a = message(healthstore__v1__add_owner__init)
            a.pointee.name = cString(name)
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_ADD_OWNER
            p.pointee.add_owner = a
        case .listOwners:
            p.pointee.call_case = HEALTHSTORE__V1__CLIENT_MESSAGE__CALL_LIST_OWNERS
            p.pointee.list_owners = message(healthstore__v1__list_owners__init)
        }
    }

    private func statisticsCollectionQuery(_ query: StatisticsCollectionQuery)
        -> UnsafeMutablePointer<Healthstore__V1__QueryStatisticsCollection> {
        let q = message(healthstore__v1__query_statistics_collection__init)
        q.pointee.type = cString(query.type)
        q.pointee.predicate = optionalPredicate(query.predicate)
        q.pointee.options = statisticsOptions(query.options)
        q.pointee.unit = cString(query.unit ?? "")
        q.pointee.anchor_time = query.anchor
        q.pointee.interval = interval(query.interval)
        q.pointee.time_zone = cString(query.timeZone ?? "")
        q.pointee.calendar = cString(query.calendar ?? "")
        q.pointee.from_time = query.from
        q.pointee.to_time = query.to
        q.pointee.updates = query.updates ? 1 : 0
        return q
    }

    private func decision(_ d: AuthorizationDecision) -> UnsafeMutablePointer<Healthstore__V1__AuthorizationDecision> {
        let p = message(healthstore__v1__authorization_decision__init)
        p.pointee.type = cString(d.type)
        p.pointee.direction = cEnum(d.direction)
        p.pointee.grant = d.grant ? 1 : 0
        return p
    }
}
