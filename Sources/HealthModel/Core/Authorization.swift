// Authorization and app records as the server, the store and the tools share them.

/// One authorization decision.
public struct AuthorizationDecision: Sendable, Hashable {
    public let type: String
    public let direction: AccessDirection
    public let grant: Bool

    public init(type: String, direction: AccessDirection, grant: Bool) {
        self.type = type
        self.direction = direction
        self.grant = grant
    }
}

/// A pending authorization request.
public struct AuthorizationRequest: Sendable, Hashable {
    public let app: Source
    public let type: String
    public let direction: AccessDirection
    public let requestedTime: Microseconds

    public init(app: Source, type: String, direction: AccessDirection, requestedTime: Microseconds) {
        self.app = app
        self.type = type
        self.direction = direction
        self.requestedTime = requestedTime
    }
}

/// One recorded permission.
public struct Permission: Sendable, Hashable {
    public let type: String
    public let direction: AccessDirection
    public let state: PermissionState
    public let updatedTime: Microseconds

    public init(type: String, direction: AccessDirection, state: PermissionState, updatedTime: Microseconds) {
        self.type = type
        self.direction = direction
        self.state = state
        self.updatedTime = updatedTime
    }
}

/// A registered app.
public struct AppInfo: Sendable, Hashable {
    public let source: Source
    public let createdTime: Microseconds
    public let revoked: Bool

    public init(source: Source, createdTime: Microseconds, revoked: Bool) {
        self.source = source
        self.createdTime = createdTime
        self.revoked = revoked
    }
}

/// One type's share status.
public struct TypeAuthorizationStatus: Sendable, Hashable {
    public let type: String
    public let status: AuthorizationStatus

    public init(type: String, status: AuthorizationStatus) {
        self.type = type
        self.status = status
    }
}
