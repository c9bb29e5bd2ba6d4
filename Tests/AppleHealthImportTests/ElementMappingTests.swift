import Foundation
import HealthModel
import XCTest
@testable import AppleHealthImport

final class ElementMappingTests: XCTestCase {
    private let watch = "&lt;&lt;HKDevice: 0x3012772a0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2&gt;"

    func testQuantityRecordWithSourceDeviceAndMetadata() throws {
        let path = try SyntheticExport.write(SyntheticExport.record("HKQuantityTypeIdentifierHeartRate", value: "74", unit: "count/min",
                                                                    source: "Alexandre's Apple Watch", device: watch,
                                                                    inner: "<MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"0\"/>"))
        let sample = try XCTUnwrap(SyntheticExport.read(path).samples.first)
        XCTAssertEqual(sample.type, "HKQuantityTypeIdentifierHeartRate")
        XCTAssertEqual(sample.quantity, Quantity(74, "count/min"))
        XCTAssertEqual(sample.start, ExportDates.instant("2024-01-01 01:01:36 +0200"))
        XCTAssertEqual(sample.sourceRevision?.source.name, "Alexandre's Apple Watch")
        XCTAssertEqual(sample.sourceRevision?.version, "17.2")
        XCTAssertEqual(sample.device?.hardwareVersion, "Watch6,7")
        XCTAssertEqual(sample.metadata, ["HKMetadataKeyHeartRateMotionContext": .int(0)])
    }

    func testCorrelationRecordsAreStoredOnceInsideIt() throws {
        let systolic = SyntheticExport.record("HKQuantityTypeIdentifierBloodPressureSystolic", value: "118", unit: "mmHg", source: "Health")
        let diastolic = SyntheticExport.record("HKQuantityTypeIdentifierBloodPressureDiastolic", value: "66", unit: "mmHg", source: "Health")
        let correlation = "<Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\" sourceName=\"Health\" sourceVersion=\"17.2\" "
            + "startDate=\"2024-01-01 01:01:36 +0200\" endDate=\"2024-01-01 01:01:36 +0200\">\(diastolic)\(systolic)</Correlation>"
        let lone = SyntheticExport.record("HKQuantityTypeIdentifierBloodPressureSystolic", value: "130", unit: "mmHg", source: "Health")
        // The top-level copies come before the correlation (as the Health app writes them) and after it.
        let read = try SyntheticExport.read(try SyntheticExport.write([systolic, diastolic, lone, correlation, systolic].joined(separator: "\n")))
        XCTAssertEqual(read.samples.map(\.type), ["HKQuantityTypeIdentifierBloodPressureSystolic", "HKCorrelationTypeIdentifierBloodPressure"])
        XCTAssertEqual(read.samples[0].quantity?.value, 130)
        XCTAssertEqual(read.samples[1].correlationObjects?.count, 2)
        XCTAssertEqual(read.summary.byType["HKQuantityTypeIdentifierBloodPressureSystolic"]?.skipped,
                       ["stored once, inside its correlation (repeated at top level)": 2])
    }

