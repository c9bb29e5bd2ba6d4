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
        var next: UInt64 = 10
        while digits < 20, rest >= next {
            digits += 1
            next = digits < 20 ? next * 10 : next
        }
        let end = at + Swift.max(digits, width)
        // Two digits at a time from the last back; once `rest` is 0 the rest are the padding zeros.
        let pairs = digitPairs.utf8Start
        var i = end
        while i - at >= 2 {
            let pair = Int(rest % 100) * 2
            rest /= 100
            self[i - 1] = pairs[pair + 1]
            self[i - 2] = pairs[pair]
            i -= 2
        }
        if i > at { self[at] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10) }
        return end
    }
}

/// "00" to "99", so digits are written two per division.
private let digitPairs: StaticString =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
