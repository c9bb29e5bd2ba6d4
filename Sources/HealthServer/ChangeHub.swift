import HealthModel
import HealthStorage
import Synchronization

/// What changed since a long-running call last looked: per changed type, the time its changed
/// objects cover, or nil where that is not known (anywhere). No type at all: "something changed".
struct Changes: Sendable, Equatable {
    private var spans: [String: TimeSpan?] = [:]

    init() {}

    /// Types changed anywhere.
    init(types: Set<String>) {
        spans = Dictionary(uniqueKeysWithValues: types.map { ($0, nil) })
    }

    /// Types changed within their spans.
    init(spans: [String: TimeSpan]) {
        self.spans = spans.mapValues { $0 }
    }

    var types: Set<String> { Set(spans.keys) }

    /// Where `type` changed; nil when anywhere (or not at all).
    func span(of type: String) -> TimeSpan? {
        spans[type] ?? nil
    }

    /// A change known only as "anywhere" stays so whatever it merges with.
    mutating func formUnion(_ other: Changes) {
        spans.merge(other.spans) { mine, theirs in
            guard let mine, let theirs else { return nil }
            return mine.union(theirs)
        }
    }
}

/// Wakes one long-running call when something it watches changed. Changes arriving while the
/// call is busy are merged, so a slow call holds one pending set, never a growing queue.
final class ChangeSignal: Sendable {
    private struct State {
        var pending = Changes()
        var fired = false
        var cancelled = false
        var waiter: CheckedContinuation<Changes?, Never>?
    }

    private let state = Mutex(State())

    /// Records changes and wakes the waiting call.
    func fire(_ changes: Changes) {
        let wake = state.withLock { state -> (CheckedContinuation<Changes?, Never>, Changes)? in
            state.pending.formUnion(changes)
            guard let waiter = state.waiter else {
                state.fired = true
                return nil
            }
            state.waiter = nil
            defer { state.pending = Changes() }
            return (waiter, state.pending)
        }
        if let (waiter, pending) = wake { waiter.resume(returning: pending) }
    }

    /// Waits for the next change; nil once the calling task is cancelled.
    func next() async -> Changes? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Changes?, Never>) in
                let ready = state.withLock { state -> Changes?? in
                    if state.cancelled { return .some(nil) }
                    if state.fired {
                        let pending = state.pending
                        state.pending = Changes()
                        state.fired = false
                        return .some(pending)
                    }
                    state.waiter = waiter
                    return .none
                }
                if let ready { waiter.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Changes?, Never>? in
                state.cancelled = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}

/// Fans the store's change feed, and new authorization requests, out to long-running calls of the
/// owner concerned.
final class ChangeHub: Sendable {
    enum Topic: Hashable {
        /// Samples saved or deleted (types changed).
        case data
        /// New pending authorization requests.
        case authorizationRequests
        /// The owner reordered a type's sources (merged statistics change).
        case sourcePriority
    }

    private struct Key: Hashable {
        let owner: OwnerID
        let topic: Topic
    }

    private let listeners = Mutex<(lastID: Int, byKey: [Key: [Int: ChangeSignal]])>((0, [:]))

    /// Runs `body` with a signal fired by every change of `topics` for `owner`; registered before
    /// `body` starts, so nothing between an initial answer and the first wait is missed.
    func watching<T>(owner: OwnerID, _ topics: Topic..., body: (ChangeSignal) async throws -> T) async throws -> T {
        let signal = ChangeSignal()
        let keys = topics.map { Key(owner: owner, topic: $0) }
        let id = listeners.withLock { listeners -> Int in
            listeners.lastID += 1
            for key in keys { listeners.byKey[key, default: [:]][listeners.lastID] = signal }
            return listeners.lastID
        }
        defer {
            listeners.withLock { listeners in
                for key in keys {
                    listeners.byKey[key]?.removeValue(forKey: id)
                    if listeners.byKey[key]?.isEmpty == true { listeners.byKey.removeValue(forKey: key) }
                }
            }
        }
        return try await body(signal)
    }

    /// Wakes every listener of every owner with "something changed".
    func publishEverywhere() {
        let signals = listeners.withLock { $0.byKey.values.flatMap(\.values) }
        for signal in signals { signal.fire(Changes()) }
    }

    func publish(owner: OwnerID, topic: Topic, changes: Changes = Changes()) {
        let signals = listeners.withLock { Array(($0.byKey[Key(owner: owner, topic: topic)] ?? [:]).values) }
        for signal in signals { signal.fire(changes) }
    }
}
