import Foundation
import HealthModel

/// An owner's id in the store.
public struct OwnerID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: Int64
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    public static func < (a: OwnerID, b: OwnerID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "owner#\(rawValue)" }
}

/// Who an authenticated credential is.
public struct Principal: Sendable, Hashable {
    public let role: Role
    /// nil for the operator.
    public let owner: OwnerID?
    public let ownerName: String
    /// The source the principal saves as: the app for apps, the Health app for owners.
    public let source: Source?

    public init(role: Role, owner: OwnerID?, ownerName: String, source: Source?) {
        self.role = role
        self.owner = owner
        self.ownerName = ownerName
        self.source = source
    }
}

extension Principal {
    /// The source an owner's own credential saves as (HealthKit's Health app).
    public static let healthApp = Source(name: "Health", bundleID: "com.apple.Health")
}

/// What the caller may read: types it holds read permission for are read in full; every other
/// type only where it is the saving source. Another source's correlation is read with only its
/// readable readings, and not at all when none is readable. Owners read everything.
public struct ReadScope: Sendable, Hashable {
    /// The caller's bundle id (its own data is always readable).
    public let callerBundleID: String
    /// nil = every type is readable (owner); otherwise the types with granted read permission.
    public let readableTypes: Set<String>?

    public init(callerBundleID: String, readableTypes: Set<String>?) {
        self.callerBundleID = callerBundleID
        self.readableTypes = readableTypes
    }

    /// Full read access.
    public static func everything(callerBundleID: String) -> ReadScope {
        ReadScope(callerBundleID: callerBundleID, readableTypes: nil)
    }

    /// True when every sample of `type` is readable, not only the caller's own.
    public func canReadAll(_ type: String) -> Bool {
        readableTypes?.contains(type) ?? true
    }
}

/// A batch to save atomically, with the identity the server stamps on it. A class of constants: the
/// loop hands it to the writer's job and frees it once, where a struct of the objects, the revision and
/// the device was copied into the job and destroyed twice, string by string.
public final class SaveBatch: Sendable {
    public let owner: OwnerID
    /// The saving connection's revision (taken from the objects only when `keepsSources`).
    public let revision: SourceRevision
    /// Used for objects that carry no device.
    public let defaultDevice: Device?
    public let objects: [Sample]
    /// An owner's import: each top-level object is saved as its own `sourceRevision` (complete, see
    /// `SourceRules.keptSources`), and a source new to the owner's store is recorded as imported.
    public let keepsSources: Bool
    /// The saving connection's own `SaveShortcuts` (one per connection, kept across its batches).
    public let shortcuts: SaveShortcuts?

    public init(owner: OwnerID, revision: SourceRevision, defaultDevice: Device?, objects: [Sample], keepsSources: Bool = false,
                shortcuts: SaveShortcuts? = nil) {
        self.owner = owner
        self.revision = revision
        self.defaultDevice = defaultDevice
        self.objects = objects
        self.keepsSources = keepsSources
        self.shortcuts = shortcuts
    }
}

/// Who deletes: apps delete only their own objects; the owner deletes anything.
public struct Deleter: Sendable, Hashable {
    public let owner: OwnerID
    public let bundleID: String
    public let isOwner: Bool

    public init(owner: OwnerID, bundleID: String, isOwner: Bool) {
        self.owner = owner
        self.bundleID = bundleID
        self.isOwner = isOwner
    }
}

/// Result of an anchored query.
public struct AnchoredResult: Sendable, Hashable {
    public let samples: SampleTable
    public let deleted: [DeletedObject]
    /// The caller's next anchor: the position of the last object returned, or the caller's anchor
    /// unchanged when nothing was returned (HealthKit: "corresponds to the last object that was
    /// returned"), so it never moves with data the caller does not get.
    public let newAnchor: Data
    /// Where the next answer may start reading for the same caller: past everything this answer
    /// read, returned or not. For the server's own long-running queries only — it moves with every
    /// source's writes, so it must never reach a read-restricted caller.
    public let scannedThrough: Data

