import Foundation
import HealthModel

/// A command line split into positionals, valued options (`--name V` or `--name=V`, repeatable)
/// and boolean flags, checked against what the command accepts.
struct Arguments: Sendable {
    private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Parses `words`; `valued` and `flags` name the accepted options without their dashes.
    init(_ words: [String], valued: Set<String>, flags acceptedFlags: Set<String>) throws(HealthError) {
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            guard word.hasPrefix("--"), word.count > 2 else {
                positionals.append(word)
                continue
            }
            var name = String(word.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if acceptedFlags.contains(name) {
                guard inline == nil else { throw HealthError.invalid("--\(name) takes no value", field: name) }
                flags.insert(name)
            } else if valued.contains(name) {
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard index < words.count else { throw HealthError.invalid("--\(name) needs a value", field: name) }
                    value = words[index]
                    index += 1
                }
                values[name, default: []].append(value)
            } else {
                let hint = closest(to: name, in: valued.union(acceptedFlags)).map { "; did you mean --\($0)?" } ?? ""
                throw HealthError.invalid("unknown option --\(name)\(hint)", field: name)
            }
        }
    }

    /// The last value given for `name`.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value given for `name`, comma-separated lists split.
    func list(_ name: String) -> [String] {
        (values[name] ?? []).flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            .filter { !$0.isEmpty }
    }

    /// The value of a required option.
    func required(_ name: String) throws(HealthError) -> String {
        guard let value = value(name) else { throw HealthError.invalid("--\(name) is required", field: name) }
        return value
    }

    /// True when the flag was given.
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// Exactly `names.count` positionals, named in the error when missing or extra.
    func positionals(_ names: String...) throws(HealthError) -> [String] {
        guard positionals.count == names.count else {
            let expected = names.isEmpty ? "no arguments" : names.joined(separator: " ")
            throw HealthError.invalid("expected \(expected), got \(positionals.isEmpty ? "nothing" : positionals.joined(separator: " "))",
                                      field: "arguments")
        }
        return positionals
    }
}

/// The candidate nearest to `word` by edit distance, when it is plausibly a typo.
func closest(to word: String, in candidates: some Sequence<String>) -> String? {
    let scored = candidates.map { ($0, editDistance(word.lowercased(), $0.lowercased())) }
    guard let best = scored.min(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }) else { return nil }
    return best.1 <= max(2, word.count / 3) ? best.0 : nil
}

/// Levenshtein distance.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    var previous = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...max(b.count, 1) where !b.isEmpty {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return a.isEmpty ? b.count : previous[b.count]
}