    /// Thousands of correlations whose records come first, by type, as the Health app writes them:
    /// records no correlation holds are handed out as they are read, not kept until the end, and
    /// each member is still stored once, inside its correlation.
    func testRecordsOfCorrelationTypesAreNotHeldUntilTheEnd() throws {
        let count = 2000
        func stamp(_ i: Int) -> String { String(format: "2024-01-%02d %02d:%02d:00 +0200", 1 + i / 1440, i / 60 % 24, i % 60) }
        func pressure(_ kind: String, _ i: Int, _ value: Int) -> String {
            SyntheticExport.record("HKQuantityTypeIdentifierBloodPressure" + kind, value: String(value), unit: "mmHg", source: "Cuff", start: stamp(i))
        }
        let systolic = (0..<count).map { pressure("Systolic", $0, 120) }, diastolic = (0..<count).map { pressure("Diastolic", $0, 80) }
        let lone = (0..<count).map { pressure("Systolic", $0, 140) }
        let correlations = (0..<count).map { i in
            "<Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\" sourceName=\"Cuff\" sourceVersion=\"1\" "
                + "startDate=\"\(stamp(i))\" endDate=\"\(stamp(i))\">\(diastolic[i])\(systolic[i])</Correlation>"
        }
        let path = try SyntheticExport.write((diastolic + systolic + lone + correlations).joined(separator: "\n"))
        let export = try AppleHealthExport(archive: ExportArchive(path: path))
        let firstCorrelationLine = 8 + 3 * count // after the header, the DTD and ExportDate
        var loneRead = 0, correlationsRead = 0
        while let item = try export.next() {
            guard case .sample(let sample, let origin) = item else { continue }
            if sample.correlationObjects?.count == 2 {
                correlationsRead += 1
            } else {
                XCTAssertEqual(sample.quantity?.value, 140)
                XCTAssertLessThan(origin.line, firstCorrelationLine)
                XCTAssertEqual(correlationsRead, 0, "handed out before the correlations are read")
                loneRead += 1
            }
        }
        XCTAssertEqual(loneRead, count)
        XCTAssertEqual(correlationsRead, count)
        XCTAssertEqual(export.summary.byType["HKQuantityTypeIdentifierBloodPressureSystolic"]?.skipped,
                       ["stored once, inside its correlation (repeated at top level)": count])
        XCTAssertEqual(export.summary.byType["HKQuantityTypeIdentifierBloodPressureDiastolic"]?.skipped,
                       ["stored once, inside its correlation (repeated at top level)": count])
    }

    func testOldAndNewWorkoutShapes() throws {
        let old = "<Workout workoutActivityType=\"HKWorkoutActivityTypeCycling\" duration=\"8.966666666666667\" durationUnit=\"min\" "
            + "totalDistance=\"2.858\" totalDistanceUnit=\"km\" totalEnergyBurned=\"10\" totalEnergyBurnedUnit=\"kcal\" sourceName=\"Strava\" "
            + "startDate=\"2017-09-07 22:29:37 +0200\" endDate=\"2017-09-07 22:38:35 +0200\">"
            + "<MetadataEntry key=\"HKExternalUUID\" value=\"strava://activities/1\"/></Workout>"
        let new = "<Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" duration=\"30\" durationUnit=\"min\" sourceName=\"Watch\" "
            + "startDate=\"2024-01-01 10:00:00 +0100\" endDate=\"2024-01-01 10:40:00 +0100\">"
            + "<WorkoutEvent type=\"HKWorkoutEventTypePause\" date=\"2024-01-01 10:10:00 +0100\"/>"
            + "<WorkoutEvent type=\"HKWorkoutEventTypeResume\" date=\"2024-01-01 10:20:00 +0100\"/>"
            + "<WorkoutEvent type=\"HKWorkoutEventTypeSegment\" date=\"2024-01-01 10:00:00 +0100\" duration=\"5\" durationUnit=\"min\"/>"
            + "<WorkoutActivity uuid=\"6F6B1A52-8C2B-4F0C-9E0E-6C1D0B1A2B3C\" startDate=\"2024-01-01 10:00:00 +0100\" endDate=\"2024-01-01 10:40:00 +0100\"/>"
            + "<WorkoutStatistics type=\"HKQuantityTypeIdentifierHeartRate\" startDate=\"2024-01-01 10:00:00 +0100\" endDate=\"2024-01-01 10:40:00 +0100\" "
            + "average=\"150\" minimum=\"90\" maximum=\"180\" unit=\"count/min\"/></Workout>"
        let samples = try SyntheticExport.read(try SyntheticExport.write(old + "\n" + new)).samples
        let oldWorkout = try XCTUnwrap(samples.first?.workout)
        XCTAssertEqual(oldWorkout.activityType, 13)
        XCTAssertEqual(oldWorkout.duration, 538_000_000, "8.97 min is 538.0 s; the dates allow 538 s")
        XCTAssertEqual(Set(oldWorkout.statistics), [
            WorkoutStatistic(quantityType: "HKQuantityTypeIdentifierDistanceCycling", sum: Quantity(2.858, "km")),
            WorkoutStatistic(quantityType: "HKQuantityTypeIdentifierActiveEnergyBurned", sum: Quantity(10, "kcal")),
        ])
        let newWorkout = try XCTUnwrap(samples.last?.workout)
        XCTAssertEqual(newWorkout.events.map(\.type), [.pause, .resume, .segment])
        XCTAssertEqual(newWorkout.events[2].end - newWorkout.events[2].start, 300_000_000)
        XCTAssertEqual(newWorkout.activities.first?.uuid, UUID(uuidString: "6F6B1A52-8C2B-4F0C-9E0E-6C1D0B1A2B3C"))
        XCTAssertEqual(newWorkout.statistics, [WorkoutStatistic(quantityType: "HKQuantityTypeIdentifierHeartRate", average: Quantity(150, "count/min"),
                                                                minimum: Quantity(90, "count/min"), maximum: Quantity(180, "count/min"))])
    }