    public init(samples: SampleTable, deleted: [DeletedObject], newAnchor: Data, scannedThrough: Data? = nil) {
        self.samples = samples
        self.deleted = deleted
        self.newAnchor = newAnchor
        self.scannedThrough = scannedThrough ?? newAnchor
    }
}

/// An anchored answer whose samples arrive in parts while the store reads them: `head` holds the
/// deletions and anchors (its `samples` are empty), `samples` the parts in anchor order.
public struct AnchoredStream: Sendable {
    public let head: AnchoredResult
    public let samples: AsyncThrowingStream<AnchoredPart, any Error>

    public init(head: AnchoredResult, samples: AsyncThrowingStream<AnchoredPart, any Error>) {
        self.head = head
        self.samples = samples
    }
}

/// A part of an anchored answer's samples, in anchor order, with what a read cut off after any of
/// them resumes from.
public struct AnchoredPart: Sendable {
    public let samples: SampleTable
    /// Each row's anchor (its position in the owner's change sequence).
    let anchors: [Int64]
    /// Makes a row's anchor the caller's: the answer's owner, the purge horizon it started from
    /// (it has not caught up), and the store's key.
    let owner: Int64
    let horizon: Int64
    let key: Data

    /// The anchor of the sample in row `row`: a read from it goes on with the samples after that one.
    /// The answer's deletions come after its samples, so the ones before it are not read again.
    public func anchor(ofRow row: Int) -> Data {
        AnchorToken(owner: owner, sequence: anchors[row], horizon: horizon).encoded(key: key)
    }
}

/// The time some changed objects cover: from the earliest start to the latest end.
public struct TimeSpan: Sendable, Hashable {
    public var start: Microseconds
    public var end: Microseconds

    public init(start: Microseconds, end: Microseconds) {
        self.start = start
        self.end = end
    }

    /// The smallest span covering both.
    public func union(_ other: TimeSpan) -> TimeSpan {
        TimeSpan(start: min(start, other.start), end: max(end, other.end))
    }
}

/// One commit's effect on one owner, published on the change feed after the commit.
public struct ChangeEvent: Sendable, Hashable {
    public let owner: OwnerID
    /// Per type with inserted or deleted objects, the time those objects cover (so a long-running
    /// statistics collection recomputes only the buckets they touch).
    public let spans: [String: TimeSpan]
    /// Bundle ids that saved or lost objects in this commit.
    public let sources: Set<String>

    /// Types with inserted or deleted objects.
    public var types: Set<String> { Set(spans.keys) }

    public init(owner: OwnerID, spans: [String: TimeSpan], sources: Set<String>) {
        self.owner = owner
        self.spans = spans
        self.sources = sources
    }
}

/// What the change feed carries. `.data` comes from every commit; the others only from commits of
/// other nodes sharing the database (a node's server handles its own as it makes them).
public enum StoreEvent: Sendable, Hashable {
    /// Objects saved or deleted.
    case data(ChangeEvent)
    /// An app's permission states changed, or it asked for new ones (the owner's pending requests);
    /// no bundle id: any app of the owner.
    case permissions(owner: OwnerID, bundleIDs: Set<String>)
    /// The owner reordered a type's sources.
    case sourcePriority(owner: OwnerID, type: String)
    /// An app's tokens were revoked or rotated: its live connections must end.
    case credentials(owner: OwnerID, bundleID: String)
    /// Other nodes' events may have been missed (the link to them was down): refresh everything.
    case missed
}

/// A permission state to record for one app (the server applies the policy); the store stamps
/// the time of the write.
public struct AuthorizationUpdate: Sendable, Hashable {
    public let bundleID: String
    public let type: String
    public let direction: AccessDirection
    public let state: PermissionState

    public init(bundleID: String, type: String, direction: AccessDirection, state: PermissionState) {
        self.bundleID = bundleID
        self.type = type
        self.direction = direction
        self.state = state
    }
}

