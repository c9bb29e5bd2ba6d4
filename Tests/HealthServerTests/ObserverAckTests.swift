import Foundation
import HealthModel
import HealthWire
import XCTest

/// Observer events are acknowledged like HKObserverQueryCompletionHandler calls (docs/semantics.md §6.9):
/// the next event waits for the last one's acknowledgement, and three misses in a row end the
/// observer.
final class ObserverAckTests: XCTestCase {
    private let hr = Fixtures.heartRate

    func testNextEventWaitsForTheAcknowledgementAndCarriesEverythingThatChangedMeanwhile() throws {
        let server = try ServerProcess()
        let watcher = try RawClient.session(server, token: server.ownerToken)
        let writer = try RawClient.session(server, token: server.ownerToken)
        let observer = watcher.submit(.observe(types: [hr, Authz.steps], predicate: nil, frequency: nil))
        XCTAssertEqual(watcher.receive(callID: observer)?.result, .observerEvent(changedTypes: [], sequence: 0))
        try writer.save([Fixtures.heartRateSample(70)])
        XCTAssertEqual(watcher.receive(callID: observer)?.result, .observerEvent(changedTypes: [hr], sequence: 1))

        // Unacknowledged, event 1 holds back what follows.
        try writer.save([Authz.quantity(Authz.steps, 100, "count", at: 1)])
        watcher.setTimeout(seconds: 1)
        XCTAssertNil(watcher.receive(callID: observer))
        watcher.setTimeout(seconds: RawClient.defaultTimeout)

        // Only the outstanding sequence of a running observer is acknowledged.
        XCTAssertEqual(watcher.call(.ackObserverEvent(targetCallID: observer, sequence: 2)), .ackObserverEvent(acknowledged: false))
        XCTAssertEqual(watcher.call(.ackObserverEvent(targetCallID: observer + 100, sequence: 1)), .ackObserverEvent(acknowledged: false))
        XCTAssertEqual(watcher.call(.ackObserverEvent(targetCallID: observer, sequence: 1)), .ackObserverEvent(acknowledged: true))
        XCTAssertEqual(watcher.call(.ackObserverEvent(targetCallID: observer, sequence: 1)), .ackObserverEvent(acknowledged: false))
        XCTAssertEqual(watcher.receive(callID: observer)?.result, .observerEvent(changedTypes: [Authz.steps], sequence: 2))
    }

    func testThreeMissedAcknowledgementsInARowEndTheObserver() throws {
        // Long enough that an acknowledgement sent on receipt always beats it, even on a loaded machine.
        let server = try ServerProcess(extraArguments: ["--observer-ack-timeout", "2"])
        let watcher = try RawClient.session(server, token: server.ownerToken)
        let writer = try RawClient.session(server, token: server.ownerToken)
        let observer = watcher.submit(.observe(types: [hr], predicate: nil, frequency: nil))
        XCTAssertEqual(watcher.receive(callID: observer)?.result, .observerEvent(changedTypes: [], sequence: 0))
        // Missed, acknowledged (the count starts again), then missed three times.
        for (sequence, acknowledge) in [(1, false), (2, true), (3, false), (4, false), (5, false)] {
            try writer.save([Fixtures.heartRateSample(Double(60 + sequence))])
            let event = acknowledge ? watcher.nextEvent(observer) : watcher.receive(callID: observer)
            XCTAssertEqual(event?.result, .observerEvent(changedTypes: [hr], sequence: UInt64(sequence)))
        }
        let last = watcher.receive(callID: observer)
        XCTAssertEqual(last?.result, .callEnded(.unacknowledged))
        XCTAssertEqual(last?.more, false)
        // The connection itself keeps serving.
        XCTAssertEqual(watcher.call(.cancel(targetCallID: observer)), .cancel(cancelled: false))
        guard case .samples(let samples)? = watcher.call(.querySamples(SampleQuery(types: [hr]))) else { return XCTFail("no samples") }
        XCTAssertEqual(samples.count, 5)
    }
}
