import Foundation
import HealthModel
import XCTest
@testable import HealthWire

/// Every ServerResult survives encode → decode unchanged, framed and unframed.
final class ServerRoundTripTests: XCTestCase {
    private func assertRoundTrip(_ result: ServerResult, more: Bool = false, file: StaticString = #filePath, line: UInt = #line) {
        let message = ServerMessage(callID: 7, more: more, result: result)
        let payload = WireCodec.encodeServerMessage(message)
        XCTAssertEqual(try WireCodec.decodeServerMessage(payload), message, file: file, line: line)
        XCTAssertEqual(WireCodec.encodeServerFrame(message), encodeFrame(payload), file: file, line: line)
    }

    private let band = Source(name: "Band", bundleID: "com.example.band")

    func testErrorsCarryCodeMessageIndexAndField() {
        for code in HealthErrorCode.allCases {
            assertRoundTrip(.error(HealthError(code, "rule \(code.name) failed for value 3")))
        }
        assertRoundTrip(.error(HealthError(.invalidArgument, "end before start", objectIndex: 0, field: "end_time")))
        assertRoundTrip(.error(HealthError(.invalidArgument, "bad time zone", objectIndex: 999, field: "metadata.HKTimeZone")))
    }

    func testSessionResults() {
        assertRoundTrip(.hello(HelloResult(serverVersion: "0.1.0", protocolVersion: 1, maxFrameBytes: 4_194_304, maxCallsInFlight: 64,
                                           maxBatchObjects: 1000, serverTime: 1_700_000_000_000_000, role: .app, ownerName: "Alice",
                                           source: band, maxOutputBytes: 1 << 20, frameTimeoutMilliseconds: 60_000,
                                           maxHelloFrameBytes: 65_536)))
        assertRoundTrip(.hello(HelloResult(serverVersion: "", protocolVersion: 1, maxFrameBytes: 1, maxCallsInFlight: 1, maxBatchObjects: 1,
                                           serverTime: -1, role: .serverOperator, ownerName: "", source: nil)))
        assertRoundTrip(.pong(payload: Data([1, 2, 3]), serverTime: 123))
        assertRoundTrip(.pong(payload: Data(), serverTime: 0))
        assertRoundTrip(.cancel(cancelled: true))
        assertRoundTrip(.cancel(cancelled: false))
        assertRoundTrip(.callEnded(.cancelled))
        assertRoundTrip(.callEnded(.slowConsumer))
        assertRoundTrip(.callEnded(.unacknowledged))
    }

    func testAuthorizationResults() {
        assertRoundTrip(.requestAuthorization)
        assertRoundTrip(.authorizationStatus([TypeAuthorizationStatus(type: "a", status: .notDetermined),
                                              TypeAuthorizationStatus(type: "b", status: .sharingDenied),
                                              TypeAuthorizationStatus(type: "c", status: .sharingAuthorized)]))
        assertRoundTrip(.requestStatus(.shouldRequest))
        assertRoundTrip(.requestStatus(.unnecessary))
    }

    func testSaveAndDeleteResults() {
        assertRoundTrip(.saveObjects([.stored, .alreadyStored, .replaced, .keptExisting]))
        assertRoundTrip(.saveObjects([]))
        assertRoundTrip(.deleteObjects(deletedCount: 12_345_678_901))
    }

    /// A one-object save's answer is built without an arena: byte for byte what the arena builds, for
    /// every outcome, call id and `more`.
    func testOneOutcomeSaveAnswer() throws {
        for outcome in [SaveOutcome.stored, .alreadyStored, .replaced, .keptExisting] {
            for callID: UInt64 in [0, 1, 300, .max] {
                for more in [false, true] {
                    let message = ServerMessage(callID: callID, more: more, result: .saveObjects([outcome]))
                    let payload = WireCodec.encodeServerMessage(message)
                    XCTAssertEqual(WireCodec.encodeServerFrame(message), encodeFrame(payload), "\(outcome) \(callID) \(more)")
                    XCTAssertEqual(try WireCodec.decodeServerMessage(Array(WireCodec.encodeServerFrame(message).dropFirst(FrameEncoder.prefixBytes))), message)
                }
            }
        }
    }

