import XCTest
@testable import HealthModel

/// The type catalog of docs/semantics.md §4: contents, lookups, limits and flags.
final class CatalogTests: XCTestCase {
    private let day: Microseconds = 86_400_000_000

    private func type(_ identifier: String, file: StaticString = #filePath, line: UInt = #line) throws -> HealthType {
        try XCTUnwrap(TypeCatalog.type(identifier), identifier, file: file, line: line)
    }

    func testCountsPerKind() {
        // 74 non-dietary identifiers + 7 iOS 18 distance/speed additions + 39 dietary types (docs/semantics.md §4.2).
        XCTAssertEqual(TypeCatalog.quantityTypes.count, 120)
        XCTAssertEqual(TypeCatalog.quantityTypes.filter { $0.identifier.contains("Dietary") }.count, 39)
        XCTAssertEqual(TypeCatalog.categoryTypes.count, 68)
        XCTAssertEqual(TypeCatalog.correlationTypes.count, 2)
        XCTAssertEqual(TypeCatalog.characteristicTypes.count, 6)
        XCTAssertEqual(TypeCatalog.types(of: .workout).map(\.identifier), ["HKWorkoutTypeIdentifier"])
        XCTAssertEqual(TypeCatalog.all.count, 120 + 68 + 2 + 1 + 6 + 2 + 5)
        XCTAssertEqual(TypeCatalog.sampleTypes.count, TypeCatalog.all.count - 6)
    }

    func testIdentifiersAndShortNamesAreUnique() {
        XCTAssertEqual(Set(TypeCatalog.all.map(\.identifier)).count, TypeCatalog.all.count)
        XCTAssertEqual(Set(TypeCatalog.all.map { TypeNameMatching.normalized($0.shortName) }).count, TypeCatalog.all.count)
        for type in TypeCatalog.all {
            XCTAssertTrue(TypeCatalog.identifierPrefixes.contains { type.identifier.hasPrefix($0) }, type.identifier)
        }
    }

    func testEveryQuantityTypeHasAStyleAndACanonicalUnitInCanonicalForm() throws {
        for type in TypeCatalog.quantityTypes {
            XCTAssertNotNil(type.aggregation, type.identifier)
            let unit = try XCTUnwrap(type.canonicalUnit, type.identifier)
            XCTAssertEqual(try HealthUnit.parse(unit).unitString, unit, type.identifier)
            XCTAssertEqual(type.unit, try HealthUnit.parse(unit), type.identifier)
            XCTAssertEqual(type.maximumDuration, 4 * day, type.identifier)
            XCTAssertNil(type.categoryValues)
        }
    }

    func testQuantityRows() throws {
        let expected: [String: (String, AggregationStyle)] = [
            "StepCount": ("count", .cumulative), "HeartRate": ("count/s", .discreteTemporallyWeighted),
            "RestingHeartRate": ("count/min", .discreteArithmetic), "VO2Max": ("mL/(kg.min)", .discreteArithmetic),
            "BloodGlucose": ("mg/dL", .discreteArithmetic), "InsulinDelivery": ("IU", .cumulative),
            "AtrialFibrillationBurden": ("%", .discreteTemporallyWeighted),
            "EnvironmentalAudioExposure": ("dBASPL", .discreteEquivalentContinuousLevel),
            "PhysicalEffort": ("kcal/(hr.kg)", .discreteArithmetic), "DietaryWater": ("mL", .cumulative),
            "DietaryVitaminB12": ("g", .cumulative), "DistanceRowing": ("m", .cumulative),
            "PaddleSportsSpeed": ("m/s", .discreteArithmetic), "WorkoutEffortScore": ("appleEffortScore", .discreteArithmetic),
            "BodyTemperature": ("degC", .discreteArithmetic), "ElectrodermalActivity": ("S", .discreteArithmetic),
        ]
        for (name, (unit, style)) in expected {
            let t = try type("HKQuantityTypeIdentifier" + name)
            XCTAssertEqual(t.canonicalUnit, unit, name)
            XCTAssertEqual(t.aggregation, style, name)
        }
    }

