import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

/// The list filter (issue 12, part 5): `/` takes names, `rule:`, `kind:`,
/// `state:`, a status (`503`, `timeout`, `status:`), all words must match; the
/// tab counts are the filtered counts; an empty list says which filter matched nothing.
final class ListFilterTests: XCTestCase {
    /// iOS with a 500 ms timeout: a purchase, a ping and a notification answered
    /// 503 (retrying, IOS-4), a ping timed out (retrying), a screen event rejected
    /// by a 400 (dropped, IOS-3), a ping and a product delivered.
    func session() -> Session {
        var s = Session(.ios, settings: [("timeout", "500ms")])
        s.type("xd3tpn")
        s.wait(1000)
        s.type("xt1p")
        s.wait(1000)
        s.type("xe1s")
        s.wait(1000)
        s.type("pr")
        s.wait(1000)
        let m = s.model
        XCTAssertEqual(
            m.sim.requests.map { "\($0.kind.word) \($0.state.word) \($0.lastOutcome.word) \($0.rule.id)" },
            [
                "event retrying 503 IOS-4", "ping retrying 503 IOS-4", "notification retrying 503 IOS-4",
                "ping retrying timeout IOS-4", "screen dropped 400 IOS-3", "ping delivered 200 IOS-3",
                "product delivered 200 IOS-3",
            ])
        return s
    }

    func listed(_ s: inout Session, _ text: String) -> [Int32] {
        s.type("/")
        while case .filter(let t) = s.model.mode, !t.isEmpty { s.press(.backspace) }
        if case .normal = s.model.mode { s.type("/") }
        s.type(text)
        s.press(.enter)
        return (0..<s.model.rowCount).map { s.model.id(atRow: $0) }
    }

