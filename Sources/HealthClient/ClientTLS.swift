import HealthModel
import HealthTLS

/// TLS settings for dialing a server: which CAs to trust, the name its certificate must carry,
/// and the client's own certificate for servers that require one. Build it once and share it:
/// it holds the loaded certificates.
public struct ClientTLS: Sendable {
    let context: TLSContext
    /// The name to verify instead of the host dialed (e.g. when dialing an IP address).
    public let serverName: String?

    /// Trusts the CAs in `caFile` (PEM), or the system's trusted CAs when nil; presents
    /// `certificateFile` with `keyFile` (PEM) when both are given.
    public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil,
                serverName: String? = nil) throws(HealthError) {
        context = try TLSContext.client(caFile: caFile, certificateFile: certificateFile, keyFile: keyFile)
        self.serverName = serverName
    }
}
