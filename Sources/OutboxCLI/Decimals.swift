/// Numbers with a fixed count of decimals, as C's `printf("%.Nf")` writes them
/// (and Foundation's `String(format:)`, which the bench used before; that needs
/// full Foundation, and with it ICU, in the binary: issue 16).
///
/// Rounding is printf's: of the double's exact binary value, a half to the even
/// neighbour (0.125 is "0.12", 0.375 is "0.38"; 1.005 is "1.00", being a little
/// under 1.005). Exact at any magnitude, through a small unsigned big number.
enum Decimals {
    /// `v` with `places` digits after the point (none and no point for 0).
    static func fixed(_ v: Double, _ places: Int) -> String {
        let sign = v.sign == .minus ? "-" : ""
        if v.isNaN { return sign + "nan" }
        if v.isInfinite { return sign + "inf" }
        let places = max(0, places)
        // |v| = m × 2^e exactly.
        let bits = v.magnitude
        var m = bits.significandBitPattern
        var e = Int(bits.exponentBitPattern)
        if e == 0 {
            e = -1074  // subnormal (or zero: m is 0)
        } else {
            m |= 1 << 52
            e -= 1075
        }
        // round(m × 10^places × 2^e).
        var n = Big(m)
        for _ in 0..<places { n.multiply(by: 10) }
        if e >= 0 {
            n.shiftLeft(e)
        } else {
            let s = -e
            let half = n.bit(s - 1)
            let below = n.anyBit(below: s - 1)
            n.shiftRight(s)
            if half && (below || n.bit(0)) { n.addOne() }
        }
        var digits = n.decimal()
        if digits.count <= places { digits = String(repeating: "0", count: places + 1 - digits.count) + digits }
        guard places > 0 else { return sign + digits }
        let point = digits.index(digits.endIndex, offsetBy: -places)
        return sign + digits[..<point] + "." + digits[point...]
    }

    /// An unsigned integer of any size: 32-bit limbs, least significant first.
    struct Big {
        var limbs: [UInt32]

        init(_ v: UInt64) { limbs = [UInt32(truncatingIfNeeded: v), UInt32(truncatingIfNeeded: v >> 32)] }

        mutating func multiply(by k: UInt32) {
            var carry: UInt64 = 0
            for i in limbs.indices {
                let p = UInt64(limbs[i]) * UInt64(k) + carry
                limbs[i] = UInt32(truncatingIfNeeded: p)
                carry = p >> 32
            }
            if carry != 0 { limbs.append(UInt32(carry)) }
        }

        mutating func shiftLeft(_ s: Int) {
            let words = s / 32, b = s % 32
            if b > 0 {
                var carry: UInt32 = 0
                for i in limbs.indices {
                    let l = limbs[i]
                    limbs[i] = (l << UInt32(b)) | carry
                    carry = l >> UInt32(32 - b)
                }
                if carry != 0 { limbs.append(carry) }
            }
            limbs.insert(contentsOf: repeatElement(0, count: words), at: 0)
        }

        mutating func shiftRight(_ s: Int) {
            let words = s / 32, b = s % 32
            guard words < limbs.count else {
                limbs = [0]
                return
            }
            limbs.removeFirst(words)
            if b > 0 {
                for i in limbs.indices {
                    let next = i + 1 < limbs.count ? limbs[i + 1] : 0
                    limbs[i] = (limbs[i] >> UInt32(b)) | (next << UInt32(32 - b))
                }
            }
        }

        func bit(_ i: Int) -> Bool {
            guard i >= 0, i / 32 < limbs.count else { return false }
            return limbs[i / 32] >> UInt32(i % 32) & 1 == 1
        }

        /// Whether any bit under bit `i` is set.
        func anyBit(below i: Int) -> Bool {
            guard i > 0 else { return false }
            let words = min(i / 32, limbs.count)
            if limbs[..<words].contains(where: { $0 != 0 }) { return true }
            guard words < limbs.count, i % 32 > 0 else { return false }
            return limbs[words] & ((1 << UInt32(i % 32)) - 1) != 0
        }

        mutating func addOne() {
            for i in limbs.indices {
                limbs[i] &+= 1
                if limbs[i] != 0 { return }
            }
            limbs.append(1)
        }

        /// Decimal digits, no leading zeros ("0" for zero).
        func decimal() -> String {
            var n = limbs
            var groups: [UInt32] = []  // base 10^9, least significant first
            while n.contains(where: { $0 != 0 }) {
                var rest: UInt64 = 0
                for i in n.indices.reversed() {
                    let cur = rest << 32 | UInt64(n[i])
                    n[i] = UInt32(cur / 1_000_000_000)
                    rest = cur % 1_000_000_000
                }
                groups.append(UInt32(rest))
            }
            guard let top = groups.last else { return "0" }
            var s = String(top)
            for g in groups.dropLast().reversed() {
                let d = String(g)
                s += String(repeating: "0", count: 9 - d.count) + d
            }
            return s
        }
    }
}

extension String {
    /// Every `target` replaced by `replacement`, scalar by scalar (Foundation's
    /// `replacingOccurrences(of:with:)` for one character, which FoundationEssentials lacks).
    func replacingEvery(_ target: Unicode.Scalar, with replacement: String) -> String {
        var out = String.UnicodeScalarView()
        for u in unicodeScalars {
            if u == target { out.append(contentsOf: replacement.unicodeScalars) } else { out.append(u) }
        }
        return String(out)
    }
}
