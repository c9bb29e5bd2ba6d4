extension OptionSpec {
    /// `--server`, the same in every client tool: one address, or the nodes of one store tried in
    /// order with failover (read them with `ParsedArguments.list("server")`).
    public static func server(section: String) -> OptionSpec {
        .value("server", "ADDRESS", "server address: HOST:PORT or unix:PATH; for several nodes of one store repeat "
            + "--server or separate addresses with commas: they are tried in order, and a client whose node dies "
            + "moves on to the next (default 127.0.0.1:7420)", environment: "HEALTHSTORE_SERVER", section: section)
    }
}