    /// The event loop's save answer, encoded from the outcomes alone, is byte for byte the answer
    /// `encodeServerFrame` makes of the `.saveObjects` message, for one outcome and for any other count.
    func testSaveAnswerFromOutcomes() {
        let batches: [[SaveOutcome]] = [[.stored], [.alreadyStored], [.replaced], [.keptExisting], [],
                                        [.stored, .alreadyStored, .replaced, .keptExisting]]
        for outcomes in batches {
            for callID: UInt64 in [0, 1, 300, .max] {
                let message = ServerMessage(callID: callID, result: .saveObjects(outcomes))
                var frame: [UInt8] = []
                WireCodec.withSaveAnswerFrame(callID: callID, outcomes) { frame = Array($0) }
                XCTAssertEqual(frame, WireCodec.encodeServerFrame(message),
                               "\(outcomes) \(callID)")
            }
        }
    }

    func testSampleResults() {
        assertRoundTrip(.samples(Fixtures.allSamples), more: true)
        assertRoundTrip(.samples([]))
        assertRoundTrip(.anchored(samples: SampleTable(Fixtures.allSamples),
                                  deleted: [DeletedObject(uuid: Fixtures.uuid(8), type: "t",
                                                          metadata: ["HKMetadataKeySyncIdentifier": .string("s"),
                                                                     "HKMetadataKeySyncVersion": .int(2)]),
                                            DeletedObject(uuid: Fixtures.uuid(9), type: "u")],
                                  newAnchor: Data([0xde, 0xad, 0xbe, 0xef]), initial: true), more: true)
        assertRoundTrip(.anchored(samples: [], deleted: [], newAnchor: Data(), initial: false))
        assertRoundTrip(.anchored(samples: [], deleted: [], newAnchor: Data([1]), initial: true, initialComplete: true), more: true)
        assertRoundTrip(.correlations([Fixtures.bloodPressure]))
    }

    /// A table's plain rows share one packed device and revision per message, yet encode to as many
    /// bytes as the same samples held whole (the same fields, device and revision after the body) and
    /// read back as them.
    func testTableRowsEncodeLikeWholeSamples() {
        var table = SampleTable()
        let heartRate = table.add(type: "HKQuantityTypeIdentifierHeartRate"), sleep = table.add(type: "HKCategoryTypeIdentifierSleepAnalysis")
        let bpm = table.add(unit: "count/min")
        let watch = table.add(device: Device(name: "Watch", manufacturer: "Apple", model: "Watch6,1", localIdentifier: "w-1"))
        let phone = table.add(device: Device(name: "Phone"))
        let revision = table.add(revision: SourceRevision(source: band, version: "2.1", productType: "Watch6,1", osMajor: 10, osMinor: 1))
        func row(_ n: UInt8, _ type: Int32, device: Int32, _ body: SampleTable.Body) -> SampleTable.Row {
            SampleTable.Row(uuid: Fixtures.uuid(n), type: type, device: device, revision: revision, start: Int64(n) * 60_000_000,
                            end: Int64(n) * 60_000_000 + 1, creationTime: 5, body: body)
        }
        table.append(row(1, heartRate, device: watch, .quantity(value: 61, unit: bpm, count: 1)))
        table.append(row(2, sleep, device: -1, .category(1)))
        table.append(Fixtures.allSamples[0])
        table.append(row(3, heartRate, device: phone, .quantity(value: 62.5, unit: bpm, count: 3)))
        table.append(row(4, heartRate, device: watch, .quantity(value: 63, unit: bpm, count: 1)))
        let whole = SampleTable(Array(table))
        func encoded(_ samples: SampleTable) -> [UInt8] {
            WireCodec.encodeServerMessage(ServerMessage(callID: 3, result: .anchored(samples: samples, deleted: [], newAnchor: Data([1]), initial: true)))
        }
        for (rows, samples) in [(table, whole), (table.rows(1..<4), SampleTable(Array(table)[1..<4]))] {
            XCTAssertEqual(encoded(rows).count, encoded(samples).count)
            XCTAssertEqual(try WireCodec.decodeServerMessage(encoded(rows)), try WireCodec.decodeServerMessage(encoded(samples)))
        }
        XCTAssertEqual(table.rows(1..<4), SampleTable(Array(table)[1..<4]))
        XCTAssertEqual(table[3].device?.name, "Phone")
        XCTAssertEqual(table[3].body, .quantity(Quantity(62.5, "count/min"), count: 3))
        assertRoundTrip(.anchored(samples: table, deleted: [], newAnchor: Data([2]), initial: false))
    }

