import Foundation
import HealthModel
import Synchronization

/// Id → value maps of the interned tables (types, sources, revisions, devices), shared by every
/// connection thread. Ids never change meaning, so a miss is simply read from the caller's connection.
final class Registry: Sendable {
    private struct Maps {
        var types: [Int64: String] = [:]
        var sources: [Int64: String] = [:]
        var revisions: [Int64: SourceRevision] = [:]
        var devices: [Int64: Device] = [:]
    }

    private let maps = Mutex(Maps())

    func type(_ id: Int64, _ db: Database) throws(HealthError) -> String {
        try interned(\.types, id, "type", "SELECT identifier FROM types WHERE id = ?", db) { $0.text(0) }
    }

    func bundleID(_ id: Int64, _ db: Database) throws(HealthError) -> String {
        try interned(\.sources, id, "source", "SELECT bundle_id FROM sources WHERE id = ?", db) { $0.text(0) }
    }

    func revision(_ id: Int64, _ db: Database) throws(HealthError) -> SourceRevision {
        try interned(\.revisions, id, "source revision", """
            SELECT r.name, r.version, r.product_type, r.os_major, r.os_minor, r.os_patch, s.bundle_id
            FROM revisions r JOIN sources s ON s.id = r.source WHERE r.id = ?
            """, db) { row in
            guard let name = row.text(0), let bundle = row.text(6) else { return nil }
            return SourceRevision(source: Source(name: name, bundleID: bundle), version: row.text(1), productType: row.text(2),
                                  osMajor: Int(row.int(3)), osMinor: Int(row.int(4)), osPatch: Int(row.int(5)))
        }
    }

    func device(_ id: Int64, _ db: Database) throws(HealthError) -> Device {
        try interned(\.devices, id, "device", """
            SELECT name, manufacturer, model, hardware_version, firmware_version, software_version,
                   local_identifier, udi_device_identifier FROM devices WHERE id = ?
            """, db) { row in
            Device(name: row.text(0), manufacturer: row.text(1), model: row.text(2), hardwareVersion: row.text(3),
                   firmwareVersion: row.text(4), softwareVersion: row.text(5), localIdentifier: row.text(6),
                   udiDeviceIdentifier: row.text(7))
        }
    }

    /// The value with `id` from `map`, or the one `decode` makes of the row `sql` (one `?`, the id)
    /// reads, remembered for every thread.
    private func interned<Value: Sendable>(_ map: WritableKeyPath<Maps, [Int64: Value]>, _ id: Int64, _ what: String, _ sql: String,
                                           _ db: Database, decode: (Statement) -> Value?) throws(HealthError) -> Value {
        if let known = maps.withLock({ $0[keyPath: map][id] }) { return known }
        let statement = try db.prepare(sql)
        statement.bind(1, id)
        guard try statement.step(), let value = decode(statement) else { throw Self.missing(what, id) }
        maps.withLock { $0[keyPath: map][id] = value }
        return value
    }

    private static func missing(_ what: String, _ id: Int64) -> HealthError {
        HealthError(.internalError, "store is inconsistent: \(what) #\(id) is referenced but missing")
    }
}
