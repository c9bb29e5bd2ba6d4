/// Integers appended as decimal text straight into a byte buffer, without a `String` per number:
/// exports and timestamps write several per line.
extension Array where Element == UInt8 {
    /// Appends `value` in decimal, a minus sign first when negative, its digits padded with leading
    /// zeros to at least `width` (at most 20).
    mutating func appendDecimal(_ value: Int64, width: Int = 1) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var rest = value.magnitude
        // 20 digits hold any Int64; they are written from the end.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0 || (digits.count - start < width && start > 0)
            append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}
