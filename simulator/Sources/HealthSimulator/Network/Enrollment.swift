import Foundation
import HealthModel

/// App tokens per bundle id, registered through the owner when missing and kept in a state file so
/// re-runs reuse them; a token the server no longer accepts is rotated.
public actor Enrollment {
    private let connector: any StoreConnector
    private let stateFile: String?
    private var tokens: [String: String]
    /// In-flight registrations, so devices sharing an app register it once.
    private var pending: [String: Task<String, any Error>] = [:]

    /// `stateDirectory` nil keeps tokens in memory only.
    public init(connector: any StoreConnector, stateDirectory: String?) {
        self.connector = connector
        stateFile = stateDirectory.map { ($0 as NSString).appendingPathComponent("tokens.json") }
        tokens = stateFile.flatMap { FileManager.default.contents(atPath: $0) }
            .flatMap { try? JSONDecoder().decode([String: String].self, from: $0) } ?? [:]
    }

    /// The app's token: stored, else registered (or rotated when the app already exists).
    public func token(for source: SourceSpec) async throws -> String {
        if let token = tokens[source.bundleID] { return token }
        return try await obtain(source.bundleID) { connector in
            do {
                return try await connector.registerApp(bundleID: source.bundleID, name: source.name)
            } catch let error as HealthError where !error.isTransient {
                return try await connector.rotateAppToken(bundleID: source.bundleID)
            }
        }
    }

    /// A fresh token after the server refused `stale` (rotated, or registered if unknown).
    public func renew(_ source: SourceSpec, refused stale: String) async throws -> String {
        if let token = tokens[source.bundleID], token != stale { return token }
        tokens[source.bundleID] = nil
        return try await obtain(source.bundleID) { connector in
            do {
                return try await connector.rotateAppToken(bundleID: source.bundleID)
            } catch let error as HealthError where !error.isTransient {
                return try await connector.registerApp(bundleID: source.bundleID, name: source.name)
            }
        }
    }

    /// Connects as `source` with its token (`known`, else the enrolled one); a token the server
    /// refuses (a fresh data directory, rotated elsewhere) is renewed once through the owner.
    /// Returns the link and the token it used.
    public func connect(_ source: SourceSpec, device: Device, known: String? = nil) async throws -> (any StoreLink, String) {
        let current: String
        if let known { current = known } else { current = try await token(for: source) }
        do {
            return (try await connector.connect(token: current, revision: source.revision, device: device), current)
        } catch let error as HealthError where error.code == .unauthenticated {
            let renewed = try await renew(source, refused: current)
            return (try await connector.connect(token: renewed, revision: source.revision, device: device), renewed)
        }
    }

    private func obtain(_ bundleID: String,
                        _ make: @escaping @Sendable (any StoreConnector) async throws -> String) async throws -> String {
        if let task = pending[bundleID] { return try await task.value }
        let connector = connector
        let task = Task { try await make(connector) }
        pending[bundleID] = task
        defer { pending[bundleID] = nil }
        let token = try await task.value
        tokens[bundleID] = token
        save()
        return token
    }

    private func save() {
        guard let stateFile else { return }
        let directory = (stateFile as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        if let data = try? JSONEncoder().encode(tokens) {
            _ = FileManager.default.createFile(atPath: stateFile, contents: data, attributes: [.posixPermissions: 0o600])
        }
    }
}
