import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

/// The frame's layout kept on the model (D300): keys and clicks go by the last
/// frame drawn, the screen's size is kept once, and a key says what it did.
final class LayoutTests: XCTestCase {
    /// A click lands on what the last frame drew, even when the model moved on
    /// since (here: a tab's count grew a digit, which moves the tabs after it).
    func test_click_goesByTheLastFrame_notTheModelSince() {
        var s = Session(.ios)
        for _ in 0..<9 { s.type("t") }
        let tabs = String(s.screen().lines[s.model.layout.headerRows])
        let x = tabs.distance(from: tabs.startIndex, to: tabs.range(of: " deliv ")!.lowerBound)
        // Without a frame: one request more ("all 10"), the tabs drawn next would move right.
        s.model.perform(.eventTracked(TrackedEvent(name: "ten")))
        let moved = String(AppView.render(s.model, width: 80, height: 24).lines[s.model.layout.headerRows])
        XCTAssertNotEqual(moved.range(of: " deliv ")?.lowerBound, tabs.range(of: " deliv ")?.lowerBound, moved)
        _ = s.model.handle(.mouse(.click(x: x + 1, y: s.model.layout.headerRows)))
        XCTAssertEqual(s.model.tab, .delivered)
    }

    /// The size is the model's one field: a layout is made for it, and the page
    /// of the list follows the next frame's layout, not the size alone.
    func test_screenSize_keptOnce_theLayoutFollowsIt() {
        var s = Session(.ios)
        let page = s.model.listHeight
        s.model.setScreen(width: 100, height: 40)
        XCTAssertEqual(s.model.screen, ScreenSize(width: 100, height: 40))
        XCTAssertEqual(s.model.listHeight, page, "no frame yet")
        s.model.laidOut(AppView.layout(for: s.model))
        XCTAssertGreaterThan(s.model.listHeight, page)
        XCTAssertEqual(s.model.layout, AppView.layout(for: s.model), "a function of the model and its size")
    }

    /// `:compare off` says so as an effect (the loop starts the recording's next part).
    func test_compareOff_isAnEffect() {
        var s = Session(compare: [.ios, .android])
        s.press(.char(":"))
        s.type("compare off")
        XCTAssertEqual(s.press(.enter), .leftCompare)
        s.press(.char(":"))
        s.type("compare off")
        XCTAssertNil(s.press(.enter), "not comparing: nothing to leave")
    }

    /// The clock stopping itself (a breakpoint) is said by `wallTimePassed`.
    func test_clockStoppingItself_isAnEffect() {
        var s = Session(.ios)
        s.model.setBreakpoints([.state(.delivered)])
        s.type("t")
        var effects: [ClockEffect] = []
        for _ in 0..<200 where !s.model.paused { effects.append(s.model.wallTimePassed(ms: 33)) }
        XCTAssertTrue(s.model.paused)
        XCTAssertEqual(effects.last, .stoppedItself)
        XCTAssertEqual(effects.dropLast().filter { $0 != ClockEffect.none }, [])
        XCTAssertEqual(s.model.wallTimePassed(ms: 33), ClockEffect.none, "paused: the clock does not move")
    }
}
