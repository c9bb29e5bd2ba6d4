import Foundation
import HealthModel
import HealthStorage
import HealthWire

// Observe: HKObserverQuery as a long-running call (SEMANTICS §6.9, decisions 7 and 9).
extension Dispatcher {
    func observe(types: [String], predicate: QueryPredicate?, frequency: UpdateFrequency?, session: Session,
                 reply: CallReplier) async throws -> ServerResult? {
        let owner = try session.requireOwnerStore()
        try checkQuery(types: types, predicate: predicate)
        try await requireRequested(types, session: session, owner: owner)
        let watched = Set(types)
        let period = frequency?.periodMicros ?? 0
        return try await hub.watching(owner: owner, topic: .data) { signal in
            // One anchor per type: a wake-up for one type must not move past another type's
            // change that committed meanwhile and whose own wake-up is still pending.
            let start = try await store.currentAnchor(owner: owner)
            var anchors = Dictionary(uniqueKeysWithValues: watched.map { ($0, start) })
            // The first answer, with no types, confirms the registration.
            await reply.send(.observerEvent(changedTypes: []), more: true)
            while let changed = await signal.next() {
                let candidates = changed.isEmpty ? watched : changed.intersection(watched)
                guard !candidates.isEmpty else { continue }
                let latest = try await store.currentAnchor(owner: owner)
                let visible = try await visibleChanges(candidates, predicate: predicate, since: anchors, session: session, owner: owner)
                for type in candidates { anchors[type] = latest }
                guard !visible.isEmpty else { continue }
                await reply.send(.observerEvent(changedTypes: visible.sorted()), more: true)
                // Decision 9: at most one event per period; changes meanwhile merge into the next one.
                if period > 0 { try await Task.sleep(for: .microseconds(period)) }
            }
            throw CancellationError()
        }
    }

    /// The types whose changes since their anchor the caller may see: with read permission and no
    /// predicate every change counts; otherwise only changes the caller could query (its own
    /// samples when read is not granted), so an event never reveals other sources' activity.
    private func visibleChanges(_ types: Set<String>, predicate: QueryPredicate?, since anchors: [String: Data],
                                session: Session, owner: OwnerID) async throws -> Set<String> {
        let scope = try await readScope(session, owner: owner)
        var visible = Set<String>()
        for type in types.sorted() {
            if predicate == nil && scope.canReadAll(type) {
                visible.insert(type)
                continue
            }
            let probe = try await store.queryAnchored(owner: owner, types: [type], predicate: predicate, anchor: anchors[type],
                                                      limit: 1, scope: scope)
            if !probe.samples.isEmpty || !probe.deleted.isEmpty { visible.insert(type) }
        }
        return visible
    }
}