    /// An anchored page is read sample by sample, each type, device and source revision found by its
    /// wire bytes: samples whose devices and revisions take turns (or have none) read back as
    /// themselves, beside a sample decoded whole, and a sample holding its type and device twice reads
    /// as protobuf-c reads it (the last type, the two devices merged), as the whole message's decode does.
    func testAnchoredPagesFindDevicesAndRevisionsByTheirBytes() throws {
        let devices = [Device(name: "Watch"), Device(name: "Phone", model: "P1"), Device(name: "Watch", model: "W")]
        let revisions = [SourceRevision(source: band, version: "1"), SourceRevision(source: band, version: "2")]
        var samples: [Sample] = (0..<40).map { (n: Int) -> Sample in
            let device: Device? = n % 7 == 0 ? nil : devices[n % 3]
            let revision: SourceRevision? = n % 5 == 0 ? nil : revisions[n % 2]
            return Sample(type: "HKQuantityTypeIdentifierHeartRate", start: Int64(n), end: Int64(n), device: device,
                          sourceRevision: revision, body: .quantity(Quantity(Double(n), "count/min"), count: 1))
        }
        samples.append(Fixtures.allSamples[0])
        assertRoundTrip(.anchored(samples: SampleTable(samples), deleted: [], newAnchor: Data([1]), initial: true), more: true)

        let quantity: ProtoBytes = ProtoBytes().message(1, ProtoBytes().string(2, "count/min"))
        let heading: ProtoBytes = ProtoBytes().bytes(1, [UInt8](repeating: 7, count: 16)).string(2, "HKQuantityTypeIdentifierHeartRate")
        let timed: ProtoBytes = heading.varint(3, 5).varint(4, 5).string(2, "HKQuantityTypeIdentifierRestingHeartRate")
        let twice: ProtoBytes = timed.message(6, ProtoBytes().string(1, "Watch")).message(6, ProtoBytes().string(3, "W1")).message(10, quantity)
        let page = ProtoBytes().varint(1, 3).message(41, ProtoBytes().message(1, twice).message(1, twice)).bytes
        guard case .anchored(let table, _, _, _, _, _) = try WireCodec.decodeServerMessage(page).result else {
            return XCTFail("not an anchored page")
        }
        XCTAssertEqual(Array(table).map(\.device), Array(repeating: Device(name: "Watch", model: "W1"), count: 2))
        XCTAssertEqual(Array(table).map(\.type), Array(repeating: "HKQuantityTypeIdentifierRestingHeartRate", count: 2), "the last type met")
    }

