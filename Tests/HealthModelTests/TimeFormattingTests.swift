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

    @Test func appendsDecimalsPaddedAndSigned() {
        for (value, width, text) in [(Int64(0), 1, "0"), (7, 3, "007"), (-7, 3, "-007"), (12345, 2, "12345"),
                                     (Int64.min, 1, "-9223372036854775808"), (Int64.max, 20, "09223372036854775807")] {
            var bytes: [UInt8] = [UInt8(ascii: "x")]
            bytes.appendDecimal(value, width: width)
            #expect(String(decoding: bytes, as: UTF8.self) == "x" + text)
        }
    }
}
