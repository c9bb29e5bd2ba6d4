import Foundation
import HealthModel
import HealthWire
import XCTest

/// docs/semantics.md decision 7: an app denied read sees byte for byte what an app granted read sees on a store
/// holding only what the first may read (its own data, and the readable part of others').
final class ReadInvisibilityTests: XCTestCase {
    private let app = "com.example.subject"
    private let appDevice = Device(name: "Band", manufacturer: "Example", localIdentifier: "band-1")
    private let ownerDevice = Device(name: "Scale", manufacturer: "Example", localIdentifier: "scale-1")
    private let shareTypes = [Authz.heartRate, Authz.steps, Authz.systolic, Authz.diastolic, Authz.activeEnergy]
    private let readTypes = [Authz.heartRate, Authz.steps, Authz.systolic, Authz.diastolic, Authz.activeEnergy,
                             Authz.exerciseTime, Authz.standHour] + Authz.characteristicTypes

    // Objects with the same UUIDs in both stores.
    private let own = [
        Authz.quantity(Authz.heartRate, 60, "count/min", at: 10),
        Authz.quantity(Authz.heartRate, 70, "count/min", at: 20),
        Authz.quantity(Authz.steps, 500, "count", at: 30),
        Authz.bloodPressure(systolic: (UUID(), 115), diastolic: (UUID(), 75), at: 50),
        Authz.quantity(Authz.activeEnergy, 50, "kcal", at: 60),
    ]
    private let ownLive = Authz.quantity(Authz.heartRate, 65, "count/min", at: 300)
    private let othersCorrelation = UUID(), othersSystolic = UUID()

    func testReadDeniedAppSeesExactlyWhatAnAppSeesOnAStoreOfOnlyReadableData() throws {
        let server = try ServerProcess()
        let operatorClient = try RawClient.session(server, token: server.operatorToken)
        let stores = [server.ownerToken, try operatorClient.addOwner("second")]
        let answers = try stores.enumerated().map { index, token in try answersOfApp(server, ownerToken: token, holdsOthersData: index == 0) }
        XCTAssertEqual(answers[0].count, answers[1].count)
        for (denied, granted) in zip(answers[0], answers[1]) {
            XCTAssertEqual(denied.messages.map(Authz.normalisedBytes), granted.messages.map(Authz.normalisedBytes),
                           "\(denied.call): \(denied.messages.map(\.result)) vs \(granted.messages.map(\.result))")
        }
        // The comparison is about real data: own objects and the readable systolic reading.
        let correlations = answers[1].first { $0.call.hasPrefix("queryCorrelations") }?.messages.last?.result
        guard case .correlations(let found)? = correlations else { return XCTFail("no correlations answer") }
        XCTAssertEqual(found.map { $0.correlationObjects?.count }, [2, 1])
    }

    /// Sets up one store and returns every answer of the app's script. The first store also holds
    /// other data the app may not read (read denied for all but systolic); in the second, the
    /// app may read everything and the store holds only its own data and the systolic reading.
    private func answersOfApp(_ server: ServerProcess, ownerToken: String, holdsOthersData: Bool) throws -> [(call: String, messages: [ServerMessage])] {
        let owner = try RawClient.session(server, token: ownerToken, device: ownerDevice)
        let client = try RawClient.session(server, token: try owner.registerApp(app), device: appDevice)
        XCTAssertEqual(client.call(.requestAuthorization(share: shareTypes, read: readTypes)), .requestAuthorization)
        try owner.decide(app, shareTypes, .share, grant: true)
        if holdsOthersData {
            try owner.decide(app, readTypes.filter { $0 != Authz.systolic }, .read, grant: false)
            try owner.decide(app, [Authz.systolic], .read, grant: true)
        } else {
            try owner.decide(app, readTypes, .read, grant: true)
        }
        try client.save(own)
        let gone = Authz.quantity(Authz.heartRate, 101, "count/min", at: 5)
        if holdsOthersData {
            try owner.save([
                Authz.quantity(Authz.heartRate, 100, "count/min", at: 0), gone,
                Authz.quantity(Authz.steps, 1000, "count", at: 40),
                Authz.bloodPressure(systolic: (othersSystolic, 130), diastolic: (UUID(), 85), at: 100, uuid: othersCorrelation),
                Authz.quantity(Authz.activeEnergy, 400, "kcal", at: 70),
                Authz.quantity(Authz.exerciseTime, 20, "min", at: 70),
                Authz.stoodHour(at: 80),
            ])
            XCTAssertEqual(owner.call(.writeCharacteristics(Authz.storedCharacteristics)), .writeCharacteristics)
            XCTAssertEqual(owner.call(.deleteObjects(.uuids([gone.uuid]))), .deleteObjects(deletedCount: 1))
        } else {
            try owner.save([Authz.bloodPressure(systolic: (othersSystolic, 130), diastolic: nil, at: 100, uuid: othersCorrelation)])
        }

        var answers = script.map { call in (call: "\(call)", messages: client.messages(client.submit(call))) }
        answers += try liveAnswers(client, owner: owner, othersWrite: holdsOthersData)
        return answers
    }

