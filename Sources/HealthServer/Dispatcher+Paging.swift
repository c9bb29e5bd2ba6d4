import HealthModel
import HealthWire

// Streaming large answers in pages under one call id.
extension Dispatcher {
    /// Items per page to try first; halved whenever a page does not fit one frame.
    private static let firstPageSize = 512

    /// Sends `items` in pages (at least one, possibly empty) that each fit one frame; `page` learns
    /// whether it builds the last one. The last page ends the call when `final`; otherwise more
    /// answers follow (long-running calls). Each page waits for output room, keeping the call's
    /// turn until the last.
    func sendPaged<T>(_ items: [T], reply: CallReplier, final: Bool, page: ([T], _ isLast: Bool) -> ServerResult) async throws {
        try await sendPaged(count: items.count, reply: reply, final: final) { range, isLast in page(Array(items[range]), isLast) }
    }

    /// `sendPaged` over `count` items that `page` takes by position, for answers kept in more than one
    /// list. `followed`: more pages of the same answer follow these (it arrives in parts), so none of
    /// these is its last and the call keeps its turn.
    func sendPaged(count: Int, reply: CallReplier, final: Bool, followed: Bool = false,
                   page: (Range<Int>, _ isLast: Bool) -> ServerResult) async throws {
        var start = 0
        var size = Self.firstPageSize
        repeat {
            try await reply.room()
            let end = min(count, start + size)
            let isLast = end == count && !followed
            if await reply.trySend(page(start..<end, isLast), more: !(final && isLast), pageFollows: !isLast) {
                start = end
            } else if end - start > 1 {
                size = max(1, (end - start) / 2)
            } else {
                throw HealthError(.dataSizeExceeded, "one object of the answer is larger than the \(config.maxFrameBytes)-byte frame limit")
            }
        } while start < count
    }
}
