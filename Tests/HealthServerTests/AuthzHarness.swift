import Foundation
import HealthModel
import HealthWire
import XCTest

/// Type identifiers, a fixed day and sample builders for the permission tests.
enum Authz {
    static let heartRate = "HKQuantityTypeIdentifierHeartRate"
    static let steps = "HKQuantityTypeIdentifierStepCount"
    static let bodyMass = "HKQuantityTypeIdentifierBodyMass"
    static let systolic = "HKQuantityTypeIdentifierBloodPressureSystolic"
    static let diastolic = "HKQuantityTypeIdentifierBloodPressureDiastolic"
    static let bloodPressure = "HKCorrelationTypeIdentifierBloodPressure"
    static let activeEnergy = "HKQuantityTypeIdentifierActiveEnergyBurned"
    static let exerciseTime = "HKQuantityTypeIdentifierAppleExerciseTime"
    static let standHour = "HKCategoryTypeIdentifierAppleStandHour"
    static let biologicalSex = "HKCharacteristicTypeIdentifierBiologicalSex"
    static let characteristicTypes = [
        "HKCharacteristicTypeIdentifierBiologicalSex", "HKCharacteristicTypeIdentifierBloodType",
        "HKCharacteristicTypeIdentifierDateOfBirth", "HKCharacteristicTypeIdentifierFitzpatrickSkinType",
        "HKCharacteristicTypeIdentifierWheelchairUse", "HKCharacteristicTypeIdentifierActivityMoveMode",
    ]
    static let storedCharacteristics = Characteristics(biologicalSex: 1, bloodType: 2, dateOfBirth: CalendarDay(year: 1980, month: 5, day: 17),
                                                       fitzpatrickSkinType: 3, wheelchairUse: 1, activityMoveMode: 1)

    static let minute: Int64 = 60 * Time.microsPerSecond
    static let hour = 60 * minute
    static let dayLength = 24 * hour
    /// Midnight UTC starting yesterday: every sample lies between 01:00 and 12:00 of that day.
    static let midnight: Microseconds = (Time.now() / dayLength - 1) * dayLength
    static let day: CalendarDay = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: Time.date(midnight))
        return CalendarDay(year: parts.year!, month: parts.month!, day: parts.day!)
    }()

    /// A quantity sample starting `minutes` after 01:00 of `day`, lasting one minute.
    static func quantity(_ type: String, _ value: Double, _ unit: String, at minutes: Int64, uuid: UUID = UUID(),
                         device: Device? = nil) -> Sample {
        let start = midnight + hour + minutes * minute
        return Sample(uuid: uuid, type: type, start: start, end: start + minute, device: device, body: .quantity(Quantity(value, unit), count: 1))
    }

    /// A blood-pressure correlation holding the given readings (either may be left out).
    static func bloodPressure(systolic: (UUID, Double)?, diastolic: (UUID, Double)?, at minutes: Int64, uuid: UUID = UUID()) -> Sample {
        var children: [Sample] = []
        if let (id, value) = systolic { children.append(quantity(Authz.systolic, value, "mmHg", at: minutes, uuid: id)) }
        if let (id, value) = diastolic { children.append(quantity(Authz.diastolic, value, "mmHg", at: minutes, uuid: id)) }
        let start = midnight + hour + minutes * minute
        return Sample(uuid: uuid, type: bloodPressure, start: start, end: start + minute, body: .correlation(children))
    }

    /// One stood hour starting `minutes` after 01:00.
    static func stoodHour(at minutes: Int64) -> Sample {
        let start = midnight + hour + minutes * minute
        return Sample(type: standHour, start: start, end: start + hour, body: .category(0))
    }

    static func uuids(_ results: [ServerResult]) -> Set<UUID> {
        Set(Fixtures.samples(of: results).map(\.uuid))
    }

    /// An error's text with every UUID replaced, so errors about different objects compare equal.
    static func withoutUUIDs(_ result: ServerResult?) -> ServerResult? {
        guard case .error(let error)? = result else { return result }
        let pattern = try! NSRegularExpression(pattern: "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
        let text = pattern.stringByReplacingMatches(in: error.message, range: NSRange(error.message.startIndex..., in: error.message),
                                                    withTemplate: "<uuid>")
        return .error(HealthError(error.code, text, objectIndex: error.objectIndex, field: error.field))
    }

    /// A message re-encoded with what legitimately differs between two stores blanked out: the call
    /// id, anchors (positions in each owner's own sequence) and creation times.
    static func normalisedBytes(_ message: ServerMessage) -> [UInt8] {
        func blank(_ sample: Sample) -> Sample {
            var body = sample.body
            if case .correlation(let children) = body { body = .correlation(children.map(blank)) }
            return Sample(uuid: sample.uuid, type: sample.type, start: sample.start, end: sample.end, metadata: sample.metadata,
                          device: sample.device, sourceRevision: sample.sourceRevision, creationTime: 0, body: body)
        }
        let result: ServerResult = switch message.result {
        case .samples(let samples): .samples(samples.map(blank))
        case .correlations(let samples): .correlations(samples.map(blank))
        case .anchored(let samples, let deleted, _, let initial, let complete, _):
            .anchored(samples: SampleTable(samples.map(blank)), deleted: deleted, newAnchor: Data(), initial: initial, initialComplete: complete)
        default: message.result
        }
        return WireCodec.encodeServerMessage(ServerMessage(callID: 0, more: message.more, result: result))
    }
}

