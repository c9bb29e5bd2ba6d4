import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// What an acknowledged save survives is chosen by `Options.durability`; power loss is the default.
final class DurabilityTests: XCTestCase {
    /// `PRAGMA synchronous` values: 1 = NORMAL, 2 = FULL.
    func testDefaultFsyncsEveryCommitAndProcessCrashDoesNot() async throws {
        let standard = try await StoreFixture()
        try await expect(try await standard.store.writerPragma("PRAGMA synchronous"), 2)

        var options = SQLiteStore.Options()
        options.durability = .processCrash
        let relaxed = try await StoreFixture(options: options)
        try await expect(try await relaxed.store.writerPragma("PRAGMA synchronous"), 1)
    }
}
