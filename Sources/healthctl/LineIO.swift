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
final class LineWriter {
    private let path: String?
    private let descriptor: Int32
    private let output: @Sendable (String) -> Void

    init(path: String?, output: @escaping @Sendable (String) -> Void) throws(HealthError) {
        self.path = path
        self.output = output
        guard let path else {
            descriptor = -1
            return
        }
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure(path) }
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
    }

    private static func failure(_ path: String) -> HealthError {
        HealthError.invalid("cannot write '\(path)': \(String(cString: strerror(errno)))", field: "output")
    }

    deinit { if descriptor >= 0 { close(descriptor) } }
}
