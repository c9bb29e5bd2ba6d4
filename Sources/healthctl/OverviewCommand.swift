import HealthClient
import HealthModel
import HealthWire

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
            let range = try BrowseCommands.dateRange(inv.arguments, try inv.timeParser())
            let connection = try await inv.connect()
            var counts = Counts()
            for type in types {
                // Page by page, so counting a large store never holds all of it.
                for try await answer in connection.stream(.querySamples(SampleQuery(types: [type], predicate: range))) {
                    guard case .samples(let page) = answer else { continue }
                    counts.add(page)
                }
            }
            inv.print(counts.report())
        }
    }

    /// Sample counts by type, source and device.
    struct Counts {
        var byType: [String: Int] = [:]
        var bySource: [String: Int] = [:]
        var byDevice: [String: Int] = [:]

        mutating func add(_ samples: [Sample]) {
            for sample in samples {
                byType[shortName(sample.type), default: 0] += 1
                bySource[sample.sourceRevision?.source.bundleID ?? "(unknown)", default: 0] += 1
                let device = deviceLabel(sample.device)
                byDevice[device.isEmpty ? "(none)" : device, default: 0] += 1
            }
        }

        func report() -> Report {
            func rows(_ kind: String, _ counts: [String: Int]) -> [[String]] {
                counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { [kind, $0.key, String($0.value)] }
            }
            let all = rows("type", byType) + rows("source", bySource) + rows("device", byDevice)
            let total = byType.values.reduce(0, +)
            return Report(table: Table(columns: ["BY", "NAME", "SAMPLES"], rows: all),
                          footer: ["", "\(total) samples in \(byType.count) types from \(bySource.count) sources and \(byDevice.count) devices"])
        }
    }
}
