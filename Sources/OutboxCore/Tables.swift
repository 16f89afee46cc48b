/// Small hash tables for the model's hot paths. Swift's `Set` and `Dictionary`
/// hash with SipHash, seeded per process; these two hash their own keys in a
/// few instructions (docs/performance.md), and neither depends on a seed, so
/// nothing about them can change a run.

/// A set of idempotency keys (LT-7): nonzero 64-bit values, open addressing with
/// linear probing, Fibonacci hashing so keys that are not random spread too.
struct KeySet: Sendable {
    /// 0 marks an empty slot: 0 is never a key ("no key").
    private var slots = [UInt64](repeating: 0, count: 16)
    private var shift: UInt64 = 60  // 64 - log2(slots.count)
    private(set) var count = 0

    @inline(__always)
    private func home(_ k: UInt64) -> Int { Int(truncatingIfNeeded: (k &* 0x9E37_79B9_7F4A_7C15) >> shift) }

    func contains(_ k: UInt64) -> Bool {
        precondition(k != 0)
        let mask = slots.count - 1
        var i = home(k)
        while true {
            let v = slots[i]
            if v == k { return true }
            if v == 0 { return false }
            i = (i + 1) & mask
        }
    }

    /// Adds `k`; false if it was there already.
    @discardableResult
    mutating func insert(_ k: UInt64) -> Bool {
        precondition(k != 0)
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let mask = slots.count - 1
        var i = home(k)
        while true {
            let v = slots[i]
            if v == k { return false }
            if v == 0 {
                slots[i] = k
                count += 1
                return true
            }
            i = (i + 1) & mask
        }
    }

    private mutating func grow() {
        let old = slots
        shift -= 1
        let shift = self.shift
        var new = [UInt64](repeating: 0, count: old.count * 2)
        let mask = new.count - 1
        new.withUnsafeMutableBufferPointer { s in
            for k in old where k != 0 {
                var i = Int(truncatingIfNeeded: (k &* 0x9E37_79B9_7F4A_7C15) >> shift)
                while s[i] != 0 { i = (i + 1) & mask }
                s[i] = k
            }
        }
        slots = new
    }
}

/// Interned strings: each distinct string gets the next small id, for good.
/// FNV-1a over the UTF-8 bytes with open addressing; names are few and short.
struct NameTable: Sendable {
    private(set) var strings: [String] = []
    /// Index into `strings` + 1; 0 is empty.
    private var slots = [Int32](repeating: 0, count: 64)

    init(_ first: [String] = []) {
        for s in first { _ = intern(s) }
    }

    var count: Int { strings.count }
    subscript(_ i: Int32) -> String { strings[Int(i)] }

    @inline(__always)
    private static func hash(_ s: String) -> Int {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in s.utf8 {
            h = (h ^ UInt64(b)) &* 0x100_0000_01B3
        }
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }

    func find(_ s: String) -> Int32? {
        let mask = slots.count - 1
        var i = NameTable.hash(s) & mask
        while true {
            let v = slots[i]
            if v == 0 { return nil }
            if strings[Int(v) - 1] == s { return v - 1 }
            i = (i + 1) & mask
        }
    }

    /// The id of `s`, adding it if it is new.
    mutating func intern(_ s: String) -> Int32 {
        let mask = slots.count - 1
        var i = NameTable.hash(s) & mask
        while true {
            let v = slots[i]
            if v == 0 { break }
            if strings[Int(v) - 1] == s { return v - 1 }
            i = (i + 1) & mask
        }
        let id = Int32(strings.count)
        strings.append(s)
        slots[i] = id + 1
        if strings.count * 2 > slots.count { rehash() }
        return id
    }

    private mutating func rehash() {
        slots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (n, s) in strings.enumerated() {
            var i = NameTable.hash(s) & mask
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = Int32(n) + 1
        }
    }
}
