import HealthCLI
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
    static func update(_ arguments: ParsedArguments) throws -> Characteristics {
        var update = Characteristics()
        update.biologicalSex = try lookup(arguments, "set-sex", sexes)
        update.bloodType = try lookup(arguments, "set-blood-type", bloodTypes)
        update.wheelchairUse = try lookup(arguments, "set-wheelchair", wheelchair)
        update.activityMoveMode = try lookup(arguments, "set-move-mode", moveModes)
        if let text = arguments.value("set-skin") {
            guard let n = Int32(text), (1...6).contains(n) else { throw UsageError("--set-skin: '\(text)' is not a Fitzpatrick skin type 1…6", option: "set-skin") }
            update.fitzpatrickSkinType = n
        }
        if let text = arguments.value("set-birth") {
            let parts = text.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else {
                throw UsageError("--set-birth: '\(text)' is not a date like 1990-02-03", option: "set-birth")
            }
            update.dateOfBirth = CalendarDay(year: parts[0], month: parts[1], day: parts[2])
        }
        return update
    }

    private static func lookup(_ arguments: ParsedArguments, _ option: String, _ table: [String: Int32]) throws -> Int32? {
        guard let text = arguments.value(option) else { return nil }
        guard let value = table.first(where: { $0.key.lowercased() == text.lowercased() })?.value else {
            throw UsageError("--\(option): '\(text)' is not one of \(table.keys.sorted().joined(separator: ", "))", option: option)
        }
        return value
    }

    private static func name(_ value: Int32?, _ table: [String: Int32]) -> String {
        guard let value else { return "not set" }
        return table.first { $0.value == value }?.key ?? String(value)
    }
}
