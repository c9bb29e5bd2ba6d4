import Foundation
import HealthClient
import HealthModel
import HealthWire
import XCTest

/// TLS on healthd's TCP listener with HealthClient: verification both ways, clear errors for
/// plaintext on either side, client certificates, and certificate reload on SIGHUP.
final class TLSTests: XCTestCase {
    private var certificates: TLSFixture!

    override func setUpWithError() throws {
        certificates = try TLSFixture()
        try certificates.makeCA("ca")
        try certificates.makeLeaf("server", commonName: "healthd-test", signedBy: "ca", altNames: ["DNS:localhost", "IP:127.0.0.1"])
    }

    private func tlsServer(_ extra: [String] = []) throws -> ServerProcess {
        try ServerProcess(extraArguments: ["--tls-cert", certificates.path("server.pem"), "--tls-key", certificates.path("server.key")]
                          + extra)
    }

    private func connect(_ server: ServerProcess, host: String = "127.0.0.1", tls: ClientTLS?) async throws -> HealthConnection {
        try await HealthConnection.connect(to: .tcp(host: host, port: server.port), hello: Hello(token: server.ownerToken), tls: tls)
    }

    /// The error `body` fails with.
    private func failure(_ body: () async throws -> Any) async -> HealthError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error as? HealthError
        }
    }

    func testTheHTTPListenerServesHTTPSWithTheSameCertificate() throws {
        let server = try tlsServer()
        XCTAssertTrue(server.log.contains("https 127.0.0.1:\(server.httpPort)"), server.log)
        XCTAssertEqual(try certificates.servedSubject(port: server.httpPort), try certificates.servedSubject(port: server.port))
    }

    func testHelloSaveAndQueryOverTLS() async throws {
        let server = try tlsServer()
        XCTAssertTrue(server.log.contains("ready: listening on tcp 127.0.0.1:\(server.port) (TLS)"), server.log)
        let tls = try ClientTLS(caFile: certificates.path("ca.pem"))
        for host in ["127.0.0.1", "localhost"] {
            let connection = try await connect(server, host: host, tls: tls)
            let sample = Fixtures.heartRateSample(64)
            let saved = try await connection.save([sample])
            XCTAssertEqual(saved, [.stored])
            let found = try await connection.samples(SampleQuery(types: [Fixtures.heartRate]))
            XCTAssertTrue(found.contains { $0.uuid == sample.uuid })
            connection.close()
        }
        // The Unix socket stays plaintext.
        let unix = try await HealthConnection.connect(to: .unix(path: server.unixPath), hello: Hello(token: server.ownerToken))
        let overUnix = try await unix.samples(SampleQuery(types: [Fixtures.heartRate]))
        XCTAssertEqual(overUnix.count, 2)
    }

    func testAServerCertificateFromAnotherCAIsRejected() async throws {
        let server = try tlsServer()
        let tls = try ClientTLS(caFile: certificates.makeCA("other-ca"))
        let error = await failure { try await self.connect(server, tls: tls) }
        XCTAssertEqual(error?.code, .unauthenticated)
        XCTAssertTrue(error?.message.contains("certificate verify failed") == true, "\(String(describing: error))")
    }

    func testACertificateForAnotherNameIsRejected() async throws {
        let server = try tlsServer()
        let tls = try ClientTLS(caFile: certificates.path("ca.pem"), serverName: "elsewhere.example")
        let error = await failure { try await self.connect(server, tls: tls) }
        XCTAssertEqual(error?.code, .unauthenticated)
        XCTAssertTrue(error?.message.contains("hostname mismatch") == true, "\(String(describing: error))")
    }

    func testAPlaintextClientOnTheTLSPortIsToldToUseTLS() async throws {
        let server = try tlsServer()
        let error = await failure { try await self.connect(server, tls: nil) }
        XCTAssertEqual(error?.code, .unauthenticated)
        XCTAssertEqual(error?.message, "this port requires TLS; connect with --tls")
        // The server keeps serving TLS clients.
        let connection = try await connect(server, tls: try ClientTLS(caFile: certificates.path("ca.pem")))
        _ = try await connection.ping()
    }

    func testATLSClientOnAPlaintextPortIsToldTheServerDoesNotSpeakTLS() async throws {
        let server = try ServerProcess()
        let error = await failure { try await self.connect(server, tls: try ClientTLS(caFile: self.certificates.path("ca.pem"))) }
        XCTAssertEqual(error?.code, .unauthenticated)
        XCTAssertTrue(error?.message.contains("does not speak TLS") == true, "\(String(describing: error))")
        XCTAssertTrue(error?.message.contains("connect without --tls") == true, "\(String(describing: error))")
    }

    func testARequiredClientCertificateMustBePresentedAndSignedByTheClientCA() async throws {
        try certificates.makeCA("devices")
        try certificates.makeLeaf("device", commonName: "device-1", signedBy: "devices")
        try certificates.makeLeaf("stranger", commonName: "stranger", signedBy: "ca")
        let server = try tlsServer(["--tls-client-ca", certificates.path("devices.pem")])
        XCTAssertTrue(server.log.contains("(TLS, client certificates required)"), server.log)
        let ca = certificates.path("ca.pem")

        let missing = await failure { try await self.connect(server, tls: try ClientTLS(caFile: ca)) }
        XCTAssertNotNil(missing, "a client without a certificate was let in")
        let unsigned = await failure {
            try await self.connect(server, tls: try ClientTLS(caFile: ca, certificateFile: self.certificates.path("stranger.pem"),
                                                               keyFile: self.certificates.path("stranger.key")))
        }
        XCTAssertNotNil(unsigned, "a client certificate from another CA was accepted")

        let device = try ClientTLS(caFile: ca, certificateFile: certificates.path("device.pem"), keyFile: certificates.path("device.key"))
        let connection = try await connect(server, tls: device)
        _ = try await connection.ping()
        XCTAssertTrue(server.log.contains("TLS handshake failed"), server.log)
    }

    func testSIGHUPServesANewCertificateToNewConnectionsAndKeepsTheOldOneWhenTheNewIsBad() async throws {
        let (certificate, key) = (certificates.path("live.pem"), certificates.path("live.key"))
        try FileManager.default.copyItem(atPath: certificates.path("server.pem"), toPath: certificate)
        try FileManager.default.copyItem(atPath: certificates.path("server.key"), toPath: key)
        let server = try ServerProcess(extraArguments: ["--tls-cert", certificate, "--tls-key", key])
        XCTAssertTrue(try certificates.servedSubject(port: server.port).contains("healthd-test"))
        let tls = try ClientTLS(caFile: certificates.path("ca.pem"))
        let open = try await connect(server, tls: tls)

        try certificates.makeLeaf("renewed", commonName: "healthd-renewed", signedBy: "ca", altNames: ["IP:127.0.0.1"])
        for (from, to) in [("renewed.pem", certificate), ("renewed.key", key)] {
            try FileManager.default.removeItem(atPath: to)
            try FileManager.default.copyItem(atPath: certificates.path(from), toPath: to)
        }
        try hangUp(server, until: "reloaded the TLS certificate")
        XCTAssertTrue(try certificates.servedSubject(port: server.port).contains("healthd-renewed"))
        _ = try await open.ping()

        try "not a certificate\n".write(toFile: certificate, atomically: true, encoding: .utf8)
        try hangUp(server, until: "kept the previous TLS certificate")
        XCTAssertTrue(try certificates.servedSubject(port: server.port).contains("healthd-renewed"))
        _ = try await connect(server, tls: tls).ping()
    }

    func testHealthctlConnectsWithTLSAndExplainsAPlaintextAttempt() throws {
        let server = try tlsServer()
        let tokenFile = certificates.path("owner.token")
        try server.ownerToken.write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let common = ["apps", "list", "--server", "127.0.0.1:\(server.port)", "--token-file", tokenFile]
        let secure = try ServerProcess.run("healthctl", common + ["--tls", "--ca", certificates.path("ca.pem")])
        XCTAssertEqual(secure.status, 0, secure.errors)
        let plain = try ServerProcess.run("healthctl", common)
        XCTAssertEqual(plain.status, 1)
        XCTAssertTrue(plain.errors.contains("this port requires TLS; connect with --tls"), plain.errors)
    }

    /// Sends SIGHUP and waits for a log line containing `line`.
    private func hangUp(_ server: ServerProcess, until line: String) throws {
        let before = server.log.components(separatedBy: line).count
        kill(server.process.processIdentifier, SIGHUP)
        let deadline = Date().addingTimeInterval(10)
        while server.log.components(separatedBy: line).count == before {
            guard Date() < deadline else { throw TestFailure("no '\(line)' after SIGHUP; log:\n\(server.log)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
