import HealthClient
import HealthModel

/// `overview` (alias `count`): how many samples are stored per type, per source and per device.
enum OverviewCommand {
    static let all: [Command] = ["overview", "count"].map { word in
        Command([word], usage: "\(word) [--type T ...] [--since T] [--until T]",
                summary: "sample counts per type, per source and per device",
                options: [("type T", "only these types (default: every sample type)")] + BrowseCommands.rangeOptions) { inv in
            _ = try inv.arguments.positionals()
            let names = inv.arguments.list("type")
            let types = try names.isEmpty
                ? TypeCatalog.all.filter(\.isSampleType).map(\.identifier)
                : names.map { name throws(HealthError) in try TypeCatalog.resolve(name).identifier }
            let range = try BrowseCommands.dateRange(inv.arguments, inv.timeParser())
            // One call: the server counts, so a store of any size costs one small answer.
            let counts = try await inv.connect().countSamples(types: types, predicate: range)
            inv.print(Counts(counts).report())
        }
    }

    /// Sample counts by type, source and device.
    struct Counts {
        var byType: [String: UInt64] = [:]
        var bySource: [String: UInt64] = [:]
        var byDevice: [String: UInt64] = [:]

        init(_ counts: [SampleCount]) {
            for entry in counts {
                byType[shortName(entry.type), default: 0] += entry.count
                bySource[entry.source.bundleID, default: 0] += entry.count
                let device = deviceLabel(entry.device)
                byDevice[device.isEmpty ? "(none)" : device, default: 0] += entry.count
            }
        }

        func report() -> Report {
            func rows(_ kind: String, _ counts: [String: UInt64]) -> [[String]] {
                counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { [kind, $0.key, String($0.value)] }
            }
            let all = rows("type", byType) + rows("source", bySource) + rows("device", byDevice)
            let total = byType.values.reduce(0, +)
            return Report(table: Table(columns: ["BY", "NAME", "SAMPLES"], rows: all),
                          footer: ["", "\(total) samples in \(byType.count) types from \(bySource.count) sources and \(byDevice.count) devices"])
        }
    }
}
