import HealthClient
import HealthModel

/// `characteristics`: read, or set (owner only), the owner's characteristics.
enum CharacteristicsCommand {
    static let sexes: [String: Int32] = ["female": 1, "male": 2, "other": 3]
    static let bloodTypes: [String: Int32] = ["A+": 1, "A-": 2, "B+": 3, "B-": 4, "AB+": 5, "AB-": 6, "O+": 7, "O-": 8]
    static let wheelchair: [String: Int32] = ["no": 1, "yes": 2]
    static let moveModes: [String: Int32] = ["activeEnergy": 1, "appleMoveTime": 2]

    static let command = Command(["characteristics"], usage: "characteristics [--set-sex S] [--set-blood-type B] [--set-birth D] …",
                                 summary: "show the owner's characteristics, or set some",
                                 options: [("set-sex S", "female, male or other"), ("set-blood-type B", "A+ A- B+ B- AB+ AB- O+ O-"),
                                           ("set-birth DATE", "date of birth, YYYY-MM-DD"), ("set-skin N", "Fitzpatrick type 1…6"),
                                           ("set-wheelchair W", "yes or no"), ("set-move-mode M", "activeEnergy or appleMoveTime")]) { inv in
        _ = try inv.arguments.positionals()
        let connection = try await inv.connect()
        let update = try update(inv.arguments)
        if update != Characteristics() { try await connection.writeCharacteristics(update) }
        let c = try await connection.characteristics()
        inv.print(Report(table: Table(columns: ["CHARACTERISTIC", "VALUE"], rows: [
            ["biological sex", name(c.biologicalSex, sexes)],
            ["blood type", name(c.bloodType, bloodTypes)],
            ["date of birth", c.dateOfBirth?.isoString ?? "not set"],
            ["Fitzpatrick skin type", c.fitzpatrickSkinType.map(String.init) ?? "not set"],
            ["wheelchair use", name(c.wheelchairUse, wheelchair)],
            ["activity move mode", name(c.activityMoveMode, moveModes)],
        ])))
    }

    /// The fields the --set-… options name.
    static func update(_ arguments: Arguments) throws(HealthError) -> Characteristics {
        var update = Characteristics()
        update.biologicalSex = try lookup(arguments, "set-sex", sexes)
        update.bloodType = try lookup(arguments, "set-blood-type", bloodTypes)
        update.wheelchairUse = try lookup(arguments, "set-wheelchair", wheelchair)
        update.activityMoveMode = try lookup(arguments, "set-move-mode", moveModes)
        if let text = arguments.value("set-skin") {
            guard let n = Int32(text), (1...6).contains(n) else { throw HealthError.invalid("--set-skin must be 1…6, got '\(text)'", field: "set-skin") }
            update.fitzpatrickSkinType = n
        }
        if let text = arguments.value("set-birth") {
            let parts = text.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else {
                throw HealthError.invalid("--set-birth must be YYYY-MM-DD, got '\(text)'", field: "set-birth")
            }
            update.dateOfBirth = CalendarDay(year: parts[0], month: parts[1], day: parts[2])
        }
        return update
    }

    private static func lookup(_ arguments: Arguments, _ option: String, _ table: [String: Int32]) throws(HealthError) -> Int32? {
        guard let text = arguments.value(option) else { return nil }
        guard let value = table.first(where: { $0.key.lowercased() == text.lowercased() })?.value else {
            throw HealthError.invalid("--\(option) must be one of \(table.keys.sorted().joined(separator: ", ")), got '\(text)'", field: option)
        }
        return value
    }

    private static func name(_ value: Int32?, _ table: [String: Int32]) -> String {
        guard let value else { return "not set" }
        return table.first { $0.value == value }?.key ?? String(value)
    }
}
