import OutboxTestSupport
import XCTest

@testable import OutboxCore

extension TimelineFitTests {
    /// `outbox run` on an 80-column terminal: a line with a CJK name fits 80
    /// columns and its state column lines up with an ASCII name's.
    func testTheTerminalTimelineCountsColumns() throws {
        let sc = try XCTUnwrap(
            parseScenario(
                """
                profile ios
                at 0 launch
                at 1s track 購入イベント購入イベント
                at 1s track purchase
                """))
        let writer = TimelineWriter(format: .text)
        var runner = ScenarioRunner(sc)
        var lines: [String] = []
        runner.run { item, sim in
            if case .entry(let e) = item { lines.append(writer.spans(e, in: sim, width: 80).map(\.text).joined()) }
        }
        let created = lines.filter { $0.contains("new→pending") }
        XCTAssertEqual(created.count, 2, lines.joined(separator: "\n"))
        for l in lines { XCTAssertLessThanOrEqual(SafeText.columns(of: l), 80, l) }
        let at = created.map { l in SafeText.columns(of: String(l[..<l.range(of: "new→")!.lowerBound])) }
        XCTAssertEqual(at[0], at[1], created.joined(separator: "\n"))
        XCTAssertTrue(created[0].contains("購入イベ… new"), created[0])
    }
}
