import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

final class ScreenTests: XCTestCase {
    func test_freshLinkTrailScreen_80x24_and_120x40() {
        let s = Session(.linktrail)
        assertSnapshot(s.screen().text, "fresh-linktrail-80x24")
        assertSnapshot(s.screen().roleLayer(roleLegend), "fresh-linktrail-80x24.roles")
        assertSnapshot(s.screen(120, 40).text, "fresh-linktrail-120x40")
    }

    /// A flush under way says what started it and how far it got (LT-8, LT-11).
    func test_flushUnderWay_namesItsTriggerInTheHeader() {
        var s = Session(.linktrail, settings: [("requireConsent", "false"), ("retry.attempts", "1")])
        s.command("network offline")
        s.command("track a")
        s.command("track b")
        s.wait(100)  // one attempt each, offline: kept in the offline queue with the install (LT-5)
        XCTAssertEqual(s.states("a"), ["queued"])
        s.command("network online")
        s.command("track c")
        s.wait(200)  // c is delivered: its success starts a flush of the install, a, then b
        let header = s.screen(100, 30).text.split(separator: "\n")[1]
        XCTAssertTrue(header.contains("flush running (successful send of #4 'c') · sent 1 · 2 left"), String(header))
        s.wait(1_000)
        XCTAssertTrue(s.screen(100, 30).text.split(separator: "\n")[1].contains("flush idle"))
    }

    func test_helpScreen_explainsEveryKey() {
        var s = Session(.linktrail)
        s.type("?")
        var seen = ""
        var last = ""
        for _ in 0..<400 {
            let text = s.screen().text
            if text == last { break }
            seen += text
            last = text
            s.press(.char("j"))
        }
        XCTAssertEqual(last, s.screen().text, "scrolled to the end")
        // Every word of every entry is on screen somewhere: long ones go on over
        // the next rows (80 columns leave 61 for the text), never cut.
        for b in KeyMap.bindings where b.applies(to: [.linktrail]) {
            for piece in AppView.wrap(b.help, width: 61) {
                XCTAssertTrue(seen.contains(piece), "help screen lacks: \(piece) (of \(b.help))")
            }
        }
        // The keys LinkTrail lacks are not offered, and one line says which and why.
        for b in KeyMap.bindings where !b.applies(to: [.linktrail]) {
            XCTAssertFalse(seen.contains(b.help), "help screen offers \(b.help) on linktrail")
        }
        XCTAssertTrue(seen.contains("not here   g B p s r n u: linktrail has no getInstance(), app lifecycle,"), seen)
        s.press(.escape)
        XCTAssertEqual(s.model.mode, .normal)
        var wide = Session(.linktrail, width: 200, height: 60)
        wide.type("?")
        assertSnapshot(wide.screen().text, "help-200x60")
    }

    func test_chooser_and_commandLine() {
        var s = Session(.linktrail)
        s.type("x")
        assertSnapshot(s.screen().text, "chooser-80x24")
        s.type("d3")
        XCTAssertEqual(s.model.sim.plan.text, "503 ×3")
        s.command("server 429 always")
        XCTAssertEqual(s.model.sim.plan.text, "429 always")
        s.command("set retry.attempts 5")
        XCTAssertEqual(s.model.sim.settings.retryAttempts, 5)
        s.command("consent grant")
        s.command("track signup value=9 currency=EUR")
        XCTAssertEqual(s.states("signup"), ["in-flight"])
        s.command("bogus thing")
        XCTAssertEqual(s.model.message?.isError, true)
        XCTAssertTrue(s.screen().text.contains("unknown action `bogus`"), s.screen().text)
        s.command("ping")
        XCTAssertTrue(s.screen().text.contains("LinkTrail attribution SDK has no ping requests"))
        let effects: [UIEffect?] = {
            var t = s; t.press(.char(":")); t.type("profile ios"); return [t.press(.enter)]
        }()
        XCTAssertEqual(effects, [.switchProfile(.ios)])
    }

    func test_keyWithoutUse_saysSoBriefly() {
        var s = Session(.linktrail)
        s.type("g")
        XCTAssertEqual(s.model.message?.text, "`g` needs getInstance(); linktrail has none (? lists the keys here)")
        XCTAssertTrue(s.screen().text.contains("`g` needs getInstance(); linktrail has none"), s.screen().text)
        s.type("p")
        XCTAssertEqual(s.model.message?.text, "`p` needs ping requests; linktrail has none (? lists the keys here)")
        XCTAssertEqual(s.model.recorded, ["at 0 launch"])
        var i = Session(.ios)
        i.type("c")
        XCTAssertEqual(i.model.message?.text, "`c` needs the consent gate; ios has none (? lists the keys here)")
        i.type("Y")
        XCTAssertTrue(i.screen().text.contains("press ? for help"))
    }

