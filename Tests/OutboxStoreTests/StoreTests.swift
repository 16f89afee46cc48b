import CSQLite
import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxStore

func tempDir(_ name: String) -> String {
    let d = FileManager.default.temporaryDirectory.appendingPathComponent(
        "outbox-store-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    ).path
    try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
    return d
}

/// Runs SQL on a database file directly, as another program would.
func rawSQL(_ path: String, _ sql: String) -> String? {
    var db: OpaquePointer?
    guard sqlite3_open(path, &db) == SQLITE_OK else { return nil }
    defer { sqlite3_close(db) }
    var s: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &s, nil) == SQLITE_OK else { return nil }
    defer { sqlite3_finalize(s) }
    var out: [String] = []
    while sqlite3_step(s) == SQLITE_ROW {
        out.append(sqlite3_column_text(s, 0).map { String(cString: $0) } ?? "")
    }
    return out.joined(separator: "\n")
}

final class StoreTests: XCTestCase {
    func record(_ id: Int32, _ kind: RequestKind, key: UInt64 = 0, waiting: Bool = false) -> SavedRequest {
        SavedRequest(
            id: id, kind: kind, name: "n-\(Vocabulary.builtin.word(kind)) \"q\"", createdAt: 1234 + Millis(id),
            idempotencyKey: key,
            value: id % 2 == 0 ? Amount.parse("49.99") : nil, currency: id % 2 == 0 ? "USD" : "",
            attributes: id % 3 == 0 ? [Attribute(key: "a", value: "b c"), Attribute(key: "n", value: "")] : [],
            attempts: id * 2, waitingForConsent: waiting)
    }

    func test_roundTrip_everyKindEveryProfile_andDeviceFacts() throws {
        for profile in Profile.allCases {
            let dir = tempDir("rt")
            var rows: [SavedRequest] = []
            do {
                let s = try SQLiteDeviceStore(directory: dir, profile: profile)
                for (i, k) in Vocabulary.builtin.allKinds.enumerated() {
                    let r = record(
                        Int32(i + 1), k, key: profile == .linktrail ? UInt64.max - UInt64(i) : 0,
                        waiting: k == .install)
                    s.save(r)
                    rows.append(r)
                }
                s.attempted(id: 2, attempts: 77)
                rows[1].attempts = 77
                s.remove(id: 3)
                rows.remove(at: 2)
                s.consent = .denied
                s.installCreated = true
                XCTAssertNil(s.failure)
                s.close()
            }
            let again = try SQLiteDeviceStore(directory: dir, profile: profile)
            XCTAssertEqual(again.loadAll(), rows, profile.rawValue)
            XCTAssertEqual(again.consent, .denied)
            XCTAssertTrue(again.installCreated)
            XCTAssertEqual(again.epoch, 1, "opened once before")
            again.close()
            // The sqlite3 command-line tool reads it: it is a real database.
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            p.arguments = [
                SQLiteDeviceStore.databasePath(directory: dir, profile: profile),
                "SELECT count(*), sum(attempts) FROM requests; PRAGMA journal_mode;",
            ]
            let pipe = Pipe()
            p.standardOutput = pipe
            try p.run()
            p.waitUntilExit()
            let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertEqual(out, "\(rows.count)|\(rows.reduce(0) { $0 + Int($1.attempts) })\nwal\n")
        }
    }

