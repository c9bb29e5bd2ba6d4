import Foundation
import HealthModel
import HealthWire

/// Anything that can run protocol calls: a `HealthConnection`, or a `ReconnectingClient` that
/// re-dials underneath. The typed API (HealthCalling+Calls.swift) is built on these two methods.
public protocol HealthCalling: Sendable {
    /// Every answer to `call` until its last one.
    func results(_ call: ClientCall) async throws -> [ServerResult]
    /// The answers to `call` as they arrive; stopping iteration cancels the call on the server.
    func stream(_ call: ClientCall) -> AsyncThrowingStream<ServerResult, any Error>
    /// `stream` with the connection reading only while fewer than `waiting` answers wait to be
    /// taken (see `HealthConnection.pacedStream`); other calls on the connection wait with it.
    func pacedStream(_ call: ClientCall, waiting: Int) -> AsyncThrowingStream<ServerResult, any Error>
}

/// A new app's (or a rotated) credential; the token is shown only this once.
public struct AppCredential: Sendable, Hashable {
    public let app: Source
    public let token: String
}

/// A new owner's credential; the token is shown only this once.
public struct OwnerCredential: Sendable, Hashable {
    public let name: String
    public let token: String
}

/// One answer of an anchored query: added samples, deletions and the anchor to resume from.
public struct AnchoredBatch: Sendable, Hashable {
    /// The added samples as they arrive: plain ones as rows sharing their types, devices and sources.
    public var table: SampleTable
    public var samples: [Sample] {
        get { Array(table) }
        set { table = SampleTable(newValue) }
    }
    public var deleted: [DeletedObject]
    /// Pass this as the next query's anchor.
    public var anchor: Data
    /// True for the initial result set, false for updates.
    public var initial: Bool
    /// True on the last page of the initial result set: what follows are updates.
    public var initialComplete: Bool
    /// The anchor of this page's last sample (empty without samples): a read cut off after this page
    /// goes on from it with the samples after that one (the answer's deletions before it are not sent again).
    public var lastSampleAnchor: Data

    public init(samples: [Sample] = [], deleted: [DeletedObject] = [], anchor: Data = Data(), initial: Bool = true,
                initialComplete: Bool = false, lastSampleAnchor: Data = Data()) {
        self.init(table: SampleTable(samples), deleted: deleted, anchor: anchor, initial: initial, initialComplete: initialComplete,
                  lastSampleAnchor: lastSampleAnchor)
    }

    public init(table: SampleTable, deleted: [DeletedObject] = [], anchor: Data = Data(), initial: Bool = true,
                initialComplete: Bool = false, lastSampleAnchor: Data = Data()) {
        self.table = table
        self.deleted = deleted
        self.anchor = anchor
        self.initial = initial
        self.initialComplete = initialComplete
        self.lastSampleAnchor = lastSampleAnchor
    }
}

/// One answer of a statistics collection: every bucket (initial) or the changed buckets (update).
public struct StatisticsCollectionUpdate: Sendable, Hashable {
    public let buckets: [Statistics]
    public let initial: Bool
    /// True on the last page of the initial buckets: what follows are updates.
    public let initialComplete: Bool
}
