import CLibUV
import Foundation
import HealthStorage
import Synchronization

/// One thread running its own libuv loop.
///
/// Confinement (why `@unchecked Sendable` is sound): libuv handles are not thread-safe, so every
/// handle and every `Connection` of this loop is created, used and closed only on the loop's
/// thread. The single cross-thread entry point is `post(_:)`: it appends to a mutex-protected
/// queue and calls `uv_async_send`, which libuv documents as callable from any thread; the loop
/// then runs the queued jobs on its own thread.
final class EventLoop: CompletionQueue, @unchecked Sendable {
    let name: String
    let loop: UnsafeMutablePointer<uv_loop_t>
    private let wakeup: UnsafeMutablePointer<uv_async_t>
    private let inbox = Mutex(Inbox())
    /// Reads land here; one buffer per loop suffices because read callbacks never overlap.
    let readBuffer: UnsafeMutablePointer<CChar>
    static let readBufferSize = 64 * 1024
    /// Connections owned by this loop (loop thread only). Looked up for every answer, never held
    /// across a call (each use copies the entry or iterates a copy), hence no runtime exclusivity check.
    @exclusivity(unchecked) var connections: [UInt64: Connection] = [:]
    /// Transports with output queued since the last flush (loop thread only).
    private var pendingFlush: [FrameTransport] = []
    /// Connections with calls waiting for output room (loop thread only): their room is looked at on
    /// every housekeeping tick, every other connection only on a sweep.
    var waitingForRoom: Set<UInt64> = []
    private var sweepEvery = 1
    private var ticksSinceSweep = 0
    private let finished = DispatchSemaphore(value: 0)

    init(name: String) {
        self.name = name
        loop = .allocate(capacity: 1)
        uv_loop_init(loop)
        wakeup = .allocate(capacity: 1)
        readBuffer = .allocate(capacity: EventLoop.readBufferSize)
        uv_async_init(loop, wakeup) { handle in
            EventLoop.owning(handle!.pointee.loop).drain()
        }
        loop.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        uv_loop_close(loop)
        loop.deallocate()
        wakeup.deallocate()
        readBuffer.deallocate()
    }

    /// The EventLoop a libuv loop belongs to.
    static func owning(_ loop: UnsafeMutablePointer<uv_loop_t>) -> EventLoop {
        Unmanaged<EventLoop>.fromOpaque(loop.pointee.data).takeUnretainedValue()
    }

    private struct Inbox {
        var jobs: [@Sendable () -> Void] = []
        /// Set once the loop closes its handles; later jobs are dropped.
        var stopped = false
    }

    /// Runs `job` on the loop's thread soon; dropped once the loop is stopping. Safe from any thread.
    /// Returns false when the job was dropped.
    @discardableResult
    func post(_ job: @escaping @Sendable () -> Void) -> Bool {
        inbox.withLock { inbox in
            guard !inbox.stopped else { return false }
            inbox.jobs.append(job)
            // Under the lock so it can never race with the wake-up handle being closed.
            uv_async_send(wakeup)
            return true
        }
    }

    /// Runs the loop on a new thread until `stop()`.
    func startThread() {
        Thread(named: name) { [self] in
            runHere()
        }.start()
    }

    /// Runs the loop on the calling thread until `stop()`.
    func runHere() {
        uv_run(loop, UV_RUN_DEFAULT)
        finished.signal()
    }

    /// Closes every handle so the loop's run returns. Safe from any thread.
    func stop() {
        post { [self] in
            inbox.withLock { $0.stopped = true }
            uv_walk(loop, { handle, _ in
                if uv_is_closing(handle) == 0 { uv_close(handle, nil) }
            }, nil)
        }
    }

    /// Blocks until the loop's run has returned.
    func waitUntilStopped() {
        finished.wait()
    }

    /// Every `interval`, resumes the calls waiting for output room that other connections' output
    /// freed; every `sweepEvery` intervals, calls every connection's `tick()` (timeouts, slow readers).
    /// A sweep touches every connection's stages (cold in the cache with thousands of connections),
    /// and the timeouts it checks are seconds long: sweeping 10,000 connections every 200 ms cost
    /// ≈5 % of the server's CPU under their saves.
    func startHousekeeping(everyMilliseconds interval: UInt64, sweepEvery: Int) {
        self.sweepEvery = max(1, sweepEvery)
        let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
        uv_timer_init(loop, timer)
        uv_timer_start(timer, { timer in
            EventLoop.owning(timer!.pointee.loop).housekeep()
        }, interval, interval)
    }

    private func housekeep() {
        ticksSinceSweep += 1
        if ticksSinceSweep >= sweepEvery {
            ticksSinceSweep = 0
            // Iterates the dictionary as it was (a connection closing meanwhile copies it then),
            // not a copy of 10,000 connections made on every tick.
            for connection in connections.values { connection.tick() }
        } else {
            // Granting room can end a connection's waiting, which changes the set: a copy is iterated.
            for id in Array(waitingForRoom) { connections[id]?.calls.grantRoom() }
        }
        flushPending()
    }

    /// How many housekeeping intervals apart the sweeps run: each timeout is checked at least ten
    /// times within its length, and at least once a second.
    static func sweepEvery(intervalMilliseconds interval: UInt64, shortestTimeout seconds: Double) -> Int {
        max(1, Int(min(1, seconds / 10) * 1000) / Int(max(1, interval)))
    }

    /// Queues `transport` to have its output written at the end of this loop turn.
    func scheduleFlush(_ transport: FrameTransport) {
        pendingFlush.append(transport)
    }

    /// Writes all output queued during this turn: one uv_write per connection.
    func flushPending() {
        while !pendingFlush.isEmpty {
            let batch = pendingFlush
            pendingFlush.removeAll(keepingCapacity: true)
            for transport in batch { transport.flush() }
        }
    }

    private func drain() {
        let jobs = inbox.withLock { inbox -> [@Sendable () -> Void] in
            let jobs = inbox.jobs
            inbox.jobs.removeAll(keepingCapacity: true)
            return jobs
        }
        for job in jobs { job() }
        flushPending()
    }
}
