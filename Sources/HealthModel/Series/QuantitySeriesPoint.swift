/// One quantity of a quantity series sample with its date interval (what HKQuantitySeriesSampleBuilder
/// inserts and HKQuantitySeriesSampleQuery enumerates). An instant has `start == end`.
public struct QuantitySeriesPoint: Sendable, Hashable {
    public let quantity: Quantity
    public let start: Microseconds
    public let end: Microseconds

    public init(_ quantity: Quantity, start: Microseconds, end: Microseconds? = nil) {
        self.quantity = quantity
        self.start = start
        self.end = end ?? start
    }
}

extension QuantitySeriesPoint: SeriesPoint {
    public var orderKey: Int64 { start }

    /// A chunk is its unit (varint length, UTF-8) and then one row a point: the gap since the previous
    /// start, the duration, and the value as a decimal (exponent, mantissa) — all zigzag varint deltas
    /// from the previous row, so a heart-rate reading every few seconds costs about 7 bytes. A value
    /// with no short decimal form keeps its exact bits (exponent `rawBits`). Points in another unit
    /// than the chunk's first are converted to it (validation has checked the units are compatible).
    public static func pack(_ points: [QuantitySeriesPoint]) -> [UInt8] {
        let unit = points.first?.quantity.unit ?? ""
        var header = DeltaWriter(fields: 1)
        header.append([Int64(unit.utf8.count)])
        var writer = DeltaWriter(fields: 4)
        var previousStart: Microseconds = 0
        for point in points {
            let value = point.quantity.unit == unit ? point.quantity.value : (try? point.quantity.value(in: unit)) ?? point.quantity.value
            let (exponent, mantissa) = decimal(value)
            writer.append([point.start &- previousStart, point.end &- point.start, exponent, mantissa])
            previousStart = point.start
        }
        return header.bytes + Array(unit.utf8) + writer.bytes
    }

    public static func unpack(_ bytes: [UInt8], count: Int) throws(HealthError) -> [QuantitySeriesPoint] {
        var header = DeltaReader(bytes: bytes, fields: 1)
        let length = Int(try header.next()[0])
        let unitStart = header.position
        guard length >= 0, unitStart + length <= bytes.count,
              let unit = String(validating: bytes[unitStart..<unitStart + length], as: UTF8.self) else { throw DeltaReader.corrupt }
        var start: Microseconds = 0
        return try SeriesPacking.unpack(Array(bytes[(unitStart + length)...]), count: count, fields: 4) { row in
            start &+= row[0]
            return QuantitySeriesPoint(Quantity(value(exponent: row[2], mantissa: row[3]), unit), start: start, end: start &+ row[1])
        }
    }

    /// The exponent marking a value stored as its IEEE bits.
    static let rawBits: Int64 = -1
    private static let powers: [Double] = (0...9).map { pow10($0) }

    private static func pow10(_ n: Int) -> Double { (0..<n).reduce(1.0) { acc, _ in acc * 10 } }

    /// The shortest (exponent, mantissa) with `mantissa / 10^exponent == value` exactly.
    static func decimal(_ value: Double) -> (Int64, Int64) {
        for (exponent, power) in powers.enumerated() {
            let scaled = (value * power).rounded()
            if abs(scaled) < 9e15, scaled / power == value { return (Int64(exponent), Int64(scaled)) }
        }
        return (rawBits, Int64(bitPattern: value.bitPattern))
    }

    static func value(exponent: Int64, mantissa: Int64) -> Double {
        guard exponent >= 0, exponent < powers.count else { return Double(bitPattern: UInt64(bitPattern: mantissa)) }
        return Double(mantissa) / powers[Int(exponent)]
    }
}
