import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

/// Text from input never reaches the terminal as control bytes: whatever the
/// view draws goes through `ScreenBuffer.put`, which shows controls as escapes
/// and marks text it had to cut.
final class ScreenSafetyTests: XCTestCase {
    /// Every cell of a screen holds a character a terminal shows rather than obeys.
    func assertNoControlCell(_ b: ScreenBuffer, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for (i, c) in b.cells.enumerated() where SafeText.needsEscape(c.char) {
            XCTFail(
                "\(what): cell (\(i % b.width), \(i / b.width)) holds U+\(String(c.char.value, radix: 16))",
                file: file, line: line)
            return
        }
    }

    static let hostile = "\u{1b}]2;TITLE\u{07}"

    func hostileSession() -> Session {
        var s = Session(.ios, width: 120, height: 40)
        let attrs = [
            Attribute(key: "note", value: "a\u{9b}31mred\u{7f}\r\nline2\u{0}"),
            Attribute(key: "k\u{202e}gpj.exe", value: "\t"),
        ]
        XCTAssertTrue(s.model.perform(.eventTracked(TrackedEvent(name: Self.hostile, attributes: attrs))))
        s.wait(1000)
        return s
    }

    func test_requestNamedWithEscape_showsTheEscape_noCellHoldsAControl() {
        let s = hostileSession()
        XCTAssertEqual(s.model.selected, 1)
        for (w, h) in [(120, 40), (80, 24), (200, 60)] {
            for glyphs in [Glyphs.unicode, .ascii] {
                let b = s.screen(w, h, glyphs: glyphs)
                assertNoControlCell(b, "\(w)x\(h)")
                // The detail pane's title names the request in full, escaped.
                XCTAssertTrue(b.text.contains("#1 \\x1b]2;TITLE\\x07"), b.text)
            }
        }
        let text = s.screen().text
        // The attributes in the detail pane, each control shown by its escape.
        XCTAssertTrue(text.contains("note=a\\u{9b}31mred\\x7f\\r\\nline2\\x00"), text)
        XCTAssertTrue(text.contains("k\\u{202e}gpj.exe=\\t"), text)
        // The name column is too narrow for the whole name: it is cut, and shows it.
        let row = text.split(separator: "\n").first { $0.hasPrefix("    1 ") }.map(String.init) ?? ""
        XCTAssertTrue(row.contains("\\x1b]2;TITLE…"), row)
    }

    func test_controlsTypedOrPasted_intoTheCommandLine_showEscaped() {
        var s = Session(.linktrail)
        s.press(.char(":"))
        for u in "bogus\u{9b}2J\u{202e}x".unicodeScalars { s.press(.char(u)) }
        let typing = s.screen()
        assertNoControlCell(typing, "while typing")
        XCTAssertTrue(typing.text.contains(":bogus\\u{9b}2J\\u{202e}x_"), typing.text)
        s.press(.enter)
        // The error in the status line quotes the word escaped.
        let after = s.screen()
        assertNoControlCell(after, "the error")
        XCTAssertEqual(s.model.message?.isError, true)
        XCTAssertTrue(after.lines[23].contains("bogus\\u{9b}2J\\u{202e}x"), after.lines[23])
    }

    /// An error longer than the status line ends in the cut mark at its last column.
    func test_longErrorInTheStatusLine_isCutWithAMark() {
        var s = Session(.linktrail)
        s.command("\u{9b}" + String(repeating: "w", count: 5000))
        XCTAssertEqual(s.model.message?.isError, true)
        for glyphs in [Glyphs.unicode, .ascii] {
            let b = s.screen(glyphs: glyphs)
            assertNoControlCell(b, "long error")
            let status = b.lines[23]
            XCTAssertEqual(status.unicodeScalars.count, 80)
            XCTAssertTrue(status.contains("\\u{9b}www"), status)
            XCTAssertEqual(status.unicodeScalars.last, glyphs.ellipsis.unicodeScalars.first, status)
        }
    }

    func test_hugeNames_cutAtTheirColumn_andEveryFrameStillDraws() {
        var s = Session(.android, width: 100, height: 30)
        let long = String(repeating: "x", count: 200_000)
        // One grapheme of a hundred thousand combining marks: the marks take no
        // room, and the work stops early, so it shows as cut.
        let marks = "e" + String(repeating: "\u{301}", count: 100_000) + "nd"
        XCTAssertTrue(s.model.perform(.eventTracked(TrackedEvent(name: long))))
        XCTAssertTrue(s.model.perform(.eventTracked(TrackedEvent(name: marks))))
        s.wait(500)
        for (w, h) in [(100, 30), (60, 15), (300, 80)] {
            let b = s.screen(w, h)
            assertNoControlCell(b, "\(w)x\(h)")
            let rows = b.lines.filter { $0.hasPrefix("    1 ") || $0.hasPrefix("    2 ") }
            XCTAssertEqual(rows.count, 2, b.text)
            XCTAssertTrue(rows[0].contains("xxxxxxxx… "), rows[0])
            XCTAssertTrue(rows[1].contains(" e… "), rows[1])
        }
    }

    func test_put_escapesControls_andMarksOnlyRealCuts() {
        var b = ScreenBuffer(width: 12, height: 2)
        let next = b.put("a\u{1b}[2Jb", x: 0, y: 0, role: .normal)
        XCTAssertEqual(b.lines[0], "a\\x1b[2Jb   ")
        XCTAssertEqual(next, 9)
        // Trailing spaces that do not fit are not a cut; more text is.
        b.put("abc   ", x: 0, y: 1, role: .normal, limit: 4)
        XCTAssertEqual(b.lines[1], "abc         ")
        b.put("abcdef", x: 0, y: 1, role: .normal, limit: 4)
        XCTAssertEqual(b.lines[1], "abc…        ")
        // An escape that does not fit is cut like any text.
        b.cutMark = "~"
        b.put("ab\u{7}", x: 7, y: 1, role: .normal)
        XCTAssertEqual(b.lines[1], "abc…   ab\\x~")
        // Partly off the screen: only what is on it is drawn; elsewhere nothing.
        b.put("\u{1b}", x: -3, y: 0, role: .normal)
        XCTAssertEqual(b.lines[0], "b\\x1b[2Jb   ")
        b.put("zz", x: 40, y: 0, role: .normal)
        b.put("zz", x: 0, y: 9, role: .normal)
        b.put("zz", x: 0, y: 0, role: .normal, limit: -4)
        XCTAssertEqual(b.lines[0], "b\\x1b[2Jb   ")
    }

    func test_cellMadeFromAControl_holdsAQuestionMark() {
        XCTAssertEqual(Cell("\u{1b}", .normal).char, "?")
        XCTAssertEqual(Cell("\u{85}", .normal).char, "?")
        XCTAssertEqual(Cell("\u{202e}", .normal).char, "?")
        XCTAssertEqual(Cell("é", .normal).char, "é")
        var b = ScreenBuffer(width: 3, height: 1)
        b.fill(Rect(x: 0, y: 0, width: 3, height: 1), "\u{7}", role: .normal)
        XCTAssertEqual(b.lines[0], "???")
    }
}
