import Foundation
import HealthModel
import Synchronization

/// (owner, id) → value maps of the interned tables (types, sources, revisions, devices; their ids
/// are the owner's own), shared by every connection thread. Ids never change meaning, so a miss is
/// simply read from the caller's connection.
final class Registry: Sendable {
    private struct Key: Hashable {
        let owner: Int64, id: Int64
    }

    private struct Maps {
        var types: [Key: String] = [:]
        var sources: [Key: String] = [:]
        var revisions: [Key: SourceRevision] = [:]
        var devices: [Key: Device] = [:]
    }

    private let maps = Mutex(Maps())

    func type(_ id: Int64, owner: Int64, _ db: Database) throws(HealthError) -> String {
        try interned(\.types, Key(owner: owner, id: id), "type", "SELECT identifier FROM types WHERE owner = ? AND id = ?", db) { $0.text(0) }
    }

    func bundleID(_ id: Int64, owner: Int64, _ db: Database) throws(HealthError) -> String {
        try interned(\.sources, Key(owner: owner, id: id), "source", "SELECT bundle_id FROM sources WHERE owner = ? AND id = ?", db) {
            $0.text(0)
        }
    }

    func revision(_ id: Int64, owner: Int64, _ db: Database) throws(HealthError) -> SourceRevision {
        try interned(\.revisions, Key(owner: owner, id: id), "source revision", """
            SELECT r.name, r.version, r.product_type, r.os_major, r.os_minor, r.os_patch, s.bundle_id
            FROM revisions r JOIN sources s ON s.owner = r.owner AND s.id = r.source WHERE r.owner = ? AND r.id = ?
            """, db) { row in
            guard let name = row.text(0), let bundle = row.text(6) else { return nil }
            return SourceRevision(source: Source(name: name, bundleID: bundle), version: row.text(1), productType: row.text(2),
                                  osMajor: Int(row.int(3)), osMinor: Int(row.int(4)), osPatch: Int(row.int(5)))
        }
    }

    func device(_ id: Int64, owner: Int64, _ db: Database) throws(HealthError) -> Device {
        try interned(\.devices, Key(owner: owner, id: id), "device", """
            SELECT name, manufacturer, model, hardware_version, firmware_version, software_version,
                   local_identifier, udi_device_identifier FROM devices WHERE owner = ? AND id = ?
            """, db) { row in
            Device(name: row.text(0), manufacturer: row.text(1), model: row.text(2), hardwareVersion: row.text(3),
                   firmwareVersion: row.text(4), softwareVersion: row.text(5), localIdentifier: row.text(6),
                   udiDeviceIdentifier: row.text(7))
        }
    }

    /// The value with `key` from `map`, or the one `decode` makes of the row `sql` (two `?`: the
    /// owner, the id) reads, remembered for every thread.
    private func interned<Value: Sendable>(_ map: WritableKeyPath<Maps, [Key: Value]>, _ key: Key, _ what: String, _ sql: String,
                                           _ db: Database, decode: (Statement) -> Value?) throws(HealthError) -> Value {
        if let known = maps.withLock({ $0[keyPath: map][key] }) { return known }
        let statement = try db.prepare(sql)
        statement.bind(1, key.owner)
        statement.bind(2, key.id)
        guard try statement.step(), let value = decode(statement) else { throw Self.missing(what, key) }
        maps.withLock { $0[keyPath: map][key] = value }
        return value
    }

    private static func missing(_ what: String, _ key: Key) -> HealthError {
        HealthError(.internalError, "store is inconsistent: owner #\(key.owner)'s \(what) #\(key.id) is referenced but missing")
    }
}
