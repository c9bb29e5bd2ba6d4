import HealthMetrics
import HealthModel
import Synchronization

/// The server's counters for /metrics. Recording is a few relaxed atomic adds: it sits on every call.
final class ServerMetrics: Sendable {
    /// Open binary-protocol connections, by the role their Hello established ("unauthenticated" before it).
    let connections: [String: Counter] = Dictionary(uniqueKeysWithValues: ServerMetrics.roles.map { ($0, Counter()) })
    let connectionsAccepted = Counter()
    /// Hellos whose token was found among those checked before, so the store was not asked (see `CredentialCache`).
    let hellosRemembered = Counter()
    let samplesStored = Counter()
    let samplesRejected = Counter()
    let longRunningOpen = Counter()
    let observersOpen = Counter()
    /// HTTP answers by status code.
    let httpAnswers = Mutex<[Int: Int]>([:])
    private let calls = Mutex<[String: CallMetrics]>([:])
    private static let saveObjectsName = "SaveObjects"
    private let saveObjects = CallMetrics()
    private let saveObjectsListed = Atomic<Bool>(false)

    static let roles = ["unauthenticated", "owner", "app", "operator"]

    static func roleLabel(_ role: Role?) -> String {
        switch role {
        case nil: "unauthenticated"
        case .owner?: "owner"
        case .app?: "app"
        case .serverOperator?: "operator"
        }
    }

    /// Counts and latencies of one call kind.
    final class CallMetrics: Sendable {
        let ok = Counter()
        let failed: [HealthErrorCode: Counter] = Dictionary(uniqueKeysWithValues: HealthErrorCode.allCases.map { ($0, Counter()) })
        let seconds = Histogram.seconds()
    }

    /// One finished call: its outcome (nil = success) and, unless it ran until cancelled, how long it took.
    func recordCall(_ kind: String, failure: HealthErrorCode?, seconds: Double?) {
        let metrics = calls.withLock { calls in
            if let known = calls[kind] { return known }
            let new = kind == Self.saveObjectsName ? saveObjects : CallMetrics()
            calls[kind] = new
            return new
        }
        Self.record(metrics, failure: failure, seconds: seconds)
    }

    /// A finished SaveObjects call, the one devices make every second: its metrics are at hand, not
    /// found by name under the lock (listed by name once, by its first call).
    func recordSave(failure: HealthErrorCode?, seconds: Double) {
        guard saveObjectsListed.load(ordering: .acquiring) else {
            recordCall(Self.saveObjectsName, failure: failure, seconds: seconds)
            saveObjectsListed.store(true, ordering: .releasing)
            return
        }
        Self.record(saveObjects, failure: failure, seconds: seconds)
    }

    private static func record(_ metrics: CallMetrics, failure: HealthErrorCode?, seconds: Double?) {
        if let failure { metrics.failed[failure]?.add() } else { metrics.ok.add() }
        if let seconds { metrics.seconds.observe(seconds) }
    }

    func recordHTTP(status: Int) {
        httpAnswers.withLock { $0[status, default: 0] += 1 }
    }

    /// The calls recorded so far, by kind name.
    var callsByKind: [(String, CallMetrics)] {
        calls.withLock { $0.sorted { $0.key < $1.key } }
    }

    func connectionOpened() {
        connectionsAccepted.add()
        connections["unauthenticated"]?.add()
    }

    func connectionAuthenticated(as role: Role) {
        connections["unauthenticated"]?.subtract()
        connections[Self.roleLabel(role)]?.add()
    }

    func connectionClosed(role: Role?) {
        connections[Self.roleLabel(role)]?.subtract()
    }
}
