import Foundation
import HealthModel
import HealthWire

// The typed API: one method per call of the v1 contract. Paged answers are collected; long-running
// calls are in HealthCalling+Streams.swift.
extension HealthCalling {
    /// Ping; returns the server's clock.
    public func ping(_ payload: Data = Data()) async throws -> Microseconds {
        try await single(.ping(payload), "Ping") { if case .pong(_, let time) = $0 { time } else { nil } }
    }

    // MARK: Authorization (app side)

    /// Asks the owner for share and read permission (HKHealthStore.requestAuthorization).
    public func requestAuthorization(share: [String], read: [String]) async throws {
        try await single(.requestAuthorization(share: share, read: read), "RequestAuthorization") {
            if case .requestAuthorization = $0 { () } else { nil }
        }
    }

    /// Share status per type (HKHealthStore.authorizationStatus(for:)).
    public func authorizationStatus(for types: [String]) async throws -> [TypeAuthorizationStatus] {
        try await single(.getAuthorizationStatus(types: types), "GetAuthorizationStatus") {
            if case .authorizationStatus(let s) = $0 { s } else { nil }
        }
    }

    /// Whether requesting these types would ask the owner anything.
    public func requestStatus(share: [String], read: [String]) async throws -> AuthorizationRequestStatus {
        try await single(.getRequestStatusForAuthorization(share: share, read: read), "GetRequestStatusForAuthorization") {
            if case .requestStatus(let s) = $0 { s } else { nil }
        }
    }

    // MARK: Objects

    /// Saves a batch atomically; safe to retry because objects are identified by their UUIDs.
    public func save(_ samples: [Sample]) async throws -> [SaveOutcome] {
        try await save(samples, keepingSources: false)
    }

    /// Saves a batch atomically; with `keepingSources` (owner only: an import) each sample is saved as
    /// its own `sourceRevision` (a name is required; an empty bundle id is derived from the name) and
    /// its device as given, and sources new to the store are listed as imported.
    public func save(_ samples: [Sample], keepingSources: Bool) async throws -> [SaveOutcome] {
        try await single(.saveObjects(samples, keepSources: keepingSources), "SaveObjects") {
            if case .saveObjects(let o) = $0 { o } else { nil }
        }
    }

    /// Deletes objects by UUID; returns how many were deleted.
    @discardableResult
    public func delete(uuids: [UUID]) async throws -> UInt64 {
        try await deleted(.uuids(uuids))
    }

    /// Deletes the objects of a type matching a predicate; returns how many were deleted.
    @discardableResult
    public func delete(type: String, predicate: QueryPredicate?) async throws -> UInt64 {
        try await deleted(.matching(type: type, predicate: predicate))
    }

    private func deleted(_ target: DeleteTarget) async throws -> UInt64 {
        try await single(.deleteObjects(target), "DeleteObjects") {
            if case .deleteObjects(let n) = $0 { n } else { nil }
        }
    }

    // MARK: Queries

    /// HKSampleQuery; every page of the answer, concatenated.
    public func samples(_ query: SampleQuery) async throws -> [Sample] {
        try await pages(.querySamples(query), "QuerySamples") { if case .samples(let s) = $0 { s } else { nil } }
    }

    /// HKAnchoredObjectQuery, one shot: everything after `query.anchor` (its `updates` is ignored).
    public func anchored(_ query: AnchoredQuery) async throws -> AnchoredBatch {
        let oneShot = AnchoredQuery(types: query.types, predicate: query.predicate, anchor: query.anchor,
                                    limit: query.limit, updates: false)
        var batch = AnchoredBatch(anchor: query.anchor ?? Data())
        for answer in try await results(.queryAnchored(oneShot)) {
            guard let page = AnchoredBatch(answer) else { throw unexpected(answer, for: "QueryAnchored") }
            batch.table.append(contentsOf: page.table)
            batch.deleted += page.deleted
            batch.anchor = page.anchor
        }
        return batch
    }

