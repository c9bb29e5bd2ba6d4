import HealthModel

/// Why an export cannot be read (on) at all; element-level problems are counted in the summary instead.
public enum ImportError: Error, Sendable, Hashable, CustomStringConvertible {
    case cannotOpen(String, String)
    /// The document is not well-formed XML at this place.
    case malformed(file: String, line: Int, column: Int, message: String)
    /// An element breaks the format (a date that does not parse, a required attribute missing).
    case invalidElement(file: String, line: Int, element: String, reason: String)
    /// The export declares a format version newer than this importer knows.
    case newerVersion(found: Int, known: Int)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .malformed(let file, let line, let column, let message):
            return "\(file):\(line):\(column): malformed XML: \(message); what was read before it is stored (--skip-invalid goes on past it)"
        case .invalidElement(let file, let line, let element, let reason):
            return "\(file):\(line): invalid <\(element)>: \(reason) (--skip-invalid skips past bad elements)"
        case .newerVersion(let found, let known):
            return "this export is HealthKit export version \(found); the importer knows versions up to \(known) "
                + "(--force tries anyway)"
        }
    }

    /// The same as a HealthError for the command line's error reporting.
    public var healthError: HealthError { HealthError(.invalidArgument, description) }
}
