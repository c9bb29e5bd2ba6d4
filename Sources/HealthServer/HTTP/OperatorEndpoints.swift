import HealthMetrics
import HealthModel
import HealthStorage
import Synchronization

/// /healthz, /readyz and /metrics: what load balancers and Prometheus ask.
final class OperatorEndpoints: Sendable {
    private let core: ServerCore
    private let metricsTokenRequired: Bool
    private let shuttingDown = Atomic<Bool>(false)

    init(core: ServerCore, metricsTokenRequired: Bool) {
        self.core = core
        self.metricsTokenRequired = metricsTokenRequired
    }

    func beginShutdown() {
        shuttingDown.store(true, ordering: .relaxed)
    }

    /// The answer when `request` is for an operator endpoint; nil otherwise.
    func respond(_ request: HTTPRequest) async throws(HealthError) -> HTTPResponse? {
        guard ["/healthz", "/readyz", "/metrics"].contains(request.path) else { return nil }
        guard request.method == "GET" || request.method == "HEAD" else { return HTTPRouter.methodNotAllowed(request) }
        switch request.path {
        case "/healthz":
            return .text("ok\n")
        case "/readyz":
            return await readiness()
        default:
            if metricsTokenRequired { try await requireOperator(request) }
            return .text(await MetricsExposition.text(core), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }

    /// Ready while not shutting down and the store answers a read.
    private func readiness() async -> HTTPResponse {
        guard !shuttingDown.load(ordering: .relaxed) else { return .text("not ready: shutting down\n", status: 503) }
        do {
            _ = try await core.dispatcher.store.listOwners()
            return .text("ready\n")
        } catch {
            return .text("not ready: the store does not answer: \(error)\n", status: 503)
        }
    }

    private func requireOperator(_ request: HTTPRequest) async throws(HealthError) {
        let header = request.headers["authorization"] ?? ""
        guard header.hasPrefix("Bearer "),
              let principal = try? await core.dispatcher.store.authenticate(token: String(header.dropFirst("Bearer ".count))),
              principal.role == .serverOperator else {
            throw HealthError(.unauthenticated, "/metrics needs Authorization: Bearer <operator token>", field: "Authorization")
        }
    }
}

/// The server's metrics in Prometheus text format (names and meanings: docs/http.md).
enum MetricsExposition {
    static func text(_ core: ServerCore) async -> String {
        let metrics = core.metrics
        var out = MetricsText()
        out.family("healthstore_build_info", .gauge, "The running healthd's version.")
        out.sample("healthstore_build_info", [("version", HealthStoreVersion.string)], 1)
        out.family("healthstore_connections_open", .gauge, "Open binary-protocol connections by role.")
        for role in ServerMetrics.roles {
            out.sample("healthstore_connections_open", [("role", role)], metrics.connections[role]?.current ?? 0)
        }
        out.family("healthstore_connections_accepted_total", .counter, "Binary-protocol connections accepted.")
        out.sample("healthstore_connections_accepted_total", metrics.connectionsAccepted.current)
        out.family("healthstore_hellos_remembered_total", .counter, "Hellos whose token was found among those checked before, so the store was not asked.")
        out.sample("healthstore_hellos_remembered_total", metrics.hellosRemembered.current)
        let calls = metrics.callsByKind
        out.family("healthstore_calls_total", .counter, "Calls finished, by call kind and outcome (ok or the error code).")
        for (kind, call) in calls {
            out.sample("healthstore_calls_total", [("kind", kind), ("outcome", "ok")], call.ok.current)
            for (code, counter) in call.failed.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where counter.current > 0 {
                out.sample("healthstore_calls_total", [("kind", kind), ("outcome", code.name)], counter.current)
            }
        }
        out.family("healthstore_call_duration_seconds", .histogram, "Time from a call's arrival to its final answer (long-running calls excluded).")
        for (kind, call) in calls { out.histogram("healthstore_call_duration_seconds", [("kind", kind)], call.seconds) }
        out.family("healthstore_samples_stored_total", .counter, "Samples newly stored (or replacing a lower sync version).")
        out.sample("healthstore_samples_stored_total", metrics.samplesStored.current)
        out.family("healthstore_samples_rejected_total", .counter, "Samples of SaveObjects calls that failed.")
        out.sample("healthstore_samples_rejected_total", metrics.samplesRejected.current)
        out.family("healthstore_observers_open", .gauge, "Observe calls running.")
        out.sample("healthstore_observers_open", metrics.observersOpen.current)
        out.family("healthstore_long_running_queries_open", .gauge, "Long-running calls (updates, observers) running.")
        out.sample("healthstore_long_running_queries_open", metrics.longRunningOpen.current)
        if let store = core.dispatcher.store.metrics {
            out.family("healthstore_commit_batch_jobs", .histogram, "Write calls committed together in one group commit.")
            out.histogram("healthstore_commit_batch_jobs", store.commitJobs)
            out.family("healthstore_commit_duration_seconds", .histogram, "Time of one group commit, BEGIN to COMMIT.")
            out.histogram("healthstore_commit_duration_seconds", store.commitSeconds)
            out.family("healthstore_commit_groups_tried_again_total", .counter,
                       "Group commits whose first try, taking every sample's UUID to be new (PostgreSQL), met a stored one.")
            out.sample("healthstore_commit_groups_tried_again_total", store.groupsTriedAgain.current)
            out.family("healthstore_store_size_bytes", .gauge, "Size of the store's database file and write-ahead log.")
            out.sample("healthstore_store_size_bytes", store.sizeBytes)
        }
        out.family("healthstore_http_requests_total", .counter, "HTTP answers by status code.")
        for (code, count) in metrics.httpAnswers.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            out.sample("healthstore_http_requests_total", [("code", String(code))], count)
        }
        return out.text
    }
}
