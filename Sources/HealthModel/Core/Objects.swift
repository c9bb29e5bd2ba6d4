import Foundation

/// An amount in a HealthKit unit string (HKQuantity). Conversions live in Units/.
public struct Quantity: Sendable, Hashable {
    public let value: Double
    /// HealthKit unit string as given, e.g. "count/min".
    public let unit: String

    public init(_ value: Double, _ unit: String) {
        self.value = value
        self.unit = unit
    }
}

/// A typed metadata value (NSString, NSNumber int/float/bool, NSDate, HKQuantity).
public enum MetadataValue: Sendable, Hashable {
    case string(String)
    case double(Double)
    case int(Int64)
    case bool(Bool)
    /// An instant in microseconds since the Unix epoch.
    case date(Microseconds)
    case quantity(Quantity)
}

/// Metadata by key.
public typealias Metadata = [String: MetadataValue]

/// Well-known metadata keys (the stored strings, docs/semantics.md §7.2).
public enum MetadataKey {
    public static let syncIdentifier = "HKMetadataKeySyncIdentifier"
    public static let syncVersion = "HKMetadataKeySyncVersion"
    public static let externalUUID = "HKExternalUUID"
    public static let wasUserEntered = "HKWasUserEntered"
    public static let timeZone = "HKTimeZone"
    public static let foodType = "HKFoodType"
    public static let menstrualCycleStart = "HKMenstrualCycleStart"
    public static let insulinDeliveryReason = "HKInsulinDeliveryReason"
}

/// The app that saved data (HKSource); equal by bundle identifier in practice.
public struct Source: Sendable, Hashable {
    public let name: String
    public let bundleID: String
    /// When the owner's store first got this source from an import (SaveObjects with keep_sources);
    /// nil when the source saved its data itself. Set only in source listings (QuerySources).
    public let importedTime: Microseconds?

    public init(name: String, bundleID: String, importedTime: Microseconds? = nil) {
        self.name = name
        self.bundleID = bundleID
        self.importedTime = importedTime
    }

    /// True when the owner's store first got this source from an import.
    public var isImported: Bool { importedTime != nil }
}

/// Which build of which app on which OS saved an object (HKSourceRevision).
public struct SourceRevision: Sendable, Hashable {
    public let source: Source
    public let version: String?
    public let productType: String?
    public let osMajor: Int
    public let osMinor: Int
    public let osPatch: Int

    public init(source: Source, version: String? = nil, productType: String? = nil,
                osMajor: Int = 0, osMinor: Int = 0, osPatch: Int = 0) {
        self.source = source
        self.version = version
        self.productType = productType
        self.osMajor = osMajor
        self.osMinor = osMinor
        self.osPatch = osPatch
    }

    /// "1.2.3" from the OS fields.
    public var osVersionString: String { "\(osMajor).\(osMinor).\(osPatch)" }
}

/// The device that measured a sample (HKDevice); every field optional, nil is a wildcard in predicates.
public struct Device: Sendable, Hashable {
    public let name: String?
    public let manufacturer: String?
    public let model: String?
    public let hardwareVersion: String?
    public let firmwareVersion: String?
    public let softwareVersion: String?
    public let localIdentifier: String?
    public let udiDeviceIdentifier: String?

    public init(name: String? = nil, manufacturer: String? = nil, model: String? = nil,
                hardwareVersion: String? = nil, firmwareVersion: String? = nil,
                softwareVersion: String? = nil, localIdentifier: String? = nil,
                udiDeviceIdentifier: String? = nil) {
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.hardwareVersion = hardwareVersion
        self.firmwareVersion = firmwareVersion
        self.softwareVersion = softwareVersion
        self.localIdentifier = localIdentifier
        self.udiDeviceIdentifier = udiDeviceIdentifier
    }

    /// Every field equal. Written out and inlinable, unlike the derived `==`: a caller in another module
    /// (the writer compares a sample's device with those it resolved, for every sample) then reads a
    /// kept device's fields where they are, where calling the derived one made it copy the device first,
    /// every string in it retained and released. The per-unit identifiers first: they tell devices of
    /// one model apart.
    @inlinable public static func == (a: Device, b: Device) -> Bool {
        a.localIdentifier == b.localIdentifier && a.udiDeviceIdentifier == b.udiDeviceIdentifier && a.name == b.name
            && a.manufacturer == b.manufacturer && a.model == b.model && a.hardwareVersion == b.hardwareVersion
            && a.firmwareVersion == b.firmwareVersion && a.softwareVersion == b.softwareVersion
    }

