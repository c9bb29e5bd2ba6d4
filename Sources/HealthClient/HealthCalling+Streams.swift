import HealthModel
import HealthWire

// Long-running calls as AsyncThrowingStreams. Each ends when the server ends the call; a consumer
// that stops iterating (or whose task is cancelled) makes the client send Cancel.
extension HealthCalling {
    /// HKAnchoredObjectQuery with updates: the initial pages, then one batch per change.
    public func anchoredUpdates(_ query: AnchoredQuery) -> AsyncThrowingStream<AnchoredBatch, any Error> {
        let running = AnchoredQuery(types: query.types, predicate: query.predicate, anchor: query.anchor,
                                    limit: query.limit, updates: true)
        return mapped(.queryAnchored(running), "QueryAnchored") { AnchoredBatch($0) }
    }

    /// HKAnchoredObjectQuery without updates, page by page as the server sends them (with no limit
    /// it streams the whole read), read no faster than they are taken: at most `waiting` pages wait
    /// in memory (see `pacedStream`; other calls on the connection wait with it).
    public func anchoredPages(_ query: AnchoredQuery, waiting: Int) -> AsyncThrowingStream<AnchoredBatch, any Error> {
        let oneShot = AnchoredQuery(types: query.types, predicate: query.predicate, anchor: query.anchor,
                                    limit: query.limit, updates: false)
        let answers = pacedStream(.queryAnchored(oneShot), waiting: waiting)
        return AnswerRelay(open: { answers }) { answer in
            guard let page = AnchoredBatch(answer) else { throw unexpected(answer, for: "QueryAnchored") }
            return page
        }.stream
    }

    /// HKStatisticsCollectionQuery with updates: every bucket first, then the changed buckets.
    public func statisticsCollectionUpdates(_ query: StatisticsCollectionQuery)
        -> AsyncThrowingStream<StatisticsCollectionUpdate, any Error> {
        mapped(.queryStatisticsCollection(query.withUpdates(true)), "QueryStatisticsCollection") {
            if case .statisticsCollection(let buckets, let initial, let complete) = $0 {
                StatisticsCollectionUpdate(buckets: buckets, initial: initial, initialComplete: complete)
            } else { nil }
        }
    }

    /// HKObserverQuery: the changed types, once per change (or per `frequency` period). The
    /// connection acknowledges each event as it arrives (AckObserverEvent), so the server keeps
    /// sending them for as long as this client is reachable and reading.
    public func observe(types: [String], predicate: QueryPredicate? = nil,
                        frequency: UpdateFrequency? = nil) -> AsyncThrowingStream<[String], any Error> {
        mapped(.observe(types: types, predicate: predicate, frequency: frequency), "Observe") {
            if case .observerEvent(let changed, _) = $0 { changed } else { nil }
        }
    }

    /// Pending authorization requests now, then each time new ones arrive (for an owner's UI).
    public func authorizationRequestUpdates(bundleID: String? = nil)
        -> AsyncThrowingStream<[AuthorizationRequest], any Error> {
        mapped(.listAuthorizationRequests(bundleID: bundleID, updates: true), "ListAuthorizationRequests") {
            if case .authorizationRequests(let r) = $0 { r } else { nil }
        }
    }

    /// The answers to a long-running call, each turned into `T`. The server's CallEnded ends the
    /// stream: quietly when the client cancelled, with `.unavailable` when the server ended it.
    func mapped<T: Sendable>(_ call: ClientCall, _ name: String,
                             _ extract: @escaping @Sendable (ServerResult) -> T?) -> AsyncThrowingStream<T, any Error> {
        let answers = stream(call)
        let (output, continuation) = AsyncThrowingStream<T, any Error>.makeStream()
        let forwarder = Task {
            do {
                for try await answer in answers {
                    if case .callEnded(let reason) = answer {
                        if reason != .cancelled { throw HealthError(.unavailable, "the server ended \(name): \(reason)") }
                        break
                    }
                    guard let value = extract(answer) else { throw unexpected(answer, for: name) }
                    continuation.yield(value)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        // Cancelling the forwarder ends its iteration of `answers`, which sends Cancel.
        continuation.onTermination = { _ in forwarder.cancel() }
        return output
    }
}
