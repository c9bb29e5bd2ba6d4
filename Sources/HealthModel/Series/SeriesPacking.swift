/// The compact binary form series points are stored and measured in: each chunk packs its points as
/// zigzag varint deltas from the previous point on a fixed grid (time in µs, coordinates in 1e-7°,
/// lengths in mm, course in 0.001°, speeds in mm/s), so a 1 Hz GPS track costs about 15 bytes a location
/// and a beat about 3 bytes. The grid is the store's resolution: `RouteLocation.onGrid` is what reading
/// back returns, and packing a point already on the grid is lossless.
public enum SeriesPacking {
    /// Grid steps per unit of each location field after the time.
    static let locationScales: [Double] = [1e7, 1e7, 1e3, 1e3, 1e3, 1e3, 1e3, 1e3, 1e3]

    /// The locations packed as one chunk.
    public static func pack(_ locations: [RouteLocation]) -> [UInt8] {
        var writer = DeltaWriter(fields: 10)
        for location in locations {
            writer.append([location.time] + zip(location.gridFields, locationScales).map { grid($0, $1) })
        }
        return writer.bytes
    }

    /// The locations of one chunk of `count` points.
    public static func unpackLocations(_ bytes: [UInt8], count: Int) throws(HealthError) -> [RouteLocation] {
        try unpack(bytes, count: count, fields: 10) { v in
            let d = zip(v.dropFirst(), locationScales).map { Double($0) / $1 }
            return RouteLocation(time: v[0], latitude: d[0], longitude: d[1], altitude: d[2], horizontalAccuracy: d[3],
                                 verticalAccuracy: d[4], course: d[5], courseAccuracy: d[6], speed: d[7], speedAccuracy: d[8])
        }
    }

    /// The beats packed as one chunk: each is one varint of (offset delta << 1 | gap).
    public static func pack(_ beats: [Heartbeat]) -> [UInt8] {
        var writer = DeltaWriter(fields: 1)
        for beat in beats {
            writer.append([beat.offset << 1 | (beat.precededByGap ? 1 : 0)])
        }
        return writer.bytes
    }

    /// The beats of one chunk of `count` points.
    public static func unpackBeats(_ bytes: [UInt8], count: Int) throws(HealthError) -> [Heartbeat] {
        try unpack(bytes, count: count, fields: 1) { Heartbeat(offset: $0[0] >> 1, precededByGap: $0[0] & 1 == 1) }
    }

    /// Reads `count` rows of `fields` integers and makes a point of each.
    static func unpack<P>(_ bytes: [UInt8], count: Int, fields: Int, _ make: ([Int64]) -> P) throws(HealthError) -> [P] {
        var reader = DeltaReader(bytes: bytes, fields: fields)
        var points: [P] = []
        points.reserveCapacity(count)
        for _ in 0..<count { points.append(make(try reader.next())) }
        try reader.finish()
        return points
    }

    static func grid(_ value: Double, _ scale: Double) -> Int64 { Int64((value * scale).rounded()) }
}

extension RouteLocation {
    /// The fields after the time, in packing order.
    var gridFields: [Double] {
        [latitude, longitude, altitude, horizontalAccuracy, verticalAccuracy, course, courseAccuracy, speed, speedAccuracy]
    }

    /// This location at the store's resolution (what a query returns for it).
    public var onGrid: RouteLocation {
        let d = zip(gridFields, SeriesPacking.locationScales).map { Double(SeriesPacking.grid($0, $1)) / $1 }
        return RouteLocation(time: time, latitude: d[0], longitude: d[1], altitude: d[2], horizontalAccuracy: d[3],
                             verticalAccuracy: d[4], course: d[5], courseAccuracy: d[6], speed: d[7], speedAccuracy: d[8])
    }
}

/// Appends rows of integers as zigzag varint deltas from the previous row.
struct DeltaWriter {
    private(set) var bytes: [UInt8] = []
    private var previous: [Int64]

    init(fields: Int) { previous = Array(repeating: 0, count: fields) }

    mutating func append(_ row: [Int64]) {
        for (i, value) in row.enumerated() {
            let delta = value &- previous[i]
            var zigzag = UInt64(bitPattern: (delta << 1) ^ (delta >> 63))
            while zigzag >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: zigzag) | 0x80)
                zigzag >>= 7
            }
            bytes.append(UInt8(zigzag))
        }
        previous = row
    }
}

/// Reads back what `DeltaWriter` wrote; a truncated or overlong chunk is a stored-data error.
struct DeltaReader {
    let bytes: [UInt8]
    private(set) var position = 0
    private var previous: [Int64]

    init(bytes: [UInt8], fields: Int) {
        self.bytes = bytes
        previous = Array(repeating: 0, count: fields)
    }

    mutating func next() throws(HealthError) -> [Int64] {
        for i in previous.indices {
            var zigzag: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard position < bytes.count, shift < 64 else { throw Self.corrupt }
                let byte = bytes[position]
                position += 1
                zigzag |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            let delta = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
            previous[i] = previous[i] &+ delta
        }
        return previous
    }

    func finish() throws(HealthError) {
        if position != bytes.count { throw Self.corrupt }
    }

    static let corrupt = HealthError(.internalError, "Stored series chunk is corrupt (its points do not match its length)")
}

/// A point of a series sample, packed into chunks by the store.
public protocol SeriesPoint: Sendable, Hashable {
    /// What orders the points: a location's time, a beat's offset from the series start.
    var orderKey: Int64 { get }
    static func pack(_ points: [Self]) -> [UInt8]
    static func unpack(_ bytes: [UInt8], count: Int) throws(HealthError) -> [Self]
}

extension RouteLocation: SeriesPoint {
    public var orderKey: Int64 { time }
    public static func pack(_ points: [RouteLocation]) -> [UInt8] { SeriesPacking.pack(points) }
    public static func unpack(_ bytes: [UInt8], count: Int) throws(HealthError) -> [RouteLocation] {
        try SeriesPacking.unpackLocations(bytes, count: count)
    }
}

extension Heartbeat: SeriesPoint {
    public var orderKey: Int64 { offset }
    public static func pack(_ points: [Heartbeat]) -> [UInt8] { SeriesPacking.pack(points) }
    public static func unpack(_ bytes: [UInt8], count: Int) throws(HealthError) -> [Heartbeat] {
        try SeriesPacking.unpackBeats(bytes, count: count)
    }
}
