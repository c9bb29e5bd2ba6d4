import HealthModel
import HealthStorage
import HealthWire

// SaveObjects answered without a task: the call that many devices make once a second each.
extension Dispatcher {
    /// Answers a SaveObjects call of the connection (not an import) without a task when the access
    /// guard needs nothing from the store: the owner, or an app whose permission states are cached.
    /// It admits and validates the batch on the loop, hands it to the store's writer, and the writer
    /// hands the answer back to the loop with the rest of its commit's once the batch is committed. The answer, errors included, is
    /// the one `handle` would send. False: the call needs a task (`handle`).
    func saveOnLoop(_ call: ClientCall, session: Session, reply: CallReplier) -> Bool {
        guard case .saveObjects(let objects, keepSources: false) = call else { return false }
        let kind = call.kind
        let started = ContinuousClock.now
        // The answer keeps only what it needs, not the call and its samples: less to tear down.
        let (name, saves) = (kind.name, objects.count)
        let batch: SaveBatch
        do throws(HealthError) {
            let owner = try admittedOwner(kind, session: session)
            let access: Access
            if session.role == .app {
                let last = session.permissionSnapshot.withLock { $0 }
                guard var snapshot = permissions.cachedSnapshot(owner: owner, bundleID: session.bundleID, last: last) else { return false }
                access = try admit(kind, session: session, owner: owner, states: snapshot.states, shared: snapshot.sharedType)
                // The type of a lone sample (what a device saves) was just found shared: its next save skips the look-up.
                if objects.count == 1, objects[0].correlationObjects == nil { snapshot.sharedType = objects[0].type }
                if snapshot.generation != last?.generation || snapshot.sharedType != last?.sharedType {
                    session.permissionSnapshot.withLock { $0 = snapshot }
                }
            } else {
                access = try admit(kind, session: session, owner: owner, states: [:])
            }
            try checkBatch(objects)
            batch = connectionBatch(objects, access)
        } catch {
            reply.loop.post { self.sendSaveAnswer(.failure(error), saves: saves, name: name, started: started, reply: reply) }
            return true
        }
        store.save(batch, on: reply.loop) { [self] outcomes in sendSaveAnswer(outcomes, saves: saves, name: name, started: started, reply: reply) }
        return true
    }

    /// Sends a save's answer and records the call, as `handle` does (on the loop). A refused save's
    /// answer is posted to the loop too: the call table makes the call's entry only after `saveOnLoop` returns.
    /// A saved batch's answer is encoded straight from its outcomes, the bytes `handle`'s `.saveObjects`
    /// answer gives, without the `ServerResult` and `ServerMessage` that are copied on the way.
    private func sendSaveAnswer(_ outcomes: Result<[SaveOutcome], any Error>, saves: Int, name: String,
                                started: ContinuousClock.Instant, reply: CallReplier) {
        var failure: HealthErrorCode?
        switch outcomes {
        case .success(let outcomes):
            countStored(outcomes)
            WireCodec.withSaveAnswerFrame(callID: reply.callID, outcomes, reply.endOnLoop(withFrame:))
        case .failure(let error):
            let answer: ServerResult
            (answer, failure) = finalAnswer(for: error, saves: saves, name: name)
            reply.endOnLoop(with: answer)
        }
        // Duration's division (128-bit) cost more than the rest of the recording.
        let (seconds, attoseconds) = (ContinuousClock.now - started).components
        metrics.recordSave(failure: failure, seconds: Double(seconds) + Double(attoseconds) * 1e-18)
    }
}
