import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

/// Wide characters (CJK, emoji) take two columns on a terminal, as they do in
/// ncurses; counting them as one pushed the rest of a row out of its column and
/// past the screen's edge (the notes of issues 14 and 15).
final class WideTextTests: XCTestCase {
    func testColumnsOfText() {
        XCTAssertEqual(SafeText.columns(of: "purchase"), 8)
        XCTAssertEqual(SafeText.columns(of: "購入"), 4)
        XCTAssertEqual(SafeText.columns(of: "café ☕ 日本語 e\u{301}"), 16)
        XCTAssertEqual(SafeText.columns(of: "한글ｶ"), 5)  // Hangul wide, halfwidth katakana narrow
        XCTAssertEqual(SafeText.columns(of: "🎉x"), 3)
        XCTAssertEqual(SafeText.columns(of: "→×…"), 3)  // the view's own typography stays narrow
        XCTAssertEqual(SafeText.prefix("購入する", columns: 5), "購入")
        XCTAssertEqual(SafeText.prefix("a購入", columns: 2), "a")
    }

    func testPutTakesTwoCellsForAWideCharacter() {
        var b = ScreenBuffer(width: 10, height: 1)
        XCTAssertEqual(b.put("購入x", x: 0, y: 0, role: .normal), 5)
        XCTAssertEqual(b.lines, ["購入x     "])
        XCTAssertEqual(b.cells.prefix(5).map(\.isWideTail), [false, true, false, true, false])
        // Cut: never half a wide character; the mark takes the column left.
        var c = ScreenBuffer(width: 10, height: 1)
        c.put("購入購入", x: 0, y: 0, role: .normal, limit: 5)
        XCTAssertEqual(c.lines, ["購入…     "])
        var d = ScreenBuffer(width: 5, height: 1)
        d.put("ab購入", x: 0, y: 0, role: .normal)
        XCTAssertEqual(d.lines, ["ab購…"])
    }

    func testOverwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var b = ScreenBuffer(width: 6, height: 1)
        b.put("購入", x: 0, y: 0, role: .normal)
        b.put("a", x: 1, y: 0, role: .normal)  // the tail of 購
        XCTAssertEqual(b.lines, [" a入  "])
        b.put("b", x: 2, y: 0, role: .normal)  // the head of 入
        XCTAssertEqual(b.lines, [" ab   "])
        XCTAssertFalse(b.cells.contains { $0.isWideTail })
        b.put("日", x: 4, y: 0, role: .normal)
        b.fill(Rect(x: 5, y: 0, width: 1, height: 1), role: .normal)
        XCTAssertEqual(b.lines, [" ab   "])
        b[0, 0] = Cell("本", .normal)  // one cell is one column: a wide one is drawn as ?
        XCTAssertEqual(b.lines, ["?ab   "])
    }

    /// The list at 80×24 with a CJK-named request: every row is 80 columns, and
    /// the columns after the name start where an ASCII name's do.
    func testListRowsLineUpWithACJKName() {
        var s = Session(.ios)
        s.command("track 購入イベント")
        s.command("track purchase")
        let screen = s.screen()
        for (i, line) in screen.lines.enumerated() {
            XCTAssertEqual(SafeText.columns(of: line), 80, "row \(i): \(line)")
        }
        let rows = screen.lines.filter { $0.hasPrefix("    1 ") || $0.hasPrefix("    2 ") }
        XCTAssertEqual(rows.count, 2, screen.text)
        func stateColumn(_ l: String) -> Int? {
            guard let r = l.range(of: "in-flight") else { return nil }
            return SafeText.columns(of: String(l[..<r.lowerBound]))
        }
        XCTAssertNotNil(stateColumn(rows[0]), rows[0])
        XCTAssertEqual(stateColumn(rows[0]), stateColumn(rows[1]), rows.joined(separator: "\n"))
    }
}
