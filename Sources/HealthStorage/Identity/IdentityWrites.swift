import Foundation
import HealthModel

/// Owners, apps and tokens: the writes (run on the writer thread).
extension WriteContext {
    func addOwner(name: String) throws(HealthError) -> (OwnerID, token: String) {
        guard !name.isEmpty else { throw HealthError.invalid("owner name is empty", field: "name") }
        // The highest id plus one rather than a sequence (see `WriteContext.internedID`).
        let insert = try db.prepare("""
            INSERT INTO owners (id, name, created) SELECT COALESCE(MAX(id), 0) + 1, ?, ? FROM owners WHERE TRUE
            ON CONFLICT DO NOTHING RETURNING id
            """)
        insert.bind(1, name)
        insert.bind(2, now)
        guard let owner = try insert.insertReturning() else {
            throw HealthError.invalid("an owner named '\(name)' already exists", field: "name")
        }
        let counter = try db.prepare("INSERT INTO anchor_counters (owner, last_anchor) VALUES (?, 0)")
        counter.bind(1, owner)
        try counter.run()
        return (OwnerID(owner), try issueToken(role: .owner, owner: owner, app: nil))
    }

    func ensureOperatorToken() throws(HealthError) -> String? {
        let existing = try db.prepare("SELECT 1 FROM tokens WHERE kind = ? LIMIT 1")
        existing.bind(1, Int64(Role.serverOperator.rawValue))
        if try existing.step() { return nil }
        return try issueToken(role: .serverOperator, owner: nil, app: nil)
    }

    /// Registers an app (or re-enables a revoked one, keeping its data) and returns its first token.
    func registerApp(owner: OwnerID, bundleID: String, name: String) throws(HealthError) -> String {
        guard !bundleID.isEmpty else { throw HealthError.invalid("bundle id is empty", field: "bundle_id") }
        try requireOwner(owner)
        if let (app, revoked) = try app(owner: owner, bundleID: bundleID) {
            guard revoked else { throw HealthError.invalid("app '\(bundleID)' is already registered", field: "bundle_id") }
            let revive = try db.prepare("UPDATE apps SET revoked = 0, name = ? WHERE owner = ? AND id = ?")
            revive.bind(1, name)
            revive.bind(2, owner.rawValue)
            revive.bind(3, app)
            try revive.run()
            return try issueToken(role: .app, owner: owner.rawValue, app: app)
        }
        // Ids are the owner's own: registering needs no row of another owner.
        let insert = try db.prepare("""
            INSERT INTO apps (id, owner, bundle_id, name, created) SELECT COALESCE(MAX(id), 0) + 1, ?1, ?2, ?3, ?4 FROM apps
            WHERE owner = ?1 RETURNING id
            """)
        insert.bind(1, owner.rawValue)
        insert.bind(2, bundleID)
        insert.bind(3, name)
        insert.bind(4, now)
        guard let app = try insert.insertReturning() else { throw HealthError(.internalError, "registering an app returned no id") }
        return try issueToken(role: .app, owner: owner.rawValue, app: app)
    }

    /// Replaces the app's tokens with a new one; data and permissions stay.
    func rotateAppToken(owner: OwnerID, bundleID: String) throws(HealthError) -> String {
        guard let (app, revoked) = try app(owner: owner, bundleID: bundleID), !revoked else {
            throw HealthError(.notFound, "no active app '\(bundleID)' is registered", field: "bundle_id")
        }
        try deleteTokens(owner: owner, app: app)
        noteEvent(.credentials(owner: owner, bundleID: bundleID))
        return try issueToken(role: .app, owner: owner.rawValue, app: app)
    }

    func revokeApp(owner: OwnerID, bundleID: String) throws(HealthError) {
        guard let (app, _) = try app(owner: owner, bundleID: bundleID) else {
            throw HealthError(.notFound, "no app '\(bundleID)' is registered", field: "bundle_id")
        }
        try deleteTokens(owner: owner, app: app)
        let revoke = try db.prepare("UPDATE apps SET revoked = 1 WHERE owner = ? AND id = ?")
        revoke.bind(1, owner.rawValue)
        revoke.bind(2, app)
        try revoke.run()
        noteEvent(.credentials(owner: owner, bundleID: bundleID))
    }

