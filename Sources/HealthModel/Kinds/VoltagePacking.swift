/// Voltages packed as one chunk on a fixed grid: each point is two zigzag varints, the change of the
/// interval to the previous point (µs) and the change of the voltage (nV). Measurements on a sampling
/// frequency's grid have intervals that differ by at most 1 µs, so the time costs one byte and the
/// voltage two or three: about 3.5 bytes a measurement.
extension VoltageMeasurement: SeriesPoint {
    /// Grid steps per microvolt: the store keeps voltages to the nanovolt.
    static let nanovoltsPerMicrovolt = 1e3

    public var orderKey: Int64 { offset }

    public static func pack(_ points: [VoltageMeasurement]) -> [UInt8] {
        var writer = DeltaWriter(fields: 2)
        var previous: Microseconds = 0
        for point in points {
            writer.append([point.offset - previous, SeriesPacking.grid(point.microvolts, nanovoltsPerMicrovolt)])
            previous = point.offset
        }
        return writer.bytes
    }

    public static func unpack(_ bytes: [UInt8], count: Int) throws(HealthError) -> [VoltageMeasurement] {
        var offset: Microseconds = 0
        return try SeriesPacking.unpack(bytes, count: count, fields: 2) { row in
            offset += row[0]
            return VoltageMeasurement(offset: offset, microvolts: Double(row[1]) / nanovoltsPerMicrovolt)
        }
    }

    /// This measurement at the store's resolution (what reading it back returns).
    public var onGrid: VoltageMeasurement {
        VoltageMeasurement(offset: offset, microvolts: Double(SeriesPacking.grid(microvolts, Self.nanovoltsPerMicrovolt))
            / Self.nanovoltsPerMicrovolt)
    }
}
