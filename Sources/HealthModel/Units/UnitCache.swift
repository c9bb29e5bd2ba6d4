import Synchronization

/// Parsed units by the string they were parsed from, shared by every thread.
final class UnitCache: Sendable {
    static let shared = UnitCache()

    /// Past this many distinct strings new results are not kept, so arbitrary client input cannot
    /// grow the cache without bound; parsing stays correct, only slower, for the overflow.
    static let capacity = 4096

    private let units = Mutex<[String: HealthUnit]>([:])

    func unit(for string: String) -> HealthUnit? {
        units.withLock { $0[string] }
    }

    func store(_ unit: HealthUnit, for string: String) {
        units.withLock { cache in
            if cache.count < Self.capacity { cache[string] = unit }
        }
    }
}
