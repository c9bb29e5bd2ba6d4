import Foundation
import HealthModel

/// Reads a file (or stdin for "-") one line at a time, so memory stays bounded by the longest line.
final class LineReader {
    private let file: UnsafeMutablePointer<FILE>
    private var buffer: UnsafeMutablePointer<CChar>?
    private var capacity = 0

    init(path: String) throws(HealthError) {
        guard let file = path == "-" ? fdopen(STDIN_FILENO, "r") : fopen(path, "r") else {
            throw HealthError.invalid("cannot read '\(path)': \(String(cString: strerror(errno)))", field: "FILE")
        }
        self.file = file
    }

    /// The next line without its line ending, nil at the end of the input.
    func next() -> String? {
        var length = getline(&buffer, &capacity, file)
        guard length >= 0, let buffer else { return nil }
        // Line endings are taken off as bytes: a CR or LF is always a character of its own (or CR LF one).
        while length > 0, buffer[length - 1] == 0x0A || buffer[length - 1] == 0x0D { length -= 1 }
        return String(decoding: UnsafeRawBufferPointer(start: buffer, count: length), as: UTF8.self)
    }

    deinit {
        free(buffer)
        fclose(file)
    }
}

/// Writes lines to a file, or hands them to the command's output when no file is given. A file is
/// written with write(2) straight from the caller's buffer: an export writes hundreds of megabytes.
///
/// A regular file's pages are dropped from the page cache behind the writing (`dropWindow`): an
/// export writes each page of its file once and never reads it back, and kept cached every one of
/// them is memory the kernel takes fresh from its free pool. On a virtual machine whose host takes
/// back memory the guest freed (a balloon's free page reporting, as on the benchmark machine) that
/// is a fault on the host a page: 1.1–2.0 s of system time for 675 MB there (a bare write, the
/// export), against 0.25–0.72 s with the pages dropped behind, which reuses the same few pages
/// (bench/history/2026-12-03-export3.md). It also leaves the user's page cache as it was.
final class LineWriter {
    /// Bytes of a file handed to the kernel's write-out at once; the window before is dropped from
    /// the cache as the next one's write-out starts, so about two windows of the file stay cached.
    static let dropWindow = 32 << 20

    private let path: String?
    private let descriptor: Int32
    private let output: @Sendable (String) -> Void
    /// The window's size, nil when the output is not a regular file (a pipe, a terminal, /dev/null).
    private let window: Int?
    /// Bytes written to the file.
    private(set) var written = 0
    /// Bytes whose write-out was started.
    private(set) var writingOut = 0
    /// Bytes whose pages were dropped from the cache (those not yet written out stay cached).
    private(set) var dropped = 0

    init(path: String?, dropWindow: Int = LineWriter.dropWindow, output: @escaping @Sendable (String) -> Void) throws(HealthError) {
        self.path = path
        self.output = output
        guard let path else {
            descriptor = -1
            window = nil
            return
        }
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure(path) }
        var status = stat()
        window = fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFREG ? max(1, dropWindow) : nil
    }

    /// Writes `lines`: UTF-8 text of whole lines, each ending in a newline.
    func write(lines: LineBuffer) throws(HealthError) {
        guard !lines.isEmpty else { return }
        guard let path else { return output(String(decoding: lines.bytes.dropLast(), as: UTF8.self)) }
        let written = lines.withBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 && errno != EINTR { return false }
                offset += max(count, 0)
            }
            return true
        }
        guard written else { throw Self.failure(path) }
        self.written += lines.count
        dropBehind()
    }

    /// Once a window was written past the last write-out: starts the new window's write-out, then
    /// drops the pages of the one before, written out meanwhile. Neither waits for the write-out to
    /// end (only a full device queue holds the first back): pages a slow disk has not written yet stay
    /// cached as they would without it. Only advice: a failure
    /// changes nothing written.
    private func dropBehind() {
        guard let window, written - writingOut >= window else { return }
        if let syncFileRange = Self.syncFileRange {
            _ = syncFileRange(descriptor, off_t(writingOut), off_t(written - writingOut), Self.syncFileRangeWrite)
        } else {
            // POSIX_FADV_DONTNEED also starts the write-out of a range's dirty pages, but failing to
            // drop them it drains every processor's page lists, waiting for each, once a window.
            _ = posix_fadvise(descriptor, off_t(writingOut), off_t(written - writingOut), POSIX_FADV_DONTNEED)
        }
        if writingOut > dropped {
            _ = posix_fadvise(descriptor, off_t(dropped), off_t(writingOut - dropped), POSIX_FADV_DONTNEED)
            dropped = writingOut
        }
        writingOut = written
    }

    /// sync_file_range(2), which glibc declares only under _GNU_SOURCE, and Swift's Glibc module is
    /// built without it; nil where the C library has none.
    private static let syncFileRange = dlsym(nil, "sync_file_range").map {
        unsafeBitCast($0, to: (@convention(c) (Int32, off_t, off_t, UInt32) -> Int32).self)
    }
    /// SYNC_FILE_RANGE_WRITE: start writing the range's dirty pages out, without waiting.
    private static let syncFileRangeWrite: UInt32 = 2

    private static func failure(_ path: String) -> HealthError {
        HealthError.invalid("cannot write '\(path)': \(String(cString: strerror(errno)))", field: "output")
    }

    deinit { if descriptor >= 0 { close(descriptor) } }
}
