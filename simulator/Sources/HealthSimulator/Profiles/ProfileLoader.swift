import Foundation
import HealthModel

/// Reads profile JSON: a whole fleet (`{"people": […], "devices": […]}`), one device profile, or an
/// array of device profiles (devices then join the people of the default fleet).
public enum ProfileLoader {
    /// Decodes a fleet object, then checks it.
    public static func decodeFleet(_ data: Data) throws -> FleetProfile {
        let fleet = try decode(FleetProfile.self, data, what: "fleet")
        try validate(fleet)
        return fleet
    }

    /// Decodes any accepted shape; lone devices are added to `base`'s people.
    public static func load(_ data: Data, base: FleetProfile) throws -> FleetProfile {
        let object = try? JSONSerialization.jsonObject(with: data)
        let fleet: FleetProfile
        if let dict = object as? [String: Any], dict["devices"] != nil {
            fleet = try decode(FleetProfile.self, data, what: "fleet")
        } else if object is [Any] {
            fleet = FleetProfile(people: base.people, devices: try decode([DeviceProfile].self, data, what: "device list"))
        } else {
            fleet = FleetProfile(people: base.people, devices: [try decode(DeviceProfile.self, data, what: "device")])
        }
        try validate(fleet)
        return fleet
    }

    /// Reads `path` with `load`.
    public static func load(file path: String, base: FleetProfile) throws -> FleetProfile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HealthError.invalid("cannot read profile file '\(path)'", field: "--profile")
        }
        return try load(data, base: base)
    }

    /// The fleet `--profile` files describe: the built-in one when there are none; otherwise their
    /// devices together, with the people of every file (and the built-in people for lone devices).
    public static func load(files: [String]) throws -> FleetProfile {
        let builtin = BuiltinFleet.fleet
        guard !files.isEmpty else { return builtin }
        var people: [PersonProfile] = [], devices: [DeviceProfile] = []
        for file in files {
            let fleet = try load(file: file, base: builtin)
            people += fleet.people.filter { p in !people.contains { $0.id == p.id } }
            devices += fleet.devices
        }
        let fleet = FleetProfile(people: people, devices: devices)
        try validate(fleet)
        return fleet
    }

    /// Pretty, key-sorted JSON of a fleet.
    public static func encode(_ fleet: FleetProfile) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(fleet)
    }

    /// Unique device ids, every device's person known, every relay target present.
    public static func validate(_ fleet: FleetProfile) throws {
        var ids = Set<String>()
        for device in fleet.devices {
            guard ids.insert(device.id).inserted else {
                throw HealthError.invalid("device id '\(device.id)' appears twice in the profile", field: "devices.id")
            }
            guard fleet.person(for: device) != nil else {
                throw HealthError.invalid("device '\(device.id)' names unknown person '\(device.person)'", field: "devices.person")
            }
            if device.signals.isEmpty {
                throw HealthError.invalid("device '\(device.id)' records no signals", field: "devices.signals")
            }
        }
        for device in fleet.devices {
            if let relay = device.relayedBy, !ids.contains(relay) {
                throw HealthError.invalid("device '\(device.id)' is relayed by unknown device '\(relay)'", field: "devices.relayedBy")
            }
        }
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ data: Data, what: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw HealthError.invalid("\(what) profile is missing '\(key.stringValue)' at \(path(context))", field: key.stringValue)
        } catch let DecodingError.dataCorrupted(context) {
            throw HealthError.invalid("\(what) profile is not valid JSON or has a bad value at \(path(context)): \(context.debugDescription)")
        } catch let DecodingError.typeMismatch(_, context) {
            throw HealthError.invalid("\(what) profile has a value of the wrong kind at \(path(context))")
        } catch let DecodingError.valueNotFound(_, context) {
            throw HealthError.invalid("\(what) profile has a null value at \(path(context))")
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        let p = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return p.isEmpty ? "the top level" : p
    }
}
