extension Workout {
    /// HKWorkout.duration: the explicit duration when one was saved, else the active time between
    /// `start` and `end` (docs/semantics.md §1.7). The workout starts active; pause and motion-paused events
    /// make it inactive, resume and motion-resumed events active again; redundant events are ignored
    /// (that the motion events count like pause/resume is [inf]). Event instants outside the
    /// workout's interval are clamped to it.
    public func activeDuration(start: Microseconds, end: Microseconds) -> Microseconds {
        if let duration { return duration }
        var active: Microseconds = 0
        var activeSince: Microseconds? = start
        // Ties keep their saved order, so a pause and a resume at one instant apply as listed.
        let ordered = events.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
        for (_, event) in ordered {
            let at = min(max(event.start, start), end)
            switch event.type {
            case .pause, .motionPaused:
                if let since = activeSince {
                    active += at - since
                    activeSince = nil
                }
            case .resume, .motionResumed:
                if activeSince == nil { activeSince = at }
            case .lap, .marker, .segment, .pauseOrResumeRequest:
                break
            }
        }
        if let since = activeSince { active += max(end - since, 0) }
        return active
    }
}
