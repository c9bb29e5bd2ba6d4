import HealthModel

/// One device's authenticated connection, as the uploader needs it. Errors are `HealthError`;
/// `.unavailable` means the connection is gone (reconnect and retry), anything else is the
/// server's answer to this call.
public protocol StoreLink: Sendable {
    /// Saves one batch atomically; one outcome per object.
    func save(_ samples: [Sample]) async throws -> [SaveOutcome]
    /// Builds a route or heartbeat series (a stored one with its UUID is left as it is).
    func build(_ series: DerivedSeries) async throws -> SaveOutcome
    /// Asks the owner for share/read permission.
    func requestAuthorization(share: [String], read: [String]) async throws
    /// Drops the connection at once (fault injection, shutdown).
    func close()
}

/// Opens device connections and performs the owner's part (apps, tokens, approvals).
public protocol StoreConnector: Sendable {
    /// Connects with an app token; Hello carries the revision and the default device.
    func connect(token: String, revision: SourceRevision, device: Device) async throws -> any StoreLink
    /// Owner: registers an app and returns its token.
    func registerApp(bundleID: String, name: String) async throws -> String
    /// Owner: issues a new token for a registered app.
    func rotateAppToken(bundleID: String) async throws -> String
    /// Owner: grants every listed share and read permission to the app.
    func approve(bundleID: String, share: [String], read: [String]) async throws
    /// Owner: saves samples as the Health app does: the watch's ECG recordings, a type no app may share.
    func saveAsOwner(_ samples: [Sample]) async throws -> [SaveOutcome]
}

extension HealthError {
    /// True for failures of the connection rather than of the call: retry after reconnecting.
    var isTransient: Bool {
        code == .unavailable || code == .resourceExhausted || code == .databaseInaccessible
    }
}
