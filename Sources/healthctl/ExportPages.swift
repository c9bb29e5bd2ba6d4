import Foundation
import HealthClient
import HealthModel

/// The anchored pages of an export in the order they are written, type by type and each type's in
/// anchor order, read ahead of the writer so the server is never idle waiting for it: each type's
/// next page is asked for as soon as the page before it arrives (its anchor names where the next
/// starts), up to `depth` pages ahead, and the next `types` types are read at the same time (the
/// server reads them on separate threads). Memory stays bounded by `types` × (`depth` + 1) pages.
struct ExportPages {
    /// One page of a type's anchored read.
    struct Page: Sendable {
        let type: String
        let batch: AnchoredBatch
        /// True on the type's last page.
        let last: Bool
    }

    /// Reads the page of `type` after `anchor` (nil: from the start).
    typealias Fetch = @Sendable (_ type: String, _ anchor: Data?) async throws -> AnchoredBatch

    private let fetch: Fetch
    private let pageSize: Int
    private let depth: Int
    private let types: Int
    private var waiting: ArraySlice<String>
    /// The types being read, the one written first; each with its page reads, oldest first.
    private var reading: [[Task<Page?, any Error>]] = []

    /// Reads `types` of an export in pages of `pageSize` (what `fetch` asks the server for).
    init(types all: [String], pageSize: Int, depth: Int = 2, types: Int = 2, fetch: @escaping Fetch) {
        self.fetch = fetch
        self.pageSize = pageSize
        self.depth = max(1, depth)
        self.types = max(1, types)
        waiting = all[...]
        while reading.count < self.types, let type = waiting.popFirst() { start(type) }
    }

    /// The next page to write, nil once every type is read.
    mutating func next() async throws -> Page? {
        while !reading.isEmpty {
            let read = reading[0].removeFirst()
            let page = try await read.value
            if let page, !page.last {
                reading[0].append(chained(after: reading[0].last ?? read, type: page.type))
                return page
            }
            // The type is done: its reads still queued end without asking the server anything.
            reading.removeFirst()
            if let type = waiting.popFirst() { start(type) }
            if let page { return page }
        }
        return nil
    }

    /// Stops every read still running (when the export ends early).
    func cancel() {
        for reads in reading { for read in reads { read.cancel() } }
    }

    private mutating func start(_ type: String) {
        var reads = [chained(after: nil, type: type)]
        while reads.count < depth, let previous = reads.last { reads.append(chained(after: previous, type: type)) }
        reading.append(reads)
    }

    /// Reads the page after `previous` once it arrives; nil when `previous` was the type's last.
    private func chained(after previous: Task<Page?, any Error>?, type: String) -> Task<Page?, any Error> {
        Task { [fetch, pageSize] in
            var anchor: Data?
            if let previous {
                guard let page = try await previous.value, !page.last else { return nil }
                anchor = page.batch.anchor
            }
            let batch = try await fetch(type, anchor)
            // Deletions count toward the limit too; a short page (or one that did not move the anchor) is the last.
            let last = batch.table.count + batch.deleted.count < pageSize || batch.anchor == anchor
            return Page(type: type, batch: batch, last: last)
        }
    }
}
