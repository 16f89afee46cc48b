import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// The text timeline on a terminal (`outbox run` with stdout a terminal): the
/// pipe's lines on a wide one, a short layout that fits on a narrow one, colour
/// unless NO_COLOR (docs/scenarios.md, "On a terminal").
final class TimelineFitTests: XCTestCase {
    /// Every example's timeline, as the spans for `width` columns (plain) and as
    /// the pipe's lines.
    private func timelines(width: Int) throws -> [(file: String, fitted: [String], piped: [String])] {
        try ExamplesTests.examples.map { path in
            let text = try String(contentsOfFile: path, encoding: .utf8)
            guard case .success(let sc) = Scenario.parse(text, file: path) else {
                XCTFail("\(path) does not parse")
                return (path, [], [])
            }
            let writer = TimelineWriter(format: .text)
            var runner = ScenarioRunner(sc)
            var fitted: [String] = [], piped: [String] = []
            runner.run { item, sim in
                switch item {
                case .entry(let e):
                    fitted.append(writer.spans(e, in: sim, width: width).map(\.text).joined())
                    piped.append(writer.line(e, in: sim))
                case .check(let r):
                    fitted.append(writer.spans(r, width: width).map(\.text).joined())
                    piped.append(writer.check(r))
                }
            }
            return (path, fitted, piped)
        }
    }

    /// A terminal wide enough for the full columns gets exactly the pipe's lines.
    func testAWideTerminalGetsThePipesLines() throws {
        XCTAssertEqual(TimelineWriter.fullWidth, 115)
        for t in try timelines(width: 400) {
            XCTAssertEqual(t.fitted, t.piped, t.file)
        }
    }

    /// At 80 columns (and at 60) every line of every example fits, none is empty,
    /// and every transition still shows its rule.
    func testEveryLineFitsANarrowTerminal() throws {
        for width in [80, 60] {
            for t in try timelines(width: width) {
                for (line, full) in zip(t.fitted, t.piped) {
                    XCTAssertLessThanOrEqual(line.count, width, "\(t.file) at \(width): \(line)")
                    XCTAssertFalse(line.isEmpty)
                    if width == 80, full.range(of: #"  [A-Z]+-[0-9a-z]+$"#, options: .regularExpression) != nil {
                        let rule = full.split(separator: " ").last!
                        XCTAssertTrue(line.hasSuffix(" " + rule), "\(t.file): the rule is cut from\n\(line)")
                    }
                }
            }
        }
    }

    /// The short layout, whole, as a person reads it at 80 columns.
    func testTheShortLayoutAt80Columns() throws {
        let sc = try XCTUnwrap(
            parseScenario(
                """
                profile ios
                at 0 launch
                at 1s server 503 x1
                at 1s track "a_rather_long_purchase_name"
                expect at 2s state a_rather_long_purchase_name delivered
                expect at 2s state a_rather_long_purchase_name retrying   # wrong
                """))
        let writer = TimelineWriter(format: .text)
        var runner = ScenarioRunner(sc)
        var lines: [String] = []
        runner.run { item, sim in
            switch item {
            case .entry(let e): lines.append(writer.spans(e, in: sim, width: 80).map(\.text).joined())
            case .check(let r): lines.append(writer.spans(r, width: 80).map(\.text).joined())
            }
        }
        XCTAssertEqual(
            lines.joined(separator: "\n"),
            """
            00:00:00.000 outbox   app launched (launch 1)
            00:00:01.000 outbox   backend will answer: 503 ×1
            00:00:01.000 #1   event   a_rather… new→pending                           IOS-1
            00:00:01.000 #1   event   a_rather… pending→in-flight   att 1             IOS-2
            00:00:01.200 #1   event   a_rather… in-flight→retrying  att 1 503         IOS-4
            00:00:02.000 expect   expect at 2s state a_rather_long_purchas… ✗ #1 is retrying
            00:00:02.000 expect   expect at 2s state a_rather_long_purchase_name retrying ✓
            00:00:31.200 #1   event   a_rather… retrying→in-flight  att 2             IOS-4
            00:00:31.400 #1   event   a_rather… in-flight→delivered att 2 200         IOS-3
            00:00:31.400 complete completion(#1 'a_rather_long_purchase_name'): true
            """)
    }

    /// A heading or summary longer than the terminal ends in `…`; one that fits is kept.
    func testALineOfItsOwnIsCutWithAnEllipsis() {
        XCTAssertEqual(TimelineWriter.fit("0123456789", width: 8), "0123456…")
        XCTAssertEqual(TimelineWriter.fit("01234567", width: 8), "01234567")
    }