    /// Every read call, several shapes each.
    private var script: [ClientCall] {
        let hr = Authz.heartRate, steps = Authz.steps
        let day = Authz.dayLength
        return [
            .querySamples(SampleQuery(types: [hr])),
            .querySamples(SampleQuery(types: [hr, steps], sort: [SampleSortDescriptor(.startDate, descending: true)], limit: 2)),
            .querySamples(SampleQuery(types: [Authz.systolic])),
            .querySamples(SampleQuery(types: [Authz.diastolic])),
            .querySamples(SampleQuery(types: [Authz.bloodPressure])),
            .queryAnchored(AnchoredQuery(types: [hr])),
            .queryAnchored(AnchoredQuery(types: [hr, steps, Authz.systolic, Authz.diastolic, Authz.bloodPressure])),
            .queryAnchored(AnchoredQuery(types: [hr, steps], limit: 1)),
            .queryStatistics(StatisticsQuery(type: hr, options: [.discreteAverage, .discreteMin, .discreteMax, .mostRecent])),
            .queryStatistics(StatisticsQuery(type: hr, options: [.discreteAverage, .separateBySource])),
            .queryStatistics(StatisticsQuery(type: steps, options: [.cumulativeSum, .separateBySource])),
            .queryStatistics(StatisticsQuery(type: Authz.systolic, options: .discreteAverage)),
            .queryStatistics(StatisticsQuery(type: Authz.diastolic, options: .discreteMax)),
            .queryStatistics(StatisticsQuery(type: Authz.activeEnergy, options: .cumulativeSum)),
            .queryStatisticsCollection(StatisticsCollectionQuery(type: steps, options: .cumulativeSum, anchor: Authz.midnight,
                                                                 interval: IntervalComponents(days: 1), from: Authz.midnight - day,
                                                                 to: Authz.midnight + 2 * day)),
            .queryStatisticsCollection(StatisticsCollectionQuery(type: hr, options: [.discreteMax, .separateBySource], anchor: Authz.midnight,
                                                                 interval: IntervalComponents(hours: 1), from: Authz.midnight,
                                                                 to: Authz.midnight + day)),
            .queryCorrelations(CorrelationQuery(type: Authz.bloodPressure)),
            .queryCorrelations(CorrelationQuery(type: Authz.bloodPressure, samplePredicates: [TypedPredicate(type: Authz.diastolic)])),
            .queryCorrelations(CorrelationQuery(type: Authz.bloodPressure, samplePredicates: [TypedPredicate(type: Authz.systolic)])),
            .querySources(type: hr, predicate: nil),
            .querySources(type: steps, predicate: nil),
            .querySources(type: Authz.systolic, predicate: nil),
            .querySources(type: Authz.diastolic, predicate: nil),
            .querySources(type: Authz.bloodPressure, predicate: nil),
            .queryDevices(type: nil),
            .queryDevices(type: hr),
            .queryDevices(type: Authz.systolic),
            .queryDevices(type: Authz.diastolic),
            .readCharacteristics,
            .queryActivitySummaries(from: CalendarDay(year: Authz.day.year, month: Authz.day.month, day: 1), to: Authz.day, timeZone: "UTC"),
            .getAuthorizationStatus(types: [hr, Authz.systolic, Authz.biologicalSex]),
        ]
    }

    /// Long-running calls while others save and delete (first store only) and then the app saves:
    /// everything up to the app's own change, then the end of each call.
    private func liveAnswers(_ client: RawClient, owner: RawClient, othersWrite: Bool) throws -> [(call: String, messages: [ServerMessage])] {
        let hr = Authz.heartRate
        let anchored = client.submit(.queryAnchored(AnchoredQuery(types: [hr, Authz.diastolic], updates: true)))
        let observer = client.submit(.observe(types: [hr, Authz.steps, Authz.diastolic], predicate: nil, frequency: nil))
        let collection = client.submit(.queryStatisticsCollection(StatisticsCollectionQuery(
            type: hr, options: .discreteMax, anchor: Authz.midnight, interval: IntervalComponents(hours: 1),
            from: Authz.midnight, to: Authz.midnight + Authz.dayLength, updates: true)))
        var live: [UInt64: [ServerMessage]] = [:]
        for id in [anchored, observer, collection] { live[id] = [try XCTUnwrap(client.receive(callID: id))] }
        if othersWrite {
            try owner.save([Authz.quantity(hr, 200, "count/min", at: 310), Authz.quantity(Authz.diastolic, 90, "mmHg", at: 311)])
            guard case .samples(let steps)? = owner.call(.querySamples(SampleQuery(types: [Authz.steps]))),
                  let others = steps.first(where: { $0.sourceRevision?.source.bundleID != app }) else { throw TestFailure("no steps") }
            XCTAssertEqual(owner.call(.deleteObjects(.uuids([others.uuid]))), .deleteObjects(deletedCount: 1))
        }
        try client.save([ownLive])
        // Until the app's own save shows on each call.
        func collect(_ id: UInt64, until done: (ServerResult) -> Bool) {
            while let message = id == observer ? client.nextEvent(id) : client.receive(callID: id) {
                live[id, default: []].append(message)
                if done(message.result) { break }
            }
        }
        collect(anchored) { if case .anchored(let samples, _, _, _, _, _) = $0 { samples.contains { $0.uuid == ownLive.uuid } } else { true } }
        collect(observer) { if case .observerEvent(let types, _) = $0 { types.contains(hr) } else { true } }
        collect(collection) { _ in true }
        for id in [anchored, observer, collection] {
            XCTAssertEqual(client.call(.cancel(targetCallID: id)), .cancel(cancelled: true))
            live[id, default: []] += client.messages(id)
        }
        return [("anchored with updates", live[anchored]!), ("observe", live[observer]!), ("collection with updates", live[collection]!)]
    }
}
