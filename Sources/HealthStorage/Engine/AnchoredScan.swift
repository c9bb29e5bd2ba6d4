import Foundation
import HealthModel

/// What is left to read of a streamed anchored answer once its head is known: its samples after
/// `after` through `last` (nil: not known), read in the snapshot whose owner's last anchor is `storeAnchor`.
struct AnchoredSamples: Sendable {
    let owner: Int64
    let types: [(type: HealthType, id: Int64)]
    let predicate: QueryPredicate?
    let scope: ReadScope
    let after: Int64
    let last: Int64?
    let storeAnchor: Int64
    /// The purge horizon the caller's anchor started from, which its parts' anchors keep.
    let horizon: Int64
    let key: Data

    /// `rows` with their anchors, as a part of this answer.
    func part(_ rows: SampleTable, anchors: [Int64]) -> AnchoredPart {
        AnchoredPart(samples: rows, anchors: anchors, owner: owner, horizon: horizon, key: key)
    }
}

/// The samples of a streamed anchored read cut into ranges of anchors that reader threads claim in
/// turn, each on its own connection, and handed over in anchor order whichever thread read them: a
/// range's parts go out as they are read while it is the first range not yet handed over, and are
/// held until then otherwise. The stream ends (`end`) once every range is handed over, at the first
/// error, or when `deliver` refuses a part.
final class AnchoredScan: @unchecked Sendable {
    // Everything below `lock` is touched only with it held.
    let samples: AnchoredSamples
    let partRows: Int
    /// Range `i` is the anchors after `bounds[i]` through `bounds[i + 1]`.
    private let bounds: [Int64]
    private let deliver: (AnchoredPart) -> Bool
    private let end: (HealthError?) -> Void
    private let lock = NSLock()
    private var claimed = 0
    /// The first range not yet handed over whole; its parts go out as they come.
    private var sending = 0
    private var held: [Int: [AnchoredPart]] = [:]
    private var finished: Set<Int> = []
    private var ended = false

    /// Anchors per range: a few parts' worth, so a thread joining late still finds ranges left and
    /// a range read ahead of its turn holds little.
    static func rangeAnchors(partRows: Int) -> Int64 { Int64(min(partRows, 1 << 20)) * 16 }

    /// `samples.last` must be known.
    init(_ samples: AnchoredSamples, partRows: Int, deliver: @escaping (AnchoredPart) -> Bool, end: @escaping (HealthError?) -> Void) {
        self.samples = samples
        self.partRows = partRows
        self.deliver = deliver
        self.end = end
        let last = samples.last ?? samples.after
        bounds = Array(stride(from: samples.after, to: last, by: Int(Self.rangeAnchors(partRows: partRows)))) + [last]
    }

    /// Ranges the read is cut into.
    var rangeCount: Int { bounds.count - 1 }

    /// The next range nobody has claimed (nil: none left, or the stream has ended).
    func claim() -> (index: Int, after: Int64, through: Int64)? {
        lock.lock()
        defer { lock.unlock() }
        guard !ended, claimed < rangeCount else { return nil }
        claimed += 1
        return (claimed - 1, bounds[claimed - 1], bounds[claimed])
    }

    /// Whether ranges are left to claim.
    var hasUnclaimed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !ended && claimed < rangeCount
    }

    /// Hands over a part of range `index`, or holds it until the ranges before it are handed
    /// over; false once the stream has ended (the reader stops).
    func hand(_ table: AnchoredPart, of index: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !ended else { return false }
        if index == sending {
            send(table)
        } else {
            held[index, default: []].append(table)
        }
        return !ended
    }

    /// Range `index` has been read whole; hands over what later ranges hold as their turn comes.
    func finish(_ index: Int) {
        lock.lock()
        defer { lock.unlock() }
        finished.insert(index)
        while !ended, finished.contains(sending) {
            sending += 1
            for table in held.removeValue(forKey: sending) ?? [] where !ended { send(table) }
        }
        if !ended, sending == rangeCount { stop(nil) }
    }

    /// Ends the stream with `error` (nothing more is handed over).
    func fail(_ error: HealthError) {
        lock.lock()
        defer { lock.unlock() }
        if !ended { stop(error) }
    }

    private func send(_ table: AnchoredPart) {
        if !deliver(table) { stop(nil) }
    }

    private func stop(_ error: HealthError?) {
        ended = true
        held.removeAll()
        end(error)
    }
}

extension ReadContext {
    /// Reads ranges of `scan` until none is left, or until `keepReading` says to stop after a range;
    /// returns how many it read. Runs inside the caller's read transaction, which must see the
    /// snapshot the scan's head was read in.
    @discardableResult
    func read(_ scan: AnchoredScan, keepReading: () -> Bool = { true }) -> Int {
        var ranges = 0
        do throws(HealthError) {
            var rows = try sampleTableRows(scan.samples.scope, owner: scan.samples.owner)
            while let range = scan.claim() {
                let read = try readSamples(scan.samples, after: range.after, through: range.through, partRows: scan.partRows,
                                           into: &rows) { scan.hand($0, of: range.index) }
                guard read.reading else { break }
                scan.finish(range.index)
                ranges += 1
                guard keepReading() else { break }
            }
        } catch {
            scan.fail(error)
        }
        return ranges
    }

    /// Reads ranges of `scan` beside the thread that read its head, if this connection's snapshot is
    /// that one as far as the owner's samples go: every transaction that changes an owner's samples
    /// moves the owner's last anchor (LastAnchorTests runs every write path to hold it), so a
    /// snapshot with the same last anchor holds the same sample rows of the owner, the only rows read
    /// here. A purge of tombstones leaves the anchor, but deletions are read with the head, in its
    /// snapshot. Otherwise (a commit came between the two) it reads nothing and the other thread
    /// reads on alone. Returns how many ranges it read.
    @discardableResult
    func help(_ scan: AnchoredScan, keepReading: () -> Bool = { true }) -> Int {
        guard scan.hasUnclaimed else { return 0 }
        do {
            return try snapshot { () throws(HealthError) -> Int in
                guard try lastAnchor(owner: scan.samples.owner) == scan.samples.storeAnchor else { return 0 }
                return read(scan, keepReading: keepReading)
            }
        } catch {
            // The snapshot could not be opened: the head's thread reads on alone.
            return 0
        }
    }
}