    func testRoutesInlineAndAsGPXBecomeRouteSeriesOfTheirWorkout() throws {
        let gpx = "<?xml version=\"1.0\"?><gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>"
            + "<trkpt lon=\"-122.3\" lat=\"37.7\"><ele>4</ele><time>2019-06-11T22:00:42Z</time>"
            + "<extensions><speed>0.18</speed><course>206.25</course><hAcc>8.06</hAcc><vAcc>6.42</vAcc></extensions></trkpt>"
            + "<trkpt lon=\"-122.3\" lat=\"37.7\"><ele>4</ele><time>2019-06-11T22:00:43Z</time></trkpt></trkseg></trk></gpx>"
        let workout = "<Workout workoutActivityType=\"HKWorkoutActivityTypeWalking\" sourceName=\"Watch\" "
            + "startDate=\"2019-06-11 15:00:00 -0700\" endDate=\"2019-06-11 15:30:00 -0700\">"
            + "<WorkoutRoute sourceName=\"Phone\" startDate=\"2019-06-11 15:00:00 -0700\" endDate=\"2019-06-11 15:30:00 -0700\">"
            + "<MetadataEntry key=\"HKMetadataKeySyncVersion\" value=\"2\"/><MetadataEntry key=\"trail\" value=\"Bay\"/>"
            + "<FileReference path=\"/workout-routes/route_1.gpx\"/></WorkoutRoute>"
            + "<WorkoutRoute sourceName=\"Phone\" startDate=\"2019-06-11 15:00:00 -0700\" endDate=\"2019-06-11 15:30:00 -0700\">"
            + "<Location date=\"2019-06-11 15:00:44 -0700\" latitude=\"37.7\" longitude=\"-122.4\" altitude=\"21\" speed=\"2.4\"/></WorkoutRoute></Workout>"
        let path = try SyntheticExport.write(workout, files: ["workout-routes/route_1.gpx": gpx])
        let read = try SyntheticExport.read(path)
        XCTAssertEqual(read.samples.count, 1)
        let workoutUUID = try XCTUnwrap(read.samples.first?.uuid)
        XCTAssertEqual(read.series.map(\.type), [TypeCatalog.workoutRouteType.identifier, TypeCatalog.workoutRouteType.identifier])
        XCTAssertEqual(read.series.map(\.workout), [workoutUUID, workoutUUID])
        XCTAssertEqual(read.series.map(\.sourceName), ["Phone", "Phone"])
        XCTAssertEqual(Set(read.series.map(\.id)).count, 2, "each route of a workout has its own id")
        XCTAssertEqual(read.series[0].points, .locations([
            RouteLocation(time: 1_560_290_442_000_000, latitude: 37.7, longitude: -122.3, altitude: 4, horizontalAccuracy: 8.06,
                          verticalAccuracy: 6.42, course: 206.25, speed: 0.18),
            RouteLocation(time: 1_560_290_443_000_000, latitude: 37.7, longitude: -122.3, altitude: 4),
        ]))
        XCTAssertEqual(read.series[0].metadata, ["HKMetadataKeySyncVersion": .int(2), "trail": .string("Bay")])
        XCTAssertEqual(read.series[1].points, .locations([
            RouteLocation(time: 1_560_290_444_000_000, latitude: 37.7, longitude: -122.4, altitude: 21, speed: 2.4),
        ]))
        XCTAssertEqual(try SyntheticExport.read(path).series.map(\.id), read.series.map(\.id), "ids are derived, not drawn")
    }

