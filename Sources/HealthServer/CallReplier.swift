import HealthModel
import HealthWire

/// How a call's task answers. Messages are encoded on the calling thread, then handed to the
/// connection's loop, which writes them; `send` waits while the connection's output is above its
/// high-water mark, so a producer can never outrun a slow reader.
struct CallReplier: Sendable {
    let loop: EventLoop
    let connectionID: UInt64
    let callID: UInt64
    /// Distinguishes this call from a later one reusing the same call id.
    let serial: UInt64
    let maxFrameBytes: Int

    /// Sends one answer; `more` = further answers follow under this call id. An answer too large
    /// for one frame ends the call with DATA_SIZE_EXCEEDED.
    func send(_ result: ServerResult, more: Bool) async {
        if await !trySend(result, more: more) {
            await fail(HealthError(.dataSizeExceeded, "the answer is larger than the \(maxFrameBytes)-byte frame limit"))
        }
    }

    /// Sends one answer unless it is too large for one frame; returns false (nothing sent) then,
    /// so pagers can retry with a smaller page.
    func trySend(_ result: ServerResult, more: Bool) async -> Bool {
        let frame = WireCodec.encodeServerFrame(ServerMessage(callID: callID, more: more, result: result))
        guard frame.count - FrameEncoder.prefixBytes <= maxFrameBytes else { return false }
        await deliver(frame, final: !more)
        return true
    }

    /// Ends the call with an error.
    func fail(_ error: HealthError) async {
        await deliver(WireCodec.encodeServerFrame(ServerMessage(callID: callID, result: .error(error))), final: true)
    }

    private func deliver(_ frame: [UInt8], final: Bool) async {
        let (loop, connectionID, callID, serial) = (loop, connectionID, callID, serial)
        await withCheckedContinuation { (room: CheckedContinuation<Void, Never>) in
            let posted = loop.post {
                guard let connection = loop.connections[connectionID] else { return room.resume() }
                connection.deliver(frame, callID: callID, serial: serial, final: final, room: room)
            }
            if !posted { room.resume() }
        }
    }
}