    func lines(_ buf: ScreenBuffer) -> [String] {
        buf.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    func test_eachForm_andCombinations() {
        var s = session()
        XCTAssertEqual(listed(&s, "rule:IOS-4"), [1, 2, 3, 4])
        XCTAssertEqual(listed(&s, "rule:ios-3"), [5, 6, 7])
        XCTAssertEqual(listed(&s, "503"), [1, 2, 3])
        XCTAssertEqual(listed(&s, "timeout"), [4])
        XCTAssertEqual(listed(&s, "status:400,timeout"), [4, 5])
        XCTAssertEqual(listed(&s, "kind:ping"), [2, 4, 6])
        XCTAssertEqual(listed(&s, "kind:ping,product"), [2, 4, 6, 7])
        XCTAssertEqual(listed(&s, "kind:ping 503"), [2])
        XCTAssertEqual(listed(&s, "state:retrying"), [1, 2, 3, 4])
        XCTAssertEqual(listed(&s, "STATE:Ret kind:ping"), [2, 4])
        XCTAssertEqual(listed(&s, "state:in-flight,dropped"), [5])
        XCTAssertEqual(listed(&s, "pro"), [3])  // names: promo (sku-42 is a product's name, not "product")
        XCTAssertEqual(listed(&s, "name:pro"), [3])
        XCTAssertEqual(listed(&s, "PING state:deliv"), [6])
        XCTAssertEqual(s.model.message?.text, "filter: PING state:deliv: 1 request (Esc on / clears)")
        // The tab narrows the filter's list further.
        XCTAssertEqual(listed(&s, "kind:ping"), [2, 4, 6])
        s.type("]]]")
        XCTAssertEqual(s.model.tab, .retrying)
        XCTAssertEqual((0..<s.model.rowCount).map { s.model.id(atRow: $0) }, [2, 4])
        // Esc on the prompt clears the filter.
        s.type("/")
        s.press(.escape)
        XCTAssertEqual(s.model.nameFilter, "")
        XCTAssertEqual(s.model.rowCount, 4)
    }

    func test_screen80x24_filteredCounts() {
        var s = session()
        XCTAssertEqual(lines(s.screen())[1], " all 7  pend 0  fly 0  retry 4  queue 0  deliv 2  drop 1   saved 4")
        _ = listed(&s, "kind:ping")
        let screen = s.screen()
        assertSnapshot(screen.text, "filter-kind-ping-80x24")
        XCTAssertEqual(
            lines(screen)[1], " all 3  pend 0  fly 0  retry 2  queue 0  deliv 1  drop 0   /kind:ping  saved 4")
        XCTAssertEqual(lines(screen)[23], " filter: kind:ping: 3 requests (Esc on / clears)")
        // While typing, the list and counts follow each key; the prompt names the forms.
        s.type("/")
        s.type(" 5")
        XCTAssertEqual(
            lines(s.screen())[1], " all 0  pend 0  fly 0  retry 0  queue 0  deliv 0  drop 0   /kind:ping 5  saved 4")
        s.type("03")
        XCTAssertEqual(
            lines(s.screen())[1], " all 1  pend 0  fly 0  retry 1  queue 0  deliv 0  drop 0   /kind:ping 503  save…")
        XCTAssertEqual(
            lines(s.screen())[23], "/kind:ping 503_  (Enter keeps, Esc clears; rule: kind: state: status: name:)")
    }

    func test_emptyList_saysWhichFilterMatchedNothing() {
        var s = session()
        func why(_ text: String) -> String {
            XCTAssertEqual(listed(&s, text), [], text)
            return s.model.emptyFilterReason ?? "(none)"
        }
        XCTAssertEqual(why("rule:LT-99"), "no request matches rule:LT-99: no rule has that ID (see docs/rules.md)")
        let screen = s.screen()
        assertSnapshot(screen.text, "filter-empty-80x24")
        XCTAssertEqual(lines(screen)[3], "  no request matches rule:LT-99: no rule has that ID (see docs/rules.md)")
        XCTAssertEqual(
            lines(screen)[1], " all 0  pend 0  fly 0  retry 0  queue 0  deliv 0  drop 0   /rule:LT-99  saved 4")
        XCTAssertEqual(why("rule:LT-5"), "no request matches rule:LT-5")
        XCTAssertEqual(why("kind:ping 504"), "no request matches 504")
        XCTAssertEqual(why("kind:ping 400"), "no request matches all of kind:ping 400 (each matches some)")
        XCTAssertEqual(
            why("state:later"),
            "no request matches state:later: state: expected pending, in-flight, retrying, queued, delivered, dropped")
        XCTAssertEqual(why("state:d"), "no request matches state:d: state: d could be delivered or dropped")
        XCTAssertEqual(why("kind:"), "no request matches kind:: kind: needs a value")
        XCTAssertEqual(
            why("colour:red"),
            "no request matches colour:red: unknown filter `colour:`; expected rule:, kind:, state:, status: or name:")
        XCTAssertEqual(
            why("status:600"),
            "no request matches status:600: status: expected an HTTP status (503) or timeout, offline, network-lost, partial"
        )
        // A long reason is wrapped over the list's rows, not cut.
        let long = s.screen()
        XCTAssertEqual(lines(long)[3], "  no request matches status:600: status: expected an HTTP status (503) or")
        XCTAssertEqual(lines(long)[4], "  timeout, offline, network-lost, partial")
        XCTAssertEqual(why("teapot"), "no request matches teapot")
        XCTAssertEqual(listed(&s, "kind:product"), [7])
        s.type("]]]")
        XCTAssertEqual(s.model.rowCount, 0)
        XCTAssertEqual(
            s.model.emptyFilterReason, "no retrying request matches kind:product (1 in other states: ] / [ change tab)")
        XCTAssertTrue(
            s.screen().text.contains("  no retrying request matches kind:product (1 in other states: ] / [ change"),
            s.screen().text)
    }

    /// An empty tab with no filter says where the requests are, not "no requests
    /// here yet" as if the session were empty (a leftover of issue 15).
    func test_emptyTab_withoutFilter_pointsAtTheOtherTabs() {
        var s = session()
        s.type("]")  // pending: none
        XCTAssertEqual(s.model.tab, .pending)
        XCTAssertEqual(s.model.rowCount, 0)
        XCTAssertNil(s.model.emptyFilterReason)
        XCTAssertEqual(s.model.emptyListHint, "no pending requests: 7 in other states (] / [ change tab)")
        XCTAssertTrue(s.screen().text.contains("  no pending requests: 7 in other states (] / [ change tab)"))
        var empty = Session(.ios)
        empty.type("]")
        XCTAssertEqual(empty.model.emptyListHint, "no requests here yet: t tracks a purchase, : runs any action")
    }

    /// The live compare keeps working with the filters: rows match when a column's
    /// request does; the tab counts are rows; an empty list says why.
    func test_liveCompare_filters() {
        var s = Session(compare: [.ios, .android])
        s.type("xd3t")
        s.wait(1000)
        s.type("xopg")  // android's getInstance: a column skips it
        s.wait(1000)
        XCTAssertEqual(listed(&s, "503"), [1])
        XCTAssertEqual(listed(&s, "kind:ping"), [2])
        var screen = s.screen()
        assertSnapshot(screen.text, "filter-compare-80x24")
        XCTAssertEqual(
            lines(screen)[2], " all 1  pend 0  fly 0  retry 0  queue 0  deliv 1  drop 0   /kind:ping  saved 1/0")
        XCTAssertEqual(listed(&s, "rule:IOS-4"), [1])
        XCTAssertEqual(listed(&s, "rule:IOS-99"), [])
        screen = s.screen()
        XCTAssertTrue(screen.text.contains("  no row matches rule:IOS-99: no rule has that ID"), screen.text)
        s.type("/")
        s.press(.escape)
        XCTAssertEqual(s.model.rowCount, s.model.match.rows.count)
        // The log keys say there is no log here; Tab to the log then / still filters the list.
        s.type("l")
        XCTAssertEqual(s.model.message?.text, "a compare shows no log; :compare off shows the first column's")
        s.press(.tab)
        s.press(.tab)
        s.type("/ping")
        XCTAssertEqual(s.model.mode, .filter("ping"))
    }
}

/// `kind:` in a compare of profiles with different vocabularies: a kind one
/// profile declares (`call ... makes error`) is a word of the filter, and each
/// column resolves it by its own profile's numbering.
final class ListFilterOwnKindTests: XCTestCase {
    func test_aComparedProfilesOwnKind_isResolvedPerColumn() throws {
        let own = try Profile.parse(
            """
            profile acme-errors
            base ios
            title "iOS with an error call"
            call capture NAME makes error "an error report"
            """, file: "acme.profile"
        ).mapError { $0 as Error }.get()
        XCTAssertNil(ListFilter("kind:error", profiles: [.ios, own]).terms[0].problem)
        XCTAssertNil(ListFilter("kind:error", profiles: [own, .ios]).terms[0].problem)
        XCTAssertEqual(
            ListFilter("kind:error", profiles: [.ios]).terms[0].problem,
            "kind: expected install, event, ping, screen, product, notification, logout, token-removal, anonymous-ping"
        )
        var sim = Simulation(profile: own)
        XCTAssertNil(sim.apply(.appLaunched))
        XCTAssertNil(sim.apply(.call("capture", "boom")))
        XCTAssertNil(sim.apply(.eventTracked(TrackedEvent(name: "buy"))))
        for profiles in [[Profile.ios, own], [own, .ios]] {
            let f = ListFilter("kind:error", profiles: profiles)
            let mine = ListFilter.Matcher(f, names: sim.names, profile: own)
            XCTAssertEqual(sim.requests.filter(mine.matches).map { sim.name(of: $0.id) }, ["boom"])
            let theirs = ListFilter.Matcher(f, names: sim.names, profile: .ios)
            XCTAssertEqual(sim.requests.filter(theirs.matches).count, 0, "ios makes no error requests")
            let events = ListFilter.Matcher(
                ListFilter("kind:event", profiles: profiles), names: sim.names, profile: own)
            XCTAssertEqual(sim.requests.filter(events.matches).map { sim.name(of: $0.id) }, ["buy"])
        }
    }
}