    /// HKStatisticsQuery.
    public func statistics(_ query: StatisticsQuery) async throws -> Statistics {
        try await single(.queryStatistics(query), "QueryStatistics") { if case .statistics(let s) = $0 { s } else { nil } }
    }

    /// HKStatisticsCollectionQuery, one shot: every bucket from `from` to `to`.
    public func statisticsCollection(_ query: StatisticsCollectionQuery) async throws -> [Statistics] {
        try await pages(.queryStatisticsCollection(query.withUpdates(false)), "QueryStatisticsCollection") {
            if case .statisticsCollection(let buckets, _, _) = $0 { buckets } else { nil }
        }
    }

    /// HKCorrelationQuery.
    public func correlations(_ query: CorrelationQuery) async throws -> [Sample] {
        try await pages(.queryCorrelations(query), "QueryCorrelations") { if case .correlations(let s) = $0 { s } else { nil } }
    }

    /// HKSourceQuery: the apps that saved samples of a type.
    public func sources(type: String, predicate: QueryPredicate? = nil) async throws -> [Source] {
        try await pages(.querySources(type: type, predicate: predicate), "QuerySources") {
            if case .sources(let s) = $0 { s } else { nil }
        }
    }

    /// The devices that measured samples (of one type, or of any).
    public func devices(type: String? = nil) async throws -> [Device] {
        try await pages(.queryDevices(type: type), "QueryDevices") { if case .devices(let d) = $0 { d } else { nil } }
    }

    /// How many readable samples of `types` match `predicate`, per type, source and device, counted by
    /// the server without sending a sample.
    public func countSamples(types: [String], predicate: QueryPredicate? = nil) async throws -> [SampleCount] {
        try await pages(.countSamples(types: types, predicate: predicate), "CountSamples") {
            if case .sampleCounts(let c) = $0 { c } else { nil }
        }
    }

    /// HKActivitySummaryQuery for a range of local days.
    public func activitySummaries(from: CalendarDay, to: CalendarDay, timeZone: String? = nil) async throws -> [ActivitySummary] {
        try await pages(.queryActivitySummaries(from: from, to: to, timeZone: timeZone), "QueryActivitySummaries") {
            if case .activitySummaries(let a) = $0 { a } else { nil }
        }
    }

    // MARK: Characteristics

    /// The owner's characteristics (unset ones are nil).
    public func characteristics() async throws -> Characteristics {
        try await single(.readCharacteristics, "ReadCharacteristics") {
            if case .characteristics(let c) = $0 { c } else { nil }
        }
    }

    /// Sets the non-nil fields (owner only).
    public func writeCharacteristics(_ update: Characteristics) async throws {
        try await single(.writeCharacteristics(update), "WriteCharacteristics") {
            if case .writeCharacteristics = $0 { () } else { nil }
        }
    }

    // MARK: Apps and owners (owner and operator side)

    /// Registers an app and returns its token (shown only this once).
    public func registerApp(bundleID: String, name: String) async throws -> AppCredential {
        try await single(.registerApp(bundleID: bundleID, name: name), "RegisterApp") {
            if case .appCredential(let app, let token) = $0 { AppCredential(app: app, token: token) } else { nil }
        }
    }

    /// The owner's registered apps.
    public func listApps() async throws -> [AppInfo] {
        try await pages(.listApps, "ListApps") { if case .listApps(let a) = $0 { a } else { nil } }
    }

    /// Revokes an app's tokens; returns how many of its connections were closed.
    @discardableResult
    public func revokeApp(bundleID: String) async throws -> UInt32 {
        try await single(.revokeApp(bundleID: bundleID), "RevokeApp") {
            if case .revokeApp(let n) = $0 { n } else { nil }
        }
    }

    /// Replaces an app's token, keeping its data and permissions.
    public func rotateAppToken(bundleID: String) async throws -> AppCredential {
        try await single(.rotateAppToken(bundleID: bundleID), "RotateAppToken") {
            if case .appCredential(let app, let token) = $0 { AppCredential(app: app, token: token) } else { nil }
        }
    }

