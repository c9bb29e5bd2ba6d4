import CSSL
import Foundation
import HealthModel

/// An OpenSSL context: the certificates, key and verification rules that every session made from it shares.
///
/// `@unchecked Sendable`: an SSL_CTX is only configured here, before it is shared; OpenSSL allows
/// creating sessions from one context on many threads at once, and it is reference-counted, so a
/// session keeps it alive after a reload dropped this object.
public final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer

    private init(method: OpaquePointer?) throws(HealthError) {
        guard let method, let context = SSL_CTX_new(method) else {
            throw HealthError(.internalError, "cannot create a TLS context: \(TLSContext.openSSLError())")
        }
        self.context = context
        // TLS 1.0 and 1.1 are deprecated (RFC 8996).
        _ = healthstore_ssl_ctx_set_min_proto_version(context, TLS1_2_VERSION)
    }

    deinit { SSL_CTX_free(context) }

    /// A server context serving `certificateFile` (PEM, leaf first, then intermediates) with
    /// `keyFile`; with `clientCAFile`, clients must present a certificate signed by one of its CAs.
    public static func server(certificateFile: String, keyFile: String, clientCAFile: String?) throws(HealthError) -> TLSContext {
        let tls = try TLSContext(method: TLS_server_method())
        try tls.useCertificate(certificateFile, key: keyFile, fields: ("tls-cert", "tls-key"))
        // Clients of this server never resume sessions; tickets would only cost a message per connection.
        SSL_CTX_set_num_tickets(tls.context, 0)
        if let clientCAFile {
            try tls.trust(clientCAFile, field: "tls-client-ca")
            guard let names = SSL_load_client_CA_file(clientCAFile) else {
                throw HealthError.invalid("no CA certificate in \(clientCAFile): \(openSSLError())", field: "tls-client-ca")
            }
            SSL_CTX_set_client_CA_list(tls.context, names)
            SSL_CTX_set_verify(tls.context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        }
        return tls
    }

    /// A client context that verifies servers against `caFile` (PEM) or, without it, the
    /// system's trusted CAs, and presents `certificateFile` with `keyFile` when both are given.
    public static func client(caFile: String?, certificateFile: String?, keyFile: String?) throws(HealthError) -> TLSContext {
        let tls = try TLSContext(method: TLS_client_method())
        if let caFile {
            try tls.trust(caFile, field: "ca")
        } else if SSL_CTX_set_default_verify_paths(tls.context) != 1 {
            throw HealthError(.internalError, "cannot load the system's trusted CAs: \(openSSLError())", field: "ca")
        }
        SSL_CTX_set_verify(tls.context, SSL_VERIFY_PEER, nil)
        switch (certificateFile, keyFile) {
        case (let certificate?, let key?):
            try tls.useCertificate(certificate, key: key, fields: ("tls-cert", "tls-key"))
        case (nil, nil):
            break
        case (nil, _?):
            throw HealthError.invalid("a client key needs its certificate (--tls-cert)", field: "tls-cert")
        case (_?, nil):
            throw HealthError.invalid("a client certificate needs its key (--tls-key)", field: "tls-key")
        }
        return tls
    }

    private func useCertificate(_ certificateFile: String, key keyFile: String, fields: (String, String)) throws(HealthError) {
        try Self.checkReadable(certificateFile, field: fields.0)
        try Self.checkReadable(keyFile, field: fields.1)
        guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
            throw HealthError.invalid("cannot load the certificate in \(certificateFile): \(Self.openSSLError())", field: fields.0)
        }
        guard SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1 else {
            throw HealthError.invalid("cannot load the private key in \(keyFile): \(Self.openSSLError())", field: fields.1)
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw HealthError.invalid("the key in \(keyFile) does not match the certificate in \(certificateFile)", field: fields.1)
        }
    }

    private func trust(_ caFile: String, field: String) throws(HealthError) {
        try Self.checkReadable(caFile, field: field)
        guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
            throw HealthError.invalid("cannot load CA certificates from \(caFile): \(Self.openSSLError())", field: field)
        }
    }

    /// OpenSSL reports a missing file as a generic "system library" failure; this says which file.
    private static func checkReadable(_ path: String, field: String) throws(HealthError) {
        guard access(path, R_OK) == 0 else {
            throw HealthError.invalid("cannot read \(path): \(String(cString: strerror(errno)))", field: field)
        }
    }

    /// The oldest error on this thread's OpenSSL error queue (emptying it), in words.
    static func openSSLError() -> String {
        var reason = "unknown error"
        var code = ERR_get_error()
        var first = true
        while code != 0 {
            if first, let text = ERR_reason_error_string(code) { reason = String(cString: text) }
            first = false
            code = ERR_get_error()
        }
        return reason
    }
}
