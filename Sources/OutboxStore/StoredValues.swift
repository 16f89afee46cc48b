import CSQLite
import OutboxCore

/// The ranges a value in a device database must be in (docs/storage.md, "Limits
/// on stored values"). Every number is checked against them where it is read,
/// and a request outside them is refused where it would be written, so the store
/// never writes what it would refuse to read.
public enum StoreLimits {
    /// Request ids: the model's ids are `Int32`, from 1.
    public static let id: ClosedRange<Int64> = 1...Int64(Int32.max)
    /// Attempts of one request: an `Int32` the model counts up by one per attempt;
    /// 10^9 leaves more than 10^9 attempts of room before it could overflow.
    public static let attempts: ClosedRange<Int64> = 0...1_000_000_000
    /// Creation time in virtual milliseconds: never negative, and never past the
    /// clock's end (`VirtualTime.maxClock`, 10^16 ms), which the model's clock does
    /// not pass: so the difference or sum of two times cannot overflow an `Int64`.
    /// (Not the 100000h of scenario input: a live screen at 600x passes that in a week.)
    public static let createdAt: ClosedRange<Int64> = 0...VirtualTime.maxClock
    /// A value in millionths: the largest a scenario can write, 12 digits and 6
    /// decimals, either sign.
    public static let valueMicros: ClosedRange<Int64> = -999_999_999_999_999_999...999_999_999_999_999_999
    /// `waiting_for_consent` is a flag.
    public static let flag: ClosedRange<Int64> = 0...1
    /// How often a device may have been opened: the count salts idempotency keys
    /// shifted 40 bits up, so below 2^24 every open gives keys no other open gives.
    /// A device at the last value is refused for writing (its next open would repeat keys).
    public static let opens: ClosedRange<UInt64> = 0...(1 << 24) - 1
}

/// One thing wrong in a device database: the file, where in it, and what.
public struct StoreDamage: Equatable, Sendable, CustomStringConvertible {
    public let path: String
    /// `requests row id 7`, `device row 'opens'`, `table 'requests'`.
    public let place: String
    /// The column, when one is at fault.
    public let column: String?
    /// What was wrong: `is 2147483648, expected a whole number from 0 to 1000000000`.
    public let problem: String

    public init(path: String, place: String, column: String?, problem: String) {
        self.path = path
        self.place = place
        self.column = column
        self.problem = problem
    }

    /// Without the path, for a message that names it once.
    public var detail: String { place + (column.map { ": " + $0 } ?? "") + " " + problem }
    public var description: String { path + ": " + detail }
}

/// Reads the columns of one result row, checking each value's type and range,
/// and notes what is wrong instead of converting it.
struct ColumnReader {
    let path: String
    /// The first damage found, kept in full; `damageCount` counts them all.
    private(set) var damage: [StoreDamage] = []
    private(set) var damageCount = 0
    /// How many damages are kept with their details (a file can have millions).
    static let kept = 1000

    init(path: String) { self.path = path }

    mutating func report(_ place: String, _ column: String?, _ problem: String) {
        damageCount += 1
        if damage.count < ColumnReader.kept {
            damage.append(StoreDamage(path: path, place: place, column: column, problem: problem))
        }
    }

    /// An integer column in `range`; nil (and reported) otherwise.
    mutating func int(
        _ s: OpaquePointer, _ i: Int32, _ place: @autoclosure () -> String, _ name: String,
        _ range: ClosedRange<Int64>
    ) -> Int64? {
        guard sqlite3_column_type(s, i) == SQLITE_INTEGER else {
            report(place(), name, "is \(ColumnReader.show(s, i)), expected \(ColumnReader.expected(range))")
            return nil
        }
        let v = sqlite3_column_int64(s, i)
        guard range.contains(v) else {
            report(place(), name, "is \(v), expected \(ColumnReader.expected(range))")
            return nil
        }
        return v
    }

