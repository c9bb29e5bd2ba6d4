import Foundation
import HealthServer
import HealthStorage

// healthd: parse flags, open the store, serve until SIGTERM/SIGINT.

let options: Options
do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
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
    store = try SQLiteStore.open(path: data.storePath)
    try await data.initialize(store, logger: logger)
} catch {
    logger.error("cannot open the store at \(data.storePath): \(error)")
    exit(1)
}

let server = HealthServer(store: store, configuration: options.configuration, logger: logger)
do {
    let addresses = try server.start()
    logger.info("ready: listening on \(addresses.joined(separator: ", ")); store \(data.storePath); \(options.configuration.ioThreads) I/O thread(s); authorization policy \(options.configuration.authorizationPolicy.rawValue)")
} catch {
    logger.error("cannot listen: \(error)")
    await store.close()
    exit(1)
}
await server.run()
exit(0)
