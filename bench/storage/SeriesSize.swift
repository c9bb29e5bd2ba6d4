import Foundation
import HealthModel
import HealthStorage

/// `--series`: bytes per point of a 10,000-location route (a 1 Hz run with GPS noise), of 100,000
/// heartbeats (100 series of 1,000 beats) and of two 100,000-point quantity series (heart-rate
/// readings and step counts 1–5 s apart), packed and as the SQLite file grew, beside the 80 bytes a
/// location, 9 a beat and 24 a quantity point take as plain fields (ten 8-byte numbers; an 8-byte
/// offset and a flag byte; start, end and value).
func seriesSizeRun() async throws {
    let path = directory.appendingPathComponent("series.sqlite").path
    let store = try SQLiteStore.open(path: path)
    let (owner, _) = try await store.addOwner(name: "series")
    await store.close()
    let emptySize = fileSize(path)
    let reopened = try SQLiteStore.open(path: path)
    var random = SplitMix(seed: 7)
    var latitude = 47.37, longitude = 8.54, course = 30.0
    let locations = (0..<10_000).map { i -> RouteLocation in
        course = (course + random.uniform(-4, 4) + 360).truncatingRemainder(dividingBy: 360)
        latitude += 3.0 * cos(course * .pi / 180) / 111_320
        longitude += 3.0 * sin(course * .pi / 180) / 75_000
        return RouteLocation(time: epochStart + Int64(i) * 1_000_000, latitude: latitude + random.uniform(-2e-6, 2e-6),
                             longitude: longitude + random.uniform(-2e-6, 2e-6), altitude: 410 + random.uniform(-1, 1),
                             horizontalAccuracy: 3 + random.uniform(0, 4).rounded(), verticalAccuracy: 4, course: course,
                             courseAccuracy: 15, speed: 3 + random.uniform(-0.3, 0.3), speedAccuracy: 0.5)
    }
    let route = UUID()
    for start in stride(from: 0, to: locations.count, by: 100) {
        _ = try await reopened.appendRouteLocations(owner: owner, route: route, Array(locations[start..<start + 100]))
    }
    let routeBytes = try await reopened.seriesPackedBytes()
    var beatsStored = 0
    for _ in 0..<100 {
        var offset: Int64 = 0
        let beats = (0..<SeriesRules.maximumHeartbeats).map { i -> Heartbeat in
            offset += 600_000 + Int64(random.uniform(0, 400_000))
            return Heartbeat(offset: offset, precededByGap: i % 250 == 249)
        }
        beatsStored += try await reopened.appendHeartbeats(owner: owner, series: UUID(), beats)
    }
    let beatBytes = try await reopened.seriesPackedBytes() - routeBytes
    var quantityBytes: [Int64] = []
    for (type, cumulative) in [("HKQuantityTypeIdentifierHeartRate", false), ("HKQuantityTypeIdentifierStepCount", true)] {
        let before = try await reopened.seriesPackedBytes()
        var start = epochStart, bpm = 90.0
        let points = (0..<quantityPoints).map { _ -> QuantitySeriesPoint in
            let gap = Int64(random.uniform(1_000_000, 5_000_000))
            defer { start += gap }
            bpm = min(max(bpm + random.uniform(-3, 3), 55), 170)
            return cumulative
                ? QuantitySeriesPoint(Quantity(random.uniform(0, 12).rounded(), "count"), start: start, end: start + gap)
                : QuantitySeriesPoint(Quantity(bpm.rounded(), "count/min"), start: start)
        }
        let builder = UUID()
        for first in stride(from: 0, to: points.count, by: 1_000) {
            _ = try await reopened.appendQuantityPoints(owner: owner, builder: builder, type: type, start: epochStart,
                                                        Array(points[first..<first + 1_000]))
        }
        quantityBytes.append(try await reopened.seriesPackedBytes() - before)
    }
    await reopened.close()
    let grown = Double(fileSize(path) - emptySize)
    print(String(format: "route of %d locations: %.1f bytes per location packed (plain fields: 80)",
                 locations.count, Double(routeBytes) / Double(locations.count)))
    print(String(format: "%d heartbeats: %.1f bytes per beat packed (plain fields: 9)", beatsStored, Double(beatBytes) / Double(beatsStored)))
    print(String(format: "%d heart-rate readings 1–5 s apart: %.1f bytes per point packed (plain fields: 24)",
                 quantityPoints, Double(quantityBytes[0]) / Double(quantityPoints)))
    print(String(format: "%d step counts over 1–5 s intervals: %.1f bytes per point packed (plain fields: 24)",
                 quantityPoints, Double(quantityBytes[1]) / Double(quantityPoints)))
    print(String(format: "SQLite file grew by %.1f bytes per point over all of them (pages, keys, free space)",
                 grown / Double(locations.count + beatsStored + 2 * quantityPoints)))
}

/// Points of each quantity series `--series` stores.
private let quantityPoints = 100_000

private func fileSize(_ path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
}

/// A small seeded generator, so every run stores the same points.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return low + (high - low) * Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
}
