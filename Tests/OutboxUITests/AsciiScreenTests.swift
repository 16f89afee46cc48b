import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

/// Issue 12, part 8: under ASCII glyphs (the terminal is not UTF-8) every screen
/// writes only ASCII, and every figure still reads right.
final class AsciiScreenTests: XCTestCase {
    override func setUpWithError() throws { try skipUnderThreadSanitizer("frames drawn in memory") }

    /// The cells of a screen that are not ASCII, with where they are.
    func nonASCII(_ b: ScreenBuffer) -> [String] {
        var out: [String] = []
        for y in 0..<b.height {
            for x in 0..<b.width where b[x, y].char.value >= 0x80 {
                out.append("(\(x),\(y)) U+\(String(b[x, y].char.value, radix: 16))")
            }
        }
        return out
    }

    /// Every screen a session can reach from here: each tab, each pane focused,
    /// the detail enlarged, every page of the help, both steps of the chooser,
    /// the command line and the filter, at 80×24, 120×40 and the smallest size.
    func everyScreen(_ s: Session, _ label: String) -> [(String, ScreenBuffer)] {
        var out: [(String, ScreenBuffer)] = []
        func add(_ name: String, _ t: Session) {
            for (w, h) in [(80, 24), (120, 40), (60, 15), (40, 10)] {
                out.append(("\(label) \(name) \(w)x\(h)", t.screen(w, h, glyphs: .ascii)))
            }
        }
        add("main", s)
        var tabs = s
        for i in 0..<StateTab.allCases.count {
            tabs.type("]")
            add("tab \(i)", tabs)
        }
        var panes = s
        for i in 0..<Pane.allCases.count {
            panes.press(.tab)
            add("pane \(i)", panes)
        }
        var detail = s
        detail.press(.enter)
        add("detail", detail)
        var help = s
        help.type("?")
        for i in 0..<100 {
            if i % 4 == 0 { add("help \(i)", help) }
            help.type("j")
        }
        var slow = s
        slow.type("--")  // ⅒×: the header's speed
        add("tenth speed", slow)
        slow.type(" ")
        add("paused", slow)
        var breakpoints = s
        breakpoints.type("b")
        add("break chooser", breakpoints)
        breakpoints.type("r")
        add("break set", breakpoints)
        var export = s
        export.type("e")
        add("export prompt", export)
        var logSearch = s
        logSearch.press(.tab)
        logSearch.press(.tab)
        logSearch.type("/app")
        add("log search", logSearch)
        logSearch.press(.enter)
        add("log found", logSearch)
        var focused = s
        focused.press(.tab)
        focused.press(.enter)
        add("detail full, focused", focused)
        var chooser = s
        chooser.type("x")
        add("chooser", chooser)
        chooser.type("d")
        add("chooser 503", chooser)
        var command = s
        command.type(":track caf")
        add("command", command)
        var filter = s
        filter.type("/pur")
        add("filter", filter)
        var zoomed = s
        zoomed.type("zz")
        add("zoomed", zoomed)
        zoomed.type("ZZZZZZ")
        add("zoomed out", zoomed)
        return out
    }

    func assertASCII(_ screens: [(String, ScreenBuffer)], file: StaticString = #filePath, line: UInt = #line) {
        for (name, b) in screens {
            let bad = nonASCII(b)
            XCTAssertEqual(bad, [], "\(name):\n" + b.text, file: file, line: line)
        }
    }

    func test_everyScreen_everyProfile_writesOnlyASCII() {
        for p in Profile.allCases {
            var s = Session(p)
            if p == .linktrail { s.type("c") }
            s.command("server 503 x2")
            s.type("t")
            s.command("track café value=9 currency=EUR")  // a name the user typed, not ASCII
            s.wait(1000)
            s.type("o")
            s.wait(40_000)
            s.type("o")
            if p == .linktrail { s.type("c") }  // the purge banner
            assertASCII(everyScreen(s, p.rawValue))
        }
    }

    func test_compare_everyScreen_writesOnlyASCII() {
        var s = Session(compare: [.linktrail, .ios, .android, .flutter])
        s.command("server 503 x2")
        s.type("t")
        s.wait(5000)
        assertASCII(everyScreen(s, "compare"))
    }

    /// The figures the model hands over as text read right: `503 x2`, not `503 32`.
    func test_figures_readRight_inASCII() {
        var s = Session(.ios)
        s.command("server 503 x2")
        let text = s.screen(glyphs: .ascii).text
        XCTAssertTrue(text.contains("| backend 503 x2 |"), text)
        s.type("?")
        var help = ""
        for _ in 0..<200 where !help.contains("faster: 0.1x, 0.25x, 1x, 10x") {
            help += s.screen(glyphs: .ascii).text
            s.press(.char("j"))
        }
        XCTAssertTrue(help.contains("faster: 0.1x, 0.25x, 1x, 10x"), help)
        s.press(.escape)
        XCTAssertTrue(s.screen(59, 14, glyphs: .ascii).text.contains("at least 60x15"))
        // Text cut short ends in the ASCII mark.
        var b = ScreenBuffer(width: 10, height: 1)
        b.ascii = true
        b.cutMark = "~"
        b.put("a → b × c — d", x: 0, y: 0, role: .normal)
        XCTAssertEqual(b.text, "a -> b x ~")
    }

    /// The legend in the help: every glyph with its meaning, in the form shown.
    func test_help_listsTheTimelineGlyphs_withTheirASCIITwins() {
        var s = Session(.ios, width: 120, height: 100)
        s.type("?")
        let uni = s.screen().text
        let ascii = s.screen(glyphs: .ascii).text
        for (g, meaning) in [("✗", "x"), ("●", "*"), ("■", "#"), ("◌", "o"), ("░", ":"), ("▸", ">")] {
            XCTAssertTrue(uni.contains(g), g)
            XCTAssertTrue(ascii.contains(" " + meaning + " "), meaning)
        }
        XCTAssertTrue(ascii.contains("a failed answer"), ascii)
        XCTAssertTrue(ascii.contains("dropped"), ascii)
        XCTAssertTrue(ascii.contains("+30s"), ascii)
    }
}
