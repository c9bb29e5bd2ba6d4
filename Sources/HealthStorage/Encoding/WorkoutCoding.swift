import Foundation
import HealthModel

/// A workout's events, activities and statistics as one BLOB: they are always read together with the
/// workout and never filtered by SQL, so separate rows would only cost inserts and joins.
enum WorkoutCoding {
    static func encode(_ workout: Workout) -> Data? {
        guard !workout.events.isEmpty || !workout.activities.isEmpty || !workout.statistics.isEmpty else { return nil }
        var writer = BinaryWriter()
        encode(workout.events, into: &writer)
        encode(workout.statistics, into: &writer)
        writer.varint(UInt64(workout.activities.count))
        for activity in workout.activities {
            writer.uuid(activity.uuid)
            writer.int(Int64(activity.activityType))
            writer.int(activity.start)
            writer.int(activity.end)
            encode(activity.metadata, into: &writer)
            encode(activity.events, into: &writer)
            encode(activity.statistics, into: &writer)
        }
        return writer.data
    }

    /// The parts stored in the BLOB: (events, activities, statistics).
    static func decode(_ data: Data?) throws(HealthError) -> ([WorkoutEvent], [WorkoutActivity], [WorkoutStatistic]) {
        guard let data, !data.isEmpty else { return ([], [], []) }
        var reader = BinaryReader(data)
        let events = try decodeEvents(&reader)
        let statistics = try decodeStatistics(&reader)
        var activities: [WorkoutActivity] = []
        for _ in 0..<(try reader.count()) {
            let uuid = try reader.uuid()
            let type = Int32(truncatingIfNeeded: try reader.int())
            let start = try reader.int()
            let end = try reader.int()
            let metadata = try decodeMetadata(&reader)
            activities.append(WorkoutActivity(uuid: uuid, activityType: type, start: start, end: end, metadata: metadata,
                                              events: try decodeEvents(&reader), statistics: try decodeStatistics(&reader)))
        }
        return (events, activities, statistics)
    }

    private static func encode(_ metadata: Metadata, into writer: inout BinaryWriter) {
        writer.lengthPrefixed(MetadataCoding.encode(metadata) ?? Data())
    }

    private static func decodeMetadata(_ reader: inout BinaryReader) throws(HealthError) -> Metadata {
        try MetadataCoding.decode(try reader.lengthPrefixed())
    }

    private static func encode(_ events: [WorkoutEvent], into writer: inout BinaryWriter) {
        writer.varint(UInt64(events.count))
        for event in events {
            writer.int(Int64(event.type.rawValue))
            writer.int(event.start)
            writer.int(event.end)
            encode(event.metadata, into: &writer)
        }
    }

    private static func decodeEvents(_ reader: inout BinaryReader) throws(HealthError) -> [WorkoutEvent] {
        var events: [WorkoutEvent] = []
        for _ in 0..<(try reader.count()) {
            guard let type = WorkoutEventType(rawValue: Int32(truncatingIfNeeded: try reader.int())) else {
                throw HealthError(.internalError, "corrupt workout event type in the store")
            }
            let start = try reader.int()
            let end = try reader.int()
            events.append(WorkoutEvent(type: type, start: start, end: end, metadata: try decodeMetadata(&reader)))
        }
        return events
    }

    private static func encode(_ statistics: [WorkoutStatistic], into writer: inout BinaryWriter) {
        writer.varint(UInt64(statistics.count))
        for statistic in statistics {
            writer.string(statistic.quantityType)
            for quantity in [statistic.sum, statistic.average, statistic.minimum, statistic.maximum] {
                if let quantity { writer.byte(1); writer.double(quantity.value); writer.string(quantity.unit) } else { writer.byte(0) }
            }
        }
    }

    private static func decodeStatistics(_ reader: inout BinaryReader) throws(HealthError) -> [WorkoutStatistic] {
        var statistics: [WorkoutStatistic] = []
        for _ in 0..<(try reader.count()) {
            let type = try reader.string()
            var quantities: [Quantity?] = []
            for _ in 0..<4 {
                if try reader.byte() == 0 { quantities.append(nil); continue }
                let value = try reader.double()
                quantities.append(Quantity(value, try reader.string()))
            }
            statistics.append(WorkoutStatistic(quantityType: type, sum: quantities[0], average: quantities[1],
                                               minimum: quantities[2], maximum: quantities[3]))
        }
        return statistics
    }
}
