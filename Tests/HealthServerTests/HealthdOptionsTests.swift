import Foundation
import HealthCLI
import XCTest
import HealthServer
@testable import healthd

/// healthd's configuration sources: config file < HEALTHD_* environment < flags.
final class HealthdOptionsTests: XCTestCase {
    private func configFile(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "healthd-\(UUID().uuidString).conf"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func testFlagsOverrideEnvironmentWhichOverridesTheConfigFile() throws {
        let path = try configFile("""
            # a comment line
            listen = 10.0.0.1:9000   # trailing comment
            data = /srv/health
            max-connections = 50
            """)
        let options = try Options(arguments: ["--config", path, "--max-connections", "70"],
                                  environment: ["HEALTHD_DATA": "/var/lib/health", "HEALTHD_MAX_CONNECTIONS": "60"])
        XCTAssertEqual(options.configuration.tcpHost, "10.0.0.1")
        XCTAssertEqual(options.configuration.tcpPort, 9000)
        XCTAssertEqual(options.dataDirectory, "/var/lib/health")
        XCTAssertEqual(options.configuration.maxConnections, 70)
    }

    func testHTTPListenerFromEverySource() throws {
        let defaults = try Options(arguments: [], environment: [:]).configuration.http
        XCTAssertEqual(defaults?.host, "127.0.0.1")
        XCTAssertEqual(defaults?.port, 7480)
        XCTAssertEqual(defaults?.isDefault, true)
        let path = try configFile("http = 0.0.0.0:8080\nmetrics-auth = operator\n")
        let fromFile = try Options(arguments: ["--config", path], environment: [:]).configuration.http
        XCTAssertEqual(fromFile?.host, "0.0.0.0")
        XCTAssertEqual(fromFile?.port, 8080)
        XCTAssertEqual(fromFile?.isDefault, false)
        XCTAssertEqual(fromFile?.metricsTokenRequired, true)
        XCTAssertEqual(try Options(arguments: [], environment: ["HEALTHD_HTTP": "[::1]:0"]).configuration.http?.host, "::1")
        XCTAssertNil(try Options(arguments: ["--config", path, "--http", "off"], environment: [:]).configuration.http)
        XCTAssertThrowsError(try Options(arguments: ["--metrics-auth", "everyone"], environment: [:])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--metrics-auth: 'everyone' is not one of none, operator")
        }
    }

    func testConfigFileFromTheEnvironmentAndRetention() throws {
        let path = try configFile("tombstone-retention-days = 30\n")
        let options = try Options(arguments: [], environment: ["HEALTHD_CONFIG": path])
        XCTAssertEqual(options.tombstoneRetentionDays, 30)
    }

    func testConnectionMemoryLimitsFromEverySource() throws {
        let path = try configFile("max-output-bytes = 262144\nmax-unauthenticated = 10\n")
        let options = try Options(arguments: ["--config", path, "--frame-timeout", "5", "--max-hello-frame-bytes", "4096"],
                                  environment: ["HEALTHD_TOTAL_OUTPUT_BYTES": "33554432", "HEALTHD_MAX_UNAUTHENTICATED_PER_ADDRESS": "3"])
        XCTAssertEqual(options.configuration.outputHighWater, 262_144)
        XCTAssertEqual(options.configuration.maxUnauthenticated, 10)
        XCTAssertEqual(options.configuration.maxUnauthenticatedPerAddress, 3)
        XCTAssertEqual(options.configuration.totalOutputBytes, 33_554_432)
        XCTAssertEqual(options.configuration.frameTimeout, 5)
        XCTAssertEqual(options.configuration.maxHelloFrameBytes, 4096)
        XCTAssertThrowsError(try Options(arguments: ["--max-output-bytes", "1000000000"], environment: [:])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--max-output-bytes: 1000000000 is outside 65536…16777216 bytes")
        }
    }

    func testBadInputIsNamed() throws {
        let path = try configFile("listen = 1.2.3.4:1\nbogus = 1\n")
        XCTAssertThrowsError(try Options(arguments: ["--config", path], environment: [:])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "\(path):2: unknown option name 'bogus'")
        }
        XCTAssertThrowsError(try Options(arguments: ["--threads", "zero"], environment: [:])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--threads: 'zero' is not a whole number")
        }
        XCTAssertThrowsError(try Options(arguments: [], environment: ["HEALTHD_LISTEN": "nowhere"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--listen: 'nowhere' is not HOST:PORT with a port in 0…65535")
        }
        XCTAssertThrowsError(try Options(arguments: ["--idle-timout", "5m"], environment: [:])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "unknown option --idle-timout; did you mean --idle-timeout?")
        }
    }

    func testSharedValueGrammar() throws {
        let options = try Options(arguments: ["--idle-timeout=5m", "--hello-timeout", "500ms", "--max-output-bytes", "2MiB",
                                              "--listen=[::1]:0"], environment: [:])
        XCTAssertEqual(options.configuration.idleTimeout, 300)
        XCTAssertEqual(options.configuration.helloTimeout, 0.5)
        XCTAssertEqual(options.configuration.outputHighWater, 2 << 20)
        XCTAssertEqual(options.configuration.tcpHost, "::1")
        XCTAssertEqual(options.configuration.tcpPort, 0)
    }

    func testHelpListsEveryOptionWhole() {
        let help = Options.help.rendered
        for spec in Options.specs {
            XCTAssertTrue(help.contains("--\(spec.name) \(spec.valueName!)"), spec.name)
        }
        XCTAssertTrue(help.contains("--version"))
    }

    func testTLSFilesComeFromAnySourceAndCertificateAndKeyGoTogether() throws {
        let path = try configFile("tls-cert = /etc/healthd/cert.pem\n")
        let options = try Options(arguments: ["--config", path, "--tls-client-ca", "/etc/healthd/devices.pem"],
                                  environment: ["HEALTHD_TLS_KEY": "/etc/healthd/key.pem"])
        XCTAssertEqual(options.configuration.tls, TLSFiles(certificate: "/etc/healthd/cert.pem", privateKey: "/etc/healthd/key.pem",
                                                           clientCA: "/etc/healthd/devices.pem"))
        XCTAssertNil(try Options(arguments: [], environment: [:]).configuration.tls)
        XCTAssertThrowsError(try Options(arguments: ["--tls-cert", "c.pem"], environment: [:])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--tls-cert and --tls-key go together")
        }
        XCTAssertThrowsError(try Options(arguments: ["--tls-client-ca", "ca.pem"], environment: [:])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--tls-client-ca needs --tls-cert and --tls-key")
        }
    }

    /// A taken port is reported before anything is created; a bad data directory in plain words.
    func testStartupProblemsAreReportedPlainlyAndCreateNothing() throws {
        let taken = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(taken) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(taken, $0, length) } }
        listen(taken, 1)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(taken, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let data = NSTemporaryDirectory() + "healthd-\(UUID().uuidString)"
        let busy = try ServerProcess.run("healthd", ["--listen", "127.0.0.1:\(port)", "--data", data])
        XCTAssertEqual(busy.status, 1)
        XCTAssertTrue(busy.errors.contains("cannot listen on 127.0.0.1:\(port): the port is in use"), busy.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: data), "nothing is created before the port is known to be free")

