import HealthClient
import HealthModel
import HealthWire
import Synchronization

/// An in-memory transport: the test sees every message the client sends (as an async sequence)
/// and plays the server by pushing answers in whatever order it likes.
final class FakeTransport: MessageTransport {
    private struct Handlers {
        var onMessage: (@Sendable (ServerMessage) -> Void)?
        var onClose: (@Sendable (HealthError) -> Void)?
        var closed = false
        var readingHolds = 0
        var delivered: UInt64 = 0
    }

    private let handlers = Mutex(Handlers())
    let sent: AsyncStream<ClientMessage>
    private let sentContinuation: AsyncStream<ClientMessage>.Continuation
    /// Answers Hello by itself, so tests start from a connected client.
    private let autoHello: Bool

    init(autoHello: Bool = true) {
        (sent, sentContinuation) = AsyncStream<ClientMessage>.makeStream()
        self.autoHello = autoHello
    }

    func start(onMessage: @escaping @Sendable (ServerMessage) -> Void, onClose: @escaping @Sendable (HealthError) -> Void) {
        handlers.withLock {
            $0.onMessage = onMessage
            $0.onClose = onClose
        }
    }

    func send(_ message: ClientMessage) throws(HealthError) {
        if handlers.withLock({ $0.closed }) { throw HealthError(.unavailable, "fake transport closed") }
        if autoHello, case .hello = message.call {
            reply(message.callID, .hello(Self.helloResult))
            return
        }
        sentContinuation.yield(message)
    }

    func close() { drop(HealthError(.unavailable, "closed")) }

    /// Holds on reading taken and not released (the test keeps delivering: it plays the server).
    var readingHolds: Int { handlers.withLock { $0.readingHolds } }

    func holdReading() { handlers.withLock { $0.readingHolds += 1 } }

    func releaseReading() { handlers.withLock { $0.readingHolds -= 1 } }

    var isReadingHeld: Bool { readingHolds > 0 }

    /// Messages delivered so far.
    var received: UInt64 { handlers.withLock { $0.delivered } }

    /// Delivers one server message.
    func reply(_ callID: UInt64, more: Bool = false, _ result: ServerResult) {
        handlers.withLock { handlers in
            handlers.delivered += 1
            return handlers.onMessage
        }?(ServerMessage(callID: callID, more: more, result: result))
    }

    /// Simulates the connection dropping.
    func drop(_ error: HealthError = HealthError(.unavailable, "dropped")) {
        let onClose = handlers.withLock { h -> (@Sendable (HealthError) -> Void)? in
            guard !h.closed else { return nil }
            h.closed = true
            return h.onClose
        }
        onClose?(error)
        if onClose != nil { sentContinuation.finish() }
    }

    static let helloResult = HelloResult(serverVersion: "test", protocolVersion: 1, maxFrameBytes: 1 << 22,
                                         maxCallsInFlight: 64, maxBatchObjects: 1000, serverTime: 0, role: .owner,
                                         ownerName: "owner", source: nil)
}

extension AsyncStream<ClientMessage> {
    /// The next message the client sent.
    func next() async -> ClientMessage? {
        var iterator = makeAsyncIterator()
        return await iterator.next()
    }
}
