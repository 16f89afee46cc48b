import Foundation
import OutboxTestSupport
import XCTest

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The real program in a real terminal (tmux): start, go offline, fire, see the
/// rows change, quit, and find the shell intact; stop it by signals and by
/// closing the terminal; refuse terminals that cannot show it.
///
/// Each test runs its own tmux server on a private socket (`tmux -S`), stops
/// only that server and removes its socket, and signals only the pid of the
/// outbox it started (written by the shell that execs it): nothing else on the
/// machine is touched.
final class EndToEndTests: XCTestCase {
    /// Names this test's tmux sockets (a new one for each `start`) and its folder.
    var id = ""
    var started = 0
    /// Under /tmp, not the temporary folder: a socket's path must stay short
    /// (104 bytes on macOS), and tmux leaves the file behind when it stops.
    var socket: String { "/tmp/\(id)-\(started).sock" }
    /// A private folder: scripts, pid file, recordings, state.
    var work = ""

    override func setUp() {
        id = "outbox-e2e-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        work = FileManager.default.temporaryDirectory.appendingPathComponent(id).path
        try? FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    }

    override func tearDown() {
        stopServer()
        // An outbox that outlived its terminal (a bug: it should have quit) is
        // stopped too, by the pid it wrote, if that pid is still an outbox.
        rememberPid()
        for pid in pids where sh("ps -o comm= -p \(pid)").1.trimmingCharacters(in: .whitespacesAndNewlines) == "outbox"
        {
            kill(pid, SIGKILL)
        }
        try? FileManager.default.removeItem(atPath: work)
    }

    /// The pids of the outboxes this test started.
    var pids: Set<pid_t> = []

