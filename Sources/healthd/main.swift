import Foundation
import HealthServer
import HealthStorage

// healthd: parse flags, open the store, serve until SIGTERM/SIGINT.

let options: Options
do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()),
                          environment: ProcessInfo.processInfo.environment)
} catch {
    if let message = error.message {
        FileHandle.standardError.write(Data("healthd: \(message)\n\(Options.usage)\n".utf8))
        exit(2)
    }
    print(Options.usage)
    exit(0)
}

let logger = Logger(minimumLevel: options.logLevel)
let data = DataDirectory(path: options.dataDirectory)
let store: SQLiteStore
do {
    try data.create()
    var storeOptions = SQLiteStore.Options()
    storeOptions.tombstoneRetention = Int64(options.tombstoneRetentionDays * 86_400_000_000)
    storeOptions.durability = options.durability
    store = try SQLiteStore.open(path: data.storePath, options: storeOptions)
    store.openWarnings.forEach { logger.warning($0) }
    try await data.initialize(store, logger: logger)
} catch {
    logger.error("cannot open the store at \(data.storePath): \(error)")
    exit(1)
}

let server = HealthServer(store: store, configuration: options.configuration, logger: logger)
do {
    let addresses = try server.start()
    logger.info("ready: listening on \(addresses.joined(separator: ", ")); store \(data.storePath); \(options.configuration.ioThreads) I/O thread(s); authorization policy \(options.configuration.authorizationPolicy.rawValue); durability \(options.durability.rawValue)")
} catch {
    logger.error("cannot listen: \(error)")
    await store.close()
    exit(1)
}
// Deletion records older than the retention are purged hourly (decision 4). An anchor that would
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
