import Foundation
import HealthMetrics

/// What the store reports to the operator's metrics: its group commits and the size of its files.
public final class StoreMetrics: Sendable {
    /// Write jobs (save and delete calls) committed together in one transaction.
    public let commitJobs = Histogram.sizes()
    /// Time from BEGIN to the end of COMMIT of one group.
    public let commitSeconds = Histogram.seconds()
    /// Groups whose first try, taking every sample's UUID to be new (PostgreSQL), met a stored one
    /// and ran again (`WriterThread.commit`).
    public let groupsTriedAgain = Counter()
    private let size: @Sendable () -> Int

    /// `size` measures the stored data (asked at each metrics scrape).
    init(size: @escaping @Sendable () -> Int) {
        self.size = size
    }

    /// The files' sizes together (SQLite: the database file and its write-ahead log).
    convenience init(files: [String]) {
        self.init(size: {
            files.reduce(0) { total, path in
                total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
            }
        })
    }

    /// Bytes the store occupies.
    public var sizeBytes: Int { size() }
}
