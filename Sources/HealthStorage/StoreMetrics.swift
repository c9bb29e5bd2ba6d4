import Foundation
import HealthMetrics

/// What the store reports to the operator's metrics: its group commits and the size of its files.
public final class StoreMetrics: Sendable {
    /// Write jobs (save and delete calls) committed together in one transaction.
    public let commitJobs = Histogram.sizes()
    /// Time from BEGIN to the end of COMMIT of one group.
    public let commitSeconds = Histogram.seconds()
    private let files: [String]

    init(files: [String]) {
        self.files = files
    }

    /// The database file and its write-ahead log together.
    public var sizeBytes: Int {
        files.reduce(0) { total, path in
            total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        }
    }
}
