import HealthModel
import HealthStorage
import Synchronization

/// Each app's recorded permission states, cached. Every change goes through `record`, which
/// writes the store first and then drops the cached copy; a generation counter keeps a read that
/// raced with a change from caching stale states.
final class PermissionBook: Sendable {
    /// State per type and direction; a missing entry means never requested.
    typealias States = [String: [AccessDirection: PermissionState]]

    private struct Key: Hashable {
        let owner: OwnerID
        let bundleID: String
    }

    private let store: any Store
    private let cache = Mutex<(states: [Key: States], generation: UInt64)>(([:], 0))

    init(store: any Store) {
        self.store = store
    }

    /// An app's cached states as read at one generation of the book, and a type they were found to let
    /// the app share. Every change of a cached state moves the generation, so while it holds both still
    /// hold: a connection's next save needs no look-up of its app's states, nor of its type in them.
    struct Snapshot: Sendable {
        let generation: UInt64
        let states: States
        /// A type `states` grants share permission for, as checked by the access guard; nil: none known.
        var sharedType: String?
    }

    /// The app's cached states, or nil when they must be read from the store (`states`): `last` (a
    /// snapshot of the same app's) while the book has not changed since it was taken, else a new snapshot.
    func cachedSnapshot(owner: OwnerID, bundleID: String, last: Snapshot?) -> Snapshot? {
        cache.withLock { cache in
            if let last, last.generation == cache.generation { return last }
            return cache.states[Key(owner: owner, bundleID: bundleID)].map { Snapshot(generation: cache.generation, states: $0) }
        }
    }

    func states(owner: OwnerID, bundleID: String) async throws -> States {
        let key = Key(owner: owner, bundleID: bundleID)
        let (cached, generation) = cache.withLock { ($0.states[key], $0.generation) }
        if let cached { return cached }
        var states: States = [:]
        for update in try await store.permissions(owner: owner, bundleID: bundleID) {
            states[update.type, default: [:]][update.direction] = update.state
        }
        cache.withLock { cache in
            if cache.generation == generation { cache.states[key] = states }
        }
        return states
    }

    /// Records states in the store, then forgets the cached states of the apps concerned.
    func record(owner: OwnerID, _ updates: [AuthorizationUpdate]) async throws {
        guard !updates.isEmpty else { return }
        try await store.setPermissions(owner: owner, updates)
        forget(owner: owner, bundleIDs: Set(updates.map(\.bundleID)))
    }

    /// Drops cached states (e.g. after an app was revoked); no bundle id: every app of the owner.
    func forget(owner: OwnerID, bundleIDs: Set<String>) {
        cache.withLock { cache in
            cache.generation &+= 1
            if bundleIDs.isEmpty {
                cache.states = cache.states.filter { $0.key.owner != owner }
            }
            for bundleID in bundleIDs { cache.states.removeValue(forKey: Key(owner: owner, bundleID: bundleID)) }
        }
    }

    /// Drops every cached state (changes may have been missed).
    func forgetAll() {
        cache.withLock { cache in
            cache.generation &+= 1
            cache.states.removeAll()
        }
    }
}
