import Foundation
import OutboxTestSupport
import XCTest

/// Issue 12, part 8, in a real terminal: under LANG=C every screen is ASCII.
extension EndToEndTests {
    func test_LANGC_everyScreenIsASCII_figuresReadRight() {
        XCTAssertEqual(sh("command -v tmux").0, 0, "tmux is needed (.ci/run installs it)")
        let run = "LANG=C LC_ALL=C sh -c 'echo $$ > \(pidFile); exec \(binary) --memory --profile ios'"
        XCTAssertTrue(start("cd \(work) && " + run + "; " + Self.afterExit, width: 80, height: 24))
        guard waitFor("OUTBOX") else { return }
        var screens: [String] = []
        func look(_ text: String) {
            guard waitFor(text) else { return }
            screens.append(screen())
        }
        keys(":", "server 503 x2", "Enter")
        look("backend 503 x2")
        keys("t")
        look("retrying")
        keys("Enter")  // the detail, full-screen
        look("attempt 1")
        keys("Escape")
        keys("Tab")  // the detail focused
        keys("?")
        look("Keys")
        keys("PgDn", "PgDn", "PgDn", "PgDn", "PgDn", "PgDn", "PgDn", "PgDn", "PgDn", "PgDn", "PgDn")
        look("timeline glyphs")
        keys("Escape")
        keys("x")
        look("Backend answers next")
        keys("d")
        look("1, 3, 5 times")
        keys("Escape")
        keys("z", "z", "Z")
        look("1 col = 500 ms")
        for s in screens {
            let bad = s.unicodeScalars.filter { !$0.isASCII }
            XCTAssertEqual(String(String.UnicodeScalarView(bad)), "", s)
        }
        XCTAssertTrue(screens[0].contains("| backend 503 x2 |"), screens[0])
        XCTAssertTrue(screens.contains { $0.contains("1 col = ") }, screens.joined(separator: "\n"))
        keys("q")
        waitFor("EXIT=0")
    }

    /// A message covers the hint bar for a few seconds of wall time, then the keys come back.
    func test_message_givesTheHintBarBack() {
        XCTAssertEqual(sh("command -v tmux").0, 0, "tmux is needed (.ci/run installs it)")
        XCTAssertTrue(
            start("cd \(work) && " + outbox("--memory --profile ios") + "; " + Self.afterExit, width: 80, height: 24))
        guard waitFor("? help q quit") else { return }
        keys("Y")
        guard waitFor("no command on `Y`: press ? for help") else { return }
        XCTAssertFalse(screen().contains("? help q quit"))
        // No key pressed: the loop lets the message go (after 4 s; waitFor allows 10).
        guard waitFor("? help q quit") else { return }
        XCTAssertFalse(screen().contains("no command on"))
        keys("q")
        waitFor("EXIT=0")
    }
}
