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

    /// Up to `count` bytes into `buffer`; 0 at the end, -1 on a read error.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
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

    func close() {
        guard !closed else { return }
        closed = true
        closeSource()
    }
}
