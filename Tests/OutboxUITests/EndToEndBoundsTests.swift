import Foundation
import OutboxTestSupport
import XCTest

/// Issue 22, items 9–11, on the real program in a real terminal: Ctrl-Z and `fg`
/// in an interactive shell, a terminal bigger than the drawn area, a 100 KB paste.
extension EndToEndTests {
    /// The header's clock, in tenths of a second (`00:00:02.9` is 29), or nil.
    func headerClock() -> Int? {
        let line = screen().split(separator: "\n").first { $0.contains("OUTBOX") }.map(String.init) ?? ""
        guard let r = line.range(of: #"\d\d:\d\d:\d\d\.\d"#, options: .regularExpression) else { return nil }
        let p = line[r].split { $0 == ":" || $0 == "." }.compactMap { Int($0) }
        return ((p[0] * 60 + p[1]) * 60 + p[2]) * 10 + p[3]
    }

    /// Ctrl-Z in bash stops Outbox with the terminal given back; `fg` resumes it,
    /// the clock having not run while it was stopped, and the screen says so.
    func test_ctrlZ_thenFg_theClockDidNotRunWhileStopped() {
        let run = work + "/run.sh"
        XCTAssertNoThrow(
            try (outbox("--memory --profile ios") + "\n").write(toFile: run, atomically: true, encoding: .utf8))
        XCTAssertTrue(start("PS1='$ ' exec bash --norc --noprofile -i", width: 80, height: 24))
        usleep(500_000)
        keys("sh \(run)", "Enter")
        guard waitFor("OUTBOX"), let pid = startedPid() else { return }
        usleep(1_000_000)
        guard let before = headerClock() else { return XCTFail(screen()) }
        // Curses ignores SIGTSTP while it writes a frame (so a stop never cuts an
        // escape sequence): a Ctrl-Z typed then is lost, and a person types it again.
        // bash's "Stopped" line can land on the screen curses is leaving, so the
        // process's state is what is read.
        func stopped() -> Bool { sh("ps -o stat= -p \(pid)").1.hasPrefix("T") }
        // Each Ctrl-Z is given up to 3 s to take (a sanitizer build is slow): a second
        // one typed while the first is still stopping it stays pending, and stops
        // Outbox again as soon as `fg` resumes it.
        func waitStopped() -> Bool {
            for _ in 0..<30 {
                if stopped() { return true }
                usleep(100_000)
            }
            return false
        }
        for _ in 0..<5 {
            keys("C-z")
            if waitStopped() { break }
        }
        guard stopped() else { return XCTFail("Ctrl-Z never stopped outbox:\n" + screen()) }
        sleep(5)
        keys("fg", "Enter")
        // Should a Ctrl-Z still have been pending, `fg` again, as a person would.
        let resumed = "resumed: the clock did not run while Outbox was stopped"
        for _ in 0..<60 where !screen().contains(resumed) {
            if stopped() {
                usleep(300_000)
                if stopped() { keys("fg", "Enter") }
            }
            usleep(100_000)
        }
        guard waitFor(resumed) else { return }
        guard let after = headerClock() else { return XCTFail(screen()) }
        // Five seconds stopped: the clock moved by the second or two around them, not by five more.
        XCTAssertLessThan(after - before, 40, "clock \(before) → \(after):\n" + screen())
        keys("q")
        XCTAssertTrue(waitFor("$ "))
    }

    /// A terminal bigger than 1000×500: Outbox draws its top-left 1000×500, the
    /// last row of it says so, and `q` still quits at once.
    func test_aTerminalBiggerThanTheDrawnArea_boundedAndSaysSo_qQuits() {
        XCTAssertTrue(start(outbox("--memory --profile ios") + "; " + Self.afterExit, width: 80, height: 24))
        guard waitFor("OUTBOX") else { return }
        sh("\(tmux) resize-window -x 2000 -y 1000")
        guard waitFor("This terminal is 2000×1000; Outbox draws its top-left 1000×500 and leaves the rest blank.")
        else { return }
        let rows = screen().split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertTrue(rows.count > 499 && rows[499].hasPrefix("This terminal is 2000×1000"), "row 500 holds the notice")
        XCTAssertTrue(rows.dropFirst(500).allSatisfy { $0.allSatisfy { $0 == " " } }, "nothing below the drawn area")
        keys("q")
        XCTAssertTrue(waitFor("EXIT=0 icanon"))
    }

    /// A 100 KB paste into the `:` line is absorbed at once: Esc and `q` typed
    /// right after it act as keys (before, they waited about 18 s in the line).
    func test_a100KBPaste_isAbsorbed_andTheNextKeysAct() throws {
        XCTAssertTrue(start(outbox("--memory --profile ios") + "; " + Self.afterExit, width: 80, height: 24))
        guard waitFor("OUTBOX") else { return }
        let paste = work + "/paste.txt"
        try String(repeating: "abcdefghij", count: 10_000).write(toFile: paste, atomically: true, encoding: .utf8)
        keys(":")
        XCTAssertEqual(sh("\(tmux) load-buffer \(paste)").0, 0)
        XCTAssertEqual(sh("\(tmux) paste-buffer").0, 0)
        guard waitFor(":…defghij") else { return }
        keys("Escape")
        usleep(300_000)
        keys("q")
        XCTAssertTrue(waitFor("EXIT=0 icanon"))
    }
}
