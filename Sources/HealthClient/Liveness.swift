import Dispatch
import Foundation
import HealthModel
import HealthWire

/// Finds a server gone silent under waiting calls: a hung process, or a peer that vanished
/// without a FIN (a network cut), which TCP alone reports only after many minutes. While calls
/// wait and the connection reads, `timeout` without a byte from the server sends a Ping; nothing
/// arriving within `timeout` after it fails the waiting calls and closes the connection. A server
/// that answers the Ping is alive however long its calls stay quiet (an observer, anchored
/// updates), and silence while reading is held (a paced stream's consumer is behind) is the
/// client's own doing.
final class Liveness: @unchecked Sendable {
    // The counters are touched only by `check`, on the shared queue.
    private var heard: UInt64 = 0
    private var quietSince = ContinuousClock.now
    private var pingedAt: ContinuousClock.Instant?
    private let timer: any DispatchSourceTimer
    private let router: CallRouter
    private let transport: any MessageTransport
    private let timeout: Duration
    private let server: String

    /// One queue for every connection's checks: they never block (the Ping is sent elsewhere).
    private static let queue = DispatchQueue(label: "HealthClient.liveness")

    /// Starts checking the connection of `router` and `transport` (at `endpoint`), four times per `timeout`.
    init(router: CallRouter, transport: any MessageTransport, timeout: Duration, endpoint: Endpoint?) {
        (self.router, self.transport, self.timeout) = (router, transport, timeout)
        server = endpoint.map { "\($0)" } ?? "the server"
        timer = DispatchSource.makeTimerSource(queue: Self.queue)
        let tick = timeout / 4
        timer.schedule(deadline: .now() + tick.dispatch, repeating: tick.dispatch, leeway: (tick / 4).dispatch)
        // The handler holds this watch until `stop` cancels the timer (the connection's close or deinit).
        timer.setEventHandler { self.check() }
        timer.resume()
    }

    /// Stops checking; the connection is closed or gone.
    func stop() { timer.cancel() }

    private func check() {
        guard router.closedBy == nil else { return stop() }
        let now = ContinuousClock.now
        let received = transport.received
        guard received == heard, router.hasCallsWaiting, !transport.isReadingHeld else {
            (heard, quietSince, pingedAt) = (received, now, nil)
            return
        }
        if let pingedAt {
            guard now - pingedAt >= timeout else { return }
            router.close(with: HealthError(.unavailable, "\(server) stopped answering: nothing arrived for "
                + "\((now - quietSince).spoken) while calls waited, and a Ping went unanswered within \(timeout.spoken)"))
            transport.close()
            stop()
        } else if now - quietSince >= timeout {
            pingedAt = now
            let ping = ClientMessage(callID: router.nextID(), call: .ping(Data()))
            // A send waits while the socket's buffer is full (a peer that stopped reading): never on
            // the queue every connection's checks share. The Pong arrives under an id nobody waits for.
            DispatchQueue.global().async { [transport] in try? transport.send(ping) }
        }
    }
}
