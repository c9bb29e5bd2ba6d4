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
        let length = getline(&buffer, &capacity, file)
        guard length >= 0, let buffer else { return nil }
        var line = String(decoding: UnsafeRawBufferPointer(start: buffer, count: length), as: UTF8.self)
        while line.last == "\n" || line.last == "\r" || line.last == "\r\n" { line.removeLast() }
        return line
    }

    deinit {
        free(buffer)
        fclose(file)
    }
}

/// Writes lines to a file, or hands them to the command's output when no file is given.
final class LineWriter {
    private let handle: FileHandle?
    private let output: @Sendable (String) -> Void

    init(path: String?, output: @escaping @Sendable (String) -> Void) throws(HealthError) {
        self.output = output
        guard let path else {
            handle = nil
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw HealthError.invalid("cannot write '\(path)'", field: "output")
        }
        self.handle = handle
    }

    /// Writes `lines`: UTF-8 text of whole lines, each ending in a newline.
    func write(lines: [UInt8]) {
        guard !lines.isEmpty else { return }
        if let handle {
            handle.write(Data(lines))
        } else {
            output(String(decoding: lines.dropLast(), as: UTF8.self))
        }
    }

    deinit { try? handle?.close() }
}