    func rememberPid() {
        if let t = try? String(contentsOfFile: pidFile, encoding: .utf8),
            let pid = pid_t(t.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
        {
            pids.insert(pid)
        }
    }

    /// tmux on this test's own server; no user configuration.
    var tmux: String { "tmux -S \(socket) -f /dev/null" }

    /// Stops this test's tmux server: its panes see their terminal close.
    func stopServer() {
        guard started > 0 else { return }
        _ = sh("\(tmux) kill-server 2>/dev/null")
        try? FileManager.default.removeItem(atPath: socket)
    }

    /// Runs a shell command and returns its exit status and output. posix_spawn and
    /// waitpid rather than Foundation's Process, whose reaping hung here when the
    /// command started a daemon (the tmux server); output goes through a file, not a
    /// pipe, since the daemon keeps the descriptors it inherited.
    @discardableResult
    func sh(_ cmd: String) -> (Int32, String) {
        let out = work + "/sh-\(UInt32.random(in: 0...UInt32.max)).out"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let script = "{ " + cmd + "\n} </dev/null >'\(out)' 2>&1"
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(script), nil]
        defer { for a in argv { free(a) } }
        guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else { return (-1, "cannot start /bin/sh") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (code, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "")
    }

    var binary: String {
        // Beside the tests: the test executable's folder on Linux, the .xctest bundle's
        // on macOS. So a sanitized test run (scripts/sanitizers) runs a sanitized program.
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("outbox").path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("outbox").path,
            packageRoot + "/.build/debug/outbox",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[1]
    }

    /// The screen, wrapped lines joined.
    func screen() -> String { sh("\(tmux) capture-pane -p -J").1 }

    /// Waits (up to 10 s) until the screen contains the text.
    @discardableResult
    func waitFor(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        for _ in 0..<100 {
            if screen().contains(text) { return true }
            usleep(100_000)
        }
        XCTFail("never saw `\(text)` on screen:\n" + screen(), file: file, line: line)
        return false
    }

    /// Waits (up to 10 s) until a file's text satisfies a condition.
    @discardableResult
    func waitForFile(
        _ path: String, _ what: String, file: StaticString = #filePath, line: UInt = #line,
        _ ok: (String) -> Bool
    ) -> Bool {
        for _ in 0..<100 {
            if let t = try? String(contentsOfFile: path, encoding: .utf8), ok(t) { return true }
            usleep(100_000)
        }
        let t = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "<no file>"
        XCTFail("\(path) never showed \(what):\n" + t, file: file, line: line)
        return false
    }

    /// Starts a shell script in a new tmux server of its own, of the given size.
    func start(_ script: String, width: Int, height: Int) -> Bool {
        stopServer()
        started += 1
        let path = work + "/script-\(started).sh"
        try? ("#!/bin/sh\n" + script + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        rememberPid()
        try? FileManager.default.removeItem(atPath: pidFile)
        return sh("\(tmux) new-session -d -x \(width) -y \(height) 'sh \(path)'").0 == 0
    }

    var pidFile: String { work + "/outbox.pid" }

    /// A line of script that runs outbox with `args` and knows its pid: the inner
    /// shell writes its own pid, then becomes outbox. With `exec`, the script's
    /// shell becomes that shell, so outbox ends up the terminal's first process.
    func outbox(_ args: String, exec: Bool = false) -> String {
        (exec ? "export LANG=C.UTF-8; exec " : "LANG=C.UTF-8 ") + "sh -c 'echo $$ > \(pidFile); exec \(binary) \(args)'"
    }

    /// The pid of the outbox this test started (waits for the pid file).
    func startedPid(file: StaticString = #filePath, line: UInt = #line) -> pid_t? {
        for _ in 0..<100 {
            if let t = try? String(contentsOfFile: pidFile, encoding: .utf8),
                let p = pid_t(t.trimmingCharacters(in: .whitespacesAndNewlines)), p > 0
            {
                return p
            }
            usleep(100_000)
        }
        XCTFail("outbox never wrote its pid", file: file, line: line)
        return nil
    }

    /// After outbox: its status and, on the same line, whether the terminal is
    /// canonical again (`icanon`, or `-icanon` when curses left it raw); then idle.
    /// Ctrl-C and Ctrl-\ reach this shell too: its trap keeps it alive to report.
    static let afterExit = "s=$?; echo \"EXIT=$s $(stty -a | grep -o -- '-icanon\\|icanon' | head -1)\"; exec sleep 60"
    static let trapKeys = "trap : INT QUIT"

    func keys(_ k: String...) { sh("\(tmux) send-keys " + k.map { "'\($0)'" }.joined(separator: " ")) }

    func test_realTerminal_offlineFireQuit_shellIntact() throws {
        XCTAssertEqual(sh("command -v tmux").0, 0, "tmux is needed (.ci/run installs it)")
        let rec = work + "/session.outbox"
        XCTAssertTrue(
            start(
                "cd \(work) && " + outbox("--memory --record \(rec)") + "; " + Self.afterExit,
                width: 100, height: 30))
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
        // The terminal is back in canonical mode: curses let go of it.
        guard waitFor("EXIT=0 icanon") else { return }
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
        let state = work + "/state"
        for ending in ["quit", "kill"] {
            try? FileManager.default.removeItem(atPath: state)
            let run = outbox("--profile ios --state-dir \(state)") + "; " + Self.afterExit
            XCTAssertTrue(start(run, width: 100, height: 30))
            guard waitFor("OUTBOX"), let pid = startedPid() else { return }
            keys("o")
            guard waitFor("offline") else { return }
            keys("t", "t", "p")
            guard waitFor("queued 3") else { return }  // IOS-5: made offline, they wait
            if ending == "quit" {
                keys("q")
                guard waitFor("EXIT=0") else { return }
            } else {
                XCTAssertEqual(kill(pid, SIGKILL), 0)
                guard waitFor("EXIT=137") else { return }
            }
            let shown = sh("\(binary) state show --profile ios --state-dir \(state)").1
            XCTAssertTrue(shown.contains("ios: 3 saved"), ending + ":\n" + shown)
            // Start again: the device is online, so IOS-6 sends them at once after the launch.
            XCTAssertTrue(start(run, width: 100, height: 30))
            guard waitFor("delivered 3") else { return }
            XCTAssertTrue(screen().contains("IOS-6") || screen().contains("IOS-3"), screen())
            keys("q")
            guard waitFor("EXIT=0") else { return }
            XCTAssertTrue(sh("\(binary) state show --profile ios --state-dir \(state)").1.contains("ios: 0 saved"))
        }
    }

    func test_notATerminal_pointsToOutboxRun() {
        let (status, out) = sh("\(binary) --memory < /dev/null 2>&1 | cat")
        XCTAssertEqual(status, 0)  // cat's
        XCTAssertEqual(
            out,
            "outbox: the live screen needs a terminal, and standard input or output is not one; "
                + "use `outbox run FILE` for a headless timeline\n")
        XCTAssertEqual(sh("\(binary) --memory </dev/null >/dev/null 2>/dev/null").0, 2)
    }

    /// A terminal that cannot address the cursor, an unknown or unset TERM: one
    /// line saying so, status 2, and the terminal exactly as it was (its modes
    /// unchanged, nothing drawn, its title untouched by a TERM holding escapes).
    func test_terminalsThatCannotShowTheScreen_oneLineAndExit2_terminalUntouched() {
        let advice = "use `outbox run FILE` for a headless timeline, or set TERM to e.g. xterm-256color"
        let cases: [(env: String, line: String)] = [
            ("TERM=dumb", "outbox: the terminal 'dumb' cannot show the live screen (no cursor addressing); " + advice),
            (
                "TERM=no-such-term",
                "outbox: the terminal type 'no-such-term' is unknown here (no terminfo entry); " + advice
            ),
            (
                "-u TERM",
                "outbox: TERM is not set, so the terminal cannot be known; set TERM to e.g. xterm-256color, "
                    + "or use `outbox run FILE` for a headless timeline"
            ),
            (
                "TERM=\"$(printf 'x\\033]2;PWNED\\007')\"",
                "outbox: the terminal type 'x\\x1b]2;PWNED\\x07' is unknown here (no terminfo entry); " + advice
            ),
        ]
        for c in cases {
            let script =
                "stty -g > \(work)/before; env \(c.env) \(binary) --memory; s=$?; "
                + "stty -g > \(work)/after; echo \"EXIT=$s\"; exec sleep 60"
            XCTAssertTrue(start(script, width: 250, height: 10))
            guard waitFor("EXIT=") else { return }
            let lines = screen().split(separator: "\n").filter { !$0.isEmpty }
            XCTAssertEqual(lines, [Substring(c.line), "EXIT=2"], c.env)
            let before = try? String(contentsOfFile: work + "/before", encoding: .utf8)
            let after = try? String(contentsOfFile: work + "/after", encoding: .utf8)
            XCTAssertNotNil(before)
            XCTAssertEqual(before, after, "the terminal's modes changed: \(c.env)")
            XCTAssertNotEqual(sh("\(tmux) display -p '#{pane_title}'").1, "PWNED\n", c.env)
        }
    }

    /// SIGHUP, SIGINT, SIGQUIT, SIGTERM (sent to outbox's pid) and Ctrl-C: each
    /// quits as `q` does (the app closes, the recording ends with it, the device
    /// keeps what the rules save), gives the terminal back, and ends with status
    /// 128 + the signal's number.
    func test_stopSignals_quitAsOnQ_restoreTheTerminal_exit128PlusSignal() {
        let cases: [(name: String, signal: Int32, status: Int)] = [
            ("SIGHUP", SIGHUP, 129), ("SIGINT", SIGINT, 130), ("SIGQUIT", SIGQUIT, 131), ("SIGTERM", SIGTERM, 143),
            ("Ctrl-C", 0, 130),
        ]
        for c in cases {
            let state = work + "/state-" + c.name, rec = work + "/\(c.name).outbox"
            let run =
                Self.trapKeys + "; " + outbox("--profile ios --state-dir \(state) --record \(rec)") + "; "
                + Self.afterExit
            XCTAssertTrue(start(run, width: 140, height: 30))
            guard waitFor("OUTBOX"), let pid = startedPid() else { return }
            keys("o")
            guard waitFor("offline") else { return }
            keys("t")
            guard waitFor("queued 1") else { return }  // IOS-5: saved, waiting for the network
            if c.signal != 0 {
                XCTAssertEqual(kill(pid, c.signal), 0)
            } else {
                keys("C-c")
            }
            // The terminal is back in canonical mode: curses let go of it.
            guard waitFor("EXIT=\(c.status) icanon") else { return }
            let text = screen()
            let name = c.signal == 0 ? "SIGINT" : c.name
            XCTAssertTrue(
                text.contains("outbox: stopped by \(name); the app was closed as on q"), c.name + ":\n" + text)
            let recorded = (try? String(contentsOfFile: rec, encoding: .utf8)) ?? ""
            XCTAssertTrue(recorded.hasSuffix(" quit\n"), c.name + ":\n" + recorded)
            XCTAssertTrue(recorded.contains("network offline"), c.name + ":\n" + recorded)
            XCTAssertEqual(sh("\(binary) run --quiet \(rec)").0, 0, c.name)
            let shown = sh("\(binary) state show --profile ios --state-dir \(state)").1
            XCTAssertTrue(shown.contains("ios: 1 saved"), c.name + ":\n" + shown)
        }
    }

    /// The terminal closed under outbox (its window shut): as outbox is the
    /// terminal's controlling process it gets SIGHUP; and when a shell holds on
    /// to the terminal instead, outbox sees its input gone. Either way it quits as
    /// on `q`, and a message that can no longer be shown does not crash it.
    func test_terminalClosed_quitsAsOnQ() {
        for how in ["sighup", "input-gone"] {
            let state = work + "/state-" + how, rec = work + "/\(how).outbox", status = work + "/\(how).status"
            let args = "--profile ios --state-dir \(state) --record \(rec)"
            let run =
                how == "sighup"
                ? outbox(args, exec: true)
                : "trap : HUP; " + outbox(args) + "; echo $? > \(status)"
            XCTAssertTrue(start(run, width: 140, height: 30))
            guard waitFor("OUTBOX"), startedPid() != nil else { return }
            keys("o")
            guard waitFor("offline") else { return }
            keys("t")
            guard waitFor("queued 1") else { return }
            stopServer()
            waitForFile(rec, "the app closed") { $0.hasSuffix(" quit\n") }
            if how == "input-gone" {
                waitForFile(status, "status 129") { $0 == "129\n" }
            }
            let shown = sh("\(binary) state show --profile ios --state-dir \(state)").1
            XCTAssertTrue(shown.contains("ios: 1 saved"), how + ":\n" + shown)
        }
    }

    /// A request named with an escape sequence that sets the window title, restored
    /// from the device: the live screen shows it escaped, and the title stays.
    func test_hostileNameFromTheDevice_shownEscaped_titleUntouched() {
        let state = work + "/state"
        let scenario = work + "/hostile.outbox"
        try? "profile ios\nat 0 launch\nat 0 network offline\nat 1s track \"\u{1b}]2;PWNED\u{07}\"\n"
            .write(toFile: scenario, atomically: true, encoding: .utf8)
        XCTAssertEqual(sh("\(binary) run --quiet --state-dir \(state) \(scenario) >/dev/null").0, 0)
        XCTAssertTrue(
            start(outbox("--profile ios --state-dir \(state)") + "; " + Self.afterExit, width: 120, height: 30))
        guard waitFor("OUTBOX") else { return }
        guard waitFor("#1 \\x1b]2;PWNED\\x07") else { return }  // the detail pane's title
        XCTAssertNotEqual(sh("\(tmux) display -p '#{pane_title}'").1, "PWNED\n")
        keys("q")
        waitFor("EXIT=0")
    }
}
