import Foundation
import HealthModel

/// The people-facing columns of samples.
enum SampleTable {
    static let columns = ["START", "END", "TYPE", "VALUE", "UNIT", "SOURCE", "DEVICE", "UUID"]

    /// A correlation shows its readings' values and units in the same order ("120/80", "mmHg");
    /// a workout its activity type; a route or heartbeat series how many points it holds.
    static func row(_ s: Sample, zone: TimeZone? = nil) -> [String] {
        let (value, unit): (String, String) = switch s.body {
        case .quantity(let q, _): (formatNumber(q.value), q.unit)
        case .category(let v): (String(v), "")
        case .correlation(let objects):
            (objects.compactMap { $0.quantity.map { formatNumber($0.value) } }.joined(separator: "/"), sharedUnit(objects))
        case .workout(let w): ("activity \(w.activityType)", "")
        case .electrocardiogram, .audiogram, .stateOfMind, .scoredAssessment: KindCells.cells(s)
        case .series(let count): (String(count), s.type == TypeCatalog.heartbeatSeriesType.identifier ? "beats" : "locations")
        }
        return [Time.iso8601(s.start, in: zone), Time.iso8601(s.end, in: zone), shortName(s.type), value, unit,
                s.sourceRevision?.source.bundleID ?? "", deviceLabel(s.device), s.uuid.uuidString]
    }

    static func report(_ samples: [Sample], zone: TimeZone? = nil) -> Report {
        Report(table: Table(columns: columns, rows: samples.map { row($0, zone: zone) }),
               json: .array(samples.map { SampleJSON.sample($0, zone: zone) }))
    }

    /// The readings' unit when they share one ("mmHg"), else each reading's unit ("mg/dL/kcal").
    private static func sharedUnit(_ objects: [Sample]) -> String {
        let units = objects.compactMap { $0.quantity?.unit }
        return Set(units).count == 1 ? units[0] : units.joined(separator: "/")
    }
}

/// A short label for a device: its name, else model, else manufacturer.
func deviceLabel(_ device: Device?) -> String {
    device?.name ?? device?.model ?? device?.manufacturer ?? ""
}

/// "HeartRate" for "HKQuantityTypeIdentifierHeartRate"; unknown identifiers unchanged.
func shortName(_ identifier: String) -> String {
    TypeCatalog.type(identifier)?.shortName ?? identifier
}
