import Foundation

/// One file of an export as a stream of bytes (from disk or from inside the zip), counting what
/// was read so progress can be shown against the file's size.
final class ByteSource {
    private let readChunk: (UnsafeMutableRawPointer, Int) -> Int
    private let closeSource: () -> Void
    /// Bytes already taken from the underlying file but not yet handed out (see `peek`).
    private var pending: [UInt8] = []
    private var closed = false
    /// Uncompressed bytes handed out so far.
    private(set) var bytesRead: Int64 = 0
    /// Uncompressed size of the file, 0 when unknown.
    let totalBytes: Int64

    init(totalBytes: Int64, read: @escaping (UnsafeMutableRawPointer, Int) -> Int, close: @escaping () -> Void) {
        self.totalBytes = totalBytes
        self.readChunk = read
        self.closeSource = close
    }

    deinit { close() }

    /// A file on disk.
    static func file(_ path: String) throws(ImportError) -> ByteSource {
        guard let file = fopen(path, "rb") else {
            throw ImportError.cannotOpen(path, String(cString: strerror(errno)))
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0
        return ByteSource(totalBytes: size, read: { buffer, count in
            let n = fread(buffer, 1, count, file)
            return n == 0 && ferror(file) != 0 ? -1 : n
        }, close: { fclose(file) })
    }

    /// A read cut short before a line (see `end(beforeLine:)`): the line the next byte is on, the
    /// line to stop at, and what to return after it.
    private var cut: (line: Int, stop: Int, suffix: [UInt8])?

    /// Ends this stream where line `stop` begins and returns `suffix` instead of the rest; the next
    /// byte read is on line `line`.
    func end(beforeLine stop: Int, nextByteOnLine line: Int, suffix: [UInt8]) {
        cut = (line, stop, suffix)
    }

    /// Up to `count` bytes into `buffer`; 0 at the end, -1 on a read error.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        guard var cut else { return readUncut(into: buffer, count: count) }
        if cut.line >= cut.stop {
            let n = min(count, cut.suffix.count)
            cut.suffix.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: n) }
            cut.suffix.removeFirst(n)
            self.cut = cut
            return n
        }
        var n = readUncut(into: buffer, count: count)
        let bytes = buffer.assumingMemoryBound(to: UInt8.self)
        for index in 0..<max(n, 0) where bytes[index] == 10 {
            cut.line += 1
            if cut.line == cut.stop {
                pending.insert(contentsOf: UnsafeBufferPointer(start: bytes + index + 1, count: n - index - 1), at: 0)
                bytesRead -= Int64(n - index - 1)
                n = index + 1
                break
            }
        }
        self.cut = cut
        return n
    }

    private func readUncut(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        if !pending.isEmpty {
            let n = min(count, pending.count)
            pending.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: n) }
            pending.removeFirst(n)
            bytesRead += Int64(n)
            return n
        }
        let n = readChunk(buffer, count)
        if n > 0 { bytesRead += Int64(n) }
        return n
    }

    /// The first `count` bytes (fewer for a short file), which later reads still return: the export
    /// version is in a comment inside the DTD, which the XML reader does not report.
    func peek(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { readChunk($0.baseAddress!, count) }
        bytes.removeLast(count - max(n, 0))
        pending = bytes
        return bytes
    }

    /// Hands out `bytes` instead of what `peek` returned, counting the bytes left out as read.
    func replacePeeked(with bytes: [UInt8]) {
        bytesRead += Int64(pending.count - bytes.count)
        pending = bytes
    }

    /// Bytes later reads return first, not counted as read from the file (a wrapper such as a root
    /// element around a resumed document).
    func prepend(_ bytes: [UInt8]) {
        pending.insert(contentsOf: bytes, at: 0)
        bytesRead -= Int64(bytes.count)
    }

    /// Reads on to the first line after line `after` (1-based from the start of this source) whose
    /// first non-blank bytes are one of `starts`, which later reads return from its beginning.
    /// Returns that line's number; nil when the file ends first.
    func skipLines(after: Int, toLineStartingWith starts: [[UInt8]]) -> Int? {
        var line = 1
        var current: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { readChunk($0.baseAddress!, $0.count) }
            guard n > 0 else { return nil }
            bytesRead += Int64(n)
            var index = 0
            while index < n {
                let byte = chunk[index]
                index += 1
                if byte == 10 {
                    line += 1
                    current.removeAll(keepingCapacity: true)
                    continue
                }
                guard line > after, current.count < 64 else { continue }
                current.append(byte)
                let trimmed = current.drop { $0 == 32 || $0 == 9 || $0 == 13 }
                if starts.contains(where: { trimmed.starts(with: $0) }) {
                    pending = current + chunk[index..<n]
                    bytesRead -= Int64(pending.count)
                    return line
                }
            }
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        closeSource()
    }
}