    // A save in a type's display unit takes the unit parsed with the type: the one the parser gives.
    func testDisplayUnitsAreParsedWithTheirTypes() throws {
        let withDisplayUnits = TypeCatalog.all.filter { $0.displayUnit != nil }
        XCTAssertFalse(withDisplayUnits.isEmpty)
        for type in withDisplayUnits {
            XCTAssertEqual(type.parsedDisplayUnit, try HealthUnit.parse(type.displayUnit!), type.identifier)
            XCTAssertEqual(type.parsedDisplayUnit?.isCompatible(with: type.unit!), true, type.identifier)
        }
        XCTAssertEqual(try type("HKQuantityTypeIdentifierHeartRate").parsedDisplayUnit, try HealthUnit.parse("count/min"))
        XCTAssertNil(try type("HKQuantityTypeIdentifierStepCount").parsedDisplayUnit)
    }

    func testUnitAcceptance() throws {
        let heartRate = try type("HKQuantityTypeIdentifierHeartRate")
        XCTAssertTrue(heartRate.accepts(unit: "count/min"))
        XCTAssertFalse(heartRate.accepts(unit: "Hz"))
        XCTAssertFalse(heartRate.accepts(unit: "bogus"))
        let glucose = try type("HKQuantityTypeIdentifierBloodGlucose")
        XCTAssertTrue(glucose.accepts(unit: "mmol<180.15588000005408>/L"))
        XCTAssertEqual(glucose.dimension, UnitDimension([.mass: 1, .length: -3]))
        XCTAssertFalse(try type("HKQuantityTypeIdentifierOxygenSaturation").accepts(unit: "count"))
    }

    func testCategoryValueSets() throws {
        let expected: [String: Set<Int64>] = [
            "SleepAnalysis": [0, 1, 2, 3, 4, 5], "AppleStandHour": [0, 1], "MindfulSession": [0],
            "CervicalMucusQuality": [1, 2, 3, 4, 5], "OvulationTestResult": [1, 2, 3, 4],
            "PregnancyTestResult": [1, 2, 3], "ProgesteroneTestResult": [1, 2, 3],
            "MenstrualFlow": [1, 2, 3, 4, 5], "BleedingAfterPregnancy": [1, 2, 3, 4, 5],
            "Contraceptive": [1, 2, 3, 4, 5, 6, 7], "Headache": [0, 1, 2, 3, 4], "Wheezing": [0, 1, 2, 3, 4],
            "AppetiteChanges": [0, 1, 2, 3], "MoodChanges": [0, 1], "SleepChanges": [0, 1],
            "EnvironmentalAudioExposureEvent": [1], "HeadphoneAudioExposureEvent": [1],
            "LowCardioFitnessEvent": [1], "AppleWalkingSteadinessEvent": [1, 2, 3, 4], "SleepApneaEvent": [0],
        ]
        for (name, values) in expected {
            XCTAssertEqual(try type("HKCategoryTypeIdentifier" + name).categoryValues, values, name)
        }
        XCTAssertEqual(try type("HKCategoryTypeIdentifierSleepAnalysis").valueNames[3], "asleepCore")
        XCTAssertEqual(CategoryTypes.severitySymptoms.count, 36)
        for type in TypeCatalog.categoryTypes {
            XCTAssertEqual(type.categoryValues, Set(type.valueNames.keys), type.identifier)
            XCTAssertNil(type.aggregation)
        }
    }

    func testDurationLimitsAndUndeterminedDuration() throws {
        func limit(_ name: String) throws -> Microseconds? { try type("HKCategoryTypeIdentifier" + name).maximumDuration }
        XCTAssertEqual(try limit("SleepAnalysis"), 4 * day)
        XCTAssertEqual(try limit("Wheezing"), 4 * day)
        XCTAssertEqual(try limit("CervicalMucusQuality"), 14 * day)
        XCTAssertEqual(try limit("Headache"), 14 * day)
        XCTAssertEqual(try limit("MoodChanges"), 14 * day)
        XCTAssertNil(try limit("MenstrualFlow"))
        let undetermined = Set(TypeCatalog.all.filter(\.allowsUndeterminedDuration).map(\.shortName))
        XCTAssertEqual(undetermined, ["Pregnancy", "Lactation", "Contraceptive"])
        for name in undetermined { XCTAssertNil(try limit(name)) }
        XCTAssertTrue(TypeCatalog.all.allSatisfy { $0.minimumDuration == nil })
    }

