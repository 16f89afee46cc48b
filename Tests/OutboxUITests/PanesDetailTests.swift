import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

/// The detail pane (issue 12, part 4): each rule's whole text, wrapped; Tab
/// focuses it and the moving keys scroll it; Enter makes it full-screen.
final class PanesDetailTests: XCTestCase {
    /// The rows of the screen between two rows, left of the backend pane's border,
    /// trimmed and joined by spaces: what a reader of the pane reads.
    func paneText(_ buf: ScreenBuffer, rows: Range<Int>, width: Int? = nil) -> String {
        let lines = buf.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return rows.map { y -> String in
            let line = Array(lines[y])
            let cut = width.map { String(line.prefix($0)) } ?? String(line)
            return cut.trimmingCharacters(in: CharacterSet(charactersIn: " …│"))
        }.filter { !$0.isEmpty }.joined(separator: " ")
    }

    func row(_ buf: ScreenBuffer, _ y: Int) -> String {
        String(buf.text.split(separator: "\n", omittingEmptySubsequences: false)[y])
    }

    /// The row of the detail's title (its separator).
    func detailRow(_ buf: ScreenBuffer) -> Int {
        let lines = buf.text.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.firstIndex { $0.hasPrefix("─ ") && $0.contains("#2 purchase") } ?? -1
    }

    /// A LinkTrail device offline with a purchase retrying, then the app quits:
    /// the purchase turns queued under LT-12, one of the two longest rule texts a
    /// transition cites (120 characters).
    func quitWhileRetrying() -> Session {
        var s = Session(.linktrail, settings: [("requireConsent", "false")])
        s.type("ot")
        s.wait(100)
        s.command("quit")
        s.press(.end)
        XCTAssertEqual(s.model.sim.request(s.model.selected!).rule, .lt12)
        return s
    }

    func test_everyRuleText_wrapsWhole_inTheDetailAt80x24() {
        var s = quitWhileRetrying()
        s.press(.tab)
        let pane = AppView.detailHistoryRect(s.model, width: 80, height: 24)
        s.press(.enter)
        let full = AppView.detailHistoryRect(s.model, width: 80, height: 24)
        XCTAssertEqual(pane.width, 53)
        XCTAssertEqual(full.width, 80)
        let longest = RuleID.allCases.max { $0.text.count < $1.text.count }!
        XCTAssertEqual(longest, .net)
        for rule in RuleID.allCases {
            for (rect, what) in [(pane, "focused pane"), (full, "full-screen")] {
                let lines = AppView.wrap(rule.text, width: rect.width - AppView.ruleIndent - 1)
                XCTAssertEqual(lines.joined(separator: " "), rule.text, "\(rule.id) \(what)")
                XCTAssertTrue(
                    lines.allSatisfy { $0.count <= rect.width - AppView.ruleIndent - 1 }, "\(rule.id) \(what)")
                // The transition's line and the whole text fit the pane at once.
                XCTAssertLessThanOrEqual(lines.count + 1, rect.height, "\(rule.id) \(what): \(lines)")
            }
        }
        XCTAssertEqual(AppView.wrap("a bb ccc", width: 4), ["a bb", "ccc"])
        XCTAssertEqual(AppView.wrap("abcdefghij k", width: 4), ["abcd", "efgh", "ij k"])
        XCTAssertEqual(AppView.wrap("", width: 4), [])
    }

