import HealthModel
import HealthWire
import Synchronization

/// Gathers a call's answers (every page) until its final one.
private final class AnswerCollector: AnswerReceiver {
    private let answers = Mutex<[ServerResult]>([])

    func receive(_ result: ServerResult, more: Bool) async {
        answers.withLock { $0.append(result) }
    }

    var collected: [ServerResult] { answers.withLock { $0 } }
}

// Calls made inside the server (the HTTP API): the same access guard, handlers and store calls as a
// connection's, with the answers handed over in memory.
extension Dispatcher {
    /// Runs one call as `session`; its answers (a paged answer's pages in order), or its error.
    func answers(_ call: ClientCall, session: Session, loop: EventLoop) async throws(HealthError) -> [ServerResult] {
        let collector = AnswerCollector()
        await handle(call, session: session, reply: inProcessReplier(loop: loop, receiver: collector))
        let answers = collector.collected
        if case .error(let error)? = answers.last { throw error }
        return answers
    }

    /// Runs a long-running call as `session`, handing each answer to `receiver` as it is produced,
    /// until the calling task is cancelled.
    func stream(_ call: ClientCall, session: Session, loop: EventLoop, to receiver: any AnswerReceiver) async {
        await handle(call, session: session, reply: inProcessReplier(loop: loop, receiver: receiver))
    }

    /// A replier that hands answers to `receiver`; no connection, so no frame limit or output turns.
    private func inProcessReplier(loop: EventLoop, receiver: any AnswerReceiver) -> CallReplier {
        CallReplier(loop: loop, connectionID: 0, receiver: receiver, callID: 0, serial: 0, maxFrameBytes: config.maxFrameBytes)
    }

    /// The session of a browser signed in with an owner token: the Health app's source, like healthctl.
    func ownerSession(token: String, peer: String) async -> Result<Session, HealthError> {
        let hello = Hello(protocolVersion: WireLimits.protocolVersion, token: token)
        switch await self.hello(hello, peer: peer) {
        case .success(let (session, _)):
            guard session.role == .owner else {
                return .failure(HealthError(.permissionDenied, "the dashboard needs the owner token; this is \(session.roleName)'s", field: "token"))
            }
            return .success(session)
        case .failure(let error):
            return .failure(HealthError(error.code, error.message, field: "token"))
        }
    }
}