        let file = NSTemporaryDirectory() + "healthd-file-\(UUID().uuidString)"
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let notDirectory = try ServerProcess.run("healthd", ["--listen", "127.0.0.1:0", "--data", file + "/data"])
        XCTAssertEqual(notDirectory.status, 1)
        XCTAssertTrue(notDirectory.errors.contains("\(file) exists and is not a directory"), notDirectory.errors)
        XCTAssertFalse(notDirectory.errors.contains("NSCocoaErrorDomain"), notDirectory.errors)
    }

    func testDurabilityDefaultsToPowerLossAndComesFromEverySource() throws {
        XCTAssertEqual(try Options(arguments: [], environment: [:]).durability, .powerLoss)
        XCTAssertEqual(try Options(arguments: ["--durability", "process-crash"], environment: [:]).durability, .processCrash)
        XCTAssertEqual(try Options(arguments: [], environment: ["HEALTHD_DURABILITY": "process-crash"]).durability, .processCrash)
        let path = try configFile("durability = process-crash\n")
        XCTAssertEqual(try Options(arguments: ["--config", path], environment: [:]).durability, .processCrash)
        XCTAssertEqual(try Options(arguments: ["--config", path, "--durability", "power-loss"], environment: [:]).durability, .powerLoss)
        XCTAssertThrowsError(try Options(arguments: ["--durability", "fsync"], environment: [:])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--durability: 'fsync' is not one of power-loss, process-crash")
        }
    }

    func testGroupCommitSettingsComeFromEverySourceAndDefaultToTheStores() throws {
        let defaults = try Options(arguments: [], environment: [:])
        XCTAssertNil(defaults.groupCommitWindow)
        XCTAssertNil(defaults.groupCommitJobs)
        let flags = try Options(arguments: ["--group-commit-window", "25ms", "--group-commit-jobs", "512"], environment: [:])
        XCTAssertEqual(flags.groupCommitWindow, .milliseconds(25))
        XCTAssertEqual(flags.groupCommitJobs, 512)
        XCTAssertEqual(try Options(arguments: [], environment: ["HEALTHD_GROUP_COMMIT_WINDOW": "0"]).groupCommitWindow, .zero)
        let path = try configFile("group-commit-jobs = 32\n")
        XCTAssertEqual(try Options(arguments: ["--config", path], environment: [:]).groupCommitJobs, 32)
        XCTAssertThrowsError(try Options(arguments: ["--group-commit-window", "2s"], environment: [:])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--group-commit-window: 2s is outside 0s…1s")
        }
    }

    func testStoreComesFromFlagEnvironmentOrConfigFileAndDefaultsToTheDataDirectory() throws {
        XCTAssertEqual(try Options(arguments: ["--data", "/srv/h"], environment: [:]).storeLocation,
                       .sqlite(path: "/srv/h/healthstore.sqlite"))
        let path = try configFile("store = sqlite:/srv/file.sqlite\n")
        XCTAssertEqual(try Options(arguments: ["--config", path], environment: [:]).storeLocation, .sqlite(path: "/srv/file.sqlite"))
        let url = "postgresql://health@db.example:5433/health"
        XCTAssertEqual(try Options(arguments: ["--config", path], environment: ["HEALTHD_STORE": url]).storeLocation, .postgreSQL(url: url))
        XCTAssertEqual(try Options(arguments: ["--store", "postgresql:///health?host=/run/pg"], environment: ["HEALTHD_STORE": url]).storeLocation,
                       .postgreSQL(url: "postgresql:///health?host=/run/pg"))
        XCTAssertThrowsError(try Options(arguments: ["--store", "mysql://x"], environment: [:])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--store: 'mysql://x' is neither sqlite:PATH nor a postgresql://user@host:port/db URL")
        }
    }

    func testStoreLocationInTheLogLeavesThePasswordOut() {
        XCTAssertEqual(StoreLocation.postgreSQL(url: "postgresql://health:s3cret@db:5432/h").description, "postgresql://health@db:5432/h")
        XCTAssertEqual(StoreLocation.postgreSQL(url: "postgres://db/h").description, "postgres://db/h")
        XCTAssertEqual(StoreLocation.sqlite(path: "./data/healthstore.sqlite").description, "sqlite:./data/healthstore.sqlite")
    }
}
