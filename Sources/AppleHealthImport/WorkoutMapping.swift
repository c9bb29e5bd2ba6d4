import Foundation
import HealthModel

/// `Workout` elements: the old summary attributes (totalDistance, totalEnergyBurned) and the newer
/// WorkoutStatistics, WorkoutEvent and WorkoutActivity children.
enum WorkoutMapping {
    static func workout(_ element: ExportElement) throws(MappingFailure) -> (Sample, SampleHeader) {
        let typeText = try SampleHeader.attribute(element, .workoutActivityType)
        let typeName = typeText.hasPrefix("HKWorkoutActivityType") ? String(typeText.dropFirst("HKWorkoutActivityType".count)) : typeText
        guard let activityType = Int32(typeName) ?? WorkoutActivityTypes.rawValue(named: typeName) else {
            throw .refused("workout activity type \(typeText) is unknown to HealthStore")
        }
        let header = try SampleHeader(element)
        var statistics = try element.children("WorkoutStatistics").map { child throws(MappingFailure) in try statistic(child) }
        statistics += try summaryStatistics(element, activityType: activityType, known: Set(statistics.map(\.quantityType)))
        let events = try element.children("WorkoutEvent").map { child throws(MappingFailure) in try event(child) }
        var activities: [(ExportElement, Int)] = []
        for (index, child) in element.children("WorkoutActivity").enumerated() { activities.append((child, index)) }
        // Dates are written to the second and the duration to the microsecond, so a workout that ran
        // to its end can show up to a second more than end − start: that is the whole interval.
        let duration = try durationMicros(element).map { min($0, header.end - header.start) }
        let provisional = Workout(activityType: activityType, duration: duration, events: events, statistics: statistics)
        let owner = header.sample(type: TypeCatalog.workoutType.identifier, body: .workout(provisional))
        let mapped = try activities.map { pair throws(MappingFailure) in
            try activity(pair.0, activityType: activityType, uuid: pair.0["uuid"].flatMap { UUID(uuidString: $0) }
                         ?? SampleIdentity.uuid(within: owner.uuid, index: pair.1))
        }
        let workout = Workout(activityType: activityType, duration: duration, events: events, activities: mapped,
                              statistics: statistics)
        return (header.sample(type: TypeCatalog.workoutType.identifier, body: .workout(workout)), header)
    }

    /// The activity's duration attribute in microseconds; nil when absent.
    private static func durationMicros(_ element: ExportElement) throws(MappingFailure) -> Microseconds? {
        guard let text = element["duration"] else { return nil }
        guard let value = Double(text), value.isFinite, value >= 0 else { throw .malformed("duration '\(text)' is not a number") }
        let unit = element["durationUnit"] ?? "min"
        guard let seconds = try? HealthUnit.parse(unit).convert(value, to: HealthUnit.parse("s")) else {
            throw .malformed("durationUnit '\(unit)' is not a time unit")
        }
        return Microseconds((seconds * 1_000_000).rounded())
    }

    private static func quantity(_ element: ExportElement, _ attribute: String, unit: String?) throws(MappingFailure) -> Quantity? {
        guard let text = element[attribute] else { return nil }
        guard let value = Double(text), value.isFinite else { throw .malformed("\(attribute) '\(text)' is not a number") }
        return Quantity(value, try RecordMapping.unitString(unit ?? ""))
    }

    /// `<WorkoutStatistics type=… sum=… average=… minimum=… maximum=… unit=…/>`.
    static func statistic(_ element: ExportElement) throws(MappingFailure) -> WorkoutStatistic {
        let type = try SampleHeader.attribute(element, .type)
        let unit = element[.unit]
        return WorkoutStatistic(quantityType: type, sum: try quantity(element, "sum", unit: unit),
                                average: try quantity(element, "average", unit: unit),
                                minimum: try quantity(element, "minimum", unit: unit),
                                maximum: try quantity(element, "maximum", unit: unit))
    }

