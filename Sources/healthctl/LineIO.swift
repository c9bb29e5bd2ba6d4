import Foundation
import HealthModel

/// Reads a file (or stdin for "-") one line at a time, so memory stays bounded by the longest line.
/// Lines are handed over as bytes in the reader's own buffer, filled by 1 MiB reads: an import
/// reads hundreds of megabytes, and through stdio's 4 KiB reads and a String a line the copies and
/// system calls cost it about a tenth of its time (bench/history/2026-12-04-import-bytes.md).
final class LineReader {
    private let descriptor: Int32
    private let path: String
    private var buffer: UnsafeMutableRawBufferPointer
    /// The bytes read and not yet handed over: `buffer[start..<end]`.
    private var start = 0, end = 0
    private var atEnd = false

    /// Bytes a read asks for; the buffer grows past it only for a longer line.
    static let readSize = 1 << 20

    init(path: String) throws(HealthError) {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw HealthError.invalid("cannot read '\(path)': \(String(cString: strerror(errno)))", field: "FILE")
        }
        self.descriptor = descriptor
        self.path = path
        buffer = .allocate(byteCount: Self.readSize, alignment: 16)
    }

    /// The next line without its line ending, nil at the end of the input.
    func next() throws(HealthError) -> String? {
        try next { String(decoding: $0, as: UTF8.self) }
    }

    /// `body` of the next line's bytes without its line ending (valid only during the call), nil at
    /// the end of the input.
    func next<T>(_ body: (UnsafeBufferPointer<UInt8>) throws(HealthError) -> T) throws(HealthError) -> T? {
        var searched = start
        while true {
            let bytes = buffer.bindMemory(to: UInt8.self)
            if let newline = memchr(bytes.baseAddress! + searched, 0x0A, end - searched) {
                let lineEnd = bytes.baseAddress!.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                defer { start = lineEnd + 1 }
                return try body(Self.trimmed(bytes, start, lineEnd))
            }
            if atEnd {
                guard start < end else { return nil }
                defer { start = end }
                return try body(Self.trimmed(bytes, start, end))
            }
            searched = end - start
            try fill()
        }
    }

    /// The buffer's size: `readSize`, or more while a longer line is read.
    var bufferSize: Int { buffer.count }

    /// Reads more after the bytes not yet handed over, moved to the front (the buffer doubled when
    /// they fill it: a line longer than it; back to `readSize` once such a line is past, so one long
    /// line does not keep its memory for the rest of the input).
    private func fill() throws(HealthError) {
        if start > 0 {
            memmove(buffer.baseAddress!, buffer.baseAddress! + start, end - start)
            (start, end) = (0, end - start)
        }
        if buffer.count > Self.readSize, end < Self.readSize / 2 {
            resize(to: Self.readSize)
        } else if buffer.count - end < Self.readSize / 2 {
            resize(to: buffer.count * 2)
        }
        while true {
            let count = read(descriptor, buffer.baseAddress! + end, buffer.count - end)
            if count > 0 { end += count; return }
            if count == 0 { atEnd = true; return }
            guard errno == EINTR else {
                throw HealthError.invalid("cannot read '\(path)': \(String(cString: strerror(errno)))", field: "FILE")
            }
        }
    }

    /// A buffer of `size` bytes holding the bytes not yet handed over (which start at 0).
    private func resize(to size: Int) {
        let resized = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        resized.baseAddress!.copyMemory(from: buffer.baseAddress!, byteCount: end)
        buffer.deallocate()
        buffer = resized
    }

    /// The bytes from `from` to `to` with the line endings at their end taken off: a CR or LF is
    /// always a character of its own (or CR LF one).
    private static func trimmed(_ bytes: UnsafeMutableBufferPointer<UInt8>, _ from: Int, _ to: Int) -> UnsafeBufferPointer<UInt8> {
        var to = to
        while to > from, bytes[to - 1] == 0x0A || bytes[to - 1] == 0x0D { to -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[from..<to])
    }

    deinit {
        buffer.deallocate()
        if descriptor != STDIN_FILENO { close(descriptor) }
    }
}

