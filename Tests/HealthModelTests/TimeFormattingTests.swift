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
}
