import Dispatch
import Synchronization

/// Subscribers of committed changes. Events are delivered in commit order on a private serial queue,
/// so a slow handler never holds up the writer.
final class ChangeFeed: Sendable {
    private let handlers = Mutex<(next: Int, byToken: [Int: @Sendable (StoreEvent) -> Void])>((1, [:]))
    private let delivery = DispatchQueue(label: "healthstore.change-feed")

    func subscribe(_ handler: @escaping @Sendable (StoreEvent) -> Void) -> Int {
        handlers.withLock { state in
            let token = state.next
            state.next += 1
            state.byToken[token] = handler
            return token
        }
    }

    func unsubscribe(_ token: Int) {
        _ = handlers.withLock { $0.byToken.removeValue(forKey: token) }
    }

    func publish(_ events: [StoreEvent]) {
        guard !events.isEmpty else { return }
        let targets = handlers.withLock { Array($0.byToken.values) }
        guard !targets.isEmpty else { return }
        delivery.async {
            for event in events {
                for handler in targets { handler(event) }
            }
        }
    }

    /// Waits until every event published so far was delivered.
    func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            delivery.async { continuation.resume() }
        }
    }
}
