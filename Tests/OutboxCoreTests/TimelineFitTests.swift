import Foundation
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
