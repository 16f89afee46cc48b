/// Virtual time: whole milliseconds since the start of a simulation.
public typealias Millis = Int64

public enum VirtualTime {
    /// The largest time or duration any input may give (`at`, `expect at`, `latency`,
    /// `timeout`, `retry.delays`; a saved request's creation time is held to
    /// `maxClock` instead, docs/storage.md): 100000h, about 11
    /// years. Far past any scenario, and far enough inside `Millis` that sums of such
    /// values cannot overflow (docs/reliability.md).
    public static let maxInput: Millis = 100_000 * 3_600_000
    /// `maxInput` as scenario files write it.
    public static let maxInputText = "100000h"
    /// The clock never runs past this (about 317,000 years): a run that would is
    /// stopped (`ScenarioRunner`), and a timer that would be due later is set here.
    public static let maxClock: Millis = 10_000_000_000_000_000

    /// `t + d`, never past `maxClock` and never trapping, whatever the operands.
    @inline(__always)
    public static func later(_ t: Millis, by d: Millis) -> Millis {
        let (sum, overflow) = t.addingReportingOverflow(d)
        return overflow || sum > maxClock ? maxClock : sum
    }

    /// Parses a time into whole milliseconds: `0`; a number with a unit (`250ms`,
    /// `1.5s`, `2m`, `1h`); units together, largest first, each at most once and
    /// only the last with a fraction (`2m10s`, `1m31.4s`, `3m0s`, `1h2m3.5s`,
    /// `1s500ms`); or a clock, `HH:MM:SS` with up to three decimals
    /// (`00:02:10.000`, `00:00:05.2`) or `MM:SS` (`02:10.5`). Every form Outbox
    /// writes reads back (issue 22): the compound one is the picture's axis and
    /// summaries, the clock the text timeline's, the live screen's and
    /// `compare`'s. Returns nil with no explanation; callers name the place and
    /// what was expected (`expected`).
    public static func parse(_ text: String) -> Millis? {
        if text == "0" { return 0 }
        if text.utf8.contains(UInt8(ascii: ":")) { return parseClock(text) }
        // The units in the order they may follow each other; "ms" before "m" and
        // "s", so that "1ms" is not read as "1m" then "s".
        let units: [(String, Int64)] = [("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1)]
        var rest = Substring(text)
        var total: Int64 = 0
        var next = 0  // the first unit the next part may have
        var fractionSeen = false
        while !rest.isEmpty {
            guard !fractionSeen else { return nil }  // only the last part has a fraction
            let number = rest.prefix { $0 == "." || ($0.isASCII && $0.isNumber) }
            guard !number.isEmpty else { return nil }
            rest = rest.dropFirst(number.count)
            let unitText = rest.prefix { $0.isASCII && $0.isLetter }
            rest = rest.dropFirst(unitText.count)
            guard let k = units.indices.first(where: { $0 >= next && units[$0].0 == unitText }) else { return nil }
            guard let scaled = Decimal3.parse(String(number), scale: units[k].1) else { return nil }
            fractionSeen = number.contains(".")
            let (sum, overflow) = total.addingReportingOverflow(scaled)
            guard !overflow else { return nil }
            total = sum
            next = k + 1
        }
        return next > 0 ? total : nil
    }

    /// `HH:MM:SS[.f]` or `MM:SS[.f]`: the first field any number of digits, the
    /// others two digits below 60, the seconds' fraction one to three digits.
    static func parseClock(_ text: String) -> Millis? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3 else { return nil }
        let last = fields[fields.count - 1].split(separator: ".", omittingEmptySubsequences: false)
        guard last.count <= 2, last.count == 1 || (1...3).contains(last[1].count) else { return nil }
        func digits(_ s: Substring) -> Bool { !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isNumber } }
        let lead = fields[0]
        guard digits(lead), lead.count <= 12, let first = Int64(lead) else { return nil }
        var total = first * (fields.count == 3 ? 3_600_000 : 60_000)
        for (k, f) in ([fields.count == 3 ? fields[1] : nil, last[0]] as [Substring?]).enumerated() {
            guard let f else { continue }
            guard f.count == 2, digits(f), let v = Int64(f), v < 60 else { return nil }
            total += v * (k == 0 ? 60_000 : 1000)
        }
        if last.count == 2 {
            guard digits(last[1]), let v = Int64(last[1]) else { return nil }
            total += v * [100, 10, 1][last[1].count - 1]
        }
        return total
    }

    /// The forms a time may take, as messages say it.
    public static let expected =
        "expected 0, a number with a unit (250ms, 1.5s, 2m, 1h), units together (2m10s, 1h2m3.5s) or a clock (00:02:10.000), in whole milliseconds"

