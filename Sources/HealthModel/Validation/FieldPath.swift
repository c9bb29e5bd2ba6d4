/// Where in a saved object a rule is checked, so errors name the exact field
/// (e.g. "correlation.objects[1].end_time" inside the batch's object 3).
struct FieldPath: Sendable {
    let prefix: String

    static let root = FieldPath(prefix: "")

    /// The full name of `field` under this path.
    func callAsFunction(_ field: String) -> String { prefix + field }

    /// A nested path, e.g. `path.child("workout.events[2]")`.
    func child(_ name: String) -> FieldPath { FieldPath(prefix: prefix + name + ".") }

    /// An INVALID_ARGUMENT error about `field` under this path.
    func invalid(_ field: String, _ message: String) -> HealthError {
        HealthError.invalid(message, field: self(field))
    }
}