    /// Issue 22, item 22: the help, the status bar and the keys offer only what
    /// the profile has (the key table's `needs`): no `c` on iOS, no `p` or `g`
    /// on LinkTrail; a compare offers what any column has.
    func test_keysOffered_followTheProfilesCapabilities() {
        let ios = KeyMap.helpLines(profiles: [.ios])
        XCTAssertFalse(ios.contains { $0.keys == "c" }, "\(ios)")
        XCTAssertFalse(ios.contains { $0.keys == "g" })
        XCTAssertTrue(ios.contains { $0.keys == "p" })
        XCTAssertEqual(
            ios.first { $0.keys == "not here" }?.help,
            "c g B: ios has no consent gate, getInstance(), app lifecycle (docs/keys.md lists every key)")
        let android = KeyMap.helpLines(profiles: [.android])
        XCTAssertTrue(android.contains { $0.keys == "g" })
        let both = KeyMap.helpLines(profiles: [.ios, .linktrail])
        XCTAssertTrue(both.contains { $0.keys == "c" } && both.contains { $0.keys == "p" })
        XCTAssertEqual(KeyMap.helpLines().count, KeyMap.helpLines(profiles: Profile.seeds).count)
        // The status bar: consent on LinkTrail only, ping and getInstance where they are.
        func bar(_ p: Profile) -> [String] { AppView.statusKeys(Session(p, width: 200).model).map(\.0) }
        XCTAssertFalse(bar(.ios).contains("c"))
        XCTAssertTrue(bar(.ios).contains("p"))
        XCTAssertFalse(bar(.ios).contains("g"))
        XCTAssertTrue(bar(.linktrail).contains("c"))
        XCTAssertFalse(bar(.linktrail).contains("p"))
        XCTAssertTrue(bar(.android).contains("g"))
    }

    func test_tinyAndHugeSizes_neverCrash() {
        var s = Session(.ios)
        s.type("tpsxda")
        s.wait(40_000)
        for (w, h) in [(0, 0), (1, 1), (5, 3), (20, 8), (59, 14), (60, 15), (61, 16), (80, 24), (200, 60), (400, 120)] {
            for keys in ["", "?", "x", ":", "/"] {
                var t = s
                t.type(keys)
                let b = t.screen(w, h)
                XCTAssertEqual(b.lines.count, h)
            }
        }
        XCTAssertTrue(s.screen(59, 14).text.contains("Outbox needs at least 60×15"))
        XCTAssertTrue(s.screen(40, 10).text.contains("this terminal is 40×10"))
    }

    func test_asciiGlyphs_whenNotUTF8() {
        var s = Session(.linktrail)
        s.type("c")
        s.wait(1000)
        var chooser = s
        chooser.type("x")
        s.type("?")
        // The chooser box only: the log pane beside it shows the SDK's own text, kept exact.
        let box = chooser.screen(120, 40, glyphs: .ascii).lines[1..<18].map { String($0.suffix(40)) }.joined(
            separator: "\n")
        let text = s.screen(120, 40, glyphs: .ascii).text + box
        let nonASCII = text.unicodeScalars.filter { !$0.isASCII }
        XCTAssertEqual(String(String.UnicodeScalarView(nonASCII)), "", text)
    }

    func test_listFilters_tabsAndName() {
        var s = Session(.linktrail)
        s.type("c")
        s.type("T")
        s.wait(1000)
        s.type("t")
        XCTAssertEqual(s.model.rowCount, 22)
        s.type("]]")  // in-flight tab
        XCTAssertEqual(s.model.tab, .inFlight)
        XCTAssertEqual(s.model.rowCount, 1)
        s.type("[[")
        s.type("/burst-1")
        s.press(.enter)
        XCTAssertEqual(s.model.rowCount, 11)  // burst-1, burst-10..19
        XCTAssertTrue(s.screen().text.contains("/burst-1"))
        s.type("/")
        s.press(.escape)
        XCTAssertEqual(s.model.rowCount, 22)
    }

    func test_selectionMoves_andDetailShowsWhy() {
        var s = Session(.linktrail, width: 120, height: 40)
        s.type("c")
        s.wait(1000)
        s.type("xga")
        s.type("t")
        s.wait(1000)
        s.press(.home)
        XCTAssertEqual(s.model.selected, 1)
        s.type("j")
        XCTAssertEqual(s.model.selected, 2)
        let text = s.screen().text
        XCTAssertTrue(text.contains("LT-6 in-flight → dropped  403  rejected"), text)
        XCTAssertTrue(text.contains("[LinkTrail] [WARNING] Event 'purchase' rejected (403) — not retried."), text)
        XCTAssertTrue(text.contains("key "), text)
    }

    /// An idle screen changes nothing; a clock tick changes only the header.
    func test_idleFrameIsIdentical_tickTouchesOnlyTheClock() {
        var s = Session(.linktrail)
        s.type("c")
        s.wait(1000)
        let a = s.screen()
        XCTAssertEqual(s.screen().changedCells(since: a), 0)
        s.wait(100)
        let b = s.screen()
        XCTAssertGreaterThan(b.changedCells(since: a), 0)
        for y in 2..<24 {
            XCTAssertEqual(a.lines[y], b.lines[y], "row \(y) changed on a clock tick")
        }
    }

    /// A request saved by an earlier process of the device says so in its detail.
    func test_restoredRequest_detailSaysItCameFromAnEarlierRun() {
        let device = InMemoryDeviceStore()
        var first = Simulation(profile: .android, store: device)
        first.apply(.appLaunched)
        first.apply(.networkWentOffline)
        first.advance(to: 1500)
        first.apply(.eventTracked(TrackedEvent(name: "purchase")))
        first.apply(.appQuit)
        // A new process on the same device: a fresh model, the device as it was.
        var m = AppModel(sim: Simulation(profile: .android, store: device))
        m.setScreen(width: 100, height: 30)
        m.perform(.appLaunched)
        _ = m.handle(.home)
        // The history's start: the detail focused (Tab), scrolled to its top (Home),
        // each key on the frame after the last.
        m.layOut()
        _ = m.handle(.tab)
        m.layOut()
        _ = m.handle(.home)
        let text = AppView.render(m, width: 100, height: 30).text
        XCTAssertTrue(text.contains("created 00:00:01.500 in an earlier run"), text)
        XCTAssertTrue(text.contains("new → queued"), text)
    }
}
