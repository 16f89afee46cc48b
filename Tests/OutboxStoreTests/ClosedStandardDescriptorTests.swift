import Foundation
import OutboxTerminal
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxStore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Issue 22, item 6 (reliability report, defect 7): started with stdin, stdout
/// or stderr closed (`>&-`), Outbox never writes into the device's lock file or
/// its database by accident. Before the fix the lock file was opened first and
/// got the free descriptor 1 or 2, so the timeline or the check failures landed
/// in it (a user's own lock content overwritten) and the exit said nothing.
/// Now the closed descriptors are /dev/null (`Platform.fillClosedStandardDescriptors`)
/// and what could not be written is said on the stream that remains, exit 1.
final class ClosedStandardDescriptorTests: XCTestCase {
    var binary = ""
    var dir = ""
    var scenario = ""

    override func setUpWithError() throws {
        binary = try requireBinary()
        dir = tempDir("closedstdio")
        addTeardownBlock { [dir] in try? FileManager.default.removeItem(atPath: dir) }
        scenario = dir + "/s.outbox"
        // A check that fails (the request stays queued offline), and one saved request.
        try """
        profile ios
        at 0 launch
        at 0 network offline
        at 1s track a
        expect at 2s state a delivered
        at 3s quit

        """.write(toFile: scenario, atomically: true, encoding: .utf8)
    }

    /// The timeline of `s.outbox`, as stdout gets it.
    let timeline = """
        00:00:00.000  outbox    app launched (launch 1)
        00:00:00.000  outbox    network offline
        00:00:01.000  #1    event          a               new → queued                                              IOS-5
        00:00:02.000  expect    expect at 2s state a delivered  ✗ FAILED: #1 is queued
        00:00:03.000  outbox    app closing
        00:00:03.000  outbox    app closed · 1 saved on the device

        """

