import HealthModel
import HealthWire

/// What the call table needs from its connection (on the loop thread).
protocol CallTableHost: AnyObject {
    /// False once the connection closed: late answers are dropped.
    var isClosed: Bool { get }
    /// Below the connection's output bound and the server's.
    var hasOutputRoom: Bool { get }
    /// Answers a call from the loop thread.
    func answer(_ callID: UInt64, _ result: ServerResult)
    /// Queues an answer a call encoded (copied into the connection's output).
    func send(_ frame: UnsafeRawBufferPointer)
    /// Draining and the last call ended.
    func allCallsEnded()
}

/// The third stage of a connection: the calls in flight of an accepted session, their serials,
/// Cancel, observer acknowledgements, long-running calls, draining, and the output room and turns
/// that pace answer production. Each call runs in its own task through the `Dispatcher`, except
/// a connection's plain saves, which the dispatcher answers without one.
///
/// Memory stays bounded: calls reading stored data produce an answer only while the connection's
/// (and the server's) queued output is below its bound, and at most `answersInProduction` of them
/// at once, so a client that does not read stops its answers being produced, not only being sent.
final class CallTable {
    private struct CallEntry {
        let serial: UInt64
        /// nil for a call answered without a task (see `Dispatcher.saveOnLoop`).
        let task: Task<Void, Never>?
        let longRunning: Bool
    }

    // The properties every call touches are `@exclusivity(unchecked)`: the table is confined to its
    // loop's thread and none of their accesses spans a call that could reach them again, so the
    // runtime's check of each access (≈100 instructions, several a save) could never fail.

    /// Set by the owning `Connection` right after creating this table.
    @exclusivity(unchecked) unowned var host: (any CallTableHost)!
    private let id: UInt64
    private unowned let loop: EventLoop
    private let core: ServerCore
    @exclusivity(unchecked) private var calls: [UInt64: CallEntry] = [:]
    @exclusivity(unchecked) private var nextSerial: UInt64 = 1
    /// Calls holding a turn to produce answers (serials); a turn ends with the answer (or page run).
    @exclusivity(unchecked) private var producing: Set<UInt64> = []
    /// Calls waiting for output room (see `requestRoom`), oldest first. While there are any, the loop
    /// looks at this connection's room on every housekeeping tick, not only on its sweeps.
    private var waiters: [(serial: UInt64, room: CheckedContinuation<Void, Never>)] = [] {
        didSet {
            if waiters.isEmpty { loop.waitingForRoom.remove(id) } else { loop.waitingForRoom.insert(id) }
        }
    }
    /// Set at shutdown: new calls are refused, and the connection closes once the last call ends.
    @exclusivity(unchecked) var draining = false

    private var config: ServerConfiguration { core.config }

    init(id: UInt64, loop: EventLoop, core: ServerCore) {
        self.id = id
        self.loop = loop
        self.core = core
    }

    var isEmpty: Bool { calls.isEmpty }

    /// Answers a call of the accepted `session` on the loop, or starts its task.
    func dispatch(_ message: ClientMessage, session: Session) {
        let callID = message.callID
        switch message.call {
        case .hello:
            host.answer(callID, .error(HealthError.invalid("Hello was already accepted on this connection", field: "hello")))
        case .ping(let payload):
            host.answer(callID, .pong(payload: payload, serverTime: Time.now()))
        case .cancel(let target):
            cancel(target, callID: callID)
        case .ackObserverEvent(let target, let sequence):
            let acknowledged = calls[target].map {
                core.dispatcher.acknowledgeObserverEvent(connection: id, call: target, serial: $0.serial, sequence: sequence)
            } ?? false
            host.answer(callID, .ackObserverEvent(acknowledged: acknowledged))
        default:
            if draining {
                return host.answer(callID, .error(HealthError(.unavailable, "the server is shutting down")))
            }
            guard calls[callID] == nil else {
                return host.answer(callID, .error(HealthError.invalid("call_id \(callID) is already in flight on this connection", field: "call_id")))
            }
            guard calls.count < config.maxCallsInFlight else {
                return host.answer(callID, .error(.tooManyCalls(limit: config.maxCallsInFlight)))
            }
            let serial = nextSerial
            nextSerial += 1
            let reply = CallReplier(loop: loop, connectionID: id, callID: callID, serial: serial, maxFrameBytes: config.maxFrameBytes)
            let (dispatcher, call) = (core.dispatcher, message.call)
            // Its answer is posted to this loop, so it finds the entry made below.
            let task = dispatcher.saveOnLoop(call, session: session, reply: reply)
                ? nil : Task { await dispatcher.handle(call, session: session, reply: reply) }
            // A save answered on the loop is never long-running: no need to look its kind up again.
            calls[callID] = CallEntry(serial: serial, task: task, longRunning: task != nil && call.isLongRunning)
        }
    }