    private func requireOwner(_ owner: OwnerID) throws(HealthError) {
        let statement = try db.prepare("SELECT 1 FROM owners WHERE id = ?")
        statement.bind(1, owner.rawValue)
        guard try statement.step() else { throw HealthError(.notFound, "\(owner) does not exist") }
    }

    private func app(owner: OwnerID, bundleID: String) throws(HealthError) -> (id: Int64, revoked: Bool)? {
        let statement = try db.prepare("SELECT id, revoked FROM apps WHERE owner = ? AND bundle_id = ?")
        statement.bind(1, owner.rawValue)
        statement.bind(2, bundleID)
        return try statement.step() ? (statement.int(0), statement.int(1) != 0) : nil
    }

    private func deleteTokens(owner: OwnerID, app: Int64) throws(HealthError) {
        let delete = try db.prepare("DELETE FROM tokens WHERE owner = ? AND app = ?")
        delete.bind(1, owner.rawValue)
        delete.bind(2, app)
        try delete.run()
    }

    private func issueToken(role: Role, owner: Int64?, app: Int64?) throws(HealthError) -> String {
        let token = try TokenCrypto.newToken()
        let insert = try db.prepare("INSERT INTO tokens (hash, kind, owner, app, created) VALUES (?, ?, ?, ?, ?)")
        insert.bind(1, TokenCrypto.hash(token))
        insert.bind(2, Int64(role.rawValue))
        insert.bind(3, owner)
        insert.bind(4, app)
        insert.bind(5, now)
        try insert.run()
        return token
    }
}

/// Owners, apps and tokens: the reads.
extension ReadContext {
    func authenticate(token: String) throws(HealthError) -> Principal? {
        let hash = TokenCrypto.hash(token)
        let statement = try db.prepare("""
            SELECT t.hash, t.kind, o.id, o.name, a.bundle_id, a.name, a.revoked
            FROM tokens t LEFT JOIN owners o ON o.id = t.owner LEFT JOIN apps a ON a.owner = t.owner AND a.id = t.app WHERE t.hash = ?
            """)
        statement.bind(1, hash)
        guard try statement.step(), let stored = statement.blob(0), TokenCrypto.equal(stored, hash),
              let role = Role(rawValue: Int32(truncatingIfNeeded: statement.int(1))) else { return nil }
        let owner = statement.optionalInt(2).map(OwnerID.init)
        let ownerName = statement.text(3) ?? ""
        switch role {
        case .serverOperator:
            return Principal(role: .serverOperator, owner: nil, ownerName: "", source: nil)
        case .owner:
            return Principal(role: .owner, owner: owner, ownerName: ownerName, source: Principal.healthApp)
        case .app:
            guard statement.optionalInt(6) == 0, let bundle = statement.text(4), let name = statement.text(5) else { return nil }
            return Principal(role: .app, owner: owner, ownerName: ownerName, source: Source(name: name, bundleID: bundle))
        }
    }

    func listOwners() throws(HealthError) -> [(OwnerID, name: String)] {
        let statement = try db.prepare("SELECT id, name FROM owners ORDER BY id")
        var owners: [(OwnerID, name: String)] = []
        while try statement.step() { owners.append((OwnerID(statement.int(0)), statement.text(1) ?? "")) }
        return owners
    }

    func listApps(owner: OwnerID) throws(HealthError) -> [AppInfo] {
        let statement = try db.prepare("SELECT bundle_id, name, created, revoked FROM apps WHERE owner = ? ORDER BY bundle_id")
        statement.bind(1, owner.rawValue)
        var apps: [AppInfo] = []
        while try statement.step() {
            apps.append(AppInfo(source: Source(name: statement.text(1) ?? "", bundleID: statement.text(0) ?? ""),
                                createdTime: statement.int(2), revoked: statement.int(3) != 0))
        }
        return apps
    }
}
