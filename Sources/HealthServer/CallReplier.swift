import HealthModel
import HealthWire

/// Takes a call's answers in process instead of a connection (the HTTP API runs the same calls).
protocol AnswerReceiver: Sendable {
    /// One answer; `more` = further answers follow. A receiver that can take no more cancels the call.
    func receive(_ result: ServerResult, more: Bool) async
}

/// How a call's task answers. Messages are encoded on the calling thread, then handed to the
/// connection's loop, which writes them. A call whose answers can be large asks for `room` before
/// it produces each of them, so a client that does not read stops its answers being produced.
/// With a `receiver`, answers go to it unencoded, without frame limits or turns.
struct CallReplier: Sendable {
    let loop: EventLoop
    let connectionID: UInt64
    var receiver: (any AnswerReceiver)? = nil
    let callID: UInt64
    /// Distinguishes this call from a later one reusing the same call id.
    let serial: UInt64
    let maxFrameBytes: Int

    /// Waits until this call may produce its next answer: the connection's queued output (and all
    /// connections' together) is below its bound, and the call holds one of the connection's few
    /// turns to produce. The turn lasts until the call sends an answer that ends it (see `send`).
    /// Throws CancellationError when the call was cancelled meanwhile.
    func room() async throws {
        guard receiver == nil else { return try Task.checkCancellation() }
        let (loop, connectionID, callID, serial) = (loop, connectionID, callID, serial)
        await withCheckedContinuation { (room: CheckedContinuation<Void, Never>) in
            let posted = loop.post {
                guard let connection = loop.connections[connectionID] else { return room.resume() }
                connection.calls.requestRoom(callID: callID, serial: serial, room: room)
            }
            if !posted { room.resume() }
        }
        try Task.checkCancellation()
    }

    /// Runs `body` holding a turn (for each update of a long-running call): the turn ends with the
    /// body, also when it sends nothing.
    func producing<T>(_ body: () async throws -> T) async throws -> T {
        try await room()
        defer { endTurn() }
        return try await body()
    }

    /// Sends one answer, ending the call's turn; `more` = further answers follow under this call
    /// id. An answer too large for one frame ends the call with DATA_SIZE_EXCEEDED.
    func send(_ result: ServerResult, more: Bool) async {
        if await !trySend(result, more: more) { await fail(tooLarge) }
    }

    /// Sends the call's final answer: an error as it is, any other answer as `send` does.
    func end(with answer: ServerResult) async {
        if case .error(let error) = answer { await fail(error) } else { await send(answer, more: false) }
    }

    /// `end(with:)` for a call answered without a task, on the connection's loop thread.
    func endOnLoop(with answer: ServerResult) {
        let frame = encode(answer, more: false)
        if case .error = answer { return frame.withUnsafeBytes(deliverOnLoop) }
        frame.withUnsafeBytes(endOnLoop(withFrame:))
    }

    /// `endOnLoop(with:)` for an answer other than an error, already encoded as this call's final frame.
    func endOnLoop(withFrame frame: UnsafeRawBufferPointer) {
        if fits(frame.count) { return deliverOnLoop(frame) }
        encode(.error(tooLarge), more: false).withUnsafeBytes(deliverOnLoop)
    }

    private func deliverOnLoop(_ frame: UnsafeRawBufferPointer) {
        loop.connections[connectionID]?.calls.deliver(frame, callID: callID, serial: serial, final: true, endsTurn: true)
    }

    /// Sends one answer unless it is too large for one frame; returns false (nothing sent) then,
    /// so pagers can retry with a smaller page. `pageFollows` keeps the call's turn for the next
    /// page of the same answer.
    func trySend(_ result: ServerResult, more: Bool, pageFollows: Bool = false) async -> Bool {
        if let receiver {
            await receiver.receive(result, more: more)
            return true
        }
        let frame = encode(result, more: more)
        guard fits(frame.count) else { return false }
        deliver(frame, final: !more, endsTurn: !pageFollows)
        return true
    }

    /// Ends the call with an error.
    func fail(_ error: HealthError) async {
        if let receiver { return await receiver.receive(.error(error), more: false) }
        deliver(encode(.error(error), more: false), final: true, endsTurn: true)
    }

    private func encode(_ result: ServerResult, more: Bool) -> [UInt8] {
        WireCodec.encodeServerFrame(ServerMessage(callID: callID, more: more, result: result))
    }

    private func fits(_ frameBytes: Int) -> Bool {
        frameBytes - FrameEncoder.prefixBytes <= maxFrameBytes
    }

    private var tooLarge: HealthError {
        HealthError(.dataSizeExceeded, "the answer is larger than the \(maxFrameBytes)-byte frame limit")
    }

    private func deliver(_ frame: [UInt8], final: Bool, endsTurn: Bool) {
        let (loop, connectionID, callID, serial) = (loop, connectionID, callID, serial)
        loop.post {
            frame.withUnsafeBytes {
                loop.connections[connectionID]?.calls.deliver($0, callID: callID, serial: serial, final: final, endsTurn: endsTurn)
            }
        }
    }

    private func endTurn() {
        guard receiver == nil else { return }
        let (loop, connectionID, serial) = (loop, connectionID, serial)
        loop.post { loop.connections[connectionID]?.calls.endTurn(serial: serial) }
    }
}
