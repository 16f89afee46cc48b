import Foundation
import XCTest

/// The real program in a real terminal (tmux): start, go offline, fire, see the
/// rows change, quit, and find the shell intact.
final class EndToEndTests: XCTestCase {
    var session = ""

    override func setUp() {
        session = "outbox-e2e-\(getpid())-\(Int.random(in: 0..<1_000_000))"
    }

    override func tearDown() {
        _ = sh("tmux kill-session -t \(session) 2>/dev/null")
    }

    /// Runs a shell command and returns its exit status and output. posix_spawn and
    /// waitpid rather than Foundation's Process, whose reaping hung here when the
    /// command started a daemon (the tmux server); output goes through a file, not a
    /// pipe, since the daemon keeps the descriptors it inherited.
    @discardableResult
    func sh(_ cmd: String) -> (Int32, String) {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("\(session)-\(UInt32.random(in: 0...UInt32.max)).out")
        defer { try? FileManager.default.removeItem(at: out) }
        let script = "{ " + cmd + "\n} </dev/null >'\(out.path)' 2>&1"
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(script), nil]
        defer { for a in argv { free(a) } }
        guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else { return (-1, "cannot start /bin/sh") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (code, (try? String(contentsOf: out, encoding: .utf8)) ?? "")
    }

    var binary: String {
        // Beside the tests: the test executable's folder on Linux, the .xctest bundle's
        // on macOS. So a sanitized test run (scripts/sanitizers) runs a sanitized program.
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("outbox").path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("outbox").path,
            uiPackageRoot + "/.build/debug/outbox",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[1]
    }

    func screen() -> String { sh("tmux capture-pane -p -t \(session)").1 }

    /// Waits (up to 10 s) until the screen contains the text.
    func waitFor(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        for _ in 0..<100 {
            if screen().contains(text) { return true }
            usleep(100_000)
        }
        XCTFail("never saw `\(text)` on screen:\n" + screen(), file: file, line: line)
        return false
    }

    /// Starts a shell script in a new tmux session of the given size.
    func start(_ script: String, width: Int, height: Int) -> Bool {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(session).sh").path
        try? ("#!/bin/sh\n" + script + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return sh("tmux new-session -d -s \(session) -x \(width) -y \(height) 'sh \(path)'").0 == 0
    }

    static let afterExit = "echo \"EXIT=$?\"; stty -a | grep -o -- '-icanon\\|icanon' | head -1; exec sleep 60"

    func keys(_ k: String...) { sh("tmux send-keys -t \(session) " + k.map { "'\($0)'" }.joined(separator: " ")) }

    func test_realTerminal_offlineFireQuit_shellIntact() throws {
        XCTAssertEqual(sh("command -v tmux").0, 0, "tmux is needed (.ci/run installs it)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-e2e-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let rec = dir + "/session.outbox"
        XCTAssertTrue(start("cd \(dir) && LANG=C.UTF-8 \(binary) --memory --record \(rec); " + Self.afterExit, width: 100, height: 30))
        guard waitFor("OUTBOX") else { return }
        XCTAssertTrue(screen().contains("linktrail"))
        keys("c")
        guard waitFor("consent ✓ granted") else { return }
        keys("o")
        guard waitFor("offline") else { return }
        keys("t")
        guard waitFor("retrying") else { return }
        keys("+", "+", "+")  // 600×: the retries run out in a blink
        guard waitFor("queued") else { return }
        keys("o")
        guard waitFor("online") else { return }
        keys("t")
        guard waitFor("delivered 3") else { return }  // the send flushed the queue (LT-8)
        keys("q")
        guard waitFor("EXIT=0") else { return }
        // The terminal is back in canonical mode: curses let go of it.
        XCTAssertTrue(screen().contains("\nicanon") || screen().contains("icanon"), screen())
        XCTAssertFalse(screen().contains("-icanon"), screen())
        // The recording replays headless.
        let replay = sh("\(binary) run --quiet \(rec)")
        XCTAssertEqual(replay.0, 0, replay.1)
        let recorded = (try? String(contentsOfFile: rec, encoding: .utf8)) ?? ""
        XCTAssertTrue(recorded.contains("network offline"), recorded)
        XCTAssertTrue(recorded.contains("consent grant"), recorded)
    }

    /// Issue 4's promise in a real terminal: requests saved offline are there after
    /// quitting and starting again, and after `kill -9`, and go out by the rules.
    func test_savedRequestsSurviveQuitAndKill() {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-e2e-state-\(getpid())").path
        try? FileManager.default.removeItem(atPath: state)
        defer { try? FileManager.default.removeItem(atPath: state) }
        for ending in ["quit", "kill"] {
            try? FileManager.default.removeItem(atPath: state)
            let run = "LANG=C.UTF-8 \(binary) --profile ios --state-dir \(state); " + Self.afterExit
            XCTAssertTrue(start(run, width: 100, height: 30))
            guard waitFor("OUTBOX") else { return }
            keys("o")
            guard waitFor("offline") else { return }
            keys("t", "t", "p")
            guard waitFor("queued 3") else { return }  // IOS-5: made offline, they wait
            if ending == "quit" {
                keys("q")
                guard waitFor("EXIT=0") else { return }
            } else {
                sh("pkill -KILL -f '^\(binary) --profile ios --state-dir \(state)$'")
                guard waitFor("EXIT=137") else { return }
            }
            let shown = sh("\(binary) state show --profile ios --state-dir \(state)").1
            XCTAssertTrue(shown.contains("ios: 3 saved"), ending + ":\n" + shown)
            _ = sh("tmux kill-session -t \(session)")
            // Start again: the device is online, so IOS-6 sends them at once after the launch.
            XCTAssertTrue(start(run, width: 100, height: 30))
            guard waitFor("delivered 3") else { return }
            XCTAssertTrue(screen().contains("IOS-6") || screen().contains("IOS-3"), screen())
            keys("q")
            guard waitFor("EXIT=0") else { return }
            XCTAssertTrue(sh("\(binary) state show --profile ios --state-dir \(state)").1.contains("ios: 0 saved"))
            _ = sh("tmux kill-session -t \(session)")
        }
    }

    func test_notATerminal_pointsToOutboxRun() {
        let (status, out) = sh("\(binary) < /dev/null 2>&1 | cat")
        _ = status
        XCTAssertTrue(out.contains("outbox run"), out)
        XCTAssertTrue(out.contains("terminal"), out)
        let (s2, out2) = sh("\(binary) </dev/null >/dev/null 2>/dev/null; echo $?")
        _ = s2
        XCTAssertEqual(out2.trimmingCharacters(in: .whitespacesAndNewlines), "2")
    }

    func test_unknownTerm_isAClearError() {
        let (_, out) = sh("script -qc 'TERM=no-such-term \(binary)' /dev/null 2>&1 | tr -d '\\r'")
        XCTAssertTrue(out.contains("TERM=no-such-term"), out)
        XCTAssertTrue(out.contains("outbox run"), out)
    }

    func test_sigterm_restoresTheTerminal() {
        XCTAssertTrue(start("LANG=C.UTF-8 \(binary) --memory; " + Self.afterExit, width: 80, height: 24))
        guard waitFor("OUTBOX") else { return }
        sh("pkill -TERM -f '^\(binary) --memory$'")
        guard waitFor("EXIT=143") else { return }
        XCTAssertFalse(screen().contains("-icanon"), screen())
    }
}
