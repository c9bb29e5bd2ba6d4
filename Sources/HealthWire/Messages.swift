import Foundation
import HealthModel

// Swift mirrors of proto/healthstore/v1/healthstore.proto. HealthWire maps these to and from
// protobuf-c structs; nothing outside HealthWire sees protobuf-c.

/// A client frame that decoded as a protobuf message: its call, or why that call is refused.
public struct ClientFrame: Sendable {
    public let callID: UInt64
    public let call: Result<ClientCall, HealthError>
}

/// One client-to-server message.
public struct ClientMessage: Sendable, Hashable {
    public let callID: UInt64
    public let call: ClientCall

    public init(callID: UInt64, call: ClientCall) {
        self.callID = callID
        self.call = call
    }
}

/// One server-to-client message.
public struct ServerMessage: Sendable, Hashable {
    public let callID: UInt64
    /// More answers follow under this call id.
    public let more: Bool
    public let result: ServerResult

    public init(callID: UInt64, more: Bool = false, result: ServerResult) {
        self.callID = callID
        self.more = more
        self.result = result
    }
}

/// Hello: protocol version, credential, the caller's revision and default device.
public struct Hello: Sendable, Hashable {
    public let protocolVersion: UInt32
    public let token: String
    public let sourceRevision: SourceRevision?
    public let defaultDevice: Device?

    public init(protocolVersion: UInt32 = WireLimits.protocolVersion, token: String,
                sourceRevision: SourceRevision? = nil, defaultDevice: Device? = nil) {
        self.protocolVersion = protocolVersion
        self.token = token
        self.sourceRevision = sourceRevision
        self.defaultDevice = defaultDevice
    }
}

/// Answer to Hello.
public struct HelloResult: Sendable, Hashable {
    public let serverVersion: String
    public let protocolVersion: UInt32
    public let maxFrameBytes: UInt32
    public let maxCallsInFlight: UInt32
    public let maxBatchObjects: UInt32
    public let serverTime: Microseconds
    public let role: Role
    public let ownerName: String
    public let source: Source?
    /// Unread answer bytes queued for the connection before the server stops producing answers.
    public let maxOutputBytes: UInt32
    /// Milliseconds a frame may take to arrive once it has begun.
    public let frameTimeoutMilliseconds: UInt32
    /// Largest first frame (the Hello) of a new connection.
    public let maxHelloFrameBytes: UInt32

    public init(serverVersion: String, protocolVersion: UInt32, maxFrameBytes: UInt32, maxCallsInFlight: UInt32,
                maxBatchObjects: UInt32, serverTime: Microseconds, role: Role, ownerName: String, source: Source?,
                maxOutputBytes: UInt32 = 0, frameTimeoutMilliseconds: UInt32 = 0, maxHelloFrameBytes: UInt32 = 0) {
        self.serverVersion = serverVersion
        self.protocolVersion = protocolVersion
        self.maxFrameBytes = maxFrameBytes
        self.maxCallsInFlight = maxCallsInFlight
        self.maxBatchObjects = maxBatchObjects
        self.serverTime = serverTime
        self.role = role
        self.ownerName = ownerName
        self.source = source
        self.maxOutputBytes = maxOutputBytes
        self.frameTimeoutMilliseconds = frameTimeoutMilliseconds
        self.maxHelloFrameBytes = maxHelloFrameBytes
    }
}

