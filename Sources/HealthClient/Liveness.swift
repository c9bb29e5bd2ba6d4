import Dispatch
import Foundation
import HealthModel
import HealthWire
import Synchronization

/// Finds a server gone silent under waiting calls: a hung process, or a peer that vanished
/// without a FIN (a network cut), which TCP alone reports only after many minutes. While calls
/// wait and the connection reads, `timeout` without a byte from the server sends a Ping; nothing
/// arriving within `timeout` after it fails the waiting calls and closes the connection. A server
/// that answers the Ping is alive however long its calls stay quiet (an observer, anchored
/// updates), and silence while reading is held (a paced stream's consumer is behind) is the
/// client's own doing.
final class Liveness: @unchecked Sendable {
    // The counters are touched only by `check`, on the sweep's queue.
    private var heard: UInt64 = 0
    private var quietSince = ContinuousClock.now
    private var pingedAt: ContinuousClock.Instant?
    private let router: CallRouter
    private let transport: any MessageTransport
    private let timeout: Duration
    private let server: String

    /// Starts checking the connection of `router` and `transport` (at `endpoint`), at least four times per `timeout`.
    init(router: CallRouter, transport: any MessageTransport, timeout: Duration, endpoint: Endpoint?) {
        (self.router, self.transport, self.timeout) = (router, transport, timeout)
        server = endpoint.map { "\($0)" } ?? "the server"
        LivenessSweep.shared.add(self, tick: timeout / 4)
    }

    /// Stops checking; the connection is closed or gone.
    func stop() { LivenessSweep.shared.remove(self) }

    fileprivate func check() {
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

/// One timer for every connection's check, so a process with thousands of connections (healthsim's
/// load mode) wakes once per tick rather than once per connection. It ticks at the shortest tick
/// asked for since it last had nothing to check: checking more often than a connection needs only
/// costs time, since each check compares instants.
private final class LivenessSweep: @unchecked Sendable {
    static let shared = LivenessSweep()

    // The timer is rescheduled only under `watched`'s lock.
    private let queue = DispatchQueue(label: "HealthClient.liveness")
    private let timer: any DispatchSourceTimer
    private let watched = Mutex((all: [ObjectIdentifier: Liveness](), tick: Duration?.none))

    private init() {
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [unowned self] in
            for liveness in watched.withLock({ Array($0.all.values) }) { liveness.check() }
        }
        timer.schedule(deadline: .distantFuture)
        timer.resume()
    }

    func add(_ liveness: Liveness, tick: Duration) {
        watched.withLock { watched in
            watched.all[ObjectIdentifier(liveness)] = liveness
            guard watched.tick.map({ tick < $0 }) ?? true else { return }
            watched.tick = tick
            timer.schedule(deadline: .now() + tick.dispatch, repeating: tick.dispatch, leeway: (tick / 4).dispatch)
        }
    }

    func remove(_ liveness: Liveness) {
        watched.withLock { watched in
            guard watched.all.removeValue(forKey: ObjectIdentifier(liveness)) != nil, watched.all.isEmpty else { return }
            watched.tick = nil
            timer.schedule(deadline: .distantFuture)
        }
    }
}
