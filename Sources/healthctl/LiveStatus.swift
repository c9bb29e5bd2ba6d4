import Foundation

/// A one-line status on stderr, redrawn in place (at most five times a second) when stderr is a
/// terminal and silent otherwise; `finish` always writes the summary line.
final class LiveStatus {
    private let live: Bool
    private let started = ContinuousClock.now
    private var lastDrawn: ContinuousClock.Instant?
    private var drawn = false

    /// `forced` draws the line even when stderr is not a terminal (--progress).
    init(forced: Bool = false) {
        live = forced || isatty(STDERR_FILENO) == 1
    }

    /// Seconds since the status was created.
    var elapsed: Double { (ContinuousClock.now - started) / .seconds(1) }

    /// `count` per second so far.
    func rate(_ count: Int) -> Double { elapsed > 0 ? Double(count) / elapsed : 0 }

    /// Redraws the line if it is due.
    func update(_ text: @autoclosure () -> String) {
        guard live else { return }
        let now = ContinuousClock.now
        if let lastDrawn, now - lastDrawn < .milliseconds(200) { return }
        lastDrawn = now
        drawn = true
        writeStderr("\r\u{1B}[K" + text())
    }

    /// A message on a line of its own, above the live line.
    func note(_ text: String) {
        clear()
        writeStderr(text + "\n")
    }

    /// Replaces the live line with the summary.
    func finish(_ summary: String) {
        note(summary)
    }

    private func clear() {
        if drawn { writeStderr("\r\u{1B}[K") }
        drawn = false
        lastDrawn = nil
    }
}

/// Writes to stderr unbuffered, so progress and errors interleave correctly with stdout.
func writeStderr(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}

/// "1234.5/s" with one decimal below 100 and none above.
func formatRate(_ rate: Double) -> String {
    rate < 100 ? String(format: "%.1f/s", rate) : String(format: "%.0f/s", rate)
}
