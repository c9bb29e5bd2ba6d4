/// One option a tool accepts: a valued option (`--name VALUE`, `--name=VALUE`) or a boolean flag.
public struct OptionSpec: Sendable {
    /// The name without dashes, e.g. "duration".
    public let name: String
    /// The placeholder shown in help (e.g. "DURATION"); nil for a boolean flag.
    public let valueName: String?
    public let help: String
    /// An environment variable that supplies the value when the option is not given.
    public let environment: String?
    /// Help section the option is listed under ("" = the tool's own options).
    public let section: String

    /// A valued option.
    public static func value(_ name: String, _ valueName: String, _ help: String, environment: String? = nil,
                             section: String = "") -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, environment: environment, section: section)
    }

    /// A boolean flag.
    public static func flag(_ name: String, _ help: String, section: String = "") -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help, environment: nil, section: section)
    }

    public var takesValue: Bool { valueName != nil }

    /// `--name VALUE` or `--name`, as help shows it.
    var synopsis: String { valueName.map { "--\(name) \($0)" } ?? "--\(name)" }

    /// The same option listed under another help section.
    public func inSection(_ section: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, environment: environment, section: section)
    }
}
