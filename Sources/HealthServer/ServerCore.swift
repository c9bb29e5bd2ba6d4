import HealthStorage

/// What every connection shares: configuration, store, dispatcher and bookkeeping.
final class ServerCore: Sendable {
    let config: ServerConfiguration
    let logger: Logger
    let registry = ConnectionRegistry()
    let metrics = ServerMetrics()
    let dispatcher: Dispatcher
    /// The TCP listener's TLS identity; nil when TCP is plaintext.
    let tls: ServerTLS?

    init(store: any Store, config: ServerConfiguration, logger: Logger) {
        self.config = config
        self.logger = logger
        tls = config.tls.map(ServerTLS.init)
        dispatcher = Dispatcher(store: store, config: config, logger: logger, registry: registry, metrics: metrics)
    }
}
