/// A small hash table for the model's hot paths. Swift's `Dictionary` hashes
/// with SipHash, seeded per process; this one hashes its own keys in a few
/// instructions (docs/performance.md) and depends on no seed.

/// Interned strings: each distinct string gets the next small id, for good.
/// FNV-1a over the UTF-8 bytes with open addressing; names are few and short.
struct NameTable: Sendable {
    private(set) var strings: [String] = []
    /// Index into `strings` + 1; 0 is empty.
    private var slots = [Int32](repeating: 0, count: 64)
    /// The strings interned last, by a hash of their two machine words, with their
    /// ids (-1: empty). A hit needs the very same words as a string held here:
    /// held, its storage cannot be freed and reused, so the same words mean the
    /// same string; a miss only means the slower lookup. Names repeat, so most
    /// lookups end here without reading a byte.
    private var recent = [String](repeating: "", count: NameTable.recentCount)
    private var recentIDs = [Int32](repeating: -1, count: NameTable.recentCount)
    private static let recentCount = 64

    init(_ first: [String] = []) {
        for s in first { _ = intern(s) }
    }

    var count: Int { strings.count }
    subscript(_ i: Int32) -> String { strings[Int(i)] }

    @inline(__always)
    private static func hash(_ s: String) -> Int {
        func fnv<C: Sequence<UInt8>>(_ bytes: C) -> Int {
            var h: UInt64 = 0xCBF2_9CE4_8422_2325
            for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
            return Int(truncatingIfNeeded: h ^ (h >> 29))
        }
        // Native strings hand out their bytes directly; walking the UTF-8 view
        // decodes them one by one.
        return s.utf8.withContiguousStorageIfAvailable { fnv($0) } ?? fnv(s.utf8)
    }

    @inline(__always)
    private static func words(_ s: String) -> (UInt64, UInt64) { unsafeBitCast(s, to: (UInt64, UInt64).self) }

    @inline(__always)
    private static func recentSlot(_ w: (UInt64, UInt64)) -> Int {
        Int(truncatingIfNeeded: ((w.0 ^ w.1) &* 0x9E37_79B9_7F4A_7C15) >> 58)
    }

    @inline(__always)
    private func recentID(_ s: String, _ slot: Int) -> Int32? {
        let id = recentIDs[slot]
        return id >= 0 && NameTable.words(recent[slot]) == NameTable.words(s) ? id : nil
    }

    func find(_ s: String) -> Int32? {
        if let id = recentID(s, NameTable.recentSlot(NameTable.words(s))) { return id }
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
        let slot = NameTable.recentSlot(NameTable.words(s))
        if let id = recentID(s, slot) { return id }
        let id = lookUpOrAdd(s)
        recent[slot] = s
        recentIDs[slot] = id
        return id
    }

    private mutating func lookUpOrAdd(_ s: String) -> Int32 {
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
