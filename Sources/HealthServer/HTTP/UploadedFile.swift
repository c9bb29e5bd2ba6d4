import Foundation
import HealthModel

/// A request body streamed to a temporary file as it arrives (an export upload is far larger than
/// memory should hold). The file is removed when the last holder lets go: after the import, after a
/// refusal, or when the connection breaks off mid-upload. A server killed first leaves it behind;
/// `removeAbandoned` clears those at the next start.
final class UploadedFile: @unchecked Sendable {
    let path: String
    /// A directory of its own: files an export.xml refers to (workout routes) are looked up beside
    /// it, and must not be found among other files.
    private let directory: String
    private var fd: Int32
    /// The directory, open and flock'ed for the upload's life: a server starting on the same data
    /// directory meanwhile (another node on a shared store) sees it is in use.
    private let lock: Int32
    private(set) var size: Int64 = 0

    private static let prefix = "healthstore-upload-"

    /// A new upload in a directory of its own inside `parent` (created when missing; nil: the
    /// system's temporary directory).
    init(in parent: String?) throws(HealthError) {
        let parent = parent ?? NSTemporaryDirectory()
        guard mkdir(parent, 0o700) == 0 || errno == EEXIST else {
            throw HealthError(.internalError, "cannot create the uploads directory \(parent): \(String(cString: strerror(errno)))")
        }
        var template = Array((parent + "/" + Self.prefix + "XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw HealthError(.internalError, "cannot create a temporary directory for the upload: \(String(cString: strerror(errno)))")
        }
        directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        lock = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if lock >= 0 { _ = flock(lock, LOCK_EX) }
        path = directory + "/export"
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            rmdir(directory)
            if lock >= 0 { Foundation.close(lock) }
            throw HealthError(.internalError, "cannot create a temporary file for the upload: \(reason)")
        }
    }

    /// Removes the upload directories in `parent` that no running server holds (left by a server
    /// that was killed); only ours, by name. Returns how many were removed.
    static func removeAbandoned(in parent: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
        var removed = 0
        for name in names where name.hasPrefix(prefix) {
            let directory = parent + "/" + name
            let lock = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard lock >= 0 else { continue }
            defer { Foundation.close(lock) }
            guard flock(lock, LOCK_EX | LOCK_NB) == 0 else { continue }
            if (try? FileManager.default.removeItem(atPath: directory)) != nil { removed += 1 }
        }
        return removed
    }

    /// Appends a chunk (loop thread, while the upload arrives); false when the disk refuses it.
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = Foundation.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            guard n > 0 else { return false }
            offset += n
        }
        size += Int64(bytes.count)
        return true
    }

    /// The upload is complete: no more writes.
    func close() {
        if fd >= 0 { Foundation.close(fd) }
        fd = -1
    }

    deinit {
        close()
        unlink(path)
        rmdir(directory)
        if lock >= 0 { Foundation.close(lock) }
    }
}
