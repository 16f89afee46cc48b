import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxStore

/// Values another program (or a bad disk) left in an otherwise sound database:
/// each is refused where it is read, named with the file, the row and the column,
/// and the file is left exactly as it was. Once these trapped (exit 132) or were
/// passed over in silence.
final class DamageTests: XCTestCase {
    /// A LinkTrail device holding requests 1, 2 and 3, and the path of its database.
    func device(_ name: String) -> (dir: String, db: String) {
        let dir = tempDir(name)
        let s = try! SQLiteDeviceStore(directory: dir, profile: .linktrail)
        for i: Int32 in 1...3 {
            s.save(
                SavedRequest(
                    id: i, kind: .event, name: "e\(i)", createdAt: 1000 * Millis(i), idempotencyKey: 0xABC0 + UInt64(i),
                    value: i == 2 ? Amount(micros: 4_990_000) : nil, currency: i == 2 ? "USD" : "", attributes: [],
                    attempts: i, waitingForConsent: false))
        }
        s.close()
        return (dir, SQLiteDeviceStore.databasePath(directory: dir, profile: .linktrail))
    }

    /// A scenario that launches the app (loading what is saved) and quits.
    lazy var launch: String = {
        let f = tempDir("scenario") + "/launch.outbox"
        try! "profile linktrail\nset requireConsent false\nat 0 network offline\nat 0 launch\nat 1s quit\n"
            .write(toFile: f, atomically: true, encoding: .utf8)
        return f
    }()

