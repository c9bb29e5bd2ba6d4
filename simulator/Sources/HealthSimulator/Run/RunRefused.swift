import HealthModel

/// A run stopped early because the server refused every save so far: the reason it gave and what
/// to do about it.
public struct RunRefused: Error, CustomStringConvertible {
    public let code: String
    public let example: String

    init(_ snapshot: RunStats.Snapshot) {
        let (code, _) = snapshot.rejected.max { ($0.value, $1.key) < ($1.value, $0.key) } ?? ("UNKNOWN", 0)
        self.code = code
        example = snapshot.rejectedExamples[code] ?? code
    }

    public var description: String {
        "stopped: the server refused the first \(FleetRun.futileAfter) saves and stored nothing: \(example)\n  hint: \(hint)"
    }

    private var hint: String {
        switch code {
        case HealthErrorCode.authorizationNotDetermined.name, HealthErrorCode.authorizationDenied.name:
            "the owner has not let these apps share their types: run with --approve (grants every requested type "
                + "as the owner), or approve them with 'healthctl authz pending' and 'healthctl authz approve BUNDLE_ID --all'"
        case HealthErrorCode.unauthenticated.name:
            "the app tokens are not valid on this server: check --owner-token-file, or remove --state-dir's tokens.json"
        case HealthErrorCode.invalidArgument.name:
            "the server rejects the samples' content: check the profile files given with --profile"
        default:
            "see the server's log for why it refuses the saves"
        }
    }
}
