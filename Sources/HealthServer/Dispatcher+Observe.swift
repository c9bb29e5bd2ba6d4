import Foundation
import HealthModel
import HealthStorage
import HealthWire

// Observe: HKObserverQuery as a long-running call (docs/semantics.md §6.9, decisions 7 and 9).
extension Dispatcher {
    func observe(types: [String], predicate: QueryPredicate?, frequency: UpdateFrequency?, _ access: Access,
                 reply: CallReplier) async throws -> ServerResult? {
        let (session, owner) = (access.session, access.owner)
        let watched = Set(types)
        let period = frequency?.periodMicros ?? 0
        let ackTimeout = Duration.milliseconds(Int64(config.observerAckTimeout * 1000))
        return try await observerAcks.tracking(reply) { acks in
            try await hub.watching(owner: owner, .data) { signal in
                // One anchor per type: a wake-up for one type must not move past another type's
                // change that committed meanwhile and whose own wake-up is still pending.
                let start = try await store.currentAnchor(owner: owner)
                var anchors = Dictionary(uniqueKeysWithValues: watched.map { ($0, start) })
                var sequence: UInt64 = 0, missed = 0
                // The first answer, with no types, confirms the registration and needs no acknowledgement.
                await reply.send(.observerEvent(changedTypes: [], sequence: 0), more: true)
                while let changed = await signal.next()?.types {
                    let candidates = changed.isEmpty ? watched : changed.intersection(watched)
                    guard !candidates.isEmpty else { continue }
                    let latest = try await store.currentAnchor(owner: owner)
                    let visible = try await visibleChanges(candidates, predicate: predicate, since: anchors, access)
                    for type in candidates { anchors[type] = latest }
                    guard !visible.isEmpty else { continue }
                    sequence += 1
                    acks.sending(sequence)
                    await reply.send(.observerEvent(changedTypes: visible.sorted(), sequence: sequence), more: true)
                    // docs/semantics.md §6.9: the next event waits for this one's acknowledgement (changes meanwhile
                    // merge into it); three missed in a row end the observer.
                    if await acks.wait(for: sequence, timeout: ackTimeout) {
                        missed = 0
                    } else {
                        try Task.checkCancellation()
                        missed += 1
                        if missed == 3 {
                            logger.info("observer \(reply.callID) of '\(session.bundleID)' ended: 3 events unacknowledged")
                            return ServerResult.callEnded(.unacknowledged)
                        }
                    }
                    // docs/semantics.md decision 9: at most one event per period; changes meanwhile merge into the next one.
                    if period > 0 { try await Task.sleep(for: .microseconds(period)) }
                }
                throw CancellationError()
            }
        }
    }

    /// The types whose changes since their anchor the caller may see: with read permission and no
    /// predicate every change counts; otherwise only changes the caller could query (its own
    /// samples when read is not granted), so an event never reveals other sources' activity.
    private func visibleChanges(_ types: Set<String>, predicate: QueryPredicate?, since anchors: [String: Data],
                                _ access: Access) async throws -> Set<String> {
        let scope = try await currentScope(access)
        var visible = Set<String>()
        for type in types.sorted() {
            if predicate == nil && scope.canReadAll(type) {
                visible.insert(type)
                continue
            }
            let probe = try await store.queryAnchored(owner: access.owner, types: [type], predicate: predicate, anchor: anchors[type],
                                                      limit: 1, scope: scope)
            if !probe.samples.isEmpty || !probe.deleted.isEmpty { visible.insert(type) }
        }
        return visible
    }
}
