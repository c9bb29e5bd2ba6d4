/// A command line checked against the options a tool accepts: positionals, values (repeatable,
/// `--name VALUE` or `--name=VALUE`, environment as fallback) and flags. `--` ends the options.
public struct ParsedArguments: Sendable {
    public private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    private let specs: [String: OptionSpec]
    private let environment: [String: String]
    private let fallback: [String: String]

    /// Parses `words`; an unknown option gets the nearest accepted name as a suggestion. A value
    /// comes from the words, else the option's environment variable, else `fallback` (a config file).
    public init(_ words: [String], options: [OptionSpec], environment: [String: String] = [:],
                fallback: [String: String] = [:]) throws(UsageError) {
        specs = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.environment = environment
        self.fallback = fallback
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            if word == "--" {
                positionals += words[index...]
                break
            }
            guard word.hasPrefix("--"), word.count > 2 else {
                if word == "-h" {
                    flags.insert("help")
                } else if word.hasPrefix("-"), word.count > 1, Double(word) == nil, !Self.isRelativeTime(word) {
                    let name = String(word.drop(while: { $0 == "-" }))
                    throw UsageError("unknown option '\(word)'\(Self.hint(name, specs.keys))", option: name)
                } else {
                    positionals.append(word)
                }
                continue
            }
            var name = String(word.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let spec = specs[name] else {
                throw UsageError("unknown option --\(name)\(Self.hint(name, specs.keys))", option: name)
            }
            if spec.takesValue {
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard index < words.count, !(words[index].hasPrefix("--") && words[index].count > 2) else {
                        throw UsageError("--\(name) needs a value (\(spec.valueName!))", option: name)
                    }
                    value = words[index]
                    index += 1
                }
                values[name, default: []].append(value)
            } else {
                guard inline == nil else { throw UsageError("--\(name) takes no value", option: name) }
                flags.insert(name)
            }
        }
    }

    /// The last value given for `name`, else its environment variable, else the fallback.
    public func value(_ name: String) -> String? {
        if let given = values[name]?.last { return given }
        if let variable = specs[name]?.environment, let text = environment[variable], !text.isEmpty { return text }
        return fallback[name]
    }

    /// Every value given for `name`, comma-separated lists split.
    public func list(_ name: String) -> [String] {
        let given = values[name] ?? value(name).map { [$0] } ?? []
        return given.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
    }

    /// True when `--name` was given explicitly (values or flags).
    public func given(_ name: String) -> Bool { values[name] != nil || flags.contains(name) }

    /// True when the flag was given.
    public func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// The value of a required option.
    public func required(_ name: String) throws(UsageError) -> String {
        guard let value = value(name) else { throw UsageError("--\(name) is required", option: name) }
        return value
    }

    /// Exactly `names.count` positionals, named in the error when missing or extra.
    public func positionals(_ names: String...) throws(UsageError) -> [String] {
        guard positionals.count == names.count else {
            let expected = names.isEmpty ? "no arguments" : names.joined(separator: " ")
            let got = positionals.isEmpty ? "nothing" : positionals.joined(separator: " ")
            throw UsageError("expected \(expected), got \(got)")
        }
        return positionals
    }

    /// `--name`'s value read through `grammar`, which names the option in its error.
    public func parse<T>(_ name: String, _ grammar: (String) throws(UsageError) -> T) throws(UsageError) -> T? {
        guard let text = value(name) else { return nil }
        do {
            return try grammar(text)
        } catch {
            throw UsageError.value(name, error.message)
        }
    }

    private static func isRelativeTime(_ word: String) -> Bool {
        word.wholeMatch(of: /-\d+(ms|s|m|h|d|w|mo|y)/) != nil
    }

    private static func hint(_ name: String, _ candidates: some Sequence<String>) -> String {
        Suggestion.nearest(to: name, in: candidates).map { "; did you mean --\($0)?" } ?? " (see --help)"
    }
}
