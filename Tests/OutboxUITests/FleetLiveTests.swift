import OutboxCore
import OutboxTestSupport
import XCTest

@testable import OutboxUI

/// `outbox fleet FILE --live` (docs/fleet.md, "Live"): the model steps the
/// fleet's seconds as a headless run does, and a line played on it (`o`,
/// `:server`) at second T gives the numbers of the file with `at T ...` added
/// (D371); the view draws the load and the backlog a column a second, the
/// outages shaded, ASCII under LANG=C.
final class FleetLiveTests: XCTestCase {
    /// Capacity binds (first come first served matters), two lanes, churn.
    static let busy = """
        devices 300
        profile ios
        events every 20s
        capacity 10/s
        duration 6m
        seed 3
        lanes 2
        churn offline every 2m for 20s
        at 0s launch
        at 150s server 503 30%
        at 170s server ok

        """

    func fleet(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> FleetFile {
        switch FleetFile.parse(text, file: "live.fleet") {
        case .success(let f): return f
        case .failure(let e):
            XCTFail(e.errors.map(\.description).joined(separator: "\n"), file: file, line: line)
            throw XCTSkip("bad fleet file")
        }
    }

    func keys(_ m: inout FleetLiveModel, _ text: String) {
        for c in text.unicodeScalars { _ = m.handle(c == "\n" ? .enter : .char(c)) }
    }

    func stepTo(_ m: inout FleetLiveModel, _ s: Int) { while m.second < s { m.stepSecond() } }

    func test_linesPlayedLive_giveTheNumbersOfTheFileWithThemAdded() throws {
        let f = try fleet(Self.busy)
        var m = FleetLiveModel(f)
        stepTo(&m, 60)
        keys(&m, "o")  // down: server timeout always, at 60s
        XCTAssertNotNil(m.outageNow)
        stepTo(&m, 120)
        keys(&m, "o")  // up: server ok
        XCTAssertNil(m.outageNow)
        stepTo(&m, 200)
        keys(&m, ":server 503 always\n")
        stepTo(&m, 240)
        keys(&m, ":server ok\n")
        stepTo(&m, m.seconds)
        XCTAssertEqual(
            m.playedLines,
            [
                "at 1m server timeout always", "at 2m server ok always", "at 200s server 503 always",
                "at 4m server ok x1",
            ])
        // The same lines in the file: the same numbers, second by second.
        let withLines = try fleet(Self.busy + m.playedLines.joined(separator: "\n") + "\n")
        let headless = FleetRun(withLines).run()
        XCTAssertGreaterThan(headless.over.reduce(0, +), 0, "capacity binds")
        XCTAssertGreaterThan(headless.failed[61...119].reduce(0, +), 0, "the outage fails attempts")
        XCTAssertEqual(m.counts.count, headless.seconds)
        for s in 0..<headless.seconds {
            XCTAssertEqual(m.counts[s], headless.second(s), "second \(s)")
        }
        XCTAssertEqual(m.queued, headless.queued)
        XCTAssertEqual(m.outages, withLines.outages)
        // Without a key, the live run is the headless run of the file.
        var plain = FleetLiveModel(f)
        stepTo(&plain, plain.seconds)
        let alone = FleetRun(f).run()
        XCTAssertEqual((0..<alone.seconds).map(alone.second), plain.counts)
    }

    func test_o_atSecondT_isTheFilesAtTServerTimeoutAlways() throws {
        let base = try String(contentsOfFile: packageRoot + "/examples/fleet/outage.fleet", encoding: .utf8)
        let text = base.replacingOccurrences(of: "duration 1h", with: "duration 20m")
        var m = FleetLiveModel(try fleet(text))
        stepTo(&m, 300)
        keys(&m, "o")
        stepTo(&m, m.seconds)
        let file = FleetRun(try fleet(text + "at 5m server timeout always\n")).run()
        XCTAssertEqual((0..<file.seconds).map(file.second), m.counts)
        // The file's own outage at 10m is inside the one begun at 5m: one outage, 5m to 30m.
        XCTAssertEqual(m.outages, [FleetFile.Outage(from: 300_000, to: nil, what: "server timeout")])
    }

    func test_badCommandLines_sayWhatWasExpected_andPlayNothing() throws {
        var m = FleetLiveModel(try fleet(Self.busy))
        keys(&m, ":track x\n")
        XCTAssertEqual(m.message?.isError, true)
        XCTAssertTrue(m.message!.text.contains("expected `server ANSWER ...`"), m.message!.text)
        keys(&m, ":server 999\n")
        XCTAssertEqual(m.message?.isError, true)
        keys(&m, "w")
        XCTAssertEqual(m.message?.text, "no key `w` here; ? lists the keys")
        XCTAssertTrue(m.played.isEmpty)
        XCTAssertTrue(FleetKeys.conflicts.isEmpty)
    }

    func test_clock_wallTimeTimesTheSpeed_lagShownWhenSteppingFallsBehind() throws {
        var m = FleetLiveModel(try fleet(Self.busy))
        XCTAssertEqual(m.speed.word, "60")
        m.wallTimePassed(ms: 100)  // 6 s of virtual time due
        XCTAssertEqual(m.clock, 6000)
        XCTAssertEqual(m.lag, 6000)
        var n = 0
        while m.canStep {
            m.stepSecond()
            n += 1
        }
        XCTAssertEqual(n, 6)
        XCTAssertEqual(m.lag, 0)
        keys(&m, " ")
        m.wallTimePassed(ms: 100)
        XCTAssertFalse(m.canStep)
        keys(&m, " -")
        XCTAssertEqual(m.speed.word, "10")
        keys(&m, ".")
        XCTAssertTrue(m.paused)
        XCTAssertEqual(m.second, 7)
        keys(&m, " >")
        XCTAssertTrue(m.canStep)
        XCTAssertEqual(m.lag, 0)
        let buf = FleetLiveView.render(
            {
                var l = m; l.wallTimePassed(ms: 0); return l
            }(), width: 80, height: 24)
        XCTAssertTrue(buf.lines[0].contains("ffwd"), buf.lines[0])
    }

    // MARK: The view

    /// No events but one line: every device tracks at 20s, a spike of attempts then.
    static let spike = """
        devices 40
        profile ios
        events every 1000h
        duration 10m
        seed 5
        at 0s launch
        at 20s track spike

        """

    func spikeModel(outageAt: Int? = nil) throws -> FleetLiveModel {
        var m = FleetLiveModel(try fleet(Self.spike))
        if let t = outageAt {
            stepTo(&m, t)
            keys(&m, "o")
        }
        stepTo(&m, 40)
        return m
    }

    /// The rows of the load chart, at 80×24: rows 2 to 11.
    /// (Trailing blanks dropped: a row is the width of the screen.)
    func loadRows(_ b: ScreenBuffer) -> [String] {
        b.lines[2..<12].map { l in
            var t = l
            while t.hasSuffix(" ") { t.removeLast() }
            return t
        }
    }

    func test_view_aSpikeIsDrawnAtItsSecondsColumn_asciiUnderLangC() throws {
        let m = try spikeModel()
        let s = m.counts.indices.max { m.counts[$0].attempts < m.counts[$1].attempts }!
        XCTAssertEqual(s, 20, "the devices send at once")
        XCTAssertEqual(m.counts[s].attempts, 40)
        for g in [Glyphs.unicode, Glyphs.ascii] {
            let b = FleetLiveView.render(m, width: 80, height: 24, glyphs: g)
            let rows = loadRows(b)
            let full = g.isASCII ? "#" : "█"
            // The chart tops at 50: 40 attempts fill 8 of its 10 rows, in the spike's column only.
            let column = FleetLiveView.axisWidth + s
            let bar = String(repeating: " ", count: column) + full
            XCTAssertEqual(rows[0], "    50", b.text)
            for r in 2..<9 { XCTAssertEqual(rows[r], bar, "row \(r)\n" + b.text) }
            XCTAssertEqual(rows[9].prefix(7), "     0 ")
            XCTAssertEqual(Array(rows[9])[column], Character(full))
            if g.isASCII {
                XCTAssertTrue(b.lines.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) }, b.text)
            }
            XCTAssertTrue(b.lines[12].contains("+00:00:15") || b.lines[12].contains("┴00:00:15"), b.lines[12])
        }
    }

    func test_view_anOutagePlayedLiveIsShadedAndNamed_itsAttemptsFailed() throws {
        let m = try spikeModel(outageAt: 10)
        XCTAssertEqual(m.counts[20].failed, m.counts[20].attempts)
        for g in [Glyphs.unicode, Glyphs.ascii] {
            let b = FleetLiveView.render(m, width: 80, height: 24, glyphs: g)
            let rows = loadRows(b)
            let shade = g.isASCII ? ":" : "░", failed = g.isASCII ? "x" : "▒"
            let at = FleetLiveView.axisWidth + 10
            // The top row names it from its first second; below, shading from 10s on, the spike failed at 20s.
            XCTAssertEqual(
                rows[0],
                "    50" + String(repeating: " ", count: at - 6) + "outage server timeout"
                    + String(repeating: shade, count: 30 - 21))
            let bar =
                String(repeating: " ", count: at) + String(repeating: shade, count: 10) + failed
                + String(repeating: shade, count: 19)
            for r in 2..<9 { XCTAssertEqual(rows[r], bar, "row \(r)\n" + b.text) }
            XCTAssertTrue(b.lines[0].contains("down: server timeout"), b.lines[0])
            let dash = b.text.contains("outages 00:00:10- server timeout")
            XCTAssertTrue(dash || b.text.contains("outages 00:00:10– server timeout"), b.text)
        }
    }

    func test_view_helpListsTheTablesKeys_80x24_andTooSmallSaysSo() throws {
        var m = try spikeModel()
        _ = m.handle(.char("?"))
        let b = FleetLiveView.render(m, width: 80, height: 24)
        XCTAssertEqual(b.lines.count, 24)
        for line in ["backend down / up for every device", "faster: ⅒×, ¼×, 1×, 10×, 60×, 600×, 3600×", "fast-forward"]
        {
            XCTAssertTrue(b.text.contains(line), b.text)
        }
        let small = FleetLiveView.render(m, width: 50, height: 10)
        XCTAssertTrue(small.text.contains("needs at least 60×15"), small.text)
        XCTAssertTrue(KeyMap.markdown.contains("## outbox fleet --live"))
    }
}
