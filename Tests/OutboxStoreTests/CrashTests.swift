import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxStore

/// A busy device killed with SIGKILL at random moments: after each kill the
/// database opens, passes integrity_check, and holds exactly what was committed.
final class CrashTests: XCTestCase {
    /// Starts the torture child with stdout to a file; its pid, or nil when it did not start.
    func spawn(_ binary: String, _ dir: String, seed: Int, out: String) -> pid_t? {
        spawnChild(
            [binary, "_store-torture", "--state-dir", dir, "--seed", String(seed), "--seconds", "20"], stdout: out)
    }

    func test_sigkillAtRandomMoments_losesNothingCommitted_duplicatesNothing() throws {
        let binary = try requireBinary()
        let dir = tempDir("crash")
        let db = SQLiteDeviceStore.databasePath(directory: dir, profile: .linktrail)
        var expected: [Int32: String] = [:]  // id -> idempotency key, what must be on the device
        var rng = SystemRandomNumberGenerator()
        var kills = 0, writesSeen = 0
        for round in 0..<50 {
            let out = dir + "/child-\(round).out"
            // Only a child that started is signalled, by its own pid (never 0: that is
            // the whole process group, this test runner included).
            guard let pid = spawn(binary, dir, seed: round + 1, out: out) else {
                return XCTFail("round \(round): cannot start \(binary)")
            }
            // Killed at a random moment once it is writing: a child slow to start (a
            // loaded machine, a sanitizer) would otherwise die before its first commit,
            // and the rounds would test little (under ASan beside a busy machine, 12 writes in 50).
            let started = Date()
            while (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0 == 0
                && Date().timeIntervalSince(started) < 10
            {
                usleep(5_000)
            }
            usleep(UInt32.random(in: 30_000...250_000, using: &rng))
            kill(pid, SIGKILL)
            XCTAssertEqual(waitExit(pid), 128 + SIGKILL, "round \(round): the child ended before the kill")
            kills += 1
            // Replay what the child reported as committed.
            let lines = (try? String(contentsOfFile: out, encoding: .utf8))?.split(separator: "\n") ?? []
            // Start from what the last round verified: a child killed before it reported
            // anything changed nothing (every write is reported right after its commit).
            var model = expected
            for (n, l) in lines.enumerated() {
                let w = l.split(separator: " ")
                // A line cut by the kill is the last one, incomplete: ignore it.
                if n == lines.count - 1 && !(w.count == 3 || (w.count == 2 && w[0] == "R")) { break }
                switch w[0] {
                case "L":
                    XCTAssertEqual(
                        expected[Int32(w[1])!], String(w[2]),
                        "round \(round): the child found #\(w[1]) unlike the last round left it")
                case "S": model[Int32(w[1])!] = String(w[2]); writesSeen += 1
                case "R": model[Int32(w[1])!] = nil; writesSeen += 1
                default: XCTFail("bad report line \(l)")
                }
            }
            // The database: integrity, then exactly the committed set, give or take the one
            // write that was committed but not yet reported when the kill came.
            XCTAssertEqual(rawSQL(db, "PRAGMA integrity_check"), "ok", "round \(round)")
            let rows = rawSQL(db, "SELECT id || ' ' || idempotency_key FROM requests") ?? ""
            var onDisk: [Int32: String] = [:]
            for r in rows.split(separator: "\n") {
                let w = r.split(separator: " ")
                XCTAssertNil(onDisk[Int32(w[0])!], "round \(round): id \(w[0]) twice")
                onDisk[Int32(w[0])!] = String(w[1])
            }
            let keys = Array(onDisk.values)
            XCTAssertEqual(Set(keys).count, keys.count, "round \(round): an idempotency key saved twice")
            // At most one write can be committed and not yet reported: one id may differ.
            let differing = Set(model.keys).union(onDisk.keys).filter { model[$0] != onDisk[$0] }
            XCTAssertLessThanOrEqual(
                differing.count, 1,
                "round \(round): committed \(model.count), on disk \(onDisk.count); differ at \(differing.sorted())")
            expected = onDisk
        }
        XCTAssertEqual(kills, 50)
        // Two writes a round on average: each round killed a child at work (a loaded
        // machine under a sanitizer saw 153 in 50 rounds before the wait for the first write).
        XCTAssertGreaterThan(writesSeen, 100, "the children were busy enough")
        // And the device still opens for real use.
        let store = try SQLiteDeviceStore(directory: dir, profile: .linktrail)
        XCTAssertEqual(store.loadAll().count, expected.count)
        store.close()
    }

    /// The test's own hazard: with no binary to start, nothing is started and so
    /// nothing is signalled (it once sent SIGKILL to pid 0, its own process group).
    func test_aBinaryThatIsNotThere_startsNothing() {
        let missing = tempDir("nobinary") + "/outbox"
        XCTAssertNil(spawnChild([missing, "_store-torture"], stdout: "/dev/null"))
        // What the crash test runs is a regular executable file, when found at all.
        if let b = builtBinary() {
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: b), b)
            XCTAssertFalse((try? FileManager.default.contentsOfDirectory(atPath: b)) != nil, "\(b) is a directory")
        }
    }
}
