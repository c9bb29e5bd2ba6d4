import Foundation
import HealthModel

/// Permission bookkeeping (the server decides; the store records).
extension WriteContext {
    /// Upserts states; a pending state (a new request) restamps the request time.
    func setPermissions(owner: OwnerID, _ updates: [AuthorizationUpdate]) throws(HealthError) {
        let upsert = try db.prepare("""
            INSERT INTO permissions (owner, bundle_id, type, direction, state, requested, updated) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (owner, bundle_id, type, direction) DO UPDATE SET
                state = excluded.state, updated = excluded.updated,
                requested = CASE WHEN excluded.state = 1 THEN excluded.requested ELSE permissions.requested END
            """)
        for update in updates {
            upsert.reset()
            upsert.bind(1, owner.rawValue)
            upsert.bind(2, update.bundleID)
            upsert.bind(3, update.type)
            upsert.bind(4, Int64(update.direction.rawValue))
            upsert.bind(5, Int64(update.state.rawValue))
            upsert.bind(6, now)
            upsert.bind(7, now)
            try upsert.run()
        }
        noteEvent(.permissions(owner: owner, bundleIDs: Set(updates.map(\.bundleID))))
    }
}

extension ReadContext {
    func permissions(owner: OwnerID, bundleID: String) throws(HealthError) -> [Permission] {
        let statement = try db.prepare("""
            SELECT type, direction, state, updated FROM permissions WHERE owner = ? AND bundle_id = ? ORDER BY type, direction
            """)
        statement.bind(1, owner.rawValue)
        statement.bind(2, bundleID)
        var result: [Permission] = []
        while try statement.step() {
            guard let direction = AccessDirection(rawValue: Int32(truncatingIfNeeded: statement.int(1))),
                  let state = PermissionState(rawValue: Int32(truncatingIfNeeded: statement.int(2))) else { continue }
            result.append(Permission(type: statement.text(0) ?? "", direction: direction, state: state, updatedTime: statement.int(3)))
        }
        return result
    }

    func pendingRequests(owner: OwnerID, bundleID: String?) throws(HealthError) -> [(AuthorizationUpdate, Microseconds)] {
        var sql = "SELECT bundle_id, type, direction, requested FROM permissions WHERE owner = ? AND state = 1"
        if bundleID != nil { sql += " AND bundle_id = ?" }
        let statement = try db.prepare(sql + " ORDER BY requested, bundle_id, type, direction")
        statement.bind(1, owner.rawValue)
        if let bundleID { statement.bind(2, bundleID) }
        var result: [(AuthorizationUpdate, Microseconds)] = []
        while try statement.step() {
            guard let direction = AccessDirection(rawValue: Int32(truncatingIfNeeded: statement.int(2))) else { continue }
            result.append((AuthorizationUpdate(bundleID: statement.text(0) ?? "", type: statement.text(1) ?? "",
                                               direction: direction, state: .pending), statement.int(3)))
        }
        return result
    }
}
