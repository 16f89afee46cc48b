// fuzz-modules: OutboxCLI
// fuzz-shared: Device.swift
// fuzz-make-seeds
// fuzz-options: -detect_leaks=0
//
// Fuzz target `store-rows`: a valid device database whose rows are whatever the
// input says. The bytes are read as a profile, rows for the `device` and
// `requests` tables (each column any SQLite type and value: NULL, integers at
// and past the edges, reals, text that is not UTF-8, blobs), sometimes another
// schema version, and then actions. The rows are written with SQLite into a
// copy of a fresh device; then, as a user would (`useDevice`): `outbox state
// show`, the device opened, the app launched on it in the live screen's model,
// the actions played, frames drawn. OUTBOX_FUZZ_SAVE_DB=FILE keeps the database
// written for an input, to open with `outbox --state-dir`.
//
// (libFuzzer checks for leaks after any input whose mallocs and frees differ in
// number; memory SQLite and the store's check thread keep between inputs makes
// that most inputs here, and each check scans the heap: 61 inputs a second
// instead of 491. LeakSanitizer still checks the whole run when it ends, and
// scripts/fuzz reports what it finds.)
import CSQLite
import OutboxCLI
import OutboxCore
import OutboxStore
import OutboxUI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One value for a column, of any SQLite type.
enum Value {
    case null, int(Int64), real(Double), text([UInt8]), blob([UInt8])
}

/// The columns of `requests`, in the store's order.
let columns = ["id", "kind", "name", "created_at_ms", "idempotency_key", "value_micros", "currency", "attributes",
               "attempts", "waiting_for_consent"]

/// A likely value for a column: what the store itself writes, mostly.
func plausible(_ column: Int, _ r: inout Reader, row: Int) -> Value {
    let b = r.byte()
    switch column {
    case 0: return .int(Int64(row + 1) + Int64(b % 4))
    case 1:
        let kinds = Vocabulary.builtin.kinds
        return .text(Array(kinds[Int(b) % kinds.count].utf8))
    case 2: return .text(Array(["purchase", "signup", "open", "é", ""][Int(b) % 5].utf8))
    case 3: return .int(Int64(b) * 1000)
    case 4: return b % 2 == 0 ? .null : .text(Array(String(repeating: "0", count: 15).utf8) + [0x31 + b % 9])
    case 5: return b % 2 == 0 ? .null : .int(Int64(b) * 10_000)
    case 6: return .text(b % 2 == 0 ? [] : Array("USD".utf8))
    case 7: return .text(b % 2 == 0 ? [] : Array("plan\u{1F}gold\u{1E}x\u{1F}".utf8))
    case 8: return .int(Int64(b % 5))
    default: return .int(Int64(b % 2))
    }
}

/// Integers where conversions and counters break.
let edges: [Int64] = [0, -1, 1, Int64(Int32.max), Int64(Int32.max) + 1, Int64(Int32.min), Int64(Int32.min) - 1,
                      Int64.max, Int64.min, 1 << 40, -(1 << 40), 4096, 4095, 1_000_000_000]

func value(_ column: Int, _ r: inout Reader, row: Int) -> Value {
    switch r.byte() % 10 {
    case 0, 1, 2, 3: return plausible(column, &r, row: row)
    case 4: return .null
    case 5: return .int(Int64(Int8(bitPattern: r.byte())))
    case 6: return .int(r.int64())
    case 7: return .int(edges[Int(r.byte()) % edges.count])
    case 8: return r.byte() % 4 == 0 ? .real(Double(bitPattern: UInt64(bitPattern: r.int64()))) : .text(r.data(max: 40))
    default: return r.byte() % 2 == 0 ? .blob(r.data(max: 24)) : .real(Double(Int8(bitPattern: r.byte())) * 1e17)
    }
}

func bind(_ s: OpaquePointer, _ i: Int32, _ v: Value) {
    switch v {
    case .null: sqlite3_bind_null(s, i)
    case .int(let n): sqlite3_bind_int64(s, i, n)
    case .real(let d): sqlite3_bind_double(s, i, d)
    case .text(let b): _ = b.withUnsafeBufferPointer {
            sqlite3_bind_text(s, i, UnsafeRawPointer($0.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                .assumingMemoryBound(to: CChar.self), Int32($0.count), outbox_sqlite_transient())
        }
    case .blob(let b): _ = b.withUnsafeBufferPointer {
            sqlite3_bind_blob(s, i, $0.baseAddress, Int32($0.count), outbox_sqlite_transient())
        }
    }
}

/// Runs one statement with values; a refused row (a type the table will not
/// take, a duplicate key) is skipped, as a damaged file might hold anything else.
func insert(_ db: OpaquePointer, _ sql: String, _ values: [Value]) {
    var s: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &s, nil) == SQLITE_OK, let s else { return }
    defer { sqlite3_finalize(s) }
    for (i, v) in values.enumerated() { bind(s, Int32(i + 1), v) }
    _ = sqlite3_step(s)
}

// MARK: The target

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    setUpFiles()
    var r = Reader(UnsafeBufferPointer(start: data, count: size))
    let profile = Profile.allCases[Int(r.byte()) % 4]
    let path = placeDevice(freshDevices[profile]!, profile)
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else {
        fatalError("cannot open the copied device")
    }
    sqlite3_exec(db, "PRAGMA synchronous=OFF; BEGIN", nil, nil, nil)
    let schema = r.byte()
    if schema >= 248 { sqlite3_exec(db, "PRAGMA user_version=\(Int(schema) - 250)", nil, nil, nil) }
    if r.byte() == 255 { sqlite3_exec(db, "PRAGMA application_id=\(Int32(truncatingIfNeeded: r.int64()))", nil, nil, nil) }
    for _ in 0..<(r.byte() % 4) {
        let keys = ["consent", "install_created", "opens"]
        let k = r.byte()
        let key: Value = k < 240 ? .text(Array(keys[Int(k) % 3].utf8)) : .text(r.data(max: 12))
        let v: Value
        switch r.byte() % 4 {
        case 0: v = .text(Array(["granted", "denied", "undecided", "1", "0", "18446744073709551615", "-1"][Int(r.byte()) % 7].utf8))
        default: v = value(1, &r, row: 0)
        }
        insert(db, "INSERT OR REPLACE INTO device (key, value) VALUES (?, ?)", [key, v])
    }
    let rows = Int(r.byte() % 32)
    for row in 0..<rows {
        let values = (0..<columns.count).map { value($0, &r, row: row) }
        insert(db, "INSERT OR REPLACE INTO requests (\(columns.joined(separator: ", "))) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", values)
    }
    sqlite3_exec(db, "COMMIT", nil, nil, nil)
    sqlite3_close(db)
    if let keep = getenv("OUTBOX_FUZZ_SAVE_DB") { writeFile(String(cString: keep), readFile(path)) }
    useDevice(profile, &r)
    return 0
}

// MARK: Seeds

/// A few inputs that make plausible devices: rows as the store writes them.
func makeSeeds(_ dir: String) {
    for p in 0..<4 {
        for rows in [0, 1, 3, 12] {
            // profile, schema as is, application_id as is, one device row (consent granted), the rows
            var bytes: [UInt8] = [UInt8(p), 0, 0, 1, 0, 0, 0, UInt8(rows)]
            for _ in 0..<rows { for c in 0..<columns.count { bytes += [0, UInt8(c * 37 % 256)] } }
            bytes += [9, 40, 2, 9, 40, 0, 9, 200, 1, 9, 200]
            writeFile(dir + "/seed-\(p)-\(rows)", bytes)
        }
    }
}