/// Writes lines to a file, or hands them to the command's output when no file is given. An export
/// writes hundreds of megabytes, so a regular file is written without passing through the page
/// cache where the file system allows it (`O_DIRECT`): whole blocks straight from the line buffer's
/// own memory, from a queue of their own while the caller writes the next lines (`WriteBehind`);
/// the last part block is written through the cache at the end (`finish`).
///
/// Through the cache every page of the file is memory the kernel takes fresh from its free pool
/// and later writes out from a thread of its own; on a virtual machine whose host takes back memory
/// the guest freed (a balloon's free page reporting, as on the benchmark machine) that is a fault on
/// the host a page: 1.1–2.0 s of system time for 675 MB there (bench/history/2026-12-03-export3.md).
/// Direct writes take neither, and leave the user's page cache as it was. Where the file system
/// refuses them (tmpfs) the file's pages are dropped from the cache behind the writing instead
/// (`dropWindow`), which reuses the same few pages: 0.25–0.72 s for those 675 MB, writing out apart.
final class LineWriter {
    /// Bytes of a file handed to the kernel's write-out at once when written through the cache; the
    /// window before is dropped from the cache as the next one's write-out starts, so about two
    /// windows of the file stay cached.
    static let dropWindow = 32 << 20
    /// Bytes of a direct write, a multiple of `LineBuffer.alignment`.
    static let directBlock = 2 << 20

    private let path: String?
    private let descriptor: Int32
    private let output: @Sendable (String) -> Void
    /// The window's size when a regular file is written through the cache; nil for direct writes and
    /// when the output is not a regular file (a pipe, a terminal, /dev/null).
    private let window: Int?
    /// The direct writes of a regular file, nil when it is written through the cache.
    private let behind: WriteBehind?
    /// Bytes written to the file through the cache.
    private(set) var written = 0
    /// Bytes whose write-out was started.
    private(set) var writingOut = 0
    /// Bytes whose pages were dropped from the cache (those not yet written out stay cached).
    private(set) var dropped = 0

    /// `direct: false` writes a regular file through the cache even where it could be written directly.
    init(path: String?, dropWindow: Int = LineWriter.dropWindow, direct: Bool = true,
         output: @escaping @Sendable (String) -> Void) throws(HealthError) {
        self.path = path
        self.output = output
        guard let path else {
            (descriptor, window, behind) = (-1, nil, nil)
            return
        }
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure(path) }
        var status = stat()
        let regular = fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
        behind = regular && direct && WriteBehind.setDirect(descriptor, true) ? WriteBehind(descriptor: descriptor) : nil
        window = regular && behind == nil ? max(1, dropWindow) : nil
    }

    /// Writes `lines` (UTF-8 text of whole lines, each ending in a newline) and takes them out of
    /// it; for direct writes only whole blocks, handed to the file's queue, the rest kept in `lines`
    /// for the next call or `finish`. Throws for a write that failed, here or before on the queue.
    func write(lines: inout LineBuffer) throws(HealthError) {
        guard !lines.isEmpty else { return }
        guard let path else {
            output(String(decoding: lines.bytes.dropLast(), as: UTF8.self))
            return lines.removeAll()
        }
        guard let behind else { return try writeThroughCache(&lines) }
        if let failure = behind.failure { throw Self.failure(path, failure) }
        guard lines.count >= Self.directBlock else { return }
        if let blocks = lines.takeBlocks(of: Self.directBlock, spare: behind.spare()) { behind.write(blocks) }
    }

    /// Writes what is left of `lines` once every direct write is done, and throws for any that failed.
    func finish(lines: inout LineBuffer) throws(HealthError) {
        if let path, let behind {
            if let blocks = lines.takeBlocks(of: LineBuffer.alignment, spare: nil) { behind.write(blocks) }
            if let failure = behind.drain() { throw Self.failure(path, failure) }
            // The rest is less than a block, which a direct write cannot end the file with.
            guard WriteBehind.setDirect(descriptor, false) else { throw Self.failure(path) }
            return try writeThroughCache(&lines)
        }
        try write(lines: &lines)
    }

    private func writeThroughCache(_ lines: inout LineBuffer) throws(HealthError) {
        guard !lines.isEmpty, let path else { return }
        let failure = lines.withBytes { WriteBehind.writeAll(descriptor, $0) }
        if let failure { throw Self.failure(path, failure) }
        written += lines.count
        lines.removeAll()
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

    private static func failure(_ path: String, _ error: Int32 = errno) -> HealthError {
        HealthError.invalid("cannot write '\(path)': \(String(cString: strerror(error)))", field: "output")
    }

    deinit {
        // A failed export leaves direct writes queued: none may outlive the descriptor.
        _ = behind?.drain()
        if descriptor >= 0 { close(descriptor) }
    }
}

