import Foundation

/// The dashboard's files, read once at start and served from memory.
struct StaticAssets: Sendable {
    private struct File: Sendable {
        let contentType: String
        let bytes: [UInt8]
        let etag: String
    }

    private static let contentTypes = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "json": "application/json", "ico": "image/x-icon", "woff2": "font/woff2",
    ]

    private let files: [String: File]
    /// Where the files came from (for the log).
    let directory: String?

    /// The files under `directory`, else the bundled ones beside the executable (SwiftPM's resource
    /// bundle); none when neither exists.
    init(directory: String?) {
        let bundled = Bundle.main.bundleURL.appendingPathComponent("HealthStore_HealthServer.resources/Assets").path
        let chosen = directory ?? (FileManager.default.fileExists(atPath: bundled) ? bundled : nil)
        self.directory = chosen
        var files: [String: File] = [:]
        if let chosen, let walker = FileManager.default.enumerator(atPath: chosen) {
            for case let relative as String in walker {
                let name = (relative as NSString).lastPathComponent
                guard !name.hasPrefix("."), let type = Self.contentTypes[(name as NSString).pathExtension.lowercased()],
                      let data = FileManager.default.contents(atPath: chosen + "/" + relative) else { continue }
                let bytes = [UInt8](data)
                files["/" + relative] = File(contentType: type, bytes: bytes, etag: "\"\(Self.digest(bytes))\"")
            }
        }
        self.files = files
    }

    /// The file at a request path ("/" is /index.html); nil when there is none. A browser that already
    /// holds this version (`If-None-Match` names its ETag) gets 304 without the body.
    func response(for path: String, ifNoneMatch: String?) -> HTTPResponse? {
        guard !path.split(separator: "/").contains(where: { $0.hasPrefix(".") }),
              let file = files[path == "/" ? "/index.html" : path] else { return nil }
        let cached = ifNoneMatch.map { $0.split(separator: ",").contains { tag in
            let tag = tag.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == file.etag || tag == "W/" + file.etag
        } } ?? false
        var response = HTTPResponse(status: cached ? 304 : 200, contentType: file.contentType, body: cached ? [] : file.bytes)
        response.header("Cache-Control", "no-cache")
        response.header("ETag", file.etag)
        return response
    }

    /// FNV-1a, enough to tell versions of a file apart for ETag.
    private static func digest(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }
}