    /// Pre-iOS 16 exports give totals as attributes; they become the statistics HealthKit now
    /// reports for them, unless a WorkoutStatistics element already gives that type.
    private static func summaryStatistics(_ element: ExportElement, activityType: Int32, known: Set<String>) throws(MappingFailure) -> [WorkoutStatistic] {
        var result: [WorkoutStatistic] = []
        let distanceType = "HKQuantityTypeIdentifier" + distanceTypeName(activityType)
        if let sum = try quantity(element, "totalDistance", unit: element["totalDistanceUnit"]), !known.contains(distanceType) {
            result.append(WorkoutStatistic(quantityType: distanceType, sum: sum))
        }
        let energyType = "HKQuantityTypeIdentifierActiveEnergyBurned"
        if let sum = try quantity(element, "totalEnergyBurned", unit: element["totalEnergyBurnedUnit"]), !known.contains(energyType) {
            result.append(WorkoutStatistic(quantityType: energyType, sum: sum))
        }
        return result
    }

    /// The distance type HealthKit files an activity's distance under.
    private static func distanceTypeName(_ activityType: Int32) -> String {
        switch WorkoutActivityTypes.name(of: activityType) {
        case "cycling", "handCycling": return "DistanceCycling"
        case "swimming": return "DistanceSwimming"
        case "wheelchairWalkPace", "wheelchairRunPace": return "DistanceWheelchair"
        case "downhillSkiing", "snowboarding", "snowSports": return "DistanceDownhillSnowSports"
        default: return "DistanceWalkingRunning"
        }
    }

    private static let eventTypes: [String: WorkoutEventType] = [
        "pause": .pause, "resume": .resume, "lap": .lap, "marker": .marker, "motionpaused": .motionPaused,
        "motionresumed": .motionResumed, "segment": .segment, "pauseorresumerequest": .pauseOrResumeRequest,
    ]

    /// `<WorkoutEvent type="HKWorkoutEventTypeSegment" date=… duration=… durationUnit=…/>`.
    static func event(_ element: ExportElement) throws(MappingFailure) -> WorkoutEvent {
        let text = try SampleHeader.attribute(element, .type)
        let name = (text.hasPrefix("HKWorkoutEventType") ? String(text.dropFirst("HKWorkoutEventType".count)) : text).lowercased()
        guard let type = eventTypes[name] ?? Int32(text).flatMap(WorkoutEventType.init(rawValue:)) else {
            throw .malformed("workout event type '\(text)' is unknown")
        }
        let start = try SampleHeader.date(element, .date).instant
        let duration = try durationMicros(element) ?? 0
        let entries = element.children("MetadataEntry").map { (key: $0[.key] ?? "", value: $0[.value] ?? "") }
        return WorkoutEvent(type: type, start: start, end: start + duration, metadata: MetadataMapping.map(entries).metadata)
    }

    /// `<WorkoutActivity uuid=… startDate=… endDate=…>` with its own events, statistics and metadata.
    private static func activity(_ element: ExportElement, activityType: Int32, uuid: UUID) throws(MappingFailure) -> WorkoutActivity {
        let startText = try SampleHeader.attribute(element, .startDate)
        let endText = try SampleHeader.attribute(element, .endDate)
        guard let start = ExportDates.instant(startText), let end = ExportDates.instant(endText) else {
            throw .malformed("WorkoutActivity dates '\(startText)', '\(endText)' are not dates")
        }
        let entries = element.children("MetadataEntry").map { (key: $0[.key] ?? "", value: $0[.value] ?? "") }
        return WorkoutActivity(uuid: uuid, activityType: activityType, start: start, end: end,
                               metadata: MetadataMapping.map(entries).metadata,
                               events: try element.children("WorkoutEvent").map { child throws(MappingFailure) in try event(child) },
                               statistics: try element.children("WorkoutStatistics").map { child throws(MappingFailure) in try statistic(child) })
    }
}
