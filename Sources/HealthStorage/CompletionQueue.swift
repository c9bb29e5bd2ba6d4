/// A thread that runs what a store's writer hands it (an event loop): the writer gives it all of one
/// commit's completions in one call, instead of posting one answer per job, and keeps no reference to
/// them, so the jobs and the batches they hold are freed there rather than on the writer.
public protocol CompletionQueue: AnyObject, Sendable {
    /// Runs `work` soon on the queue's own thread.
    @discardableResult
    func post(_ work: @escaping @Sendable () -> Void) -> Bool
}