    func testAMissingRouteFileIsReportedNotFatal() throws {
        let workout = "<Workout workoutActivityType=\"HKWorkoutActivityTypeWalking\" sourceName=\"Watch\" "
            + "startDate=\"2019-06-11 15:00:00 -0700\" endDate=\"2019-06-11 15:30:00 -0700\">"
            + "<WorkoutRoute sourceName=\"Phone\"><FileReference path=\"/workout-routes/gone.gpx\"/></WorkoutRoute></Workout>"
        let read = try SyntheticExport.read(try SyntheticExport.write(workout))
        XCTAssertEqual(read.samples.count, 1, "the workout is kept")
        XCTAssertEqual(read.summary.byType[TypeCatalog.workoutRouteType.identifier]?.skipped, ["unreadable: route file /workout-routes/gone.gpx is not in the export": 1])
    }

    func testBeatsBecomeAHeartbeatSeriesFromTheRecordsStart() throws {
        let beats = "<HeartRateVariabilityMetadataList><InstantaneousBeatsPerMinute bpm=\"78\" time=\"08:33:44,67\"/>"
            + "<InstantaneousBeatsPerMinute bpm=\"80\" time=\"08:33:45,42\"/></HeartRateVariabilityMetadataList>"
        let record = SyntheticExport.record("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", value: "25.5", unit: "ms",
                                            start: "2018-11-19 08:33:39 +0100", end: "2018-11-19 08:34:44 +0100", inner: beats)
        let read = try SyntheticExport.read(try SyntheticExport.write(record))
        XCTAssertEqual(read.samples.count, 1)
        let hrv = try XCTUnwrap(read.samples.first)
        let series = try XCTUnwrap(read.series.first)
        XCTAssertEqual(read.series.count, 1)
        XCTAssertEqual(series.type, TypeCatalog.heartbeatSeriesType.identifier)
        XCTAssertEqual(series.parent, hrv.uuid)
        XCTAssertNotEqual(series.id, hrv.uuid)
        XCTAssertEqual(series.start, hrv.start)
        XCTAssertEqual(series.end, hrv.end)
        XCTAssertEqual(series.points, .beats([Heartbeat(offset: 5_670_000), Heartbeat(offset: 6_420_000)]))
    }

    func testMeActivitySummaryAndUnrepresentableElementsAreCounted() throws {
        let body = "<Me HKCharacteristicTypeIdentifierDateOfBirth=\"1990-05-20\" HKCharacteristicTypeIdentifierBiologicalSex=\"HKBiologicalSexMale\" "
            + "HKCharacteristicTypeIdentifierBloodType=\"HKBloodTypeANegative\" HKCharacteristicTypeIdentifierFitzpatrickSkinType=\"HKFitzpatrickSkinTypeNotSet\" "
            + "HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse=\"None\"/>\n"
            + "<ActivitySummary dateComponents=\"2016-11-15\" activeEnergyBurned=\"590\" activeEnergyBurnedGoal=\"630\" activeEnergyBurnedUnit=\"kcal\"/>\n"
            + "<ClinicalRecord type=\"HKClinicalTypeIdentifierLabResultRecord\" sourceName=\"Hospital\" resourceFilePath=\"/clinical-records/x.json\"/>\n"
            + "<VisionPrescription type=\"HKVisionPrescriptionTypeGlasses\" dateIssued=\"2023-01-01 00:00:00 +0000\"/>"
        let read = try SyntheticExport.read(try SyntheticExport.write(body))
        XCTAssertEqual(read.me, [Characteristics(biologicalSex: 2, bloodType: 2, dateOfBirth: CalendarDay(year: 1990, month: 5, day: 20))])
        XCTAssertEqual(read.summary.byType["Me.CardioFitnessMedicationsUse"]?.skippedTotal, 1)
        XCTAssertEqual(read.summary.byType["ActivitySummary"]?.skippedTotal, 1)
        XCTAssertEqual(read.summary.byType["ClinicalRecord"]?.skipped, ["not representable in HealthStore": 1])
        XCTAssertEqual(read.summary.byType["VisionPrescription"]?.skipped, ["not representable in HealthStore": 1])
    }

