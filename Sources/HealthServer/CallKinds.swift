import HealthModel
import HealthWire

/// One row of the call table: what a call kind is and what it needs before its handler runs. The
/// access guard (`Dispatcher.admit`) checks the needs once, in a fixed order, so handlers never do.
struct CallKind {
    /// Who may make a call.
    enum Caller: Equatable {
        /// Answered on the connection's loop (Hello, Ping, Cancel, AckObserverEvent); never dispatched.
        case connection
        /// An owner or app working in the owner's store.
        case ownerStore
        /// The owner's own credential (the Health app role).
        case owner
        /// The server operator, who manages owners only.
        case serverOperator
    }

    /// The sample types a call touches, as the guard checks them.
    enum Types {
        /// Query types: at least one, each a known sample type (errors name `field`), the predicate
        /// valid for them; an app must have asked about every one.
        case each([String], predicate: QueryPredicate? = nil, field: String = "types")
        /// Fixed types read together: an app must have asked about at least one.
        case anyOf([String])
    }

    /// The call's name in the contract, for errors and logs.
    let name: String
    let caller: Caller
    var types: Types? = nil
    /// Objects the call saves: the guard checks each one's type is known and that an app holds
    /// share permission for what it writes, naming the object's index.
    var saves: [Sample] = []
    /// True for calls reading stored data: their answers can be large, so each waits for output
    /// room before it reads (see `CallReplier.room`). Writes answer briefly and keep their group
    /// commit; RequestAuthorization may wait for the owner; Observe's events are small and paced
    /// by acknowledgements.
    var waitsForOutputRoom = false
    /// True for calls that keep answering until cancelled (shutdown ends them first).
    var isLongRunning = false
}

extension ClientCall {
    /// This call's row of the call table.
    var kind: CallKind {
        switch self {
        case .hello: CallKind(name: "Hello", caller: .connection)
        case .ping: CallKind(name: "Ping", caller: .connection)
        case .cancel: CallKind(name: "Cancel", caller: .connection)
        case .ackObserverEvent: CallKind(name: "AckObserverEvent", caller: .connection)

        case .requestAuthorization: CallKind(name: "RequestAuthorization", caller: .ownerStore)
        case .getAuthorizationStatus: CallKind(name: "GetAuthorizationStatus", caller: .ownerStore, waitsForOutputRoom: true)
        case .getRequestStatusForAuthorization:
            CallKind(name: "GetRequestStatusForAuthorization", caller: .ownerStore, waitsForOutputRoom: true)

        case .saveObjects(let objects, let keepSources):
            // Saving as other sources is the owner's import; an app only ever saves as itself.
            CallKind(name: keepSources ? "SaveObjects with keep_sources" : "SaveObjects", caller: keepSources ? .owner : .ownerStore,
                     saves: objects)
        case .deleteObjects: CallKind(name: "DeleteObjects", caller: .ownerStore)
        // A builder's type is known only once it is open: the handlers check share permission for it.
        case .insertSeriesData(let insert):
            // Building as another source is the owner's import, as with SaveObjects' keep_sources.
            CallKind(name: insert.sourceRevision == nil ? "InsertSeriesData" : "InsertSeriesData with source_revision",
                     caller: insert.sourceRevision == nil ? .ownerStore : .owner)
        case .finishSeries: CallKind(name: "FinishSeries", caller: .ownerStore)
        case .discardSeries: CallKind(name: "DiscardSeries", caller: .ownerStore)
        case .querySeriesData(let query):
            switch query.samples {
            case .uuid:
                CallKind(name: "QuerySeriesData", caller: .ownerStore, types: .anyOf(SeriesDataQuery.pointTypes), waitsForOutputRoom: true)
            case .matching(let type, let predicate):
                CallKind(name: "QuerySeriesData", caller: .ownerStore, types: .each([type], predicate: predicate, field: "type"),
                         waitsForOutputRoom: true)
            }
        case .writeCharacteristics: CallKind(name: "WriteCharacteristics", caller: .owner)

        case .querySamples(let query):
            CallKind(name: "QuerySamples", caller: .ownerStore, types: .each(query.types, predicate: query.predicate),
                     waitsForOutputRoom: true)
        case .queryAnchored(let query):
            CallKind(name: "QueryAnchored", caller: .ownerStore, types: .each(query.types, predicate: query.predicate),
                     waitsForOutputRoom: true, isLongRunning: query.updates)
        case .queryStatistics(let query):
            CallKind(name: "QueryStatistics", caller: .ownerStore, types: .each([query.type], field: "type"),
                     waitsForOutputRoom: true)
        case .queryStatisticsCollection(let query):
            CallKind(name: "QueryStatisticsCollection", caller: .ownerStore, types: .each([query.type], field: "type"),
                     waitsForOutputRoom: true, isLongRunning: query.updates)
        case .queryCorrelations(let query):
            CallKind(name: "QueryCorrelations", caller: .ownerStore, types: .each([query.type], field: "type"),
                     waitsForOutputRoom: true)
        case .querySources(let type, let predicate):
            CallKind(name: "QuerySources", caller: .ownerStore, types: .each([type], predicate: predicate), waitsForOutputRoom: true)
        case .observe(let types, let predicate, _):
            CallKind(name: "Observe", caller: .ownerStore, types: .each(types, predicate: predicate), isLongRunning: true)
        case .queryActivitySummaries:
            CallKind(name: "QueryActivitySummaries", caller: .ownerStore, types: .anyOf(ActivitySummaryCalculator.inputTypes),
                     waitsForOutputRoom: true)
        case .queryDevices(let type):
            CallKind(name: "QueryDevices", caller: .ownerStore, types: type.map { .each([$0], field: "type") },
                     waitsForOutputRoom: true)
        case .countSamples(let types, let predicate):
            CallKind(name: "CountSamples", caller: .ownerStore, types: .each(types, predicate: predicate), waitsForOutputRoom: true)
        case .readCharacteristics:
            CallKind(name: "ReadCharacteristics", caller: .ownerStore, types: .anyOf(CharacteristicRules.types),
                     waitsForOutputRoom: true)

        case .registerApp: CallKind(name: "RegisterApp", caller: .owner)
        case .listApps: CallKind(name: "ListApps", caller: .owner, waitsForOutputRoom: true)
        case .revokeApp: CallKind(name: "RevokeApp", caller: .owner)
        case .rotateAppToken: CallKind(name: "RotateAppToken", caller: .owner)
        case .listAuthorizationRequests(_, let updates):
            CallKind(name: "ListAuthorizationRequests", caller: .owner, waitsForOutputRoom: true, isLongRunning: updates)
        case .decideAuthorization: CallKind(name: "DecideAuthorization", caller: .owner)
        case .listPermissions: CallKind(name: "ListPermissions", caller: .owner, waitsForOutputRoom: true)
        case .setSourcePriority(let type, _): CallKind(name: "SetSourcePriority", caller: .owner, types: .each([type], field: "type"))
        case .getSourcePriority(let type):
            CallKind(name: "GetSourcePriority", caller: .owner, types: .each([type], field: "type"), waitsForOutputRoom: true)

        case .addOwner: CallKind(name: "AddOwner", caller: .serverOperator)
        case .listOwners: CallKind(name: "ListOwners", caller: .serverOperator, waitsForOutputRoom: true)
        }
    }

    /// The call's name in the contract, for errors and logs.
    var name: String { kind.name }

    /// True for calls that keep answering until cancelled (shutdown ends them first).
    var isLongRunning: Bool { kind.isLongRunning }
}
