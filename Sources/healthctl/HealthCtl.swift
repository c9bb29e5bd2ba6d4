import Foundation
import HealthClient
import HealthModel

/// Finds the command for a command line and runs it.
enum HealthCtl {
    static let commands: [Command] = AppCommands.all + OwnerCommands.all + AuthzCommands.all + BrowseCommands.all
        + StatsCommands.all + [CharacteristicsCommand.command] + OverviewCommand.all + ImportExportCommands.all

    /// Runs `words`; returns the exit status.
    static func run(_ words: [String], output: @escaping @Sendable (String) -> Void,
                    errors: @Sendable (String) -> Void,
                    connect: (@Sendable (Arguments) async throws -> HealthConnection)? = nil) async -> Int32 {
        let words = globalOptionsLast(words)
        guard let (command, rest) = find(words) else {
            if words.isEmpty || words == ["help"] || words.first == "--help" || words.first == "-h" {
                output(overview)
                return 0
            }
            if let group = groupHelp(words.first) {
                let asked = words.count == 2 && (words[1] == "--help" || words[1] == "-h")
                if asked { output(group) } else { errors(group) }
                return asked ? 0 : 2
            }
            errors("healthctl: unknown command '\(words.prefix(2).joined(separator: " "))'\(suggestion(words))\n\n\(overview)")
            return 2
        }
        if rest.contains("--help") || rest.contains("-h") {
            output(command.help)
            return 0
        }
        let invocation: Invocation
        do {
            let arguments = try Arguments(rest, valued: command.valuedNames, flags: command.flagNames)
            invocation = try Invocation(arguments: arguments, output: output, connect: connect)
        } catch {
            errors("healthctl \(command.words.joined(separator: " ")): \(error.message)\n\(command.help)")
            return 2
        }
        do {
            try await command.run(invocation)
            return 0
        } catch let error as HealthError {
            errors("healthctl: \(error)")
            return error.code == .invalidArgument && error.field != nil && error.objectIndex == nil ? 2 : 1
        } catch {
            errors("healthctl: \(error)")
            return 1
        }
    }

    /// Global options valid before the command (`healthctl --server H:P samples …`).
    static let globalValued: Set<String> = Set(GlobalOptions.help.map { "--" + $0.0.split(separator: " ")[0] })
    static let globalFlags: Set<String> = Set(GlobalOptions.flags.map { "--" + $0.0 })

    /// `words` with any global options that precede the command moved after it, so both
    /// `healthctl --server X samples` and `healthctl samples --server X` work.
    static func globalOptionsLast(_ words: [String]) -> [String] {
        var leading: [String] = []
        var index = words.startIndex
        while index < words.endIndex, globalValued.contains(words[index]) || globalFlags.contains(words[index]) {
            let width = globalFlags.contains(words[index]) ? 1 : 2
            leading.append(contentsOf: words[index..<min(index + width, words.endIndex)])
            index += width
        }
        return Array(words[min(index, words.endIndex)...]) + leading
    }

    /// The command whose words start the line (longest match), and the remaining words.
    static func find(_ words: [String]) -> (Command, [String])? {
        let matches = commands.filter { words.starts(with: $0.words) }
        guard let best = matches.max(by: { $0.words.count < $1.words.count }) else { return nil }
        return (best, Array(words.dropFirst(best.words.count)))
    }

    /// The subcommands of a group word like "apps", nil when `word` starts no command.
    static func groupHelp(_ word: String?) -> String? {
        let members = commands.filter { $0.words.count > 1 && $0.words.first == word }
        guard let word, !members.isEmpty else { return nil }
        return (["usage: healthctl \(word) SUBCOMMAND [options]", ""]
            + members.map { "  healthctl \($0.usage)\n      \($0.summary)" }).joined(separator: "\n")
    }

    private static func suggestion(_ words: [String]) -> String {
        guard let first = words.first else { return "" }
        return closest(to: first, in: Set(commands.map { $0.words[0] })).map { "; did you mean '\($0)'?" } ?? ""
    }

    static var overview: String {
        let width = commands.map(\.usage.count).max() ?? 0
        return (["usage: healthctl COMMAND [options]   (healthctl COMMAND --help for details)", "", "commands:"]
            + commands.map { "  \($0.usage.padding(toLength: min(width, 60), withPad: " ", startingAt: 0))  \($0.summary)" }
            + ["", "global options:"]
            + GlobalOptions.all.map { "  --\($0.0.padding(toLength: 24, withPad: " ", startingAt: 0)) \($0.1)" })
            .joined(separator: "\n")
    }
}
