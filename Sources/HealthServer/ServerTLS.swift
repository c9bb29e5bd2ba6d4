import HealthModel
import HealthTLS
import Synchronization

/// The TCP listener's TLS identity, loaded at start and replaced by `reload()` (SIGHUP):
/// connections accepted afterwards use the new certificate, open ones keep theirs.
final class ServerTLS: Sendable {
    let files: TLSFiles
    private let current = Mutex<TLSContext?>(nil)

    init(files: TLSFiles) {
        self.files = files
    }

    /// The context for a new connection; set once `load()` succeeded.
    var context: TLSContext? { current.withLock { $0 } }

    /// Reads the certificate, key and client CA files; on failure the previous context stays.
    func load() throws(HealthError) {
        let context = try TLSContext.server(certificateFile: files.certificate, keyFile: files.privateKey,
                                            clientCAFile: files.clientCA)
        current.withLock { $0 = context }
    }

    /// `load()` for SIGHUP: reports the outcome in the log instead of failing.
    func reload(logger: Logger) {
        do {
            try load()
            logger.info("SIGHUP: reloaded the TLS certificate \(files.certificate) and key \(files.privateKey)")
        } catch {
            logger.error("SIGHUP: kept the previous TLS certificate: \(error)")
        }
    }

    /// How the ready line describes the TCP listener's security.
    var summary: String { files.clientCA == nil ? "TLS" : "TLS, client certificates required" }
}
