import Foundation

/// The first pass's input: the export with only its prologue (up to the root's start tag), its
/// `Correlation` elements and the root's end tag, so libxml2 parses the correlations alone instead
/// of the whole document. The Health app writes every element from its own line, which is what the
/// filter goes by; a document written otherwise may come out malformed, and then the first pass
/// fails and the importer falls back to holding back records correlations may hold.
final class CorrelationLines {
    private let source: ByteSource
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    /// `chunk[start..<end]` is read and not yet looked at.
    private var start = 0
    private var end = 0
    /// The line being read, while it is kept or not yet decided.
    private var carried: [UInt8] = []
    /// Bytes kept and not yet handed out.
    private var out: [UInt8] = []
    private var outStart = 0
    private var inPrologue = true
    private var inCorrelation = false
    /// Whether the line being read is decided yet, and kept.
    private var lineOpen: (keep: Bool, decided: Bool) = (false, false)

    private static let longestLine = 1 << 20
    private static let rootStart = Array("<HealthData".utf8)
    private static let correlationStart = Array("<Correlation".utf8)
    private static let correlationEnd = Array("</Correlation>".utf8)
    private static let rootEnd = Array("</HealthData".utf8)

    init(_ source: ByteSource) {
        self.source = source
    }

    /// The filtered document as a byte source.
    static func source(of document: ByteSource) -> ByteSource {
        let filter = CorrelationLines(document)
        return ByteSource(totalBytes: document.totalBytes, read: { filter.read(into: $0, count: $1) }, close: { document.close() })
    }

    /// Up to `count` filtered bytes; 0 at the end, -1 on a read error.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        while outStart == out.count {
            out.removeAll(keepingCapacity: true)
            outStart = 0
            if start == end {
                let n = chunk.withUnsafeMutableBytes { source.read(into: $0.baseAddress!, count: $0.count) }
                if n < 0 { return -1 }
                if n == 0 {
                    // A last line without a newline.
                    if !carried.isEmpty, lineOpen.decided ? lineOpen.keep : decide(carried, complete: true) == true { out = carried }
                    carried = []
                    lineOpen = (false, false)
                    if out.isEmpty { return 0 }
                    break
                }
                (start, end) = (0, n)
            }
            scan()
            // Not the Health app's one element per line: the first pass gives up rather than hold it.
            if carried.count > Self.longestLine { return -1 }
        }
        let n = min(count, out.count - outStart)
        out.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + outStart, byteCount: n) }
        outStart += n
        return n
    }

    /// Moves the kept lines of `chunk[start..<end]` to `out`; a line is decided by its first tag
    /// name, and one passed over is never copied.
    private func scan() {
        chunk.withUnsafeBufferPointer { bytes in
            let base = UnsafeRawPointer(bytes.baseAddress!)
            while start < end {
                let newline = memchr(base + start, 10, end - start).map { base.distance(to: UnsafeRawPointer($0)) }
                let stop = newline.map { $0 + 1 } ?? end
                if !lineOpen.decided || lineOpen.keep {
                    carried.append(contentsOf: bytes[start..<stop])
                    if !lineOpen.decided, let keep = decide(carried, complete: newline != nil) {
                        lineOpen = (keep, true)
                        if !keep { carried.removeAll(keepingCapacity: true) }
                    }
                }
                if newline != nil {
                    if lineOpen.keep {
                        if inCorrelation, Self.endsCorrelation(carried) { inCorrelation = false }
                        out.append(contentsOf: carried)
                    }
                    carried.removeAll(keepingCapacity: true)
                    lineOpen = (false, false)
                }
                start = stop
            }
        }
    }

    /// Whether the line starting with `line` is kept; nil until enough of it is read.
    private func decide(_ line: [UInt8], complete: Bool) -> Bool? {
        guard let first = line.firstIndex(where: { !Self.isBlank($0) }) else { return complete ? inPrologue : nil }
        let text = line[first...]
        if inPrologue {
            guard complete else { return nil }
            if text.starts(with: Self.rootStart) { inPrologue = false }
            return true
        }
        if inCorrelation { return true }
        if text.count <= Self.correlationStart.count, !complete { return nil }
        if Self.startsCorrelation(text) {
            inCorrelation = true
            return true
        }
        return text.starts(with: Self.rootEnd)
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 13 || byte == 10 }

    /// "<Correlation" followed by a blank or ">".
    private static func startsCorrelation(_ text: ArraySlice<UInt8>) -> Bool {
        guard text.starts(with: correlationStart), text.count > correlationStart.count else { return false }
        let next = text[text.startIndex + correlationStart.count]
        return next == 62 || isBlank(next)
    }

    /// Whether a kept line ends a correlation: its end tag, or a one-line `<Correlation …/>`.
    private static func endsCorrelation(_ line: [UInt8]) -> Bool {
        var last = line.count
        while last > 0, isBlank(line[last - 1]) { last -= 1 }
        let text = line[..<last]
        if text.reversed().starts(with: correlationEnd.reversed()) { return true }
        let trimmed = text.drop(while: isBlank)
        return text.last == 62 && last >= 2 && line[last - 2] == 47 && startsCorrelation(trimmed)
    }
}
