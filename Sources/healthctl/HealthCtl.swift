import Foundation
import HealthCLI
import HealthClient
import HealthModel

/// Finds the command for a command line and runs it.
enum HealthCtl {
    static let commands: [Command] = AppCommands.all + OwnerCommands.all + AuthzCommands.all + BrowseCommands.all
        + StatsCommands.all + [CharacteristicsCommand.command] + OverviewCommand.all + ImportExportCommands.all

    /// Runs `words`; returns the exit status: 0 done, 1 the operation failed, 2 bad usage.
    static func run(_ words: [String], output: @escaping @Sendable (String) -> Void,
                    errors: @Sendable (String) -> Void,
                    environment: [String: String] = ProcessInfo.processInfo.environment,
                    connect: (@Sendable (ParsedArguments) async throws -> any HealthCalling)? = nil) async -> Int32 {
        let words = globalOptionsLast(words)
        guard let (command, rest) = find(words) else {
            if words.isEmpty || words == ["help"] || words.first == "--help" || words.first == "-h" {
                output(overview)
                return 0
            }
            if words.first == "--version" {
                output("healthctl \(HealthStoreVersion.string)")
                return 0
            }
            if let group = groupHelp(words.first) {
                let asked = words.count == 2 && (words[1] == "--help" || words[1] == "-h")
                if asked { output(group) } else { errors(group) }
                return asked ? 0 : 2
            }
            errors("healthctl: unknown command '\(words.prefix(2).joined(separator: " "))'\(suggestion(words))\n"
                + "run 'healthctl --help' for the commands")
            return 2
        }
        let name = "healthctl \(command.words.joined(separator: " "))"
        do {
            let arguments = try ParsedArguments(rest, options: command.specs, environment: environment)
            if arguments.has("help") {
                output(command.help)
                return 0
            }
            try await command.run(try Invocation(arguments: arguments, output: output, connect: connect))
            return 0
        } catch let error as UsageError {
            errors("\(name): \(error.message)\nrun '\(name) --help' for the options")
            return UsageError.exitStatus
        } catch let error as HealthError {
            errors("\(name): \(error.plainDescription)")
            return 1
        } catch {
            errors("\(name): \(error)")
            return 1
        }
    }

    /// `words` with any global options that precede the command moved after it, so both
    /// `healthctl --server X samples` and `healthctl samples --server X` work (and `--server=X`).
    static func globalOptionsLast(_ words: [String]) -> [String] {
        let global = Dictionary(GlobalOptions.specs.map { ("--" + $0.name, $0.takesValue) }, uniquingKeysWith: { a, _ in a })
        var leading: [String] = []
        var index = words.startIndex
        while index < words.endIndex {
            let name = String(words[index].prefix { $0 != "=" })
            guard name != "--help", let takesValue = global[name] else { break }
            let width = takesValue && !words[index].contains("=") ? 2 : 1
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
        return Suggestion.nearest(to: first, in: Set(commands.map { $0.words[0] })).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// Every command with its summary (a usage too long for the column puts the summary on the
    /// next line; nothing is cut), then the global options.
    static var overview: String {
        let column = 44
        var lines = ["usage: healthctl COMMAND [options]   (healthctl COMMAND --help for details)", "", "commands:"]
        for command in commands {
            let usage = "  " + command.usage
            if usage.count + 2 <= column {
                lines.append(usage.padding(toLength: column, withPad: " ", startingAt: 0) + command.summary)
            } else {
                lines += [usage, String(repeating: " ", count: column) + command.summary]
            }
        }
        let global = HelpText(usage: [], summary: "", options: GlobalOptions.specs).rendered
        return (lines + [global]).joined(separator: "\n")
    }
}
