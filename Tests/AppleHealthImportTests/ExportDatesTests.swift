import HealthModel
import XCTest
@testable import AppleHealthImport

final class ExportDatesTests: XCTestCase {
    /// 2024-01-01T00:00:00Z.
    private let newYear: Microseconds = 1_704_067_200_000_000

    func testEveryDateFormAnExportUses() {
        XCTAssertEqual(ExportDates.instant("2024-01-01 01:01:36 +0200"), newYear - 7200_000_000 + 3_696_000_000)
        XCTAssertEqual(ExportDates.instant("2024-01-01 00:00:00 +0000"), newYear)
        XCTAssertEqual(ExportDates.instant("20151107171924+0100"), ExportDates.instant("2015-11-07 17:19:24 +0100"))
        XCTAssertEqual(ExportDates.instant("2019-06-11T22:00:42Z"), ExportDates.instant("2019-06-11 22:00:42 +0000"))
        XCTAssertEqual(ExportDates.instant("2019-06-11T22:00:42.5+02:00"), ExportDates.instant("2019-06-11 20:00:42 +0000")! + 500_000)
        for bad in ["", "2024-13-01 00:00:00 +0000", "2024-01-01 00:00:00", "2024-01-01 00:00:00 +0200x", "yesterday"] {
            XCTAssertNil(ExportDates.instant(bad), bad)
        }
    }

    func testTheSameInstantWrittenWithAnotherOffsetIsEqual() {
        // The dogsheep zip fixture writes one route with -0700 and -0800: the same instant.
        XCTAssertEqual(ExportDates.instant("2016-11-14 07:25:44 -0700"), ExportDates.instant("2016-11-14 06:25:44 -0800"))
    }

    func testOffsetsAcrossADSTChangeComeFromTheText() {
        // Europe/Amsterdam left summer time at 03:00 +0200 on 2023-10-29: 02:30 happened twice.
        let first = ExportDates.instant("2023-10-29 02:30:00 +0200")!
        let second = ExportDates.instant("2023-10-29 02:30:00 +0100")!
        XCTAssertEqual(second - first, 3_600_000_000)
        XCTAssertEqual(ExportDates.offset("2023-10-29 02:30:00 +0100"), 3600)
        XCTAssertEqual(ExportDates.offset("2016-11-14 07:25:44 -0700"), -25_200)
    }

    func testBeatTimesOfDayInTheRecordsOffset() {
        let start = ExportDates.instant("2018-11-19 08:33:39 +0100")!
        XCTAssertEqual(ExportDates.timeOfDay("08:33:44,67", onOrAfter: start, offset: 3600), start + 5_670_000)
        XCTAssertEqual(ExportDates.timeOfDay("08:33:44.67", onOrAfter: start, offset: 3600), start + 5_670_000)
        XCTAssertEqual(ExportDates.timeOfDay("8:33:44.67 AM", onOrAfter: start, offset: 3600), start + 5_670_000)
        let evening = ExportDates.instant("2018-11-19 23:59:58 +0100")!
        XCTAssertEqual(ExportDates.timeOfDay("00:00:01,00", onOrAfter: evening, offset: 3600), evening + 3_000_000, "past midnight is the next day")
        XCTAssertNil(ExportDates.timeOfDay("08h33", onOrAfter: start, offset: 0))
    }

    func testDays() {
        XCTAssertEqual(ExportDates.day("2016-11-15"), CalendarDay(year: 2016, month: 11, day: 15))
        XCTAssertNil(ExportDates.day("2016-11"))
    }
}

final class DeviceDescriptionTests: XCTestCase {
    func testFieldsAreSplitAtLabelsSoCommasInValuesSurvive() {
        let text = "<<HKDevice: 0x3012772a0>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2, creation date:2023-12-01 10:00:00 +0000>"
        XCTAssertEqual(DeviceDescription.parse(text), Device(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch",
                                                             hardwareVersion: "Watch6,7", softwareVersion: "10.2"))
    }

    func testTheSameDeviceUnderAnotherAddressIsOneDevice() {
        let a = DeviceDescription.parse("<<HKDevice: 0x3012772a0>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2>")
        let b = DeviceDescription.parse("<<HKDevice: 0x3008d6850>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2>")
        XCTAssertNotNil(a)
        XCTAssertEqual(a, b)
    }