    /// A plain row is read off the wire as protobuf-c reads it: numbers left out are zero (a value or
    /// category of 0 is not sent) and a count of 0 is 1; a field met twice, an unknown field, metadata
    /// or a unit with a NUL make the sample go through protobuf-c, which keeps the last number met,
    /// keeps the last of a oneof's bodies, skips the unknown field and refuses the NUL. Each page reads
    /// as protobuf-c reads it whole.
    func testAnchoredPagesReadPlainRowsAsProtobufCDoes() throws {
        let uuid = [UInt8](repeating: 7, count: 16)
        let head = ProtoBytes().bytes(1, uuid).string(2, "HKQuantityTypeIdentifierHeartRate")
        let unit = ProtoBytes().string(2, "count/min")
        func quantity(_ measured: ProtoBytes, count: UInt64? = nil) -> ProtoBytes {
            let body = ProtoBytes().message(1, measured)
            return count.map { body.varint(2, $0) } ?? body
        }
        /// `whole`: with an unknown field in the envelope, which sends the page through protobuf-c whole.
        func decoded(_ samples: [ProtoBytes], whole: Bool = false) throws -> [Sample] {
            let page = ProtoBytes().varint(1, 3).message(41, samples.reduce(ProtoBytes()) { $0.message(1, $1) })
            guard case .anchored(let table, _, _, _, _, _) = try WireCodec.decodeServerMessage((whole ? page.varint(99, 1) : page).bytes).result else {
                throw HealthError(.internalError, "not an anchored page")
            }
            return Array(table)
        }
        let minusFive = UInt64(bitPattern: -5)
        let wire = [
            head.varint(3, minusFive).varint(4, 9).varint(8, 11).message(10, quantity(unit)),
            head.varint(3, 1).message(10, quantity(unit.fixed64(1, 72.5.bitPattern), count: 3)),
            head.varint(3, 1).varint(3, 2).message(10, ProtoBytes().varint(2, 5))
                .message(10, quantity(ProtoBytes().fixed64(1, 1.5.bitPattern).string(2, "x").string(2, "count/s"))),
            head.varint(9, 4).message(10, quantity(unit, count: 0)),
            head.string(2, "HKCategoryTypeIdentifierSleepAnalysis").message(11, ProtoBytes()),
            head.string(2, "HKCategoryTypeIdentifierSleepAnalysis").message(11, ProtoBytes().varint(1, 2)).varint(4, 3),
        ]
        let samples = try decoded(wire)
        XCTAssertEqual(samples, try decoded(wire, whole: true), "as protobuf-c reads the page")
        let heartRate = "HKQuantityTypeIdentifierHeartRate", sleep = "HKCategoryTypeIdentifierSleepAnalysis"
        XCTAssertEqual(samples.map(\.uuid), Array(repeating: UUID(uuid: (7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7)), count: 6))
        XCTAssertEqual(samples.map(\.type), [heartRate, heartRate, heartRate, heartRate, sleep, sleep])
        XCTAssertEqual(samples.map(\.start), [-5, 1, 2, 0, 0, 0])
        XCTAssertEqual(samples.map(\.end), [9, 0, 0, 0, 0, 3])
        XCTAssertEqual(samples.map(\.creationTime), [11, nil, nil, nil, nil, nil])
        XCTAssertEqual(samples.map(\.body), [.quantity(Quantity(0, "count/min"), count: 1), .quantity(Quantity(72.5, "count/min"), count: 3),
                                             .quantity(Quantity(1.5, "count/s"), count: 1), .quantity(Quantity(0, "count/min"), count: 1),
                                             .category(0), .category(2)])
        XCTAssertThrowsError(try decoded([head.message(10, quantity(ProtoBytes().string(2, "count\u{0}/min")))]))
        let noted = try decoded([head.message(5, ProtoBytes().string(1, "note").message(2, ProtoBytes().string(1, "x"))).message(10, quantity(unit))])
        XCTAssertEqual(noted.map(\.metadata), [["note": .string("x")]])
    }

