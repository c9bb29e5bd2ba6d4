import Foundation
import HealthStorage
import Synchronization
import XCTest

/// Threads carry their names to the kernel, where `top -H`, `perf` and /proc read them.
final class NamedThreadTests: XCTestCase {
    func testTheKernelSeesTheNameCutToFifteenBytes() {
        let seen = Mutex<(kernel: String, foundation: String?)>(("", nil))
        let done = DispatchSemaphore(value: 0)
        Thread(named: "a-name-longer-than-fifteen-bytes") {
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            let name = Thread.current.name
            seen.withLock { $0 = (comm.trimmingCharacters(in: .newlines), name) }
            done.signal()
        }.start()
        done.wait()
        seen.withLock { seen in
            XCTAssertEqual(seen.kernel, "a-name-longer-t")
            // Foundation reads the running thread's name back from the kernel.
            XCTAssertEqual(seen.foundation, "a-name-longer-t")
        }
    }
}
