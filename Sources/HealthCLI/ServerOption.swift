extension OptionSpec {
    /// `--server`, the same in every client tool: one address, or the nodes of one store tried in
    /// order with failover (read them with `ParsedArguments.list("server")`).
    public static func server(section: String) -> OptionSpec {
        .value("server", "ADDRESS", "server address: HOST:PORT or unix:PATH; for several nodes of one store repeat "
            + "--server or separate addresses with commas: they are tried in order, and a client whose node dies "
            + "moves on to the next (default 127.0.0.1:7420)", environment: "HEALTHSTORE_SERVER", section: section)
    }
}

extension OptionSpec {
    /// `--timeout`, the same in every client tool: how long a server may stay silent (read it with
    /// `ParsedArguments.timeout()`).
    public static func timeout(section: String) -> OptionSpec {
        .value("timeout", "DURATION", "how long the server may stay silent: connecting and its answer to Hello must be over "
            + "within it, and while calls wait, that much silence sends a Ping it must answer within as long (default 10s)",
               section: section)
    }
}

extension ParsedArguments {
    /// Seconds of `--timeout`; nil when not given.
    public func timeout() throws(UsageError) -> Double? {
        try parse("timeout") { text throws(UsageError) in try Values.duration(text, in: 0.1...86_400) }
    }
}
