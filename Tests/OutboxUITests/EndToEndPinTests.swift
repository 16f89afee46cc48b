import Foundation
import OutboxTestSupport
import XCTest

/// Issue 15, item 2, in a real terminal: explore with keys, press `E`, quit;
/// `outbox run` on the recording exits 0 with the pinned lines counted. The
/// session starts on a device that holds saved requests (they get their ids
/// at the launch, in the replay as in the session).
extension EndToEndTests {
    func test_pin_exploreThenE_theRecordingPassesWithItsExpectLines() throws {
        XCTAssertEqual(sh("command -v tmux").0, 0, "tmux is needed (.ci/run installs it)")
        let state = work + "/state", rec = work + "/pinned.outbox"
        let earlier = work + "/earlier.outbox"
        try "profile ios\nat 0 launch\nat 1s network offline\nat 2s track first\nat 3s track first\nat 5s quit\n"
            .write(toFile: earlier, atomically: true, encoding: .utf8)
        XCTAssertEqual(sh("\(binary) run --quiet --state-dir \(state) \(earlier)").0, 0)
        XCTAssertTrue(
            start(
                outbox("--profile ios --state-dir \(state) --record \(rec)") + "; " + Self.afterExit,
                width: 80, height: 24))
        guard waitFor("OUTBOX") else { return }
        // About 0.7 s a key: the clock runs at 1× in between.
        for k in ["t", ":server 503 x3", "t", "o", "t", "o", "t"] {
            if k.hasPrefix(":") { keys(k, "Enter") } else { keys(k) }
            usleep(700_000)
        }
        keys("E")
        guard waitFor("pinned ") else { return }
        let said = screen().split(separator: "\n").first { $0.contains("pinned ") }.map(String.init) ?? ""
        keys("t")
        usleep(700_000)
        keys("E")
        usleep(700_000)
        keys("q")
        guard waitFor("EXIT=0") else { return }
        XCTAssertTrue(screen().contains("expect lines (E) to \(rec)"), screen())

        let text = try String(contentsOfFile: rec, encoding: .utf8)
        let expects = text.split(separator: "\n").filter { $0.hasPrefix("expect at ") }
        XCTAssertEqual(text.split(separator: "\n").filter { $0.hasPrefix("# E at ") }.count, 2, text)
        XCTAssertGreaterThan(expects.count, 10, text)
        // The message line said how many the first `E` wrote.
        let first = text.components(separatedBy: "# E at ")[1].split(separator: "\n").dropFirst()
            .prefix { $0.hasPrefix("expect at ") }.count
        XCTAssertTrue(said.contains("pinned \(first) expect lines at "), said)
        // Saved requests and requests of one name in different states: `request ID` lines.
        XCTAssertTrue(text.contains("\nsaved event first created 2s"), text)
        XCTAssertTrue(expects.contains { $0.contains(" request ") }, text)
        let (status, out) = sh("\(binary) run --quiet \(rec)")
        XCTAssertEqual(status, 0, out + "\n" + text)
        XCTAssertTrue(out.contains(": \(expects.count) passed, 0 failed"), out)
    }
}
