import Foundation
import HealthModel

/// What every executable does with its command line before its own work: `--help`, `--version`,
/// and usage errors as one plain line with exit status 2.
public struct ToolMain: Sendable {
    public let name: String
    public let help: HelpText

    public init(name: String, help: HelpText) {
        self.name = name
        self.help = help
    }

    /// The options every tool accepts besides its own.
    public static let standardOptions: [OptionSpec] = [
        .flag("help", "show this help and exit"),
        .flag("version", "print the version and exit"),
    ]

    /// Parses `words` against `options` (plus --help and --version), handling those two and usage
    /// errors itself: it exits for them and returns the arguments otherwise.
    public func parse(_ words: [String], options: [OptionSpec],
                      environment: [String: String] = ProcessInfo.processInfo.environment) -> ParsedArguments {
        do {
            let arguments = try ParsedArguments(words, options: options + Self.standardOptions, environment: environment)
            answerStandardOptions(arguments)
            return arguments
        } catch {
            fail(error)
        }
    }

    /// Prints the help or the version and exits when `arguments` ask for either.
    public func answerStandardOptions(_ arguments: ParsedArguments) {
        if arguments.has("help") {
            print(help.rendered)
            exit(0)
        }
        if arguments.has("version") {
            print("\(name) \(HealthStoreVersion.string)")
            exit(0)
        }
    }

    /// Prints "name: message" and a pointer to --help on stderr, then exits with status 2.
    public func fail(_ error: UsageError) -> Never {
        FileHandle.standardError.write(Data("\(name): \(error.message)\nrun '\(name) --help' for the options\n".utf8))
        exit(UsageError.exitStatus)
    }
}
