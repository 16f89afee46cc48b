import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

/// Issue 22, item 20 (newcomer 2.6, 2.7): the timeline row shows every attempt
/// (one mark per attempt, a cell each, whatever the scale or the moment a person
/// typed), marks its cut edges, and a wide screen uses its width.
final class TimelineMarksTests: XCTestCase {
    /// iOS with 6 attempts and full jitter (the newcomer's own profile): waits
    /// drawn from 0 to 1 s, 2 s, 4 s, 8 s, 16 s, so the first attempts fall close together.
    func jittered(seed: String = "7") -> Session {
        var s = Session(
            .ios,
            settings: [
                ("retry.attempts", "6"), ("retry.delays", "1s,2s,4s,8s,16s"), ("retry.jitter", "full"), ("seed", seed),
            ])
        s.command("server 503 always")
        s.command("track purchase")
        return s
    }

    func line(_ s: Session, _ id: Int, _ w: Int = 80, _ h: Int = 24, glyphs: Glyphs = .unicode) -> String {
        let lines = s.screen(w, h, glyphs: glyphs).lines
        let i = lines.firstIndex { $0.hasPrefix(String(repeating: " ", count: 5 - "\(id)".count) + "\(id) ") }!
        return lines[i]
    }

    func heading(_ s: Session, _ w: Int = 80, _ h: Int = 24) -> String {
        let l = s.screen(w, h).lines.first { $0.hasPrefix("    # kind") }!
        return String(l[l.index(after: l.lastIndex(of: "│")!)...])
    }

    func lane(_ row: String) -> String { String(row[row.index(after: row.lastIndex { $0 == "│" || $0 == "|" }!)...]) }

    func count(_ c: Character, _ s: String) -> Int { s.filter { $0 == c }.count }

    /// The newcomer's reproducer: a jittered 6-attempt ladder at 1 col = 1 s
    /// shows 6 answers and its end, for every seed tried; the whole row for one.
    func test_jittered6Attempts_at1s_showSixMarks() {
        var s = jittered(seed: "7")
        s.wait(60_000)
        // Answers at 0.2, 1.006, 1.436, 1.952, 7.448, 9.264 s: the three in the second
        // second get a column each (that second is stretched to three columns).
        XCTAssertEqual(heading(s), "1 col = 1 s       now")
        XCTAssertEqual(
            line(s, 1), "    1 event    purchase  dropped   6/6   exhausted IOS-4  │   ✗✗✗✗─────✗─✗■+50s ")
        for seed in ["1", "2", "3", "42", "1000"] {
            var t = jittered(seed: seed)
            t.wait(60_000)
            XCTAssertEqual(t.states("purchase"), ["dropped"])
            let l = lane(line(t, 1))
            XCTAssertEqual(count("✗", l), 6, "seed \(seed): \(l)")
            XCTAssertEqual(count("■", l), 1, "seed \(seed): \(l)")
            XCTAssertEqual(count("◌", l), 0, "seed \(seed): \(l)")
        }
    }

    /// A 4-attempt ladder shows 4 answers and no `◌`, whatever moment it starts at
    /// (a person's pace puts a send and its answer in different columns now and then).
    func test_fourAttemptLadder_fourMarks_whateverThePhase() {
        for offset in stride(from: 0, to: 1000, by: 50) {
            var s = Session(.ios)
            s.command("server 503 always")
            s.wait(Millis(offset))
            s.command("track purchase")
            s.wait(211_000)
            XCTAssertEqual(s.states("purchase"), ["dropped"])
            let l = lane(line(s, 1))
            XCTAssertEqual(l.trimmingCharacters(in: .whitespaces), "✗+30s✗+60s✗+2m✗■", "offset \(offset)")
        }
    }

    /// Zoomed in, a row whose life goes on past the left edge says so (`‹`, `<`
    /// in ASCII); the rows that lie wholly inside show a blank there.
    func test_zoomed_marksItsCutEdge_unicodeAndASCII() {
        var s = jittered(seed: "1")
        s.wait(60_000)
        s.type("zz")  // 1 col = 200 ms
        XCTAssertEqual(heading(s), "1 col = 200 ms (z)   ")
        XCTAssertEqual(
            line(s, 1), "    1 event    purchase  dropped   6/6   exhausted IOS-4  │‹─✗+3.2s✗─────✗+15s✗■")
        XCTAssertEqual(
            line(s, 1, glyphs: .ascii),
            "    1 event    purchase  dropped   6/6   exhausted IOS-4  |<-X+3.2sX-----X+15sX#")
        s.type("f")
        XCTAssertEqual(
            line(s, 1, glyphs: .ascii),
            "    1 event    purchase  dropped   6/6   exhausted IOS-4  |  XXX---XX+15sX#+38s ")
    }

    /// The right edge: an older request selected and zoomed in shows its own life
    /// up to its end; a newer one that goes on past that edge shows `›`.
    func test_zoomed_marksTheRightEdge() {
        var s = Session(.ios)
        s.command("server 503 always")
        s.command("track purchase")
        s.wait(5000)
        s.command("track signup")
        s.wait(300_000)
        s.press(.home)
        s.type("zzz")  // 1 col = 100 ms: the first's latest part, up to its drop
        let first = lane(line(s, 1)), second = lane(line(s, 2))
        XCTAssertTrue(first.hasSuffix("✗■ "), first)
        XCTAssertFalse(first.hasSuffix("›"), first)
        XCTAssertTrue(second.hasSuffix("›"), second)
        XCTAssertFalse(first.hasPrefix("‹") == false, first)  // its earlier attempts lie off the left
    }

    /// At 200×60 `f` stretches the iOS ladder to the width: drawn to scale, the
    /// waits growing 30 s, 60 s, 120 s, in most of the timeline's columns.
    func test_wide_fitStretchesToTheWidth() {
        var s = Session(.ios, width: 200, height: 60)
        s.command("server 503 always")
        s.command("track purchase")
        s.wait(210_800)
        s.type("f")
        let l = lane(line(s, 1, 200, 60))
        XCTAssertEqual(heading(s, 200, 60).prefix(11), "1 col = 2 s")
        let marks = l.trimmingCharacters(in: .whitespaces)
        XCTAssertEqual(
            marks,
            "✗" + String(repeating: "─", count: 14) + "✗" + String(repeating: "─", count: 29) + "✗"
                + String(repeating: "─", count: 59) + "✗■")
        XCTAssertGreaterThan(marks.count, l.count * 3 / 4, l)
        // At 80×24 the same life keeps its cut, labelled form.
        XCTAssertEqual(lane(line(s, 1)).trimmingCharacters(in: .whitespaces), "✗+30s✗+60s✗+2m✗■")
        // The jittered ladder (21 s) at 1 s, uncut: its 15 s wait drawn to scale,
        // still 6 answers, each its own cell; `z` goes finer from there.
        var j = jittered(seed: "1")
        j.setWidth(200, 60)
        j.wait(60_000)
        XCTAssertEqual(heading(j, 200, 60).prefix(11), "1 col = 1 s")
        let jl = lane(line(j, 1, 200, 60)).trimmingCharacters(in: .whitespaces)
        XCTAssertEqual(jl, "✗✗✗───✗✗" + String(repeating: "─", count: 14) + "✗■+38s", jl)
    }
}

extension Session {
    /// The screen size the model knows (the timeline's scale depends on it).
    mutating func setWidth(_ w: Int, _ h: Int) {
        width = w
        height = h
        model.setScreen(width: w, height: h)
        model.layOut()
    }
}