    /// Pending authorization requests (of one app, or of all).
    public func authorizationRequests(bundleID: String? = nil) async throws -> [AuthorizationRequest] {
        try await pages(.listAuthorizationRequests(bundleID: bundleID, updates: false), "ListAuthorizationRequests") {
            if case .authorizationRequests(let r) = $0 { r } else { nil }
        }
    }

    /// Records the owner's decisions; returns how many were recorded.
    @discardableResult
    public func decideAuthorization(bundleID: String, decisions: [AuthorizationDecision]) async throws -> UInt32 {
        try await single(.decideAuthorization(bundleID: bundleID, decisions: decisions), "DecideAuthorization") {
            if case .decideAuthorization(let n) = $0 { n } else { nil }
        }
    }

    /// Every recorded permission of an app.
    public func permissions(bundleID: String) async throws -> [Permission] {
        try await pages(.listPermissions(bundleID: bundleID), "ListPermissions") {
            if case .listPermissions(let p) = $0 { p } else { nil }
        }
    }

    /// Sets the order in which sources count for a type's merged statistics; returns the stored order.
    @discardableResult
    public func setSourcePriority(type: String, bundleIDs: [String]) async throws -> [Source] {
        try await single(.setSourcePriority(type: type, bundleIDs: bundleIDs), "SetSourcePriority") {
            if case .sourcePriority(_, let s) = $0 { s } else { nil }
        }
    }

    /// The source order for a type's merged statistics.
    public func sourcePriority(type: String) async throws -> [Source] {
        try await single(.getSourcePriority(type: type), "GetSourcePriority") {
            if case .sourcePriority(_, let s) = $0 { s } else { nil }
        }
    }

    /// Creates an owner (operator only) and returns its token (shown only this once).
    public func addOwner(name: String) async throws -> OwnerCredential {
        try await single(.addOwner(name: name), "AddOwner") {
            if case .ownerCredential(let name, let token) = $0 { OwnerCredential(name: name, token: token) } else { nil }
        }
    }

    /// Every owner's name (operator only).
    public func listOwners() async throws -> [String] {
        try await pages(.listOwners, "ListOwners") { if case .listOwners(let o) = $0 { o } else { nil } }
    }

    // MARK: Answer shapes

    /// A call answered once: its last answer, of the expected kind.
    func single<T>(_ call: ClientCall, _ name: String, _ extract: (ServerResult) -> T?) async throws -> T {
        let answers = try await results(call)
        guard let last = answers.last, let value = extract(last) else { throw unexpected(answers.last, for: name) }
        return value
    }

    /// A call answered in pages: the concatenation of every page.
    func pages<T>(_ call: ClientCall, _ name: String, _ extract: (ServerResult) -> [T]?) async throws -> [T] {
        var all: [T] = []
        for answer in try await results(call) {
            guard let page = extract(answer) else { throw unexpected(answer, for: name) }
            all += page
        }
        return all
    }
}

extension AnchoredBatch {
    /// The batch an anchored answer carries, nil for any other answer.
    init?(_ answer: ServerResult) {
        guard case .anchored(let samples, let deleted, let anchor, let initial, let complete, let lastSampleAnchor) = answer else { return nil }
        self.init(table: samples, deleted: deleted, anchor: anchor, initial: initial, initialComplete: complete, lastSampleAnchor: lastSampleAnchor)
    }
}

extension StatisticsCollectionQuery {
    /// The same query with or without updates.
    func withUpdates(_ updates: Bool) -> StatisticsCollectionQuery {
        StatisticsCollectionQuery(type: type, predicate: predicate, options: options, unit: unit, anchor: anchor,
                                  interval: interval, timeZone: timeZone, calendar: calendar, from: from, to: to,
                                  updates: updates)
    }
}
