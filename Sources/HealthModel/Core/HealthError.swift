/// Error codes shared by every layer: 1–15 are HealthKit's HKError.Code raw values, 100+ are
/// protocol codes. Raw values equal the wire enum `healthstore.v1.ErrorCode`.
public enum HealthErrorCode: Int32, Sendable, Hashable, CaseIterable {
    case healthDataUnavailable = 1
    case healthDataRestricted = 2
    case invalidArgument = 3
    case authorizationDenied = 4
    case authorizationNotDetermined = 5
    case databaseInaccessible = 6
    case userCanceled = 7
    case noData = 11
    case dataSizeExceeded = 13
    case unauthenticated = 100
    case malformed = 101
    case frameTooLarge = 102
    case unsupportedVersion = 103
    case resourceExhausted = 104
    case notFound = 105
    case internalError = 106
    case anchorExpired = 107
    case permissionDenied = 108
    case invalidAnchor = 109
    case unavailable = 110

    /// The wire name without prefix, e.g. "INVALID_ARGUMENT".
    public var name: String {
        switch self {
        case .healthDataUnavailable: "HEALTH_DATA_UNAVAILABLE"
        case .healthDataRestricted: "HEALTH_DATA_RESTRICTED"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .authorizationDenied: "AUTHORIZATION_DENIED"
        case .authorizationNotDetermined: "AUTHORIZATION_NOT_DETERMINED"
        case .databaseInaccessible: "DATABASE_INACCESSIBLE"
        case .userCanceled: "USER_CANCELED"
        case .noData: "NO_DATA"
        case .dataSizeExceeded: "DATA_SIZE_EXCEEDED"
        case .unauthenticated: "UNAUTHENTICATED"
        case .malformed: "MALFORMED"
        case .frameTooLarge: "FRAME_TOO_LARGE"
        case .unsupportedVersion: "UNSUPPORTED_VERSION"
        case .resourceExhausted: "RESOURCE_EXHAUSTED"
        case .notFound: "NOT_FOUND"
        case .internalError: "INTERNAL"
        case .anchorExpired: "ANCHOR_EXPIRED"
        case .permissionDenied: "PERMISSION_DENIED"
        case .invalidAnchor: "INVALID_ANCHOR"
        case .unavailable: "UNAVAILABLE"
        }
    }
}

/// A failure with a code, an explanation naming the rule and value, and where it happened.
public struct HealthError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: HealthErrorCode
    public let message: String
    /// Index of the offending object in the request's list, when there is one.
    public let objectIndex: Int?
    /// The offending field, e.g. "end_time" or "metadata.HKTimeZone".
    public let field: String?

    public init(_ code: HealthErrorCode, _ message: String, objectIndex: Int? = nil, field: String? = nil) {
        self.code = code
        self.message = message
        self.objectIndex = objectIndex
        self.field = field
    }

    /// The same error attributed to object `index` of a batch.
    public func at(index: Int) -> HealthError {
        HealthError(code, message, objectIndex: index, field: field)
    }

    public static func invalid(_ message: String, field: String? = nil) -> HealthError {
        HealthError(.invalidArgument, message, field: field)
    }

    public var description: String {
        var text = "\(code.name): \(message)"
        if let field { text += " [field \(field)]" }
        if let objectIndex { text += " [object \(objectIndex)]" }
        return text
    }
}
