import Foundation

/// One buffer the writer copies a statement's UUIDs and units into, to bind them in place
/// (`Statement.bind(_:borrowing:text:)`): bound as copies, each was an allocation, a copy and a free
/// in SQLite, three a lone sample (its UUID, its unit, the claim's head). Sized up front, since the
/// bound bytes may not move; the owner deallocates it once the statement has been `reset()`.
struct BindingBytes {
    private let buffer: UnsafeMutableRawBufferPointer
    private var used = 0

    /// Room for `uuids` UUIDs and `textBytes` bytes of text.
    init(uuids: Int, textBytes: Int = 0) {
        buffer = .allocate(byteCount: uuids * MemoryLayout<uuid_t>.size + textBytes, alignment: 1)
    }

    /// Room for the UUIDs and units of `rows`.
    init(rows: some Collection<SampleRow>) {
        self.init(uuids: rows.count, textBytes: rows.reduce(0) { $0 + ($1.unit?.utf8.count ?? 0) })
    }

    /// `uuid`'s 16 bytes, copied in.
    mutating func copy(_ uuid: UUID) -> UnsafeRawBufferPointer {
        withUnsafeBytes(of: uuid.uuid) { append($0) }
    }

    /// `text`'s UTF-8 bytes, copied in.
    mutating func copy(_ text: String) -> UnsafeRawBufferPointer {
        var text = text
        return text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    private mutating func append(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        precondition(used + bytes.count <= buffer.count, "BindingBytes sized too small")
        let target = UnsafeMutableRawBufferPointer(rebasing: buffer[used..<used + bytes.count])
        target.copyMemory(from: bytes)
        used += bytes.count
        return UnsafeRawBufferPointer(target)
    }

    /// Frees the buffer: only once every statement bound from it has been reset.
    func deallocate() {
        buffer.deallocate()
    }
}
