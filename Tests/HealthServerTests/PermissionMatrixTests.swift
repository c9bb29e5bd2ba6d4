import Foundation
import HealthModel
import HealthWire
import XCTest

/// Every call that touches data, for an app in every share state × every read state, through a
/// real server: the exact error, or exactly the data it may see (docs/semantics.md §3, decisions 6 and 7).
final class PermissionMatrixTests: XCTestCase {
    /// One direction's permission state for every type of the fixture.
    private enum State: String, CaseIterable {
        /// `notRequested` and `pending` (requested, undecided) are both HealthKit's "not determined".
        case notRequested, pending, denied, granted
        var decided: Bool { self == .denied || self == .granted }
    }

    /// An app holding `share` and `read` for every type below, with the samples it saved.
    private struct Subject {
        let share: State, read: State
        let bundleID: String
        let client: RawClient
        let index: Int64
        var label: String { "share \(share.rawValue), read \(read.rawValue)" }
        /// Never asked about the fixture's types in either direction: typed queries are refused (docs/semantics.md §3.5).
        var neverAsked: Bool { share == .notRequested && read == .notRequested }
    }

    /// What a call observably did.
    private enum Outcome: Hashable {
        case error(HealthErrorCode)
        case objects(Set<UUID>)
        case anchored(samples: Set<UUID>, deleted: Set<UUID>)
        /// Correlation → its children.
        case correlations([UUID: Set<UUID>])
        case sources([String])
        case devices(Set<Device>)
        case number(Double?)
        case activity(energy: Double, exercise: Double, stand: Double)
        case types(Set<String>)
        case answer(ServerResult)
    }

    /// A saved object and who saved it with which device.
    private struct Stored {
        let sample: Sample
        let bundleID: String
        let device: Device
    }

    private let hr = Authz.heartRate
    private let shareTypes = [Authz.heartRate, Authz.steps, Authz.systolic, Authz.diastolic, Authz.activeEnergy]
    private let readTypes = [Authz.heartRate, Authz.steps, Authz.systolic, Authz.diastolic, Authz.activeEnergy,
                             Authz.exerciseTime, Authz.standHour] + Authz.characteristicTypes
    private let ownerDevice = Device(name: "Scale", manufacturer: "Example", localIdentifier: "scale-1")
    private var stored: [Stored] = []