    /// True when every field is nil.
    public var isEmpty: Bool { self == Device() }

    /// Predicate matching: every non-nil field of `pattern` equals this device's field.
    public func matches(_ pattern: Device) -> Bool {
        func ok(_ p: String?, _ v: String?) -> Bool { p == nil || p == v }
        return ok(pattern.name, name) && ok(pattern.manufacturer, manufacturer) && ok(pattern.model, model)
            && ok(pattern.hardwareVersion, hardwareVersion) && ok(pattern.firmwareVersion, firmwareVersion)
            && ok(pattern.softwareVersion, softwareVersion) && ok(pattern.localIdentifier, localIdentifier)
            && ok(pattern.udiDeviceIdentifier, udiDeviceIdentifier)
    }
}

/// HKWorkoutEventType raw values.
public enum WorkoutEventType: Int32, Sendable, Hashable, CaseIterable {
    case pause = 1, resume = 2, lap = 3, marker = 4, motionPaused = 5, motionResumed = 6
    case segment = 7, pauseOrResumeRequest = 8
}

/// An event inside a workout (HKWorkoutEvent).
public struct WorkoutEvent: Sendable, Hashable {
    public let type: WorkoutEventType
    public let start: Microseconds
    public let end: Microseconds
    public let metadata: Metadata

    public init(type: WorkoutEventType, start: Microseconds, end: Microseconds, metadata: Metadata = [:]) {
        self.type = type
        self.start = start
        self.end = end
        self.metadata = metadata
    }
}

/// Totals of one quantity type over a workout or activity.
public struct WorkoutStatistic: Sendable, Hashable {
    public let quantityType: String
    public let sum: Quantity?
    public let average: Quantity?
    public let minimum: Quantity?
    public let maximum: Quantity?

    public init(quantityType: String, sum: Quantity? = nil, average: Quantity? = nil,
                minimum: Quantity? = nil, maximum: Quantity? = nil) {
        self.quantityType = quantityType
        self.sum = sum
        self.average = average
        self.minimum = minimum
        self.maximum = maximum
    }
}

/// A sub-activity of a workout (HKWorkoutActivity).
public struct WorkoutActivity: Sendable, Hashable {
    public let uuid: UUID
    public let activityType: Int32
    public let start: Microseconds
    public let end: Microseconds
    public let metadata: Metadata
    public let events: [WorkoutEvent]
    public let statistics: [WorkoutStatistic]

    public init(uuid: UUID, activityType: Int32, start: Microseconds, end: Microseconds,
                metadata: Metadata = [:], events: [WorkoutEvent] = [], statistics: [WorkoutStatistic] = []) {
        self.uuid = uuid
        self.activityType = activityType
        self.start = start
        self.end = end
        self.metadata = metadata
        self.events = events
        self.statistics = statistics
    }
}

/// The workout-specific part of a workout sample (HKWorkout).
public struct Workout: Sendable, Hashable {
    /// HKWorkoutActivityType raw value.
    public let activityType: Int32
    /// Active duration in microseconds; nil on save = derived from the interval and pause/resume
    /// events (the store returns the derived value).
    public let duration: Microseconds?
    public let events: [WorkoutEvent]
    public let activities: [WorkoutActivity]
    public let statistics: [WorkoutStatistic]
    /// Samples associated with the workout.
    public let associatedSampleUUIDs: [UUID]

    public init(activityType: Int32, duration: Microseconds? = nil, events: [WorkoutEvent] = [],
                activities: [WorkoutActivity] = [], statistics: [WorkoutStatistic] = [],
                associatedSampleUUIDs: [UUID] = []) {
        self.activityType = activityType
        self.duration = duration
        self.events = events
        self.activities = activities
        self.statistics = statistics
        self.associatedSampleUUIDs = associatedSampleUUIDs
    }
}

/// The kind-specific part of a sample.
public enum SampleBody: Sendable, Hashable {
    /// A quantity and the number of quantities it summarises (1 unless a series).
    case quantity(Quantity, count: Int64)
    /// A raw category value.
    case category(Int64)
    /// The samples a correlation holds.
    case correlation([Sample])
    case workout(Workout)
    /// An electrocardiogram (its voltages only on save).
    case electrocardiogram(Electrocardiogram)
    /// An audiogram's sensitivity points.
    case audiogram(Audiogram)
    /// A state of mind.
    case stateOfMind(StateOfMind)
    /// A GAD-7 or PHQ-9 assessment's answers.
    case scoredAssessment(ScoredAssessment)
    /// A workout route or heartbeat series (HKSeriesSample): how many points it holds. The points
    /// themselves are built with a series builder and read in batches, never carried on the sample.
    case series(count: Int64)
}

