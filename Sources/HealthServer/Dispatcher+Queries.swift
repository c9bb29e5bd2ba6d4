import Foundation
import HealthModel
import HealthStorage
import HealthWire

// Sample, anchored, correlation, source and device queries, and sample counts (docs/semantics.md §6.3, §6.4, §6.7, §6.8).
extension Dispatcher {
    func querySamples(_ query: SampleQuery, _ access: Access, reply: CallReplier) async throws -> ServerResult? {
        let (owner, scope) = (access.owner, access.scope)
        guard query.limit >= 0 else { throw HealthError.invalid("limit \(query.limit) is negative", field: "limit") }
        let samples = try await store.querySamples(owner: owner, types: query.types, predicate: query.predicate,
                                                   sort: query.sort, limit: query.limit, scope: scope)
        let visible = try await withDerivedWorkoutStatistics(samples, owner: owner, scope: scope)
        try await sendPaged(visible, reply: reply, final: true) { page, _ in .samples(page) }
        return nil
    }

    func queryAnchored(_ query: AnchoredQuery, _ access: Access, reply: CallReplier) async throws -> ServerResult? {
        let owner = access.owner
        guard query.limit >= 0 else { throw HealthError.invalid("limit \(query.limit) is negative", field: "limit") }
        if query.updates && query.limit > 0 {
            throw HealthError.invalid("an anchored query with updates must have no limit (limit is \(query.limit))", field: "limit")
        }
        let watched = Set(query.types)
        return try await hub.watching(owner: owner, .data) { signal in
            let scope = access.scope
            let initial = try await store.streamAnchored(owner: owner, types: query.types, predicate: query.predicate,
                                                         anchor: query.anchor, limit: query.limit, scope: scope, partRows: Self.anchoredPartRows)
            try await sendAnchored(initial, owner: owner, scope: scope, initial: true, final: !query.updates, reply: reply)
            guard query.updates else { return nil }
            // Each update reads on from where the last one stopped reading; the anchor sent is the
            // update's own (its last object), never this position.
            var position = initial.head.scannedThrough
            while let changed = await signal.next()?.types {
                guard changed.isEmpty || !changed.isDisjoint(with: watched) else { continue }
                try await reply.producing {
                    let scope = try await currentScope(access)
                    let update = try await store.streamAnchored(owner: owner, types: query.types, predicate: query.predicate,
                                                                anchor: position, limit: 0, scope: scope, partRows: Self.anchoredPartRows)
                    position = update.head.scannedThrough
                    try await sendAnchored(update, owner: owner, scope: scope, initial: false, final: false, reply: reply)
                }
            }
            throw CancellationError()
        }
    }

    /// Samples per part of a streamed anchored read: a few pages, so the first is sent while the
    /// store reads on.
    private static let anchoredPartRows = 2048

    /// One anchored answer in pages, samples first (each part as the store reads it), then deletions;
    /// every page carries the new anchor, and each with samples its last sample's anchor, so a read
    /// cut off can go on after it. An update that found nothing sends nothing.
    private func sendAnchored(_ answer: AnchoredStream, owner: OwnerID, scope: ReadScope, initial: Bool, final: Bool,
                              reply: CallReplier) async throws {
        let head = answer.head
        // One part is held back until the next arrives, so the last page is known to be last.
        var held: AnchoredPart?
        for try await part in answer.samples {
            if let previous = held { try await sendAnchoredPart(previous, [], head, owner: owner, scope: scope, initial: initial, last: false, final: final, reply: reply) }
            held = part
        }
        guard held != nil || initial || !head.deleted.isEmpty else { return }
        try await sendAnchoredPart(held, head.deleted, head, owner: owner, scope: scope, initial: initial, last: true, final: final, reply: reply)
    }

    /// One part of an anchored answer in pages; `last`: the part ending the answer (with its deletions).
    private func sendAnchoredPart(_ part: AnchoredPart?, _ deleted: [DeletedObject], _ head: AnchoredResult, owner: OwnerID, scope: ReadScope,
                                  initial: Bool, last: Bool, final: Bool, reply: CallReplier) async throws {
        let samples = try await withDerivedWorkoutStatistics(part?.samples ?? [], owner: owner, scope: scope)
        try await sendPaged(count: samples.count + deleted.count, reply: reply, final: final, followed: !last) { range, isLast in
            let ofSamples = range.clamped(to: 0..<samples.count)
            let ofDeleted = range.clamped(to: samples.count..<samples.count + deleted.count)
            return .anchored(samples: samples.rows(ofSamples),
                             deleted: Array(deleted[(ofDeleted.lowerBound - samples.count)..<(ofDeleted.upperBound - samples.count)]),
                             newAnchor: head.newAnchor, initial: initial, initialComplete: initial && isLast,
                             lastSampleAnchor: ofSamples.isEmpty ? Data() : part?.anchor(ofRow: ofSamples.upperBound - 1) ?? Data())
        }
    }

    func queryCorrelations(_ query: CorrelationQuery, _ access: Access) async throws -> ServerResult {
        guard let contents = TypeCatalog.type(query.type)?.correlationContents else {
            throw HealthError.invalid("\(query.type) is not a correlation type", field: "type")
        }
        try query.predicate?.validate(forTypes: [query.type])
        for entry in query.samplePredicates {
            guard contents.contains(entry.type) else {
                throw HealthError.invalid("\(entry.type) cannot be part of a \(query.type) correlation", field: "sample_predicates.type")
            }
            try entry.predicate?.validate(forTypes: [entry.type])
        }
        let stored = try await store.querySamples(owner: access.owner, types: [query.type], predicate: query.predicate,
                                                  sort: [], limit: 0, scope: access.scope)
        let inCorrelation = PredicateContext(isInCorrelation: true)
        let matching = stored.filter { correlation in
            let children = correlation.correlationObjects ?? []
            // docs/semantics.md §6.7: every keyed type is present, and each child of a keyed type matches its predicate.
            return query.samplePredicates.allSatisfy { entry in
                let ofType = children.filter { $0.type == entry.type }
                guard !ofType.isEmpty else { return false }
                guard let predicate = entry.predicate else { return true }
                return ofType.allSatisfy { predicate.matches($0, context: inCorrelation) }
            }
        }
        return .correlations(matching)
    }

    func querySources(type: String, predicate: QueryPredicate?, _ access: Access) async throws -> ServerResult {
        .sources(try await store.querySources(owner: access.owner, type: type, predicate: predicate, scope: access.scope))
    }

    func queryDevices(type: String?, _ access: Access) async throws -> ServerResult {
        .devices(try await store.queryDevices(owner: access.owner, type: type, scope: access.scope))
    }

    /// Counts what QuerySamples with the same types and predicate would send, without sending it.
    func countSamples(types: [String], predicate: QueryPredicate?, _ access: Access) async throws -> ServerResult {
        .sampleCounts(try await store.countSamples(owner: access.owner, types: types, predicate: predicate, scope: access.scope))
    }
}