    /// A quantity body laid out as protobuf-c packs it (a value, then a unit, then a count if any) is
    /// read from its bytes' places, and any other layout by walking its fields: both as protobuf-c
    /// reads the page whole, at the edges of the packed layout (units of 0 to 117 bytes, the last
    /// making the quantity's length take two bytes; counts of one and two bytes, an explicit 0,
    /// twice; fields in another order; a value of 0 left out; a field after the count; a NUL).
    func testAnchoredPagesReadQuantityBodiesPackedOrNotAsProtobufCDoes() throws {
        let head = ProtoBytes().bytes(1, [UInt8](repeating: 3, count: 16)).string(2, "HKQuantityTypeIdentifierHeartRate").varint(3, 1).varint(4, 2)
        func decoded(_ samples: [ProtoBytes], whole: Bool = false) throws -> [Sample] {
            let page = ProtoBytes().varint(1, 3).message(41, samples.reduce(ProtoBytes()) { $0.message(1, $1) })
            guard case .anchored(let table, _, _, _, _, _) = try WireCodec.decodeServerMessage((whole ? page.varint(99, 1) : page).bytes).result else {
                throw HealthError(.internalError, "not an anchored page")
            }
            return Array(table)
        }
        let value = 72.5.bitPattern
        var bodies: [(ProtoBytes, Quantity, Int64)] = []
        for unitCount in [0, 1, 9, 116, 117] {
            let unit = String(repeating: "u", count: unitCount)
            let measured = ProtoBytes().fixed64(1, value).string(2, unit)
            bodies += [
                (ProtoBytes().message(1, measured), Quantity(72.5, unit), 1),
                (ProtoBytes().message(1, measured).varint(2, 3), Quantity(72.5, unit), 3),
                (ProtoBytes().message(1, measured).varint(2, 300), Quantity(72.5, unit), 300),
                (ProtoBytes().message(1, measured).varint(2, 0), Quantity(72.5, unit), 1),
            ]
        }
        let unit = ProtoBytes().string(2, "count/min")
        bodies += [
            (ProtoBytes().message(1, unit.fixed64(1, value)), Quantity(72.5, "count/min"), 1),
            (ProtoBytes().varint(2, 4).message(1, ProtoBytes().fixed64(1, value).string(2, "count/min")), Quantity(72.5, "count/min"), 4),
            (ProtoBytes().message(1, unit), Quantity(0, "count/min"), 1),
            (ProtoBytes().message(1, ProtoBytes().fixed64(1, value).string(2, "count/min")).varint(2, 4).varint(2, 5), Quantity(72.5, "count/min"), 5),
            (ProtoBytes().message(1, ProtoBytes().fixed64(1, value).string(2, "count/min")).varint(2, 4).varint(15, 5), Quantity(72.5, "count/min"), 4),
        ]
        let wire = bodies.map { head.message(10, $0.0) }
        let samples = try decoded(wire)
        XCTAssertEqual(samples, try decoded(wire, whole: true), "as protobuf-c reads the page")
        XCTAssertEqual(samples.map(\.body), bodies.map { .quantity($0.1, count: $0.2) })
        XCTAssertThrowsError(try decoded([head.message(10, ProtoBytes().message(1, ProtoBytes().fixed64(1, value).string(2, "count\u{0}/min")))]))
    }

