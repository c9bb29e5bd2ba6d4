import Foundation

/// The `--report` JSON: what was sent, what the server acknowledged or rejected, and how fast.
public struct RunReport: Codable, Sendable {
    /// Save-call latency in milliseconds.
    public struct Latency: Codable, Sendable {
        public var count: Int
        public var p50: Double
        public var p90: Double
        public var p99: Double
        public var max: Double
    }

    public var mode: String
    public var seed: UInt64
    public var devices: Int
    public var wallSeconds: Double
    public var samplesGenerated: Int
    public var samplesSent: Int
    public var samplesAcknowledged: Int
    public var samplesRejected: Int
    public var outcomes: [String: Int]
    public var rejectedByCode: [String: Int]
    /// One error message per rejected code.
    public var rejectedExamples: [String: String]
    public var reconnects: Int
    public var batches: Int
    /// Acknowledged objects per wall-clock second.
    public var throughputPerSecond: Double
    public var saveLatencyMs: Latency
    /// Stored samples (correlation children included) per source bundle id, device name and type.
    public var acknowledgedBySource: [String: Int]
    public var acknowledgedByDevice: [String: Int]
    public var acknowledgedByType: [String: Int]
    public var faults: [String: Int]
    public var authorizationErrors: [String: String]

    public init(mode: String, seed: UInt64, devices: Int, wallSeconds: Double, stats: RunStats.Snapshot) {
        self.mode = mode
        self.seed = seed
        self.devices = devices
        self.wallSeconds = wallSeconds
        samplesGenerated = stats.generated
        samplesSent = stats.sent
        samplesAcknowledged = stats.acknowledged
        samplesRejected = stats.rejectedTotal
        outcomes = stats.outcomes
        rejectedByCode = stats.rejected
        rejectedExamples = stats.rejectedExamples
        reconnects = stats.reconnects
        batches = stats.batches
        throughputPerSecond = wallSeconds > 0 ? Double(stats.acknowledged) / wallSeconds : 0
        saveLatencyMs = Self.latency(stats.latenciesMs)
        acknowledgedBySource = stats.bySource
        acknowledgedByDevice = stats.byDevice
        acknowledgedByType = stats.byType
        faults = stats.faults
        authorizationErrors = stats.authorizationErrors
    }

    /// Nearest-rank percentiles.
    static func latency(_ values: [Double]) -> Latency {
        let sorted = values.sorted()
        func rank(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let index = Int((p * Double(sorted.count)).rounded(.up)) - 1
            return (sorted[min(max(index, 0), sorted.count - 1)] * 1000).rounded() / 1000
        }
        return Latency(count: sorted.count, p50: rank(0.5), p90: rank(0.9), p99: rank(0.99), max: rank(1))
    }

    /// Pretty JSON with sorted keys.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}