    func testDevicesFromMetadataKeys() {
        let device = DeviceDescription.fromMetadata([("HKDeviceName", "UA-651BLE"), ("HKDeviceManufacturerName", "A&D"),
                                                     ("HKDeviceSerialNumber", "5140"), ("other", "x")])
        XCTAssertEqual(device, Device(name: "UA-651BLE", manufacturer: "A&D", localIdentifier: "5140"))
        XCTAssertNil(DeviceDescription.fromMetadata([("other", "x")]))
        XCTAssertNil(DeviceDescription.parse("iPhone"))
    }
}

final class MetadataMappingTests: XCTestCase {
    func testKnownKeysByTypeQuantitiesAndFreeFormStrings() {
        let mapped = MetadataMapping.map([("HKWasUserEntered", "1"), ("HKWeatherTemperature", "56 degF"), ("HKWeatherHumidity", "96 %"),
                                          ("HKMetadataKeyHeartRateMotionContext", "0"), ("HKTimeZone", "Europe/Amsterdam"),
                                          ("Withings Link", "withings-bd2://timeline?userid=1&date=2"), ("Modified Date", "2016-04-18 15:56:05 +0000"),
                                          ("meal", "Dinner"), ("Meal", "Lunch")])
        XCTAssertEqual(mapped.metadata, [
            "HKWasUserEntered": .bool(true), "HKWeatherTemperature": .quantity(Quantity(56, "degF")),
            "HKWeatherHumidity": .quantity(Quantity(96, "%")), "HKMetadataKeyHeartRateMotionContext": .int(0),
            "HKTimeZone": .string("Europe/Amsterdam"), "Withings Link": .string("withings-bd2://timeline?userid=1&date=2"),
            "Modified Date": .string("2016-04-18 15:56:05 +0000"), "meal": .string("Dinner"), "Meal": .string("Lunch"),
        ])
        XCTAssertEqual(mapped.dropped, [])
    }

    func testKeysTheStoreRefusesAreReportedNotKept() {
        let mapped = MetadataMapping.map([("_HKPrivateSleepAlarmUserWakeTime", "2016-09-24 07:00:00 +0000"), ("HKNotAKey", "1")])
        XCTAssertEqual(mapped.metadata, [:])
        XCTAssertEqual(mapped.dropped.count, 2)
    }

    func testAValueNotFittingItsKeyStaysAStringForTheStoreToJudge() {
        XCTAssertEqual(MetadataMapping.value("maybe", key: "HKWasUserEntered"), .string("maybe"))
        XCTAssertEqual(MetadataMapping.value("56 furlongs", key: "HKWeatherTemperature"), .string("56 furlongs"))
    }
}

final class UnitAndCategoryTests: XCTestCase {
    func testExportUnitsParse() throws {
        for unit in ["count/min", "mL/min·kg", "mmol<180.1558800000541>/L", "Cal", "kcal", "mi", "degF", "%", "dBASPL", "ms", "mg/dL"] {
            XCTAssertEqual(try RecordMapping.unitString(unit), unit)
        }
        XCTAssertThrowsError(try RecordMapping.unitString("furlong"))
    }

    func testCategoryValueNames() throws {
        let sleep = try XCTUnwrap(TypeCatalog.type("HKCategoryTypeIdentifierSleepAnalysis"))
        XCTAssertEqual(RecordMapping.categoryValue("HKCategoryValueSleepAnalysisInBed", type: sleep), 0)
        XCTAssertEqual(RecordMapping.categoryValue("HKCategoryValueSleepAnalysisAsleep", type: sleep), 1)
        XCTAssertEqual(RecordMapping.categoryValue("HKCategoryValueSleepAnalysisAsleepCore", type: sleep), 3)
        XCTAssertEqual(RecordMapping.categoryValue("HKCategoryValueSleepAnalysisAsleepREM", type: sleep), 5)
        XCTAssertEqual(RecordMapping.categoryValue("2", type: sleep), 2)
        XCTAssertNil(RecordMapping.categoryValue("HKCategoryValueSleepAnalysisDreaming", type: sleep))
        let mindful = try XCTUnwrap(TypeCatalog.type("HKCategoryTypeIdentifierMindfulSession"))
        XCTAssertEqual(RecordMapping.categoryValue("HKCategoryValueNotApplicable", type: mindful), 0)
    }
}
