import OutboxTestSupport
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

    /// Guide use 1 with its keys at 80x24: `x d a`, `t`, then `.` from moment to
    /// moment; the ladder in its row at the drop, and 20 minutes later.
    func test_iosLadder_withTheGuidesKeys_80x24() {
        var s = Session(.ios)
        s.type("xda")
        s.type("t")
        for _ in 0..<20 where s.model.sim.nextDueTime() != nil { s.type(".") }
        XCTAssertEqual(s.states("purchase"), ["dropped"])
        assertSnapshot(s.screen().text, "ios-ladder-keys-80x24")
        XCTAssertTrue(row(s, 1).hasSuffix("│     ✗+30s✗+60s✗+2m✗■"), row(s, 1))
        s.type(" ")  // a step pauses: space runs the clock again
        s.wait(20 * 60_000)
        XCTAssertTrue(row(s, 1).hasSuffix("│✗+30s✗+60s✗+2m✗■+20m "), row(s, 1))
        assertSnapshot(s.screen(glyphs: .ascii).text, "ios-ladder-keys-20min-80x24-ascii")
    }

    /// The heading and the lane of row 1 at 80x24.
    func lane(_ s: Session, row: Int = 1) -> String {
        let lines = s.screen().lines
        let h = lines.firstIndex { $0.hasPrefix("    # kind") }!
        return String(lines[h].suffix(21)) + "\n" + String(lines[h + row].suffix(21))
    }

    /// `z`/`Z` step the ladder from the scale on screen; `f` fits again.
    func test_zoomAndFit() {
        var s = iosLadder()
        s.wait(210_800)
        XCTAssertEqual(lane(s), "1 col = 1 s          \n     ✗+30s✗+60s✗+2m✗■")
        // 500 ms: the third answer (90.6 s) falls a column after its send; still one
        // mark per attempt (no `◌` once answered, the send inside the cut).
        s.type("z")
        XCTAssertEqual(lane(s), "1 col = 500 ms (z)   \n     ✗+30s✗+60s✗+2m✗■")
        s.type("z")  // 200 ms: every send a column before its answer, still 4 marks
        XCTAssertEqual(lane(s), "1 col = 200 ms (z)   \n     ✗+30s✗+60s✗+2m✗■")
        s.type("zz")
        XCTAssertEqual(s.model.message?.text, "the timeline is at its finest: 1 col = 100 ms")
        // Too fine for the whole life: the latest part shows, up to the drop; the
        // cut edge says more lies to the left. A 200 ms flight takes 2 columns:
        // its send shows (`◌`), then its answer.
        XCTAssertEqual(lane(s), "1 col = 100 ms (z)   \n‹───◌ ✗+60s◌ ✗+2m◌ ✗■")
        s.type("f")
        XCTAssertEqual(s.model.message?.text, "timeline: fits #1's whole life")
        XCTAssertEqual(lane(s), "1 col = 1 s          \n     ✗+30s✗+60s✗+2m✗■")
        s.type("ZZZ")  // 10 s: the 30 s and 60 s waits are short enough to draw, the 2 min one is cut
        XCTAssertEqual(lane(s), "1 col = 10 s (z)     \n      ✗──✗─────✗+2m✗■")
        for _ in 0..<20 { s.type("Z") }
        XCTAssertEqual(s.model.timelineZoom, TimelineAxis.ladder.count - 1)
        // Four answers in one hour's column: the column is stretched, a cell each.
        XCTAssertEqual(lane(s), "1 col = 1 h (z)      \n                ✗✗✗✗■")
    }

    /// While it waits, the lane ends at now; the selected request decides the
    /// scale and the window, and the cuts are the same in every row.
    func test_followsTheSelectedRequest() {
        var s = iosLadder()
        s.wait(100_000)  // the third attempt failed at 90.6 s; the fourth is 2 min off
        // The wait up to now is cut too, in the wait's role: 9.4 s so far.
        XCTAssertEqual(lane(s), "1 col = 1 s       now\n    ✗+30s✗+60s✗+9.4s─")
        s.wait(20 * 60_000)
        s.command("track again")
        s.wait(31_000)
        // The newest is selected: its life from 23:30.8 to now, the older row cut
        // the same way; the older row's life goes on off the left edge (`‹`).
        XCTAssertEqual(s.model.selected, 2)
        let lines = s.screen().lines
        XCTAssertEqual(String(lines[3].suffix(22)), "│‹───✗+2m✗■+18m +30s  ")
        XCTAssertEqual(String(lines[4].suffix(22)), "│     +2m  +18m✗+30s✗─")
        s.type("k")  // the dropped one: its whole life, then the time since
        let again = s.screen().lines
        XCTAssertEqual(String(again[3].suffix(22)), "│✗+30s✗+60s✗+2m✗■+18m ")
        // The newer row goes on past the right edge (to now): `›` there.
        XCTAssertEqual(String(again[4].suffix(22)), "│ +30s +60s +2m  +18m›")
    }

    /// Whatever the fit chose for the rows on screen, `z` shows the next finer
    /// scale and `Z` the next coarser one: zooming starts from what is seen.
    func test_zoom_stepsFromTheScaleOnScreen() {
        func shown(_ s: Session) -> Int {
            let heading = s.screen().lines.first { $0.hasPrefix("    # kind") }!
            return TimelineAxis.ladder.firstIndex { heading.contains("│" + TimelineAxis.scaleText($0)) }!
        }
        var sessions: [Session] = []
        var a = iosLadder()
        a.wait(100_000)
        sessions.append(a)
        var b = Session(.linktrail, settings: [("requireConsent", "false")])
        b.command("server 503 always")
        b.type("T")
        b.wait(3_600_000)
        b.type("t")
        b.wait(500)
        sessions.append(b)
        var c = Session(.android)
        c.command("network offline")
        c.type("tpt")
        c.wait(7_200_000)
        c.command("network online")
        c.wait(1000)
        c.press(.home)
        sessions.append(c)
        // The first purchase selected, with six more tracked 5 s apart on their own
        // ladders: their marks fill the first one's life, so the fit is coarser than 1 s.
        var d = iosLadder()
        for _ in 0..<6 {
            d.wait(5000)
            d.type("t")
        }
        d.wait(190_000)
        d.press(.home)
        XCTAssertGreaterThan(shown(d), TimelineAxis.fitFloor)
        sessions.append(d)
        for s in sessions {
            let fitted = shown(s)
            var zin = s
            zin.type("z")
            XCTAssertEqual(shown(zin), max(0, fitted - 1), s.screen().text)
            var zout = s
            zout.type("Z")
            XCTAssertEqual(shown(zout), min(TimelineAxis.ladder.count - 1, fitted + 1), s.screen().text)
        }
    }

    /// Comparing, `z`/`Z` scale every column's timeline from the speed's scale; `f` goes back to it.
    func test_compare_zoomsFromTheSpeedsScale() {
        var s = Session(compare: [.ios, .android])
        s.type("TT")  // 40 rows: the selection is past the first column's first requests
        s.type("Z")
        XCTAssertEqual(s.model.timelineZoom, TimelineAxis.ladder.firstIndex(of: 2000))
        XCTAssertTrue(s.screen(160, 45).text.contains("last 72s"), s.screen(160, 45).text)
        s.type("zzz")
        XCTAssertEqual(AppView.msPerColumn(s.model), 200)
        s.type("f")
        XCTAssertNil(s.model.timelineZoom)
        XCTAssertEqual(AppView.msPerColumn(s.model), 1000)
        XCTAssertEqual(s.model.message?.text, "timelines: back to the speed's scale")
    }

    /// Quiet stretches shorter than 8 columns are drawn to scale, not cut.
    func test_shortQuietStretches_areDrawnToScale() {
        var s = Session(.linktrail, settings: [("requireConsent", "false")])
        s.command("server 503 x2")
        s.type("t")
        s.wait(8000)
        // Fails at 0 and 2.2 s (waits of 2 s and 4 s, LT-4), delivered at 6.4 s: all to scale.
        XCTAssertEqual(lane(s, row: 2), "1 col = 1 s       now\n            ✗─✗───●  ")
    }

    /// For random moments, scales, anchors and widths: exactly the columns asked
    /// for, times that never go back, every moment in the window in an ordinary
    /// column of its own step, and a cut only over a stretch with no moment.
    func test_axis_properties_seeded() {
        var g = SplitMix64(seed: 12)
        for _ in 0..<2000 {
            let step = TimelineAxis.ladder[Int.random(in: 0..<TimelineAxis.ladder.count, using: &g)]
            let now = Millis.random(in: 0...4_000_000, using: &g)
            let n = Int.random(in: 0...30, using: &g)
            let moments = (0..<n).map { _ in Millis.random(in: 0...now, using: &g) }.sorted()
            let cols = Int.random(in: 1...60, using: &g)
            let backwards = Bool.random(using: &g)
            let anchor = backwards ? now : (moments.first ?? now)
            let a = TimelineAxis.build(
                moments: moments, step: step, anchor: anchor, now: now, cols: cols,
                backwards: backwards)
            let what = "step \(step) now \(now) cols \(cols) backwards \(backwards) moments \(moments)"
            XCTAssertEqual(a.count, cols, what)
            XCTAssertEqual(a.cut.count, cols, what)
            for i in 1..<max(1, a.count) { XCTAssertLessThanOrEqual(a.times[i - 1], a.times[i], what) }
            for t in moments + [anchor] {
                let c = a.column(of: t)
                guard c >= 0 && c < a.count else { continue }
                XCTAssertNil(a.cut[c], "moment \(t) in a cut: " + what)
                XCTAssertTrue(a.times[c] <= t && t < a.times[c] + step, "moment \(t) in column \(c): " + what)
            }
            // A cut stands for a stretch with no moment: none falls between its neighbours.
            var i = 0
            while i < a.count {
                guard a.cut[i] != nil else {
                    i += 1
                    continue
                }
                var j = i
                while j + 1 < a.count && a.cut[j + 1] != nil { j += 1 }
                let from = a.times[i]
                let to = j + 1 < a.count ? a.times[j + 1] : a.end
                XCTAssertFalse(moments.contains { $0 >= from && $0 < to }, "cut \(i)-\(j): " + what)
                i = j + 1
            }
        }
    }

    /// The axis alone: cut labels, where moments fall, the ladder's texts.
    func test_axis_cutsAndLabels() {
        let a = TimelineAxis.build(
            moments: [0, 200, 30_200, 30_400], step: 1000, anchor: 40_000, now: 40_000, cols: 12,
            backwards: true)
        XCTAssertEqual(a.count, 12)
        XCTAssertEqual(String(String.UnicodeScalarView(a.cut.map { $0 ?? "." })), ".+30s.+9.6s.")
        XCTAssertEqual(a.column(of: 200), 0)
        XCTAssertEqual(a.column(of: 30_200), 5)
        XCTAssertEqual(a.column(of: 35_000), 10)  // inside a cut (no mark ever is): its last column
        XCTAssertEqual(a.column(of: 40_000), 11)
        XCTAssertEqual(a.column(of: 41_000), 12)
        XCTAssertTrue(a.endsAtNow)
        XCTAssertEqual(
            ["+0.8s", "+30s", "+2m", "+20m", "+2h", "+72h", "+5d"],
            [800, 30_000, 120_000, 1_200_000, 7_200_000, 259_200_000, 432_000_000].map(TimelineAxis.cutText))
        XCTAssertEqual(
            ["1 col = 100 ms", "1 col = 10 s", "1 col = 5 min", "1 col = 1 h"],
            [100, 10_000, 300_000, 3_600_000].map(TimelineAxis.scaleText))
    }
}

