import Foundation
import XCTest

/// The real Apple Health exports in the shared fixtures folder, which lives outside the repository:
/// $HEALTHSTORE_FIXTURES, else `../shared/fixtures/apple-health` beside the package (the main
/// checkout) or two levels up (a worktree under wt/). Tests skip when none is there (CI clones
/// the repository alone).
enum AppleHealthFixtures {
    static func folder() throws -> URL {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [ProcessInfo.processInfo.environment["HEALTHSTORE_FIXTURES"]].compactMap { $0 }
            + ["../shared/fixtures/apple-health", "../../shared/fixtures/apple-health"].map { root.appendingPathComponent($0).standardized.path }
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0 + "/README.md") }) else {
            throw XCTSkip("Apple Health fixtures not found (set HEALTHSTORE_FIXTURES; looked in \(candidates.joined(separator: ", ")))")
        }
        return URL(fileURLWithPath: found)
    }

    /// Every export in the folder: the XML files, the zip, and the unzipped iOS 13+ folder.
    static let exports = [
        "dogsheep-healthkit-to-sqlite/export.xml", "dogsheep-healthkit-to-sqlite/export.with-myfitnesspal.xml",
        "dogsheep-healthkit-to-sqlite/zip_contents", "watsonbox-healthkit-parser/export.xml",
        "jdecool-healthkit-parser/exporter.xml", "y-yu-ahcd-go/export.xml", "alxdrcirilo-apple-health-parser/export.xml",
        "alxdrcirilo-apple-health-parser/export.zip",
    ]
}