    /// Like `parse`, but a value past `maxInput` is refused with the reason, for
    /// every time or duration read from input.
    public static func parseLimited(_ text: String) -> Result<Millis, Problem> {
        guard let t = parse(text) else { return .failure(Problem(expected)) }
        guard t <= maxInput else {
            return .failure(Problem("expected at most \(maxInputText), the longest time Outbox takes"))
        }
        return .success(t)
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

/// A sum of amounts that cannot overflow: revenue totals (LT-13). Each event's
/// amount fits `Amount` (at most 12 integer digits); a total of any number of them
/// is kept in 128 bits (two's complement, as a high and a low word), far past what
/// any run can add up. Written without `Int128`, which older macOS lacks.
public struct AmountSum: Equatable, Hashable, Sendable, CustomStringConvertible {
    public private(set) var high: Int64 = 0
    public private(set) var low: UInt64 = 0

    public init() {}
    public init(_ a: Amount) { add(a) }

    public var isZero: Bool { high == 0 && low == 0 }

    /// The total in millionths when it fits 64 bits, else nil.
    public var micros: Int64? {
        let v = Int64(bitPattern: low)
        return (high == 0 && v >= 0) || (high == -1 && v < 0) ? v : nil
    }

    public mutating func add(_ a: Amount) {
        let ext: Int64 = a.micros < 0 ? -1 : 0
        let (l, carry) = low.addingReportingOverflow(UInt64(bitPattern: a.micros))
        low = l
        // The high word holds at most 2^63 sums of 2^63: it cannot wrap in any run.
        high = high &+ ext &+ (carry ? 1 : 0)
    }

    /// Parses a decimal total like `Amount.parse` does, but with up to 30 integer
    /// digits (`expect ... revenue` may name totals no single event can carry).
    public static func parse(_ text: String) -> AmountSum? {
        var t = Substring(text)
        var negative = false
        if t.hasPrefix("-") { negative = true; t = t.dropFirst() }
        let parts = t.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 30,
            whole.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        var frac = parts.count == 2 ? parts[1] : ""
        if parts.count == 2 && frac.isEmpty { return nil }
        guard frac.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        // Millionths: digits past the sixth must be zeros, as `Amount` requires.
        while frac.count > 6 {
            guard frac.last == "0" else { return nil }
            frac = frac.dropLast()
        }
        var hi: UInt64 = 0, lo: UInt64 = 0
        for ch in whole + frac + String(repeating: "0", count: 6 - frac.count) {
            // (hi, lo) = (hi, lo) * 10 + digit; 30+6 digits stay below 2^127.
            let (carry, l) = lo.multipliedFullWidth(by: 10)
            let (l2, c2) = l.addingReportingOverflow(UInt64(ch.asciiValue! - 48))
            lo = l2
            hi = hi &* 10 &+ carry &+ (c2 ? 1 : 0)
        }
        var sum = AmountSum()
        if negative { AmountSum.negate(&hi, &lo) }
        sum.high = Int64(bitPattern: hi)
        sum.low = lo
        return sum
    }

    /// Two's complement negation of a 128-bit value held as two words.
    static func negate(_ hi: inout UInt64, _ lo: inout UInt64) {
        hi = ~hi
        lo = ~lo
        let (l, c) = lo.addingReportingOverflow(1)
        lo = l
        if c { hi &+= 1 }
    }

    /// The shortest exact decimal, like `Amount.text`: `49.99`, `-3`, `12000000000000.5`.
    public var text: String {
        let negative = high < 0
        // Magnitude as two words.
        var hi = UInt64(bitPattern: high), lo = low
        if negative { AmountSum.negate(&hi, &lo) }
        // Decimal digits by repeated division by 10 of the 128-bit magnitude.
        var digits: [UInt8] = []
        repeat {
            let (qh, rh) = hi.quotientAndRemainder(dividingBy: 10)
            let (ql, rl) = UInt64(10).dividingFullWidth((high: rh, low: lo))
            hi = qh
            lo = ql
            digits.append(UInt8(rl))
        } while hi != 0 || lo != 0
        while digits.count < 7 { digits.append(0) }
        let all = String(digits.reversed().map { Character(Unicode.Scalar($0 + 48)) })
        var whole = String(all.dropLast(6)), frac = String(all.suffix(6))
        while frac.hasSuffix("0") { frac.removeLast() }
        if whole.isEmpty { whole = "0" }
        return (negative ? "-" : "") + whole + (frac.isEmpty ? "" : "." + frac)
    }

    public var description: String { text }
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