    private func cancel(_ target: UInt64, callID: UInt64) {
        guard let entry = calls.removeValue(forKey: target) else {
            return host.answer(callID, .cancel(cancelled: false))
        }
        stop(entry)
        host.answer(target, .callEnded(.cancelled))
        host.answer(callID, .cancel(cancelled: true))
        callFinished()
    }

    /// Stops a call's task; its turn and its waits for room end with it.
    private func stop(_ entry: CallEntry) {
        entry.task?.cancel()
        endTurn(serial: entry.serial)
        resumeWaiters(serial: entry.serial)
    }

    /// An answer from a call's task, or a save's from the loop; `endsTurn` = the call produces nothing more for now.
    func deliver(_ frame: UnsafeRawBufferPointer, callID: UInt64, serial: UInt64, final: Bool, endsTurn: Bool) {
        // One look-up of the call id, also for the final answer, which removes the entry.
        let host = host!
        guard let index = calls.index(forKey: callID), calls.values[index].serial == serial, !host.isClosed else { return }
        // Removed before sending: a send that ends the connection empties the table.
        if final { calls.remove(at: index) }
        host.send(frame)
        if final { callFinished() }
        if final || endsTurn { endTurn(serial: serial) }
    }

    /// A call's task asks to produce its next answer (see `CallReplier.room`). A call holding a
    /// turn waits only for room; another also for a turn, so at most `answersInProduction` calls
    /// hold query results at once.
    func requestRoom(callID: UInt64, serial: UInt64, room: CheckedContinuation<Void, Never>) {
        guard let entry = calls[callID], entry.serial == serial, !host.isClosed else { return room.resume() }
        waiters.append((serial, room))
        grantRoom()
    }

    func endTurn(serial: UInt64) {
        // Saves answered on the loop never hold a turn: no hash of the serial for each of them.
        guard !producing.isEmpty, producing.remove(serial) != nil else { return }
        grantRoom()
    }

    /// Resumes waiting calls while there is room: those holding a turn first, then new ones while turns are free.
    func grantRoom() {
        // Waiters first: this runs for every connection on each housekeeping tick and after every
        // write, and the output room reads the server-wide byte count every loop thread updates.
        while !waiters.isEmpty, host.hasOutputRoom, let index = waiters.firstIndex(where: { producing.contains($0.serial) })
                ?? (producing.count < config.answersInProduction ? waiters.indices.first : nil) {
            let waiter = waiters.remove(at: index)
            producing.insert(waiter.serial)
            waiter.room.resume()
        }
    }

    private func callFinished() {
        if draining && calls.isEmpty { host.allCallsEnded() }
    }

    /// Shutdown: ends the long-running calls with SHUTDOWN; the others run to their answer.
    func endLongRunningCalls() {
        for (callID, entry) in calls where entry.longRunning {
            calls.removeValue(forKey: callID)
            stop(entry)
            host.answer(callID, .callEnded(.shutdown))
        }
        callFinished()
    }

    /// The connection closed: cancels every call and releases every waiting task.
    func cancelAll() {
        for entry in calls.values { entry.task?.cancel() }
        calls.removeAll()
        producing.removeAll()
        resumeWaiters(serial: nil)
    }

    /// Resumes waiting tasks: those of one call, or all.
    private func resumeWaiters(serial: UInt64?) {
        let (release, keep) = waiters.partitioned { serial == nil || $0.serial == serial }
        waiters = keep
        for waiter in release { waiter.room.resume() }
    }
}

extension HealthError {
    /// A call beyond the per-connection cap, before or after Hello.
    static func tooManyCalls(limit: Int) -> HealthError {
        HealthError(.resourceExhausted, "more than \(limit) calls in flight on this connection")
    }
}

extension Array {
    /// (elements matching, elements not matching), each in order.
    fileprivate func partitioned(_ matches: (Element) -> Bool) -> ([Element], [Element]) {
        var yes: [Element] = [], no: [Element] = []
        for element in self {
            if matches(element) { yes.append(element) } else { no.append(element) }
        }
        return (yes, no)
    }
}
