import Foundation
import HealthModel
import HealthWire

/// The three long-running calls that follow saves of heart rate (anchored updates, an observer and an
/// hourly maximum over the last two hours), opened on one client past their first answers.
struct LiveHeartRateCalls {
    let anchored: UInt64
    let observer: UInt64
    let collection: UInt64
    /// The collection's first buckets.
    let initialBuckets: [Statistics]

    init(on watcher: RawClient) throws {
        let hr = Fixtures.heartRate
        anchored = watcher.submit(.queryAnchored(AnchoredQuery(types: [hr], updates: true)))
        guard case .anchored(_, _, _, true, _, _)? = watcher.receive(callID: anchored)?.result else { throw TestFailure("no initial page") }
        observer = watcher.submit(.observe(types: [hr], predicate: nil, frequency: nil))
        guard watcher.receive(callID: observer)?.result == .observerEvent(changedTypes: [], sequence: 0) else {
            throw TestFailure("no initial observer event")
        }
        let now = Time.now()
        let hour: Int64 = 3_600_000_000
        collection = watcher.submit(.queryStatisticsCollection(StatisticsCollectionQuery(
            type: hr, options: .discreteMax, anchor: now - now % hour, interval: IntervalComponents(hours: 1),
            from: now - 2 * hour, to: now, updates: true)))
        guard case .statisticsCollection(let initial, true, _)? = watcher.receive(callID: collection)?.result else {
            throw TestFailure("no initial statistics")
        }
        initialBuckets = initial
    }

    /// Waits for each call's update after `sample` (heart rate, in the last two hours) was saved;
    /// returns the added samples' UUIDs, the observer event and the changed buckets.
    func updates(on watcher: RawClient) throws -> (added: [UUID], event: ServerResult?, changed: [Statistics]) {
        guard case .anchored(let added, _, _, false, _, _)? = watcher.receive(callID: anchored)?.result else { throw TestFailure("no anchored update") }
        let event = watcher.nextEvent(observer)?.result
        guard case .statisticsCollection(let changed, false, _)? = watcher.receive(callID: collection)?.result else {
            throw TestFailure("no statistics update")
        }
        return (added.map(\.uuid), event, changed)
    }
}
