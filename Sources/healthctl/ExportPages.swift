import Foundation
import HealthClient
import HealthModel

/// The anchored pages of an export in the order they are written, type by type and each type's in
/// anchor order. Each type is one anchored read with no limit, which the server streams in pages
/// while it reads (`anchoredPages`, read no faster than the writer takes them, so memory stays
/// bounded by the pages waiting). Up to `readsAtOnce` types are read at once: the later ones' first
/// pages are asked for while the earlier ones are written, so the server reads while the export
/// writes, and their pages wait under the same bound. A read cut off by a lost connection is read
/// again from the type's start, skipping every sample up to the last one handed on (found by its
/// UUID: samples keep their place in anchor order, and later saves come after it), as a paged export
/// asked for its next page again.
struct ExportPages {
    /// One page of a type's anchored read.
    struct Page: Sendable {
        let type: String
        let batch: AnchoredBatch
    }

    /// The pages of the whole anchored read of `type`, the `index`th of the types asked for (reads
    /// open at once have indices less than `readsAtOnce` apart, so `index % readsAtOnce` can pick
    /// a connection of their own).
    typealias Read = @Sendable (_ type: String, _ index: Int) -> AsyncThrowingStream<AnchoredBatch, any Error>

    /// Reads of one type again in a row without a page handed on in between, before giving up.
    static let rereads = 3

    /// A type's read, opened: its first page asked for at once, so the server starts on it.
    private struct Opened {
        let type: String
        let index: Int
        let pages: AsyncThrowingStream<AnchoredBatch, any Error>
        let first: Task<AnchoredBatch?, any Error>

        init(_ type: String, index: Int, read: Read) {
            (self.type, self.index) = (type, index)
            let pages = read(type, index)
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
    /// The current type's last sample handed on.
    private var lastHanded: UUID?
    /// After a read again: the sample the pages are skipped through.
    private var skipping: UUID?
    private var rereadsInARow = 0

    init(types: [String], readsAtOnce: Int = 1, read: @escaping Read) {
        self.read = read
        self.readsAtOnce = max(1, readsAtOnce)
        waiting = Array(types.enumerated())[...]
    }

    /// The next page to write, nil once every type is read.
    mutating func next() async throws -> Page? {
        while true {
            while opened.count < readsAtOnce, let (index, type) = waiting.popFirst() {
                opened.append(Opened(type, index: index, read: read))
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
                rereadsInARow += 1
                skipping = lastHanded
                pages = nil
                opened[0] = Opened(current.type, index: current.index, read: read)
                continue
            }
            guard var batch else {
                if let skipping {
                    throw HealthError(.unavailable, "the connection was lost while exporting \(current.type), and the sample the export "
                        + "had reached (\(skipping.uuidString)) was deleted before it was read again; export again")
                }
                opened.removeFirst()
                (pages, lastHanded) = (nil, nil)
                continue
            }
            if let through = skipping {
                // Every sample up to and including `through` was handed on before the read was cut off.
                guard let index = batch.table.rows.firstIndex(where: { $0.uuid == through }) else { continue }
                batch.table = batch.table.rows((index + 1)..<batch.table.count)
                skipping = nil
            }
            guard let last = batch.table.rows.last else { continue }
            lastHanded = last.uuid
            rereadsInARow = 0
            return Page(type: current.type, batch: batch)
        }
    }
}