    func testOldFormatImportsOrRefusesElementByElement() throws {
        let body = "<Record type=\"HKQuantityTypeIdentifierStepCount\" source=\"iPhone\" unit=\"count\" startDate=\"20151107171924+0100\" "
            + "endDate=\"20151107172924+0100\" value=\"120\"/>\n"
            + "<Record type=\"HKQuantityTypeIdentifierHeartRate\" source=\"Watch\" unit=\"count/min\" startDate=\"20151107000000+0100\" "
            + "endDate=\"20151108000000+0100\" recordCount=\"430\" min=\"50\" max=\"160\" average=\"72\"/>\n"
            + "<Record type=\"HKQuantityTypeIdentifierNotAType\" sourceName=\"App\" unit=\"count\" startDate=\"2024-01-01 00:00:00 +0000\" "
            + "endDate=\"2024-01-01 00:00:00 +0000\" value=\"1\"/>"
        let read = try SyntheticExport.read(try SyntheticExport.write(body, version: nil))
        XCTAssertEqual(read.samples.count, 1)
        XCTAssertEqual(read.samples.first?.sourceRevision?.source.name, "iPhone")
        XCTAssertEqual(read.samples.first?.start, ExportDates.instant("2015-11-07 17:19:24 +0100"))
        XCTAssertEqual(read.summary.bySource["Watch"]?.skipped, ["pre-aggregated row of 430 records (iOS 8/9 min/max/average), not a sample": 1])
        XCTAssertEqual(read.summary.byType["HKQuantityTypeIdentifierNotAType"]?.skipped,
                       ["type HKQuantityTypeIdentifierNotAType is not in HealthStore's catalog": 1])
    }

