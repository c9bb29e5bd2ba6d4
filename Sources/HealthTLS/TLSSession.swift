import CSSL
import Foundation
import HealthModel

/// One TLS connection over memory buffers: the caller moves ciphertext between the socket and
/// `receive`/`takeOutput`, and plaintext through `receive`'s result and `send`. No I/O of its own,
/// so it fits a libuv loop and a blocking socket alike. Not thread-safe: one user at a time.
public final class TLSSession {
    private let ssl: OpaquePointer
    /// Ciphertext from the peer, read by OpenSSL (owned by `ssl`).
    private let inbound: OpaquePointer
    /// Ciphertext for the peer, written by OpenSSL (owned by `ssl`).
    private let outbound: OpaquePointer

    /// A server session.
    public init(context: TLSContext) {
        // Both fail only when memory runs out, which Swift's own allocations treat as fatal too.
        guard let ssl = SSL_new(context.context), let inbound = BIO_new(BIO_s_mem()), let outbound = BIO_new(BIO_s_mem()) else {
            fatalError("cannot create a TLS session: \(TLSContext.openSSLError())")
        }
        self.ssl = ssl
        self.inbound = inbound
        self.outbound = outbound
        SSL_set_bio(ssl, inbound, outbound)
        SSL_set_accept_state(ssl)
    }

    /// A client session that verifies the server's certificate names `serverName` (a DNS name,
    /// also sent as SNI, or an IP address).
    public convenience init(context: TLSContext, serverName: String) throws(HealthError) {
        self.init(context: context)
        SSL_set_connect_state(ssl)
        guard SSL_set1_host(ssl, serverName) == 1 else {
            throw HealthError.invalid("'\(serverName)' is not a valid server name", field: "server")
        }
        // SSL_set1_host checks an IP address against the certificate's IP names; SNI carries DNS names only.
        if !Self.isIPAddress(serverName) { _ = healthstore_ssl_set_tlsext_host_name(ssl, serverName) }
    }

    deinit { SSL_free(ssl) }

    /// True once the handshake completed.
    public var isEstablished: Bool { SSL_is_init_finished(ssl) == 1 }

    /// True when ciphertext is waiting in `takeOutput()`.
    public var hasOutput: Bool { BIO_ctrl_pending(outbound) > 0 }

    /// Advances the handshake (a client's first call produces its hello in `takeOutput()`);
    /// true once it completed.
    public func handshake() throws(HealthError) -> Bool {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 { return true }
        try check(result)
        return false
    }

    /// Takes ciphertext from the peer; returns the plaintext it completed (possibly none).
    /// Throws `.unauthenticated` when the handshake fails or the peer breaks the protocol.
    public func receive(_ ciphertext: UnsafeRawBufferPointer) throws(HealthError) -> [UInt8] {
        if !ciphertext.isEmpty {
            // A memory BIO takes everything it is given.
            _ = BIO_write(inbound, ciphertext.baseAddress, Int32(ciphertext.count))
        }
        var plaintext: [UInt8] = []
        ERR_clear_error()
        let last = withUnsafeTemporaryAllocation(byteCount: 16 * 1024, alignment: 1) { chunk in
            while true {
                let count = SSL_read(ssl, chunk.baseAddress, Int32(chunk.count))
                guard count > 0 else { return count }
                plaintext.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<Int(count)]))
            }
        }
        try check(last)
        return plaintext
    }

    /// Encrypts `plaintext` into `takeOutput()`; the handshake must have completed.
    public func send(_ plaintext: [UInt8]) throws(HealthError) {
        guard !plaintext.isEmpty else { return }
        ERR_clear_error()
        let result = plaintext.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        if result <= 0 { try check(result) }
    }

    /// Ciphertext for the peer, emptying the buffer.
    public func takeOutput() -> [UInt8] {
        let count = Int(BIO_ctrl_pending(outbound))
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = Int(max(0, BIO_read(outbound, buffer.baseAddress, Int32(count))))
        }
    }

    /// Returns when `result` only means "more ciphertext needed" (or the peer's close_notify,
    /// after which the connection's end arrives as end of stream); throws otherwise.
    private func check(_ result: Int32) throws(HealthError) {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE, SSL_ERROR_ZERO_RETURN:
            return
        default:
            var reason = TLSContext.openSSLError()
            let verification = SSL_get_verify_result(ssl)
            if verification != X509_V_OK {
                reason += " (\(String(cString: X509_verify_cert_error_string(verification))))"
            }
            let stage = isEstablished ? "TLS error" : "TLS handshake failed"
            throw HealthError(.unauthenticated, "\(stage): \(reason)")
        }
    }

    private static func isIPAddress(_ name: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, name, &address) == 1 || inet_pton(AF_INET6, name, &address) == 1
    }
}