    func testRequiredMetadata() throws {
        XCTAssertEqual(try type("HKCategoryTypeIdentifierMenstrualFlow").requiredMetadataKeys, ["HKMenstrualCycleStart"])
        XCTAssertEqual(try type("HKQuantityTypeIdentifierInsulinDelivery").requiredMetadataKeys, ["HKInsulinDeliveryReason"])
        XCTAssertEqual(TypeCatalog.all.filter { !$0.requiredMetadataKeys.isEmpty }.count, 2)
    }

    func testAppleOnlyAndAuthorizationFlags() throws {
        for name in ["HKQuantityTypeIdentifierAppleExerciseTime", "HKQuantityTypeIdentifierAppleStandTime",
                     "HKQuantityTypeIdentifierWalkingHeartRateAverage", "HKQuantityTypeIdentifierAppleSleepingWristTemperature",
                     "HKCategoryTypeIdentifierAppleStandHour", "HKCategoryTypeIdentifierHighHeartRateEvent"] {
            let t = try type(name)
            XCTAssertTrue(t.appleOnlyWrite, name)
            XCTAssertFalse(t.isShareable, name)
            XCTAssertTrue(t.isReadable, name)
        }
        XCTAssertFalse(try type("HKQuantityTypeIdentifierHeartRate").appleOnlyWrite)
        XCTAssertTrue(try type("HKQuantityTypeIdentifierHeartRate").isShareable)
        XCTAssertFalse(try type("HKCorrelationTypeIdentifierFood").isShareable)
        XCTAssertFalse(try type("HKCorrelationTypeIdentifierFood").isReadable)
        XCTAssertFalse(try type("HKCharacteristicTypeIdentifierBiologicalSex").isShareable)
        XCTAssertTrue(try type("HKCharacteristicTypeIdentifierBiologicalSex").isReadable)
        XCTAssertTrue(TypeCatalog.workoutType.isShareable)
    }

    func testCorrelationContents() throws {
        XCTAssertEqual(try type("HKCorrelationTypeIdentifierBloodPressure").correlationContents,
                       ["HKQuantityTypeIdentifierBloodPressureSystolic", "HKQuantityTypeIdentifierBloodPressureDiastolic"])
        let food = try XCTUnwrap(try type("HKCorrelationTypeIdentifierFood").correlationContents)
        XCTAssertEqual(food.count, 39)
        XCTAssertTrue(food.contains("HKQuantityTypeIdentifierDietaryEnergyConsumed"))
        XCTAssertFalse(food.contains("HKQuantityTypeIdentifierStepCount"))
    }

    func testCharacteristics() throws {
        XCTAssertEqual(Set(TypeCatalog.characteristicTypes.map(\.shortName)),
                       ["BiologicalSex", "BloodType", "DateOfBirth", "FitzpatrickSkinType", "WheelchairUse", "ActivityMoveMode"])
        XCTAssertEqual(try type("HKCharacteristicTypeIdentifierBloodType").characteristicValues, Set(0...8))
        XCTAssertEqual(try type("HKCharacteristicTypeIdentifierActivityMoveMode").characteristicValues, [1, 2])
        XCTAssertNil(try type("HKCharacteristicTypeIdentifierDateOfBirth").characteristicValues)
    }

    func testResolveByIdentifierAndShortName() throws {
        for name in ["HKQuantityTypeIdentifierHeartRate", "HeartRate", "heartRate", "heart-rate", "heart_rate", "HEART RATE"] {
            XCTAssertEqual(try TypeCatalog.resolve(name).identifier, "HKQuantityTypeIdentifierHeartRate", name)
        }
        XCTAssertEqual(try TypeCatalog.resolve("workout").identifier, "HKWorkoutTypeIdentifier")
        XCTAssertEqual(try TypeCatalog.resolve("sleep-analysis").identifier, "HKCategoryTypeIdentifierSleepAnalysis")
        XCTAssertEqual(try TypeCatalog.resolve("vo2max").identifier, "HKQuantityTypeIdentifierVO2Max")
        XCTAssertEqual(try TypeCatalog.resolve("blood_pressure").identifier, "HKCorrelationTypeIdentifierBloodPressure")
        XCTAssertEqual(try TypeCatalog.resolve("biologicalSex").kind, .characteristic)
        XCTAssertNil(TypeCatalog.type("HeartRate"))
    }

