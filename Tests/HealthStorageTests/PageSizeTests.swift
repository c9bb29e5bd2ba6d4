import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// A SQLite store's page size is chosen when its file is created and kept for its life; the
/// checkpoint interval is the writer connection's, set on every open.
final class PageSizeTests: XCTestCase {
    func testNewStoreGetsTheChosenPageSizeAndCheckpointInterval() async throws {
        let standard = try await StoreFixture()
        try await expect(try await standard.store.writerPragma("PRAGMA page_size"), 8192)
        try await expect(try await standard.store.writerPragma("PRAGMA wal_autocheckpoint"), 8000)

        var options = SQLiteStore.Options()
        options.pageSize = 4096
        options.checkpointPages = 1000
        let chosen = try await StoreFixture(options: options)
        try await expect(try await chosen.store.writerPragma("PRAGMA page_size"), 4096)
        try await expect(try await chosen.store.writerPragma("PRAGMA wal_autocheckpoint"), 1000)
    }

    func testExistingStoreKeepsItsPageSize() async throws {
        var options = SQLiteStore.Options()
        options.pageSize = 4096
        let f = try await StoreFixture(options: options)
        try await f.reopen()
        try await expect(try await f.store.writerPragma("PRAGMA page_size"), 4096)
    }
}
