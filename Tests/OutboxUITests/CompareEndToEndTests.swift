import Foundation
import OutboxTestSupport
import XCTest

/// The live compare in a real terminal (tmux, a private server per test, as the
/// rest of `EndToEndTests`): one `t` and one `:server 403 always` act on all three
/// columns, the row where they differ is marked, `q` gives the terminal back,
/// and the recording holds the shared inputs.
extension EndToEndTests {
    /// Types keys at a person's pace: a key, then a pause.
    func typeSlowly(_ k: String...) {
        for key in k {
            keys(key)
            usleep(700_000)
        }
    }

    /// The screen's line holding `text` (first one), or "".
    func line(with text: String) -> String {
        screen().split(separator: "\n").first { $0.contains(text) }.map(String.init) ?? ""
    }

    func liveCompare(width: Int, height: Int, file: StaticString = #filePath, line l: UInt = #line) {
        let rec = work + "/compare-\(width).outbox"
        XCTAssertTrue(
            start(
                outbox("--compare ios,android,flutter --record \(rec)") + "; " + Self.afterExit, width: width,
                height: height))
        guard waitFor("OUTBOX compare", file: file, line: l) else { return }
        XCTAssertTrue(screen().contains("devices in memory") || width < 100, screen(), file: file, line: l)
        typeSlowly("t")
        // One key, three purchases: each column's row shows it delivered.
        guard waitFor(width < 100 ? " deliv 1 " : " delivered 1 ", file: file, line: l) else { return }
        guard waitFor("0 differ", file: file, line: l) else { return }
        let first = line(with: "purchase")
        XCTAssertEqual(first.components(separatedBy: "delivered").count - 1, 3, screen(), file: file, line: l)
        typeSlowly(":", "server 403 always", "Enter")
        guard waitFor("backend 403 always", file: file, line: l) else { return }
        typeSlowly("t")
        // The same 403, three ways: the second purchase's row is marked.
        guard waitFor("1 differ", file: file, line: l) else { return }
        let marked = line(with: "≠  purchase")
        XCTAssertTrue(marked.contains("│dropped ") && marked.contains("│queued "), screen(), file: file, line: l)
        XCTAssertEqual(marked.components(separatedBy: "dropped").count - 1, 2, screen(), file: file, line: l)
        XCTAssertTrue(line(with: "#2 · saved").contains("│"), screen(), file: file, line: l)  // the detail, side by side
        typeSlowly("q")
        guard waitFor("EXIT=0 icanon", file: file, line: l) else { return }
        let recorded = (try? String(contentsOfFile: rec, encoding: .utf8)) ?? ""
        let lines = recorded.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        XCTAssertEqual(Array(lines.prefix(3)), ["profile ios", "compare ios,android,flutter", "at 0 launch"], recorded)
        XCTAssertEqual(
            lines.dropFirst(3).map { $0.split(separator: " ").dropFirst(2).joined(separator: " ") },
            [
                "track purchase value=49.99 currency=USD", "server 403 always",
                "track purchase value=49.99 currency=USD",
                "quit",
            ], recorded, file: file, line: l)
    }

    func test_liveCompare_80x24_oneKeyOnAllColumns_differingRowMarked_quitRestores() {
        liveCompare(width: 80, height: 24)
    }

    func test_liveCompare_160x45_oneKeyOnAllColumns_differingRowMarked_quitRestores() {
        liveCompare(width: 160, height: 45)
    }

    /// Bad `--compare` input: one line naming it, exit 2, before the terminal is touched.
    func test_liveCompare_unknownProfile_exit2_terminalUntouched() {
        let script =
            "stty -g > \(work)/before; " + outbox("--compare ios,nokia") + "; s=$?; stty -g > \(work)/after; "
            + "echo \"EXIT=$s\"; exec sleep 60"
        XCTAssertTrue(start(script, width: 160, height: 10))
        guard waitFor("EXIT=") else { return }
        let lines = screen().split(separator: "\n").filter { !$0.isEmpty }
        XCTAssertEqual(
            lines,
            [
                "outbox: --compare has an unknown profile `nokia`, expected linktrail, ios, android, flutter or "
                    + "a real SDK's name (`outbox profiles` lists them: posthog-ios, segment-swift, ...)" + ", or a profile file (a path ending .profile)",
                "EXIT=2",
            ])
        XCTAssertEqual(
            try? String(contentsOfFile: work + "/before", encoding: .utf8),
            try? String(contentsOfFile: work + "/after", encoding: .utf8))
    }
}
