import Foundation
import HealthModel
import HealthStorage
import HealthWire

// SaveObjects, DeleteObjects and WriteCharacteristics.
extension Dispatcher {
    func save(_ objects: [Sample], session: Session) async throws -> ServerResult {
        let owner = try session.requireOwnerStore()
        guard !objects.isEmpty else { throw HealthError.invalid("SaveObjects needs at least one object", field: "objects") }
        guard objects.count <= config.maxBatchObjects else {
            throw HealthError(.dataSizeExceeded, "SaveObjects holds \(objects.count) objects; at most \(config.maxBatchObjects) per call", field: "objects")
        }
        // SEMANTICS §8.1: a known type first, then share permission, then every other rule.
        for (index, object) in objects.enumerated() {
            guard TypeCatalog.type(object.type) != nil else {
                throw TypeCatalog.unknownType(object.type).at(index: index)
            }
            try await requireShare(sharedTypes(of: object), session: session, owner: owner, index: index)
        }
        try SampleValidator.validate(objects)
        let outcomes = try await store.save(SaveBatch(owner: owner, revision: session.revision,
                                                      defaultDevice: session.defaultDevice, objects: objects))
        return .saveObjects(outcomes)
    }

    func delete(_ target: DeleteTarget, session: Session) async throws -> ServerResult {
        let owner = try session.requireOwnerStore()
        let deleter = Deleter(owner: owner, bundleID: session.bundleID, isOwner: session.role == .owner)
        switch target {
        case .uuids(let uuids):
            guard !uuids.isEmpty else { throw HealthError.invalid("DeleteObjects needs at least one UUID", field: "uuids") }
            try await requireShareToDelete(types: TypeCatalog.sampleTypes.map(\.identifier), predicate: .uuids(Set(uuids)),
                                           session: session, owner: owner, uuids: uuids)
            return .deleteObjects(deletedCount: UInt64(try await store.deleteObjects(uuids: uuids, by: deleter)))
        case .matching(let type, let predicate):
            try checkQuery(types: [type], predicate: predicate)
            try await requireShareToDelete(types: [type], predicate: predicate, session: session, owner: owner)
            return .deleteObjects(deletedCount: UInt64(try await store.deleteObjects(type: type, predicate: predicate, by: deleter)))
        }
    }

    /// An app may delete only while it holds share permission for what it deletes (§3.5): the
    /// types of its own matching objects, a correlation's children included. A UUID it did not
    /// save is "not stored" whether or not another source saved it (decision 7).
    private func requireShareToDelete(types: [String], predicate: QueryPredicate?, session: Session, owner: OwnerID,
                                      uuids: [UUID] = []) async throws {
        guard session.role == .app else { return }
        let ownOnly = ReadScope(callerBundleID: session.bundleID, readableTypes: [])
        let own = try await store.querySamples(owner: owner, types: types, predicate: predicate, sort: [], limit: 0, scope: ownOnly)
        let ownUUIDs = Set(own.flatMap { [$0.uuid] + ($0.correlationObjects ?? []).map(\.uuid) })
        if let index = uuids.firstIndex(where: { !ownUUIDs.contains($0) }) {
            throw HealthError(.invalidArgument, "object \(uuids[index]) is not stored", objectIndex: index, field: "uuids")
        }
        var needed = Set<String>()
        for object in own { needed.formUnion(sharedTypes(of: object)) }
        if own.isEmpty, types.count == 1, let type = types.first, TypeCatalog.type(type)?.kind != .correlation {
            needed.insert(type)
        }
        try await requireShare(needed.sorted(), session: session, owner: owner)
    }

    func writeCharacteristics(_ update: Characteristics, session: Session) async throws -> ServerResult {
        let owner = try session.requireOwnerRole("WriteCharacteristics")
        try CharacteristicRules.validate(update)
        try await store.writeCharacteristics(owner: owner, update)
        return .writeCharacteristics
    }

    func readCharacteristics(session: Session) async throws -> ServerResult {
        let owner = try session.requireOwnerStore()
        try await requireRequested(CharacteristicRules.types, oneSuffices: true, session: session, owner: owner)
        let stored = try await store.characteristics(owner: owner)
        let scope = try await readScope(session, owner: owner)
        return .characteristics(CharacteristicRules.visible(stored, scope: scope))
    }
}

/// The characteristic fields, their type identifiers and allowed values (SEMANTICS §1.9, §4.5).
enum CharacteristicRules {
    static let biologicalSex = "HKCharacteristicTypeIdentifierBiologicalSex"
    static let bloodType = "HKCharacteristicTypeIdentifierBloodType"
    static let dateOfBirth = "HKCharacteristicTypeIdentifierDateOfBirth"
    static let skinType = "HKCharacteristicTypeIdentifierFitzpatrickSkinType"
    static let wheelchairUse = "HKCharacteristicTypeIdentifierWheelchairUse"
    static let moveMode = "HKCharacteristicTypeIdentifierActivityMoveMode"
    static let types = [biologicalSex, bloodType, dateOfBirth, skinType, wheelchairUse, moveMode]

    /// Only fields the caller may read; the rest read as not set, exactly like unset ones.
    static func visible(_ stored: Characteristics, scope: ReadScope) -> Characteristics {
        func keep<T>(_ value: T?, _ type: String) -> T? { scope.canReadAll(type) ? value : nil }
        return Characteristics(biologicalSex: keep(stored.biologicalSex, biologicalSex),
                               bloodType: keep(stored.bloodType, bloodType),
                               dateOfBirth: keep(stored.dateOfBirth, dateOfBirth),
                               fitzpatrickSkinType: keep(stored.fitzpatrickSkinType, skinType),
                               wheelchairUse: keep(stored.wheelchairUse, wheelchairUse),
                               activityMoveMode: keep(stored.activityMoveMode, moveMode))
    }

    static func validate(_ update: Characteristics) throws(HealthError) {
        try check(update.biologicalSex, 1...3, "biological_sex")
        try check(update.bloodType, 1...8, "blood_type")
        try check(update.fitzpatrickSkinType, 1...6, "fitzpatrick_skin_type")
        try check(update.wheelchairUse, 1...2, "wheelchair_use")
        try check(update.activityMoveMode, 1...2, "activity_move_mode")
        if let day = update.dateOfBirth {
            try TimeRules.checkDay(day, field: "date_of_birth")
            let components = DateComponents(year: day.year, month: day.month, day: day.day)
            guard let date = TimeRules.utcGregorian.date(from: components), date <= Date() else {
                throw HealthError.invalid("date of birth \(day.isoString) is not a past date", field: "date_of_birth")
            }
        }
    }

    private static func check(_ value: Int32?, _ allowed: ClosedRange<Int32>, _ field: String) throws(HealthError) {
        if let value, !allowed.contains(value) {
            throw HealthError.invalid("\(field) value \(value) is outside \(allowed.lowerBound)...\(allowed.upperBound)", field: field)
        }
    }
}