    /// A plain sample laid out as healthd packs it (its device and revision after its body) or in its
    /// fields' order is read from its bytes' places, and any other layout by walking its fields: both
    /// as protobuf-c reads the page whole, at the edges of the packed layout (times and creation left
    /// out or negative, a category with and without a value, a device of 128 bytes, a device twice,
    /// two bodies, metadata, a field after the revision, the revision before the device), each
    /// sample in a page of its own.
    func testAnchoredPagesReadPlainSamplesPackedOrNotAsProtobufCDoes() throws {
        func decoded(_ samples: [ProtoBytes], whole: Bool = false) throws -> [Sample] {
            let page = ProtoBytes().varint(1, 3).message(41, samples.reduce(ProtoBytes()) { $0.message(1, $1) })
            guard case .anchored(let table, _, _, _, _, _) = try WireCodec.decodeServerMessage((whole ? page.varint(99, 1) : page).bytes).result else {
                throw HealthError(.internalError, "not an anchored page")
            }
            return Array(table)
        }
        let heartRate = "HKQuantityTypeIdentifierHeartRate", sleep = "HKCategoryTypeIdentifierSleepAnalysis"
        func head(_ index: UInt8, _ type: String) -> ProtoBytes { ProtoBytes().bytes(1, [UInt8](repeating: index, count: 16)).string(2, type) }
        let device = ProtoBytes().string(1, "Watch").string(7, "w-1")
        let longDevice = ProtoBytes().string(1, String(repeating: "w", count: 126))
        let revision = ProtoBytes().message(1, ProtoBytes().string(1, "App").string(2, "com.example.app")).string(2, "1.0")
        let minusFive = UInt64(bitPattern: -5)
        var samples: [ProtoBytes] = []
        let body = ProtoBytes().message(1, ProtoBytes().fixed64(1, 72.5.bitPattern).string(2, "count/min")).varint(2, 2)
        samples.append(head(1, heartRate).varint(3, 10).varint(4, 20).varint(8, 30).message(10, body).message(6, device).message(7, revision))
        samples.append(head(2, heartRate).varint(3, 10).varint(4, 20).message(6, device).message(7, revision).varint(8, 30).message(10, body))
        samples.append(head(3, heartRate).varint(3, minusFive).message(10, body).message(6, device))
        samples.append(head(4, heartRate).varint(4, 20).message(10, body).message(7, revision))
        samples.append(head(5, sleep).varint(3, 10).varint(4, 20).message(11, ProtoBytes().varint(1, 2)).message(6, device).message(7, revision))
        samples.append(head(6, sleep).varint(3, 10).message(11, ProtoBytes()).message(7, revision))
        samples.append(head(7, heartRate).message(10, body).message(6, longDevice))
        samples.append(head(8, heartRate).message(6, device).message(10, body).message(6, device))
        samples.append(head(9, heartRate).message(10, body).message(11, ProtoBytes().varint(1, 2)))
        samples.append(head(10, heartRate).message(5, ProtoBytes().string(1, "note").message(2, ProtoBytes().string(1, "x"))).message(10, body))
        samples.append(head(11, heartRate).message(10, body).message(6, device).message(7, revision).varint(99, 1))
        samples.append(head(12, heartRate).message(10, body).message(7, revision).message(6, device))
        // A page each: a sample the walk gives up on (the device twice) has its whole page decoded by protobuf-c.
        let read = try samples.flatMap { try decoded([$0]) }
        XCTAssertEqual(read, try samples.flatMap { try decoded([$0], whole: true) }, "as protobuf-c reads the pages")
        XCTAssertEqual(read.map(\.start), [10, 10, -5, 0, 10, 10, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(read.map(\.end), [20, 20, 0, 20, 20, 0, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(read.map(\.creationTime), [30, 30, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil])
        XCTAssertEqual(read.map(\.device?.name), ["Watch", "Watch", "Watch", nil, "Watch", nil, String(repeating: "w", count: 126), "Watch", nil, nil,
                                                  "Watch", "Watch"])
        XCTAssertEqual(read.map(\.sourceRevision?.source.bundleID), ["com.example.app", "com.example.app", nil, "com.example.app", "com.example.app",
                                                                     "com.example.app", nil, nil, nil, nil, "com.example.app", "com.example.app"])
        XCTAssertEqual(read[0].body, .quantity(Quantity(72.5, "count/min"), count: 2))
        XCTAssertEqual(read[4].body, .category(2))
        XCTAssertEqual(read[5].body, .category(0))
    }

    /// A sample that is not plain is unpacked without its type, device and revision, wherever in
    /// its bytes they lie (first, between other fields, last): read as protobuf-c reads it whole.
    func testAnchoredPagesReadSamplesWithTypeDeviceAndRevisionAnywhere() throws {
        let uuid = ProtoBytes().bytes(1, [UInt8](repeating: 9, count: 16))
        let type = ProtoBytes().string(2, "HKQuantityTypeIdentifierHeartRate")
        let device = ProtoBytes().message(6, ProtoBytes().string(1, "Watch").string(3, "W1"))
        let revision = ProtoBytes().message(7, ProtoBytes().message(1, ProtoBytes().string(1, "App").string(2, "com.example.app")).string(2, "1.0")
            .varint(4, 17))
        let metadata = ProtoBytes().message(5, ProtoBytes().string(1, "note").message(2, ProtoBytes().string(1, "x")))
        let times = ProtoBytes().varint(3, 5).varint(4, 6)
        let body = ProtoBytes().message(10, ProtoBytes().message(1, ProtoBytes().fixed64(1, 72.5.bitPattern).string(2, "count/min")))
        let orders: [[ProtoBytes]] = [
            [uuid, type, times, metadata, device, revision, body],
            [type, device, revision, uuid, times, metadata, body],
            [uuid, times, metadata, body, revision, device, type],
            [device, uuid, times, type, metadata, body, revision],
            [uuid, times, type, metadata, body],
        ]
        func decoded(whole: Bool) throws -> [Sample] {
            let page = ProtoBytes().varint(1, 3).message(41, orders.reduce(ProtoBytes()) { $0.bytes(1, $1.flatMap(\.bytes)) })
            guard case .anchored(let table, _, _, _, _, _) = try WireCodec.decodeServerMessage((whole ? page.varint(99, 1) : page).bytes).result else {
                throw HealthError(.internalError, "not an anchored page")
            }
            return Array(table)
        }
        let read = try decoded(whole: false)
        XCTAssertEqual(read, try decoded(whole: true), "as protobuf-c reads the page")
        XCTAssertEqual(read.map(\.metadata), Array(repeating: ["note": .string("x")], count: 5))
        XCTAssertEqual(read.map(\.device?.name), ["Watch", "Watch", "Watch", "Watch", nil])
        XCTAssertEqual(read.map(\.sourceRevision?.source.bundleID), ["com.example.app", "com.example.app", "com.example.app", "com.example.app", nil])
        XCTAssertEqual(read.map(\.body), Array(repeating: .quantity(Quantity(72.5, "count/min"), count: 1), count: 5))
    }

    /// A page's devices are told apart by their bytes, word by word: devices whose names differ in
    /// one byte, at every place of names of 1 to 20 bytes (under a word, a word, and words with a
    /// tail), each read as its own, and each met again later read as the same one;
    /// as protobuf-c reads the whole page.
    func testAnchoredPagesTellDevicesApartByEveryByte() throws {
        var names: [String] = []
        for length in 1...20 {
            let name = String(repeating: "w", count: length)
            names.append(name)
            for place in 0..<length {
                var bytes = Array(name.utf8)
                bytes[place] = UInt8(ascii: "x")
                names.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        names += names.reversed()
        let samples = names.enumerated().map { index, name in
            ProtoBytes().bytes(1, [UInt8](repeating: UInt8(index % 256), count: 15) + [UInt8(index / 256)])
                .string(2, "HKQuantityTypeIdentifierHeartRate").varint(3, 5).varint(4, 6)
                .message(6, ProtoBytes().string(1, name))
                .message(10, ProtoBytes().message(1, ProtoBytes().fixed64(1, 72.5.bitPattern).string(2, "count/min")))
        }
        func decoded(whole: Bool) throws -> [Sample] {
            let page = ProtoBytes().varint(1, 3).message(41, samples.reduce(ProtoBytes()) { $0.message(1, $1) })
            guard case .anchored(let table, _, _, _, _, _) = try WireCodec.decodeServerMessage((whole ? page.varint(99, 1) : page).bytes).result else {
                throw HealthError(.internalError, "not an anchored page")
            }
            return Array(table)
        }
        let read = try decoded(whole: false)
        XCTAssertEqual(read.map(\.device?.name), names)
        XCTAssertEqual(read, try decoded(whole: true), "as protobuf-c reads the page")
    }

    /// The page's decoder guesses that a device is the one met after the last one the time before
    /// (samples taking turns among a few devices): devices in turns, the turn broken, a device met
    /// again after another, and runs of one must each read as their own, as protobuf-c reads them.
    func testAnchoredPagesReadDevicesTakingTurnsAndBreakingTheirTurn() throws {
        let cycle = ["a", "b", "c", "d"]
        let names = cycle + cycle + cycle + ["a", "c", "b", "d", "d", "d", "a", "e", "b", "c", "a", "b", "c", "d", "e"] + cycle.reversed()
        let samples = names.enumerated().map { index, name in
            ProtoBytes().bytes(1, [UInt8](repeating: UInt8(index), count: 16))
                .string(2, "HKQuantityTypeIdentifierHeartRate").varint(3, 5).varint(4, 6)
                .message(6, ProtoBytes().string(1, "Watch").string(2, name))
                .message(7, ProtoBytes().message(1, ProtoBytes().string(1, "App").string(2, "com.app." + name)))
                .message(10, ProtoBytes().message(1, ProtoBytes().fixed64(1, 72.5.bitPattern).string(2, "count/min")))
        }
        func decoded(whole: Bool) throws -> [Sample] {
            let page = ProtoBytes().varint(1, 3).message(41, samples.reduce(ProtoBytes()) { $0.message(1, $1) })
            guard case .anchored(let table, _, _, _, _, _) = try WireCodec.decodeServerMessage((whole ? page.varint(99, 1) : page).bytes).result else {
                throw HealthError(.internalError, "not an anchored page")
            }
            XCTAssertEqual([table.devices.count, table.revisions.count], [5, 5], "each device and revision read once")
            return Array(table)
        }
        let read = try decoded(whole: false)
        XCTAssertEqual(read.map(\.device?.manufacturer), names)
        XCTAssertEqual(read.map(\.sourceRevision?.source.bundleID), names.map { "com.app." + $0 })
        XCTAssertEqual(read, try decoded(whole: true), "as protobuf-c reads the page")
    }

    func testStatisticsResults() {
        assertRoundTrip(.statistics(Fixtures.statistics))
        assertRoundTrip(.statistics(Fixtures.emptyStatistics))
        assertRoundTrip(.statistics(Statistics(type: "t", start: 0, end: 1, mostRecent: Quantity(0, "count"), mostRecentInterval: 0...0)))
        assertRoundTrip(.statisticsCollection(buckets: [Fixtures.statistics, Fixtures.emptyStatistics], initial: true), more: true)
        assertRoundTrip(.statisticsCollection(buckets: [], initial: false))
        assertRoundTrip(.statisticsCollection(buckets: [Fixtures.statistics], initial: true, initialComplete: true), more: true)
    }

    func testDiscoveryResults() {
        assertRoundTrip(.sources([band, Source(name: "", bundleID: "com.apple.health")]))
        assertRoundTrip(.sources([Source(name: "Old Watch", bundleID: "imported.old-watch.0a1b2c3d", importedTime: 1_700_000_000_000_000)]))
        assertRoundTrip(.observerEvent(changedTypes: [], sequence: 0), more: true)
        assertRoundTrip(.observerEvent(changedTypes: ["a", "b"], sequence: 7), more: true)
        assertRoundTrip(.ackObserverEvent(acknowledged: true))
        assertRoundTrip(.ackObserverEvent(acknowledged: false))
        assertRoundTrip(.activitySummaries([ActivitySummary(day: CalendarDay(year: 2026, month: 2, day: 28),
                                                            activeEnergyBurned: Quantity(500, "kcal"), exerciseTime: Quantity(30, "min"),
                                                            standHours: Quantity(12, "count"))]))
        assertRoundTrip(.devices([Fixtures.watch, Fixtures.partialDevice]))
        assertRoundTrip(.sampleCounts([
            SampleCount(type: "HKQuantityTypeIdentifierHeartRate", source: band, device: Fixtures.watch, count: 12_000_000_000),
            SampleCount(type: "HKQuantityTypeIdentifierHeartRate", source: band, device: nil, count: 1),
            SampleCount(type: "HKCategoryTypeIdentifierSleepAnalysis", source: band, device: Fixtures.partialDevice, count: 0),
        ]))
        assertRoundTrip(.sampleCounts([]))
    }

    func testCharacteristicsResults() {
        assertRoundTrip(.characteristics(Characteristics(biologicalSex: 1, bloodType: 3, dateOfBirth: CalendarDay(year: 2000, month: 2, day: 29),
                                                         fitzpatrickSkinType: 1, wheelchairUse: 2, activityMoveMode: 1)))
        assertRoundTrip(.characteristics(Characteristics()))
        assertRoundTrip(.writeCharacteristics)
    }

    func testOwnerResults() {
        assertRoundTrip(.appCredential(app: band, token: "secret-token"))
        assertRoundTrip(.listApps([AppInfo(source: band, createdTime: 5, revoked: false),
                                   AppInfo(source: Source(name: "W", bundleID: "w"), createdTime: 6, revoked: true)]))
        assertRoundTrip(.revokeApp(connectionsClosed: 3))
        assertRoundTrip(.authorizationRequests([AuthorizationRequest(app: band, type: "a", direction: .share, requestedTime: 9),
                                                AuthorizationRequest(app: band, type: "b", direction: .read, requestedTime: 10)]), more: true)
        assertRoundTrip(.decideAuthorization(recorded: 2))
        assertRoundTrip(.listPermissions([Permission(type: "a", direction: .share, state: .pending, updatedTime: 1),
                                          Permission(type: "a", direction: .read, state: .granted, updatedTime: 2),
                                          Permission(type: "b", direction: .read, state: .denied, updatedTime: 3)]))
        assertRoundTrip(.sourcePriority(type: "t", sources: [band, Source(name: "W", bundleID: "w")]))
        assertRoundTrip(.ownerCredential(name: "Alice", token: "owner-token"))
        assertRoundTrip(.listOwners(["Alice", "Bob"]))
        assertRoundTrip(.listOwners([]))
    }
}
