import Foundation
import HealthModel
import HealthWire
import XCTest

/// Inputs that crashed healthd or were stored although HealthKit refuses them, sent to a real server:
/// each is answered with a call-level INVALID_ARGUMENT and the server keeps serving.
final class BoundaryValidationServerTests: XCTestCase {
    private let steps = Q.steps, workoutType = "HKWorkoutTypeIdentifier"
    private let t = Q.at("2024-06-03T10:00:00Z")

    private func invalidArgument(_ result: ServerResult?, field: String, index: Int? = nil,
                                 file: StaticString = #filePath, line: UInt = #line) {
        guard case .error(let error)? = result else { return XCTFail("expected an error, got \(String(describing: result))", file: file, line: line) }
        XCTAssertEqual(error.code, .invalidArgument, "\(error)", file: file, line: line)
        XCTAssertEqual(error.field, field, "\(error)", file: file, line: line)
        XCTAssertEqual(error.objectIndex, index, "\(error)", file: file, line: line)
    }

    /// An app that has only requested the type (the owner decided nothing) sends the intervals that
    /// trapped in bucket arithmetic; after each, the server still answers a valid collection.
    func testOverflowingStatisticsIntervalsAreRefusedAndTheServerKeepsServing() throws {
        let server = try ServerProcess()
        let owner = try RawClient(port: server.port)
        owner.hello(server.ownerToken)
        let app = try owner.connectApp("com.example.stats", port: server.port, types: [steps])
        for interval in [IntervalComponents(days: Int(Int32.max)), IntervalComponents(weeks: Int(Int32.max)),
                         IntervalComponents(months: Int(Int32.max)), IntervalComponents(years: 300_000)] {
            let query = StatisticsCollectionQuery(type: steps, options: .cumulativeSum, anchor: t, interval: interval, from: t, to: t)
            invalidArgument(app.call(.queryStatisticsCollection(query)), field: "interval")
            let daily = try app.collection(StatisticsCollectionQuery(type: steps, options: .cumulativeSum, anchor: t,
                                                                     interval: IntervalComponents(days: 1), from: t, to: t))
            XCTAssertEqual(daily.count, 1, "the server still answers after \(interval)")
        }
        let outOfRange = StatisticsCollectionQuery(type: steps, options: .cumulativeSum, anchor: .min,
                                                   interval: IntervalComponents(days: 1), from: t, to: t)
        invalidArgument(app.call(.queryStatisticsCollection(outOfRange)), field: "anchor")
        XCTAssertNotNil(app.call(.ping(Data())))
    }

    /// start = Int64.min, end = 1 passed validation and trapped on end − start while saving.
    func testInt64MinStartIsRefusedAndTheServerKeepsServing() throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let owner = try RawClient(port: server.port)
        owner.hello(server.ownerToken)
        let types = [steps, workoutType, Authz.systolic, Authz.diastolic]
        let app = try owner.connectApp("com.example.writer", port: server.port, types: types)
        let run = Sample(type: workoutType, start: .min, end: 1, body: .workout(Workout(activityType: 37)))
        invalidArgument(app.call(.saveObjects([Q.stepSample(1, t, t + Q.minute), run])), field: "start_time", index: 1)
        let systolic = Sample(type: Authz.systolic, start: .min, end: 1, body: .quantity(Quantity(120, "mmHg"), count: 1))
        let diastolic = Sample(type: Authz.diastolic, start: .min, end: 1, body: .quantity(Quantity(80, "mmHg"), count: 1))
        let pressure = Sample(type: Authz.bloodPressure, start: .min, end: 1, body: .correlation([systolic, diastolic]))
        invalidArgument(app.call(.saveObjects([pressure])), field: "start_time", index: 0)
        try app.save([Q.stepSample(1, t, t + Q.minute)])
        XCTAssertEqual(try Q.value(app.statistics(StatisticsQuery(type: steps, options: .cumulativeSum)).get().sum, "count"), 1,
                       "only the valid save was stored")
    }

    func testWorkoutsAreCheckedAgainstTheirIntervalAndAssociations() throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let owner = try RawClient(port: server.port)
        owner.hello(server.ownerToken)
        let app = try owner.connectApp("com.example.runner", port: server.port, types: [workoutType, Q.heartRate])
        let end = t + 30 * Q.minute
        func workout(_ w: Workout) -> Sample { Sample(type: workoutType, start: t, end: end, body: .workout(w)) }
        let late = WorkoutEvent(type: .marker, start: end + Q.hour, end: end + Q.hour)
        invalidArgument(app.call(.saveObjects([workout(Workout(activityType: 37, events: [late]))])),
                        field: "workout.events[0].end_time", index: 0)
        let early = WorkoutActivity(uuid: UUID(), activityType: 37, start: t - Q.minute, end: end)
        invalidArgument(app.call(.saveObjects([workout(Workout(activityType: 37, activities: [early]))])),
                        field: "workout.activities[0].start_time", index: 0)
        let resume = WorkoutEvent(type: .resume, start: t + Q.minute, end: t + Q.minute)
        invalidArgument(app.call(.saveObjects([workout(Workout(activityType: 37, events: [resume]))])),
                        field: "workout.events[0].type", index: 0)
        invalidArgument(app.call(.saveObjects([workout(Workout(activityType: 37, associatedSampleUUIDs: [UUID()]))])),
                        field: "workout.associated_sample_uuids[0]", index: 0)
        // Another app's sample reads as not stored too.
        let ownersPulse = Q.quantity(Q.heartRate, 120, "count/min", t, t)
        try owner.save([ownersPulse])
        invalidArgument(app.call(.saveObjects([workout(Workout(activityType: 37, associatedSampleUUIDs: [ownersPulse.uuid]))])),
                        field: "workout.associated_sample_uuids[0]", index: 0)
        XCTAssertEqual(stored(app, workoutType).count, 0, "nothing refused was stored")
    }

    /// A workout saved without a duration reads back its active duration, as HKWorkout.duration does.
    func testAWorkoutWithoutDurationReadsBackItsActiveDuration() throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let owner = try RawClient(port: server.port)
        owner.hello(server.ownerToken)
        let app = try owner.connectApp("com.example.runner", port: server.port, types: [workoutType, Q.heartRate])
        let pulse = Q.quantity(Q.heartRate, 120, "count/min", t, t)
        let events = [WorkoutEvent(type: .pause, start: t + 10 * Q.minute, end: t + 10 * Q.minute),
                      WorkoutEvent(type: .resume, start: t + 15 * Q.minute, end: t + 15 * Q.minute)]
        let run = Sample(type: workoutType, start: t, end: t + 30 * Q.minute,
                         body: .workout(Workout(activityType: 37, events: events, associatedSampleUUIDs: [pulse.uuid])))
        try app.save([pulse, run])
        XCTAssertEqual(stored(app, workoutType).first?.workout?.duration, 25 * Q.minute)
        XCTAssertEqual(app.call(.saveObjects([run])), .saveObjects([.alreadyStored]), "a retry is still recognised")
    }

    private func stored(_ client: RawClient, _ type: String) -> [Sample] {
        client.results(.querySamples(SampleQuery(types: [type]))).flatMap { result -> [Sample] in
            if case .samples(let page) = result { return page }
            return []
        }
    }
}