/// The durable store. Nothing above HealthStorage knows which engine implements it.
public protocol Store: Sendable {
    // MARK: identity
    /// Creates an owner and returns its token (shown once; only its hash is stored).
    func addOwner(name: String) async throws -> (OwnerID, token: String)
    func listOwners() async throws -> [(OwnerID, name: String)]
    /// Creates the operator token when none exists; returns it, or nil when one already existed.
    func ensureOperatorToken() async throws -> String?
    /// The principal a token belongs to, or nil (constant-time comparison of hashes).
    func authenticate(token: String) async throws -> Principal?
    func registerApp(owner: OwnerID, bundleID: String, name: String) async throws -> String
    func rotateAppToken(owner: OwnerID, bundleID: String) async throws -> String
    func revokeApp(owner: OwnerID, bundleID: String) async throws
    func listApps(owner: OwnerID) async throws -> [AppInfo]

    // MARK: authorization state
    /// Current permission state per (type, direction) for an app, with when it was last recorded;
    /// missing = never requested.
    func permissions(owner: OwnerID, bundleID: String) async throws -> [Permission]
    /// Records states (requests as .pending, decisions as .granted/.denied).
    func setPermissions(owner: OwnerID, _ updates: [AuthorizationUpdate]) async throws
    /// Pending requests of an owner, optionally of one app, with request times.
    func pendingRequests(owner: OwnerID, bundleID: String?) async throws -> [(AuthorizationUpdate, Microseconds)]

    // MARK: writes
    /// Atomically saves a validated batch; one outcome per object.
    func save(_ batch: SaveBatch) async throws -> [SaveOutcome]
    /// `save` for a caller that is not a task: `completion` runs on `queue` once the batch is committed
    /// or has failed (also when the store is closed: never before this returns).
    func save(_ batch: SaveBatch, on queue: any CompletionQueue,
              then completion: @escaping @Sendable (Result<[SaveOutcome], any Error>) -> Void)
    /// Atomically deletes; returns the number of objects deleted.
    func deleteObjects(uuids: [UUID], by deleter: Deleter) async throws -> Int
    func deleteObjects(type: String, predicate: QueryPredicate?, by deleter: Deleter) async throws -> Int

    // MARK: series builders
    /// Opens the builder (first call) and appends validated points; returns how many it holds now. The
    /// owner (`byOwner`) names any open builder, and opens one as `insert.sourceRevision` when given (an import).
    func insertSeriesData(owner: OwnerID, _ insert: SeriesInsert, revision: SourceRevision, defaultDevice: Device?,
                          byOwner: Bool) async throws -> Int
    /// Saves the builder's sample as the revision that opened it and closes the builder; only the
    /// app that opened it may finish it (the finisher's bundle id), and an app's route only with its own workout.
    func finishSeries(owner: OwnerID, _ finish: SeriesFinish, by finisher: Deleter) async throws -> [Sample]
    /// Drops an open builder of the app (the owner: any open builder) and its points.
    func discardSeries(owner: OwnerID, builder: UUID, bundleID: String, byOwner: Bool) async throws
    /// The type an open builder of the app builds; nil when the app has no such builder.
    func seriesBuilderType(owner: OwnerID, builder: UUID, bundleID: String) async throws -> String?
    /// Up to `limit` points of a stored series sample from point `start` on (the caller checked it may read it).
    func seriesData(owner: OwnerID, sample: Sample, from start: Int, limit: Int) async throws -> SeriesPoints

