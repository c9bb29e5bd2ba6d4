import Foundation
import HealthModel
import HealthStorage
import HealthWire

// SaveObjects, DeleteObjects and WriteCharacteristics.
extension Dispatcher {
    /// The guard checked each object's type and share permission (a known type first, then share
    /// permission, then every other rule), and that only the owner keeps sources.
    func save(_ objects: [Sample], keepingSources: Bool, _ access: Access) async throws -> ServerResult {
        try checkBatch(objects)
        let outcomes: [SaveOutcome]
        if keepingSources {
            // An import: each object is saved as its own source and device, never the connection's.
            let kept = try SourceRules.keptSources(objects)
            outcomes = try await store.save(SaveBatch(owner: access.owner, revision: access.session.revision, defaultDevice: nil,
                                                      objects: kept, keepsSources: true))
            let sources = Set(kept.compactMap { $0.sourceRevision?.source.bundleID }).sorted()
            logger.info("audit: owner '\(access.session.principal.ownerName)' saved \(kept.count) objects keeping their sources "
                        + "(\(outcomes.filter { $0 == .stored || $0 == .replaced }.count) stored): \(sources.joined(separator: ", "))")
        } else {
            outcomes = try await store.save(connectionBatch(objects, access))
        }
        return saved(outcomes)
    }

    /// A batch's size and every object's content, checked after the access guard.
    func checkBatch(_ objects: [Sample]) throws(HealthError) {
        guard !objects.isEmpty else { throw HealthError.invalid("SaveObjects needs at least one object", field: "objects") }
        guard objects.count <= config.maxBatchObjects else {
            throw HealthError(.dataSizeExceeded, "SaveObjects holds \(objects.count) objects; at most \(config.maxBatchObjects) per call", field: "objects")
        }
        try SampleValidator.validate(objects)
    }

    /// The objects as saved over the connection: its source revision, its device for objects without one.
    func connectionBatch(_ objects: [Sample], _ access: Access) -> SaveBatch {
        SaveBatch(owner: access.owner, revision: access.session.revision, defaultDevice: access.session.defaultDevice, objects: objects,
                  shortcuts: access.session.shortcuts)
    }

    /// The answer to a save, counting what it stored.
    func saved(_ outcomes: [SaveOutcome]) -> ServerResult {
        countStored(outcomes)
        return .saveObjects(outcomes)
    }

    /// Counts what a save stored.
    func countStored(_ outcomes: [SaveOutcome]) {
        metrics.samplesStored.add(outcomes.reduce(0) { $0 + ($1 == .stored || $1 == .replaced ? 1 : 0) })
    }

    func delete(_ target: DeleteTarget, _ access: Access) async throws -> ServerResult {
        let (session, owner) = (access.session, access.owner)
        let deleter = Deleter(owner: owner, bundleID: session.bundleID, isOwner: session.role == .owner)
        switch target {
        case .uuids(let uuids):
            guard !uuids.isEmpty else { throw HealthError.invalid("DeleteObjects needs at least one UUID", field: "uuids") }
            try await requireShareToDelete(types: TypeCatalog.sampleTypes.map(\.identifier), predicate: .uuids(Set(uuids)),
                                           access, uuids: uuids)
            return .deleteObjects(deletedCount: UInt64(try await store.deleteObjects(uuids: uuids, by: deleter)))
        case .matching(let type, let predicate):
            try checkTypes(.each([type], predicate: predicate))
            try await requireShareToDelete(types: [type], predicate: predicate, access)
            return .deleteObjects(deletedCount: UInt64(try await store.deleteObjects(type: type, predicate: predicate, by: deleter)))
        }
    }

    /// An app may delete only while it holds share permission for what it deletes (docs/semantics.md §3.5): the
    /// types of its own matching objects, a correlation's children included. A UUID it did not
    /// save is "not stored" whether or not another source saved it (docs/semantics.md decision 7).
    private func requireShareToDelete(types: [String], predicate: QueryPredicate?, _ access: Access,
                                      uuids: [UUID] = []) async throws {
        guard access.session.role == .app else { return }
        let ownOnly = ReadScope(callerBundleID: access.session.bundleID, readableTypes: [])
        let own = try await store.querySamples(owner: access.owner, types: types, predicate: predicate, sort: [], limit: 0, scope: ownOnly)
        let ownUUIDs = Set(own.flatMap { [$0.uuid] + ($0.correlationObjects ?? []).map(\.uuid) })
        if let index = uuids.firstIndex(where: { !ownUUIDs.contains($0) }) {
            throw HealthError(.invalidArgument, "object \(uuids[index]) is not stored", objectIndex: index, field: "uuids")
        }
        var needed = Set<String>()
        for object in own { needed.formUnion(sharedTypes(of: object)) }
        if own.isEmpty, types.count == 1, let type = types.first, TypeCatalog.type(type)?.kind != .correlation {
            needed.insert(type)
        }
        try requireShare(needed.sorted(), access)
    }

    func writeCharacteristics(_ update: Characteristics, _ access: Access) async throws -> ServerResult {
        try CharacteristicRules.validate(update)
        try await store.writeCharacteristics(owner: access.owner, update)
        return .writeCharacteristics
    }

    func readCharacteristics(_ access: Access) async throws -> ServerResult {
        let stored = try await store.characteristics(owner: access.owner)
        return .characteristics(CharacteristicRules.visible(stored, canRead: access.scope.canReadAll))
    }
}
