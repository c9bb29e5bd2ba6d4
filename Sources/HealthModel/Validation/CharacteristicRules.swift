import Foundation

/// The characteristic fields, their type identifiers and allowed values (docs/semantics.md §1.9, §4.5).
public enum CharacteristicRules {
    public static let biologicalSex = "HKCharacteristicTypeIdentifierBiologicalSex"
    public static let bloodType = "HKCharacteristicTypeIdentifierBloodType"
    public static let dateOfBirth = "HKCharacteristicTypeIdentifierDateOfBirth"
    public static let skinType = "HKCharacteristicTypeIdentifierFitzpatrickSkinType"
    public static let wheelchairUse = "HKCharacteristicTypeIdentifierWheelchairUse"
    public static let moveMode = "HKCharacteristicTypeIdentifierActivityMoveMode"
    public static let types = [biologicalSex, bloodType, dateOfBirth, skinType, wheelchairUse, moveMode]

    /// Only fields whose type the caller may read; the rest read as not set, exactly like unset ones.
    public static func visible(_ stored: Characteristics, canRead: (String) -> Bool) -> Characteristics {
        func keep<T>(_ value: T?, _ type: String) -> T? { canRead(type) ? value : nil }
        return Characteristics(biologicalSex: keep(stored.biologicalSex, biologicalSex),
                               bloodType: keep(stored.bloodType, bloodType),
                               dateOfBirth: keep(stored.dateOfBirth, dateOfBirth),
                               fitzpatrickSkinType: keep(stored.fitzpatrickSkinType, skinType),
                               wheelchairUse: keep(stored.wheelchairUse, wheelchairUse),
                               activityMoveMode: keep(stored.activityMoveMode, moveMode))
    }

    /// Throws INVALID_ARGUMENT for a value outside its enum or a date of birth that is not a valid past date.
    public static func validate(_ update: Characteristics) throws(HealthError) {
        try check(update.biologicalSex, 1...3, "biological_sex")
        try check(update.bloodType, 1...8, "blood_type")
        try check(update.fitzpatrickSkinType, 1...6, "fitzpatrick_skin_type")
        try check(update.wheelchairUse, 1...2, "wheelchair_use")
        try check(update.activityMoveMode, 1...2, "activity_move_mode")
        if let day = update.dateOfBirth {
            try TimeRules.checkDay(day, field: "date_of_birth")
            let components = DateComponents(year: day.year, month: day.month, day: day.day)
            guard let date = TimeRules.utcGregorian.date(from: components), date <= Date() else {
                throw HealthError.invalid("date of birth \(day.isoString) is not a past date", field: "date_of_birth")
            }
        }
    }

    private static func check(_ value: Int32?, _ allowed: ClosedRange<Int32>, _ field: String) throws(HealthError) {
        if let value, !allowed.contains(value) {
            throw HealthError.invalid("\(field) value \(value) is outside \(allowed.lowerBound)...\(allowed.upperBound)", field: field)
        }
    }
}