    /// What must happen to a device damaged by `sql`: the open for writing, `outbox
    /// run` and `outbox state show` all name `want` (with the path), the first two
    /// refuse, show lists the sound rows, and the file is not changed.
    func assertDamage(
        _ sql: [String], _ want: String, soundRows: Int, file: StaticString = #filePath, line: UInt = #line
    ) {
        let (dir, db) = device("damage")
        for q in sql { XCTAssertNotNil(rawSQL(db, q), "cannot run \(q)", file: file, line: line) }
        let before = bytes(db)
        do {
            let s = try SQLiteDeviceStore(directory: dir, profile: .linktrail)
            s.close()
            XCTFail("opened a database with \(want)", file: file, line: line)
        } catch {
            let m = error.description
            XCTAssertTrue(m.hasPrefix(db + ": is damaged: "), m, file: file, line: line)
            XCTAssertTrue(m.contains(want), "expected \(want) in: \(m)", file: file, line: line)
            XCTAssertTrue(
                m.contains(
                    "nothing was changed. Move it aside with `outbox state reset --profile linktrail --state-dir \(dir)`"
                ), m,
                file: file, line: line)
        }
        let run = cli(["run", "--quiet", "--state-dir", dir, launch])
        XCTAssertEqual(run.0, 2, file: file, line: line)
        XCTAssertEqual(run.1, "", "nothing ran", file: file, line: line)
        XCTAssertEqual(run.2.split(separator: "\n").count, 1, "one line: \(run.2)", file: file, line: line)
        XCTAssertTrue(
            run.2.hasPrefix("outbox run: \(db): is damaged: ") && run.2.contains(want), run.2, file: file, line: line)
        XCTAssertEqual(bytes(db), before, "the file is unchanged", file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-wal"), "no log left", file: file, line: line)
        let show = cli(["state", "show", "--state-dir", dir])
        XCTAssertEqual(show.0, 2, "show fails on damage", file: file, line: line)
        XCTAssertTrue(show.2.contains("outbox state: \(db): \(want)"), show.2, file: file, line: line)
        XCTAssertTrue(show.1.contains("linktrail: \(soundRows) saved"), show.1, file: file, line: line)
        XCTAssertEqual(bytes(db), before, "the file is unchanged", file: file, line: line)
    }

    func test_idOutOfRange() {
        assertDamage(
            ["UPDATE requests SET id = 2147483648 WHERE id = 2"],
            "requests row id 2147483648: id is 2147483648, expected a whole number from 1 to 2147483647", soundRows: 2)
        assertDamage(
            ["UPDATE requests SET id = 0 WHERE id = 2"], "requests row id 0: id is 0, expected a whole number from 1",
            soundRows: 2)
        assertDamage(
            ["UPDATE requests SET id = -5 WHERE id = 2"], "requests row id -5: id is -5, expected", soundRows: 2)
    }

    func test_attemptsOutOfRangeOrNotWhole() {
        assertDamage(
            ["UPDATE requests SET attempts = 2147483648 WHERE id = 2"],
            "requests row id 2: attempts is 2147483648, expected a whole number from 0 to 1000000000", soundRows: 2)
        assertDamage(
            ["UPDATE requests SET attempts = -1 WHERE id = 3"], "requests row id 3: attempts is -1, expected",
            soundRows: 2)
        assertDamage(
            ["UPDATE requests SET attempts = 1.5 WHERE id = 1"],
            "requests row id 1: attempts is 1.5 (a real number), expected",
            soundRows: 2)
        assertDamage(
            ["UPDATE requests SET attempts = 'many' WHERE id = 1"], "requests row id 1: attempts is 'many', expected",
            soundRows: 2)
    }

    func test_otherColumns() {
        assertDamage(
            ["UPDATE requests SET created_at_ms = -1 WHERE id = 1"],
            "requests row id 1: created_at_ms is -1, expected a whole number from 0 to 10000000000000000", soundRows: 2)
        assertDamage(
            ["UPDATE requests SET created_at_ms = 9223372036854775807 WHERE id = 1"],
            "requests row id 1: created_at_ms is 9223372036854775807", soundRows: 2)
        assertDamage(
            ["UPDATE requests SET value_micros = 9223372036854775807 WHERE id = 2"],
            "requests row id 2: value_micros is 9223372036854775807, expected a whole number from -999999999999999999 to 999999999999999999",
            soundRows: 2)
        assertDamage(
            ["UPDATE requests SET idempotency_key = 'zz' WHERE id = 1"],
            "requests row id 1: idempotency_key is 'zz', expected 16 hex digits (not all zero) or NULL", soundRows: 2)
        assertDamage(
            ["UPDATE requests SET idempotency_key = '0000000000000000' WHERE id = 1"],
            "requests row id 1: idempotency_key is '0000000000000000'",
            soundRows: 2)
        assertDamage(
            ["UPDATE requests SET idempotency_key = 12 WHERE id = 1"],
            "requests row id 1: idempotency_key is '12', expected", soundRows: 2)
        assertDamage(
            ["UPDATE requests SET waiting_for_consent = 2 WHERE id = 1"],
            "requests row id 1: waiting_for_consent is 2, expected 0 or 1", soundRows: 2)
        assertDamage(
            ["UPDATE requests SET name = CAST(X'41FF1B' AS TEXT) WHERE id = 1"],
            "requests row id 1: name is not valid UTF-8 text",
            soundRows: 2)
        assertDamage(
            ["UPDATE requests SET currency = X'1B5B316D' WHERE id = 2"],
            "requests row id 2: currency is a blob of 4 bytes, expected text",
            soundRows: 2)
    }

    /// A kind this build does not know was passed over in silence: the request was gone.
    func test_unknownKind() {
        assertDamage(
            ["UPDATE requests SET kind = 'bogus' WHERE id = 2"],
            "requests row id 2: kind is 'bogus', expected one of: install, event, ping", soundRows: 2)
        assertDamage(
            ["UPDATE requests SET kind = 'ev\u{1B}[31m' WHERE id = 2"],
            "requests row id 2: kind is 'ev\\x1b[31m', expected", soundRows: 2)
    }

    func test_deviceFacts() {
        assertDamage(
            ["UPDATE device SET value = '18446744073709551615' WHERE key = 'opens'"],
            "device row 'opens': value is '18446744073709551615', expected a whole number from 0 to 16777215",
            soundRows: 3)
        assertDamage(
            ["UPDATE device SET value = '-1' WHERE key = 'opens'"], "device row 'opens': value is '-1'", soundRows: 3)
        assertDamage(
            ["INSERT OR REPLACE INTO device VALUES ('consent', 'maybe')"],
            "device row 'consent': value is 'maybe', expected undecided, granted or denied", soundRows: 3)
        assertDamage(
            ["INSERT OR REPLACE INTO device VALUES ('install_created', 'yes')"],
            "device row 'install_created': value is 'yes', expected 0 or 1", soundRows: 3)
        assertDamage(
            ["INSERT INTO device VALUES ('colour', 'blue')"], "device row 'colour' is not a fact Outbox keeps",
            soundRows: 3)
    }

    /// A dropped table read as "0 saved", exit 0.
    func test_missingTablesAndColumns() {
        assertDamage(["DROP TABLE requests"], "table `requests` is missing", soundRows: 0)
        assertDamage(["DROP TABLE device"], "table `device` is missing", soundRows: 3)
        assertDamage(
            ["ALTER TABLE requests DROP COLUMN currency"], "table `requests` has no column `currency`", soundRows: 0)
    }

    /// Every damaged row is named; the refusal gives the first and counts the rest,
    /// and show lists them, past its limit with a count.
    func test_manyDamagedRows_allCounted() {
        var (dir, db) = device("many")
        _ = rawSQL(db, "UPDATE requests SET attempts = -1")
        do {
            _ = try SQLiteDeviceStore(directory: dir, profile: .linktrail)
            XCTFail("opened")
        } catch {
            XCTAssertTrue(error.description.contains("requests row id 1: attempts is -1"), error.description)
            XCTAssertTrue(
                error.description.contains(
                    "(and 2 more: `outbox state show --profile linktrail --state-dir \(dir)` lists them)"),
                error.description)
        }
        let show = cli(["state", "show", "--state-dir", dir])
        XCTAssertEqual(show.0, 2)
        for id in 1...3 { XCTAssertTrue(show.2.contains("\(db): requests row id \(id): attempts is -1"), show.2) }
        XCTAssertTrue(
            show.2.contains("\(db): 3 problems found; Outbox will not run this device until it is moved aside"), show.2)

        (dir, db) = device("lots")
        _ = rawSQL(
            db,
            """
            WITH RECURSIVE n(x) AS (SELECT 10 UNION ALL SELECT x + 1 FROM n WHERE x < 1509)
            INSERT INTO requests (id, kind, name, created_at_ms, attempts) SELECT x, 'event', 'n', 0, -1 FROM n
            """)
        let lots = cli(["state", "show", "--state-dir", dir])
        XCTAssertEqual(lots.0, 2)
        XCTAssertEqual(lots.2.components(separatedBy: ": attempts is -1").count - 1, ColumnReader.kept)
        XCTAssertTrue(lots.2.contains("\(db): and \(1500 - ColumnReader.kept) more problems, not listed"), lots.2)
        XCTAssertTrue(lots.2.contains("1500 problems found"), lots.2)
    }

    /// The largest values the limits allow open, load and run without a trap.
    func test_valuesAtTheLimits_areSound() throws {
        let (dir, db) = device("edge")
        _ = rawSQL(db, "UPDATE requests SET id = 2147483647, created_at_ms = 10000000000000000 WHERE id = 3")
        _ = rawSQL(db, "UPDATE requests SET value_micros = -999999999999999999 WHERE id = 2")
        _ = rawSQL(db, "UPDATE requests SET idempotency_key = 'FFFFFFFFFFFFFFFF' WHERE id = 1")
        _ = rawSQL(db, "UPDATE device SET value = '16777214' WHERE key = 'opens'")
        let s = try SQLiteDeviceStore(directory: dir, profile: .linktrail)
        let rows = s.loadAll()
        XCTAssertEqual(rows.map(\.id), [1, 2, Int32.max])
        XCTAssertEqual(rows[0].idempotencyKey, UInt64.max)
        XCTAssertEqual(rows[1].value, Amount(micros: -999_999_999_999_999_999))
        XCTAssertEqual(rows[2].createdAt, VirtualTime.maxClock)
        XCTAssertEqual(s.epoch, 16_777_214)
        s.close()
        // That open was the last one the counter allows: the next is refused, not wrapped.
        let full = cli(["run", "--quiet", "--state-dir", dir, launch])
        XCTAssertEqual(full.0, 2)
        XCTAssertTrue(
            full.2.contains("\(db): device row 'opens': the device was opened 16777215 times, the most it can be"),
            full.2)
        XCTAssertEqual(cli(["state", "show", "--state-dir", dir]).0, 0, "reading is fine")

        // Attempts at the limit load; the next attempt is beyond it and stops the run
        // with the store's message, not a trap.
        let (dir2, db2) = device("edge2")
        _ = rawSQL(db2, "UPDATE requests SET attempts = 1000000000 WHERE id = 1")
        let online = tempDir("scenario") + "/online.outbox"
        try "profile linktrail\nset requireConsent false\nat 0 launch\nat 1s quit\n".write(
            toFile: online, atomically: true, encoding: .utf8)
        let r = cli(["run", "--quiet", "--state-dir", dir2, online])
        XCTAssertEqual(r.0, 2, r.2)
        XCTAssertTrue(r.2.contains("\(db2): cannot save request #"), r.2)
        XCTAssertTrue(r.2.contains("its attempts 1000000001 are outside 0...1000000000"), r.2)
    }

    /// Another program changed a row while the device was open: the next read says so.
    func test_damageAfterOpening_stopsTheModelWithTheRow() throws {
        let (dir, db) = device("later")
        let s = try SQLiteDeviceStore(directory: dir, profile: .linktrail)
        s.remove(id: 3)
        XCTAssertNotNil(rawSQL(db, "UPDATE requests SET attempts = 2147483648 WHERE id = 2"))
        XCTAssertEqual(s.loadAll().map(\.id), [1])
        XCTAssertEqual(
            s.failure?.hasPrefix("\(db): requests row id 2: attempts is 2147483648, expected"), true,
            s.failure ?? "no failure")
        s.close()
    }

    /// The store never writes what it would refuse to read.
    func test_outOfRangeRequests_areNotWritten() throws {
        let (dir, db) = device("write")
        let s = try SQLiteDeviceStore(directory: dir, profile: .linktrail)
        var r = SavedRequest(
            id: 9, kind: .event, name: "x", createdAt: -5, idempotencyKey: 0, value: nil, currency: "",
            attributes: [], attempts: 0, waitingForConsent: false)
        s.save(r)
        XCTAssertEqual(
            s.failure,
            "\(db): cannot save request #9: its creation time -5 ms is outside 0...10000000000000000, beyond what the store keeps (docs/storage.md)"
        )
        s.close()
        XCTAssertEqual(rawSQL(db, "SELECT count(*) FROM requests"), "3")
        let t = try SQLiteDeviceStore(directory: dir, profile: .linktrail)
        r.createdAt = 0
        r.attempts = 2_000_000_000
        t.save(r)
        XCTAssertTrue(
            t.failure?.contains("its attempts 2000000000 are outside 0...1000000000") == true, t.failure ?? "")
        t.close()
        XCTAssertEqual(rawSQL(db, "SELECT count(*) FROM requests"), "3")
    }

    /// Text is stored byte for byte: a NUL inside a name no longer cuts it short.
    func test_textRoundTripsExactly() throws {
        let dir = tempDir("text")
        let s = try SQLiteDeviceStore(directory: dir, profile: .ios)
        let name = "a\u{0}b \u{1B}[31m é"
        s.save(
            SavedRequest(
                id: 1, kind: .event, name: name, createdAt: 0, idempotencyKey: 0, value: nil, currency: "",
                attributes: [Attribute(key: "k\u{0}", value: "v")], attempts: 0, waitingForConsent: false))
        s.close()
        let t = try SQLiteDeviceStore(directory: dir, profile: .ios)
        XCTAssertEqual(t.loadAll().first?.name, name)
        XCTAssertEqual(t.loadAll().first?.attributes, [Attribute(key: "k\u{0}", value: "v")])
        t.close()
        // And `state show` prints it escaped: the terminal is not sent the ESC.
        let show = cli(["state", "show", "--state-dir", dir])
        XCTAssertEqual(show.0, 0)
        XCTAssertFalse(show.1.contains("\u{1B}"), show.1)
        XCTAssertTrue(show.1.contains("a\\x00b \\x1b[31m é"), show.1)
    }

    /// The live screen opens the device before curses starts: the refusal is a
    /// plain line on the terminal and exit 2 (it was a trap, exit 132).
    func test_liveScreen_refusesADamagedDevice_beforeCurses() throws {
        let binary = try requireBinary()
        let (dir, db) = device("live")
        _ = rawSQL(db, "UPDATE requests SET attempts = 2147483648 WHERE id = 2")
        guard let r = runOnTerminal([binary, "--state-dir", dir]) else { return XCTFail("no pseudo-terminal") }
        XCTAssertEqual(r.status, 2, r.output)
        XCTAssertTrue(
            r.output.contains("outbox: \(db): is damaged: requests row id 2: attempts is 2147483648"), r.output)
        XCTAssertFalse(r.output.contains("\u{1B}[?1049h"), "curses never started: \(r.output.debugDescription)")
    }
}
