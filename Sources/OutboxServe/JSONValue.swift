import OutboxCore
import OutboxFoundation

/// A JSON document as read (RFC 8259, by `JSONReader`). An object's keys are
/// sorted (a key given twice keeps its last value): a payload is shown the same
/// way every time, whatever order the SDK wrote it in.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// Reads a document; nil when it is not JSON.
    public static func parse(_ bytes: [UInt8]) -> JSONValue? {
        guard !bytes.isEmpty else { return nil }
        return bytes.withUnsafeBufferPointer { b in
            var r = JSONReader(b)
            return r.document()
        }
    }

    public subscript(key: String) -> JSONValue? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var array: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// A string, or a number or a bool written as JSON writes it: an id field's text.
    public var text: String? {
        switch self {
        case .string(let s): return s
        case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .bool(let b): return b ? "true" : "false"
        default: return nil
        }
    }

    /// An id field's text, nil when it is empty: an event whose id is `""` has
    /// none (events keyed by it would all be one event).
    public var idText: String? {
        guard let t = text, !t.isEmpty else { return nil }
        return t
    }

    /// Compact JSON, keys in their order.
    public var json: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number: return text ?? "0"
        case .string(let s): return JSONValue.quote(s)
        case .array(let a): return "[" + a.map(\.json).joined(separator: ",") + "]"
        case .object(let pairs):
            return "{" + pairs.map { JSONValue.quote($0.key) + ":" + $0.value.json }.joined(separator: ",") + "}"
        }
    }

    /// Indented JSON, two spaces a level: the detail pane's payload.
    public func pretty(_ indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .array(let a) where !a.isEmpty:
            return "[\n" + a.map { inner + $0.pretty(inner) }.joined(separator: ",\n") + "\n" + indent + "]"
        case .object(let pairs) where !pairs.isEmpty:
            return "{\n"
                + pairs.map { inner + JSONValue.quote($0.key) + ": " + $0.value.pretty(inner) }.joined(separator: ",\n")
                + "\n" + indent + "}"
        default: return json
        }
    }

    /// A JSON string literal: the timeline's JSONL quoting (controls and the
    /// scalars a terminal obeys as \u escapes).
    public static func quote(_ s: String) -> String { JSONObject.quote(s) }
}

/// A JSON reader over bytes (RFC 8259): strict as the RFC is (no comments, no
/// trailing commas, no raw control characters in strings, valid UTF-8, finite
/// numbers), nested at most `maxDepth` deep (a hostile body cannot exhaust the
/// stack). It replaced JSONDecoder and a Decodable box, which took a third of
/// the server's time on small requests (docs/performance.md).
struct JSONReader {
    let b: UnsafeBufferPointer<UInt8>
    var i = 0
    var depth = 0
    static let maxDepth = 512

    init(_ b: UnsafeBufferPointer<UInt8>) { self.b = b }

    /// The whole input as one value, nil when it is not exactly one.
    mutating func document() -> JSONValue? {
        guard let v = value() else { return nil }
        space()
        return i == b.count ? v : nil
    }

    mutating func space() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    }

    mutating func literal(_ word: StaticString, _ v: JSONValue) -> JSONValue? {
        let n = word.utf8CodeUnitCount
        guard i + n <= b.count else { return nil }
        let w = word.utf8Start
        for k in 0..<n where b[i + k] != w[k] { return nil }
        i += n
        return v
    }

    mutating func value() -> JSONValue? {
        space()
        guard i < b.count else { return nil }
        switch b[i] {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map { .string($0) }
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    mutating func object() -> JSONValue? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= JSONReader.maxDepth else { return nil }
        i += 1
        var pairs: [(key: String, value: JSONValue)] = []
        space()
        if i < b.count, b[i] == UInt8(ascii: "}") {
            i += 1
            return .object(pairs)
        }
        while true {
            space()
            guard i < b.count, b[i] == UInt8(ascii: "\""), let k = string() else { return nil }
            space()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            guard let v = value() else { return nil }
            pairs.append((k, v))
            space()
            guard i < b.count else { return nil }
            if b[i] == UInt8(ascii: ",") {
                i += 1
            } else if b[i] == UInt8(ascii: "}") {
                i += 1
                break
            } else {
                return nil
            }
        }
        // Sorted by key, stably; of a key given twice the last stays.
        if pairs.count > 1 {
            let order = pairs.indices.sorted { a, c in
                pairs[a].key != pairs[c].key ? pairs[a].key < pairs[c].key : a < c
            }
            var out: [(key: String, value: JSONValue)] = []
            out.reserveCapacity(pairs.count)
            for k in order {
                if let last = out.last, last.key == pairs[k].key {
                    out[out.count - 1] = pairs[k]
                } else {
                    out.append(pairs[k])
                }
            }
            pairs = out
        }
        return .object(pairs)
    }

    mutating func array() -> JSONValue? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= JSONReader.maxDepth else { return nil }
        i += 1
        var items: [JSONValue] = []
        space()
        if i < b.count, b[i] == UInt8(ascii: "]") {
            i += 1
            return .array(items)
        }
        while true {
            guard let v = value() else { return nil }
            items.append(v)
            space()
            guard i < b.count else { return nil }
            if b[i] == UInt8(ascii: ",") {
                i += 1
            } else if b[i] == UInt8(ascii: "]") {
                i += 1
                return .array(items)
            } else {
                return nil
            }
        }
    }

    /// A string at `i` (its opening quote); nil when it is not a valid one.
    mutating func string() -> String? {
        i += 1
        let start = i
        // The common case: no escape, taken as it is. ASCII needs no validation
        // (`String(validating:)` costs a generic metadata lookup a call: perf).
        var ascii = true
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                let run = UnsafeBufferPointer(rebasing: b[start..<i])
                let s = ascii ? String(decoding: run, as: UTF8.self) : String(validating: run, as: UTF8.self)
                i += 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { return nil }
            if c >= 0x80 { ascii = false }
            i += 1
        }
        guard i < b.count else { return nil }
        var bytes = Array(b[start..<i])
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                return String(validating: bytes, as: UTF8.self)
            }
            if c < 0x20 { return nil }
            if c != UInt8(ascii: "\\") {
                bytes.append(c)
                i += 1
                continue
            }
            i += 1
            guard i < b.count else { return nil }
            let e = b[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): bytes.append(0x22)
            case UInt8(ascii: "\\"): bytes.append(0x5C)
            case UInt8(ascii: "/"): bytes.append(0x2F)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                guard var u = hex4() else { return nil }
                if (0xD800..<0xDC00).contains(u) {
                    // A high surrogate: its low one must follow.
                    guard i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else { return nil }
                    i += 2
                    guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                    u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(u) {
                    return nil
                }
                guard let scalar = Unicode.Scalar(u) else { return nil }
                bytes.append(contentsOf: String(Character(scalar)).utf8)
            default: return nil
            }
        }
        return nil
    }

    mutating func hex4() -> UInt32? {
        guard i + 4 <= b.count else { return nil }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = b[i]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: return nil
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    /// A number by RFC 8259's grammar, finite as a Double.
    mutating func number() -> JSONValue? {
        let start = i
        func digit(_ k: Int) -> Bool { k < b.count && b[k] >= UInt8(ascii: "0") && b[k] <= UInt8(ascii: "9") }
        if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
        guard digit(i) else { return nil }
        if b[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            while digit(i) { i += 1 }
        }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard digit(i) else { return nil }
            while digit(i) { i += 1 }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard digit(i) else { return nil }
            while digit(i) { i += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
        guard let d = Double(text), d.isFinite else { return nil }
        return .number(d)
    }
}
