import Foundation
import OutboxTestSupport
import XCTest

/// `outbox fleet FILE --live` in a real terminal (tmux, 100×30), keys at a
/// person's pace: faster, `o` takes the backend down (the outage is named on
/// the chart and the attempts fail), `o` brings it back, `q` quits, the
/// terminal is back and the lines played are printed.
extension EndToEndTests {
    func test_fleetLive_speedUp_outageByKey_attemptsFail_quitRestoresTheTerminal() throws {
        XCTAssertEqual(sh("command -v tmux").0, 0, "tmux is needed (.ci/run installs it)")
        XCTAssertTrue(
            start(
                "cd \(packageRoot) && " + outbox("fleet examples/fleet/outage.fleet --live") + "; " + Self.afterExit,
                width: 100, height: 30))
        guard waitFor("OUTBOX fleet") else { return }
        XCTAssertTrue(waitFor("backend ● up"))
        func pace() { usleep(700_000) }
        keys("+")
        pace()
        guard waitFor("600×") else { return }
        keys("o")
        pace()
        guard waitFor("backend — down: server timeout") else { return }
        XCTAssertTrue(waitFor("outage server timeout"))
        // The attempts fail: the summary's failed count is no longer 0.
        var failed = 0
        for _ in 0..<50 where failed == 0 {
            let s = screen()
            if let r = s.range(of: #"failed (\d+)"#, options: .regularExpression) {
                failed = Int(s[r].split(separator: " ")[1]) ?? 0
            }
            usleep(100_000)
        }
        XCTAssertGreaterThan(failed, 0, screen())
        keys("o")
        pace()
        XCTAssertTrue(waitFor("backend ● up"))
        keys("q")
        guard waitFor("EXIT=0 icanon") else { return }
        let shown = screen()
        XCTAssertTrue(shown.contains("server timeout always"), shown)
        XCTAssertTrue(
            shown.contains("the lines played live; added to the file's end they give the same numbers"), shown)
        XCTAssertFalse(shown.contains("OUTBOX fleet"), "the screen is the shell's again:\n" + shown)
    }
}
