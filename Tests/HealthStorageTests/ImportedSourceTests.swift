import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// Batches saved keeping their objects' sources (an owner's import): each object is stored as its
/// own revision and device, and a source new to the owner's store is marked imported once.
final class ImportedSourceTests: StoreTestCase {
    private static let band = SourceRevision(source: Source(name: "Band", bundleID: "com.example.band"), version: "2.1",
                                             productType: "Band3,1", osMajor: 4, osMinor: 0, osPatch: 1)
    private static let bandDevice = Device(name: "Band", manufacturer: "Example", hardwareVersion: "3")

    private func imported(_ samples: [Sample], into f: StoreFixture, owner: OwnerID? = nil) async throws -> [SaveOutcome] {
        try await f.store.save(SaveBatch(owner: owner ?? f.owner, revision: SourceRevision(source: Principal.healthApp),
                                         defaultDevice: nil, objects: samples, keepsSources: true))
    }

    private func from(_ revision: SourceRevision, _ sample: Sample) -> Sample {
        Sample(uuid: sample.uuid, type: sample.type, start: sample.start, end: sample.end, metadata: sample.metadata,
               device: sample.device, sourceRevision: revision, body: sample.body)
    }

    private func sources(_ f: StoreFixture, owner: OwnerID? = nil) async throws -> [Source] {
        try await f.store.querySources(owner: owner ?? f.owner, type: StoreFixture.heartRate, predicate: nil,
                                       scope: .everything(callerBundleID: Principal.healthApp.bundleID))
    }

    func testEachObjectIsStoredAsItsRevisionAndDeviceAndTheRevisionIsDeduplicated() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let newer = SourceRevision(source: Self.band.source, version: "2.2", productType: "Band3,1", osMajor: 4)
            let first = from(Self.band, StoreFixture.heartRate(s(10), device: Self.bandDevice))
            let bare = from(Self.band, StoreFixture.heartRate(s(20)))
            try await expect(await imported([first, bare], into: f), [.stored, .stored])
            let revisions = try f.count("revisions")
            try await expect(await imported([from(Self.band, StoreFixture.heartRate(s(30)))], into: f), [.stored])
            XCTAssertEqual(try f.count("revisions"), revisions, "the same revision is one row")
            try await expect(await imported([from(newer, StoreFixture.heartRate(s(40)))], into: f), [.stored])
            XCTAssertEqual(try f.count("revisions"), revisions + 1)
            XCTAssertEqual(try f.count("sources"), 1, "one source for both versions (the Health app never saved here)")

            let stored = try await f.query(sort: [SampleSortDescriptor(.startDate)])
            XCTAssertEqual(stored.map(\.sourceRevision), [Self.band, Self.band, Self.band, newer])
            XCTAssertEqual(stored.map(\.device), [Self.bandDevice, nil, nil, nil], "devices as given, no default")
            // The same object again is a retry of that source, not another source's UUID.
            try await expect(await imported([first], into: f), [.alreadyStored])
            await f.store.close()
        }
    }

    func testASourceNewToTheOwnersStoreIsMarkedImportedOnceAndPerOwner() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            try await f.save([StoreFixture.heartRate(s(1))])
            let watchRevision = SourceRevision(source: StoreFixture.watch, version: "1.0")
            try await expect(await imported([from(Self.band, StoreFixture.heartRate(s(2))),
                                             from(watchRevision, StoreFixture.heartRate(s(3)))], into: f), [.stored, .stored])
            let marked = try await sources(f)
            XCTAssertEqual(marked.map(\.bundleID), ["com.example.band", "com.example.watch"])
            let time = try XCTUnwrap(marked[0].importedTime, "new to the store: imported")
            XCTAssertNil(marked[1].importedTime, "the watch saved here itself before")

            try await expect(await imported([from(Self.band, StoreFixture.heartRate(s(4)))], into: f), [.stored])
            try await expect(await sources(f).map(\.importedTime), [time, nil], "the first import's time stays")

            // Sources are shared by the file's owners; the mark is not.
            let bob = try await f.store.addOwner(name: "bob").0
            try await expect(await imported([from(watchRevision, StoreFixture.heartRate(s(5)))], into: f, owner: bob), [.stored])
            let bobs = try await sources(f, owner: bob)
            XCTAssertEqual(bobs.map(\.bundleID), ["com.example.watch"])
            XCTAssertNotNil(bobs[0].importedTime, "new to bob's store")
            try await expect(await sources(f).map(\.importedTime), [time, nil])
            await f.store.close()
        }
    }

    func testACorrelationsObjectsAreSavedAsTheCorrelationsSource() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let systolic = Sample(type: StoreFixture.systolic, start: s(10), end: s(10), sourceRevision: SourceRevision(source: StoreFixture.scale),
                                  body: .quantity(Quantity(120, "mmHg"), count: 1))
            let pressure = Sample(type: StoreFixture.bloodPressure, start: s(10), end: s(10), body: .correlation([systolic]))
            try await expect(await imported([from(Self.band, pressure)], into: f), [.stored])
            let children = try await f.query([StoreFixture.systolic])
            XCTAssertEqual(children.map(\.sourceRevision), [Self.band])
            await f.store.close()
        }
    }

    /// Step 9 adds the per-owner import marks to a store an older server left.
    /// SQLite only: builds a step-8 file.
    func testAStoreFromStep8OpensAndMarksImports() async throws {
        let f = try await StoreFixture()
        await f.store.close()
        do {
            let db = try SQLiteConnection(path: f.path, readOnly: false)
            try db.execute("DROP TABLE series_builders; DROP TABLE series_chunks; DROP TABLE source_imports; PRAGMA user_version = 8")
        }
        try await f.reopen()
        try await expect(await imported([from(Self.band, StoreFixture.heartRate(s(1)))], into: f), [.stored])
        let marked = try await sources(f)
        XCTAssertNotNil(marked.first?.importedTime)
        await f.store.close()
    }
}
