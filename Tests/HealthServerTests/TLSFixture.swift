import Foundation

/// Throwaway certificates made with the `openssl` command-line tool in a temporary directory:
/// a CA, and leaf certificates it signs (P-256 keys, valid two days).
final class TLSFixture {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("healthd-tls-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A self-signed CA: NAME.pem and NAME.key.
    @discardableResult
    func makeCA(_ name: String) throws -> String {
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                     "-keyout", path("\(name).key"), "-out", path("\(name).pem"), "-days", "2", "-subj", "/CN=\(name)"])
        return path("\(name).pem")
    }

    /// A certificate for `commonName` signed by CA `ca`, naming `altNames` (e.g. "DNS:localhost",
    /// "IP:127.0.0.1"): NAME.pem and NAME.key.
    func makeLeaf(_ name: String, commonName: String, signedBy ca: String, altNames: [String] = []) throws {
        try openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                     "-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", "/CN=\(commonName)"])
        var extensions = "basicConstraints=CA:FALSE\n"
        if !altNames.isEmpty { extensions += "subjectAltName=\(altNames.joined(separator: ","))\n" }
        try extensions.write(toFile: path("\(name).ext"), atomically: true, encoding: .utf8)
        try openssl(["x509", "-req", "-in", path("\(name).csr"), "-CA", path("\(ca).pem"), "-CAkey", path("\(ca).key"),
                     "-CAcreateserial", "-out", path("\(name).pem"), "-days", "2", "-extfile", path("\(name).ext")])
    }

    /// The subject of the certificate a TLS server on 127.0.0.1:`port` presents, as openssl prints it.
    func servedSubject(port: UInt16) throws -> String {
        let output = try openssl(["s_client", "-connect", "127.0.0.1:\(port)", "-CAfile", path("ca.pem")])
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("subject=") }) else {
            throw TestFailure("no subject in openssl s_client's output:\n\(output)")
        }
        return String(line.dropFirst("subject=".count))
    }

    @discardableResult
    private func openssl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("openssl \(arguments.prefix(2).joined(separator: " ")) failed with status \(process.terminationStatus)")
        }
        return text
    }
}
