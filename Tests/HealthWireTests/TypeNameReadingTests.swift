import Foundation
import HealthModel
import XCTest
@testable import HealthWire

/// Short type names from any client are read as catalog identifiers; unknown names arrive as sent.
final class TypeNameReadingTests: XCTestCase {
    private func decoded(_ call: ClientCall) throws -> ClientCall {
        try WireCodec.decodeClientMessage(WireCodec.encodeClientMessage(ClientMessage(callID: 1, call: call))).call
    }

    func testShortNamesAreReadAsIdentifiers() throws {
        let hr = "HKQuantityTypeIdentifierHeartRate", steps = "HKQuantityTypeIdentifierStepCount"
        XCTAssertEqual(try decoded(.querySamples(SampleQuery(types: ["HeartRate", "step_count", hr]))),
                       .querySamples(SampleQuery(types: [hr, steps, hr])))
        XCTAssertEqual(try decoded(.requestAuthorization(share: ["heart-rate"], read: ["SleepAnalysis"])),
                       .requestAuthorization(share: [hr], read: ["HKCategoryTypeIdentifierSleepAnalysis"]))
        XCTAssertEqual(try decoded(.getSourcePriority(type: "stepCount")), .getSourcePriority(type: steps))
        XCTAssertEqual(try decoded(.queryDevices(type: "HeartRate")), .queryDevices(type: hr))
        let sample = Sample(uuid: UUID(), type: "BloodPressure", start: 1, end: 1, body: .correlation([
            Sample(uuid: UUID(), type: "BloodPressureSystolic", start: 1, end: 1, body: .quantity(Quantity(120, "mmHg"), count: 1)),
        ]))
        guard case .saveObjects(let saved, _) = try decoded(.saveObjects([sample])) else { return XCTFail("not a save") }
        XCTAssertEqual(saved.first?.type, "HKCorrelationTypeIdentifierBloodPressure")
        XCTAssertEqual(saved.first?.correlationObjects?.map(\.type), ["HKQuantityTypeIdentifierBloodPressureSystolic"])
    }

    func testDecodedSamplesCarryTheirCatalogueEntry() throws {
        let quantity = SampleBody.quantity(Quantity(120, "mmHg"), count: 1)
        let samples = [
            Sample(type: "HKQuantityTypeIdentifierBloodPressureSystolic", start: 1, end: 1, body: quantity),
            Sample(type: "blood_pressure_systolic", start: 1, end: 1, body: quantity),
            Sample(type: "BloodPressure", start: 1, end: 1, body: .correlation([
                Sample(type: "BloodPressureSystolic", start: 1, end: 1, body: quantity),
                Sample(type: "BloodPresureDiastolic", start: 1, end: 1, body: quantity),
            ])),
            Sample(type: "", start: 1, end: 1, body: quantity),
        ]
        guard case .saveObjects(let saved, _) = try decoded(.saveObjects(samples)) else { return XCTFail("not a save") }
        let children = saved[2].correlationObjects ?? []
        XCTAssertEqual((saved + children).map(\.type), ["HKQuantityTypeIdentifierBloodPressureSystolic", "HKQuantityTypeIdentifierBloodPressureSystolic",
                                                         "HKCorrelationTypeIdentifierBloodPressure", "", "HKQuantityTypeIdentifierBloodPressureSystolic",
                                                         "BloodPresureDiastolic"])
        XCTAssertEqual((saved + children).map { $0.catalogType?.identifier }, (saved + children).map { TypeCatalog.type($0.type)?.identifier })
        XCTAssertTrue(saved[0].catalogType === TypeCatalog.type("HKQuantityTypeIdentifierBloodPressureSystolic"))
        XCTAssertNil(children[1].catalogType)
    }

    func testUnknownNamesArriveAsSentAndTheirErrorSuggestsTheNearest() throws {
        XCTAssertEqual(try decoded(.getAuthorizationStatus(types: ["HartRate"])), .getAuthorizationStatus(types: ["HartRate"]))
        let error = TypeCatalog.unknownType("HartRate", field: "types")
        XCTAssertEqual(error.code, .invalidArgument)
        XCTAssertEqual(error.field, "types")
        XCTAssertEqual(error.message, "unknown type \"HartRate\"; did you mean \"HeartRate\" (HKQuantityTypeIdentifierHeartRate)?")
    }
}