    func test_detail80x24_wrapsTheRuleText_tabFocusesAndScrolls_enterFullScreen() {
        var s = quitWhileRetrying()
        let text = RuleID.lt12.text
        // Unfocused: the newest transition's line and as much of its text as fits;
        // `…` says more follow (the title line keeps the list's position, not the detail's).
        var screen = s.screen()
        assertSnapshot(screen.text, "panes-detail-80x24")
        XCTAssertEqual(detailRow(screen), 13)
        XCTAssertFalse(row(screen, 13).contains("lines "), row(screen, 13))
        XCTAssertTrue(row(screen, 16).contains("LT-12 retrying → queued"), row(screen, 16))
        XCTAssertTrue(row(screen, 18).contains("a   …│"), row(screen, 18))

        // Tab: the detail is focused (marked ▶), taller, and holds the whole text.
        s.press(.tab)
        XCTAssertEqual(s.model.focus, .detail)
        screen = s.screen()
        assertSnapshot(screen.text, "panes-detail-focused-80x24")
        let sepY = detailRow(screen)
        XCTAssertEqual(sepY, 9)
        XCTAssertTrue(row(screen, sepY).hasPrefix("─ ▶ #2 purchase"), row(screen, sepY))
        XCTAssertEqual(screen[2, sepY].role, .paneTitleFocused)
        let body = paneText(screen, rows: (sepY + 3)..<21, width: 53)
        XCTAssertTrue(body.contains("LT-12 retrying → queued " + text), body)
        XCTAssertTrue(row(screen, sepY).contains("lines 6-13 of 13"), row(screen, sepY))

        // j/k scroll the detail, not the list.
        let selected = s.model.selected
        s.type("kk")
        XCTAssertEqual(s.model.selected, selected)
        XCTAssertTrue(row(s.screen(), sepY).contains("lines 4-11 of 13"), row(s.screen(), sepY))
        s.press(.home)
        XCTAssertTrue(row(s.screen(), sepY).contains("lines 1-8 of 13"), row(s.screen(), sepY))
        XCTAssertTrue(row(s.screen(), sepY + 3).contains("LT-1a new → pending"), s.screen().text)
        s.press(.pageDown)
        XCTAssertTrue(row(s.screen(), sepY).contains("lines 6-13 of 13"), row(s.screen(), sepY))
        s.press(.pageUp)
        s.press(.down)
        XCTAssertTrue(row(s.screen(), sepY).contains("lines 2-9 of 13"), row(s.screen(), sepY))
        XCTAssertEqual(s.model.selected, selected)

        // Enter: full-screen, every transition with its whole rule text.
        s.press(.enter)
        screen = s.screen()
        assertSnapshot(screen.text, "panes-detail-full-80x24")
        XCTAssertTrue(row(screen, 3).hasPrefix("─ ▶ #2 purchase · Enter or Esc closes"), row(screen, 3))
        let all = paneText(screen, rows: 6..<23)
        for rule in [RuleID.lt1a, .lt4, .lt12] { XCTAssertTrue(all.contains(rule.text), "\(rule.id): \(all)") }
        // Esc goes back as it was: the list, the detail focused.
        s.press(.escape)
        XCTAssertFalse(s.model.detailExpanded)
        XCTAssertEqual(s.model.focus, .detail)
        XCTAssertTrue(s.screen().text.contains("    # kind     name"), s.screen().text)
        // Enter also closes; the list focused again, j moves the selection.
        s.press(.tab)
        s.press(.tab)
        XCTAssertEqual(s.model.focus, .list)
        s.press(.enter)
        XCTAssertEqual(s.model.focus, .detail)
        s.press(.enter)
        XCTAssertEqual(s.model.focus, .list)
        s.type("k")
        XCTAssertEqual(s.model.selected, 1)
    }

    /// A new selection starts at its newest transition again.
    func test_detailScroll_startsAfreshForAnotherRequest() {
        var s = quitWhileRetrying()
        s.press(.tab)
        s.press(.home)
        XCTAssertTrue(row(s.screen(), 9).contains("lines 1-8 of 13"), row(s.screen(), 9))
        s.press(.backTab)
        s.type("k")
        XCTAssertEqual(s.model.selected, 1)
        s.type("j")
        s.press(.tab)
        XCTAssertTrue(row(s.screen(), 9).contains("lines 6-13 of 13"), row(s.screen(), 9))
    }

    /// Under LANG=C the panes write only ASCII: the focus mark, the full-screen
    /// title, the `lines` note and the "more" mark, the log's title, search prompt
    /// and message, and the filter's empty list. (The header's `1×` and log texts
    /// such as `app closed · 2 saved` are part 8's, checked there.)
    func test_panesUnderLangC_onlyASCII() {
        var s = quitWhileRetrying()
        func check(_ what: String, _ rows: [Int]) {
            let buf = s.screen(glyphs: .ascii)
            var bad: [String] = []
            for y in rows {
                for x in 0..<buf.width where !buf[x, y].char.isASCII {
                    bad.append("\(x),\(y) \(Character(buf[x, y].char))")
                }
            }
            XCTAssertEqual(bad, [], "\(what):\n\(buf.text)")
        }
        check("detail", Array(13..<19))
        XCTAssertTrue(s.screen(glyphs: .ascii).text.contains("a   ~|"), s.screen(glyphs: .ascii).text)
        s.press(.tab)
        check("focused detail", Array(9..<19))
        XCTAssertTrue(s.screen(glyphs: .ascii).text.contains("- > #2 purchase---"), s.screen(glyphs: .ascii).text)
        s.press(.enter)
        check("full-screen detail", Array(3..<23))
        XCTAssertTrue(s.screen(glyphs: .ascii).text.contains("- > #2 purchase - Enter or Esc closes ---"))
        s.press(.escape)
        s.press(.tab)
        s.type("/app")
        check("log search prompt", [23])
        s.press(.enter)
        check("log search", [14, 23])
        XCTAssertTrue(s.screen(glyphs: .ascii).text.contains("- > Log /app---"), s.screen(glyphs: .ascii).text)
        s.press(.tab)
        s.type("/rule:LT-99")
        s.press(.enter)
        check("empty filter", [2, 3, 4, 23])
    }
}
