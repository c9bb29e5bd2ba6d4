import Foundation
import HealthModel
import HealthStorage
import HealthWire
import Synchronization

/// The server's version string, sent in HelloResult.
public enum ServerInfo {
    public static let version = "healthd \(HealthStoreVersion.string)"
}

/// Serves calls: authenticates Hello, checks the caller's role and permissions, and runs each
/// call against the store off the I/O threads. Every call ends with exactly one final answer.
final class Dispatcher: Sendable {
    let store: any Store
    let config: ServerConfiguration
    let logger: Logger
    let registry: ConnectionRegistry
    let permissions: PermissionBook
    let hub = ChangeHub()
    let observerAcks = ObserverAckBook()
    let metrics: ServerMetrics
    private let throttle = AuthThrottle()
    /// Tokens already checked, for Hellos answered on their loop (`rememberedHello`).
    let credentials: CredentialCache
    private let feed = Mutex<Int?>(nil)

    init(store: any Store, config: ServerConfiguration, logger: Logger, registry: ConnectionRegistry, metrics: ServerMetrics) {
        self.store = store
        self.metrics = metrics
        self.config = config
        self.logger = logger
        self.registry = registry
        credentials = CredentialCache(registry: registry, enabled: store.credentialsChangeOnlyHere)
        permissions = PermissionBook(store: store)
    }

    /// Subscribes to the store's change feed (long-running calls listen through `hub`).
    func startChangeFeed() {
        let token = store.subscribe { [self] event in react(to: event) }
        feed.withLock { $0 = token }
    }

    /// Passes a committed change on to the calls and caches it concerns. Besides data changes, the
    /// feed carries other nodes' commits only: these get what this node's own calls do directly.
    private func react(to event: StoreEvent) {
        switch event {
        case .data(let change):
            hub.publish(owner: change.owner, topic: .data, changes: Changes(spans: change.spans))
        case .permissions(let owner, let bundleIDs):
            permissions.forget(owner: owner, bundleIDs: bundleIDs)
            hub.publish(owner: owner, topic: .authorizationRequests)
        case .sourcePriority(let owner, let type):
            hub.publish(owner: owner, topic: .sourcePriority, changes: Changes(types: [type]))
        case .credentials(let owner, let bundleID):
            permissions.forget(owner: owner, bundleIDs: [bundleID])
            let closed = registry.closeConnections(owner: owner, bundleID: bundleID)
            logger.info("another node revoked or rotated the token of \(owner)'s app '\(bundleID)'; closing \(closed) connection(s)")
        case .missed:
            logger.warning("the link to other nodes was down: dropping cached permissions and refreshing every long-running call")
            permissions.forgetAll()
            hub.publishEverywhere()
            Task { await closeConnectionsOfStaleCredentials() }
        }
    }

    /// Ends the app connections whose token was revoked or rotated meanwhile on another node: each
    /// live connection's token is checked against the store again (once per token). A token the
    /// store cannot check now keeps its connections.
    private func closeConnectionsOfStaleCredentials() async {
        var stale: [String: Bool] = [:]
        for (connection, live) in registry.appConnectionsToRecheck() {
            if stale[live.token] == nil {
                do {
                    stale[live.token] = try await store.authenticate(token: live.token) != live.principal
                } catch {
                    stale[live.token] = false
                }
            }
            guard stale[live.token] == true else { continue }
            registry.close(connection, on: live.loop)
            logger.info("the token of \(live.principal.owner.map(String.init(describing:)) ?? "?")'s app '\(live.principal.source?.bundleID ?? "")' "
                        + "was revoked or rotated while the link to other nodes was down; closing connection \(connection)")
        }
    }

    func stopChangeFeed() {
        if let token = feed.withLock({ $0 }) { store.unsubscribe(token) }
    }

    // MARK: Hello

    /// Checks the protocol version and the credential, and binds the session. A valid token is
    /// never held back by other peers' failures (see `AuthThrottle`).
    func hello(_ hello: Hello, peer: String) async -> Result<(Session, HelloResult), HealthError> {
        if case .refuse(let retryAfter) = throttle.admit(peer) {
            return .failure(throttled(retryAfter))
        }
        guard hello.protocolVersion == WireLimits.protocolVersion else {
            return .failure(HealthError(.unsupportedVersion, "protocol version \(hello.protocolVersion) is not supported; this server speaks version \(WireLimits.protocolVersion)", field: "hello.protocol_version"))
        }
        let revocations = registry.revocationCount
        let principal: Principal?
        do {
            principal = try await store.authenticate(token: hello.token)
        } catch {
            logger.error("authenticate failed: \(error)")
            return .failure(HealthError(.internalError, "the credential could not be checked; try again"))
        }
        guard let principal else {
            guard throttle.recordFailure(peer) else { return .failure(throttled(nil)) }
            return .failure(HealthError(.unauthenticated, "the token is not valid: unknown, revoked or rotated", field: "hello.token"))
        }
        credentials.remember(principal, for: hello.token, checkedAfter: revocations)
        return session(hello, principal)
    }

