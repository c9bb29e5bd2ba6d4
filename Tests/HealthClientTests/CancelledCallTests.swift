import Foundation
import HealthClient
import HealthModel
import HealthWire
import XCTest

/// A call whose task is cancelled while it waits for the server ends with CancellationError — never
/// with a made-up server error. (It used to end as MALFORMED "the server answered SaveObjects with
/// no answer": a load run that hit its drain timeout reported every batch still in flight as
/// rejected MALFORMED.)
final class CancelledCallTests: XCTestCase {
    func testCancelledSaveThrowsCancellationAndTellsTheServer() async throws {
        let transport = FakeTransport()
        let connection = try await HealthConnection.connect(over: transport, hello: Hello(token: "t"))
        let saving = Task {
            try await connection.save([Sample(type: "HKQuantityTypeIdentifierHeartRate", start: 0, end: 0,
                                              body: .quantity(Quantity(70, "count/min"), count: 1))])
        }
        let call = await transport.sent.next()!
        saving.cancel()
        do {
            _ = try await saving.value
            XCTFail("a cancelled save returned outcomes")
        } catch is CancellationError {
        } catch {
            XCTFail("a cancelled save threw \(error) instead of CancellationError")
        }
        let cancel = await transport.sent.next()!
        XCTAssertEqual(cancel.call, .cancel(targetCallID: call.callID))
    }

    func testCancelledPagedQueryThrowsCancellation() async throws {
        let transport = FakeTransport()
        let connection = try await HealthConnection.connect(over: transport, hello: Hello(token: "t"))
        let querying = Task { try await connection.samples(SampleQuery(types: ["HKQuantityTypeIdentifierHeartRate"])) }
        _ = await transport.sent.next()!
        querying.cancel()
        do {
            _ = try await querying.value
            XCTFail("a cancelled query returned samples")
        } catch is CancellationError {
        } catch {
            XCTFail("a cancelled query threw \(error) instead of CancellationError")
        }
    }
}
