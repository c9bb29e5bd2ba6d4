import Foundation
import HealthClient
import HealthModel

/// The anchored pages of an export in the order they are written: one anchored read of every type
/// asked, with no limit, in anchor order (the order the samples were saved or last changed), which
/// the server streams in pages while it reads (`anchoredPages`, read no faster than the writer takes
/// them, so memory stays bounded by the pages waiting). One read rather than one a type: the store
/// reads every type's rows in one pass, where a read a type visits each of PostgreSQL's heap pages
/// once for every type whose rows it holds, and the server keeps streaming with no gap between types.
/// A read cut off by a lost connection (or a server restart) goes on from the anchor of the last
/// sample handed on, which every page carries (`AnchoredBatch.lastSampleAnchor`): the samples after
/// it come next. That read sees the store as it is then, so it also holds what was saved or changed
/// since the first one began, which may be a sample already handed on (see `WrittenOnce`); its pages
/// say so (`Page.resumed`).
struct ExportPages {
    /// One page of the export's anchored read.
    struct Page: Sendable {
        let batch: AnchoredBatch
        /// From a read that went on after a cut, in a later snapshot than the first.
        let resumed: Bool
    }

    /// The pages of the anchored read after `anchor` (nil: from the start).
    typealias Read = @Sendable (_ anchor: Data?) -> AsyncThrowingStream<AnchoredBatch, any Error>

    /// Reads again in a row without a page handed on in between, before giving up.
    static let rereads = 3

    private let read: Read
    /// The current read's pages; nil before the first and after a cut.
    private var pages: AsyncThrowingStream<AnchoredBatch, any Error>.AsyncIterator?
    /// The anchor of the last sample handed on (empty: its page did not say).
    private var handedThrough: Data?
    private var rereadsInARow = 0
    /// The read was opened again after a cut.
    private var resumed = false
    private var finished = false

    init(read: @escaping Read) {
        self.read = read
    }

    /// The next page to write, nil once the read is done.
    mutating func next() async throws -> Page? {
        while !finished {
            if pages == nil { pages = read(handedThrough).makeAsyncIterator() }
            let batch: AnchoredBatch?
            do {
                batch = try await pages?.next()
            } catch let error as HealthError where error.code == .unavailable && rereadsInARow < Self.rereads {
                if handedThrough?.isEmpty == true {
                    // An older server's pages do not say where they end: the read could only start over.
                    throw HealthError(.unavailable, "the connection was lost while exporting, and the server (an older "
                        + "healthd) does not say where the export had reached; export again")
                }
                (rereadsInARow, resumed, pages) = (rereadsInARow + 1, true, nil)
                continue
            }
            guard let batch else {
                finished = true
                break
            }
            guard !batch.table.isEmpty else { continue }
            handedThrough = batch.lastSampleAnchor
            rereadsInARow = 0
            return Page(batch: batch, resumed: resumed)
        }
        return nil
    }
}

/// Keeps an export to one line a sample when its read went on after a cut. The later read holds
/// what was saved or changed after the first began: a newer version of a sample already written
/// (saved again with a greater sync version: the same app and sync identifier, a new UUID) or a
/// workout or correlation whose contents changed (the same UUID at a new anchor). Neither is written
/// again: the file keeps what it holds, as an uninterrupted export would. Only samples that can come
/// again are remembered, those with a sync identifier and workouts and correlations, never a plain
/// row (no metadata); and at most `limit` of them: past it a resumed read's sample that could have
/// come again cannot be told apart, so the export stops there (as when an older server's pages do
/// not say where they end) rather than keep memory growing with the export or write a sample twice.
struct WrittenOnce {
    private struct SyncKey: Hashable {
        let bundleID: String?
        let identifier: String
    }

    /// The most entries remembered (about 100 bytes each; a workout or correlation with a sync
    /// identifier takes two).
    let limit: Int
    private var holders: Set<UUID> = []
    private var syncKeys: Set<SyncKey> = []
    /// More than `limit` samples that can come again were written.
    private var overflowed = false

    init(limit: Int = 200_000) {
        self.limit = limit
    }

    /// The entries remembered.
    var remembered: Int { holders.count + syncKeys.count }

    /// Whether to write `sample` (a page's sample decoded whole); a sample to write is remembered.
    /// Throws for a resumed page's sample that could have come again once more than `limit` were written.
    mutating func admit(_ sample: Sample, from page: ExportPages.Page) throws(HealthError) -> Bool {
        let holder: Bool
        switch sample.body {
        case .correlation, .workout: holder = true
        default: holder = false
        }
        let key = sample.syncKey.map { SyncKey(bundleID: sample.sourceRevision?.source.bundleID, identifier: $0.identifier) }
        guard holder || key != nil else { return true }
        if page.resumed {
            if overflowed {
                throw HealthError(.unavailable, "the connection was lost while exporting, after more than \(limit) samples that "
                    + "could be saved again meanwhile were written: too many to remember which; export again")
            }
            if (holder && holders.contains(sample.uuid)) || key.map(syncKeys.contains) == true { return false }
        }
        guard remembered + (holder ? 1 : 0) + (key == nil ? 0 : 1) <= limit else {
            overflowed = true
            return true
        }
        if holder { holders.insert(sample.uuid) }
        if let key { syncKeys.insert(key) }
        return true
    }
}