    // MARK: reads
    func querySamples(owner: OwnerID, types: [String], predicate: QueryPredicate?, sort: [SampleSortDescriptor],
                      limit: Int, scope: ReadScope) async throws -> [Sample]
    func queryAnchored(owner: OwnerID, types: [String], predicate: QueryPredicate?, anchor: Data?, limit: Int,
                       scope: ReadScope) async throws -> AnchoredResult
    /// `queryAnchored` with its samples handed over in tables of at most `partRows` rows as they are
    /// read, so the caller can send one while the store reads the next. The store reads on without
    /// waiting for the caller (its read transaction never lasts longer than the read); the parts
    /// not yet taken are held meanwhile, at most the whole answer. Ending the iteration stops the read.
    func streamAnchored(owner: OwnerID, types: [String], predicate: QueryPredicate?, anchor: Data?, limit: Int,
                        scope: ReadScope, partRows: Int) async throws -> AnchoredStream
    /// Quantity samples of one type matching the predicate, in canonical units, handed to `sink` in
    /// ascending start order as they are read (no array of rows in between); returns the filled sink.
    func statisticsSamples<Sink: StatInputSink>(owner: OwnerID, type: String, predicate: QueryPredicate?, scope: ReadScope,
                                                into sink: Sink) async throws -> Sink
    func querySources(owner: OwnerID, type: String, predicate: QueryPredicate?, scope: ReadScope) async throws -> [Source]
    func queryDevices(owner: OwnerID, type: String?, scope: ReadScope) async throws -> [Device]
    /// How many samples `querySamples` with the same types, predicate and scope would return, per type,
    /// source and device; ordered by type, then bundle id.
    func countSamples(owner: OwnerID, types: [String], predicate: QueryPredicate?, scope: ReadScope) async throws -> [SampleCount]
    /// The current anchor of an owner, past every change so far: for the server's own long-running
    /// queries only (it moves with every source's writes).
    func currentAnchor(owner: OwnerID) async throws -> Data

    // MARK: quantity series (HKQuantitySeriesSampleBuilder, HKQuantitySeriesSampleQuery)
    /// Appends a batch of points to an open builder (its type and start date), checked against the points
    /// it holds; returns how many it holds now.
    func appendQuantityPoints(owner: OwnerID, builder: UUID, type: String, start: Microseconds,
                              _ points: [QuantitySeriesPoint]) async throws -> Int
    /// Saves the quantity sample a builder's points make (UUID = builder id) as `revision`'s; returns it as stored.
    func finishQuantitySeries(owner: OwnerID, builder: UUID, type: String, start: Microseconds, end: Microseconds?,
                              metadata: Metadata, device: Device?, revision: SourceRevision) async throws -> Sample
    /// Up to `limit` points of a readable quantity sample from point `start` on; an ordinary sample is one point.
    func quantitySeriesPoints(owner: OwnerID, of sample: Sample, from start: Int, limit: Int) async throws -> [QuantitySeriesPoint]

    // MARK: characteristics and source order
    func characteristics(owner: OwnerID) async throws -> Characteristics
    func writeCharacteristics(owner: OwnerID, _ update: Characteristics) async throws
    /// Owner-set order (highest first) for a type.
    func sourcePriority(owner: OwnerID, type: String) async throws -> [String]
    func setSourcePriority(owner: OwnerID, type: String, bundleIDs: [String]) async throws
    /// Sources that saved a type, with when each was first seen (for default ordering).
    func sourcesFirstSeen(owner: OwnerID, type: String) async throws -> [(Source, Microseconds)]

    // MARK: change feed and lifecycle
    /// Calls `handler` after every commit that changed data, and with what other nodes sharing the
    /// database committed (see `StoreEvent`); returns a token for `unsubscribe`.
    func subscribe(_ handler: @escaping @Sendable (StoreEvent) -> Void) -> Int
    func unsubscribe(_ token: Int)
    /// Finishes queued writes and closes.
    func close() async
    /// Group commits and file sizes for the operator's metrics; nil when the engine keeps none.
    var metrics: StoreMetrics? { get }
    /// True when a token can be revoked or rotated only through this store object (one node per
    /// store), so the server may remember the tokens it checked; false when other nodes share it.
    var credentialsChangeOnlyHere: Bool { get }
}

extension Store {
    public var metrics: StoreMetrics? { nil }
    public var credentialsChangeOnlyHere: Bool { false }

    /// `statisticsSamples(…, into:)` collected into an array.
    public func statisticsSamples(owner: OwnerID, type: String, predicate: QueryPredicate?, scope: ReadScope) async throws -> [StatInput] {
        try await statisticsSamples(owner: owner, type: type, predicate: predicate, scope: scope, into: [])
    }
}
