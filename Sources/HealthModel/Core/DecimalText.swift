/// Integers appended as decimal text straight into a byte buffer, without a `String` per number:
/// exports and timestamps write several per line.
extension Array where Element == UInt8 {
    /// Appends `value` in decimal, a minus sign first when negative, its digits padded with leading
    /// zeros to at least `width` (at most 20).
    mutating func appendDecimal(_ value: Int64, width: Int = 1) {
        // A sign and 20 digits hold any Int64.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { digits in
            let end = digits.writeDecimal(value, width: Swift.min(width, 20), at: 0)
            append(contentsOf: UnsafeBufferPointer(rebasing: digits[..<end]))
        }
    }
}

extension UnsafeMutableBufferPointer where Element == UInt8 {
    /// Writes `value` as `appendDecimal` does at `start`, returning the index after its last digit;
    /// the buffer must have room for it.
    func writeDecimal(_ value: Int64, width: Int, at start: Int) -> Int {
        var at = start
        if value < 0 {
            self[at] = UInt8(ascii: "-")
            at += 1
        }
        var rest = value.magnitude
        var digits = 1
        var probe = rest
        while probe >= 10 {
            probe /= 10
            digits += 1
        }
        let end = at + Swift.max(digits, width)
        // From the last digit back; once `rest` is 0 the rest are the padding zeros.
        var i = end
        while i > at {
            i -= 1
            self[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        return end
    }
}
