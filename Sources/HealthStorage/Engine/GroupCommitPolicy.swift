/// When the writer commits a group. Each commit costs the writer about half a millisecond of system
/// time (the WAL's writes and, at power-loss durability, its fsync) however many jobs it holds, so a
/// busy writer paces its commits; an idle one never waits:
///
/// - **Idle** (the last group held one job and none arrived while it ran): the next group commits at
///   once, so a caller saving in turn never waits.
/// - **Busy** (the last group held several jobs, or jobs arrived while it ran): jobs gather until
///   `window` after the previous commit *began*, then commit together. A commit that took longer
///   than `window` leaves nothing to wait, so under a backlog commits follow each other at once and
///   the window adds no latency; below it a save waits at most `window` more than on an idle writer.
///   The gathering ends early once `quiet` (a fifth of the window) passes with no job arriving: callers
///   that keep a few saves in flight and wait for their answers have all sent theirs by then, and
///   would otherwise lose most of the window each round (with a 10 ms window and no early end, 2,000
///   saves from one client keeping 32 in flight took 1.13–1.18 s, against 0.67–0.81 s with the 2 ms
///   gather before), while thousands of devices sending on their own schedules keep arriving.
/// - A gathering group of `jobs` jobs commits at once: it already shares its commit widely enough.
///
/// Jobs still complete only after their commit, so gathering never weakens durability.
struct GroupCommitPolicy: Sendable {
    /// The least time between the beginnings of a busy writer's commits; zero commits every group at once.
    let window: Duration
    /// A gathering group this large commits without waiting out the window.
    let jobs: Int
    /// How long a gathering group waits for a next job before it commits anyway.
    var quiet: Duration { window / 5 }
    private var busy = false
    private var previousBegan: ContinuousClock.Instant?

    init(window: Duration, jobs: Int) {
        self.window = window
        self.jobs = max(1, jobs)
    }

    /// How long a group of `count` jobs, ready to commit at `now`, gathers more first.
    func gatherTime(count: Int, at now: ContinuousClock.Instant) -> Duration {
        guard busy, count < jobs, let previousBegan else { return .zero }
        let since = now - previousBegan
        return since < window ? window - since : .zero
    }

    /// Records a commit of `count` jobs that began at `began`; `arrivedMeanwhile`: jobs were queued
    /// before its callers were answered (a caller's next job, sent after its answer, does not count).
    mutating func committed(count: Int, began: ContinuousClock.Instant, arrivedMeanwhile: Bool) {
        busy = count > 1 || arrivedMeanwhile
        previousBegan = began
    }
}
