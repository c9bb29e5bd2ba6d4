import Foundation
import HealthServer
import HealthStorage

/// The data directory: the store file and, on first start, the default owner's and the operator's tokens.
struct DataDirectory {
    let path: String

    var storePath: String { path + "/healthstore.sqlite" }

    func create() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    /// On a store without owners: creates the default owner and writes its token to owner.token;
    /// writes a new operator token to operator.token. Both files are mode 0600.
    func initialize(_ store: any Store, logger: Logger) async throws {
        if try await store.listOwners().isEmpty {
            let (_, token) = try await store.addOwner(name: "owner")
            try writeSecret(token, to: path + "/owner.token")
            logger.info("first start: created the default owner; its token is in \(path)/owner.token")
        }
        if let token = try await store.ensureOperatorToken() {
            try writeSecret(token, to: path + "/operator.token")
            logger.info("first start: created the operator token in \(path)/operator.token")
        }
    }

    /// Writes a token readable by this user only.
    private func writeSecret(_ token: String, to file: String) throws {
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: file]) }
        defer { close(fd) }
        fchmod(fd, 0o600)
        let bytes = Array((token + "\n").utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file])
        }
    }
}
