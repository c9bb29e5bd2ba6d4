import Foundation
import Testing
@testable import HealthModel

@Suite struct TimeFormattingTests {
    /// The arithmetic formatter agrees with Foundation's across eras, leap days and offsets.
    @Test func matchesFoundationsFormatter() {
        let reference = ISO8601DateFormatter()
        reference.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var state: UInt64 = 7
        for _ in 0..<2000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            // Years 1583…9999, to the millisecond: before the Gregorian reform Foundation switches to
            // the Julian calendar, while ISO 8601 (and this formatter) stay proleptic Gregorian.
            let micros = (Int64(bitPattern: state >> 1) % 265_000_000_000_000_000 - 12_000_000_000_000_000) / 1000 * 1000
            #expect(Time.iso8601(micros) == reference.string(from: Time.date(micros)))
        }
        #expect(Time.iso8601(951_782_400_000_000) == "2000-02-29T00:00:00.000Z")
        #expect(Time.iso8601(-1000) == "1969-12-31T23:59:59.999Z")
        #expect(Time.iso8601(-62_135_596_800_000_000) == "0001-01-01T00:00:00.000Z")
    }

    @Test func printsTheZonesOffsetAtThatInstant() {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        #expect(Time.iso8601(1_774_800_000_000_000, in: berlin) == "2026-03-29T18:00:00.000+02:00")
        #expect(Time.iso8601(1_767_225_600_000_000, in: berlin) == "2026-01-01T01:00:00.000+01:00")
        #expect(Time.iso8601(1_767_225_600_000_000, in: TimeZone(identifier: "America/St_Johns")!) == "2025-12-31T20:30:00.000-03:30")
    }

    /// The edges of the one-buffer formatter: every field padded, micros cut (not rounded) to the
    /// millisecond, years before 1000 and after 9999, offsets on both sides of a DST change and
    /// west of UTC with minutes.
    @Test func padsEveryFieldAndTheOffsetAtTheEdges() {
        #expect(Time.iso8601(1_767_225_599_999_999) == "2025-12-31T23:59:59.999Z")
        #expect(Time.iso8601(1_000_123_456) == "1970-01-01T00:16:40.123Z")
        #expect(Time.iso8601(-30_610_310_400_000_000) == "0999-12-31T00:00:00.000Z")
        #expect(Time.iso8601(-62_104_060_800_000_000) == "0002-01-01T00:00:00.000Z")
        #expect(Time.iso8601(253_402_300_800_000_000) == "10000-01-01T00:00:00.000Z")
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        // 2026-03-29 01:00Z: clocks go from 02:00 +01:00 to 03:00 +02:00.
        #expect(Time.iso8601(1_774_745_999_999_000, in: berlin) == "2026-03-29T01:59:59.999+01:00")
        #expect(Time.iso8601(1_774_746_000_000_000, in: berlin) == "2026-03-29T03:00:00.000+02:00")
        #expect(Time.iso8601(1_767_225_600_000_000, in: TimeZone(identifier: "Pacific/Marquesas")!) == "2025-12-31T14:30:00.000-09:30")
        #expect(Time.iso8601(1_767_225_600_000_000, in: TimeZone(identifier: "Asia/Kathmandu")!) == "2026-01-01T05:45:00.000+05:45")
    }

    /// One writer over instants in a row keeps the text of the last local hour and offset: it must
    /// make it again at each hour, day and year, when the instants go back, when the zone changes
    /// and when only the offset does (Berlin's 02:00–03:00 comes twice at the end of DST).
    @Test func aWriterOverManyInstantsMakesTheHourAgainWhereItChanges() {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let cases: [(Microseconds, TimeZone?, String)] = [
            (1_780_308_000_000_000, nil, "2026-06-01T10:00:00.000Z"),
            (1_780_311_599_999_000, nil, "2026-06-01T10:59:59.999Z"),
            (1_780_311_600_500_000, nil, "2026-06-01T11:00:00.500Z"),
            (1_780_308_000_000_000, nil, "2026-06-01T10:00:00.000Z"),
            (1_780_308_000_000_000, berlin, "2026-06-01T12:00:00.000+02:00"),
            (1_780_308_000_000_000, TimeZone(identifier: "Asia/Kathmandu")!, "2026-06-01T15:45:00.000+05:45"),
            (1_780_311_600_500_000, TimeZone(identifier: "Asia/Kathmandu")!, "2026-06-01T16:45:00.500+05:45"),
            (1_798_761_599_999_000, nil, "2026-12-31T23:59:59.999Z"),
            (1_798_761_600_000_000, nil, "2027-01-01T00:00:00.000Z"),
            (1_798_761_599_999_000, berlin, "2027-01-01T00:59:59.999+01:00"),
            (1_774_745_999_999_000, berlin, "2026-03-29T01:59:59.999+01:00"),
            (1_774_746_000_000_000, berlin, "2026-03-29T03:00:00.000+02:00"),
            (1_792_889_999_999_000, berlin, "2026-10-25T02:59:59.999+02:00"),
            (1_792_890_000_000_000, berlin, "2026-10-25T02:00:00.000+01:00"),
            (1_792_890_000_000_000, TimeZone(secondsFromGMT: 3_600)!, "2026-10-25T02:00:00.000+01:00"),
            (1_792_890_000_000_000, TimeZone(secondsFromGMT: 7_200)!, "2026-10-25T03:00:00.000+02:00"),
            (-1000, nil, "1969-12-31T23:59:59.999Z"),
            (0, nil, "1970-01-01T00:00:00.000Z"),
            (-30_610_310_400_000_000, nil, "0999-12-31T00:00:00.000Z"),
            (253_402_300_800_000_000, nil, "10000-01-01T00:00:00.000Z"),
            (.max, berlin, Time.iso8601(.max)),
        ]
        var writer = ISO8601Writer()
        var text: [UInt8] = []
        for (micros, zone, expected) in cases {
            text.removeAll()
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ISO8601Writer.maxCount) { buffer in
                let count = writer.write(micros, in: zone, to: buffer.baseAddress!)
                text.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<count]))
            }
            #expect(String(decoding: text, as: UTF8.self) == expected, "\(micros) in \(zone?.identifier ?? "UTC")")
        }
    }

    /// An export's lines keep the leading digits of the last microseconds written: the rest must be
    /// padded to its eight places, and values that change them, go back, or are too short to have
    /// them written whole.
    @Test func linesInARowWriteEveryInstantsMicrosecondsWhole() {
        let t: Microseconds = 1_780_308_000_000_000
        let instants: [Microseconds] = [t, t + 1, t + 99_999_999, t + 100_000_000, t + 100_000_001, t, -1, 0, 99_999_999,
                                        100_000_000, 100_000_007, 1_000_000_000, .max, t + 5]
        let samples = zip(instants, instants.dropFirst()).map { start, end in
            Sample(type: "HKQuantityTypeIdentifierHeartRate", start: start, end: end, creationTime: end,
                   body: .quantity(Quantity(61, "count/min"), count: 1))
        }
        var cache = SampleJSON.LineCache()
        var bytes = LineBuffer()
        for sample in samples { SampleJSON.writeLine(sample, zone: nil, cache: &cache, to: &bytes) }
        let lines = String(decoding: bytes.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines == samples.map { SampleJSON.sample($0).text(pretty: false) })
        #expect(lines.first?.contains(#""end_micros":1780308000000001,"#) == true)
    }

    /// A double's text is its `description` without a whole number's ".0", also where it is made
    /// without `description` (few places, 0.001 to 10^15): readings with a few decimals, whole
    /// numbers, every bit pattern, and the edges of that range.
    @Test func doublesAreTheirDescriptionWithoutAWholeNumbersPoint() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            // SplitMix64: the same values every run.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var values: [Double] = [0, -0.0, 1, -1, 0.1, 0.2, 0.1 + 0.2, 0.001, 0.001.nextDown, 0.001.nextUp, 0.0001, 1e-5, 1e15,
                                1e15.nextDown, 1e15.nextUp, 999_999_999_999_999, 999_999_999_999_999.5, 1e16, 9_007_199_254_740_994,
                                .leastNonzeroMagnitude, .greatestFiniteMagnitude, 72.38472938273, 36.8, 0.97, 123_456.789_012_345,
                                // Just under and over a whole number, whose whole part is taken from the double itself.
                                0.999_999_999_999_9, -0.999_999_999_999_99, 99.999_999_999_99, 100.000_000_000_01, 1.0.nextDown,
                                1.0.nextUp, 2.0.nextDown, 999_999_999_999.9, 999_999_999_999_999.0.nextDown]
        for _ in 0..<200_000 {
            let places = Int(next() % 10)
            let scale = (0..<places).reduce(1.0) { value, _ in value * 10 }
            // The double each decimal reads as: a reading, and one of up to 17 digits.
            values.append(Double(Int64(next() % 100_000_000) - 50_000_000) / scale)
            values.append(Double(next() % 100_000_000_000_000_000) / scale)
            values.append(Double(bitPattern: next()))
        }
        for value in values where value.isFinite {
            let description = value.description
            let expected = description.hasSuffix(".0") ? String(description.dropLast(2)) : description
            #expect(JSON.double(value).text(pretty: false) == expected, "\(value)")
        }
    }

    @Test func writesEightDigitsAtOnce() {
        var state: UInt64 = 11
        var values: [UInt64] = [0, 1, 9, 10, 99, 100, 9_999, 10_000, 10_001, 99_999_999, 12_345_678, 87_654_321, 40_000_001]
        for _ in 0..<10_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            values.append((state >> 33) % 100_000_000)
        }
        for value in values {
            var bytes = [UInt8](repeating: 0, count: 8)
            bytes.withUnsafeMutableBufferPointer { $0.baseAddress!.writeEightDigits(value) }
            let digits = String(value)
            #expect(String(decoding: bytes, as: UTF8.self) == String(repeating: "0", count: 8 - digits.count) + digits)
        }
    }

    @Test func appendsDecimalsPaddedAndSigned() {
        for (value, width, text) in [(Int64(0), 1, "0"), (7, 3, "007"), (-7, 3, "-007"), (12345, 2, "12345"),
                                     (Int64.min, 1, "-9223372036854775808"), (Int64.max, 20, "09223372036854775807")] {
            var bytes: [UInt8] = [UInt8(ascii: "x")]
            bytes.appendDecimal(value, width: width)
            #expect(String(decoding: bytes, as: UTF8.self) == "x" + text)
        }
    }
}
