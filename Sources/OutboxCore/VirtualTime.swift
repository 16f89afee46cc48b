/// Virtual time: whole milliseconds since the start of a simulation.
public typealias Millis = Int64

public enum VirtualTime {
    /// Parses `0`, `250ms`, `1.5s`, `2m`, `1h` into whole milliseconds.
    /// Returns nil with no explanation; callers name the place and what was expected.
    public static func parse(_ text: String) -> Millis? {
        if text == "0" { return 0 }
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        for (unit, factor) in units where text.hasSuffix(unit) {
            let number = String(text.dropLast(unit.count))
            // "1ms" must not be read as "1m" + "s": the loop tries "ms" first.
            guard let scaled = Decimal3.parse(number, scale: factor) else { return nil }
            return scaled
        }
        return nil
    }

    /// `1.5` seconds style, for JSON: shortest exact decimal of seconds.
    public static func seconds(_ ms: Millis) -> String {
        let sign = ms < 0 ? "-" : ""
        let a = ms.magnitude
        let whole = a / 1000, frac = a % 1000
        if frac == 0 { return sign + String(whole) }
        var f = String(frac)
        while f.count < 3 { f = "0" + f }
        while f.hasSuffix("0") { f.removeLast() }
        return sign + String(whole) + "." + f
    }

    /// `HH:MM:SS.mmm`, for people.
    public static func clock(_ ms: Millis) -> String {
        let a = ms < 0 ? 0 : ms
        let h = a / 3_600_000, m = (a / 60_000) % 60, s = (a / 1000) % 60, f = a % 1000
        return pad(h, 2) + ":" + pad(m, 2) + ":" + pad(s, 2) + "." + pad(f, 3)
    }

    /// The shortest way to write a duration the way scenario files do (`2s`, `1.5s`, `250ms`, `2m`).
    public static func duration(_ ms: Millis) -> String {
        if ms == 0 { return "0" }
        if ms % 3_600_000 == 0 { return String(ms / 3_600_000) + "h" }
        if ms % 60_000 == 0 { return String(ms / 60_000) + "m" }
        if ms >= 1000 { return seconds(ms) + "s" }
        return String(ms) + "ms"
    }

    static func pad(_ v: Int64, _ width: Int) -> String {
        var s = String(v)
        while s.count < width { s = "0" + s }
        return s
    }
}

/// Exact decimal parsing without floating point.
enum Decimal3 {
    /// Parses a non-negative decimal like `1.5` and multiplies it by `scale`;
    /// nil unless the result is a whole number.
    static func parse(_ text: String, scale: Int64) -> Int64? {
        guard !text.isEmpty else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let intPart = parts.first, !intPart.isEmpty,
            intPart.allSatisfy({ $0.isASCII && $0.isNumber }), intPart.count <= 12,
            let whole = Int64(intPart)
        else { return nil }
        var result = whole * scale
        if parts.count == 2 {
            let frac = parts[1]
            guard !frac.isEmpty, frac.count <= 9, frac.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            var denom: Int64 = 1
            for _ in 0..<frac.count { denom *= 10 }
            let num = Int64(frac)! * scale
            guard num % denom == 0 else { return nil }
            result += num / denom
        }
        return result
    }
}

/// A money amount in millionths, exact.
public struct Amount: Equatable, Hashable, Comparable, Sendable {
    public var micros: Int64
    public init(micros: Int64) { self.micros = micros }

    public static func < (a: Amount, b: Amount) -> Bool { a.micros < b.micros }

    /// Parses `49.99`, `-3`, `0.000001`.
    public static func parse(_ text: String) -> Amount? {
        var t = Substring(text)
        var negative = false
        if t.hasPrefix("-") { negative = true; t = t.dropFirst() }
        guard let v = Decimal3.parse(String(t), scale: 1_000_000) else { return nil }
        return Amount(micros: negative ? -v : v)
    }

    /// The shortest exact decimal: `49.99`, `100`.
    public var text: String {
        let sign = micros < 0 ? "-" : ""
        let a = micros.magnitude
        let whole = a / 1_000_000, frac = a % 1_000_000
        if frac == 0 { return sign + String(whole) }
        var f = String(frac)
        while f.count < 6 { f = "0" + f }
        while f.hasSuffix("0") { f.removeLast() }
        return sign + String(whole) + "." + f
    }
}

/// SplitMix64: a tiny, repeatable random generator.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
