import Foundation
import HealthModel

/// Where command-line tools find a credential: an explicit token file, then the file named by
/// HEALTHSTORE_TOKEN_FILE, then the token in HEALTHSTORE_TOKEN, then a default file (the server
/// writes `./data/owner.token` on first start). The Python client follows the same order.
public enum TokenSource {
    /// The environment variable holding a token.
    public static let environmentVariable = "HEALTHSTORE_TOKEN"
    /// The environment variable naming a token file.
    public static let fileEnvironmentVariable = "HEALTHSTORE_TOKEN_FILE"
    /// The owner token the server writes on first start, relative to the working directory.
    public static let defaultOwnerTokenFile = "data/owner.token"

    /// The token from `file` if given, else the environment, else `defaultFile`.
    public static func resolve(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                               defaultFile: String = defaultOwnerTokenFile) throws(HealthError) -> String {
        if let file { return try read(file) }
        if let file = environment[fileEnvironmentVariable], !file.isEmpty { return try read(file) }
        if let token = environment[environmentVariable]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty {
            return token
        }
        do {
            return try read(defaultFile)
        } catch {
            throw HealthError(.unauthenticated, "no token: pass --token-file, set \(fileEnvironmentVariable) or \(environmentVariable), "
                + "or run where \(defaultFile) exists (\(error.message))")
        }
    }

    /// The first line of a token file, without surrounding whitespace.
    public static func read(_ path: String) throws(HealthError) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw HealthError(.unauthenticated, "cannot read token file '\(path)'", field: "token-file")
        }
        let token = text.split(whereSeparator: \.isNewline).first.map(String.init)?
            .trimmingCharacters(in: .whitespaces) ?? ""
        guard !token.isEmpty else { throw HealthError(.unauthenticated, "token file '\(path)' is empty", field: "token-file") }
        return token
    }
}