/// Issue 12, part 9: 80×24 as a first-class size.
final class SmallScreenTests: XCTestCase {
    func statusBar(_ s: Session) -> String { s.screen().lines[23] }

    /// The hint bar names the keys a newcomer needs next: `.`, `/`, Enter and
    /// Tab once there is a request; a key used drops out for the next one.
    func test_hintBar_namesTheNextKeys() {
        var s = Session(.ios)
        XCTAssertEqual(statusBar(s), " t track p ping o offline x backend . step / find space pause ? help q quit     ")
        s.type("t")
        s.model.message = nil  // the loop lets a message go after a few seconds of wall time
        XCTAssertEqual(statusBar(s), " p ping o offline x backend . step / find Enter detail Tab pane ? help q quit   ")
        s.type("x")
        s.press(.escape)
        XCTAssertEqual(statusBar(s), " p ping o offline . step / find Enter detail Tab pane space pause ? help q quit ")
        var l = Session(.linktrail)
        XCTAssertEqual(statusBar(l), " t track o offline c consent x backend . step / find Enter detail ? help q quit ")
        l.type("ct")
        l.model.message = nil
        XCTAssertEqual(statusBar(l), " o offline x backend . step / find Enter detail Tab pane + speed ? help q quit  ")
    }

    /// The header fits 80 columns in two rows, a flush under way included.
    func test_header_fits80Columns() {
        var s = Session(.linktrail, settings: [("requireConsent", "false"), ("retry.attempts", "1")])
        s.command("network offline")
        s.command("track a")
        s.command("track b")
        s.wait(100)
        s.command("network online")
        s.command("track c")
        s.wait(200)
        let lines = s.screen().lines
        XCTAssertEqual(lines[0], " OUTBOX linktrail │ 00:00:00.3 ▶ 1× │ net ● online │ consent ? undecided        ")
        XCTAssertEqual(lines[1], " backend ok │ flush running · sent 1 · 2 left │ app running                     ")
        // Wider, the long words come back.
        XCTAssertTrue(
            s.screen(120, 40).lines[1].contains("flush running (successful send of #4 'c') · sent 1 · 2 left"))
    }

