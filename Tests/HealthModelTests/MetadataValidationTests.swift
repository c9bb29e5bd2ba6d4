import XCTest
@testable import HealthModel

final class MetadataValidationTests: XCTestCase {
    typealias F = Fixture

    private func sample(_ metadata: Metadata) -> Sample { F.quantity(metadata: metadata) }

    private func assertRejected(_ metadata: Metadata, field: String, message: String = "",
                                file: StaticString = #filePath, line: UInt = #line) {
        HealthModelTests.assertRejected([F.quantity(), sample(metadata)], index: 1, field: field, message: message,
                                        file: file, line: line)
    }

    private func assertAccepted(_ metadata: Metadata, file: StaticString = #filePath, line: UInt = #line) {
        HealthModelTests.assertAccepted([sample(metadata)], file: file, line: line)
    }

    // MARK: docs/semantics.md §7.1

    func testCustomKeysAcceptEveryValueKind() {
        assertAccepted(["com.example.note": .string("x"), "com.example.n": .int(-3), "com.example.d": .double(2.5),
                        "com.example.b": .bool(false), "com.example.t": .date(F.t0),
                        "com.example.q": .quantity(Quantity(3, "km"))])
    }

    func testPrivateKeysAreRejected() {
        assertRejected(["_HKPrivateSomething": .int(1)], field: "metadata._HKPrivateSomething", message: "private to Apple")
    }

    func testEmptyKeyIsRejected() {
        assertRejected(["": .int(1)], field: "metadata")
    }

    func testNonFiniteNumbersAreRejectedEverywhere() {
        assertRejected(["custom": .double(.nan)], field: "metadata.custom", message: "finite")
        assertRejected(["custom": .quantity(Quantity(.infinity, "m"))], field: "metadata.custom", message: "finite")
        assertRejected(["HKReferenceRangeLowerLimit": .double(-.infinity)], field: "metadata.HKReferenceRangeLowerLimit")
    }

    func testQuantityValuesNeedAParseableUnit() {
        assertRejected(["custom": .quantity(Quantity(1, "furlongs"))], field: "metadata.custom", message: "Invalid unit")
    }

    // MARK: docs/semantics.md §7.2 value kinds and constraints

    func testWrongClassIsRejected() {
        assertRejected([MetadataKey.externalUUID: .int(5)], field: "metadata.HKExternalUUID",
                       message: "Invalid class NSNumber for metadata key: HKExternalUUID. Expected NSString.")
        assertRejected([MetadataKey.wasUserEntered: .string("yes")], field: "metadata.HKWasUserEntered", message: "Invalid class")
        assertRejected(["HKReferenceRangeUpperLimit": .string("5")], field: "metadata.HKReferenceRangeUpperLimit",
                       message: "Expected NSNumber")
    }

    func testBoolKeysAcceptBoolsAndZeroOrOne() {
        assertAccepted([MetadataKey.wasUserEntered: .bool(true), "HKIndoorWorkout": .int(0), "HKWasTakenInLab": .int(1)])
        assertRejected([MetadataKey.wasUserEntered: .int(2)], field: "metadata.HKWasUserEntered", message: "Invalid metadata value")
    }

    func testTimeZoneMustBeAValidName() {
        assertAccepted([MetadataKey.timeZone: .string("Europe/Paris")])
        assertAccepted([MetadataKey.timeZone: .string("America/Los_Angeles")])
        assertRejected([MetadataKey.timeZone: .string("Mars/Olympus_Mons")], field: "metadata.HKTimeZone",
                       message: "is not a valid time zone name string")
        assertRejected([MetadataKey.timeZone: .int(1)], field: "metadata.HKTimeZone", message: "Invalid class")
    }

    func testEnumKeysEnforceTheirRange() {
        assertAccepted(["HKHeartRateSensorLocation": .int(6), "HKBodyTemperatureSensorLocation": .double(11)])
        assertRejected(["HKHeartRateSensorLocation": .int(7)], field: "metadata.HKHeartRateSensorLocation",
                       message: "Invalid metadata value for HKHeartRateSensorLocation: 7")
        assertRejected(["HKBloodGlucoseMealTime": .int(0)], field: "metadata.HKBloodGlucoseMealTime")
        assertRejected(["HKWeatherCondition": .int(28)], field: "metadata.HKWeatherCondition")
        assertRejected(["HKSwimmingStrokeStyle": .double(2.5)], field: "metadata.HKSwimmingStrokeStyle")
        assertRejected(["HKVO2MaxTestType": .bool(true)], field: "metadata.HKVO2MaxTestType", message: "Invalid class")
    }

    func testQuantityKeysNeedACompatibleUnit() {
        assertAccepted(["HKAverageSpeed": .quantity(Quantity(10, "km/hr")), "HKElevationAscended": .quantity(Quantity(30, "ft")),
                        "HKVO2MaxValue": .quantity(Quantity(45, "ml/(kg*min)")), "HKWeatherTemperature": .quantity(Quantity(70, "degF")),
                        "HKMetadataKeyAudioExposureLevel": .quantity(Quantity(70, "dBASPL"))])
        assertRejected(["HKAverageSpeed": .quantity(Quantity(10, "km"))], field: "metadata.HKAverageSpeed",
                       message: "HKAverageSpeed has an incompatible unit")
        assertRejected(["HKLapLength": .double(25)], field: "metadata.HKLapLength", message: "'HKLapLength' is not a quantity")
    }

