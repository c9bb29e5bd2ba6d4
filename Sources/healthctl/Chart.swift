import Foundation

/// Terminal charts for a series of values (a statistics collection).
enum Chart {
    private static let ticks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// One character per value, scaled from the smallest to the largest; gaps for nil.
    static func sparkline(_ values: [Double?]) -> String {
        let present = values.compactMap { $0 }
        guard let low = present.min(), let high = present.max() else { return "" }
        return String(values.map { value -> Character in
            guard let value else { return " " }
            guard high > low else { return ticks[ticks.count / 2] }
            return ticks[Int(((value - low) / (high - low) * Double(ticks.count - 1)).rounded())]
        })
    }

    /// One labelled horizontal bar per value, scaled so the largest fills `width`.
    static func bars(_ items: [(label: String, value: Double?)], width: Int = 40) -> [String] {
        let high = items.compactMap(\.value).map(abs).max() ?? 0
        let labelWidth = items.map(\.label.count).max() ?? 0
        return items.map { item in
            let label = item.label.padding(toLength: labelWidth, withPad: " ", startingAt: 0)
            guard let value = item.value else { return "\(label) │" }
            let length = high > 0 ? Int((abs(value) / high * Double(width)).rounded()) : 0
            return "\(label) │\(String(repeating: "█", count: length)) \(formatNumber(value))"
        }
    }
}

/// A number for people: integers without a fraction, others to at most 3 decimals.
func formatNumber(_ value: Double) -> String {
    if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
    var text = String(format: "%.3f", value)
    while text.hasSuffix("0") { text.removeLast() }
    return text
}