/// A sample's catalogue entry carried beside its type name. It adds nothing to the sample's value: every
/// two compare equal and hash alike, so a sample equals itself however it was made.
private struct ResolvedType: Sendable, Hashable {
    let type: HealthType?

    static func == (lhs: ResolvedType, rhs: ResolvedType) -> Bool { true }

    func hash(into hasher: inout Hasher) {}
}

/// A sample of any kind (HKSample subclasses), as saved by a client or read from the store.
public struct Sample: Sendable, Hashable {
    public let uuid: UUID
    /// HealthKit type identifier.
    public let type: String
    public let start: Microseconds
    public let end: Microseconds
    public let metadata: Metadata
    /// Measuring device; nil = none (the store substitutes the connection's default device).
    public let device: Device?
    /// Set by the store at save time; nil on objects not yet saved.
    public let sourceRevision: SourceRevision?
    /// Set by the store at save time.
    public let creationTime: Microseconds?
    public let body: SampleBody
    /// Set by the store on a discrete quantity series sample of more than one point (its quantity is then
    /// their average); nil on every other sample.
    public let discreteSeries: DiscreteSeriesSummary?
    /// The catalogue entry the sample was made with, so a save looks its type up by name only once.
    private let resolvedType: ResolvedType

    /// `catalogType`, when the caller already resolved `type`, is its catalogue entry (nil: looked up when asked).
    public init(uuid: UUID = UUID(), type: String, start: Microseconds, end: Microseconds,
                metadata: Metadata = [:], device: Device? = nil, sourceRevision: SourceRevision? = nil,
                creationTime: Microseconds? = nil, body: SampleBody, discreteSeries: DiscreteSeriesSummary? = nil,
                catalogType: HealthType? = nil) {
        assert(catalogType == nil || catalogType?.identifier == type, "a sample's catalogue type is the entry of its type")
        self.uuid = uuid
        self.type = type
        self.resolvedType = ResolvedType(type: catalogType)
        self.start = start
        self.end = end
        self.metadata = metadata
        self.device = device
        self.sourceRevision = sourceRevision
        self.creationTime = creationTime
        self.body = body
        self.discreteSeries = discreteSeries
    }

    /// A copy carrying the store-assigned fields.
    public func stamped(revision: SourceRevision?, device: Device?, creationTime: Microseconds?) -> Sample {
        let body: SampleBody
        if case .correlation(let children) = self.body {
            body = .correlation(children.map { $0.stamped(revision: revision, device: $0.device ?? device, creationTime: creationTime) })
        } else {
            body = self.body
        }
        return Sample(uuid: uuid, type: type, start: start, end: end, metadata: metadata, device: device,
                      sourceRevision: revision, creationTime: creationTime, body: body, discreteSeries: discreteSeries,
                      catalogType: resolvedType.type)
    }

    /// The catalogue's entry for `type`, nil for a name the catalogue does not know: the one the sample
    /// was made with, else looked up by name.
    public var catalogType: HealthType? { resolvedType.type ?? TypeCatalog.type(type) }

    /// The quantity of a quantity sample.
    public var quantity: Quantity? {
        if case .quantity(let q, _) = body { return q }
        return nil
    }

    /// The value of a category sample.
    public var categoryValue: Int64? {
        if case .category(let v) = body { return v }
        return nil
    }

    /// The workout part of a workout sample.
    public var workout: Workout? {
        if case .workout(let w) = body { return w }
        return nil
    }

    /// This workout without the associated samples `drop` picks (the routes FinishSeries attached); other samples unchanged.
    public func droppingAssociations<E: Error>(where drop: (UUID) throws(E) -> Bool) throws(E) -> Sample {
        guard let w = workout else { return self }
        var kept: [UUID] = []
        for uuid in w.associatedSampleUUIDs where !(try drop(uuid)) { kept.append(uuid) }
        guard kept.count < w.associatedSampleUUIDs.count else { return self }
        let workout = Workout(activityType: w.activityType, duration: w.duration, events: w.events, activities: w.activities,
                              statistics: w.statistics, associatedSampleUUIDs: kept)
        return Sample(uuid: uuid, type: type, start: start, end: end, metadata: metadata, device: device,
                      sourceRevision: sourceRevision, creationTime: creationTime, body: .workout(workout))
    }