/// Every call of the v1 contract. The calls whose values are large are `indirect` (held in a box):
/// a call is copied several times between the frame's decode and its handler, and while any case
/// held a few hundred bytes inline every copy of every call moved them, a device's save's included.
public enum ClientCall: Sendable, Hashable {
    indirect case hello(Hello)
    case ping(Data)
    case cancel(targetCallID: UInt64)
    /// Acknowledges observer event `sequence` of the Observe call `targetCallID`.
    case ackObserverEvent(targetCallID: UInt64, sequence: UInt64)
    case requestAuthorization(share: [String], read: [String])
    case getAuthorizationStatus(types: [String])
    case getRequestStatusForAuthorization(share: [String], read: [String])
    /// `keepSources` (owner only): each object is saved as its own source revision (an import).
    case saveObjects([Sample], keepSources: Bool = false)
    indirect case deleteObjects(DeleteTarget)
    /// Opens a series builder (first call) or adds points to it.
    indirect case insertSeriesData(SeriesInsert)
    indirect case finishSeries(SeriesFinish)
    case discardSeries(builderID: UUID)
    /// Streams a series sample's points in pages.
    indirect case querySeriesData(SeriesDataQuery)
    indirect case querySamples(SampleQuery)
    indirect case queryAnchored(AnchoredQuery)
    indirect case queryStatistics(StatisticsQuery)
    indirect case queryStatisticsCollection(StatisticsCollectionQuery)
    indirect case queryCorrelations(CorrelationQuery)
    indirect case querySources(type: String, predicate: QueryPredicate?)
    indirect case observe(types: [String], predicate: QueryPredicate?, frequency: UpdateFrequency?)
    indirect case queryActivitySummaries(from: CalendarDay, to: CalendarDay, timeZone: String?)
    case queryDevices(type: String?)
    /// Counts per type, source and device of what `querySamples` with the same types and predicate reads.
    indirect case countSamples(types: [String], predicate: QueryPredicate?)
    case readCharacteristics
    indirect case writeCharacteristics(Characteristics)
    case registerApp(bundleID: String, name: String)
    case listApps
    case revokeApp(bundleID: String)
    case rotateAppToken(bundleID: String)
    case listAuthorizationRequests(bundleID: String?, updates: Bool)
    case decideAuthorization(bundleID: String, decisions: [AuthorizationDecision])
    case listPermissions(bundleID: String)
    case setSourcePriority(type: String, bundleIDs: [String])
    case getSourcePriority(type: String)
    case addOwner(name: String)
    case listOwners
}

/// Every answer of the v1 contract.
public enum ServerResult: Sendable, Hashable {
    case error(HealthError)
    case hello(HelloResult)
    case pong(payload: Data, serverTime: Microseconds)
    case cancel(cancelled: Bool)
    case ackObserverEvent(acknowledged: Bool)
    case callEnded(EndReason)
    case requestAuthorization
    case authorizationStatus([TypeAuthorizationStatus])
    case requestStatus(AuthorizationRequestStatus)
    case saveObjects([SaveOutcome])
    case deleteObjects(deletedCount: UInt64)
    /// Points the builder holds after the call.
    case insertSeriesData(count: Int64)
    /// The stored sample (none when a stored one with the same sync identifier was kept).
    case finishSeries([Sample])
    case discardSeries
    case seriesData(SeriesDataPage)
    case samples([Sample])
    /// `initialComplete` marks the last page of the initial result set; `lastSampleAnchor` is the
    /// anchor of the page's last sample (empty without samples), where a read cut off after it resumes.
    case anchored(samples: SampleTable, deleted: [DeletedObject], newAnchor: Data, initial: Bool, initialComplete: Bool = false,
                  lastSampleAnchor: Data = Data())
    case statistics(Statistics)
    /// `initialComplete` marks the last page of the initial buckets.
    case statisticsCollection(buckets: [Statistics], initial: Bool, initialComplete: Bool = false)
    case correlations([Sample])
    case sources([Source])
    /// `sequence` is 0 on the registration answer, then 1, 2, … for events to acknowledge.
    case observerEvent(changedTypes: [String], sequence: UInt64)
    case activitySummaries([ActivitySummary])
    case devices([Device])
    case sampleCounts([SampleCount])
    case characteristics(Characteristics)
    case writeCharacteristics
    case appCredential(app: Source, token: String)
    case listApps([AppInfo])
    case revokeApp(connectionsClosed: UInt32)
    case authorizationRequests([AuthorizationRequest])
    case decideAuthorization(recorded: UInt32)
    case listPermissions([Permission])
    case sourcePriority(type: String, sources: [Source])
    case ownerCredential(name: String, token: String)
    case listOwners([String])
}