    /// A text column as it is stored (exact bytes, valid UTF-8); nil (and reported) otherwise.
    mutating func text(_ s: OpaquePointer, _ i: Int32, _ place: @autoclosure () -> String, _ name: String) -> String? {
        guard sqlite3_column_type(s, i) == SQLITE_TEXT else {
            report(place(), name, "is \(ColumnReader.show(s, i)), expected text")
            return nil
        }
        guard let t = ColumnReader.utf8(s, i) else {
            report(place(), name, "is not valid UTF-8 text")
            return nil
        }
        return t
    }

    /// The text of a column, or nil when its bytes are not valid UTF-8.
    static func utf8(_ s: OpaquePointer, _ i: Int32) -> String? {
        let n = Int(sqlite3_column_bytes(s, i))
        guard n > 0, let p = sqlite3_column_text(s, i) else { return "" }
        let bytes = UnsafeBufferPointer(start: p, count: n)
        // Decoding repairs bad sequences with U+FFFD; valid input comes back byte for byte.
        let t = String(decoding: bytes, as: UTF8.self)
        return t.utf8.elementsEqual(bytes) ? t : nil
    }

    /// The bytes of a text column, without building a string.
    static func bytes(_ s: OpaquePointer, _ i: Int32) -> UnsafeBufferPointer<UInt8> {
        let n = Int(sqlite3_column_bytes(s, i))
        guard n > 0, let p = sqlite3_column_text(s, i) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: p, count: n)
    }

    static func expected(_ r: ClosedRange<Int64>) -> String {
        r.lowerBound == 0 && r.upperBound == 1 ? "0 or 1" : "a whole number from \(r.lowerBound) to \(r.upperBound)"
    }

    /// A stored value as a message shows it: numbers as they are, text quoted
    /// and cut short, with control and non-ASCII bytes escaped.
    static func show(_ s: OpaquePointer, _ i: Int32) -> String {
        switch sqlite3_column_type(s, i) {
        case SQLITE_INTEGER: return String(sqlite3_column_int64(s, i))
        case SQLITE_FLOAT: return "\(sqlite3_column_double(s, i)) (a real number)"
        case SQLITE_NULL: return "NULL"
        case SQLITE_BLOB: return "a blob of \(sqlite3_column_bytes(s, i)) bytes"
        default: return quoted(Array(bytes(s, i)))
        }
    }

    static func quoted(_ bytes: [UInt8], limit: Int = 40) -> String {
        var out = "'"
        for b in bytes.prefix(limit) {
            switch b {
            case 0x20..<0x7F where b != 0x27 && b != 0x5C: out.unicodeScalars.append(Unicode.Scalar(b))
            case 0x27: out += "\\'"
            case 0x5C: out += "\\\\"
            default: out += "\\x" + String(b >> 4, radix: 16) + String(b & 0xF, radix: 16)
            }
        }
        return out + (bytes.count > limit ? "'... (\(bytes.count) bytes)" : "'")
    }
}

extension SQLiteDeviceStore {
    /// The columns `readRows` selects, in order.
    static let requestColumns = [
        "id", "kind", "name", "created_at_ms", "idempotency_key", "value_micros", "currency",
        "attributes", "attempts", "waiting_for_consent",
    ]

