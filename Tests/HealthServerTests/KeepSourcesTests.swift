import Foundation
import HealthModel
import HealthWire
import XCTest

/// SaveObjects with keep_sources against a real healthd: the owner saves objects as the sources they
/// name (an import); apps may not; imported sources are marked and then behave as any other source.
final class KeepSourcesTests: XCTestCase {
    private let steps = Authz.steps
    private let watch = Device(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: "Watch6,1",
                               softwareVersion: "10.1")
    private let watchRevision = SourceRevision(source: Source(name: "Max’s Apple Watch", bundleID: ""), version: "10.1",
                                               productType: "Watch6,1", osMajor: 10, osMinor: 1, osPatch: 0)
    private let zepp = SourceRevision(source: Source(name: "Zepp Life", bundleID: "com.huami.watch"), version: "6.0")
    private var watchBundleID: String { SourceRules.importedBundleID(forName: "Max’s Apple Watch") }

    private func step(_ value: Double, at minutes: Int64, _ revision: SourceRevision?, device: Device? = nil) -> Sample {
        let s = Authz.quantity(steps, value, "count", at: minutes, device: device)
        return Sample(uuid: s.uuid, type: s.type, start: s.start, end: s.end, device: s.device, sourceRevision: revision, body: s.body)
    }

    func testTheOwnerSavesAsNamedSourcesWhichAreMarkedImportedOnceAndWorkLikeAnyOtherSource() throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken, device: Device(name: "Owner's phone"))
        let before = Time.now()
        let first = [step(100, at: 0, watchRevision, device: watch), step(50, at: 30, zepp), step(70, at: 60, watchRevision, device: watch)]
        XCTAssertEqual(owner.call(.saveObjects(first, keepSources: true)), .saveObjects([.stored, .stored, .stored]))
        let after = Time.now()

        let saved = Dictionary(uniqueKeysWithValues: stepSamples(owner).map { ($0.uuid, $0) })
        let fromWatch = try XCTUnwrap(saved[first[0].uuid])
        XCTAssertEqual(fromWatch.sourceRevision, SourceRevision(source: Source(name: "Max’s Apple Watch", bundleID: watchBundleID),
                                                                version: "10.1", productType: "Watch6,1", osMajor: 10, osMinor: 1))
        XCTAssertEqual(fromWatch.device, watch)
        XCTAssertEqual(saved[first[2].uuid]?.sourceRevision, fromWatch.sourceRevision)
        XCTAssertEqual(saved[first[1].uuid]?.sourceRevision, zepp)
        XCTAssertNil(saved[first[1].uuid]?.device, "kept as given: not the connection's default device")

        // The owner's own saves are not imports; a later import of a known source keeps the first time.
        try owner.save([Authz.quantity(steps, 10, "count", at: 90)])
        XCTAssertEqual(owner.call(.saveObjects([step(5, at: 120, zepp)], keepSources: true)), .saveObjects([.stored]))
        guard case .sources(let sources)? = owner.call(.querySources(type: steps, predicate: nil)) else { return XCTFail("no sources") }
        XCTAssertEqual(sources.map(\.bundleID), ["com.apple.Health", "com.huami.watch", watchBundleID])
        XCTAssertNil(sources[0].importedTime)
        for source in sources.dropFirst() {
            let time = try XCTUnwrap(source.importedTime, source.bundleID)
            XCTAssertTrue((before...after).contains(time), "imported during the first save: \(source)")
        }

        // An app reading steps sees the imported sources' data, filtered by source like any other.
        let reader = try RawClient.session(server, token: try owner.registerApp("com.example.reader"))
        XCTAssertEqual(reader.call(.requestAuthorization(share: [], read: [steps])), .requestAuthorization)
        try owner.decide("com.example.reader", [steps], .read, grant: true)
        let fromSource = reader.results(.querySamples(SampleQuery(types: [steps], predicate: .sources([watchBundleID]))))
        XCTAssertEqual(Authz.uuids(fromSource), [first[0].uuid, first[2].uuid])
        guard case .sources(let seen)? = reader.call(.querySources(type: steps, predicate: nil)) else { return XCTFail("no sources") }
        XCTAssertEqual(seen.map(\.bundleID), ["com.apple.Health", "com.huami.watch", watchBundleID])

        // Statistics per source and source priority treat them as sources.
        let query = StatisticsQuery(type: steps, options: [.cumulativeSum, .separateBySource])
        guard case .statistics(let statistics)? = reader.call(.queryStatistics(query)) else { return XCTFail("no statistics") }
        let sums = Dictionary(uniqueKeysWithValues: statistics.bySource.map { ($0.source.bundleID, $0.sum?.value) })
        XCTAssertEqual(sums, ["com.apple.Health": 10, "com.huami.watch": 55, watchBundleID: 170])
        guard case .sourcePriority(_, let order)? = owner.call(.setSourcePriority(type: steps, bundleIDs: ["com.huami.watch", watchBundleID])) else {
            return XCTFail("priority not set")
        }
        XCTAssertEqual(order.prefix(2).map(\.name), ["Zepp Life", "Max’s Apple Watch"])

        // One audit line per keep_sources call, naming the owner and the sources, never a token.
        let audit = server.log.split(separator: "\n").filter { $0.contains("audit:") }
        XCTAssertEqual(audit.count, 2, server.log)
        XCTAssertTrue(audit[0].contains("saved 3 objects") && audit[0].contains("com.huami.watch, \(watchBundleID)"), String(audit[0]))
        XCTAssertFalse(server.log.contains(server.ownerToken))
    }

    func testAnAppMayNotKeepSourcesAndAnImportNeedsEachSourceName() throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        let app = try RawClient.session(server, token: try owner.registerApp("com.example.writer"))
        XCTAssertEqual(app.call(.requestAuthorization(share: [steps], read: [steps])), .requestAuthorization)
        try owner.decide("com.example.writer", [steps], .share, grant: true)

        let claimed = step(1, at: 0, zepp)
        guard case .error(let refused)? = app.call(.saveObjects([claimed], keepSources: true)) else { return XCTFail("an app kept sources") }
        XCTAssertEqual(refused.code, .permissionDenied)
        XCTAssertTrue(refused.message.contains("SaveObjects with keep_sources needs the owner credential"), refused.message)
        XCTAssertEqual(app.call(.saveObjects([claimed])), .saveObjects([.stored]), "without keep_sources the app saves as itself")
        XCTAssertEqual(stepSamples(owner).map { $0.sourceRevision?.source.bundleID }, ["com.example.writer"])

        let good = step(2, at: 10, zepp)
        for nameless in [step(3, at: 20, nil), step(3, at: 20, SourceRevision(source: Source(name: " ", bundleID: "com.x")))] {
            guard case .error(let invalid)? = owner.call(.saveObjects([good, nameless], keepSources: true)) else {
                return XCTFail("a nameless source was saved")
            }
            XCTAssertEqual(invalid.code, .invalidArgument)
            XCTAssertEqual(invalid.objectIndex, 1)
            XCTAssertEqual(invalid.field, "source_revision.source.name")
        }
        let badBundle = step(4, at: 30, SourceRevision(source: Source(name: "Odd", bundleID: "not a bundle id")))
        guard case .error(let invalid)? = owner.call(.saveObjects([badBundle], keepSources: true)) else { return XCTFail("saved") }
        XCTAssertEqual(invalid.field, "source_revision.source.bundle_id")
        XCTAssertEqual(stepSamples(owner).count, 1, "the refused batches stored nothing")
    }

    func testAnAppMayNotBuildASeriesAsAnotherSourceAndTheOwnerNamesIt() throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        let app = try RawClient.session(server, token: try owner.registerApp("com.example.writer"))
        let route = TypeCatalog.workoutRouteType.identifier
        XCTAssertEqual(app.call(.requestAuthorization(share: [route], read: [route])), .requestAuthorization)
        try owner.decide("com.example.writer", [route], .share, grant: true)
        let location = RouteLocation(time: 1_700_000_000_000_000, latitude: 47.37, longitude: 8.54)
        let claimed = SeriesInsert(builderID: UUID(), type: route, points: .locations([location]), sourceRevision: zepp)
        guard case .error(let refused)? = app.call(.insertSeriesData(claimed)) else { return XCTFail("an app built as another source") }
        XCTAssertEqual(refused.code, .permissionDenied)
        XCTAssertTrue(refused.message.contains("InsertSeriesData with source_revision needs the owner credential"), refused.message)

        let nameless = SeriesInsert(builderID: UUID(), type: route, points: .locations([location]),
                                    sourceRevision: SourceRevision(source: Source(name: " ", bundleID: "com.x")))
        guard case .error(let invalid)? = owner.call(.insertSeriesData(nameless)) else { return XCTFail("a nameless source built") }
        XCTAssertEqual(invalid.field, "source_revision.source.name")
        XCTAssertEqual(owner.call(.insertSeriesData(claimed)), .insertSeriesData(count: 1), "the owner builds as the source it names")
    }

    private func stepSamples(_ client: RawClient) -> [Sample] {
        client.results(.querySamples(SampleQuery(types: [steps]))).flatMap { result -> [Sample] in
            if case .samples(let page) = result { page } else { [] }
        }
    }
}
