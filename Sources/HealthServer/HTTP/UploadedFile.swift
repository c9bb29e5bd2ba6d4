import Foundation
import HealthModel

/// A request body streamed to a temporary file as it arrives (an export upload is far larger than
/// memory should hold). The file is removed when the last holder lets go: after the import, after a
/// refusal, or when the connection breaks off mid-upload.
final class UploadedFile: @unchecked Sendable {
    let path: String
    /// A directory of its own: files an export.xml refers to (workout routes) are looked up beside
    /// it, and must not be found among other files.
    private let directory: String
    private var fd: Int32
    private(set) var size: Int64 = 0

    init() throws(HealthError) {
        var template = Array((NSTemporaryDirectory() + "/healthstore-upload-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw HealthError(.internalError, "cannot create a temporary directory for the upload: \(String(cString: strerror(errno)))")
        }
        directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        path = directory + "/export"
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            rmdir(directory)
            throw HealthError(.internalError, "cannot create a temporary file for the upload: \(reason)")
        }
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
    }
}
