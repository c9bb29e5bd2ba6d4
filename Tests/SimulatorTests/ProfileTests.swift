import Foundation
import HealthModel
import XCTest
@testable import HealthSimulator

/// Profile JSON: the built-in fleet, round trips, and what `--profile` accepts and refuses.
final class ProfileTests: XCTestCase {
    func testBuiltinFleetHasEveryDeviceKindWithFullIdentity() throws {
        let fleet = BuiltinFleet.fleet
        XCTAssertEqual(fleet.devices.map(\.id), ["watch", "band", "phone", "scale", "cuff", "thermometer"])
        for d in fleet.devices {
            XCTAssertFalse(d.source.bundleID.isEmpty)
            XCTAssertEqual(d.source.revision.osVersionString.split(separator: ".").count, 3)
            XCTAssertFalse(d.device.localIdentifier.isEmpty)
            XCTAssertNotNil(d.device.hardwareVersion)
        }
        XCTAssertNotNil(fleet.devices.first { $0.id == "cuff" }?.device.udiDeviceIdentifier)
        XCTAssertEqual(Set(fleet.devices.map(\.source.bundleID)).count, fleet.devices.count)
        let cuff = try XCTUnwrap(fleet.devices.first { $0.id == "cuff" })
        XCTAssertEqual(cuff.shareTypes, [HKType.systolic, HKType.diastolic])
    }

    func testRoundTrip() throws {
        let fleet = BuiltinFleet.fleet
        let again = try ProfileLoader.decodeFleet(ProfileLoader.encode(fleet))
        XCTAssertEqual(again, fleet)
    }

    func testLoadsOneDeviceAListOrAFleet() throws {
        let base = BuiltinFleet.fleet
        let one = """
        {"id": "glucose", "person": "ada",
         "source": {"bundleID": "com.example.cgm", "name": "CGM", "version": "1.0", "productType": "iPhone16,2", "osVersion": "18.1"},
         "device": {"name": "CGM", "manufacturer": "Example", "model": "G1", "localIdentifier": "cgm-1"},
         "signals": [{"kind": "heartRate", "everySeconds": 60}]}
        """
        let single = try ProfileLoader.load(Data(one.utf8), base: base)
        XCTAssertEqual(single.devices.map(\.id), ["glucose"])
        XCTAssertEqual(single.people, base.people)
        XCTAssertEqual(single.devices[0].source.revision.osPatch, 0)
        let list = try ProfileLoader.load(Data("[\(one)]".utf8), base: base)
        XCTAssertEqual(list.devices.count, 1)
        let whole = try ProfileLoader.load(Data(BuiltinFleet.json.utf8), base: FleetProfile(people: [], devices: []))
        XCTAssertEqual(whole, base)
    }

    func testRefusesBadProfilesWithClearErrors() {
        let base = BuiltinFleet.fleet
        func message(_ json: String) -> String {
            do {
                _ = try ProfileLoader.load(Data(json.utf8), base: base)
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertTrue(message(#"{"id": "x", "person": "ada"}"#).contains("missing 'source'"))
        let strangerJSON = BuiltinFleet.json.replacingOccurrences(of: #""id": "cuff", "person": "ada""#, with: #""id": "cuff", "person": "bob""#)
        XCTAssertTrue(message(strangerJSON).contains("unknown person 'bob'"))
        let badKind = BuiltinFleet.json.replacingOccurrences(of: #""kind": "bodyTemperature""#, with: #""kind": "mood""#)
        XCTAssertTrue(message(badKind).contains("INVALID_ARGUMENT"))
        XCTAssertTrue(message("{nope").contains("not valid JSON"))
    }
}

/// Several `--profile` files make one fleet.
final class ProfileFilesTests: XCTestCase {
    func testFilesCombineAndDuplicateIdsAreRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("healthsim-profiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fleet = BuiltinFleet.fleet
        let encoder = JSONEncoder()
        let watch = directory.appendingPathComponent("watch.json"), rest = directory.appendingPathComponent("rest.json")
        try encoder.encode(fleet.devices[0]).write(to: watch)
        try encoder.encode(Array(fleet.devices.dropFirst())).write(to: rest)
        XCTAssertEqual(try ProfileLoader.load(files: [watch.path, rest.path]), fleet)
        XCTAssertEqual(try ProfileLoader.load(files: []), fleet)
        XCTAssertThrowsError(try ProfileLoader.load(files: [watch.path, watch.path]))
        XCTAssertThrowsError(try ProfileLoader.load(files: [directory.appendingPathComponent("missing.json").path]))
    }
}
