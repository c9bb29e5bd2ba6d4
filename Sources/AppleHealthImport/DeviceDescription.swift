import Glibc
import HealthModel
import Synchronization

/// Devices as exports describe them: the `device` attribute's HKDevice description, or the
/// HKDevice… metadata keys third-party apps write.
enum DeviceDescription {
    /// The fields of "<<HKDevice: 0x…>, name:Apple Watch, manufacturer:Apple Inc., model:Watch,
    /// hardware:Watch6,7, software:10.2, creation date:…>". The 0x… address is the object's place in
    /// the exporting process's memory, not an identity, so it is dropped: one watch written under
    /// three addresses is one device. Values may hold commas ("Watch6,7"), so fields are split at the
    /// known labels only.
    static func parse(_ text: String) -> Device? {
        var text = text
        return text.withUTF8(parse)
    }

    /// The same from the description's UTF-8 as the XML reader holds it. Exports repeat each
    /// description under many addresses, mostly as the previous record's did: what follows the
    /// address is compared with that one in place, before any string is made.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Device? {
        guard bytes.starts(with: "<<HKDevice".utf8), let close = bytes.firstIndex(of: UInt8(ascii: ">")) else { return nil }
        let described = UnsafeBufferPointer(rebasing: bytes[(close + 1)...])
        // Read in place: binding the whole (key, device) pair copied it, a retain and release per field.
        let repeated = last.withLock { last -> Device?? in
            guard let same = last?.key.withUnsafeBufferPointer({
                $0.count == described.count && ($0.isEmpty || memcmp($0.baseAddress!, described.baseAddress!, $0.count) == 0)
            }), same else {
                return nil
            }
            return last?.device
        }
        if let repeated { return repeated }
        let key = String(decoding: described, as: UTF8.self)
        let device = cache.withLock { cache in
            if let known = cache[key] { return known }
            let device = fields(key)
            if cache.count < 4096 { cache[key] = device }
            return device
        }
        last.withLock { $0 = (Array(described), device) }
        return device
    }

    private static let cache = Mutex<[String: Device?]>([:])
    /// The previous description (after its address, as bytes) and its device.
    private static let last = Mutex<(key: [UInt8], device: Device?)?>(nil)

    private static func fields(_ text: String) -> Device? {
        var body = Substring(text)
        if body.hasSuffix(">") { body = body.dropLast() }
        var fields: [String: String] = [:]
        var rest = String(body)
        // Fields are taken from the end so that each value runs up to the next label.
        while let (label, range) = lastLabel(in: rest) {
            let value = rest[range.upperBound...].trimmingCharacters(in: .whitespaces)
            if !value.isEmpty { fields[label] = value }
            rest = String(rest[..<range.lowerBound])
        }
        let device = Device(name: fields["name"], manufacturer: fields["manufacturer"], model: fields["model"],
                            hardwareVersion: fields["hardware"], firmwareVersion: fields["firmware"],
                            softwareVersion: fields["software"], localIdentifier: fields["localIdentifier"],
                            udiDeviceIdentifier: fields["UDIDeviceIdentifier"])
        return device.isEmpty ? nil : device
    }

    private static let labels = ["name", "manufacturer", "model", "hardware", "firmware", "software",
                                 "localIdentifier", "UDIDeviceIdentifier", "creation date"]

    private static func lastLabel(in text: String) -> (String, Range<String.Index>)? {
        var best: (String, Range<String.Index>)?
        for label in labels {
            if let range = text.range(of: ", \(label):", options: .backwards), best.map({ range.lowerBound > $0.1.lowerBound }) ?? true {
                best = (label, range)
            }
        }
        return best
    }

    /// The device HKDeviceName / HKDeviceManufacturerName / HKDeviceSerialNumber (and the UDI keys)
    /// describe, for samples without a `device` attribute.
    static func fromMetadata(_ metadata: [(key: String, value: String)]) -> Device? {
        func value(_ key: String) -> String? { metadata.first { $0.key == key }?.value }
        let device = Device(name: value("HKDeviceName"), manufacturer: value("HKDeviceManufacturerName"),
                            localIdentifier: value("HKDeviceSerialNumber"),
                            udiDeviceIdentifier: value("HKUDIDeviceIdentifier"))
        return device.isEmpty ? nil : device
    }
}
