import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

/// Issue 22, items 8–11: the live screen stays bounded and responsive for hours
/// (the reliability report's defects 9, 10, 23 and 24).
final class BoundsTests: XCTestCase {
    override func setUpWithError() throws { try skipUnderThreadSanitizer("the live model at its limits, in memory") }

    /// What the session holds in its journals: entries, kept transitions, log
    /// positions and network changes (what grew ~7 MB/s under a flap at 3600×).
    func held(_ m: AppModel) -> Int {
        m.sim.journal.count + m.sim.compactedTransitions.count + m.sim.logPositions.count
            + m.sim.networkChanges.count
    }

    /// `:network flap 100ms 100ms` at 3600×, frame after frame of wall time: what
    /// the journals hold stops growing once the limits are reached, however long
    /// it runs; the log keeps its newest lines and says how many it forgot, and
    /// a request's history made before the flap is still whole.
    func test_aLongFlapAt3600x_holdsABoundedJournal_andHistoriesStayWhole() {
        var s = Session(.ios)
        s.model.journalLimits = JournalLimits(logLines: 2_000, networkChanges: 2_000)
        s.type("t")  // a purchase, delivered before the flap
        s.wait(5_000)
        let history = s.model.sim.history(of: 1).map { "\($0.time) \($0.from) → \($0.to) \($0.rule)" }
        XCTAssertEqual(s.model.sim.history(of: 1).last?.to, .delivered)
        s.command("network flap 100ms 100ms")
        s.model.speedIndex = AppModel.speeds.firstIndex { $0.msPerSecond == 3_600_000 }!
        var sizes: [Int] = []
        for _ in 0..<6 {
            s.passWall(10_000)  // 10 s of wall time: 10 virtual hours
            sizes.append(held(s.model))
        }
        XCTAssertGreaterThan(s.model.sim.now, 59 * 3_600_000, "the clock ran its hours")
        XCTAssertGreaterThan(s.model.sim.forgottenLogLines, 100_000, "the flap made its log lines")
        // Never more than twice each limit (compaction halves at 2×), plus the one request's history.
        for n in sizes { XCTAssertLessThanOrEqual(n, 4 * 2_000 + 2 * 2_000 + history.count + 1, "\(sizes)") }
        XCTAssertLessThanOrEqual(sizes.max()! - sizes.min()!, 2 * 2_000 + 2_000, "flat, not growing: \(sizes)")
        XCTAssertEqual(
            s.model.sim.history(of: 1).map { "\($0.time) \($0.from) → \($0.to) \($0.rule)" }, history,
            "the history made before the flap is whole")
        XCTAssertEqual(
            s.model.forgottenLogNote,
            "… \(s.model.sim.forgottenLogLines) older log lines forgotten (the live screen keeps the newest 2000+)")
        // Scrolled up to the oldest line kept, the log pane's first row says what went before.
        s.width = 100
        s.height = 40
        s.model.setScreen(width: 100, height: 40)
        s.model.focus = .log
        s.model.layOut()
        for _ in 0..<3 { s.press(.home) }
        let shown = s.screen().text
        XCTAssertTrue(shown.contains("… \(s.model.sim.forgottenLogLines) older log lines forgotten"), shown)
        // An export holds the transitions and says what it left out.
        let (text, what) = s.model.exportFile(for: "x.jsonl")
        XCTAssertTrue(text.contains("\"to\":\"delivered\""), String(text.prefix(300)))
        XCTAssertTrue(what.hasSuffix("oldest log lines, forgotten by the live screen)"), what)
    }

    /// With the defaults (20 000 lines, 20 000 changes) the same flap levels off too.
    func test_theDefaultLimits_levelOff() {
        var s = Session(.ios)
        s.command("network flap 100ms 100ms")
        s.model.speedIndex = AppModel.speeds.firstIndex { $0.msPerSecond == 3_600_000 }!
        var sizes: [Int] = []
        for _ in 0..<4 {
            s.passWall(15_000)
            sizes.append(held(s.model))
        }
        let cap = 4 * 20_000 + 2 * 20_000
        XCTAssertTrue(sizes.allSatisfy { $0 <= cap }, "\(sizes) within \(cap)")
        XCTAssertGreaterThan(s.model.sim.forgottenLogLines, 4 * 20_000)
    }

    /// A long gap between frames (a stall, a machine asleep) plays at most
    /// `maxWallStepMs` of wall time; a gap with a stop in it (Ctrl-Z then `fg`,
    /// kill -STOP then -CONT) plays none of it.
    func test_aStallPlaysAtMostOneStep_aStopPlaysNothing() {
        var s = Session(.ios)
        let t0 = s.model.sim.now
        s.model.wallTimePassed(ms: 30_000)
        XCTAssertEqual(s.model.sim.now - t0, AppModel.maxWallStepMs, "1×: 30 s of stall is one step")
        let t1 = s.model.sim.now
        s.model.wallTimePassed(ms: 30_000, stopped: true)
        XCTAssertEqual(s.model.sim.now, t1, "stopped: nothing")
        s.model.speedIndex = AppModel.speeds.firstIndex { $0.msPerSecond == 3_600_000 }!
        s.model.wallTimePassed(ms: 3_600_000)
        XCTAssertEqual(
            s.model.sim.now - t1, AppModel.maxWallStepMs * 3600, "3600×: 15 virtual minutes, not an hour's worth")
    }

