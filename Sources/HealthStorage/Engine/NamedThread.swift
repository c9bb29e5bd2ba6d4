import Foundation

extension Thread {
    /// A thread, not yet started, that runs `body` under `name`, also for the system's tools (`top -H`,
    /// `perf`, /proc/PID/task/TID/comm). On Linux a `name` set before `start()` never reaches the kernel,
    /// so every thread showed the name of the thread that started it, and per-thread CPU could not be told
    /// apart. The kernel keeps at most 15 bytes of a name (and `Thread.current.name` reads it back from
    /// there); `pthread_setname_np` is not visible to Swift without `_GNU_SOURCE`, so the name is written
    /// where it does the same.
    public convenience init(named name: String, _ body: @escaping @Sendable () -> Void) {
        let systemName = Array(name.utf8.prefix(15))
        self.init {
            let fd = open("/proc/thread-self/comm", O_WRONLY)
            if fd >= 0 {
                _ = systemName.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
            body()
        }
        self.name = name
    }
}
