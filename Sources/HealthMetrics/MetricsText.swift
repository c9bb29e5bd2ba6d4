import Foundation

/// Writes metrics in the Prometheus text exposition format (version 0.0.4).
public struct MetricsText {
    public private(set) var text = ""

    public init() {}

    public enum Kind: String {
        case counter, gauge, histogram
    }

    /// Starts a metric family: its HELP and TYPE lines.
    public mutating func family(_ name: String, _ kind: Kind, _ help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(kind.rawValue)\n"
    }

    public mutating func sample(_ name: String, _ value: Int) {
        sample(name, [], value)
    }

    public mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Double) {
        text += name + Self.labelText(labels) + " " + Self.number(value) + "\n"
    }

    public mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Int) {
        text += name + Self.labelText(labels) + " \(value)\n"
    }

    /// A histogram's bucket, sum and count lines.
    public mutating func histogram(_ name: String, _ histogram: Histogram) {
        self.histogram(name, [], histogram)
    }

    public mutating func histogram(_ name: String, _ labels: [(String, String)], _ histogram: Histogram) {
        let (cumulative, sum) = histogram.snapshot()
        for (index, count) in cumulative.enumerated() {
            let bound = index < histogram.bounds.count ? Self.number(histogram.bounds[index]) : "+Inf"
            sample(name + "_bucket", labels + [("le", bound)], count)
        }
        sample(name + "_sum", labels, sum)
        sample(name + "_count", labels, cumulative.last ?? 0)
    }

    private static func labelText(_ labels: [(String, String)]) -> String {
        guard !labels.isEmpty else { return "" }
        return "{" + labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",") + "}"
    }

    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    private static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