    /// Under the "too small" notice the clock waits, and says so.
    func test_tooSmall_holdsTheClock_andSaysSo() {
        var s = Session(.ios, width: 40, height: 10)
        XCTAssertTrue(s.model.heldBySize)
        let t0 = s.model.sim.now
        s.passWall(5_000)
        XCTAssertEqual(s.model.sim.now, t0)
        XCTAssertTrue(s.screen().text.contains("The clock is paused until it is larger."), s.screen().text)
        s.width = 80
        s.height = 24
        s.model.setScreen(width: 80, height: 24)
        XCTAssertFalse(s.model.heldBySize)
        s.passWall(1_000)
        XCTAssertEqual(s.model.sim.now - t0, 1_000)
    }

    /// A 10000×10000 terminal: the frame is 1000×500 whatever the size, its last
    /// row says so, and the screen above it is the one a 1000×499 terminal shows.
    func test_aHugeTerminal_drawsABoundedArea_andSaysSo() {
        var s = Session(.ios, width: 10_000, height: 10_000)
        s.type("t")
        let buf = AppView.render(s.model, width: 10_000, height: 10_000)
        XCTAssertEqual(buf.width, AppView.maxWidth)
        XCTAssertEqual(buf.height, AppView.maxHeight)
        XCTAssertEqual(buf.cells.count, 1000 * 500)
        let lines = buf.text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(
            lines[499].trimmingCharacters(in: .whitespaces),
            "This terminal is 10000×10000; Outbox draws its top-left 1000×500 and leaves the rest blank.")
        let smaller = AppView.render(s.model, width: 1000, height: 499)
        XCTAssertEqual(
            Array(lines.prefix(499)), smaller.text.split(separator: "\n", omittingEmptySubsequences: false).map { $0 })
        // Only one side too big: bounded on that side only.
        let wide = AppView.render(s.model, width: 5_000, height: 30)
        XCTAssertEqual(wide.width, 1000)
        XCTAssertEqual(wide.height, 30)
        XCTAssertNil(AppView.bigNotice(width: 1000, height: 500))
    }

    /// 100 000 plans for names: the header and the status pane show the first
    /// few and the count, as `targeted` has them, without building the list.
    func test_100kNamePlans_headerAndPaneAgreeWithTheFullList() {
        var s = Session(.ios, width: 100, height: 30)
        for i in 0..<100_000 {
            s.model.sim.plans.plan(.status(503), i < 3 ? .times(1) : .always, for: .name("n\(i)"), vocabulary: .builtin)
        }
        XCTAssertEqual(s.model.sim.plans.targeted.count, 100_000)
        XCTAssertEqual(s.model.sim.plans.headerText(), "ok +100000 for n0, …")
        XCTAssertEqual(s.model.sim.plans.headerText(short: true), "ok +100000")
        let first3 = s.model.sim.plans.targeted(first: 3).map(\.target.label)
        XCTAssertEqual(first3, s.model.sim.plans.targeted.prefix(3).map(\.target.label))
        // Using up the first plans (one answer each) moves the header on to the next planned name.
        for i in 0..<3 {
            XCTAssertEqual(s.model.sim.plans.take(kind: .event, name: { "n\(i)" }, draw: { _ in 0 }), .status(503))
        }
        XCTAssertEqual(s.model.sim.plans.headerText(), "ok +99997 for n3, …")
        XCTAssertEqual(s.model.sim.plans.targeted(first: 1).map(\.target.label), ["n3"])
    }

    /// A 100 KB paste into the `:` line: every character lands, in order, and the
    /// bar shows the end of the line, where the typing goes.
    func test_a100KBPaste_landsWhole_andTheBarShowsItsEnd() {
        var s = Session(.ios)
        s.press(.char(":"))
        let paste = String(repeating: "abcdefghij", count: 10_000)
        s.type(paste)
        guard case .command(let text) = s.model.mode else { return XCTFail("not on the : line") }
        XCTAssertEqual(text, paste)
        let bar = String(s.screen().lines[23])
        XCTAssertTrue(bar.hasPrefix(":…"), bar)
        XCTAssertTrue(bar.trimmingCharacters(in: .whitespaces).hasSuffix("hij_"), bar)
        s.press(.escape)
        XCTAssertEqual(s.model.mode, .normal)
    }
}
