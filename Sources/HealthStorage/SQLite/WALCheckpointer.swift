import CSQLite
import Foundation
import HealthMetrics
import HealthModel
import Synchronization

/// Copies the write-ahead log back into the database file on a thread and connection of its own, so
/// the writer's commits do not wait for the bulk of it. SQLite's automatic checkpoint runs inside the
/// COMMIT that takes the WAL past its limit, on the writer's thread: every save queued behind that
/// commit waited for the copy of the WAL's pages and the database file's fsync
/// (bench/history/2026-12-03-ckpt.md).
///
/// The writer's WAL hook (installed by `attach`, which turns SQLite's own automatic checkpoint off)
/// wakes this thread once the WAL holds `pages` pages. A PASSIVE checkpoint copies what is committed
/// and no reader still needs while the writer goes on appending. SQLite starts the WAL over only at a
/// write transaction that begins with all of it copied, which a thread racing the writer's next
/// commit rarely sees; so the writer, once this thread has copied all but `finishPages` of the WAL,
/// copies that remainder itself (a few pages and an fsync, against the thousands of the whole), and
/// its next transaction starts the WAL over. Should this thread fall behind (starved of CPU), the
/// writer checkpoints whatever the WAL holds once it reaches `writerPages`, so the WAL stays bounded.
///
/// Durability is the commit's alone: a save is acknowledged after its commit, which syncs (or not)
/// the WAL as before; a checkpoint only moves committed pages into the file and syncs them there.
final class WALCheckpointer: @unchecked Sendable {
    // `connection` is used only on the thread started by `init`; `writerCycle` and `lastWALPages`
    // only on the writer's thread (in its WAL hook); the other state under `condition`.
    private let connection: SQLiteConnection
    private let condition = NSCondition()
    private var due = false
    private var stopping = false
    private var running = true
    /// The WAL's cycle (starts over counted by the writer) that woke this thread, and how many of the
    /// WAL's pages its last checkpoint left copied in which cycle.
    private var dueCycle = 0
    private var copied = (cycle: -1, pages: Int32(0))
    private var writerCycle = 0
    private var lastWALPages: Int32 = 0
    /// WAL pages at which this thread checkpoints; the remainder the writer copies itself; the WAL's
    /// length at which the writer checkpoints all of it.
    let pages: Int32
    let finishPages: Int32
    let writerPages: Int32
    private let seconds: Histogram
    private let writerSeconds: Histogram
    /// Checkpoints the writer ran because the WAL reached `writerPages`.
    private let fallbacks = Atomic<Int>(0)
    /// Runs on this thread before each checkpoint (tests hold it there).
    private let pause: (@Sendable () -> Void)?

    /// Opens the thread's own connection to `path` (at the writer's `synchronous`, which decides the
    /// checkpoint's fsyncs) and starts the thread; `seconds` gets each of its checkpoints' time,
    /// `writerSeconds` each of the writer's.
    init(path: String, synchronous: String, pages: Int, seconds: Histogram, writerSeconds: Histogram,
         pause: (@Sendable () -> Void)? = nil) throws(HealthError) {
        connection = try SQLiteConnection(path: path, readOnly: false)
        try connection.execute("PRAGMA synchronous = \(synchronous)")
        // A first read opens the connection's WAL, which a checkpoint needs.
        try connection.execute("SELECT count(*) FROM sqlite_schema")
        self.pages = Int32(clamping: max(1, pages))
        finishPages = self.pages / 8
        // Far enough past `pages` that this thread, once woken, gets there first unless it is stuck.
        writerPages = 4 * self.pages
        self.seconds = seconds
        self.writerSeconds = writerSeconds
        self.pause = pause
        Thread(named: "wal-checkpoint") { [self] in run() }.start()
    }

    /// Checkpoints the writer ran because the WAL reached `writerPages`.
    var writerFallbacks: Int { fallbacks.load(ordering: .relaxed) }

    /// Makes `writer`'s commits wake this thread instead of checkpointing on the writer's thread. The
    /// writer holds this object from then on (SQLite holds only an unretained pointer to it).
    func attach(to writer: SQLiteConnection) {
        writer.checkpointer = self
        sqlite3_wal_hook(writer.handle, { context, db, _, walPages in
            Unmanaged<WALCheckpointer>.fromOpaque(context!).takeUnretainedValue().committed(walPages: walPages, writer: db)
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// On the writer's thread, after each commit: `walPages` is the WAL's length in pages.
    private func committed(walPages: Int32, writer: OpaquePointer?) {
        if walPages < lastWALPages { writerCycle += 1 }
        lastWALPages = walPages
        guard walPages >= pages else { return }
        condition.lock()
        let fallback = walPages >= writerPages
        let finish = fallback || (copied.cycle == writerCycle && walPages - copied.pages <= finishPages)
        if !finish {
            due = true
            dueCycle = writerCycle
            condition.signal()
        }
        condition.unlock()
        guard finish else { return }
        if fallback { fallbacks.add(1, ordering: .relaxed) }
        let began = ContinuousClock.now
        // PASSIVE, as SQLite's automatic checkpoint: SQLITE_BUSY while this thread holds the checkpoint
        // lock, and the next commit tries again.
        sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        writerSeconds.observe((ContinuousClock.now - began) / .seconds(1))
    }

    private func run() {
        while true {
            condition.lock()
            while !due && !stopping { condition.wait() }
            let stop = stopping, cycle = dueCycle
            due = false
            condition.unlock()
            if stop { break }
            pause?()
            let began = ContinuousClock.now
            var walPages: Int32 = 0, copiedPages: Int32 = 0
            // A failure (SQLITE_BUSY: the writer's checkpoint running) leaves the WAL for the next wake-up.
            if sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, &walPages, &copiedPages) == SQLITE_OK {
                condition.lock()
                copied = (cycle, copiedPages)
                condition.unlock()
            }
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
