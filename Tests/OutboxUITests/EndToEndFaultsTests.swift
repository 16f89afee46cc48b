import Foundation
import OutboxTestSupport
import XCTest

/// Issue 15, item 1, in a real terminal: the faults' keys, shown in the header
/// and recorded; `outbox run` replays the recording.
extension EndToEndTests {
    func test_faultKeys_showInTheHeader_recordingReplays() throws {
        XCTAssertEqual(sh("command -v tmux").0, 0, "tmux is needed (.ci/run installs it)")
        let rec = work + "/faults.outbox"
        XCTAssertTrue(
            start(outbox("--memory --profile ios --record \(rec)") + "; " + Self.afterExit, width: 80, height: 24))
        guard waitFor("OUTBOX") else { return }
        keys("t")
        guard waitForFile(rec, "the track line", { $0.contains("track purchase") }) else { return }
        keys("x", "r", "d", "a")
        guard waitFor("+1 for purchase") else { return }
        keys("x", "d", "%", "3", "0", "Enter")
        guard waitFor("503 30%") else { return }
        keys("F", "1")
        guard waitFor("flap 5s/2s") else { return }
        keys("J", "2")
        guard waitFor("lat ±50ms") else { return }
        keys("q")
        guard waitFor("EXIT=0") else { return }
        let lines = try String(contentsOfFile: rec, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines.filter { $0.hasPrefix("at ") }.map { $0.split(separator: " ").dropFirst(2).joined(separator: " ") },
            [
                "launch", "track purchase value=49.99 currency=USD", "server 503 always for purchase",
                "server 503 30%", "network flap 5s 2s", "set latency.jitter 50ms", "quit",
            ])
        let (status, out) = sh("\(binary) run \(rec)")
        XCTAssertEqual(status, 0, out)
        XCTAssertTrue(out.contains("backend will answer: 503 always for purchase"), out)
        XCTAssertTrue(out.contains("network flap: online 5s, offline 2s, repeating"), out)
    }
}
