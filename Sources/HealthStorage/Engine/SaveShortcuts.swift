import HealthModel

/// The interned ids one connection's saves resolved last (its source and revision, the device and
/// type of its last sample), kept with the connection: its next batch compares its values with
/// these instead of hashing them into the writer's caches. Only the writer thread touches it, and
/// only with ids already committed (see `WriteContext.afterCommit`).
public final class SaveShortcuts: @unchecked Sendable {
    var revision: (owner: Int64, source: Int64, revision: Int64)?
    var device: (owner: Int64, device: Device, id: Int64)?
    /// The catalogue entry itself: a hit needs no look-up of the type by name.
    var type: (owner: Int64, type: HealthType, id: Int64)?

    public init() {}
}
