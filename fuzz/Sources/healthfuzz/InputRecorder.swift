import Glibc

/// Keeps the input about to run in a file, and its iteration in `<path>.iteration`, written before
/// the input runs: when a trap kills the process, the file holds exactly what killed it.
struct InputRecorder {
    private let input: Int32
    private let iteration: Int32

    init(path: String) {
        input = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        iteration = open(path + ".iteration", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(input >= 0 && iteration >= 0, "cannot write \(path): errno \(errno)")
    }

    func record(_ bytes: [UInt8], iteration number: UInt64) {
        bytes.withUnsafeBytes { _ = pwrite(input, $0.baseAddress, $0.count, 0) }
        ftruncate(input, off_t(bytes.count))
        let text = Array("\(number)\n".utf8)
        text.withUnsafeBytes { _ = pwrite(iteration, $0.baseAddress, $0.count, 0) }
        ftruncate(iteration, off_t(text.count))
    }
}
