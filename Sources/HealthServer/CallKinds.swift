import HealthWire

extension ClientCall {
    /// The call's name in the contract, for errors and logs.
    var name: String {
        switch self {
        case .hello: "Hello"
        case .ping: "Ping"
        case .cancel: "Cancel"
        case .ackObserverEvent: "AckObserverEvent"
        case .requestAuthorization: "RequestAuthorization"
        case .getAuthorizationStatus: "GetAuthorizationStatus"
        case .getRequestStatusForAuthorization: "GetRequestStatusForAuthorization"
        case .saveObjects: "SaveObjects"
        case .deleteObjects: "DeleteObjects"
        case .querySamples: "QuerySamples"
        case .queryAnchored: "QueryAnchored"
        case .queryStatistics: "QueryStatistics"
        case .queryStatisticsCollection: "QueryStatisticsCollection"
        case .queryCorrelations: "QueryCorrelations"
        case .querySources: "QuerySources"
        case .observe: "Observe"
        case .queryActivitySummaries: "QueryActivitySummaries"
        case .queryDevices: "QueryDevices"
        case .countSamples: "CountSamples"
        case .readCharacteristics: "ReadCharacteristics"
        case .writeCharacteristics: "WriteCharacteristics"
        case .registerApp: "RegisterApp"
        case .listApps: "ListApps"
        case .revokeApp: "RevokeApp"
        case .rotateAppToken: "RotateAppToken"
        case .listAuthorizationRequests: "ListAuthorizationRequests"
        case .decideAuthorization: "DecideAuthorization"
        case .listPermissions: "ListPermissions"
        case .setSourcePriority: "SetSourcePriority"
        case .getSourcePriority: "GetSourcePriority"
        case .addOwner: "AddOwner"
        case .listOwners: "ListOwners"
        }
    }

    /// True for calls reading stored data: their answers can be large, so each waits for output
    /// room before it reads (see `CallReplier.room`). Writes answer briefly and keep their group
    /// commit; RequestAuthorization may wait for the owner; Observe's events are small and paced
    /// by acknowledgements.
    var waitsForOutputRoom: Bool {
        switch self {
        case .hello, .ping, .cancel, .ackObserverEvent, .requestAuthorization, .saveObjects, .deleteObjects,
             .writeCharacteristics, .registerApp, .revokeApp, .rotateAppToken, .decideAuthorization, .setSourcePriority,
             .addOwner, .observe:
            false
        case .getAuthorizationStatus, .getRequestStatusForAuthorization, .querySamples, .queryAnchored, .queryStatistics,
             .queryStatisticsCollection, .queryCorrelations, .querySources, .queryActivitySummaries, .queryDevices,
             .countSamples, .readCharacteristics, .listApps, .listAuthorizationRequests, .listPermissions,
             .getSourcePriority, .listOwners:
            true
        }
    }

    /// True for calls that keep answering until cancelled (shutdown ends them first).
    var isLongRunning: Bool {
        switch self {
        case .observe: true
        case .queryAnchored(let query): query.updates
        case .queryStatisticsCollection(let query): query.updates
        case .listAuthorizationRequests(_, let updates): updates
        default: false
        }
    }
}
