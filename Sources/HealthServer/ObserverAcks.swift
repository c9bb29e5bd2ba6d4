import Synchronization

/// Acknowledgements of one observer's events, HealthKit's HKObserverQueryCompletionHandler as a
/// protocol call (docs/semantics.md §6.9): the observer sends its next event only once the last one was
/// acknowledged or its wait timed out.
final class ObserverAcks: Sendable {
    private struct State {
        var sent: UInt64 = 0
        var acknowledged: UInt64 = 0
        var waiting: (sequence: UInt64, waiter: CheckedContinuation<Bool, Never>, timer: Task<Void, Never>)?
        var cancelled = false
    }

    private let state = Mutex(State())

    /// Notes that event `sequence` is about to go out; call before sending it, since the client
    /// may acknowledge it before `wait` starts.
    func sending(_ sequence: UInt64) {
        state.withLock { $0.sent = sequence }
    }

    /// Records the client's acknowledgement; false unless `sequence` went out and was not yet acknowledged.
    func acknowledge(_ sequence: UInt64) -> Bool {
        let (accepted, released) = state.withLock { state -> (Bool, (CheckedContinuation<Bool, Never>, Task<Void, Never>)?) in
            guard sequence > state.acknowledged, sequence <= state.sent else { return (false, nil) }
            state.acknowledged = sequence
            guard let waiting = state.waiting, waiting.sequence <= sequence else { return (true, nil) }
            state.waiting = nil
            return (true, (waiting.waiter, waiting.timer))
        }
        if let (waiter, timer) = released {
            timer.cancel()
            waiter.resume(returning: true)
        }
        return accepted
    }

    /// True once event `sequence` is acknowledged; false when `timeout` passes first or the call is cancelled.
    func wait(for sequence: UInt64, timeout: Duration) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
                let ready = state.withLock { state -> Bool? in
                    if state.acknowledged >= sequence { return true }
                    if state.cancelled { return false }
                    let timer = Task { [self] in
                        try? await Task.sleep(for: timeout)
                        release(sequence, cancelling: false)
                    }
                    state.waiting = (sequence, waiter, timer)
                    return nil
                }
                if let ready { waiter.resume(returning: ready) }
            }
        } onCancel: {
            release(nil, cancelling: true)
        }
    }

    /// Ends the wait for `sequence` (any wait when nil) unacknowledged.
    private func release(_ sequence: UInt64?, cancelling: Bool) {
        let released = state.withLock { state -> (CheckedContinuation<Bool, Never>, Task<Void, Never>)? in
            if cancelling { state.cancelled = true }
            guard let waiting = state.waiting, sequence == nil || waiting.sequence == sequence else { return nil }
            state.waiting = nil
            return (waiting.waiter, waiting.timer)
        }
        if let (waiter, timer) = released {
            timer.cancel()
            waiter.resume(returning: false)
        }
    }
}

/// The running observers' acknowledgement state, found by the connection that receives an
/// AckObserverEvent through the Observe call's connection, call id and serial.
final class ObserverAckBook: Sendable {
    private struct Key: Hashable {
        let connection: UInt64
        let call: UInt64
        let serial: UInt64
    }

    private let observers = Mutex<[Key: ObserverAcks]>([:])

    /// Runs `body` with the acknowledgement state of the observer answering through `reply`.
    func tracking<T>(_ reply: CallReplier, _ body: (ObserverAcks) async throws -> T) async throws -> T {
        let key = Key(connection: reply.connectionID, call: reply.callID, serial: reply.serial)
        let acks = ObserverAcks()
        observers.withLock { $0[key] = acks }
        defer { _ = observers.withLock { $0.removeValue(forKey: key) } }
        return try await body(acks)
    }

    /// Delivers an acknowledgement; false when no such observer is running or the sequence is not outstanding.
    func acknowledge(connection: UInt64, call: UInt64, serial: UInt64, sequence: UInt64) -> Bool {
        let acks = observers.withLock { $0[Key(connection: connection, call: call, serial: serial)] }
        return acks?.acknowledge(sequence) ?? false
    }
}
