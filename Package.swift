// swift-tools-version:6.0
// HealthStore: a HealthKit-like health-data store server for Linux. See docs/architecture.md and docs/semantics.md.
import PackageDescription

let package = Package(
    name: "HealthStore",
    products: [
        .executable(name: "healthd", targets: ["healthd"]),
        .executable(name: "healthctl", targets: ["healthctl"]),
        .executable(name: "healthsim", targets: ["healthsim"]),
        .library(name: "HealthClient", targets: ["HealthClient"]),
        .library(name: "HealthModel", targets: ["HealthModel"]),
    ],
    targets: [
        // Debian C libraries, each behind a system-library target.
        .systemLibrary(name: "CProtobufC", pkgConfig: "libprotobuf-c",
                       providers: [.apt(["libprotobuf-c-dev", "protobuf-c-compiler"])]),
        .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CLibZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // protobuf-c code generated from proto/ by scripts/generate-proto (checked by scripts/check-proto).
        .target(name: "HealthProto", dependencies: ["CProtobufC"], cSettings: [.headerSearchPath("include")]),

        // Pure Swift: HealthKit's meaning (types, units, validation, predicates, statistics math).
        .target(name: "HealthModel"),
        // Framing and protobuf-c ⇄ Swift mapping; the only module that touches protobuf-c structs.
        .target(name: "HealthWire", dependencies: ["HealthModel", "HealthProto", "CProtobufC"]),
        // Lock-free counters and histograms, written as Prometheus text.
        .target(name: "HealthMetrics"),
        // The store: `Store` protocol, the shared engine and its SQLite and PostgreSQL connections.
        .target(name: "HealthStorage", dependencies: ["HealthModel", "HealthMetrics", "CSQLite", "CPQ", "CCrypto"]),
        // TLS over memory buffers (OpenSSL), shared by the server's connections and the client.
        .target(name: "HealthTLS", dependencies: ["HealthModel", "CSSL"]),
        // libuv server: connections, sessions, dispatch, subscriptions; the HTTP listener (HTTP/: dashboard
        // API, operator endpoints) on libmicrohttpd, with the dashboard's files as resources.
        .target(name: "HealthServer", dependencies: ["HealthStorage", "HealthWire", "HealthModel", "HealthTLS", "HealthMetrics",
                                                     "CLibUV", "CMicroHTTPD", "AppleHealthImport"],
                resources: [.copy("HTTP/Assets")]),
        // async/await client over the protocol.
        .target(name: "HealthClient", dependencies: ["HealthWire", "HealthModel", "HealthTLS"]),

        // The command-line layer every executable shares: flags, value grammar, help, usage errors.
        .target(name: "HealthCLI", dependencies: ["HealthModel"]),

        .executableTarget(name: "healthd", dependencies: ["HealthCLI", "HealthServer", "HealthStorage"]),
        // Apple Health exports (export.zip, its folder, or export.xml) streamed into samples with provenance.
        .target(name: "AppleHealthImport", dependencies: ["HealthModel", "CLibXML2", "CLibZip", "CCrypto"]),
        .executableTarget(name: "healthctl", dependencies: ["HealthCLI", "HealthClient", "HealthModel", "AppleHealthImport"]),
        // Device simulator: profiles, signal generators and the upload flow behind a connection protocol
        // (a library so tests can import it); the executable plugs HealthClient into that protocol.
        .target(name: "HealthSimulator", dependencies: ["HealthCLI", "HealthModel"], path: "simulator/Sources/HealthSimulator"),
        .executableTarget(name: "healthsim", dependencies: ["HealthCLI", "HealthSimulator", "HealthClient", "HealthWire", "HealthModel"],
                          path: "simulator/Sources/healthsim"),

        // Sockets for tests that play a server or a raw client, shared by the test targets.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // Tests that draw random data use the simulator's seeded SplitMix64, so a failure replays.
        .testTarget(name: "HealthModelTests", dependencies: ["HealthModel", "HealthSimulator"]),
        .testTarget(name: "HealthWireTests", dependencies: ["HealthWire", "HealthModel", "HealthSimulator"]),
        .testTarget(name: "HealthStorageTests", dependencies: ["HealthStorage", "HealthModel", "CSQLite"]),
        .testTarget(name: "HealthCLITests", dependencies: ["HealthCLI"]),
        .testTarget(name: "AppleHealthImportTests", dependencies: ["AppleHealthImport", "HealthModel"]),
        .testTarget(name: "SimulatorTests", dependencies: ["HealthCLI", "HealthSimulator", "HealthModel"]),
        .testTarget(name: "HealthClientTests", dependencies: ["HealthCLI", "HealthClient", "healthctl", "HealthWire", "HealthModel",
                                                            "TestSupport"]),
        .testTarget(name: "HealthServerTests", dependencies: ["HealthClient", "HealthServer", "HealthStorage", "HealthWire", "HealthModel",
                                                            "HealthSimulator", "healthd", "HealthCLI", "AppleHealthImport", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// MARK: storage benchmark (bench/storage.sh) — a separate product, not shipped with the server.
package.products.append(.executable(name: "storage-bench", targets: ["storage-bench"]))
package.targets.append(.executableTarget(name: "storage-bench", dependencies: ["HealthStorage", "HealthModel", "HealthSimulator", "CSQLite"],
                                         path: "bench/storage"))

// MARK: statistics benchmark (bench/stats.sh) — a separate product, not shipped with the server.
package.products.append(.executable(name: "stats-bench", targets: ["stats-bench"]))
package.targets.append(.executableTarget(name: "stats-bench", dependencies: ["HealthStorage", "HealthModel", "CSQLite"],
                                         path: "bench/stats"))

// MARK: fuzzer (scripts/fuzz, fuzz/README.md) — a separate product, not shipped with the server.
package.products.append(.executable(name: "healthfuzz", targets: ["healthfuzz"]))
package.targets.append(.executableTarget(name: "healthfuzz", dependencies: ["HealthWire", "HealthModel", "HealthSimulator"],
                                         path: "fuzz/Sources/healthfuzz"))

// MARK: Apple Health import benchmark (bench/apple-import/run.sh) — a separate product, not shipped with the server.
package.products.append(.executable(name: "apple-import-bench", targets: ["apple-import-bench"]))
package.targets.append(.executableTarget(name: "apple-import-bench", dependencies: ["AppleHealthImport", "CLibXML2"],
                                         path: "bench/apple-import/Sources"))

// MARK: transport floor (bench/load/run.sh FLOOR=1) — the load bench's raw limit, not shipped with the server.
package.products.append(.executable(name: "transport-floor", targets: ["transport-floor"]))
package.targets.append(.executableTarget(name: "transport-floor", dependencies: ["CLibUV", "HealthWire", "HealthModel", "HealthStorage"],
                                         path: "bench/load/floor"))
