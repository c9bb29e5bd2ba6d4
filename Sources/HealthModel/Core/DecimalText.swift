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
        let count = Swift.max(value.magnitude.decimalDigitCount, width)
        (baseAddress! + at).writeDigits(of: value.magnitude, count: count)
        return at + count
    }
}

/// "00" to "99": digits are made two at a time, halving the divisions.
private var digitPairs: StaticString {
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
}

extension UnsafeMutablePointer where Pointee == UInt8 {
    /// Writes the last `count` decimal digits of `value` here, padded with leading zeros.
    func writeDigits(of value: UInt64, count: Int) {
        let pairs = digitPairs.utf8Start
        var rest = value
        var end = count
        while end >= 2 {
            let pair = Int(truncatingIfNeeded: rest % 100) &* 2
            rest /= 100
            end -= 2
            self[end] = pairs[pair]
            self[end + 1] = pairs[pair + 1]
        }
        if end == 1 { self[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10) }
    }

    /// Writes `value` (below 10^8) here as eight digits, leading zeros included: all made at once in
    /// the lanes of one 64-bit word and written as one.
    func writeEightDigits(_ value: UInt64) {
        // Four digits in each 32-bit lane, the first four in the low lane (first in memory).
        var x = value / 10_000 | (value % 10_000) << 32
        // Each lane split into two 16-bit lanes of two digits: n / 100 is n * 10486 >> 20 below 43,699.
        let hundreds = (x &* 10486) >> 20 & 0x0000_007F_0000_007F
        x = hundreds | (x &- hundreds &* 100) << 16
        // And each of those into two bytes of one digit: n / 10 is n * 103 >> 10 below 179.
        let tens = (x &* 103) >> 10 & 0x000F_000F_000F_000F
        x = tens | (x &- tens &* 10) << 8
        UnsafeMutableRawPointer(self).storeBytes(of: (x | 0x3030_3030_3030_3030).littleEndian, as: UInt64.self)
    }
}

extension UInt64 {
    /// How many decimal digits the value has (1 for 0).
    var decimalDigitCount: Int {
        var digits = 1
        var bound: UInt64 = 10
        // 10^19 is the last power of ten a UInt64 holds, and no value has more than 20 digits.
        while self >= bound && digits < 20 {
            digits += 1
            bound &*= 10
        }
        return digits
    }
}