extension RawClient {
    /// True when an answer is waiting to be read (checked without blocking).
    var hasInput: Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }

    /// A connection that said Hello with `token` (and a default device); throws when refused.
    static func session(_ server: ServerProcess, token: String, device: Device? = nil) throws -> RawClient {
        let client = try RawClient(port: server.port)
        let revision = SourceRevision(source: Source(name: "", bundleID: ""), version: "2.0", productType: "Test1,1",
                                      osMajor: 1, osMinor: 2, osPatch: 3)
        guard case .hello? = client.call(.hello(Hello(token: token, sourceRevision: revision, defaultDevice: device))) else {
            throw TestFailure("Hello refused")
        }
        return client
    }

    /// Every answer of one call.
    func results(_ call: ClientCall) -> [ServerResult] {
        collect(submit(call))
    }

    /// Every message of one call, up to its final one.
    func messages(_ callID: UInt64) -> [ServerMessage] {
        var messages: [ServerMessage] = []
        while let message = receive(callID: callID) {
            messages.append(message)
            if !message.more { break }
        }
        return messages
    }

    /// Registers an app (owner connection) and returns its token.
    func registerApp(_ bundleID: String) throws -> String {
        guard case .appCredential(_, let token)? = call(.registerApp(bundleID: bundleID, name: bundleID)) else {
            throw TestFailure("RegisterApp \(bundleID) failed")
        }
        return token
    }

    /// Records the owner's decision for every type in one direction.
    func decide(_ bundleID: String, _ types: [String], _ direction: AccessDirection, grant: Bool) throws {
        let decisions = types.map { AuthorizationDecision(type: $0, direction: direction, grant: grant) }
        guard call(.decideAuthorization(bundleID: bundleID, decisions: decisions)) == .decideAuthorization(recorded: UInt32(types.count)) else {
            throw TestFailure("DecideAuthorization for \(bundleID) failed")
        }
    }

    /// Saves and throws unless every object was stored.
    func save(_ samples: [Sample]) throws {
        let answer = call(.saveObjects(samples))
        guard answer == .saveObjects(Array(repeating: .stored, count: samples.count)) else {
            throw TestFailure("save failed: \(String(describing: answer))")
        }
    }

    /// Adds an owner (operator connection) and returns its token.
    func addOwner(_ name: String) throws -> String {
        guard case .ownerCredential(_, let token)? = call(.addOwner(name: name)) else { throw TestFailure("AddOwner failed") }
        return token
    }
}
