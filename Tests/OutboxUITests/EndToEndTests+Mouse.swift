import Foundation
import OutboxTestSupport
import XCTest

/// The mouse in a real terminal (issue 15, item 4): tmux is told to report
/// clicks in SGR form while Outbox runs and to stop when it quits; SGR reports
/// typed into the pane (`send-keys -l`, as a terminal would send them) click a
/// row and a tab and turn the wheel, at a person's pace.
extension EndToEndTests {
    /// tmux's view of the pane's mouse modes: `1000 1006` flags, "11" when both are on.
    func mouseModes() -> String {
        sh("\(tmux) display -p '#{mouse_standard_flag}#{mouse_sgr_flag}'").1.trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    /// An SGR report typed into the pane: button `b` at column x, row y (from 1), pressed or released.
    func mouse(_ b: Int, _ x: Int, _ y: Int, press: Bool = true) {
        sh("\(tmux) send-keys -l \"$(printf '\\033[<\(b);\(x);\(y)\(press ? "M" : "m")')\"")
    }

    /// A left click (press and release) at a cell counted from 0, as a person clicks.
    func click(_ x: Int, _ y: Int) {
        mouse(0, x + 1, y + 1)
        usleep(80_000)
        mouse(0, x + 1, y + 1, press: false)
        usleep(300_000)
    }

    /// Where `text` first shows on the screen (column, row from 0).
    func find(_ text: String) -> (x: Int, y: Int)? {
        for (y, l) in screen().split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let r = l.range(of: text) { return (l.distance(from: l.startIndex, to: r.lowerBound), y) }
        }
        return nil
    }

    func test_mouse_clickARowAndATab_wheelScrolls_reportingOffAtQuit() {
        XCTAssertTrue(start(outbox("--memory --profile ios") + "; " + Self.afterExit, width: 100, height: 30))
        guard waitFor("OUTBOX") else { return }
        XCTAssertEqual(mouseModes(), "11", "clicks reported, in SGR form")
        keys("x", "e", "1", "t")  // 1: a 400, dropped
        guard waitFor("dropped 1") else { return }
        keys("t", "T")  // 2, and a burst of 20: more rows than the list shows
        guard waitFor("delivered 21") else { return }
        guard waitFor(" 11-22 of 22 ") else { return }
        // A click on request 12's row.
        guard let row = find("   12 event") else { return XCTFail(screen()) }
        click(row.x + 8, row.y)
        guard waitFor("─ #12 burst-10") else { return }
        // The wheel up over the list, twice: 3 rows a notch; the selection follows into view.
        mouse(64, 30, row.y + 1)
        usleep(300_000)
        mouse(64, 30, row.y + 1)
        guard waitFor(" 5-16 of 22 ") else { return }
        XCTAssertTrue(screen().contains("─ #12 burst-10"), "12 is still in view, still selected:\n" + screen())
        // The dropped tab.
        guard let tab = find(" dropped 1 ") else { return XCTFail(screen()) }
        click(tab.x + 2, tab.y)
        guard waitFor("─ #1 purchase") else { return }
        XCTAssertNil(find("    2 event"), "only the dropped request is listed:\n" + screen())
        keys("q")
        guard waitFor("EXIT=0 icanon") else { return }
        XCTAssertEqual(mouseModes(), "00", "the shell gets a terminal that reports no clicks")
    }

    func test_noMouse_leavesTheMouseToTheTerminal() {
        XCTAssertTrue(start(outbox("--memory --no-mouse") + "; " + Self.afterExit, width: 100, height: 30))
        guard waitFor("OUTBOX") else { return }
        XCTAssertEqual(mouseModes(), "00")
        keys("q")
        guard waitFor("EXIT=0 icanon") else { return }
    }

    /// Stopped by a signal, the terminal stops reporting clicks too (the same
    /// restore as `q`); and a screen recording (`--cast`) keeps the bytes that
    /// turned reporting on and off, in order.
    func test_mouse_offAfterASignal_andInACast() {
        let cast = work + "/s.cast"
        XCTAssertTrue(
            start(
                Self.trapKeys + "; " + outbox("--memory --cast \(cast)") + "; " + Self.afterExit, width: 100, height: 30
            ))
        guard waitFor("OUTBOX"), let pid = startedPid() else { return }
        XCTAssertEqual(mouseModes(), "11")
        XCTAssertEqual(kill(pid, SIGTERM), 0)
        guard waitFor("EXIT=143 icanon") else { return }
        XCTAssertEqual(mouseModes(), "00")
        let text = (try? String(contentsOfFile: cast, encoding: .utf8)) ?? ""
        let modes = text.components(separatedBy: "\\u001b[?100").dropFirst().map { String($0.prefix(2)) }
        XCTAssertEqual(modes, ["0h", "6h", "6l", "0l"], text.suffix(300).description)
    }
}
