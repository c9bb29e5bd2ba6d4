import HealthModel

/// The app a device saves through (HKSourceRevision + its HKSource), as written in profile JSON.
public struct SourceSpec: Codable, Sendable, Hashable {
    public var bundleID: String
    public var name: String
    public var version: String
    /// Hardware model of the host running the app, e.g. "Watch7,1" or "iPhone16,2".
    public var productType: String
    /// "major.minor.patch" of the host OS.
    public var osVersion: String

    public init(bundleID: String, name: String, version: String, productType: String, osVersion: String) {
        self.bundleID = bundleID
        self.name = name
        self.version = version
        self.productType = productType
        self.osVersion = osVersion
    }

    /// The model value sent in Hello.
    public var revision: SourceRevision {
        let parts = osVersion.split(separator: ".").map { Int($0) ?? 0 } + [0, 0, 0]
        return SourceRevision(source: Source(name: name, bundleID: bundleID), version: version,
                              productType: productType, osMajor: parts[0], osMinor: parts[1], osPatch: parts[2])
    }
}

/// The hardware that measures (HKDevice), as written in profile JSON.
public struct DeviceSpec: Codable, Sendable, Hashable {
    public var name: String
    public var manufacturer: String
    public var model: String
    public var hardwareVersion: String?
    public var firmwareVersion: String?
    public var softwareVersion: String?
    public var localIdentifier: String
    /// FDA UDI device identifier, for devices that have one (medical devices: cuff, thermometer, scale).
    public var udiDeviceIdentifier: String?

    public init(name: String, manufacturer: String, model: String, hardwareVersion: String? = nil,
                firmwareVersion: String? = nil, softwareVersion: String? = nil, localIdentifier: String,
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

    /// The model value stamped on samples.
    public var device: Device {
        Device(name: name, manufacturer: manufacturer, model: model, hardwareVersion: hardwareVersion,
               firmwareVersion: firmwareVersion, softwareVersion: softwareVersion,
               localIdentifier: localIdentifier, udiDeviceIdentifier: udiDeviceIdentifier)
    }
}

/// One simulated device: who wears it, which app saves its data, what it is and what it records.
public struct DeviceProfile: Codable, Sendable, Hashable {
    /// Short unique key within a fleet, e.g. "watch".
    public var id: String
    /// The person (PersonProfile.id) wearing or using it.
    public var person: String
    public var source: SourceSpec
    public var device: DeviceSpec
    /// Id of the device whose app relays this peripheral's readings (e.g. "phone"), if any.
    public var relayedBy: String?
    /// Chance the person carries it on a walk (phones); 1 = always worn.
    public var carryProbability: Double?
    /// Types the app asks to read besides those it writes.
    public var reads: [String]?
    public var signals: [SignalSpec]

    public init(id: String, person: String, source: SourceSpec, device: DeviceSpec, relayedBy: String? = nil,
                carryProbability: Double? = nil, reads: [String]? = nil, signals: [SignalSpec]) {
        self.id = id
        self.person = person
        self.source = source
        self.device = device
        self.relayedBy = relayedBy
        self.carryProbability = carryProbability
        self.reads = reads
        self.signals = signals
    }

    /// Every type the device saves, in a stable order without repeats.
    public var shareTypes: [String] {
        var seen = Set<String>()
        return signals.flatMap(\.kind.writtenTypes).filter { seen.insert($0).inserted }
    }

    /// Every type the device asks to read.
    public var readTypes: [String] { reads ?? [] }

    /// The spec of one signal, if the device records it.
    public func signal(_ kind: SignalKind) -> SignalSpec? {
        signals.first { $0.kind == kind }
    }
}

/// The physiology and habits that drive every signal of one person.
public struct PersonProfile: Codable, Sendable, Hashable {
    public var id: String
    /// IANA time zone the person lives in; days, sleep and habits follow it.
    public var timeZone: String
    public var restingHeartRate: Double
    public var maxHeartRate: Double
    public var weightKg: Double
    /// Fraction 0…1.
    public var bodyFat: Double
    public var strideMeters: Double
    /// Local hour (fractional) the person goes to bed and wakes.
    public var bedtimeHour: Double
    public var wakeHour: Double
    /// Typical morning systolic/diastolic pressure in mmHg.
    public var systolic: Double
    public var diastolic: Double
    /// Chance of a workout on a given day.
    public var workoutProbability: Double

    public init(id: String, timeZone: String, restingHeartRate: Double, maxHeartRate: Double, weightKg: Double,
                bodyFat: Double, strideMeters: Double, bedtimeHour: Double, wakeHour: Double,
                systolic: Double, diastolic: Double, workoutProbability: Double) {
        self.id = id
        self.timeZone = timeZone
        self.restingHeartRate = restingHeartRate
        self.maxHeartRate = maxHeartRate
        self.weightKg = weightKg
        self.bodyFat = bodyFat
        self.strideMeters = strideMeters
        self.bedtimeHour = bedtimeHour
        self.wakeHour = wakeHour
        self.systolic = systolic
        self.diastolic = diastolic
        self.workoutProbability = workoutProbability
    }
}

/// People and the devices they use: what a run simulates.
public struct FleetProfile: Codable, Sendable, Hashable {
    public var people: [PersonProfile]
    public var devices: [DeviceProfile]

    public init(people: [PersonProfile], devices: [DeviceProfile]) {
        self.people = people
        self.devices = devices
    }

    /// The person a device belongs to.
    public func person(for device: DeviceProfile) -> PersonProfile? {
        people.first { $0.id == device.person }
    }
}
