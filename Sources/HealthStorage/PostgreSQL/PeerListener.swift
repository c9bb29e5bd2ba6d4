import CPQ
import Foundation
import Glibc
import HealthModel
import Synchronization

/// Listens on the store's `PeerChannel` over a session of its own, on a thread of its own (it
/// waits in poll, so no event loop of the server ever blocks on it), and publishes other nodes'
/// events on the change feed. A lost session is re-established; then `.missed` tells subscribers
/// that events may have gone by meanwhile.
final class PeerListener: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)

    /// How long a quiet session waits before checking the server is still there (a network that
    /// dropped silently raises no error on a socket that is only read).
    private static let idleCheck: Int32 = 5_000
    private static let retryDelay: UInt32 = 500_000

    /// Connects (failing here when the server is unreachable) and starts listening.
    init(conninfo: String, channel: PeerChannel, feed: ChangeFeed) throws(HealthError) {
        let session = try Session(conninfo: conninfo, channel: channel.name)
        let box = UncheckedBox(session)
        let thread = Thread(named: "peer-listener") { [self] in
            run(box.value, channel: channel, feed: feed)
            stopped.signal()
        }
        thread.start()
    }

    /// Ends the thread and its session.
    func stop() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        stopped.wait()
    }

    private func run(_ session: Session, channel: PeerChannel, feed: ChangeFeed) {
        while !stopping.load(ordering: .relaxed) {
            guard session.isConnected else {
                usleep(Self.retryDelay)
                if session.reconnect() { feed.publish([.missed]) }
                continue
            }
            var descriptor = pollfd(fd: session.socket, events: Int16(POLLIN), revents: 0)
            // Short waits, so a stop is noticed soon; an idle check only after a longer quiet.
            var quiet: Int32 = 0
            while !stopping.load(ordering: .relaxed), poll(&descriptor, 1, 250) == 0, quiet < Self.idleCheck { quiet += 250 }
            if quiet >= Self.idleCheck { session.checkAlive() } else { session.consumeInput() }
            let events = session.takeNotifications().compactMap(channel.event(from:))
            feed.publish(events)
        }
    }

    /// The listening libpq session; used only by the listener's thread.
    private final class Session {
        private let handle: OpaquePointer
        private let listen: String

        init(conninfo: String, channel: String) throws(HealthError) {
            guard let handle = PQconnectdb(conninfo) else {
                throw HealthError(.resourceExhausted, "cannot allocate a PostgreSQL connection")
            }
            self.handle = handle
            listen = "LISTEN \"" + channel.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            guard isConnected, execute(listen) else {
                throw HealthError(.unavailable, "cannot listen for other nodes' changes on the PostgreSQL store: "
                                  + String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }

        deinit { PQfinish(handle) }

        var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }
        var socket: Int32 { PQsocket(handle) }

        /// Re-establishes the session and listens again; true once it does.
        func reconnect() -> Bool {
            PQreset(handle)
            return isConnected && execute(listen)
        }

        func consumeInput() { _ = PQconsumeInput(handle) }

        /// A round trip (LISTEN again: a no-op that keeps the session's last statement naming the
        /// channel, for an operator reading pg_stat_activity); fails, marking the session lost, when
        /// the server is gone.
        func checkAlive() { _ = execute(listen) }

        func takeNotifications() -> [String] {
            var payloads: [String] = []
            while let notification = PQnotifies(handle) {
                payloads.append(String(cString: notification.pointee.extra))
                PQfreemem(notification)
            }
            return payloads
        }

        private func execute(_ sql: String) -> Bool {
            let result = PQexec(handle, sql)
            defer { PQclear(result) }
            return result.map(PQresultStatus) == PGRES_COMMAND_OK || result.map(PQresultStatus) == PGRES_TUPLES_OK
        }
    }
}