    func testMalformedElementsStopWithPlaceUnlessSkipped() throws {
        let bad = SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: "12", start: "2024-02-30T99")
        let good = SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: "13")
        let path = try SyntheticExport.write(good + "\n" + bad + "\n" + good)
        XCTAssertThrowsError(try SyntheticExport.read(path)) { error in
            guard case .invalidElement(_, let line, let element, let reason)? = error as? ImportError else { return XCTFail("\(error)") }
            XCTAssertEqual(line, 9)
            XCTAssertEqual(element, "Record")
            XCTAssertTrue(reason.contains("startDate"), reason)
        }
        let skipped = try SyntheticExport.read(path, skipInvalid: true)
        XCTAssertEqual(skipped.samples.count, 2)
        XCTAssertEqual(skipped.samples[0].uuid, skipped.samples[1].uuid, "same content, same UUID")
        XCTAssertEqual(skipped.summary.invalidCount, 1)
    }

    func testMalformedXMLStopsWithFileLineAndColumn() throws {
        // iOS 8/9 wrote third-party metadata keys as attribute names with spaces.
        let path = try SyntheticExport.write(SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: "1") + "\n"
                                             + "<Record type=\"HKQuantityTypeIdentifierStepCount\" Withings Link=\"x\"/>")
        XCTAssertThrowsError(try SyntheticExport.read(path)) { error in
            guard case .malformed(let file, let line, let column, _)? = error as? ImportError else { return XCTFail("\(error)") }
            XCTAssertEqual(file, path)
            XCTAssertEqual(line, 9)
            XCTAssertGreaterThan(column, 1)
        }
        let skipped = try SyntheticExport.read(path, skipInvalid: true)
        XCTAssertEqual(skipped.samples.count, 1)
        XCTAssertEqual(skipped.summary.invalidCount, 1)
    }

    func testSkipInvalidGoesOnPastBadXMLWithoutLosingWhatTheReaderHadParsedAhead() throws {
        let good = (0..<3000).map { SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: String($0)) }
        let bad = "<Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"P\" Withings Link=\"x\">\n"
            + "  <MetadataEntry key=\"a\" value=\"b\"/>\n</Record>"
        let path = try SyntheticExport.write((good[..<1500] + [bad] + good[1500...] + [bad] + good[..<1]).joined(separator: "\n"))
        XCTAssertThrowsError(try SyntheticExport.read(path))
        let read = try SyntheticExport.read(path, skipInvalid: true)
        XCTAssertEqual(Set(read.samples.map { $0.quantity?.value ?? -1 }), Set((0..<3000).map(Double.init)))
        XCTAssertEqual(read.samples.count, 3001)
        XCTAssertEqual(read.summary.invalidCount, 2)
        XCTAssertEqual(read.summary.byType["XML"]?.skippedTotal, 2)
    }

    /// A read again past bad XML starts after the whole of the last element handed out: a nested
    /// record on a line of its own is not read again as a top-level one.
    func testSkipInvalidReadsAgainAfterTheLastElementsLastLine() throws {
        func stamp(_ i: Int) -> String { String(format: "2024-01-%02d %02d:%02d:00 +0200", 1 + i / 1440, i / 60 % 24, i % 60) }
        let correlations = (0..<2000).map { i in
            let members = ["Systolic", "Diastolic"].map {
                SyntheticExport.record("HKQuantityTypeIdentifierBloodPressure" + $0, value: String(60 + i % 60), unit: "mmHg", source: "Cuff", start: stamp(i))
            }
            return "<Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\" sourceName=\"Cuff\" sourceVersion=\"1\" "
                + "startDate=\"\(stamp(i))\" endDate=\"\(stamp(i))\">\n  \(members[0])\n  \(members[1])\n</Correlation>"
        }
        // libxml2 has parsed the record after the last correlation handed out when it meets the bad line.
        let steps = SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: "7")
        let bad = "<Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"P\" Withings Link=\"x\"/>"
        let path = try SyntheticExport.write((correlations[..<1000] + [steps, bad] + correlations[1000...]).joined(separator: "\n"))
        let read = try SyntheticExport.read(path, skipInvalid: true)
        XCTAssertEqual(read.samples.filter { $0.type == "HKCorrelationTypeIdentifierBloodPressure" }.count, 2000)
        XCTAssertEqual(Set(read.samples.map(\.uuid)).count, 2001)
        XCTAssertEqual(read.samples.filter { $0.type == "HKQuantityTypeIdentifierStepCount" }.count, 1)
        XCTAssertEqual(read.summary.invalidCount, 1, "\(read.summary.invalid)")
        XCTAssertEqual(read.summary.byType.keys.filter { $0.hasPrefix("HKQuantityTypeIdentifierBloodPressure") }, [])
    }

    func testANewerExportVersionNeedsForce() throws {
        let path = try SyntheticExport.write(SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: "1"), version: 99)
        XCTAssertThrowsError(try SyntheticExport.read(path)) { error in
            XCTAssertEqual(error as? ImportError, .newerVersion(found: 99, known: AppleHealthExport.knownVersion))
        }
        XCTAssertEqual(try SyntheticExport.read(path, force: true).samples.count, 1)
    }

    func testUUIDsDependOnContentNotOnHowItWasWritten() throws {
        func uuid(_ record: String) throws -> UUID {
            try XCTUnwrap(SyntheticExport.read(try SyntheticExport.write(record)).samples.first?.uuid)
        }
        let base = try uuid(SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: "12", start: "2024-01-01 01:00:00 +0100"))
        XCTAssertEqual(base, try uuid(SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: "12", start: "2024-01-01 02:00:00 +0200")))
        XCTAssertNotEqual(base, try uuid(SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: "13", start: "2024-01-01 01:00:00 +0100")))
        XCTAssertNotEqual(base, try uuid(SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: "12", source: "Other",
                                                                  start: "2024-01-01 01:00:00 +0100")))
        XCTAssertEqual(base.uuidString.dropFirst(14).first, "8", "a version 8 (name-based SHA-256) UUID")
    }

    /// The canonical text and its hash are a stored format: a store holding an earlier import must
    /// meet the same UUIDs again (values computed independently, by Python's hashlib over the text).
    func testUUIDsAreTheSameAsEarlierImportsDerived() throws {
        func uuid(_ record: String) throws -> String? {
            try SyntheticExport.read(try SyntheticExport.write(record)).samples.first?.uuid.uuidString
        }
        XCTAssertEqual(try uuid(SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: "12", start: "2024-01-01 01:00:00 +0100")),
                       "F36635AD-4042-8AF7-826B-558CA97CF400")
        let watch = "&lt;&lt;HKDevice: 0x2812d0f00&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2&gt;"
        XCTAssertEqual(try uuid(SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: "12", start: "2024-01-01 01:00:00 +0100",
                                                       device: watch)),
                       "C87C4999-A54C-8AFD-BAA3-55BA227070C0")
    }

    /// The same for every shape an export holds: metadata of each kind, a category, a correlation,
    /// old- and new-style workouts and a beat series (pinned from the importer before its speed-ups).
    func testUUIDsOfEveryShapeAreTheSameAsEarlierImportsDerived() throws {
        let metadata = "<MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"1\"/>"
            + "<MetadataEntry key=\"HKWeatherTemperature\" value=\"56 degF\"/><MetadataEntry key=\"HKWasUserEntered\" value=\"1\"/>"
            + "<MetadataEntry key=\"Free Key\" value=\"text\"/><MetadataEntry key=\"free key\" value=\"2.5\"/>"
            + "<MetadataEntry key=\"HKTimeZone\" value=\"Europe/Paris\"/>"
        let beats = "<HeartRateVariabilityMetadataList><InstantaneousBeatsPerMinute bpm=\"78\" time=\"08:33:44,67\"/>"
            + "<InstantaneousBeatsPerMinute bpm=\"80\" time=\"08:33:45.42\"/></HeartRateVariabilityMetadataList>"
        let systolic = SyntheticExport.record("HKQuantityTypeIdentifierBloodPressureSystolic", value: "118", unit: "mmHg", source: "Health")
        let diastolic = SyntheticExport.record("HKQuantityTypeIdentifierBloodPressureDiastolic", value: "66", unit: "mmHg", source: "Health")
        let body = [
            SyntheticExport.record("HKQuantityTypeIdentifierHeartRate", value: "74.5", unit: "count/min", source: "Watch", device: watch,
                                   inner: metadata),
            SyntheticExport.record("HKQuantityTypeIdentifierVO2Max", value: "41.2", unit: "mL/min·kg", source: "Watch",
                                   start: "20151107171924+0100"),
            SyntheticExport.record("HKCategoryTypeIdentifierSleepAnalysis", value: "HKCategoryValueSleepAnalysisAsleepCore", unit: nil,
                                   source: "Watch", start: "2024-01-01 01:00:00 +0100", end: "2024-01-01 03:00:00 +0100"),
            SyntheticExport.record("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", value: "25.5", unit: "ms",
                                   start: "2018-11-19 08:33:39 +0100", end: "2018-11-19 08:34:44 +0100", inner: beats),
            "<Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\" sourceName=\"Health\" sourceVersion=\"17.2\" "
                + "startDate=\"2024-01-01 01:01:36 +0200\" endDate=\"2024-01-01 01:01:36 +0200\">\(diastolic)\(systolic)</Correlation>",
            "<Workout workoutActivityType=\"HKWorkoutActivityTypeCycling\" duration=\"8.966666666666667\" durationUnit=\"min\" "
                + "totalDistance=\"2.858\" totalDistanceUnit=\"km\" totalEnergyBurned=\"10\" totalEnergyBurnedUnit=\"kcal\" sourceName=\"Strava\" "
                + "startDate=\"2017-09-07 22:29:37 +0200\" endDate=\"2017-09-07 22:38:35 +0200\">"
                + "<MetadataEntry key=\"HKExternalUUID\" value=\"strava://activities/1\"/></Workout>",
            "<Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" duration=\"30\" durationUnit=\"min\" sourceName=\"Watch\" "
                + "startDate=\"2024-01-01 10:00:00 +0100\" endDate=\"2024-01-01 10:40:00 +0100\">"
                + "<WorkoutEvent type=\"HKWorkoutEventTypePause\" date=\"2024-01-01 10:10:00 +0100\"/>"
                + "<WorkoutEvent type=\"HKWorkoutEventTypeSegment\" date=\"2024-01-01 10:00:00 +0100\" duration=\"5\" durationUnit=\"min\"/>"
                + "<WorkoutActivity uuid=\"6F6B1A52-8C2B-4F0C-9E0E-6C1D0B1A2B3C\" startDate=\"2024-01-01 10:00:00 +0100\" "
                + "endDate=\"2024-01-01 10:40:00 +0100\"/>"
                + "<WorkoutStatistics type=\"HKQuantityTypeIdentifierHeartRate\" startDate=\"2024-01-01 10:00:00 +0100\" "
                + "endDate=\"2024-01-01 10:40:00 +0100\" average=\"150\" minimum=\"90\" maximum=\"180\" unit=\"count/min\"/></Workout>",
        ].joined(separator: "\n")
        let read = try SyntheticExport.read(try SyntheticExport.write(body))
        let uuids = read.samples.flatMap { [$0.uuid] + ($0.correlationObjects ?? []).map(\.uuid) } + read.series.map(\.id)
        XCTAssertEqual(uuids.map(\.uuidString), [
            "EFEF68F7-24EC-8C2E-8E5C-3A540CB2933E", "12FDD8E2-2A4E-890E-B7A1-98437CAB41B9", "33D021F6-7492-823F-8DB3-C21B3144CC7A",
            "C149DEB2-335F-8EEC-A1E9-88B6B4E011A8", "194B0026-10CA-866B-89DB-CFA6CE0BFE25", "10282F46-9B5C-8311-AFBD-FA972D6BF07E",
            "FFD8FC1A-4869-8F75-BEAE-52F92920DC06", "45EECA6E-7F1C-8695-8852-6CA6096D7C5F", "BC284CA3-E47B-8D3D-A634-D337DE501010",
            "0AB342C1-848B-8D04-8080-D6430215C2C7",
        ])
    }

    /// Records in a run share their identity text's start (type, source, device) and often their
    /// metadata, which the mapping reuses from the record before; a name spelt with other bytes that
    /// Swift's `==` calls equal ("é" and "e" + U+0301) must still get its own UUID and keep its bytes.
    func testCanonicallyEquivalentSpellingsInARunKeepTheirOwnBytesAndUUIDs() throws {
        let (composed, decomposed) = ("Caf\u{E9}", "Cafe\u{301}")
        XCTAssertEqual(composed, decomposed)
        func record(_ name: String) -> String {
            SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: "12", source: name,
                                   inner: "<MetadataEntry key=\"\(name)\" value=\"1\"/>")
        }
        func alone(_ name: String) throws -> UUID {
            try XCTUnwrap(SyntheticExport.read(try SyntheticExport.write(record(name))).samples.first?.uuid)
        }
        let run = try SyntheticExport.read(try SyntheticExport.write([composed, decomposed, composed].map(record).joined(separator: "\n")))
        XCTAssertEqual(run.samples.map(\.uuid), [try alone(composed), try alone(decomposed), try alone(composed)])
        XCTAssertNotEqual(run.samples[0].uuid, run.samples[1].uuid)
        XCTAssertEqual(run.samples.map { Array($0.sourceRevision?.source.name.utf8 ?? "".utf8) },
                       [Array(composed.utf8), Array(decomposed.utf8), Array(composed.utf8)])
        XCTAssertEqual(run.samples.map { $0.metadata.keys.map { Array($0.utf8) } },
                       [[Array(composed.utf8)], [Array(decomposed.utf8)], [Array(composed.utf8)]])
    }

    func testTheHealthAppZipIsReadInPlace() throws {
        let folder = try SyntheticExport.directory()
        let inner = folder.appendingPathComponent("apple_health_export")
        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
        let xml = try String(contentsOfFile: try SyntheticExport.write(SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: "7")), encoding: .utf8)
        try xml.write(to: inner.appendingPathComponent("export.xml"), atomically: true, encoding: .utf8)
        let zip = Process()
        zip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        zip.arguments = ["python3", "-c", "import shutil,sys; shutil.make_archive(sys.argv[1], 'zip', sys.argv[2])",
                         folder.appendingPathComponent("export").path, folder.path]
        try zip.run()
        zip.waitUntilExit()
        let read = try SyntheticExport.read(folder.appendingPathComponent("export.zip").path)
        XCTAssertEqual(read.samples.map(\.quantity), [Quantity(7, "count")])
    }
}
