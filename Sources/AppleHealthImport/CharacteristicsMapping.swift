import HealthModel

/// The `<Me>` element: the owner's characteristics, which the owner may write.
enum CharacteristicsMapping {
    /// The characteristics set in the export, and the attributes HealthStore has no field for.
    static func map(_ element: ExportElement) throws(MappingFailure) -> (Characteristics, unsupported: [String]) {
        var result = Characteristics()
        var unsupported: [String] = []
        for (name, value) in element.attributes {
            let field = name.hasPrefix("HKCharacteristicTypeIdentifier") ? String(name.dropFirst("HKCharacteristicTypeIdentifier".count)) : name
            if value.hasSuffix("NotSet") || value.isEmpty { continue }
            switch field {
            case "DateOfBirth":
                guard let day = ExportDates.day(value) else { throw .malformed("date of birth '\(value)' is not a date") }
                result.dateOfBirth = day
            case "BiologicalSex":
                result.biologicalSex = try raw(value, prefix: "HKBiologicalSex", ["Female": 1, "Male": 2, "Other": 3])
            case "BloodType":
                result.bloodType = try raw(value, prefix: "HKBloodType", ["APositive": 1, "ANegative": 2, "BPositive": 3, "BNegative": 4,
                                                                           "ABPositive": 5, "ABNegative": 6, "OPositive": 7, "ONegative": 8])
            case "FitzpatrickSkinType":
                result.fitzpatrickSkinType = try raw(value, prefix: "HKFitzpatrickSkinType", ["I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6])
            case "WheelchairUse":
                result.wheelchairUse = try raw(value, prefix: "HKWheelchairUse", ["No": 1, "Yes": 2])
            case "ActivityMoveMode":
                result.activityMoveMode = try raw(value, prefix: "HKActivityMoveMode", ["ActiveEnergy": 1, "AppleMoveTime": 2])
            default:
                unsupported.append(field)
            }
        }
        return (result, unsupported)
    }

    private static func raw(_ value: String, prefix: String, _ names: [String: Int32]) throws(MappingFailure) -> Int32 {
        let name = value.hasPrefix(prefix) ? String(value.dropFirst(prefix.count)) : value
        guard let raw = names[name] ?? Int32(name) else { throw .malformed("characteristic value '\(value)' is unknown") }
        return raw
    }
}