    /// The list's position goes on the line under it, never over a row.
    func test_positionIndicator_coversNoRow() {
        var s = Session(.linktrail)
        s.type("cT")
        s.wait(1000)
        s.press(.home)
        let lines = s.screen().lines
        let sep = lines.firstIndex { $0.hasPrefix("─ #") }!
        XCTAssertEqual(sep, 13)
        XCTAssertEqual(lines[sep], "─ #1 install───────────────────────────── 1-9 of 21 ─┬─ Backend ────────────────")
        XCTAssertTrue(lines[sep - 1].hasPrefix("    9 event    burst-8 "), lines[sep - 1])
        // The compare too: on its detail's separator, the last row kept.
        var c = Session(compare: [.ios, .android])
        c.type("T")
        let cl = c.screen().lines
        let csep = cl.firstIndex { $0.contains("─ ios ") }!
        XCTAssertTrue(cl[csep].hasSuffix(" 9-20 of 20 ─"), cl[csep])
        // `≠`: iOS holds a completion handler for it, Android has none (one meaning of differs).
        XCTAssertTrue(cl[csep - 1].hasPrefix("≠  burst-20  │in-flight"), cl[csep - 1])
    }

    /// Past the retry budget (a flush sent it again) the att column shows the
    /// plain count, never `4/3`; the detail says where the other attempts came from.
    func test_attemptsPastTheBudget_readAsACount() {
        var s = Session(.linktrail, settings: [("requireConsent", "false"), ("retry.attempts", "1")])
        s.command("network offline")
        s.command("track a")
        s.wait(100)
        s.command("network online")
        s.command("track c")
        s.wait(2000)
        XCTAssertEqual(s.model.sim.request(2).attempts, 2)
        s.press(.home)
        s.press(.down)
        let lines = s.screen(120, 40).lines
        let h = lines.firstIndex { $0.hasPrefix("    # kind") }!
        XCTAssertTrue(
            lines[h + 1].hasPrefix("    1 install  install       delivered 2             200       LT-11 "),
            lines[h + 1])
        XCTAssertTrue(
            lines[h + 2].hasPrefix("    2 event    a             delivered 2             200       LT-11 "),
            lines[h + 2])
        XCTAssertTrue(
            lines[h + 3].hasPrefix("    3 event    c             delivered 1/1           200       LT-4 "), lines[h + 3]
        )
        let detail = s.screen(120, 40).text
        XCTAssertTrue(detail.contains("attempts 2 · budget 1/1, +1 by flushes (LT-11)"), detail)
    }
}