    /// `hello` answered from a remembered credential, on the calling thread, with the revocation count
    /// the credential holds at (see `CredentialCache`); nil when `hello` must answer: the token is not
    /// remembered, the version is not this server's or the peer is in back-off.
    func rememberedHello(_ hello: Hello, peer: String) -> (Result<(Session, HelloResult), HealthError>, revocations: UInt64)? {
        guard hello.protocolVersion == WireLimits.protocolVersion, let (principal, revocations) = credentials.principal(for: hello.token),
              throttle.admit(peer) == .check else { return nil }
        metrics.hellosRemembered.add()
        return (session(hello, principal), revocations)
    }

    /// The session a Hello with a valid token binds, and its answer.
    private func session(_ hello: Hello, _ principal: Principal) -> Result<(Session, HelloResult), HealthError> {
        if principal.role == .app, let claimed = hello.sourceRevision?.source.bundleID, !claimed.isEmpty,
           let app = principal.source, claimed != app.bundleID {
            return .failure(HealthError(.unauthenticated, "hello.source_revision.source.bundle_id \"\(claimed)\" does not match the token's app \"\(app.bundleID)\"",
                                        field: "hello.source_revision.source.bundle_id"))
        }
        let source: Source = switch principal.role {
        case .owner: principal.source ?? Principal.healthApp
        case .app, .serverOperator: principal.source ?? Source(name: "operator", bundleID: "com.healthstore.operator")
        }
        // The source always comes from the credential; only version, product type and OS are the client's.
        let given = hello.sourceRevision
        let revision = SourceRevision(source: source, version: given?.version, productType: given?.productType,
                                      osMajor: given?.osMajor ?? 0, osMinor: given?.osMinor ?? 0, osPatch: given?.osPatch ?? 0)
        let device = hello.defaultDevice.flatMap { $0.isEmpty ? nil : $0 }
        let session = Session(principal: principal, revision: revision, defaultDevice: device)
        let result = HelloResult(serverVersion: ServerInfo.version, protocolVersion: WireLimits.protocolVersion,
                                 maxFrameBytes: UInt32(config.maxFrameBytes), maxCallsInFlight: UInt32(config.maxCallsInFlight),
                                 maxBatchObjects: UInt32(config.maxBatchObjects), serverTime: Time.now(),
                                 role: principal.role, ownerName: principal.ownerName,
                                 source: principal.role == .serverOperator ? nil : source,
                                 maxOutputBytes: UInt32(clamping: config.outputHighWater),
                                 frameTimeoutMilliseconds: UInt32(clamping: Int(config.frameTimeout * 1000)),
                                 maxHelloFrameBytes: UInt32(clamping: config.maxHelloFrameBytes))
        return .success((session, result))
    }

    private func throttled(_ retryAfter: Duration?) -> HealthError {
        let wait = retryAfter.map { "; try again in \(max(1, Int(($0 / .seconds(1)).rounded(.up)))) s" } ?? "; try again later"
        return HealthError(.resourceExhausted, "too many failed authentications\(wait)", field: "hello.token")
    }

    // MARK: calls

    /// Runs one call and sends its final answer (errors included).
    func handle(_ call: ClientCall, session: Session, reply: CallReplier) async {
        let kind = call.kind
        let started = ContinuousClock.now
        var failure: HealthErrorCode?
        if kind.isLongRunning { metrics.longRunningOpen.add() }
        if case .observe = call { metrics.observersOpen.add() }
        defer {
            if kind.isLongRunning { metrics.longRunningOpen.subtract() }
            if case .observe = call { metrics.observersOpen.subtract() }
            // A long-running call lasts as long as its caller wants: its time says nothing about the server.
            metrics.recordCall(kind.name, failure: failure, seconds: kind.isLongRunning ? nil : (ContinuousClock.now - started) / .seconds(1))
        }
        do {
            if kind.waitsForOutputRoom { try await reply.room() }
            if let result = try await route(call, kind, session: session, reply: reply) {
                await reply.send(result, more: false)
            }
        } catch {
            let answer: ServerResult
            (answer, failure) = finalAnswer(for: error, of: call, kind)
            await reply.end(with: answer)
        }
    }

    /// The final answer to a call that threw `error`, and what it counts as in the metrics (nil:
    /// not a failure).
    func finalAnswer(for error: any Error, of call: ClientCall, _ kind: CallKind) -> (ServerResult, HealthErrorCode?) {
        var saves: Int?
        if case .saveObjects(let objects, _) = call { saves = objects.count }
        return finalAnswer(for: error, saves: saves, name: kind.name)
    }

    /// `finalAnswer(for:of:_:)` given only what it needs of the call: how many objects it saves (nil: not
    /// a save) and its name.
    func finalAnswer(for error: any Error, saves: Int?, name: String) -> (ServerResult, HealthErrorCode?) {
        switch error {
        case let error as HealthError:
            if let saves { metrics.samplesRejected.add(saves) }
            return (.error(error), error.code)
        case is CancellationError:
            return (.callEnded(.cancelled), nil)
        default:
            logger.error("\(name) failed: \(error)")
            return (.error(HealthError(.internalError, "\(name) failed inside the server: \(error)")), .internalError)
        }
    }

