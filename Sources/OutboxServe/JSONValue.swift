import OutboxCore
import OutboxFoundation

/// A JSON document as read (FoundationEssentials' JSONDecoder into this enum).
/// JSONDecoder does not keep the order of an object's keys, so they are
/// sorted: a payload is shown the same way every time.
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
        return try? JSONDecoder().decode(Box.self, from: Data(bytes)).value
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

    /// Decodes any JSON value, keeping the order of object keys.
    struct Box: Decodable {
        let value: JSONValue

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        // Each value is decoded into a local before the enum is made: a case is
        // never built around a throwing expression.
        init(from decoder: Decoder) throws {
            if var a = try? decoder.unkeyedContainer() {
                var out: [JSONValue] = []
                while !a.isAtEnd {
                    let item = try a.decode(Box.self)
                    out.append(item.value)
                }
                value = .array(out)
            } else if let o = try? decoder.container(keyedBy: Key.self) {
                // allKeys comes in no set order: the order is the document's,
                // which JSONDecoder does not keep; sorted, so output repeats.
                let keys = o.allKeys.map(\.stringValue).sorted()
                var pairs: [(key: String, value: JSONValue)] = []
                pairs.reserveCapacity(keys.count)
                for k in keys {
                    let item = try o.decode(Box.self, forKey: Key(stringValue: k))
                    pairs.append((k, item.value))
                }
                value = .object(pairs)
            } else {
                let c = try decoder.singleValueContainer()
                if c.decodeNil() {
                    value = .null
                } else if let b = try? c.decode(Bool.self) {
                    value = .bool(b)
                } else if let n = try? c.decode(Double.self) {
                    value = .number(n)
                } else {
                    let s = try c.decode(String.self)
                    value = .string(s)
                }
            }
        }
    }
}