    /// quit and launch through the SQLite device give the same timeline as in memory.
    func test_stateDirRun_givesTheSameTimelineAsMemory() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: packageRoot + "/examples").filter {
            $0.hasSuffix(".outbox")
        }
        XCTAssertGreaterThanOrEqual(files.count, 6)
        for f in files.sorted() {
            let path = packageRoot + "/examples/" + f
            let memory = cli(["run", "--format", "jsonl", path])
            let disk = cli(["run", "--format", "jsonl", "--state-dir", tempDir("same"), path])
            XCTAssertEqual(memory.0, 0, f)
            XCTAssertEqual(disk.0, 0, f + disk.2)
            XCTAssertEqual(memory.1, disk.1, f)
        }
    }

    /// A second run on the same device picks up what the first saved, same keys, attempts counted on.
    func test_secondRunOnTheDevice_sendsWhatTheFirstSaved() {
        let dir = tempDir("two")
        let first = """
            profile linktrail
            set requireConsent false
            at 0 launch
            at 1s network offline
            at 1s track purchase value=49.99 currency=USD
            at 10s quit
            expect at 10s saved 1
            expect at 10s attempts purchase 3
            """
        let second = """
            profile linktrail
            set requireConsent false
            at 0 launch
            expect at 0 saved 1
            expect at 1s state purchase delivered
            expect at 1s attempts purchase 4
            expect at 1s revenue USD 49.99
            expect at 1s saved 0
            """
        let a = tempDir("files") + "/a.outbox", b = tempDir("files") + "/b.outbox"
        try? first.write(toFile: a, atomically: true, encoding: .utf8)
        try? second.write(toFile: b, atomically: true, encoding: .utf8)
        XCTAssertEqual(cli(["run", "--quiet", "--state-dir", dir, a]).0, 0)
        let key = rawSQL(
            SQLiteDeviceStore.databasePath(directory: dir, profile: .linktrail), "SELECT idempotency_key FROM requests")
        XCTAssertEqual(key?.count, 16)
        let r = cli(["run", "--format", "jsonl", "--state-dir", dir, b])
        XCTAssertEqual(r.0, 0, r.1 + r.2)
        // The install was created by the first run only (LT-3).
        XCTAssertFalse(r.1.contains("\"name\":\"install\""))
    }

    // MARK: Bad files

    func assertRefused(
        _ dir: String, _ profile: Profile = .linktrail, _ want: String, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        do {
            let s = try SQLiteDeviceStore(directory: dir, profile: profile)
            s.close()
            XCTFail("opened, expected: \(want)", file: file, line: line)
        } catch {
            XCTAssertTrue(error.description.contains(want), error.description, file: file, line: line)
            XCTAssertTrue(
                error.description.contains(dir), "the error names the path: \(error.description)", file: file,
                line: line)
        }
    }

    func makeDevice(_ dir: String, requests: Int = 50) -> String {
        let s = try! SQLiteDeviceStore(directory: dir, profile: .linktrail)
        for i in 1...requests { s.save(record(Int32(i), .event, key: UInt64(i))) }
        s.close()
        return SQLiteDeviceStore.databasePath(directory: dir, profile: .linktrail)
    }

    func test_badFiles_clearErrors_nothingDeleted() throws {
        // Truncated.
        var dir = tempDir("trunc")
        var db = makeDevice(dir, requests: 400)
        _ = rawSQL(db, "PRAGMA wal_checkpoint(TRUNCATE)")
        var data = try Data(contentsOf: URL(fileURLWithPath: db))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: db))
        for f in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + f) }
        assertRefused(dir, .linktrail, "damaged")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)).count, data.count / 2, "nothing was changed")

        // Bit-flipped pages after the header.
        dir = tempDir("flip")
        db = makeDevice(dir, requests: 400)
        _ = rawSQL(db, "PRAGMA wal_checkpoint(TRUNCATE)")
        data = try Data(contentsOf: URL(fileURLWithPath: db))
        var bytes = [UInt8](data)
        for i in stride(from: 4096 + 100, to: bytes.count, by: 97) { bytes[i] ^= 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: db))
        for f in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + f) }
        assertRefused(dir, .linktrail, "damaged")

        // Foreign: not SQLite at all, and SQLite of another program.
        dir = tempDir("foreign")
        db = SQLiteDeviceStore.databasePath(directory: dir, profile: .linktrail)
        try "hello, I am a text file\n".write(toFile: db, atomically: true, encoding: .utf8)
        assertRefused(dir, .linktrail, "is not an SQLite database")
        XCTAssertEqual(try String(contentsOfFile: db, encoding: .utf8), "hello, I am a text file\n")
        dir = tempDir("other")
        db = SQLiteDeviceStore.databasePath(directory: dir, profile: .ios)
        _ = rawSQL(db, "CREATE TABLE notes (x TEXT)")
        assertRefused(dir, .ios, "some other program")
        XCTAssertEqual(rawSQL(db, "SELECT name FROM sqlite_master"), "notes")

        // A schema from the future.
        dir = tempDir("future")
        db = makeDevice(dir)
        _ = rawSQL(db, "PRAGMA user_version=99")
        assertRefused(dir, .linktrail, "schema version 99, newer than this build's 1")
        XCTAssertEqual(rawSQL(db, "SELECT count(*) FROM requests"), "50")
    }

    /// The rows read at open (beside the quick_check) are what the first launch gets,
    /// unless something was written before it: then it reads the database again.
    func test_rowsReadAtOpen_areCurrentAtTheFirstLoad() throws {
        let dir = tempDir("preload")
        _ = makeDevice(dir, requests: 30)
        var s = try SQLiteDeviceStore(directory: dir, profile: .linktrail)
        XCTAssertEqual(s.loadAll().map(\.id), Array(1...30))
        XCTAssertEqual(s.loadAll().map(\.id), Array(1...30), "a second launch reads again")
        s.close()
        s = try SQLiteDeviceStore(directory: dir, profile: .linktrail)
        s.remove(id: 3)
        s.save(record(31, Vocabulary.builtin.kind("ping")!))
        s.attempted(id: 31, attempts: 4)
        let rows = s.loadAll()
        XCTAssertEqual(rows.map(\.id), Array(1...31).filter { $0 != 3 })
        XCTAssertEqual(rows.last?.attempts, 4)
        s.close()
    }

    func test_secondWriter_isRefused_andLockIsReleasedOnClose() throws {
        let dir = tempDir("lock")
        let first = try SQLiteDeviceStore(directory: dir, profile: .android)
        assertRefused(dir, .android, "this device is already open in this process (pid \(getpid()))")
        // Another profile in the same directory is a different device.
        let other = try SQLiteDeviceStore(directory: dir, profile: .ios)
        other.close()
        // Reading is allowed while it is open; resetting is not.
        XCTAssertEqual(cli(["state", "show", "--profile", "android", "--state-dir", dir]).0, 0)
        let reset = cli(["state", "reset", "--profile", "android", "--state-dir", dir])
        XCTAssertEqual(reset.0, 2)
        XCTAssertTrue(reset.2.contains("already open in this process"), reset.2)
        first.close()
        let again = try SQLiteDeviceStore(directory: dir, profile: .android)
        again.close()
    }

    func test_missingDirectory_orAFile_clearErrors() throws {
        let file = tempDir("notdir") + "/plain"
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        assertRefused(file, .linktrail, "is not a directory")
        assertRefused(file + "/deeper", .linktrail, "cannot create the state directory")
        let r = cli(["run", "--state-dir", file, packageRoot + "/examples/ios-logout.outbox"])
        XCTAssertEqual(r.0, 2)
        XCTAssertTrue(r.2.contains("is not a directory"), r.2)
        XCTAssertEqual(r.1, "", "nothing ran")
    }

    func test_stateShowAndReset() throws {
        let dir = tempDir("show")
        _ = makeDevice(dir, requests: 3)
        let table = cli(["state", "show", "--state-dir", dir])
        XCTAssertEqual(table.0, 0)
        XCTAssertTrue(table.1.contains("linktrail: 3 saved"), table.1)
        let jsonl = cli(["state", "show", "--format", "jsonl", "--profile", "linktrail", "--state-dir", dir])
        let lines = jsonl.1.split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        for l in lines {
            let o = try JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any]
            XCTAssertEqual(o?["profile"] as? String, "linktrail")
            XCTAssertNotNil(o?["idempotency_key"])
        }
        let reset = cli(["state", "reset", "--profile", "linktrail", "--state-dir", dir])
        XCTAssertEqual(reset.0, 0, reset.2)
        XCTAssertTrue(reset.1.contains("moved the old device aside"), reset.1)
        let aside = try FileManager.default.contentsOfDirectory(atPath: dir).filter {
            $0.contains(".reset-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
        }
        XCTAssertEqual(aside.count, 1, "the old file is kept, renamed")
        XCTAssertEqual(rawSQL(dir + "/" + aside[0], "SELECT count(*) FROM requests"), "3")
        XCTAssertTrue(cli(["state", "show", "--state-dir", dir]).1.contains("no saved device"))
    }
}
