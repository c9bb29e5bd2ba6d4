import Foundation
import HealthClient
import HealthModel

/// The anchored pages of an export in the order they are written, type by type and each type's in
/// anchor order. Each type is one anchored read with no limit, which the server streams in pages
/// while it reads (`anchoredPages`, read no faster than the writer takes them, so memory stays
/// bounded by the pages waiting). Up to `readsAtOnce` types are read at once: the later ones' first
/// pages are asked for while the earlier ones are written, so the server reads while the export
/// writes, and their pages wait under the same bound. A read cut off by a lost connection (or a
/// server restart) goes on from the anchor of the last sample handed on, which every page carries
/// (`AnchoredBatch.lastSampleAnchor`): the samples after it come next. That read sees the store as
/// it is then, so it also holds what was saved or changed since the first one began, which may be
/// a sample already handed on (see `WrittenOnce`); its pages say so (`Page.resumed`).
struct ExportPages {
    /// One page of a type's anchored read.
    struct Page: Sendable {
        let type: String
        let batch: AnchoredBatch
        /// From a read that went on after a cut, in a later snapshot than the type's first.
        let resumed: Bool
    }

    /// The pages of the anchored read of `type` after `anchor` (nil: from its start), the `index`th
    /// of the types asked for (reads open at once have indices less than `readsAtOnce` apart, so
    /// `index % readsAtOnce` can pick a connection of their own).
    typealias Read = @Sendable (_ type: String, _ index: Int, _ anchor: Data?) -> AsyncThrowingStream<AnchoredBatch, any Error>

    /// Reads of one type again in a row without a page handed on in between, before giving up.
    static let rereads = 3

    /// A type's read, opened: its first page asked for at once, so the server starts on it.
    private struct Opened {
        let type: String
        let index: Int
        let pages: AsyncThrowingStream<AnchoredBatch, any Error>
        let first: Task<AnchoredBatch?, any Error>

        init(_ type: String, index: Int, after anchor: Data?, read: Read) {
            (self.type, self.index) = (type, index)
            let pages = read(type, index, anchor)
            self.pages = pages
            first = Task {
                var iterator = pages.makeAsyncIterator()
                return try await iterator.next()
            }
        }
    }

    private let read: Read
    private let readsAtOnce: Int
    private var waiting: ArraySlice<(offset: Int, element: String)>
    /// The reads open, the current type's first.
    private var opened: [Opened] = []
    /// The current type's pages after its first.
    private var pages: AsyncThrowingStream<AnchoredBatch, any Error>.AsyncIterator?
    /// The anchor of the current type's last sample handed on (empty: its page did not say).
    private var handedThrough: Data?
    private var rereadsInARow = 0
    /// The current type's read was opened again after a cut.
    private var resumed = false

    init(types: [String], readsAtOnce: Int = 1, read: @escaping Read) {
        self.read = read
        self.readsAtOnce = max(1, readsAtOnce)
        waiting = Array(types.enumerated())[...]
    }

    /// The next page to write, nil once every type is read.
    mutating func next() async throws -> Page? {
        while true {
            while opened.count < readsAtOnce, let (index, type) = waiting.popFirst() {
                opened.append(Opened(type, index: index, after: nil, read: read))
            }
            guard let current = opened.first else { return nil }
            let batch: AnchoredBatch?
            do {
                if pages == nil {
                    batch = try await current.first.value
                    pages = current.pages.makeAsyncIterator()
                } else {
                    batch = try await pages?.next()
                }
            } catch let error as HealthError where error.code == .unavailable && rereadsInARow < Self.rereads {
                if handedThrough?.isEmpty == true {
                    // An older server's pages do not say where they end: the read could only start over.
                    throw HealthError(.unavailable, "the connection was lost while exporting \(current.type), and the server (an "
                        + "older healthd) does not say where the export had reached; export again")
                }
                rereadsInARow += 1
                resumed = true
                pages = nil
                opened[0] = Opened(current.type, index: current.index, after: handedThrough, read: read)
                continue
            }
            guard let batch else {
                opened.removeFirst()
                (pages, handedThrough, resumed) = (nil, nil, false)
                continue
            }
            guard !batch.table.isEmpty else { continue }
            handedThrough = batch.lastSampleAnchor
            rereadsInARow = 0
            return Page(type: current.type, batch: batch, resumed: resumed)
        }
    }
}

/// Keeps a type's export to one line a sample when its read went on after a cut. The later read
/// holds what was saved or changed after the first began: a newer version of a sample already
/// written (saved again with a greater sync version: the same app and sync identifier, a new UUID)
/// or a workout or correlation whose contents changed (the same UUID at a new anchor). Neither is
/// written again: the file keeps what it holds, as an uninterrupted export would. Only samples that
/// can come again are remembered, those with a sync identifier and workouts and correlations, never
/// a plain row (no metadata), and only for the current type; and at most `limit` of them: past it a
/// resumed read's sample that could have come again cannot be told apart, so the export stops
/// there (as when an older server's pages do not say where they end) rather than keep memory
/// growing with the type or write a sample twice.
struct WrittenOnce {
    private struct SyncKey: Hashable {
        let bundleID: String?
        let identifier: String
    }

    /// The most entries remembered for a type (about 100 bytes each; a workout or correlation with a
    /// sync identifier takes two).
    let limit: Int
    private var holders: Set<UUID> = []
    private var syncKeys: Set<SyncKey> = []
    /// More than `limit` samples that can come again were written for the current type.
    private var overflowed = false

    init(limit: Int = 200_000) {
        self.limit = limit
    }

    /// The entries remembered for the current type.
    var remembered: Int { holders.count + syncKeys.count }

    /// The next type begins: what came before cannot come again in its reads.
    mutating func nextType() {
        holders.removeAll()
        syncKeys.removeAll()
        overflowed = false
    }

    /// Whether to write `sample` (a page's sample decoded whole) of a page of the current type;
    /// a sample to write is remembered. Throws for a resumed page's sample that could have come
    /// again once more than `limit` were written.
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
                throw HealthError(.unavailable, "the connection was lost while exporting \(page.type) after more than \(limit) "
                    + "samples that could be saved again meanwhile, too many to remember which were written; export again")
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
