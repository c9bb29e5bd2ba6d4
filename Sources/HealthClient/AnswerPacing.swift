import HealthModel
import HealthWire
import Synchronization

/// Holds a connection's reading back while too many of one call's answers wait to be taken, so a
/// consumer slower than the server keeps at most `limit` answers in memory: the rest wait in the
/// kernel's socket buffers and then in the server, which stops producing answers for a connection
/// whose output is not read. Reading resumes once half of them were taken.
final class AnswerPacing: Sendable {
    private let limit: Int
    private let transport: any MessageTransport
    private let state = Mutex((waiting: 0, holding: false))

    init(limit: Int, transport: any MessageTransport) {
        self.limit = max(2, limit)
        self.transport = transport
    }

    /// An answer was handed to the call's stream (on the reader queue).
    func delivered() {
        // The hold is taken and released under the lock, so they cannot run out of order.
        state.withLock { state in
            state.waiting += 1
            guard state.waiting >= limit, !state.holding else { return }
            state.holding = true
            transport.holdReading()
        }
    }

    /// The consumer took an answer.
    func taken() {
        state.withLock { state in
            state.waiting -= 1
            guard state.holding, state.waiting <= limit / 2 else { return }
            state.holding = false
            transport.releaseReading()
        }
    }

    /// The consumer is gone: what it left untaken no longer holds reading back.
    func ended() {
        state.withLock { state in
            guard state.holding else { return }
            state.holding = false
            transport.releaseReading()
        }
    }
}

/// A call's answers taken by one consumer from a stream opened on the first `next`, each turned
/// into an `Element`, telling the call's pacing of each answer taken. `stream` hands them on
/// without reading ahead of the consumer (no forwarding task), which pacing depends on.
final class AnswerRelay<Element: Sendable>: @unchecked Sendable {
    typealias Answers = AsyncThrowingStream<ServerResult, any Error>
    // Touched by one consumer at a time: an AsyncThrowingStream calls `next` serially.
    private var iterator: Answers.AsyncIterator?
    private let open: @Sendable () async throws -> Answers
    private let pacing: AnswerPacing?
    private let transform: @Sendable (ServerResult) throws -> Element

    init(pacing: AnswerPacing? = nil, open: @escaping @Sendable () async throws -> Answers,
         transform: @escaping @Sendable (ServerResult) throws -> Element) {
        self.open = open
        self.pacing = pacing
        self.transform = transform
    }

    var stream: AsyncThrowingStream<Element, any Error> {
        AsyncThrowingStream { try await self.next() }
    }

    private func next() async throws -> Element? {
        if iterator == nil { iterator = try await open().makeAsyncIterator() }
        guard let answer = try await iterator?.next() else { return nil }
        pacing?.taken()
        return try transform(answer)
    }

    // Dropping the iterator ends the opened stream, which cancels the call if it still runs.
    deinit { pacing?.ended() }
}

extension AnswerRelay where Element == ServerResult {
    convenience init(pacing: AnswerPacing? = nil, open: @escaping @Sendable () async throws -> Answers) {
        self.init(pacing: pacing, open: open) { $0 }
    }
}
