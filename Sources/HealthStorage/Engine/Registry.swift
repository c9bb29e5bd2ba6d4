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

    func type(_ id: Int64, _ db: SQLiteConnection) throws(HealthError) -> String {
        if let known = maps.withLock({ $0.types[id] }) { return known }
        let statement = try db.prepare("SELECT identifier FROM types WHERE id = ?")
        statement.bind(1, id)
        guard try statement.step(), let identifier = statement.text(0) else { throw Self.missing("type", id) }
        maps.withLock { $0.types[id] = identifier }
        return identifier
    }

    func bundleID(_ id: Int64, _ db: SQLiteConnection) throws(HealthError) -> String {
        if let known = maps.withLock({ $0.sources[id] }) { return known }
        let statement = try db.prepare("SELECT bundle_id FROM sources WHERE id = ?")
        statement.bind(1, id)
        guard try statement.step(), let bundle = statement.text(0) else { throw Self.missing("source", id) }
        maps.withLock { $0.sources[id] = bundle }
        return bundle
    }

    func revision(_ id: Int64, _ db: SQLiteConnection) throws(HealthError) -> SourceRevision {
        if let known = maps.withLock({ $0.revisions[id] }) { return known }
        let statement = try db.prepare("""
            SELECT r.name, r.version, r.product_type, r.os_major, r.os_minor, r.os_patch, s.bundle_id
            FROM revisions r JOIN sources s ON s.id = r.source WHERE r.id = ?
            """)
        statement.bind(1, id)
        guard try statement.step(), let name = statement.text(0), let bundle = statement.text(6) else {
            throw Self.missing("source revision", id)
        }
        let revision = SourceRevision(source: Source(name: name, bundleID: bundle), version: statement.text(1),
                                      productType: statement.text(2), osMajor: Int(statement.int(3)),
                                      osMinor: Int(statement.int(4)), osPatch: Int(statement.int(5)))
        maps.withLock { $0.revisions[id] = revision }
        return revision
    }

    func device(_ id: Int64, _ db: SQLiteConnection) throws(HealthError) -> Device {
        if let known = maps.withLock({ $0.devices[id] }) { return known }
        let statement = try db.prepare("""
            SELECT name, manufacturer, model, hardware_version, firmware_version, software_version,
                   local_identifier, udi_device_identifier FROM devices WHERE id = ?
            """)
        statement.bind(1, id)
        guard try statement.step() else { throw Self.missing("device", id) }
        let device = Device(name: statement.text(0), manufacturer: statement.text(1), model: statement.text(2),
                            hardwareVersion: statement.text(3), firmwareVersion: statement.text(4),
                            softwareVersion: statement.text(5), localIdentifier: statement.text(6),
                            udiDeviceIdentifier: statement.text(7))
        maps.withLock { $0.devices[id] = device }
        return device
    }

    private static func missing(_ what: String, _ id: Int64) -> HealthError {
        HealthError(.internalError, "store is inconsistent: \(what) #\(id) is referenced but missing")
    }
}
