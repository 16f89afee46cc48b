import Foundation
import XCTest
@testable import OutboxStore

/// A busy device killed with SIGKILL at random moments: after each kill the
/// database opens, passes integrity_check, and holds exactly what was committed.
final class CrashTests: XCTestCase {
    var binary: String {
        // Beside the tests: the test executable's folder on Linux, the .xctest bundle's
        // on macOS. So a sanitized test run (scripts/sanitizers) runs a sanitized program.
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("outbox").path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("outbox").path,
            storeRoot + "/.build/debug/outbox",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[1]
    }

    /// Starts the torture child with stdout to a file; returns its pid.
    func spawn(_ dir: String, seed: Int, out: String) -> pid_t {
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let args = [binary, "_store-torture", "--state-dir", dir, "--seed", String(seed), "--seconds", "20"]
        let argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        XCTAssertEqual(posix_spawn(&pid, binary, &actions, nil, argv, environ), 0)
        return pid
    }

    func test_sigkillAtRandomMoments_losesNothingCommitted_duplicatesNothing() throws {
        let dir = tempDir("crash")
        let db = SQLiteDeviceStore.databasePath(directory: dir, profile: .linktrail)
        var expected: [Int32: String] = [:]  // id -> idempotency key, what must be on the device
        var rng = SystemRandomNumberGenerator()
        var kills = 0, writesSeen = 0
        for round in 0..<50 {
            let out = dir + "/child-\(round).out"
            let pid = spawn(dir, seed: round + 1, out: out)
            usleep(UInt32.random(in: 30_000...250_000, using: &rng))
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            XCTAssertEqual(status & 0x7f, SIGKILL, "round \(round): the child ended before the kill")
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
                case "L": XCTAssertEqual(expected[Int32(w[1])!], String(w[2]), "round \(round): the child found #\(w[1]) unlike the last round left it")
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
            XCTAssertLessThanOrEqual(differing.count, 1,
                                     "round \(round): committed \(model.count), on disk \(onDisk.count); differ at \(differing.sorted())")
            expected = onDisk
        }
        XCTAssertEqual(kills, 50)
        XCTAssertGreaterThan(writesSeen, 500, "the children were busy enough")
        // And the device still opens for real use.
        let store = try SQLiteDeviceStore(directory: dir, profile: .linktrail)
        XCTAssertEqual(store.loadAll().count, expected.count)
        store.close()
    }
}
