import HealthModel
import HealthTLS

/// TLS between a connection's socket and its framing: `open` turns what was read into plaintext
/// for the frame decoder, `seal` turns queued frames into what to write.
///
/// A client that starts without a TLS handshake record is told, in plaintext it can decode, that
/// the port requires TLS: after that error the channel passes bytes through unencrypted. Before
/// the handshake completes nothing but handshake records and alerts leaves, so an error answered
/// to a failed handshake is dropped and the client reads the TLS alert instead.
final class ConnectionTLS {
    private let session: TLSSession
    private var sawFirstByte = false
    private var plaintextPeer = false

    init(context: TLSContext) {
        session = TLSSession(context: context)
    }

    /// True when handshake records wait to be written although no frame was queued.
    var hasOutput: Bool { session.hasOutput }

    /// Plaintext carried by `bytes` read from the socket.
    func open(_ bytes: UnsafeRawBufferPointer) throws(HealthError) -> [UInt8] {
        guard !plaintextPeer else { return [] }
        if !sawFirstByte, let first = bytes.first {
            sawFirstByte = true
            // Every TLS connection starts with a handshake record (content type 22).
            guard first == 0x16 else {
                plaintextPeer = true
                throw HealthError(.unauthenticated, "this port requires TLS; connect with --tls")
            }
        }
        return try session.receive(bytes)
    }

    /// The bytes to write for `plaintext` queued frames, with any pending handshake records first.
    func seal(_ plaintext: [UInt8]) -> [UInt8] {
        if plaintextPeer { return plaintext }
        // Fails only after the session already failed; what was queued then cannot be delivered.
        if session.isEstablished { try? session.send(plaintext) }
        return session.takeOutput()
    }
}
