import Synchronization

/// A counter or gauge that any thread may change without a lock.
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    public init() {}

    public func add(_ amount: Int = 1) {
        value.wrappingAdd(amount, ordering: .relaxed)
    }

    public func subtract(_ amount: Int = 1) {
        value.wrappingSubtract(amount, ordering: .relaxed)
    }

    public var current: Int { value.load(ordering: .relaxed) }
}
