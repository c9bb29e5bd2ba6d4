import CSQLite
import Foundation
import HealthMetrics
import HealthModel
import Synchronization

/// Copies the write-ahead log back into the database file on a thread and connection of its own, so
/// the writer's commits never wait for it. SQLite's automatic checkpoint runs inside the COMMIT that
/// takes the WAL past its limit, on the writer's thread: every save queued behind that commit waited
/// for the copy of the WAL's pages and the database file's fsync (bench/history/2026-12-03-ckpt.md).
///
/// The writer's WAL hook (installed by `attach`, which turns SQLite's own automatic checkpoint off)
/// wakes this thread once the WAL holds `pages` pages. A PASSIVE checkpoint copies what is committed
/// and no reader still needs, while the writer goes on appending; SQLite starts the WAL over at the
/// writer's next transaction once a checkpoint has copied all of it, and this thread is woken again
/// by every commit until then. Durability is the commit's alone: a save is acknowledged after its
/// commit, which syncs (or not) the WAL as before; a checkpoint only moves committed pages.
///
/// Should the thread fall behind (starved of CPU, or a long reader holding its snapshot), the writer
/// checkpoints itself once the WAL holds `writerPages`, as SQLite's automatic checkpoint would have,
/// so the WAL stays bounded.
final class WALCheckpointer: @unchecked Sendable {
    // `connection` is used only on the thread started by `init`; the other state under `condition`.
    private let connection: SQLiteConnection
    private let condition = NSCondition()
    private var due = false
    private var stopping = false
    private var running = true
    /// WAL pages at which this thread checkpoints, and at which the writer does in its stead.
    let pages: Int32
    let writerPages: Int32
    private let seconds: Histogram
    /// Checkpoints the writer ran itself, past `writerPages`.
    private let writerRuns = Atomic<Int>(0)
    /// Runs on this thread before each checkpoint (tests hold it there).
    private let pause: (@Sendable () -> Void)?

    /// Opens the thread's own connection to `path` (at the writer's `synchronous`, which decides the
    /// checkpoint's fsyncs) and starts the thread; `seconds` gets each checkpoint's time.
    init(path: String, synchronous: String, pages: Int, seconds: Histogram, pause: (@Sendable () -> Void)? = nil) throws(HealthError) {
        connection = try SQLiteConnection(path: path, readOnly: false)
        try connection.execute("PRAGMA synchronous = \(synchronous)")
        // A first read opens the connection's WAL, which a checkpoint needs.
        try connection.execute("SELECT count(*) FROM sqlite_schema")
        self.pages = Int32(clamping: max(1, pages))
        // Far enough past `pages` that this thread, once woken, finishes first unless it is stuck.
        writerPages = Int32(clamping: 4 * max(1, pages))
        self.seconds = seconds
        self.pause = pause
        Thread(named: "wal-checkpoint") { [self] in run() }.start()
    }

    /// Checkpoints the writer had to run itself.
    var writerCheckpoints: Int { writerRuns.load(ordering: .relaxed) }

    /// Makes `writer`'s commits wake this thread instead of checkpointing on the writer's thread. The
    /// writer holds this object from then on (SQLite holds only an unretained pointer to it).
    func attach(to writer: SQLiteConnection) {
        writer.checkpointer = self
        sqlite3_wal_hook(writer.handle, { context, db, _, frames in
            Unmanaged<WALCheckpointer>.fromOpaque(context!).takeUnretainedValue().committed(walPages: frames, writer: db)
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// On the writer's thread, after each commit: `walPages` is the WAL's length in pages.
    private func committed(walPages: Int32, writer: OpaquePointer?) {
        if walPages >= writerPages {
            // PASSIVE, as SQLite's automatic checkpoint: SQLITE_BUSY while this thread holds the
            // checkpoint lock, which is then making the same progress.
            sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            writerRuns.add(1, ordering: .relaxed)
        } else if walPages >= pages {
            condition.lock()
            due = true
            condition.signal()
            condition.unlock()
        }
    }

    private func run() {
        while true {
            condition.lock()
            while !due && !stopping { condition.wait() }
            let stop = stopping
            due = false
            condition.unlock()
            if stop { break }
            pause?()
            let began = ContinuousClock.now
            // A failure (SQLITE_BUSY: another checkpoint running) leaves the WAL for the next wake-up.
            sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            seconds.observe((ContinuousClock.now - began) / .seconds(1))
        }
        condition.lock()
        running = false
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for a running checkpoint to end and stops the thread, before the writer's last checkpoint.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }
}