    /// The number of points of a series sample (HKSeriesSample.count).
    public var seriesCount: Int64? {
        if case .series(let count) = body { return count }
        return nil
    }

    /// How many points QuerySeriesData streams for this sample: a series' points, an ECG's voltages,
    /// a quantity sample's count (a plain one is its own one point); 0 for other kinds.
    public var pointCount: Int {
        switch body {
        case .series(let count), .quantity(_, let count): Int(max(count, 1))
        case .electrocardiogram(let ecg): Int(ecg.numberOfVoltageMeasurements)
        default: 0
        }
    }

    /// The children of a correlation.
    public var correlationObjects: [Sample]? {
        if case .correlation(let c) = body { return c }
        return nil
    }

    /// The sync identifier and version when both are present (HKMetadataKeySyncIdentifier/Version).
    public var syncKey: (identifier: String, version: Int64)? {
        guard case .string(let id)? = metadata[MetadataKey.syncIdentifier] else { return nil }
        switch metadata[MetadataKey.syncVersion] {
        case .int(let v)?: return (id, v)
        case .double(let v)? where v == v.rounded(): return (id, Int64(v))
        default: return nil
        }
    }

    /// True when metadata says the user entered it (HKWasUserEntered).
    public var wasUserEntered: Bool {
        switch metadata[MetadataKey.wasUserEntered] {
        case .bool(true)?, .int(1)?: return true
        default: return false
        }
    }
}

/// What an anchored query reports for a deletion (HKDeletedObject).
public struct DeletedObject: Sendable, Hashable {
    public let uuid: UUID
    public let type: String
    /// Only the sync identifier and version survive deletion.
    public let metadata: Metadata

    public init(uuid: UUID, type: String, metadata: Metadata = [:]) {
        self.uuid = uuid
        self.type = type
        self.metadata = metadata
    }
}

/// A Gregorian calendar day.
public struct CalendarDay: Sendable, Hashable, Comparable {
    public let year: Int
    public let month: Int
    public let day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    public static func < (a: CalendarDay, b: CalendarDay) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    /// "2026-03-29".
    public var isoString: String {
        String(format: "%04d-%02d-%02d", year, month, day)
    }
}

/// The owner's characteristics (HKCharacteristicType values); nil = not set.
public struct Characteristics: Sendable, Hashable {
    /// HKBiologicalSex raw value (female 1, male 2, other 3).
    public var biologicalSex: Int32?
    /// HKBloodType raw value (1…8).
    public var bloodType: Int32?
    public var dateOfBirth: CalendarDay?
    /// HKFitzpatrickSkinType raw value (1…6).
    public var fitzpatrickSkinType: Int32?
    /// HKWheelchairUse raw value (no 1, yes 2).
    public var wheelchairUse: Int32?
    /// HKActivityMoveMode raw value (activeEnergy 1, appleMoveTime 2).
    public var activityMoveMode: Int32?

    public init(biologicalSex: Int32? = nil, bloodType: Int32? = nil, dateOfBirth: CalendarDay? = nil,
                fitzpatrickSkinType: Int32? = nil, wheelchairUse: Int32? = nil, activityMoveMode: Int32? = nil) {
        self.biologicalSex = biologicalSex
        self.bloodType = bloodType
        self.dateOfBirth = dateOfBirth
        self.fitzpatrickSkinType = fitzpatrickSkinType
        self.wheelchairUse = wheelchairUse
        self.activityMoveMode = activityMoveMode
    }

    /// Fields set in `update` replace ours; nil fields leave ours unchanged.
    public func merged(with update: Characteristics) -> Characteristics {
        Characteristics(biologicalSex: update.biologicalSex ?? biologicalSex,
                        bloodType: update.bloodType ?? bloodType,
                        dateOfBirth: update.dateOfBirth ?? dateOfBirth,
                        fitzpatrickSkinType: update.fitzpatrickSkinType ?? fitzpatrickSkinType,
                        wheelchairUse: update.wheelchairUse ?? wheelchairUse,
                        activityMoveMode: update.activityMoveMode ?? activityMoveMode)
    }
}