    func testDigitalSignatureMustBeBase64() {
        assertAccepted(["HKDigitalSignature": .string("MIIBAA==")])
        assertRejected(["HKDigitalSignature": .string("not base64!")], field: "metadata.HKDigitalSignature", message: "Base64")
    }

    func testHeartRateRecoveryActivityTypeMustBeAWorkoutType() {
        assertAccepted(["HKMetadataKeyHeartRateRecoveryActivityType": .int(37)])
        assertRejected(["HKMetadataKeyHeartRateRecoveryActivityType": .int(81)],
                       field: "metadata.HKMetadataKeyHeartRateRecoveryActivityType")
    }

    /// Every predefined key accepts a value of its kind and refuses a value of another kind.
    func testEveryPredefinedKeyIsTypeChecked() {
        for (key, rule) in PredefinedMetadataKeys.rules {
            var good: MetadataValue
            let bad: MetadataValue
            switch rule {
            case .string, .nonEmptyString: (good, bad) = (.string("x"), .int(1))
            case .base64: (good, bad) = (.string("AAAA"), .double(1))
            case .timeZoneName: (good, bad) = (.string("UTC"), .bool(true))
            case .bool: (good, bad) = (.bool(true), .string("true"))
            case .number: (good, bad) = (.double(1.5), .date(F.t0))
            case .integer(let range): (good, bad) = (.int(range.lowerBound), .string("1"))
            case .workoutActivityType: (good, bad) = (.int(37), .quantity(Quantity(37, "count")))
            case .quantity(let unit): (good, bad) = (.quantity(Quantity(1, unit)), .double(1))
            }
            var metadata: Metadata = [key: good]
            // The sync keys only come in pairs (docs/semantics.md §7.3).
            if key == MetadataKey.syncIdentifier { metadata[MetadataKey.syncVersion] = .int(0) }
            if key == MetadataKey.syncVersion { metadata[MetadataKey.syncIdentifier] = .string("id") }
            assertAccepted(metadata)
            metadata[key] = bad
            assertRejected(metadata, field: "metadata.\(key)")
        }
    }

    // MARK: docs/semantics.md §7.3 sync identifier / version

    func testSyncKeysComeInPairs() {
        assertAccepted([MetadataKey.syncIdentifier: .string("a"), MetadataKey.syncVersion: .int(0)])
        assertAccepted([MetadataKey.syncIdentifier: .string("a"), MetadataKey.syncVersion: .double(3)])
        assertRejected([MetadataKey.syncIdentifier: .string("a")], field: "metadata.HKMetadataKeySyncVersion",
                       message: "must be provided if HKMetadataKeySyncIdentifier is provided")
        assertRejected([MetadataKey.syncVersion: .int(1)], field: "metadata.HKMetadataKeySyncVersion",
                       message: "may not be provided if HKMetadataKeySyncIdentifier is not provided")
    }

    func testSyncIdentifierMustNotBeEmpty() {
        assertRejected([MetadataKey.syncIdentifier: .string(""), MetadataKey.syncVersion: .int(1)],
                       field: "metadata.HKMetadataKeySyncIdentifier", message: "must not be empty")
    }

    func testSyncVersionMustBeANonNegativeInteger() {
        let id: Metadata = [MetadataKey.syncIdentifier: .string("a")]
        for bad: MetadataValue in [.int(-1), .double(1.5), .double(1e300), .string("1"), .bool(true)] {
            assertRejected(id.merging([MetadataKey.syncVersion: bad]) { $1 }, field: "metadata.HKMetadataKeySyncVersion")
        }
    }

    // MARK: docs/semantics.md §7.4 required keys

    func testMenstrualFlowRequiresCycleStart() {
        HealthModelTests.assertRejected([F.category(F.menstrualFlow, 2)], field: "metadata.HKMenstrualCycleStart",
                                        message: "is missing a required metadata key")
        HealthModelTests.assertAccepted([F.category(F.menstrualFlow, 2, metadata: [MetadataKey.menstrualCycleStart: .bool(true)])])
    }

    func testInsulinDeliveryRequiresReason() {
        HealthModelTests.assertRejected([F.quantity(F.insulin, 2, "IU")], field: "metadata.HKInsulinDeliveryReason",
                                        message: "is missing a required metadata key")
        HealthModelTests.assertAccepted([F.quantity(F.insulin, 2, "IU", metadata: [MetadataKey.insulinDeliveryReason: .int(2)])])
        HealthModelTests.assertRejected([F.quantity(F.insulin, 2, "IU", metadata: [MetadataKey.insulinDeliveryReason: .int(3)])],
                                        field: "metadata.HKInsulinDeliveryReason", message: "Invalid metadata value")
    }
}