    /// Re-checks a token a connection authenticated with (a revoke may have raced its Hello).
    func isStillValid(token: String, for principal: Principal) async -> Bool {
        (try? await store.authenticate(token: token)) == principal
    }

    /// Delivers an AckObserverEvent to the Observe call it names; false when no such observer is
    /// running or the sequence is not outstanding.
    func acknowledgeObserverEvent(connection: UInt64, call: UInt64, serial: UInt64, sequence: UInt64) -> Bool {
        observerAcks.acknowledge(connection: connection, call: call, serial: serial, sequence: sequence)
    }

    /// The call's final answer, or nil when the call already sent it (paged and long-running calls).
    /// The call table (`ClientCall.kind`) says who may make the call; the access guard checks it
    /// before any handler runs.
    private func route(_ call: ClientCall, _ kind: CallKind, session: Session, reply: CallReplier) async throws -> ServerResult? {
        switch kind.caller {
        case .connection:
            throw HealthError(.internalError, "\(kind.name) reached the dispatcher")
        case .serverOperator:
            try session.requireOperator(kind.name)
            return try await routeOperator(call)
        case .ownerStore, .owner:
            return try await route(call, try await admit(kind, session: session), reply: reply)
        }
    }

    private func routeOperator(_ call: ClientCall) async throws -> ServerResult {
        switch call {
        case .addOwner(let name): try await addOwner(name: name)
        case .listOwners: try await listOwners()
        default: throw HealthError(.internalError, "\(call.name) is not an operator call")
        }
    }

    private func route(_ call: ClientCall, _ access: Access, reply: CallReplier) async throws -> ServerResult? {
        switch call {
        case .hello, .ping, .cancel, .ackObserverEvent, .addOwner, .listOwners:
            throw HealthError(.internalError, "\(call.name) is not a call on an owner's store")
        case .requestAuthorization(let share, let read):
            return try await requestAuthorization(share: share, read: read, access)
        case .getAuthorizationStatus(let types):
            return try authorizationStatus(types: types, access)
        case .getRequestStatusForAuthorization(let share, let read):
            return try requestStatus(share: share, read: read, access)
        case .saveObjects(let objects, let keepSources):
            return try await save(objects, keepingSources: keepSources, access)
        case .deleteObjects(let target):
            return try await delete(target, access)
        case .insertSeriesData(let insert):
            return try await insertSeriesData(insert, access)
        case .finishSeries(let finish):
            return try await finishSeries(finish, access)
        case .discardSeries(let builderID):
            return try await discardSeries(builderID: builderID, access)
        case .querySeriesData(let query):
            return try await querySeriesData(query, access, reply: reply)
        case .querySamples(let query):
            return try await querySamples(query, access, reply: reply)
        case .queryAnchored(let query):
            return try await queryAnchored(query, access, reply: reply)
        case .queryStatistics(let query):
            return try await queryStatistics(query, access)
        case .queryStatisticsCollection(let query):
            return try await queryStatisticsCollection(query, access, reply: reply)
        case .queryCorrelations(let query):
            return try await queryCorrelations(query, access)
        case .querySources(let type, let predicate):
            return try await querySources(type: type, predicate: predicate, access)
        case .observe(let types, let predicate, let frequency):
            return try await observe(types: types, predicate: predicate, frequency: frequency, access, reply: reply)
        case .queryActivitySummaries(let from, let to, let timeZone):
            return try await queryActivitySummaries(from: from, to: to, timeZone: timeZone, access)
        case .queryDevices(let type):
            return try await queryDevices(type: type, access)
        case .countSamples(let types, let predicate):
            return try await countSamples(types: types, predicate: predicate, access)
        case .readCharacteristics:
            return try await readCharacteristics(access)
        case .writeCharacteristics(let update):
            return try await writeCharacteristics(update, access)
        case .registerApp(let bundleID, let name):
            return try await registerApp(bundleID: bundleID, name: name, access)
        case .listApps:
            return try await listApps(access)
        case .revokeApp(let bundleID):
            return try await revokeApp(bundleID: bundleID, access)
        case .rotateAppToken(let bundleID):
            return try await rotateAppToken(bundleID: bundleID, access)
        case .listAuthorizationRequests(let bundleID, let updates):
            return try await listAuthorizationRequests(bundleID: bundleID, updates: updates, access, reply: reply)
        case .decideAuthorization(let bundleID, let decisions):
            return try await decideAuthorization(bundleID: bundleID, decisions: decisions, access)
        case .listPermissions(let bundleID):
            return try await listPermissions(bundleID: bundleID, access)
        case .setSourcePriority(let type, let bundleIDs):
            return try await setSourcePriority(type: type, bundleIDs: bundleIDs, access)
        case .getSourcePriority(let type):
            return try await sourcePriority(type: type, access)
        }
    }
}
