import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

/// Terminal habits (issue 15, item 4): the mouse (a click selects a row, shows
/// a tab, sorts by a column, focuses a pane; the wheel scrolls the pane under
/// it), `S` sorting the list, and the `:` line's history and Tab completion.
/// The mouse's events are fed to the model as the terminal decodes them, at
/// places found on the rendered screen, so the view's layout and the model's
/// hit-test cannot drift apart unnoticed.
final class HabitsTests: XCTestCase {
    /// iOS, 500 ms timeout: 1 purchase, 2 ping, 3 promo answered 503 (retrying),
    /// 4 ping timed out (retrying), 5 home rejected by a 400 (dropped), 6 ping and
    /// 7 sku-42 delivered.
    func session(width: Int = 100, height: Int = 30) -> Session {
        var s = Session(.ios, settings: [("timeout", "500ms")], width: width, height: height)
        s.type("xd3tpn")
        s.wait(1000)
        s.type("xt1p")
        s.wait(1000)
        s.type("xe1s")
        s.wait(1000)
        s.type("pr")
        s.wait(1000)
        return s
    }

    func lines(_ s: Session) -> [String] {
        s.screen().text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Where `text` first shows on the screen (column, row), counting characters.
    func place(_ s: Session, _ text: String, file: StaticString = #filePath, line: UInt = #line) -> (x: Int, y: Int) {
        for (y, l) in lines(s).enumerated() {
            if let r = l.range(of: text) { return (l.distance(from: l.startIndex, to: r.lowerBound), y) }
        }
        XCTFail("`\(text)` is not on the screen:\n" + s.screen().text, file: file, line: line)
        return (0, 0)
    }

    func listed(_ m: AppModel) -> [Int32] { (0..<m.rowCount).map { m.id(atRow: $0) } }

    // MARK: The mouse

    func test_click_selectsARow_showsATab_focusesAPane() {
        var s = session()
        XCTAssertEqual(s.model.selected, 7)
        // The row of request 3 (promo): a click on its name.
        let promo = place(s, "promo")
        s.press(.mouse(.click(x: promo.x, y: promo.y)))
        XCTAssertEqual(s.model.selected, 3)
        XCTAssertTrue(lines(s).contains { $0.hasPrefix("─ #3 promo") }, s.screen().text)
        // A release, a right click and the middle button do nothing.
        s.press(.mouse(MouseEvent(.release, x: promo.x, y: promo.y + 1)))
        s.press(.mouse(MouseEvent(.press, button: 2, x: promo.x, y: promo.y + 1)))
        XCTAssertEqual(s.model.selected, 3)
        // The dropped tab: one request (5).
        let dropped = place(s, " dropped 1 ")
        s.press(.mouse(.click(x: dropped.x + 3, y: dropped.y)))
        XCTAssertEqual(s.model.tab, .dropped)
        XCTAssertEqual(listed(s.model), [5])
        XCTAssertEqual(s.model.selected, 5)
        let all = place(s, " all 7 ")
        s.press(.mouse(.click(x: all.x + 1, y: all.y)))
        XCTAssertEqual(s.model.tab, .all)
        // The log pane, then the detail, then a row again: each takes the focus.
        let log = place(s, "─ Log")
        s.press(.mouse(.click(x: 10, y: log.y + 1)))
        XCTAssertEqual(s.model.focus, .log)
        XCTAssertTrue(lines(s).contains { $0.hasPrefix("─ ▶ Log") }, s.screen().text)
        let detail = place(s, "─ #5 home")
        s.press(.mouse(.click(x: 5, y: detail.y + 1)))
        XCTAssertEqual(s.model.focus, .detail)
        let ping = place(s, "ping")
        s.press(.mouse(.click(x: ping.x, y: ping.y)))
        XCTAssertEqual(s.model.focus, .list)
        XCTAssertEqual(s.model.selected, 2)
        // The header, the backend box and the status bar answer nothing.
        let before = s.model.selected
        s.press(.mouse(.click(x: 3, y: 0)))
        s.press(.mouse(.click(x: 95, y: detail.y + 2)))
        s.press(.mouse(.click(x: 3, y: s.height - 1)))
        XCTAssertEqual(s.model.selected, before)
        XCTAssertEqual(s.model.focus, .list)
    }

    func test_click_onAColumnTitle_sortsByIt_again_backToIdOrder() {
        var s = session()
        let state = place(s, "state ")
        s.press(.mouse(.click(x: state.x + 1, y: state.y)))
        XCTAssertEqual(s.model.sort, .state)
        XCTAssertEqual(listed(s.model), [1, 2, 3, 4, 6, 7, 5])
        XCTAssertTrue(lines(s)[state.y].contains("▾state"), lines(s)[state.y])
        s.press(.mouse(.click(x: state.x + 2, y: state.y)))
        XCTAssertEqual(s.model.sort, .id)
        XCTAssertFalse(lines(s)[state.y].contains("▾"), lines(s)[state.y])
        let name = place(s, "name ")
        s.press(.mouse(.click(x: name.x, y: name.y)))
        XCTAssertEqual(s.model.sort, .name)
        XCTAssertEqual(listed(s.model), [5, 2, 4, 6, 3, 1, 7])
    }

    func test_wheel_scrollsThePaneUnderThePointer() {
        var s = Session(.ios, width: 80, height: 24)
        s.type("xda")  // every answer a 503: a long log, long histories
        for _ in 0..<30 { s.type("p") }
        for _ in 0..<10 { s.type("LL") }  // relaunches: lines in the log
        s.wait(60_000)
        XCTAssertEqual(s.model.rowCount, 30)
        let rows = s.model.listHeight
        XCTAssertEqual(s.model.top, 30 - rows)
        XCTAssertEqual(s.model.selected, 30)
        // Over the list: the rows move 3 a notch; the selection is kept in view.
        let row = place(s, "   30 ")
        s.press(.mouse(.wheel(-1, x: 20, y: row.y)))
        XCTAssertEqual(s.model.top, 30 - rows - 3)
        XCTAssertEqual(s.model.selected, Int32(30 - 3))
        s.press(.mouse(.wheel(-1, x: 20, y: row.y)))
        s.press(.mouse(.wheel(1, x: 20, y: row.y)))
        XCTAssertEqual(s.model.top, 30 - rows - 3)
        XCTAssertEqual(s.model.selected, Int32(30 - 6), "the selection moved only as far as the view did")
        for _ in 0..<20 { s.press(.mouse(.wheel(-1, x: 20, y: row.y))) }
        XCTAssertEqual(s.model.top, 0)
        XCTAssertEqual(s.model.focus, .list)
        // Over the log: it scrolls back (to older lines), and forward again; the focus stays.
        let log = place(s, "─ Log")
        s.press(.mouse(.wheel(-1, x: 10, y: log.y + 1)))
        XCTAssertEqual(s.model.logScroll, 3)
        s.press(.mouse(.wheel(1, x: 10, y: log.y + 1)))
        XCTAssertEqual(s.model.logScroll, 0)
        XCTAssertEqual(s.model.focus, .list)
        // Over the detail: its history scrolls.
        let detail = place(s, "─ #")
        let scroll = s.model.panes.detailScroll
        s.press(.mouse(.wheel(-1, x: 10, y: detail.y + 3)))
        XCTAssertNotEqual(s.model.panes.detailScroll, scroll, "the detail's history scrolled")
        XCTAssertEqual(s.model.focus, .list)
    }

    func test_mouse_inAPromptDoesNothing_inTheHelpScrollsAndCloses() {
        var s = session()
        s.type(":tr")
        let row = place(s, "promo")
        s.press(.mouse(.click(x: row.x, y: row.y)))
        XCTAssertEqual(s.model.mode, .command("tr"))
        XCTAssertEqual(s.model.selected, 7)
        s.press(.escape)
        s.type("?")
        s.press(.mouse(.wheel(1, x: 10, y: 10)))
        XCTAssertEqual(s.model.mode, .help(3))
        s.press(.mouse(.click(x: 10, y: 10)))
        XCTAssertEqual(s.model.mode, .normal)
    }

    /// The SGR form the terminal decodes: `ESC [ < b ; x ; y M|m`, x and y from 1.
    func test_sgrReports_decode() {
        XCTAssertEqual(MouseEvent.sgr("0;12;5", final: "M"), .click(x: 11, y: 4))
        XCTAssertEqual(MouseEvent.sgr("0;12;5", final: "m"), MouseEvent(.release, x: 11, y: 4))
        XCTAssertEqual(MouseEvent.sgr("2;1;1", final: "M"), MouseEvent(.press, button: 2, x: 0, y: 0))
        XCTAssertEqual(MouseEvent.sgr("64;30;20", final: "M"), .wheel(-1, x: 29, y: 19))
        XCTAssertEqual(MouseEvent.sgr("65;30;20", final: "M"), .wheel(1, x: 29, y: 19))
        XCTAssertEqual(MouseEvent.sgr("16;3;4", final: "M"), .click(x: 2, y: 3), "Ctrl held: still a click")
        XCTAssertNil(MouseEvent.sgr("32;3;4", final: "M"), "a drag: not asked for")
        XCTAssertNil(MouseEvent.sgr("66;3;4", final: "M"), "the wheel sideways")
        XCTAssertNil(MouseEvent.sgr("0;0;4", final: "M"))
        XCTAssertNil(MouseEvent.sgr("0;3", final: "M"))
        XCTAssertNil(MouseEvent.sgr("0;3;4;5", final: "M"))
        XCTAssertEqual(KeyMap.command(for: .mouse(.click(x: 40, y: 7))), .click)
        XCTAssertEqual(KeyMap.command(for: .mouse(.wheel(1, x: 4, y: 2))), .wheel)
        XCTAssertNil(KeyMap.command(for: .mouse(MouseEvent(.release, x: 4, y: 2))))
    }

    // MARK: Sorting

    func test_S_cyclesTheOrders_marksTheColumn_keepsTheSelection() {
        var s = session()
        s.press(.mouse(.click(x: place(s, "promo").x, y: place(s, "promo").y)))
        XCTAssertEqual(s.model.selected, 3)
        let m0 = s.model
        func nextOrder() -> [Int32] {
            let retrying = (1...7).map { Int32($0) }.filter { m0.sim.request($0).state == .retrying }
                .sorted { (m0.sim.request($0).nextAttemptAt, $0) < (m0.sim.request($1).nextAttemptAt, $1) }
            return retrying + (1...7).map { Int32($0) }.filter { !retrying.contains($0) }
        }
        let expected: [(ListSort, [Int32], String)] = [
            (.state, [1, 2, 3, 4, 6, 7, 5], "▾state"),
            (.next, nextOrder(), "▾next"),
            (.attempts, [1, 2, 3, 4, 5, 6, 7], "▾att"),
            (.name, [5, 2, 4, 6, 3, 1, 7], "▾name"),
            (.id, [1, 2, 3, 4, 5, 6, 7], "    #"),
        ]
        let headY = place(s, "kind").y
        for (sort, order, mark) in expected {
            s.type("S")
            XCTAssertEqual(s.model.sort, sort)
            XCTAssertEqual(listed(s.model), order, sort.word)
            XCTAssertEqual(s.model.selected, 3, "the selection stays on its request")
            let head = lines(s)[headY]
            XCTAssertTrue(head.contains(mark), head)
            XCTAssertEqual(head.filter { $0 == "▾" }.count, sort == .id ? 0 : 1, head)
        }
        XCTAssertEqual(s.model.message?.text, "list in id order (S: by state)")
        // The next attempt order is not the id order here: 4's timeout came later.
        XCTAssertEqual(nextOrder().prefix(4).sorted(), [1, 2, 3, 4])
        XCTAssertEqual(nextOrder().suffix(3), [5, 6, 7])
    }

    func test_sort_attempts_mostFirst_andWithATabAndAFilter() {
        var s = Session(.ios, settings: [("timeout", "500ms")], width: 100, height: 30)
        s.type("xd1t")  // 1: one 503, then retried and delivered
        s.wait(60_000)
        s.type("xta")  // from now on every attempt times out
        s.type("pp")  // 2, 3
        s.wait(3_600_000)
        s.type("xo")
        s.type("r")  // 4: delivered at once
        s.wait(500)
        let a = (1...4).map { s.model.sim.request(Int32($0)).attempts }
        XCTAssertEqual(a, [2, 4, 4, 1])
        s.type("SSS")
        XCTAssertEqual(s.model.sort, .attempts)
        let order = listed(s.model)
        XCTAssertEqual(order, [2, 3, 1, 4])
        // With a filter: the filtered requests, in the same order.
        s.type("/ping")
        s.press(.enter)
        XCTAssertEqual(listed(s.model), order.filter { $0 == 2 || $0 == 3 })
    }

    func test_compare_sortsItsRows_byTheFirstColumn() {
        var m = AppModel(compare: [
            Simulation(profile: .ios), Simulation(profile: .android),
        ])
        m.setScreen(width: 120, height: 30)
        m.layOut()
        m.perform(.appLaunched)
        m.perform(.networkWentOffline)
        m.perform(.pingSent)
        m.perform(.eventTracked(TrackedEvent(name: "alpha")))
        m.perform(.networkWentOnline)
        m.tick(to: 5000)
        m.perform(.screenViewed("zeta"))
        XCTAssertEqual(m.match.rows.map(\.name), ["ping", "alpha", "zeta"])
        _ = m.handle(.char("S"))
        _ = m.handle(.char("S"))
        _ = m.handle(.char("S"))
        _ = m.handle(.char("S"))
        XCTAssertEqual(m.sort, .name)
        XCTAssertEqual(listed(m), [2, 1, 3])
        XCTAssertEqual(m.message?.text, "rows sorted by name (the first column that has the request) (S: by id)")
        let head = AppView.render(m, width: 120, height: 30).text.split(separator: "\n")[2]
        XCTAssertTrue(head.hasPrefix("  ▾name"), String(head))
    }

    func test_sorted_theSelectionFollowsTheNewestRequest() {
        var s = session()
        s.type("SSSS")
        XCTAssertEqual(s.model.sort, .name)
        s.type("r")  // 8: sku-42, listed after 7
        XCTAssertEqual(s.model.selected, 8)
        XCTAssertEqual(listed(s.model), [5, 2, 4, 6, 3, 1, 7, 8])
        s.command("track aardvark")  // 9: first by name
        XCTAssertEqual(s.model.selected, 9)
        XCTAssertEqual(s.model.selectedRow, 0)
        XCTAssertEqual(s.model.top, 0)
    }

    func test_compare_clickARowAndATab() {
        var m = AppModel(compare: [Simulation(profile: .ios), Simulation(profile: .android)])
        m.setScreen(width: 120, height: 30)
        m.layOut()
        m.perform(.appLaunched)
        m.perform(.pingSent)
        m.perform(.eventTracked(TrackedEvent(name: "alpha")))
        m.tick(to: 5000)
        XCTAssertEqual(m.selected, 2)
        let text = AppView.render(m, width: 120, height: 30).text.split(separator: "\n").map(String.init)
        m.layOut()  // the frame the clicks are on
        let y = text.firstIndex { $0.hasPrefix("   ping") }!
        _ = m.handle(.mouse(.click(x: 5, y: y)))
        XCTAssertEqual(m.selected, 1)
        let tabs = text[1]
        let x = tabs.distance(from: tabs.startIndex, to: tabs.range(of: " pending 0 ")!.lowerBound)
        _ = m.handle(.mouse(.click(x: x + 2, y: 1)))
        XCTAssertEqual(m.tab, .pending)
        XCTAssertEqual(m.rowCount, 0)
    }

    // MARK: The command line

    func test_commandHistory_upAndDown_keptOnce_draftComesBack() {
        var s = session()
        s.command("set retry.attempts 5")
        s.command("network offline")
        s.command("network offline")
        s.command("  ")
        XCTAssertEqual(s.model.commandLine.history, ["set retry.attempts 5", "network offline"])
        s.type(":net")
        s.press(.up)
        XCTAssertEqual(s.model.mode, .command("network offline"))
        s.press(.up)
        XCTAssertEqual(s.model.mode, .command("set retry.attempts 5"))
        s.press(.up)
        XCTAssertEqual(s.model.mode, .command("set retry.attempts 5"), "the oldest stays")
        s.press(.down)
        XCTAssertEqual(s.model.mode, .command("network offline"))
        s.press(.down)
        XCTAssertEqual(s.model.mode, .command("net"), "past the newest: what was typed")
        s.press(.up)
        s.press(.up)
        s.press(.backspace)
        s.type("3")
        s.press(.enter)
        XCTAssertEqual(s.model.sim.settings.retryAttempts, 3)
        XCTAssertEqual(
            s.model.commandLine.history, ["set retry.attempts 5", "network offline", "set retry.attempts 3"])
        // A new session (:profile, :compare, :play) keeps it.
        var next = AppModel(sim: Simulation(profile: .android))
        next.keepHabits(of: s.model)
        XCTAssertEqual(next.commandLine.history.count, 3)
    }

    func test_tab_completesTheWord() {
        var s = session()
        func tab(_ typed: String) -> (String, String?) {
            s.press(.escape)
            s.type(":" + typed)
            s.press(.tab)
            guard case .command(let t) = s.model.mode else { return ("<not on the command line>", nil) }
            return (t, s.model.commandLine.hint)
        }
        XCTAssertEqual(tab("se").0, "se")
        XCTAssertEqual(tab("se").1, "server set")
        XCTAssertEqual(tab("set").0, "set ")
        XCTAssertEqual(tab("set retry.a").0, "set retry.attempts ")
        XCTAssertEqual(tab("set retry.").1, "retry.attempts retry.delays retry.jitter")
        XCTAssertEqual(tab("net").0, "network ")
        XCTAssertEqual(tab("network of").0, "network offline ")
        XCTAssertEqual(tab("network o").1, "offline online")
        XCTAssertEqual(tab("break ret").0, "break retrying ")
        XCTAssertEqual(tab("break rule ios-1").0, "break rule IOS-1 ")
        XCTAssertEqual(tab("break rule ios-").1?.hasPrefix("IOS-1 IOS-2"), true)
        XCTAssertEqual(tab("profile an").0, "profile android ")
        XCTAssertEqual(tab("compare ios,an").0, "compare ios,android")
        XCTAssertEqual(tab("server 50").1, "500 503")
        XCTAssertEqual(tab("server 503 al").0, "server 503 always ")
        XCTAssertEqual(tab("log r").0, "log request ")
        XCTAssertEqual(
            tab("zz").1, "nothing starts with `zz`: " + s.model.list(s.model.completions(after: []).sorted()))
        XCTAssertEqual(tab("track x ").1, "nothing to complete here")
        // Shown after the line on the status bar.
        _ = tab("se")
        XCTAssertEqual(lines(s).last?.hasPrefix(":se_  server set"), true, lines(s).last ?? "")
        // Consent is LinkTrail's: not offered on iOS.
        XCTAssertFalse(s.model.completions(after: []).contains("consent"))
    }
}
