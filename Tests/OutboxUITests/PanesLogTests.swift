import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

/// The log pane (issue 12, part 4): focus and scroll, `/` search with `<` and
/// `>` for the earlier and later match (`n` stays the notification key), and
/// the log of one request (`l`, `:log request N`, `:log all`).
final class PanesLogTests: XCTestCase {
    /// LinkTrail answering 503: two purchases fail three times each and are kept
    /// (two onError lines), the network goes off and on, then the backend
    /// answers ok and a third purchase flushes them: thirteen log lines.
    func session() -> Session {
        var s = Session(.linktrail, settings: [("requireConsent", "false")])
        s.type("xdat")
        s.wait(7000)
        s.type("t")
        s.wait(7000)
        s.type("oo")
        s.type("xoat")
        s.wait(1000)
        XCTAssertEqual(s.model.logLines.count, 13)
        return s
    }

    func lines(_ buf: ScreenBuffer) -> [String] {
        buf.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The log's rows at 80×24 with the log focused: below its title row, to the status bar.
    func logRows(_ buf: ScreenBuffer) -> [String] {
        let l = lines(buf)
        let title = l.firstIndex { $0.hasPrefix("─ ▶ Log") || $0.hasPrefix("─ Log") }!
        return Array(l[(title + 1)..<(l.count - 1)])
    }

    func test_log80x24_focusAndScroll() {
        var s = session()
        s.press(.tab)
        s.press(.tab)
        XCTAssertEqual(s.model.focus, .log)
        var screen = s.screen()
        assertSnapshot(screen.text, "panes-log-focused-80x24")
        let title = lines(screen).firstIndex { $0.hasPrefix("─ ▶ Log──") }
        XCTAssertNotNil(title, screen.text)
        XCTAssertEqual(screen[2, title!].role, .paneTitleFocused)
        XCTAssertEqual(logRows(screen).count, 8)
        XCTAssertEqual(logRows(screen).last, " 00:00:14.600 flush ended (LT-11: queue empty) · sent 2 · 0 left")
        // k scrolls the log up a line, not the list.
        let selected = s.model.selected
        s.type("kk")
        XCTAssertEqual(s.model.selected, selected)
        screen = s.screen()
        XCTAssertTrue(screen.text.contains("─ ▶ Log (2 up)──"), screen.text)
        XCTAssertEqual(logRows(screen).last, " 00:00:14.000 backend will answer: ok")
        // Home: the oldest page (no further); End: the newest.
        s.press(.home)
        XCTAssertEqual(logRows(s.screen()).first, " 00:00:00.000 app launched (launch 1)")
        XCTAssertEqual(s.model.logScroll, 5)
        s.type("k")
        XCTAssertEqual(s.model.logScroll, 5)
        s.press(.pageDown)
        XCTAssertEqual(s.model.logScroll, 0)
        s.press(.pageUp)
        XCTAssertEqual(s.model.logScroll, 5)
        s.press(.end)
        XCTAssertEqual(logRows(s.screen()).last, " 00:00:14.600 flush ended (LT-11: queue empty) · sent 2 · 0 left")
    }

    func test_log80x24_search_earlierAndLaterMatch_nIsStillNotification() {
        var s = session()
        s.press(.tab)
        s.press(.tab)
        s.type("/503")
        XCTAssertEqual(s.model.mode, .logSearch("503"))
        XCTAssertEqual(s.model.nameFilter, "", "the list is not filtered")
        XCTAssertEqual(lines(s.screen()).last, "/503_  (search the log: Enter finds, Esc cancels)")
        s.press(.enter)
        // The first match is the latest line holding the text.
        var screen = s.screen()
        assertSnapshot(screen.text, "panes-log-search-80x24")
        XCTAssertEqual(lines(screen).last, " log: match 3 of 3 for \"503\"; < earlier, > later, Esc clears")
        XCTAssertTrue(screen.text.contains("─ ▶ Log /503──"), screen.text)
        func current(_ buf: ScreenBuffer) -> String? {
            let l = lines(buf)
            let top = l.firstIndex { $0.hasPrefix("─ ▶ Log") }!
            return (top..<buf.height).first { buf[0, $0].role == .rowSelected }.map { l[$0] }
        }
        XCTAssertEqual(
            current(screen), " 00:00:13.600 onError: 'purchase' failed (503) after 3 attempts; kept in the of…")
        s.type("<")
        XCTAssertEqual(lines(s.screen()).last, " log: match 2 of 3 for \"503\"; < earlier, > later, Esc clears")
        XCTAssertEqual(
            current(s.screen()), " 00:00:06.600 onError: 'purchase' failed (503) after 3 attempts; kept in the of…")
        // An earlier match out of view: the log scrolls to it.
        s.type("<")
        XCTAssertEqual(lines(s.screen()).last, " log: match 1 of 3 for \"503\"; < earlier, > later, Esc clears")
        XCTAssertEqual(current(s.screen()), " 00:00:00.000 backend will answer: 503 always")
        XCTAssertGreaterThan(s.model.logScroll, 0)
        s.type("<")
        XCTAssertEqual(lines(s.screen()).last, " no earlier match; > goes to later ones")
        // The other matches' text stands out.
        screen = s.screen()
        let y = lines(screen).firstIndex { $0.contains("06.600 onError") }!
        let x = Array(lines(screen)[y]).firstIndex(of: "5")!
        XCTAssertEqual(
            [screen[x - 1, y].role, screen[x, y].role, screen[x + 2, y].role, screen[x + 3, y].role],
            [.logError, .tabActive, .tabActive, .logError])
        // n is the notification key still (UserCom's), not a search key.
        let match = s.model.panes.logMatch
        s.type("n")
        XCTAssertEqual(s.model.panes.logMatch, match)
        XCTAssertTrue(lines(s.screen()).last!.contains("notification"), lines(s.screen()).last!)
        s.type(">")
        XCTAssertEqual(lines(s.screen()).last, " log: match 2 of 3 for \"503\"; < earlier, > later, Esc clears")
        s.type(">>")
        XCTAssertEqual(lines(s.screen()).last, " no later match; < goes to earlier ones")
        // Esc clears the search; a search for nothing says so.
        s.press(.escape)
        XCTAssertEqual(s.model.panes.logSearch, "")
        XCTAssertFalse(s.screen().text.contains("Log /503"))
        s.type("/teapot")
        s.press(.enter)
        XCTAssertEqual(lines(s.screen()).last, " no log line contains \"teapot\"")
        s.type(">")
        XCTAssertEqual(lines(s.screen()).last, " no later match; < goes to earlier ones")
        // With the list focused, / filters the list again.
        s.press(.tab)
        s.type("/x")
        XCTAssertEqual(s.model.mode, .filter("x"))
    }

    func test_log80x24_oneRequestsLines_lKeyAndLogCommand() {
        var s = session()
        s.type("kk")
        XCTAssertEqual(s.model.selected, 2)
        s.type("l")
        var screen = s.screen()
        assertSnapshot(screen.text, "panes-log-request-80x24")
        XCTAssertTrue(screen.text.contains("─ Log #2 only (l: all)──"), screen.text)
        XCTAssertEqual(lines(screen).last, " log: only #2's 1 line; l or :log all shows every line")
        XCTAssertEqual(
            logRows(screen).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty },
            [" 00:00:06.600 onError: 'purchase' failed (503) after 3 attempts; kept in the of…"])
        s.type("l")
        XCTAssertEqual(s.model.logLines.count, 13)
        // A line naming the request counts (`#4 'purchase'`), #40 would not.
        s.command("log request 4")
        screen = s.screen()
        XCTAssertTrue(screen.text.contains("─ Log #4 only (l: all)──"), screen.text)
        XCTAssertEqual(
            logRows(screen).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty },
            [" 00:00:14.200 flush started (LT-8: successful send of #4 'purchase') · 2 queued"])
        s.command("log all")
        XCTAssertNil(s.model.panes.logRequest)
        XCTAssertEqual(lines(s.screen()).last, " log: every line")
        s.command("log request 99")
        XCTAssertEqual(lines(s.screen()).last, " no request #99: expected 1 to 4")
        s.command("log request two")
        XCTAssertEqual(lines(s.screen()).last, " no request #two: expected 1 to 4")
        s.command("log")
        XCTAssertEqual(lines(s.screen()).last, " expected :log request N, :log request (the selected one) or :log all")
        s.command("log request")
        XCTAssertEqual(s.model.panes.logRequest, 2)
        XCTAssertTrue(
            AppModel.logLine(
                LogLine(time: 0, source: .outbox, text: "sent #40 'x'", request: -1, rule: nil), isAbout: 4) == false)
        XCTAssertTrue(
            AppModel.logLine(
                LogLine(time: 0, source: .outbox, text: "completion(#4 'x')", request: -1, rule: nil), isAbout: 4))
    }
}
