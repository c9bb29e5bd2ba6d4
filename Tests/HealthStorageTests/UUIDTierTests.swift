import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// UUIDs stay unique per owner while the writer moves them between the tiers of `samples_by_uuid`
/// (`UUIDTiers`), and every lookup by UUID finds a sample in whichever tier it is.
final class UUIDTierTests: StoreTestCase {
    func testUUIDsStayUniqueAndFoundInEveryTier() async throws {
        try await forEachEngine {
            let fixture = try await StoreFixture()
            // Three rows fill the recent tier: 40 samples move the tiers on 13 times, over most of the middle tier's ranges.
            _ = try await fixture.store.write { context throws(HealthError) in context.recentUUIDLimit = 3 }
            var saved: [Sample] = []
            for pair in 0..<20 {
                let objects = [StoreFixture.heartRate(s(Int64(pair * 10))), StoreFixture.heartRate(s(Int64(pair * 10 + 5)))]
                try await expect(await fixture.save(objects), [.stored, .stored])
                saved += objects
            }
            if fixture.isSQLite {
                let tiers = try fixture.connect().prepareOnce("SELECT count(DISTINCT uuid_tier) FROM samples")
                _ = try tiers.step()
                XCTAssertEqual(tiers.int(0), 3, "the test should hold rows in every tier")
            }

            // Retries of every sample, in one batch and alone, whichever tier holds it.
            try await expect(await fixture.save(saved), Array(repeating: .alreadyStored, count: saved.count))
            try await expect(await fixture.save([saved[0]]), [.alreadyStored])
            // A stored UUID with other content is refused, in a batch of plain samples and alone.
            for reused in [saved[0], saved[21], saved[39]] {
                let other = StoreFixture.heartRate(reused.start, bpm: 99, uuid: reused.uuid)
                let refused = try? await fixture.save([StoreFixture.heartRate(s(900)), other])
                XCTAssertNil(refused, "UUID \(reused.uuid) was stored twice")
                let alone = try? await fixture.save([other])
                XCTAssertNil(alone, "UUID \(reused.uuid) was stored twice")
            }
            try await expect(await fixture.query().count, saved.count)
            try await expect(await fixture.query([StoreFixture.heartRate], .uuids(Set(saved.map(\.uuid)))).count, saved.count)

            let owns = Deleter(owner: fixture.owner, bundleID: StoreFixture.watch.bundleID, isOwner: true)
            try await expect(await fixture.store.deleteObjects(uuids: [saved[0].uuid, saved[20].uuid, saved[39].uuid], by: owns), 3)
            try await expect(await fixture.query().count, saved.count - 3)
        }
    }
}