/// The direct writes of a file (`O_DIRECT`), in order, from a queue of their own: the caller writes
/// the next lines while the disk takes the last ones. At most `depth` writes are handed over and not
/// yet done (the caller waits for room), so memory stays bounded; written blocks come back as spares,
/// whose storage the line buffer goes on in.
private final class WriteBehind: @unchecked Sendable {
    // Sendable: `firstFailure` and `spares` are touched only under `lock`; `descriptor` only on `queue`
    // once handed over (the owner waits for the queue before anything else touches it).
    private let descriptor: Int32
    private let queue = DispatchQueue(label: "healthctl.direct-writes")
    private let room: DispatchSemaphore
    private let lock = NSLock()
    private var firstFailure: Int32?
    private var spares: [LineBuffer.Blocks] = []

    /// Writes handed over and not yet done, at most: each holds a buffer of about twice a block.
    static let depth = 3

    init(descriptor: Int32) {
        self.descriptor = descriptor
        room = DispatchSemaphore(value: Self.depth)
    }

    /// The errno of the first write that failed; the writes after it are not made.
    var failure: Int32? { lock.withLock { firstFailure } }

    /// A written buffer to go on in, if one came back.
    func spare() -> LineBuffer.Blocks? { lock.withLock { spares.popLast() } }

    /// Writes `blocks` after those handed over before, waiting while `depth` are not yet done.
    func write(_ blocks: LineBuffer.Blocks) {
        room.wait()
        let handed = Handed(blocks)
        queue.async { [self] in
            written(handed)
            room.signal()
        }
    }

    /// Blocks handed to the queue, taken out by their write: the buffer that goes on in them once
    /// they come back as a spare must hold them alone, and the queue's closure outlives the write.
    private final class Handed: @unchecked Sendable {
        // Sendable: set before the closure is queued, taken once on the queue.
        var blocks: LineBuffer.Blocks?
        init(_ blocks: LineBuffer.Blocks) { self.blocks = blocks }
    }

    /// Writes the handed blocks unless a write failed before, then keeps them as a spare; they are
    /// referenced from nowhere else once this returns.
    private func written(_ handed: Handed) {
        guard let blocks = handed.blocks.take() else { return }
        if failure == nil, let error = writeDirect(blocks) { lock.withLock { firstFailure = error } }
        lock.withLock { spares.append(blocks) }
    }

    /// Waits for every write handed over; the errno of the first that failed.
    func drain() -> Int32? {
        queue.sync {}
        return failure
    }

    /// A direct write the file system takes at open but refuses (EINVAL) is made through the cache,
    /// as are the ones after it.
    private func writeDirect(_ blocks: LineBuffer.Blocks) -> Int32? {
        let bytes = UnsafeRawBufferPointer(start: blocks.start, count: blocks.count)
        guard let error = Self.writeAll(descriptor, bytes) else { return nil }
        guard error == EINVAL, Self.setDirect(descriptor, false) else { return error }
        return Self.writeAll(descriptor, bytes)
    }

    /// Writes every byte of `bytes` at the descriptor's offset; the errno of a failure. A write cut
    /// short goes on from where it stopped.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += count
        }
        return nil
    }

    /// Turns direct I/O on or off for `descriptor`; false where the file system or the platform
    /// does not have it.
    static func setDirect(_ descriptor: Int32, _ on: Bool) -> Bool {
        guard let direct = directFlag else { return !on }
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0 else { return false }
        return fcntl(descriptor, F_SETFL, on ? flags | direct : flags & ~direct) == 0
    }

    /// O_DIRECT, which glibc declares only under _GNU_SOURCE, without which Swift's Glibc module is
    /// built; its value differs between architectures.
    private static var directFlag: Int32? {
        #if arch(x86_64) || arch(i386)
        0o40000
        #elseif arch(arm64) || arch(arm)
        0o200000
        #else
        nil
        #endif
    }
}
