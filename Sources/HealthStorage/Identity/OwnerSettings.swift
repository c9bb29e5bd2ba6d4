import Foundation
import HealthModel

/// Characteristics and source priority, per owner.
extension WriteContext {
    func writeCharacteristics(owner: OwnerID, _ update: Characteristics) throws(HealthError) {
        // Nil fields leave the stored value (Characteristics.merged), done in SQL with COALESCE.
        let upsert = try db.prepare("""
            INSERT INTO characteristics (owner, biological_sex, blood_type, date_of_birth, fitzpatrick_skin_type,
                                         wheelchair_use, activity_move_mode) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (owner) DO UPDATE SET
                biological_sex = COALESCE(excluded.biological_sex, characteristics.biological_sex),
                blood_type = COALESCE(excluded.blood_type, characteristics.blood_type),
                date_of_birth = COALESCE(excluded.date_of_birth, characteristics.date_of_birth),
                fitzpatrick_skin_type = COALESCE(excluded.fitzpatrick_skin_type, characteristics.fitzpatrick_skin_type),
                wheelchair_use = COALESCE(excluded.wheelchair_use, characteristics.wheelchair_use),
                activity_move_mode = COALESCE(excluded.activity_move_mode, characteristics.activity_move_mode)
            """)
        upsert.bind(1, owner.rawValue)
        upsert.bind(2, update.biologicalSex.map(Int64.init))
        upsert.bind(3, update.bloodType.map(Int64.init))
        upsert.bind(4, update.dateOfBirth?.isoString)
        upsert.bind(5, update.fitzpatrickSkinType.map(Int64.init))
        upsert.bind(6, update.wheelchairUse.map(Int64.init))
        upsert.bind(7, update.activityMoveMode.map(Int64.init))
        try upsert.run()
    }

    func setSourcePriority(owner: OwnerID, type: String, bundleIDs: [String]) throws(HealthError) {
        let clear = try db.prepare("DELETE FROM source_priority WHERE owner = ? AND type = ?")
        clear.bind(1, owner.rawValue)
        clear.bind(2, type)
        try clear.run()
        let insert = try db.prepare("INSERT INTO source_priority (owner, type, position, bundle_id) VALUES (?, ?, ?, ?)")
        var seen = Set<String>()
        for bundleID in bundleIDs where seen.insert(bundleID).inserted {
            insert.reset()
            insert.bind(1, owner.rawValue)
            insert.bind(2, type)
            insert.bind(3, Int64(seen.count))
            insert.bind(4, bundleID)
            try insert.run()
        }
        noteEvent(.sourcePriority(owner: owner, type: type))
    }
}

extension ReadContext {
    func characteristics(owner: OwnerID) throws(HealthError) -> Characteristics {
        let statement = try db.prepare("""
            SELECT biological_sex, blood_type, date_of_birth, fitzpatrick_skin_type, wheelchair_use, activity_move_mode
            FROM characteristics WHERE owner = ?
            """)
        statement.bind(1, owner.rawValue)
        guard try statement.step() else { return Characteristics() }
        func int32(_ column: Int32) -> Int32? { statement.optionalInt(column).map { Int32(truncatingIfNeeded: $0) } }
        var dateOfBirth: CalendarDay?
        if let text = statement.text(2) {
            let parts = text.split(separator: "-").compactMap { Int($0) }
            if parts.count == 3 { dateOfBirth = CalendarDay(year: parts[0], month: parts[1], day: parts[2]) }
        }
        return Characteristics(biologicalSex: int32(0), bloodType: int32(1), dateOfBirth: dateOfBirth,
                               fitzpatrickSkinType: int32(3), wheelchairUse: int32(4), activityMoveMode: int32(5))
    }

    func sourcePriority(owner: OwnerID, type: String) throws(HealthError) -> [String] {
        let statement = try db.prepare("SELECT bundle_id FROM source_priority WHERE owner = ? AND type = ? ORDER BY position")
        statement.bind(1, owner.rawValue)
        statement.bind(2, type)
        var result: [String] = []
        while try statement.step() { result.append(statement.text(0) ?? "") }
        return result
    }

    /// Sources that saved `type`, first-seen order, named by their latest revision.
    func sourcesFirstSeen(owner: OwnerID, type: String) throws(HealthError) -> [(Source, Microseconds)] {
        let statement = try db.prepare("""
            SELECT (SELECT MAX(r.id) FROM revisions r WHERE r.owner = ts.owner AND r.source = ts.source), ts.first_seen
            FROM type_sources ts JOIN types t ON t.owner = ts.owner AND t.id = ts.type
            WHERE ts.owner = ? AND t.identifier = ? ORDER BY ts.first_seen, ts.source
            """)
        statement.bind(1, owner.rawValue)
        statement.bind(2, type)
        var result: [(Source, Microseconds)] = []
        while try statement.step() { result.append((try registry.revision(statement.int(0), owner: owner.rawValue, db).source, statement.int(1))) }
        return result
    }
}
