/// Help screens: a usage line, a summary, and options grouped by section, wrapped to a width and
/// never truncated (a synopsis too long for its column puts its help on the next line).
public struct HelpText: Sendable {
    public var usage: [String]
    public var summary: String
    public var options: [OptionSpec]
    public var footer: String
    public var width: Int

    public init(usage: [String], summary: String, options: [OptionSpec], footer: String = "", width: Int = 100) {
        self.usage = usage
        self.summary = summary
        self.options = options
        self.footer = footer
        self.width = width
    }

    public var rendered: String {
        var lines = usage.enumerated().map { $0.offset == 0 ? "usage: \($0.element)" : "       \($0.element)" }
        if !summary.isEmpty { lines += [""] + Self.wrap(summary, width: width) }
        var sections: [String] = []
        for option in options where !sections.contains(option.section) { sections.append(option.section) }
        let column = min(32, (options.map(\.synopsis.count).max() ?? 0) + 4)
        for section in sections {
            lines += ["", section.isEmpty ? "options:" : "\(section):"]
            for option in options where option.section == section {
                var help = option.help
                if let variable = option.environment { help += " [env \(variable)]" }
                let body = Self.wrap(help, width: max(20, width - column))
                let synopsis = "  \(option.synopsis)"
                if synopsis.count + 2 <= column {
                    lines.append(synopsis.padding(toLength: column, withPad: " ", startingAt: 0) + body[0])
                    lines += body.dropFirst().map { String(repeating: " ", count: column) + $0 }
                } else {
                    lines.append(synopsis)
                    lines += body.map { String(repeating: " ", count: column) + $0 }
                }
            }
        }
        if !footer.isEmpty { lines += [""] + footer.split(separator: "\n", omittingEmptySubsequences: false).flatMap { Self.wrap(String($0), width: width) } }
        return lines.joined(separator: "\n")
    }

    /// `text` broken at spaces into lines of at most `width` characters (a longer word stands alone).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = String(word)
            } else {
                line += line.isEmpty ? String(word) : " " + word
            }
        }
        lines.append(line)
        return lines
    }
}
