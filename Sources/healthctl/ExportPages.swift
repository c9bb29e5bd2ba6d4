import Foundation
import HealthClient
import HealthModel

/// The anchored pages of an export in the order they are written, type by type and each type's in
/// anchor order. Each type is one anchored read with no limit, which the server streams in pages
/// while it reads (`anchoredPages`, read no faster than the writer takes them, so memory stays
/// bounded by the pages waiting). A read cut off by a lost connection is read again from the
/// type's start, skipping every sample up to the last one handed on (found by its UUID: samples
/// keep their place in anchor order, and later saves come after it), as a paged export asked for
/// its next page again.
struct ExportPages {
    /// One page of a type's anchored read.
    struct Page: Sendable {
        let type: String
        let batch: AnchoredBatch
    }

    /// The pages of the whole anchored read of `type`.
    typealias Read = @Sendable (_ type: String) -> AsyncThrowingStream<AnchoredBatch, any Error>

    /// Reads of one type again in a row without a page handed on in between, before giving up.
    static let rereads = 3

    private let read: Read
    private var waiting: ArraySlice<String>
    private var type: String?
    private var pages: AsyncThrowingStream<AnchoredBatch, any Error>.AsyncIterator?
    /// The current type's last sample handed on.
    private var lastHanded: UUID?
    /// After a read again: the sample the pages are skipped through.
    private var skipping: UUID?
    private var rereadsInARow = 0

    init(types: [String], read: @escaping Read) {
        self.read = read
        waiting = types[...]
    }

    /// The next page to write, nil once every type is read.
    mutating func next() async throws -> Page? {
        while true {
            guard let type = self.type ?? waiting.popFirst() else { return nil }
            if self.type == nil { start(type) }
            let batch: AnchoredBatch?
            do {
                batch = try await pages?.next()
            } catch let error as HealthError where error.code == .unavailable && rereadsInARow < Self.rereads {
                rereadsInARow += 1
                skipping = lastHanded
                start(type)
                continue
            }
            guard var batch else {
                if let skipping {
                    throw HealthError(.unavailable, "the connection was lost while exporting \(type), and the sample the export "
                        + "had reached (\(skipping.uuidString)) was deleted before it was read again; export again")
                }
                self.type = nil
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
            return Page(type: type, batch: batch)
        }
    }

    private mutating func start(_ type: String) {
        if self.type != type { lastHanded = nil }
        self.type = type
        pages = read(type).makeAsyncIterator()
    }
}
