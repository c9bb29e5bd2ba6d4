import Foundation
import HealthServer
import HealthStorage

/// The data directory: the store file and, on first start, the default owner's and the operator's tokens.
struct DataDirectory {
    let path: String

    var storePath: String { path + "/healthstore.sqlite" }
    /// Dashboard uploads in progress, each in a directory of its own.
    var uploadsPath: String { path + "/uploads" }

    /// Creates the directory (and its parents) readable by this user only; the error says in plain
    /// words which part could not be made and why.
    func create() throws(DataDirectoryError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw DataDirectoryError("\(path) exists and is not a directory") }
            guard access(path, W_OK | X_OK) == 0 else { throw DataDirectoryError("\(path): \(String(cString: strerror(errno)))") }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != path { try DataDirectory(path: parent).create() }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw DataDirectoryError("cannot create \(path): \(String(cString: strerror(errno)))")
        }
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

/// Why the data directory cannot be used, in plain words.
struct DataDirectoryError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
