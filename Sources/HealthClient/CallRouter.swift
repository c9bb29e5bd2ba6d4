import HealthModel
import HealthWire
import Synchronization

/// The table of calls in flight on one connection: hands out call ids and routes each server
/// message to the stream of the call it answers, so many calls can be pipelined and answered in
/// any order.
final class CallRouter: Sendable {
    typealias Continuation = AsyncThrowingStream<ServerResult, any Error>.Continuation

    /// A call's stream, and its pacing when its answers hold the connection's reading back.
    private struct Route {
        let continuation: Continuation
        let pacing: AnswerPacing?
    }

    private struct State {
        var nextID: UInt64 = 1
        var calls: [UInt64: Route] = [:]
        /// Set once the connection ended; new calls fail with it at once.
        var closedBy: HealthError?
    }

    private let state = Mutex(State())

    /// A fresh call id that no registered call uses.
    func nextID() -> UInt64 {
        state.withLock { s in
            defer { s.nextID += 1 }
            return s.nextID
        }
    }

    /// Registers a call and returns its id, or the error that closed the connection. `pacing`
    /// learns of each answer handed to the call's stream.
    func register(_ continuation: Continuation, pacing: AnswerPacing? = nil) -> Result<UInt64, HealthError> {
        state.withLock { s in
            if let error = s.closedBy { return .failure(error) }
            let id = s.nextID
            s.nextID += 1
            s.calls[id] = Route(continuation: continuation, pacing: pacing)
            return .success(id)
        }
    }

    /// Removes a call; true when it was still waiting for answers.
    @discardableResult
    func forget(_ id: UInt64) -> Bool {
        state.withLock { $0.calls.removeValue(forKey: id) } != nil
    }

    /// Routes one server message. An Error or a message without `more` is the call's last answer.
    /// Answers for calls nobody waits for (cancelled ones) are dropped.
    func deliver(_ message: ServerMessage) {
        let finished = message.isLast
        let route = state.withLock { s in
            finished ? s.calls.removeValue(forKey: message.callID) : s.calls[message.callID]
        }
        guard let route else { return }
        if case .error(let error) = message.result {
            route.continuation.finish(throwing: error)
            return
        }
        route.continuation.yield(message.result)
        route.pacing?.delivered()
        if finished { route.continuation.finish() }
    }

    /// Fails every call in flight and every later call with `error`.
    func close(with error: HealthError) {
        let pending = state.withLock { s in
            if s.closedBy == nil { s.closedBy = error }
            defer { s.calls.removeAll() }
            return Array(s.calls.values)
        }
        for route in pending { route.continuation.finish(throwing: error) }
    }

    /// True while some call waits for answers.
    var hasCallsWaiting: Bool { state.withLock { !$0.calls.isEmpty } }

    /// The error that closed the connection, if it is closed.
    var closedBy: HealthError? { state.withLock { $0.closedBy } }
}

extension ServerMessage {
    /// True when no further answers follow under this call id.
    var isLast: Bool {
        if case .error = result { return true }
        return !more
    }
}
