import Foundation
import HealthModel

/// The live one-line status on a terminal: devices connected, samples sent, acknowledged and
/// rejected, and the acknowledgement rate; silent when stderr is not a TTY.
public struct ProgressLine: Sendable {
    public let stats: RunStats
    public let devices: Int

    public init(stats: RunStats, devices: Int) {
        self.stats = stats
        self.devices = devices
    }

    /// True when stderr is a terminal.
    public static var enabled: Bool { isatty(2) != 0 }

    /// Redraws every half second until cancelled, then ends the line.
    public func run() async {
        guard Self.enabled else { return }
        let start = ContinuousClock.now
        while !Task.isCancelled {
            draw(since: start)
            try? await Task.sleep(for: .milliseconds(500))
        }
        draw(since: start)
        FileHandle.standardError.write(Data("\n".utf8))
    }

    private func draw(since start: ContinuousClock.Instant) {
        let s = stats.snapshot
        let elapsed = ContinuousClock.now - start
        let seconds = max(0.001, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        let line = "\r\u{1B}[2Khealthsim  devices \(s.devicesConnected)/\(devices)  sent \(s.sent)  acked \(s.acknowledged)"
            + "  rejected \(s.rejectedTotal)  reconnects \(s.reconnects)  \(Int(Double(s.acknowledged) / seconds))/s"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