    func testEveryIdentifierIsFoundFromItsBytesAndNothingElseIs() {
        func entry(_ text: String) -> HealthType? { text.withCString { TypeCatalog.entry(identifierBytes: $0) } }
        for type in TypeCatalog.all {
            XCTAssertTrue(entry(type.identifier) === type, type.identifier)
            XCTAssertNil(entry(type.identifier + "X"), type.identifier)
            XCTAssertNil(entry(String(type.identifier.dropLast())), type.identifier)
        }
        // Short names and other spellings are `entry(named:)`'s, which also takes identifiers.
        for name in ["HeartRate", "heart_rate", "hkquantitytypeidentifierheartrate", "", String(repeating: "A", count: 500)] {
            XCTAssertNil(entry(name), name)
        }
        XCTAssertTrue(TypeCatalog.entry(named: "heart_rate") === TypeCatalog.type("HKQuantityTypeIdentifierHeartRate"))
        XCTAssertTrue(TypeCatalog.entry(named: "HKQuantityTypeIdentifierHeartRate") === TypeCatalog.type("HKQuantityTypeIdentifierHeartRate"))
        XCTAssertNil(TypeCatalog.entry(named: "HartRate"))
    }

    func testASampleIsTheSameValueWithOrWithoutItsCatalogueEntry() throws {
        let heartRate = try type("HKQuantityTypeIdentifierHeartRate")
        let uuid = UUID()
        let resolved = Sample(uuid: uuid, type: heartRate.identifier, start: 1, end: 1, body: .quantity(Quantity(60, "count/min"), count: 1),
                              catalogType: heartRate)
        let named = Sample(uuid: uuid, type: heartRate.identifier, start: 1, end: 1, body: .quantity(Quantity(60, "count/min"), count: 1))
        XCTAssertEqual(resolved, named)
        XCTAssertEqual(Set([resolved, named]).count, 1)
        XCTAssertTrue(resolved.catalogType === heartRate)
        XCTAssertTrue(named.catalogType === heartRate)
        XCTAssertTrue(resolved.stamped(revision: nil, device: nil, creationTime: 5).catalogType === heartRate)
        XCTAssertNil(Sample(type: "HartRate", start: 1, end: 1, body: .quantity(Quantity(60, "count/min"), count: 1)).catalogType)
    }

    func testUnknownNamesSuggestTheNearest() {
        XCTAssertThrowsError(try TypeCatalog.resolve("hart-rate")) { error in
            let health = error as? HealthError
            XCTAssertEqual(health?.code, .invalidArgument)
            XCTAssertEqual(health?.field, "type")
            XCTAssertEqual(health?.message,
                           "unknown type \"hart-rate\"; did you mean \"HeartRate\" (HKQuantityTypeIdentifierHeartRate)?")
        }
        XCTAssertThrowsError(try TypeCatalog.resolve("StepCont")) { error in
            XCTAssertTrue((error as? HealthError)?.message.contains("did you mean \"StepCount\"") ?? false)
        }
        XCTAssertThrowsError(try TypeCatalog.resolve("xyzzy")) { error in
            XCTAssertEqual((error as? HealthError)?.message, "unknown type \"xyzzy\"")
        }
    }

    func testEditDistance() {
        XCTAssertEqual(EditDistance.between("kitten", "sitting"), 3)
        XCTAssertEqual(EditDistance.between("", "abc"), 3)
        XCTAssertEqual(EditDistance.between("abc", "abc"), 0)
    }

    func testWorkoutActivityTypes() {
        let all = WorkoutActivityTypes.all
        XCTAssertEqual(all.count, 83)
        XCTAssertTrue(all.isSuperset(of: Set(Int32(1)...Int32(80))))
        XCTAssertFalse(all.contains(81))
        XCTAssertFalse(all.contains(0))
        XCTAssertFalse(all.contains(84))
        XCTAssertTrue(all.isSuperset(of: [82, 83, 3000]))
        XCTAssertEqual(WorkoutActivityTypes.name(of: 37), "running")
        XCTAssertEqual(WorkoutActivityTypes.rawValue(named: "HighIntensityIntervalTraining"), 63)
        XCTAssertEqual(WorkoutActivityTypes.rawValue(named: "other"), 3000)
    }
}
