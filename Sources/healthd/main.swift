import Foundation
import HealthCLI
import HealthServer
import HealthStorage

// healthd: parse flags, open the store, serve until SIGTERM/SIGINT.

let tool = ToolMain(name: "healthd", help: Options.help)
let options: Options
do {
    let arguments = try Options.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
    tool.answerStandardOptions(arguments)
    options = try Options(arguments)
} catch {
    tool.fail(error)
}

let logger = Logger(minimumLevel: options.logLevel)
if let host = options.configuration.tcpHost, let problem = ListenCheck.problem(host: host, port: options.configuration.tcpPort) {
    logger.error(problem)
    exit(1)
}
let data = DataDirectory(path: options.dataDirectory)
do {
    try data.create()
} catch {
    logger.error("cannot use the data directory: \(error)")
    exit(1)
}
let store: EngineStore
do {
    store = try options.storeLocation.open(retention: Int64(options.tombstoneRetentionDays * 86_400_000_000),
                                           durability: options.durability, groupCommitWindow: options.groupCommitWindow,
                                           groupCommitJobs: options.groupCommitJobs, log: { logger.info($0) })
    store.openWarnings.forEach { logger.warning($0) }
    // Logged once done: the store serves meanwhile.
    Task { for note in await store.openFinished() { logger.info(note) } }
    try await data.initialize(store, logger: logger)
} catch {
    logger.error("cannot open the store \(options.storeLocation): \(error)")
    exit(1)
}

let server = HealthServer(store: store, configuration: options.configuration, logger: logger)
do {
    let addresses = try server.start()
    logger.info("ready: listening on \(addresses.joined(separator: ", ")); store \(options.storeLocation); \(options.configuration.ioThreads) I/O thread(s); authorization policy \(options.configuration.authorizationPolicy.rawValue)\(options.storeLocation.isSQLite ? "; durability \(options.durability.rawValue)" : "")")
} catch {
    logger.error("cannot listen: \(error)")
    await store.close()
    exit(1)
}
// Deletion records older than the retention are purged hourly (docs/semantics.md decision 4). An anchor that would
// now miss a purged deletion its caller could have seen gets ANCHOR_EXPIRED instead of silently
// missing it; the client then resyncs from no anchor.
let purger = Task {
    while !Task.isCancelled {
        do {
            let purged = try await store.purgeExpiredTombstones()
            if purged > 0 { logger.info("purged \(purged) deletion record(s) older than \(options.tombstoneRetentionDays) days") }
        } catch {
            logger.warning("tombstone purge failed: \(error)")
        }
        try? await Task.sleep(for: .seconds(3600))
    }
}
await server.run()
purger.cancel()
exit(0)