    /// One request row, every value checked; nil when anything in it is damaged
    /// (each damaged column reported).
    static func request(_ s: OpaquePointer, _ r: inout ColumnReader, _ v: Vocabulary) -> SavedRequest? {
        let before = r.damageCount
        // The id is SQLite's rowid, always an integer; only its range can be wrong.
        let rawID = sqlite3_column_int64(s, 0)
        // Built only when something is reported: this is the start-up path at 10^5 rows.
        func place() -> String { "requests row id \(rawID)" }
        let id = r.int(s, 0, place(), "id", StoreLimits.id)
        let kind = Self.kind(s, 1, place(), &r, v)
        let name = r.text(s, 2, place(), "name")
        let created = r.int(s, 3, place(), "created_at_ms", StoreLimits.createdAt)
        let key = Self.key(s, 4, place(), &r)
        var value: Amount?
        if sqlite3_column_type(s, 5) != SQLITE_NULL {
            value = r.int(s, 5, place(), "value_micros", StoreLimits.valueMicros).map { Amount(micros: $0) }
        }
        let currency = r.text(s, 6, place(), "currency")
        let attributes = r.text(s, 7, place(), "attributes")
        let attempts = r.int(s, 8, place(), "attempts", StoreLimits.attempts)
        let waiting = r.int(s, 9, place(), "waiting_for_consent", StoreLimits.flag)
        guard r.damageCount == before, let id, let kind, let name, let created, let key, let currency, let attributes,
            let attempts, let waiting
        else { return nil }
        // Safe: each value was checked against a range inside its type above.
        return SavedRequest(
            id: Int32(id), kind: kind, name: name, createdAt: created, idempotencyKey: key, value: value,
            currency: currency, attributes: decode(attributes), attempts: Int32(attempts),
            waitingForConsent: waiting == 1)
    }

    /// The kind named by a text column, compared on SQLite's bytes.
    static func kind(
        _ s: OpaquePointer, _ i: Int32, _ place: @autoclosure () -> String, _ r: inout ColumnReader, _ v: Vocabulary
    ) -> RequestKind? {
        // Built only when something is reported: this is the start-up path at 10^5 rows.
        func kindWords() -> String { v.kinds.joined(separator: ", ") }
        guard sqlite3_column_type(s, i) == SQLITE_TEXT else {
            r.report(place(), "kind", "is \(ColumnReader.show(s, i)), expected one of: " + kindWords())
            return nil
        }
        let bytes = ColumnReader.bytes(s, i)
        if let k = v.kinds.firstIndex(where: { $0.utf8.elementsEqual(bytes) }) {
            return RequestKind(rawValue: UInt8(k))
        }
        r.report(place(), "kind", "is \(ColumnReader.show(s, i)), expected one of: " + kindWords())
        return nil
    }

    /// An idempotency key: NULL (none) or 16 hex digits, not all zero (0 means none
    /// and is stored as NULL).
    static func key(_ s: OpaquePointer, _ i: Int32, _ place: @autoclosure () -> String, _ r: inout ColumnReader)
        -> UInt64?
    {
        switch sqlite3_column_type(s, i) {
        case SQLITE_NULL: return 0
        case SQLITE_TEXT:
            if let v = hexValue(ColumnReader.bytes(s, i)), v != 0 { return v }
            fallthrough
        default:
            r.report(
                place(), "idempotency_key",
                "is \(ColumnReader.show(s, i)), expected 16 hex digits (not all zero) or NULL")
            return nil
        }
    }

    /// Exactly 16 hex digits, or nil.
    static func hexValue(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard bytes.count == 16 else { return nil }
        var v: UInt64 = 0
        for d in bytes {
            let n: UInt64
            switch d {
            case 48...57: n = UInt64(d - 48)
            case 97...102: n = UInt64(d - 87)
            case 65...70: n = UInt64(d - 55)
            default: return nil
            }
            v = v << 4 | n
        }
        return v
    }

    /// Why a request cannot be written as it is, or nil: the limits the reader
    /// checks, so nothing is written that a later open would refuse.
    static func unstorable(_ r: SavedRequest) -> String? {
        if !StoreLimits.id.contains(Int64(r.id)) { return "its id \(r.id) is outside \(StoreLimits.id)" }
        if !StoreLimits.attempts.contains(Int64(r.attempts)) {
            return "its attempts \(r.attempts) are outside \(StoreLimits.attempts)"
        }
        if !StoreLimits.createdAt.contains(r.createdAt) {
            return "its creation time \(r.createdAt) ms is outside \(StoreLimits.createdAt)"
        }
        if let v = r.value, !StoreLimits.valueMicros.contains(v.micros) {
            return "its value \(v.micros) millionths is outside \(StoreLimits.valueMicros)"
        }
        return nil
    }
}
