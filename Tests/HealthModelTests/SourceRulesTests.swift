import HealthModel
import XCTest

/// The bundle ids imported sources without one get, and the checks of a keep_sources batch.
final class SourceRulesTests: XCTestCase {
    func testDerivedBundleIDsAreStableReadableDistinctAndValid() throws {
        // Pinned: a store keeps these ids, so the derivation must never change.
        XCTAssertEqual(SourceRules.importedBundleID(forName: "Max’s Apple Watch"), "imported.max-s-apple-watch.e11dad20")
        XCTAssertEqual(SourceRules.importedBundleID(forName: "Schlaf++"), "imported.schlaf.db8720ca")
        XCTAssertEqual(SourceRules.importedBundleID(forName: "Schlaf"), "imported.schlaf.4d27c70c")
        XCTAssertEqual(SourceRules.importedBundleID(forName: "健康"), "imported.0cf56c2e")
        let long = SourceRules.importedBundleID(forName: String(repeating: "a", count: 300))
        XCTAssertEqual(long.count, "imported.".count + 64 + 9)
        for name in ["Max’s Apple Watch", "健康", "  -- ", String(repeating: "a", count: 300)] {
            XCTAssertNoThrow(try SourceRules.checkBundleID(SourceRules.importedBundleID(forName: name)), name)
        }
    }

    func testKeptSourcesDeriveMissingBundleIDsAndNameTheOffendingObject() throws {
        let body = SampleBody.category(0)
        let named = Sample(type: "t", start: 0, end: 0, sourceRevision: SourceRevision(source: Source(name: "Zepp Life", bundleID: ""),
                                                                                        version: "6.0"), body: body)
        let kept = try SourceRules.keptSources([named])
        XCTAssertEqual(kept[0].sourceRevision, SourceRevision(source: Source(name: "Zepp Life", bundleID: "imported.zepp-life.d7fcef5a"),
                                                              version: "6.0"))
        do {
            _ = try SourceRules.keptSources([named, Sample(type: "t", start: 0, end: 0, body: body)])
            XCTFail("an object without a source was kept")
        } catch {
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertEqual(error.objectIndex, 1)
            XCTAssertEqual(error.field, "source_revision.source.name")
        }
    }
}
