/// Integers appended as decimal text straight into a byte buffer, without a `String` per number:
/// exports and timestamps write several per line.
extension Array where Element == UInt8 {
    /// Appends `value` in decimal, a minus sign first when negative, its digits padded with leading
    /// zeros to at least `width`.
    mutating func appendDecimal(_ value: Int64, width: Int = 1) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var count = 1, rest = value.magnitude / 10
        while rest > 0 { (count, rest) = (count + 1, rest / 10) }
        append(contentsOf: repeatElement(UInt8(ascii: "0"), count: Swift.max(width, count)))
        var (index, remaining) = (self.count - 1, value.magnitude)
        for _ in 0..<count {
            self[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
            (index, remaining) = (index - 1, remaining / 10)
        }
    }
}
