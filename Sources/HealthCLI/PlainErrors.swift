import HealthModel

extension HealthError {
    /// The error as a person reads it: what kind of failure in plain words, the server's or the
    /// validator's message, and the object it concerns — without protocol code names.
    public var plainDescription: String {
        let kind: String? = switch code {
        case .invalidArgument: nil
        case .unauthenticated: "the credential was refused"
        case .authorizationDenied: "not authorized"
        case .authorizationNotDetermined: "permission not decided yet"
        case .permissionDenied: "not allowed with this credential"
        case .notFound: "not found"
        case .unavailable: "the server is unavailable"
        case .resourceExhausted: "the server is at a limit"
        case .databaseInaccessible: "the store cannot be used"
        case .dataSizeExceeded: "too large"
        case .anchorExpired: "the anchor has expired"
        case .invalidAnchor: "the anchor is not valid"
        case .noData: "no data"
        case .internalError: "the server failed"
        case .malformed, .frameTooLarge, .unsupportedVersion: "the server and this tool disagree on the protocol"
        case .healthDataUnavailable, .healthDataRestricted, .userCanceled: nil
        }
        var text = kind.map { "\($0): \(message)" } ?? message
        if let objectIndex { text += " (object \(objectIndex + 1) of the batch)" }
        return text
    }
}
