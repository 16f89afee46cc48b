import XCTest
@testable import OutboxCore
@testable import OutboxUI

/// The list's timeline: its scale, zoom, fit, following the selection, cut quiet stretches.
final class TimelineTests: XCTestCase {
    /// docs/guide.md use 1 (examples/ios-retry-ladder.outbox): a backend answering
    /// 503 to everything, one purchase.
    func iosLadder() -> Session {
        var s = Session(.ios)
        s.command("server 503 always")
        s.command("track purchase")
        return s
    }

    func row(_ s: Session, _ id: Int, _ w: Int = 80, _ h: Int = 24) -> String {
        let lines = s.screen(w, h).lines
        let i = lines.firstIndex { $0.hasPrefix(String(repeating: " ", count: 5 - "\(id)".count) + "\(id) ") }!
        return lines[i]
    }

    func test_iosLadder_fitsItsRowAt80x24_whenDropped_and20MinutesLater() {
        var s = iosLadder()
        s.wait(210_800)
        XCTAssertEqual(s.states("purchase"), ["dropped"])
        assertSnapshot(s.screen().text, "ios-ladder-dropped-80x24")
        XCTAssertTrue(row(s, 1).hasSuffix("│     ✗+30s✗+60s✗+2m✗■"), row(s, 1))
        s.wait(20 * 60_000)
        assertSnapshot(s.screen().text, "ios-ladder-20min-80x24")
        XCTAssertTrue(row(s, 1).hasSuffix("│✗+30s✗+60s✗+2m✗■+20m "), row(s, 1))
    }
}