    /// Runs `outbox ARGS` under `sh -c 'exec "$@" REDIRECTS'`, stdout and stderr
    /// first going to files; (status, stdout, stderr), at most 10 s.
    func run(_ redirects: String, _ args: [String]) -> (Int32, String, String) {
        let out = dir + "/out", err = dir + "/err"
        guard
            let pid = spawnChild(
                ["/bin/sh", "-c", "exec \"$@\" " + redirects, "sh", binary] + args, stdout: out, stderr: err,
                environment: ["HOME=" + dir, "XDG_CONFIG_HOME=" + dir + "/config", "NO_COLOR=1"])
        else {
            XCTFail("cannot start /bin/sh")
            return (-1, "", "")
        }
        let deadline = Date().addingTimeInterval(10)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = waitExit(pid)
                XCTFail("`\(redirects)` still ran after 10 s")
                return (-1, "", "")
            }
            usleep(10_000)
        }
        let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (
            code, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
            (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        )
    }

    /// The device in `state` is whole: the lock as it was (`lock`), the
    /// database a SQLite file holding the one saved request.
    func assertDeviceUntouched(_ state: String, lock: String = "", _ what: String) {
        let lockPath = SQLiteDeviceStore.lockPath(directory: state, profile: .ios)
        XCTAssertEqual(bytes(lockPath), Data(lock.utf8), "\(what): the lock file is not written")
        let db = SQLiteDeviceStore.databasePath(directory: state, profile: .ios)
        XCTAssertEqual(bytes(db)?.prefix(16), Data("SQLite format 3\0".utf8), "\(what): the database is SQLite's")
        XCTAssertEqual(rawSQL(db, "PRAGMA integrity_check"), "ok", what)
        let shown = cli(["state", "show", "--profile", "ios", "--state-dir", state])
        XCTAssertEqual(shown.0, 0, what)
        XCTAssertEqual(
            shown.1,
            "ios: 1 saved · \(db)\n     id  kind           name               attempts  details\n      1  event          a                         0  \n",
            what)
    }

    func test_stdoutClosed_theLockStaysEmpty_andStderrSaysTheOutputWasLost() {
        let state = dir + "/sd-out"
        let (status, out, err) = run(">&-", ["run", "--state-dir", state, scenario])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(out, "")
        XCTAssertEqual(err, "outbox: cannot write to standard output: it was closed\n")
        assertDeviceUntouched(state, "stdout closed")

        // -q: only the summary goes to stdout; its loss is said too.
        let quiet = dir + "/sd-out-q"
        let q = run(">&-", ["run", "-q", "--state-dir", quiet, scenario])
        XCTAssertEqual(q.0, 1)
        XCTAssertEqual(q.2, "outbox: cannot write to standard output: it was closed\n")
        assertDeviceUntouched(quiet, "stdout closed, -q")
    }

    /// stderr closed: the check's failure has nowhere to go; the timeline went
    /// to stdout until then, and the exit is 1. A user's own lock content stays.
    func test_stderrClosed_theLockKeepsItsContent() throws {
        let state = dir + "/sd-err"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try "USER DATA\n".write(
            toFile: SQLiteDeviceStore.lockPath(directory: state, profile: .ios), atomically: true, encoding: .utf8)
        let (status, out, err) = run("2>&-", ["run", "--state-dir", state, scenario])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(out, timeline)
        XCTAssertEqual(err, "")
        assertDeviceUntouched(state, lock: "USER DATA\n", "stderr closed")
    }

    func test_stdoutAndStderrClosed_nothingLandsInTheDevice() {
        let state = dir + "/sd-both"
        let (status, out, err) = run(">&- 2>&-", ["run", "--state-dir", state, scenario])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(out + err, "")
        assertDeviceUntouched(state, "stdout and stderr closed")
    }

    /// stdin closed: nothing reads it; the run is as ever.
    func test_stdinClosed_theRunIsAsEver() {
        let state = dir + "/sd-in"
        let (status, out, err) = run("<&-", ["run", "--state-dir", state, scenario])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(out, timeline + "\(scenario): 0 passed, 1 failed · 1 transitions · ended at 00:00:03.000\n")
        XCTAssertEqual(err, "\(scenario):5: check failed: expect at 2s state a delivered: found #1 is queued\n")
        assertDeviceUntouched(state, "stdin closed")
    }

    /// The live screen on a terminal with stderr closed: its device's lock is
    /// opened while descriptor 2 is /dev/null, so nothing of the session lands
    /// in it; the request tracked offline is saved.
    func test_liveScreen_withStderrClosed_theLockStaysEmpty() throws {
        let state = dir + "/sd-live"
        guard
            let t = PseudoTerminal(
                [
                    "/bin/sh", "-c", "exec env HOME=\"$0\" XDG_CONFIG_HOME=\"$0/config\" \"$@\" 2>&-", dir, binary,
                    "--state-dir", state, "--profile", "ios", "--no-mouse",
                ], rows: 24, cols: 80)
        else { throw XCTSkip("no pseudo-terminal here") }
        XCTAssertTrue(t.wait(for: "quit"), "the first frame")
        var from = t.output.count
        t.type("o")
        XCTAssertTrue(t.wait(for: "offline", from: from))
        from = t.output.count
        t.type("t")
        XCTAssertTrue(t.wait(for: "purchase", from: from))
        t.type("q")
        let deadline = Date().addingTimeInterval(10)
        var status: Int32 = 0
        var exited = false
        while !exited && Date() < deadline {
            exited = waitpid(t.pid, &status, WNOHANG) == t.pid
            if !exited { usleep(10_000) }
        }
        XCTAssertTrue(exited, "q ends the live screen")
        XCTAssertEqual(status & 0x7f, 0, "no signal")
        XCTAssertEqual((status >> 8) & 0xff, 0, "q quits with 0")
        let lock = SQLiteDeviceStore.lockPath(directory: state, profile: .ios)
        XCTAssertEqual(bytes(lock), Data(), "the lock file is not written")
        let db = SQLiteDeviceStore.databasePath(directory: state, profile: .ios)
        XCTAssertEqual(rawSQL(db, "PRAGMA integrity_check"), "ok")
        XCTAssertEqual(rawSQL(db, "SELECT name FROM requests"), "purchase")
    }
}
