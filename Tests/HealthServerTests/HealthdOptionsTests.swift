import Foundation
import XCTest
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

    func testConfigFileFromTheEnvironmentAndRetention() throws {
        let path = try configFile("tombstone-retention-days = 30\n")
        let options = try Options(arguments: [], environment: ["HEALTHD_CONFIG": path])
        XCTAssertEqual(options.tombstoneRetentionDays, 30)
    }

    func testBadInputIsNamed() throws {
        let path = try configFile("listen = 1.2.3.4:1\nbogus = 1\n")
        XCTAssertThrowsError(try Options(arguments: ["--config", path], environment: [:])) { error in
            XCTAssertEqual((error as? OptionError)?.message, "\(path):2: expected 'name = value' with a known option name, got 'bogus = 1'")
        }
        XCTAssertThrowsError(try Options(arguments: ["--threads", "zero"], environment: [:])) { error in
            XCTAssertEqual((error as? OptionError)?.message, "--threads must be a number in 1.0...256.0, got 'zero'")
        }
        XCTAssertThrowsError(try Options(arguments: [], environment: ["HEALTHD_LISTEN": "nowhere"])) { error in
            XCTAssertEqual((error as? OptionError)?.message, "--listen needs HOST:PORT, got 'nowhere'")
        }
    }

    func testDurabilityDefaultsToPowerLossAndComesFromEverySource() throws {
        XCTAssertEqual(try Options(arguments: [], environment: [:]).durability, .powerLoss)
        XCTAssertEqual(try Options(arguments: ["--durability", "process-crash"], environment: [:]).durability, .processCrash)
        XCTAssertEqual(try Options(arguments: [], environment: ["HEALTHD_DURABILITY": "process-crash"]).durability, .processCrash)
        let path = try configFile("durability = process-crash\n")
        XCTAssertEqual(try Options(arguments: ["--config", path], environment: [:]).durability, .processCrash)
        XCTAssertEqual(try Options(arguments: ["--config", path, "--durability", "power-loss"], environment: [:]).durability, .powerLoss)
        XCTAssertThrowsError(try Options(arguments: ["--durability", "fsync"], environment: [:])) { error in
            XCTAssertEqual((error as? OptionError)?.message, "--durability must be power-loss or process-crash, got 'fsync'")
        }
    }
}
