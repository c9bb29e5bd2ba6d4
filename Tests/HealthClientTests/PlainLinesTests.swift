import Foundation
import HealthModel
import HealthWire
import XCTest
@testable import healthctl

/// The import's byte-level reader of plain lines must give what the JSON tree gives, or nothing (the
/// tree then reads the line and names any problem): never a sample the tree would refuse or read otherwise.
final class PlainLinesTests: XCTestCase {
    private static let t0 = ExportFixtures.t0

    /// What the tree makes of `line`: the sample, or nil when it refuses the line.
    private func tree(_ line: String) -> Sample? {
        try? SampleJSON.decode(line: line)
    }

    /// Lines as an export writes them, for plain samples of every shape the table carries.
    private func exportLines() throws -> [String] {
        // Beside the fixtures' rows, an empty device and the source of the benchmark's lines.
        let t0 = Self.t0
        let samples = ExportFixtures.plainSamples + [
            Sample(type: "HKQuantityTypeIdentifierStepCount", start: t0, end: t0, device: Device(),
                   sourceRevision: SourceRevision(source: Source(name: "Health", bundleID: "com.apple.Health"), version: "1"),
                   creationTime: t0, body: .quantity(Quantity(14.308, "count"), count: 1)),
        ]
        let page = ServerMessage(callID: 1, result: .anchored(samples: SampleTable(samples + samples), deleted: [], newAnchor: Data([1]),
                                                              initial: true))
        guard case .anchored(let table, _, _, _, _, _) = try WireCodec.decodeServerMessage(WireCodec.encodeServerMessage(page)).result else {
            XCTFail("not an anchored page")
            return []
        }
        var cache = SampleJSON.LineCache()
        let lines = SampleJSON.TableLines(table, cache: &cache)
        var bytes = LineBuffer()
        for row in table.rows { lines.writeLine(row, zone: TimeZone(identifier: "Europe/Berlin"), cache: &cache, to: &bytes) }
        return String(decoding: bytes.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func testExportedPlainLinesAreReadAsTheTreeReadsThem() throws {
        let lines = try exportLines()
        var reader = PlainLines()
        var taken = 0
        for line in lines {
            let sample = reader.sample(line)
            XCTAssertEqual(sample ?? tree(line), tree(line), line)
            XCTAssertNotNil(tree(line), line)
            if sample != nil { taken += 1 }
            // An escape is the tree's to read; the rest is read here, with or without what the last lines left behind.
            if !line.contains("\\") && !line.contains("e+") {
                XCTAssertNotNil(sample, line)
                var fresh = PlainLines()
                XCTAssertEqual(fresh.sample(line), sample, line)
            }
        }
        XCTAssertGreaterThan(taken, lines.count / 2, "most plain lines are read from their bytes")
    }

    /// Read for an import, a line gives the sample `SampleJSON.unsaved` makes of the tree's.
    func testLinesReadForSavingGiveTheUnsavedSample() throws {
        for keepingSource in [false, true] {
            var reader = PlainLines(.unsaved(keepingSource: keepingSource))
            for line in try exportLines() {
                guard let sample = reader.sample(line) else { continue }
                XCTAssertEqual(sample, SampleJSON.unsaved(try XCTUnwrap(tree(line)), keepingSource: keepingSource), line)
            }
        }
    }

    /// Lines of the benchmark's shape, the same devices and sources over and over as in an export.
    func testRepeatedDevicesAndSourcesAreReadAgainAlike() throws {
        var reader = PlainLines()
        for i in 0..<60 {
            let device = Device(name: "Bench Watch \(i % 20)", manufacturer: "HealthStore", model: "BW-1", localIdentifier: "bench-\(i % 20)")
            let source = SourceRevision(source: Source(name: "Health", bundleID: "com.apple.Health"), version: i < 30 ? "1" : "2")
            let line = SampleJSON.sample(Sample(type: i < 40 ? "HKQuantityTypeIdentifierStepCount" : "HKQuantityTypeIdentifierHeartRate",
                                                start: Self.t0 + Int64(i), end: Self.t0 + Int64(i), device: device, sourceRevision: source,
                                                creationTime: Self.t0, body: .quantity(Quantity(Double(i) / 7, i < 50 ? "count" : "count/min"),
                                                                                       count: 1))).text(pretty: false)
            let sample = try XCTUnwrap(reader.sample(line), line)
            XCTAssertEqual(sample, tree(line), line)
        }
    }

    /// Lines changed from a plain one in every way the reader must notice: each is read as the tree
    /// reads it, or left to the tree, and never read when the tree refuses it.
    func testChangedLinesAreReadAsTheTreeReadsThemOrLeftToIt() throws {
        let hr = Sample(type: "HKQuantityTypeIdentifierHeartRate", start: Self.t0, end: Self.t0 + 1, device: ExportFixtures.watch,
                        sourceRevision: ExportFixtures.revision, creationTime: Self.t0 + 5, body: .quantity(Quantity(72.5, "count/min"), count: 1))
        let line = SampleJSON.sample(hr).text(pretty: false)
        let sleep = SampleJSON.sample(Sample(type: "HKCategoryTypeIdentifierSleepAnalysis", start: Self.t0, end: Self.t0 + 1,
                                             body: .category(2))).text(pretty: false)
        let uuid = hr.uuid.uuidString
        func replacing(_ old: String, _ new: String, in text: String = line) -> String {
            XCTAssertTrue(text.contains(old), "\(old) not in \(text)")
            return text.replacingOccurrences(of: old, with: new)
        }
        let changed: [(String, String)] = [
            ("as written", line), ("a category", sleep),
            ("spaces everywhere", line.replacingOccurrences(of: ":", with: " :\t").replacingOccurrences(of: ",", with: " ,\r\n ")),
            ("a key given twice", replacing(#"{"count":1"#, #"{"count":2,"count":1"#)),
            ("a key given twice, the last another", String(replacing(#"{"count":1"#, #"{"count":1,"count":2"#).dropLast()) + #","count":3}"#),
            ("keys in another order", String(replacing(#"{"count":1,"#, "{").dropLast()) + #","count":1}"#),
            ("a lower-case UUID", replacing(uuid, uuid.lowercased())),
            ("a UUID in braces", replacing(uuid, "{\(uuid)}")), ("a short UUID", replacing(uuid, String(uuid.dropLast()))),
            ("a UUID not hex", replacing(uuid, "G" + uuid.dropFirst())), ("a UUID without hyphens", replacing(uuid, uuid.replacingOccurrences(of: "-", with: "") + "0000")),
            ("a count as a double", replacing(#""count":1"#, #""count":1.0"#)),
            ("a count as a string", replacing(#""count":1"#, #""count":"1""#)),
            ("a count with a plus", replacing(#""count":1"#, #""count":+1"#)),
            ("a count of zeros", replacing(#""count":1"#, #""count":-007"#)),
            ("a count past Int64", replacing(#""count":1"#, #""count":99999999999999999999"#)),
            ("a count of 19 digits", replacing(#""count":1"#, #""count":1000000000000000000"#)),
            ("a value as an integer", replacing(#""value":72.5"#, #""value":72"#)),
            ("a value with an exponent", replacing(#""value":72.5"#, #""value":7.25E1"#)),
            ("a value with a plus", replacing(#""value":72.5"#, #""value":+72.5"#)),
            ("a value too large", replacing(#""value":72.5"#, #""value":1e400"#)),
            ("a value of signs", replacing(#""value":72.5"#, #""value":1-2"#)),
            ("a value as a string", replacing(#""value":72.5"#, #""value":"72.5""#)),
            ("a value of two points", replacing(#""value":72.5"#, #""value":72.5.5"#)),
            ("a value of two exponents", replacing(#""value":72.5"#, #""value":7e1e1"#)),
            ("a value without an integer part", replacing(#""value":72.5"#, #""value":-.5"#)),
            ("a value without a fraction after its point", replacing(#""value":72.5"#, #""value":72."#)),
            ("a value in hex", replacing(#""value":72.5"#, #""value":0x48"#)),
            ("a value with a negative exponent", replacing(#""value":72.5"#, #""value":725e-1"#)),
            ("a count with an exponent", replacing(#""count":1"#, #""count":1e0"#)),
            ("no value", replacing(#","value":72.5"#, "")), ("no unit", replacing(#","unit":"count/min""#, "")),
            ("another kind", replacing(#""kind":"quantity""#, #""kind":"blob""#)),
            ("a series kind", replacing(#""kind":"quantity""#, #""kind":"series""#)),
            ("an escaped kind", replacing(#""kind":"quantity""#, #""kind":"quantit\u0079""#)),
            ("an escaped key", replacing(#""kind":"#, #""k\u0069nd":"#)),
            ("points to build", replacing(#""kind":"#, #""quantities":[],"kind":"#)),
            ("a discrete series", replacing(#""kind":"#, #""discrete_series":null,"kind":"#)),
            ("no metadata", replacing(#""metadata":{},"#, "")),
            ("metadata", replacing(#""metadata":{}"#, #""metadata":{"a":1}"#)),
            ("metadata types null", replacing(#""metadata_types":{}"#, #""metadata_types":null"#)),
            ("metadata types not an object", replacing(#""metadata_types":{}"#, #""metadata_types":5"#)),
            ("no metadata types", replacing(#","metadata_types":{}"#, "")),
            ("an os version of two numbers", replacing(#""os_version":"10.2.1""#, #""os_version":"10.2""#)),
            ("an os version with an empty part", replacing(#""os_version":"10.2.1""#, #""os_version":"10..2.1""#)),
            ("an os version with a sign", replacing(#""os_version":"10.2.1""#, #""os_version":"+10.2.1""#)),
            ("a source without a name", replacing(#","name":"App""#, "")),
            ("a source with another key", replacing(#""bundle_id":"#, #""x":1,"bundle_id":"#)),
            ("a source of a number", replacing(#""source":{"#, #""source":5,"s":{"#)),
            ("a device with another key", replacing(#""firmware_version":"#, #""x":1,"firmware_version":"#)),
            ("a device field of a number", replacing(#""model":"W1""#, #""model":1"#)),
            ("a device field null", replacing(#""model":"W1""#, #""model":null"#)),
            ("an empty device", replacing(#""device":{"#, #""device":{},"d":{"#)),
            ("no device", replacing(#""device":{"#, #""device":null,"d":{"#)),
            ("a creation time null", replacing(#""creation_micros":\#(Self.t0 + 5)"#, #""creation_micros":null"#)),
            ("a creation time as a string", replacing(#""creation_micros":\#(Self.t0 + 5)"#, #""creation_micros":"5""#)),
            ("a start as a number", replacing(#""start":""#, #""start":5,"s":""#)),
            ("no start_micros", replacing(#""start_micros":\#(Self.t0),"#, "")),
            ("a type null", replacing(#""type":"HKQuantityTypeIdentifierHeartRate""#, #""type":null"#)),
            ("text after the object", line + " x"), ("spaces after the object", line + " \t"),
            ("the object cut short", String(line.dropLast())), ("an empty object", "{}"), ("an array", "[1]"),
            ("not JSON", "{oops"),
            ("a category with a value of another type", replacing(#""category_value":2"#, #""category_value":2,"value":"x""#, in: sleep)),
            ("a category without its value", replacing(#""category_value":2,"#, "", in: sleep)),
        ]
        for (what, text) in changed {
            var reader = PlainLines()
            let sample = reader.sample(String(text))
            let expected = tree(String(text))
            if expected == nil { XCTAssertNil(sample, what) } else { XCTAssertEqual(sample ?? expected, expected, what) }
            // Read after the line as written, whose type, unit, device and source the reader then holds as the last.
            var primed = PlainLines()
            XCTAssertEqual(primed.sample(line), hr)
            let afterLine = primed.sample(String(text))
            if expected == nil { XCTAssertNil(afterLine, "\(what), after the line as written") } else {
                XCTAssertEqual(afterLine ?? expected, expected, "\(what), after the line as written")
            }
            // What the tree reads with points is built with a series builder: never a plain line.
            if text.contains("quantities") || text.contains("\"series\"") { XCTAssertNil(sample, what) }
        }
        var reader = PlainLines()
        XCTAssertEqual(reader.sample(line), hr, "a plain line is read here")
        XCTAssertEqual(reader.sample(replacing(uuid, uuid.lowercased())), hr, "either case of a UUID")
    }
}

final class LineReaderTests: XCTestCase {
    /// Every line ending is taken off (LF, CR LF, CR, several), and nothing else.
    func testLinesComeWithoutTheirEndings() throws {
        let path = NSTemporaryDirectory() + "lines-\(UUID().uuidString).jsonl"
        try Data("a\nb\r\nc\r\r\n\n\u{A0}\ne\u{301}\n\r\ne\u{301}\u{1F600}\r\nlast".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try LineReader(path: path)
        var lines: [String] = []
        while let line = try reader.next() { lines.append(line) }
        XCTAssertEqual(lines, ["a", "b", "c", "", "\u{A0}", "e\u{301}", "", "e\u{301}\u{1F600}", "last"])
    }

    /// Lines across the reader's reads and a line longer than its buffer come whole and in order; the
    /// buffer grows for the long line and is back to its usual size once it is past.
    func testLinesAcrossReadsAndLongerThanTheBufferComeWhole() throws {
        let path = NSTemporaryDirectory() + "lines-\(UUID().uuidString).jsonl"
        var expected = (0..<40_000).map { "line \($0) " + String(repeating: "x", count: $0 % 97) }
        expected.insert(String(repeating: "long", count: LineReader.readSize), at: 20_000)
        expected.append("")
        try Data((expected.joined(separator: "\r\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try LineReader(path: path)
        var lines: [String] = [], largest = 0
        while let line = try reader.next() {
            lines.append(line)
            largest = max(largest, reader.bufferSize)
        }
        XCTAssertEqual(lines.count, expected.count)
        XCTAssertTrue(lines == expected, "the lines as written")
        XCTAssertGreaterThan(largest, 4 * LineReader.readSize, "grown for the long line")
        XCTAssertEqual(reader.bufferSize, LineReader.readSize, "back to its usual size after it")
    }

    func testAMissingFileIsNamed() {
        XCTAssertThrowsError(try LineReader(path: "/nonexistent/export.jsonl")) { error in
            XCTAssertTrue("\(error)".contains("cannot read '/nonexistent/export.jsonl'"), "\(error)")
        }
    }
}

extension LineWriter {
    /// Writes every line of `lines`.
    fileprivate func write(lines: LineBuffer) throws(HealthError) {
        var lines = lines
        try write(lines: &lines)
        XCTAssertTrue(lines.isEmpty, "written through the cache, every line at once")
    }
}

final class LineWriterTests: XCTestCase {
    /// Whether `path`'s pages, `count` bytes of them, are in the page cache, page by page.
    private func resident(_ path: String, count: Int) throws -> [Bool] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }
        let mapped = try XCTUnwrap(mmap(nil, count, PROT_READ, MAP_SHARED, descriptor, 0))
        XCTAssertNotEqual(mapped, MAP_FAILED)
        defer { munmap(mapped, count) }
        let page = sysconf(Int32(_SC_PAGESIZE))
        var pages = [UInt8](repeating: 0, count: (count + page - 1) / page)
        XCTAssertEqual(mincore(mapped, count, &pages), 0)
        return pages.map { $0 & 1 == 1 }
    }

    /// Whether the file system at `path` keeps a file's clean pages in memory whatever the advice
    /// (tmpfs, whose files are their pages): `count` bytes written there, synced and advised out, stay.
    private func keepsCleanPages(_ path: String, count: Int) throws -> Bool {
        try Data(repeating: 0x61, count: count).write(to: URL(fileURLWithPath: path))
        let probe = open(path, O_RDONLY | O_CLOEXEC)
        _ = fsync(probe)
        _ = posix_fadvise(probe, 0, off_t(count), POSIX_FADV_DONTNEED)
        close(probe)
        return try resident(path, count: count).contains(true)
    }

    private func lines(_ count: Int, _ byte: UInt8) -> LineBuffer {
        var lines = LineBuffer()
        lines.append(contentsOf: repeatElement(byte, count: count - 1))
        lines.append(contentsOf: [0x0A])
        return lines
    }

    /// A window written past the last write-out drops the pages written out since from the page
    /// cache and starts the write-out of the new window; the file holds every byte written.
    func testAFilesPagesWrittenOutAreDroppedBehindTheWriting() throws {
        let path = NSTemporaryDirectory() + "drop-behind-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let window = 64 * 1024
        // A file system that keeps clean pages whatever the advice (tmpfs) has nothing to drop.
        if try keepsCleanPages(path, count: window) { throw XCTSkip("this file system keeps clean pages cached") }

        let writer = try LineWriter(path: path, dropWindow: window, direct: false) { _ in XCTFail("a file's lines go to the file") }
        for _ in 0..<4 { try writer.write(lines: lines(window / 4, 0x62)) }
        XCTAssertEqual([writer.written, writer.writingOut, writer.dropped], [window, window, 0])
        // The first window written out, as the kernel's write-out would have meanwhile.
        let synced = open(path, O_RDONLY | O_CLOEXEC)
        XCTAssertEqual(fsync(synced), 0)
        close(synced)
        try writer.write(lines: lines(window - 100, 0x63))
        XCTAssertEqual([writer.written, writer.writingOut, writer.dropped], [2 * window - 100, window, 0], "not a window yet")
        try writer.write(lines: lines(100, 0x64))
        XCTAssertEqual([writer.written, writer.writingOut, writer.dropped], [2 * window, 2 * window, window])
        let cached = try resident(path, count: 2 * window)
        XCTAssertEqual(cached[..<(cached.count / 2)].filter { $0 }.count, 0, "the window written out is dropped")

        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let expected = (0..<4).flatMap { _ in lines(window / 4, 0x62).bytes } + lines(window - 100, 0x63).bytes + lines(100, 0x64).bytes
        XCTAssertEqual(Array(bytes), expected)
    }

    /// A regular file is written directly where the file system allows it: whole blocks from the
    /// line buffer's memory, handed over as they fill, the last part block at `finish`. The file
    /// holds every byte in order, and none of its pages is left in the cache.
    func testAFileIsWrittenDirectlyInWholeBlocksAndItsEndThroughTheCache() throws {
        let path = NSTemporaryDirectory() + "direct-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try LineWriter(path: path) { _ in XCTFail("a file's lines go to the file") }
        var buffer = LineBuffer()
        var expected: [UInt8] = []
        // Pages of lines of every length, past several blocks and more than the writes in flight.
        var page = 0
        while expected.count < 5 * LineWriter.directBlock + 12_345 {
            for n in 0..<500 {
                let line = Array("\(page).\(n) \(String(repeating: "x", count: (page * 7 + n) % 900))\n".utf8)
                buffer.append(contentsOf: line)
                expected += line
            }
            try writer.write(lines: &buffer)
            XCTAssertLessThan(buffer.count, LineWriter.directBlock, "whole blocks are handed over as they fill")
            page += 1
        }
        // Through the cache (direct writes refused, as on tmpfs) every line is written at once; ext4
        // and XFS take direct writes, so there lines through the cache are the writer's fault.
        if writer.written > 0 {
            // Glibc's Swift module leaves out statfs(2), so the file system's type is coreutils'.
            let stat = Process(), type = Pipe()
            stat.executableURL = URL(fileURLWithPath: "/usr/bin/stat")
            stat.arguments = ["--file-system", "--format=%t", path]
            stat.standardOutput = type
            try stat.run()
            stat.waitUntilExit()
            let magic = String(decoding: type.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertFalse(["ef53", "58465342"].contains(magic.trimmingCharacters(in: .whitespacesAndNewlines)),  // ext2/3/4, XFS
                           "lines went through the cache on a file system that takes direct writes")
            throw XCTSkip("this file system does not take direct writes")
        }
        XCTAssertEqual(writer.written, 0, "nothing through the cache before the end")
        try writer.finish(lines: &buffer)
        XCTAssertTrue(buffer.isEmpty)
        XCTAssertLessThan(writer.written, LineBuffer.alignment, "only the last part block through the cache")
        let cached = try resident(path, count: expected.count)
        let probe = path + ".probe"
        defer { try? FileManager.default.removeItem(atPath: probe) }
        if try !keepsCleanPages(probe, count: 64 * 1024) {
            XCTAssertLessThanOrEqual(cached.filter { $0 }.count, 1, "the pages written directly are not cached")
        }
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: path))), expected)
    }

    /// A line buffer handing over its whole blocks keeps the rest and goes on after it, in a spare's
    /// storage; the blocks handed over keep their bytes while the buffer writes on.
    func testALineBufferHandsOverWholeBlocksAndKeepsTheRest() throws {
        var buffer = LineBuffer()
        let block = LineBuffer.alignment
        XCTAssertNil(buffer.takeBlocks(of: block, spare: nil), "nothing written")
        buffer.append(contentsOf: repeatElement(0x61, count: block - 1))
        XCTAssertNil(buffer.takeBlocks(of: block, spare: nil), "less than a block")
        buffer.append(contentsOf: repeatElement(0x62, count: 2 * block + 10))
        var first = buffer.takeBlocks(of: block, spare: nil)
        XCTAssertEqual(first?.count, 3 * block)
        XCTAssertEqual(buffer.bytes, Array(repeating: 0x62, count: 9))
        let firstStart = try XCTUnwrap(first?.start)
        XCTAssertEqual(Int(bitPattern: firstStart) % LineBuffer.alignment, 0)
        buffer.append(contentsOf: repeatElement(0x63, count: block))
        let handed = first.map { Array(UnsafeRawBufferPointer(start: $0.start, count: $0.count)) }
        XCTAssertEqual(handed, Array(repeating: 0x61, count: block - 1) + Array(repeating: 0x62, count: 2 * block + 1))
        let second = buffer.takeBlocks(of: block, spare: first.take())
        XCTAssertEqual(second?.count, block)
        XCTAssertEqual(buffer.bytes, Array(repeating: 0x63, count: 9))
        buffer.append(contentsOf: repeatElement(0x63, count: block))
        XCTAssertEqual(buffer.takeBlocks(of: block, spare: nil)?.start, firstStart, "the spare's storage written on, not a new one")
        let copy = buffer
        buffer.append(contentsOf: [0x64])
        XCTAssertEqual(copy.bytes, Array(repeating: 0x63, count: 9), "a copy keeps its bytes")
        XCTAssertEqual(buffer.bytes, Array(repeating: 0x63, count: 9) + [0x64])
    }

    /// A write that fails is reported, by the next write or by `finish`, naming the file: a direct
    /// one, made later on the writer's queue, as well as one through the cache.
    func testAFailedWriteIsReported() throws {
        let path = NSTemporaryDirectory() + "write-failure-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try LineWriter(path: path) { _ in XCTFail("a file's lines go to the file") }
        // A file size limit below the first block makes its write fail (EFBIG) rather than fill the disk.
        var old = rlimit()
        getrlimit(Int32(RLIMIT_FSIZE.rawValue), &old)
        var limit = rlimit(rlim_cur: rlim_t(LineBuffer.alignment), rlim_max: old.rlim_max)
        let handler = signal(SIGXFSZ, SIG_IGN)
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit), 0)
        defer {
            setrlimit(Int32(RLIMIT_FSIZE.rawValue), &old)
            signal(SIGXFSZ, handler)
        }
        var buffer = LineBuffer()
        buffer.append(contentsOf: repeatElement(0x61, count: LineWriter.directBlock - 1))
        buffer.append(contentsOf: [0x0A])
        XCTAssertThrowsError(try {
            try writer.write(lines: &buffer)
            try writer.finish(lines: &buffer)
        }()) { error in
            XCTAssertTrue("\(error)".contains("cannot write '\(path)': File too large"), "\(error)")
        }
    }

    /// An output that is not a regular file has no pages to drop, and its lines are written all the same.
    func testAnOutputThatIsNotAFileDropsNothing() throws {
        let writer = try LineWriter(path: "/dev/null", dropWindow: 1) { _ in XCTFail("a path's lines go to the path") }
        for _ in 0..<3 { try writer.write(lines: lines(100, 0x61)) }
        XCTAssertEqual([writer.written, writer.writingOut, writer.dropped], [300, 0, 0])
    }
}