    func testEveryDataCallInEveryPermissionState() throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken, device: ownerDevice)
        try saveOwnerData(owner)
        var subjects: [Subject] = []
        for share in State.allCases {
            for read in State.allCases {
                subjects.append(try makeSubject(share: share, read: read, index: Int64(subjects.count), server: server, owner: owner))
            }
        }
        for subject in subjects {
            for check in readChecks { XCTAssertEqual(check.run(subject), check.expect(subject), "\(check.call), \(subject.label)") }
        }
        try checkLiveCalls(subjects, owner: owner)
        for subject in subjects {
            for check in writeChecks { XCTAssertEqual(check.run(subject), check.expect(subject), "\(check.call), \(subject.label)") }
        }
        // Nothing an app did touched the owner's objects.
        let ownerObjects = stored.filter { $0.bundleID == "com.apple.Health" }.map(\.sample.uuid)
        XCTAssertEqual(Authz.uuids(owner.results(.querySamples(SampleQuery(types: [hr, Authz.steps])))).intersection(ownerObjects).count, 3)
    }

    // MARK: the tables

    private typealias Check = (call: String, run: (Subject) -> Outcome, expect: (Subject) -> Outcome)

    private var readChecks: [Check] {
        let collection = StatisticsCollectionQuery(type: hr, options: .discreteMax, unit: "count/min", anchor: Authz.midnight,
                                                   interval: IntervalComponents(days: 1), from: Authz.midnight, to: Authz.midnight + Authz.dayLength)
        // A query naming a type the app never asked about is AUTHORIZATION_NOT_DETERMINED (docs/semantics.md §3.5);
        // once it asked, in either direction, it reads whatever it may, silently.
        let asked: (@escaping (Subject) -> Outcome) -> (Subject) -> Outcome = { expect in
            { $0.neverAsked ? .error(.authorizationNotDetermined) : expect($0) }
        }
        return [
            ("sample query", { self.outcome($0, .querySamples(SampleQuery(types: [self.hr]))) { .objects(Authz.uuids($0)) } },
             asked { .objects(self.visibleUUIDs([self.hr], $0)) }),
            ("anchored query", { self.outcome($0, .queryAnchored(AnchoredQuery(types: [self.hr]))) { self.anchored($0) } },
             asked { .anchored(samples: self.visibleUUIDs([self.hr], $0), deleted: []) }),
            ("statistics", { self.outcome($0, .queryStatistics(StatisticsQuery(type: self.hr, options: .discreteAverage, unit: "count/min"))) {
                guard case .statistics(let statistics)? = $0.last else { return .answer($0.last ?? .callEnded(.shutdown)) }
                return .number(statistics.average.map { self.rounded($0.value) })
            } }, asked { subject in
                // No visible sample: HKStatisticsQuery's errorNoData, as on an empty store.
                let values = self.visible([self.hr], subject).compactMap { $0.sample.quantity?.value }
                return values.isEmpty ? .error(.noData) : .number(self.rounded(values.reduce(0, +) / Double(values.count)))
            }),
            ("statistics sum", { self.outcome($0, .queryStatistics(StatisticsQuery(type: Authz.steps, options: .cumulativeSum, unit: "count"))) {
                guard case .statistics(let statistics)? = $0.last else { return .answer($0.last ?? .callEnded(.shutdown)) }
                return .number(statistics.sum.map { self.rounded($0.value) })
            } }, asked { subject in
                let values = self.visible([Authz.steps], subject).compactMap { $0.sample.quantity?.value }
                return values.isEmpty ? .error(.noData) : .number(values.reduce(0, +))
            }),
            ("statistics collection", { self.outcome($0, .queryStatisticsCollection(collection)) { results in
                let buckets = results.flatMap { result -> [Statistics] in
                    if case .statisticsCollection(let buckets, _, _) = result { return buckets }
                    return []
                }
                return .number(buckets.first?.maximum?.value)
            } }, asked { .number(self.visible([self.hr], $0).compactMap { $0.sample.quantity?.value }.max()) }),
            ("correlations", { self.outcome($0, .queryCorrelations(CorrelationQuery(type: Authz.bloodPressure))) {
                guard case .correlations(let samples)? = $0.last else { return .answer($0.last ?? .callEnded(.shutdown)) }
                return .correlations(Dictionary(uniqueKeysWithValues: samples.map { ($0.uuid, Set(($0.correlationObjects ?? []).map(\.uuid))) }))
            } }, asked { subject in
                .correlations(Dictionary(uniqueKeysWithValues: self.visible([Authz.bloodPressure], subject).map {
                    ($0.sample.uuid, Set(($0.sample.correlationObjects ?? []).map(\.uuid)))
                }))
            }),
            ("sources", { self.outcome($0, .querySources(type: self.hr, predicate: nil)) {
                guard case .sources(let sources)? = $0.last else { return .answer($0.last ?? .callEnded(.shutdown)) }
                return .sources(sources.map(\.bundleID))
            } }, asked { .sources(Set(self.visible([self.hr], $0).map(\.bundleID)).sorted()) }),
            ("devices", { self.outcome($0, .queryDevices(type: self.hr)) {
                guard case .devices(let devices)? = $0.last else { return .answer($0.last ?? .callEnded(.shutdown)) }
                return .devices(Set(devices))
            } }, asked { .devices(Set(self.visible([self.hr], $0).map(\.device))) }),
            ("activity summaries", { self.outcome($0, .queryActivitySummaries(from: Authz.day, to: Authz.day, timeZone: "UTC")) {
                guard case .activitySummaries(let summaries)? = $0.last, let summary = summaries.first(where: { $0.day == Authz.day }) else {
                    return .answer($0.last ?? .callEnded(.shutdown))
                }
                return .activity(energy: summary.activeEnergyBurned.value, exercise: summary.exerciseTime.value, stand: summary.standHours.value)
            } }, asked { subject in
                let energy = self.visible([Authz.activeEnergy], subject).compactMap { $0.sample.quantity?.value }.reduce(0, +)
                return subject.read == .granted ? .activity(energy: energy, exercise: 30, stand: 1) : .activity(energy: energy, exercise: 0, stand: 0)
            }),
            // Characteristics are never shared, so only a read request asks about them.
            ("read characteristics", { self.answer($0, .readCharacteristics) }, { subject in
                subject.read == .notRequested ? .error(.authorizationNotDetermined)
                    : .answer(.characteristics(subject.read == .granted ? Authz.storedCharacteristics : Characteristics()))
            }),
            ("get authorization status", { .answer($0.client.call(.getAuthorizationStatus(types: [self.hr, Authz.bloodPressure, Authz.biologicalSex])) ?? .callEnded(.shutdown)) },
             { subject in
                let status: AuthorizationStatus = switch subject.share {
                case .notRequested, .pending: .notDetermined
                case .denied: .sharingDenied
                case .granted: .sharingAuthorized
                }
                return .answer(.authorizationStatus([TypeAuthorizationStatus(type: self.hr, status: status),
                                                     TypeAuthorizationStatus(type: Authz.bloodPressure, status: .sharingDenied),
                                                     TypeAuthorizationStatus(type: Authz.biologicalSex, status: .sharingDenied)]))
            }),
            ("request status", { .answer($0.client.call(.getRequestStatusForAuthorization(share: [self.hr], read: [self.hr])) ?? .callEnded(.shutdown)) },
             { .answer(.requestStatus($0.share == .notRequested || $0.read == .notRequested ? .shouldRequest : .unnecessary)) }),
            ("request status, read only", { .answer($0.client.call(.getRequestStatusForAuthorization(share: [], read: [self.hr])) ?? .callEnded(.shutdown)) },
             { .answer(.requestStatus($0.read == .notRequested ? .shouldRequest : .unnecessary)) }),
        ]
    }

    private var writeChecks: [Check] {
        let shareError: (Subject) -> Outcome? = { subject in
            switch subject.share {
            case .notRequested, .pending: .error(.authorizationNotDetermined)
            case .denied: .error(.authorizationDenied)
            case .granted: nil
            }
        }
        return [
            ("save", { self.answer($0, .saveObjects([Authz.quantity(self.hr, 55, "count/min", at: 400 + $0.index)])) },
             { shareError($0) ?? .answer(.saveObjects([.stored])) }),
            ("save correlation", { self.answer($0, .saveObjects([Authz.bloodPressure(systolic: (UUID(), 111), diastolic: (UUID(), 71), at: 450 + $0.index)])) },
             { shareError($0) ?? .answer(.saveObjects([.stored])) }),
            ("delete own object by UUID", { subject in
                let own = self.stored.first { $0.bundleID == subject.bundleID && $0.sample.type == self.hr }?.sample.uuid
                return self.answer(subject, .deleteObjects(.uuids([own ?? UUID()])))
            }, { subject in
                // Apps in not-determined states never saved anything: their UUID is simply unknown.
                subject.share.decided ? shareError(subject) ?? .answer(.deleteObjects(deletedCount: 1)) : .error(.invalidArgument)
            }),
            ("delete another source's object by UUID", { subject in
                let others = self.stored.first { $0.bundleID == "com.apple.Health" && $0.sample.type == self.hr }!.sample.uuid
                return .answer(Authz.withoutUUIDs(subject.client.call(.deleteObjects(.uuids([others])))) ?? .callEnded(.shutdown))
            }, { .answer(Authz.withoutUUIDs($0.client.call(.deleteObjects(.uuids([UUID()])))) ?? .callEnded(.shutdown)) }),
            ("delete by predicate", { self.answer($0, .deleteObjects(.matching(type: Authz.steps, predicate: nil))) },
             { shareError($0) ?? .answer(.deleteObjects(deletedCount: 1)) }),
            ("write characteristics", { self.answer($0, .writeCharacteristics(Characteristics(biologicalSex: 2))) },
             { _ in .error(.permissionDenied) }),
        ]
    }

    // MARK: long-running calls

    /// Anchored with updates, observer and collection with updates: after another source saves a
    /// heart rate and then a body mass (every subject may read body mass), each subject hears of
    /// the heart rate only if it may read it.
    private func checkLiveCalls(_ subjects: [Subject], owner: RawClient) throws {
        let collection = StatisticsCollectionQuery(type: hr, options: .discreteMax, unit: "count/min", anchor: Authz.midnight,
                                                   interval: IntervalComponents(days: 1), from: Authz.midnight,
                                                   to: Authz.midnight + Authz.dayLength, updates: true)
        var calls: [(anchored: UInt64, observer: UInt64, collection: UInt64)] = []
        for subject in subjects where subject.neverAsked {
            let client = subject.client
            for call in [ClientCall.queryAnchored(AnchoredQuery(types: [hr, Authz.bodyMass], updates: true)),
                         .observe(types: [hr, Authz.bodyMass], predicate: nil, frequency: nil), .queryStatisticsCollection(collection)] {
                XCTAssertEqual(client.call(call)?.errorCode, .authorizationNotDetermined, "\(call), \(subject.label)")
            }
        }
        let asked = subjects.filter { !$0.neverAsked }
        for subject in asked {
            let client = subject.client
            let ids = (client.submit(.queryAnchored(AnchoredQuery(types: [hr, Authz.bodyMass], updates: true))),
                       client.submit(.observe(types: [hr, Authz.bodyMass], predicate: nil, frequency: nil)),
                       client.submit(.queryStatisticsCollection(collection)))
            guard case .anchored(let initial, [], _, true, _, _)? = client.receive(callID: ids.0)?.result else { throw TestFailure("no anchored page") }
            XCTAssertEqual(Set(initial.map(\.uuid)), visibleUUIDs([hr, Authz.bodyMass], subject), "anchored with updates, initial, \(subject.label)")
            XCTAssertEqual(client.receive(callID: ids.1)?.result, .observerEvent(changedTypes: [], sequence: 0), subject.label)
            guard case .statisticsCollection(_, true, _)? = client.receive(callID: ids.2)?.result else { throw TestFailure("no collection") }
            calls.append(ids)
        }
        let heartRate = Authz.quantity(hr, 180, "count/min", at: 300), mass = Authz.quantity(Authz.bodyMass, 71, "kg", at: 301)
        try owner.save([heartRate])
        try owner.save([mass])
        for (subject, ids) in zip(asked, calls) {
            let client = subject.client, reads = subject.read == .granted
            var seen = Set<UUID>()
            while !seen.contains(mass.uuid), let message = client.receive(callID: ids.anchored) {
                guard case .anchored(let samples, let deleted, _, false, _, _) = message.result else { return XCTFail("\(message.result)") }
                XCTAssertEqual(deleted, [])
                seen.formUnion(samples.map(\.uuid))
            }
            XCTAssertEqual(seen, reads ? [heartRate.uuid, mass.uuid] : [mass.uuid], "anchored with updates, \(subject.label)")
            var changed = Set<String>()
            while !changed.contains(Authz.bodyMass), let message = client.nextEvent(ids.observer) {
                guard case .observerEvent(let types, _) = message.result else { return XCTFail("\(message.result)") }
                changed.formUnion(types)
            }
            XCTAssertEqual(changed, reads ? [hr, Authz.bodyMass] : [Authz.bodyMass], "observe, \(subject.label)")
            if reads {
                guard case .statisticsCollection(let buckets, false, _)? = client.receive(callID: ids.collection)?.result else { return XCTFail() }
                XCTAssertEqual(buckets.map { $0.maximum?.value }, [180], "collection with updates, \(subject.label)")
            }
            // Whatever else the collection would have said arrives before the end of the call.
            for id in [ids.anchored, ids.observer, ids.collection] {
                XCTAssertEqual(client.call(.cancel(targetCallID: id)), .cancel(cancelled: true))
                XCTAssertEqual(client.receive(callID: id)?.result, .callEnded(.cancelled), "live call \(id), \(subject.label)")
            }
        }
        stored.append(Stored(sample: heartRate, bundleID: "com.apple.Health", device: ownerDevice))
    }

    // MARK: setup

    /// The owner's data (source com.apple.Health) at fixed minutes after 01:00, apart from every app's.
    private func saveOwnerData(_ owner: RawClient) throws {
        let samples = [
            Authz.quantity(hr, 100, "count/min", at: 0),
            Authz.quantity(Authz.steps, 1000, "count", at: 40),
            Authz.bloodPressure(systolic: (UUID(), 120), diastolic: (UUID(), 80), at: 100),
            Authz.quantity(Authz.activeEnergy, 300, "kcal", at: 170),
            Authz.quantity(Authz.exerciseTime, 30, "min", at: 170),
            Authz.stoodHour(at: 200),
            Authz.quantity(Authz.bodyMass, 70, "kg", at: 0),
        ]
        try owner.save(samples)
        XCTAssertEqual(owner.call(.writeCharacteristics(Authz.storedCharacteristics)), .writeCharacteristics)
        stored += samples.map { Stored(sample: $0, bundleID: "com.apple.Health", device: ownerDevice) }
    }

    /// Registers an app and brings it to (share, read) for every fixture type; while it may share,
    /// it saves its own samples. Every app may read body mass (the live calls' sentinel).
    private func makeSubject(share: State, read: State, index: Int64, server: ServerProcess, owner: RawClient) throws -> Subject {
        let bundleID = "com.example.share-\(share.rawValue).read-\(read.rawValue)"
        let device = Device(name: "Band \(index)", manufacturer: "Example", localIdentifier: "band-\(index)")
        let client = try RawClient.session(server, token: try owner.registerApp(bundleID), device: device)
        XCTAssertEqual(client.call(.requestAuthorization(share: [], read: [Authz.bodyMass])), .requestAuthorization)
        try owner.decide(bundleID, [Authz.bodyMass], .read, grant: true)
        if share != .notRequested {
            XCTAssertEqual(client.call(.requestAuthorization(share: shareTypes, read: [])), .requestAuthorization)
        }
        if share.decided {
            try owner.decide(bundleID, shareTypes, .share, grant: true)
            let own = [
                Authz.quantity(hr, 50, "count/min", at: 10 + index),
                Authz.quantity(Authz.steps, 200, "count", at: 60 + 2 * index),
                Authz.bloodPressure(systolic: (UUID(), 110), diastolic: (UUID(), 70), at: 120 + index),
                Authz.quantity(Authz.activeEnergy, 100, "kcal", at: 180 + 2 * index),
            ]
            try client.save(own)
            stored += own.map { Stored(sample: $0, bundleID: bundleID, device: device) }
            if share == .denied { try owner.decide(bundleID, shareTypes, .share, grant: false) }
        }
        if read != .notRequested {
            XCTAssertEqual(client.call(.requestAuthorization(share: [], read: readTypes)), .requestAuthorization)
        }
        if read.decided { try owner.decide(bundleID, readTypes, .read, grant: read == .granted) }
        return Subject(share: share, read: read, bundleID: bundleID, client: client, index: index)
    }

    // MARK: helpers

    /// Objects of `types` the subject may see: its own, and everyone's of the types it may read.
    private func visible(_ types: [String], _ subject: Subject) -> [Stored] {
        stored.filter { stored in
            let readable = subject.read == .granted || stored.sample.type == Authz.bodyMass
            return types.contains(stored.sample.type) && (stored.bundleID == subject.bundleID || readable)
        }
    }

    private func visibleUUIDs(_ types: [String], _ subject: Subject) -> Set<UUID> {
        Set(visible(types, subject).map(\.sample.uuid))
    }

    /// The error of a call, or what `read` makes of its answers.
    private func outcome(_ subject: Subject, _ call: ClientCall, _ read: ([ServerResult]) -> Outcome) -> Outcome {
        let results = subject.client.results(call)
        if let code = results.last?.errorCode { return .error(code) }
        return read(results)
    }

    /// The error code, or the whole answer.
    private func answer(_ subject: Subject, _ call: ClientCall) -> Outcome {
        outcome(subject, call) { .answer($0.last ?? .callEnded(.shutdown)) }
    }

    private func anchored(_ results: [ServerResult]) -> Outcome {
        var samples = Set<UUID>(), deleted = Set<UUID>()
        for case .anchored(let page, let gone, _, _, _, _) in results {
            samples.formUnion(page.map(\.uuid))
            deleted.formUnion(gone.map(\.uuid))
        }
        return .anchored(samples: samples, deleted: deleted)
    }

    private func rounded(_ value: Double) -> Double {
        (value * 1e6).rounded() / 1e6
    }
}