    /// A summary or heading names a file: at any path length and width the path
    /// gives way in its middle, then the tail, never the verdict (issue 22, item 16:
    /// a clone at a long path lost `0 failed`).
    func testALinesPathGivesWayInItsMiddleNeverTheVerdict() {
        let path =
            "/tmp/" + String(repeating: "a-long-folder-name-", count: 6)
            + "x/outbox/examples/linktrail-offline-qa.outbox"
        XCTAssertEqual(path.count, 164)
        let verdict = ": 24 passed, 0 failed", tail = " · 24 transitions · ended at 00:00:09.000"
        func fit(_ w: Int) -> String { TimelineWriter.fit(path: path, verdict: verdict, tail: tail, width: w) }
        XCTAssertEqual(fit(400), path + verdict + tail)
        // The tail gives way first, down to ` …`; then the path, in its middle.
        XCTAssertEqual(fit(226), path + verdict + tail)
        XCTAssertEqual(fit(200), path + verdict + " · 24 transiti…")
        XCTAssertEqual(fit(187), path + verdict + " …")
        XCTAssertEqual(
            fit(120), "/tmp/a-long-folder-name-…er-name-a-long-folder-name-x/outbox/examples/linktrail-offline-qa.outbox: 24 passed, 0 failed …")
        XCTAssertEqual(fit(80), "/tmp/a-long-fo…utbox/examples/linktrail-offline-qa.outbox: 24 passed, 0 failed …")
        XCTAssertEqual(fit(60), "/tmp/a-lo…linktrail-offline-qa.outbox: 24 passed, 0 failed …")
        XCTAssertEqual(fit(30), "/…utbox: 24 passed, 0 failed …")
        XCTAssertEqual(fit(23), "…: 24 passed, 0 failed")
        XCTAssertEqual(fit(22), "…: 24 passed, 0 failed")
        // A path that fits keeps all of itself; the tail is cut at its end.
        XCTAssertEqual(
            TimelineWriter.fit(path: "examples/ios-retry-ladder.outbox", verdict: verdict, tail: tail, width: 80),
            "examples/ios-retry-ladder.outbox: 24 passed, 0 failed · 24 transitions · ended …")
        // Narrower than the verdict: cut at the end like any line.
        XCTAssertEqual(fit(12), "…: 24 passe…")
        for w in 1...200 { XCTAssertLessThanOrEqual(SafeText.columns(of: fit(w)), w, "width \(w)") }
        for w in 22...200 { XCTAssertTrue(fit(w).contains(verdict), "width \(w): " + fit(w)) }
        // A short path is never cut; the heading's lead stays.
        XCTAssertEqual(
            TimelineWriter.fit(lead: "== ", path: path, verdict: " (linktrail)", width: 50),
            "== /tmp/a-l…inktrail-offline-qa.outbox (linktrail)")
        XCTAssertEqual(
            TimelineWriter.fit(path: "a.outbox", verdict: verdict, tail: tail, width: 40),
            "a.outbox: 24 passed, 0 failed · 24 tran…")
        // Wide characters count two columns; a combining mark does not start the end.
        XCTAssertEqual(TimelineWriter.middle("購入イベント購入イベント", 9), "購…ベント")
        XCTAssertEqual(TimelineWriter.middle("abcdefghe\u{301}xyz", 5), "a…xyz")
        XCTAssertEqual(TimelineWriter.middle("abcdefghijk", 6), "a…hijk")
    }

    // MARK: Colour

    /// States in their live-screen colours, the verdict green or red; without
    /// colour, the text alone.
    func testColourUsesTheDefaultThemesRoles() {
        let spans = [
            TimelineSpan("00:00:01.000 ", .time), TimelineSpan("#1 "), TimelineSpan("delivered", .state(.delivered)),
            TimelineSpan(" ✗ x", .failed),
        ]
        XCTAssertEqual(
            TimelinePaint(colour: true).render(spans),
            "\u{1b}[0;90m00:00:01.000 \u{1b}[0m#1 \u{1b}[0;32mdelivered\u{1b}[0m\u{1b}[0;1;91m ✗ x\u{1b}[0m")
        XCTAssertEqual(TimelinePaint(colour: false).render(spans), "00:00:01.000 #1 delivered ✗ x")
    }

    /// Output that is not a terminal (every test's console, a pipe) is never
    /// fitted nor coloured: the lines stay the contract's.
    func testACapturedConsoleIsNoTerminal() {
        XCTAssertNil(Console.capturing().terminalColumns)
    }
}
