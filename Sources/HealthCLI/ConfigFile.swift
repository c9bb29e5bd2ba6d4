import Foundation

/// A configuration file of "name = value" lines (names as the options without dashes; `#` starts
/// a comment), read into the fallback values of `ParsedArguments`.
public enum ConfigFile {
    /// The values in the file at `path`; every name must be one of `options` that takes a value.
    public static func values(at path: String, options: [OptionSpec]) throws(UsageError) -> [String: String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw UsageError("cannot read the config file \(path)", option: "config")
        }
        let accepted = Set(options.filter(\.takesValue).map(\.name))
        var values: [String: String] = [:]
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[1].isEmpty else {
                throw UsageError("\(path):\(number + 1): expected 'name = value', got '\(line)'", option: "config")
            }
            guard accepted.contains(parts[0]) else {
                let hint = Suggestion.nearest(to: parts[0], in: accepted).map { "; did you mean \($0)?" } ?? ""
                throw UsageError("\(path):\(number + 1): unknown option name '\(parts[0])'\(hint)", option: "config")
            }
            values[parts[0]] = parts[1]
        }
        return values
    }
}
