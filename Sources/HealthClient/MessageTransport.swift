import HealthModel
import HealthWire

/// A bidirectional pipe of protocol messages to one server. `SocketTransport` is the real one;
/// tests substitute an in-memory pipe.
public protocol MessageTransport: Sendable {
    /// Starts delivering server messages in order, one at a time; `onClose` runs once, last, with why
    /// the transport ended.
    func start(onMessage: @escaping @Sendable (ServerMessage) -> Void,
               onClose: @escaping @Sendable (HealthError) -> Void)
    /// Sends one message; safe to call from any thread.
    func send(_ message: ClientMessage) throws(HealthError)
    /// Ends the transport; `onClose` follows.
    func close()
    /// Stops delivering server messages (and reading them) until as many `releaseReading` calls;
    /// a transport that cannot hold back keeps delivering.
    func holdReading()
    /// Releases one `holdReading`.
    func releaseReading()
    /// True while `holdReading` holds: the server's silence is then the client's own doing.
    var isReadingHeld: Bool { get }
    /// A count that grows whenever something arrives from the server (bytes, over a socket): the
    /// connection's liveness check (`Liveness`) takes a count standing still for silence.
    var received: UInt64 { get }
}

extension MessageTransport {
    public func holdReading() {}
    public func releaseReading() {}
    public var isReadingHeld: Bool { false }
}
