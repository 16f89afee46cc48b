import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxUI

extension Session {
    /// Lets `ms` of wall time pass as the loop does: frames of `frame` ms, each
    /// turned into virtual time at the clock's speed (`wallTimePassed`).
    mutating func passWall(_ ms: Int64, frame: Int64 = 33) {
        var left = ms
        while left > 0 {
            let f = min(frame, left)
            model.wallTimePassed(ms: f)
            left -= f
        }
    }

    /// The first line of the header.
    func headerRow(glyphs: Glyphs = .unicode) -> String { String(screen(glyphs: glyphs).lines[0]) }

    /// The status bar.
    func statusRow(glyphs: Glyphs = .unicode) -> String { String(screen(glyphs: glyphs).lines[height - 1]) }
}

/// Part 1 and 2 of issue 12: slow motion, exact speeds, breakpoints, the step.
final class TimeTests: XCTestCase {
    // MARK: Speeds

    /// `-` from 1× goes to ¼× then ⅒×, `+` back up to 3600×; the header shows each,
    /// in ASCII as `0.1x`.
    func test_speeds_slowerAndFaster_shownInTheHeader() {
        var s = Session(.linktrail)
        XCTAssertTrue(s.headerRow().contains("▶ 1× "), s.headerRow())
        var seen: [String] = []
        for _ in 0..<3 {
            s.type("-")
            seen.append(s.model.clockSpeed.text(ascii: false))
        }
        XCTAssertEqual(seen, ["¼×", "⅒×", "⅒×"])
        XCTAssertTrue(s.headerRow().contains("▶ ⅒× "), s.headerRow())
        XCTAssertTrue(s.headerRow(glyphs: .ascii).contains("> 0.1x "), s.headerRow(glyphs: .ascii))
        XCTAssertEqual(s.model.message?.text, "speed ⅒×")
        XCTAssertTrue(s.statusRow(glyphs: .ascii).contains("speed 0.1x"), s.statusRow(glyphs: .ascii))
        seen = []
        for _ in 0..<7 {
            s.type("+")
            seen.append(s.model.clockSpeed.text(ascii: true))
        }
        XCTAssertEqual(seen, ["0.25x", "1x", "10x", "60x", "600x", "3600x", "3600x"])
        XCTAssertTrue(s.headerRow().contains("▶ 3600× "), s.headerRow())
    }

    /// At ⅒× a 200 ms attempt is on the wire for exactly 2 s of wall time, in
    /// 33 ms frames (virtual time is carried below the millisecond, not lost).
    func test_tenthSpeed_a200msAttempt_isInFlightFor2sOfWallTime() {
        var s = Session(.linktrail)
        s.type("--")
        s.type("c")  // consent granted: the install goes on the wire at 0
        XCTAssertEqual(s.states("install"), ["in-flight"])
        s.passWall(1980)  // 60 frames: 198 ms of virtual time
        XCTAssertEqual(s.model.sim.now, 198)
        XCTAssertEqual(s.states("install"), ["in-flight"])
        XCTAssertTrue(s.screen().text.contains("in-flight"))
        s.passWall(19)
        XCTAssertEqual(s.model.sim.now, 199)
        XCTAssertEqual(s.states("install"), ["in-flight"])
        s.passWall(1)
        XCTAssertEqual(s.model.sim.now, 200)
        XCTAssertEqual(s.states("install"), ["delivered"])
        // ¼×: 4 s of wall time are exactly 1 s of virtual time, in uneven frames.
        s.type("+")
        for f: Int64 in [7, 13, 29, 33, 1] + Array(repeating: 33, count: 118) + [23] { s.model.wallTimePassed(ms: f) }
        XCTAssertEqual(s.model.sim.now, 200 + 1000)
    }

    /// Paused, wall time moves nothing and is not saved up for later.
    func test_paused_wallTimeMovesNothing() {
        var s = Session(.linktrail)
        s.type(" ")
        s.passWall(5000)
        XCTAssertEqual(s.model.sim.now, 0)
        XCTAssertTrue(s.headerRow().contains("PAUSED 1× "), s.headerRow())
        s.type(" ")
        s.passWall(100)
        XCTAssertEqual(s.model.sim.now, 100)
    }

    /// The purge banner lasts 5 s of wall time at any speed (500 ms virtual at ⅒×).
    func test_purgeBanner_lastsFiveWallSeconds_atTenthSpeed() {
        var s = Session(.linktrail)
        s.type("c")
        s.passWall(1000)
        s.type("--")
        s.type("t")
        s.type("c")  // deny: the purchase on the wire is dropped
        XCTAssertTrue(s.model.banner != nil)
        s.passWall(4900)
        XCTAssertTrue(s.model.banner != nil, "the banner went before 5 s of wall time")
        s.passWall(200)
        XCTAssertNil(s.model.banner)
    }

    // MARK: Breakpoints

    /// `:break retrying` stops the clock at the instant a request starts
    /// retrying, before the next instant; later ticks do not move it; the header
    /// says why, the request is selected; space resumes and the same transition
    /// does not stop it again.
    func test_breakOnRetrying_pausesBeforeTheNextInstant_clockFrozen_spaceResumes() {
        var s = Session(.linktrail, settings: [("requireConsent", "false")])
        s.wait(1000)  // the install is delivered
        s.command("break retrying")
        XCTAssertEqual(s.model.breakpoints, [.state(.retrying)])
        XCTAssertEqual(s.model.message?.isError, false)
        s.type("xda")  // 503 always
        s.type("t")  // the purchase, #2, fails at 1.2 s and retries 2 s later
        s.type("t")  // #3 too, at the same instants
        s.press(.home)  // select the first row, so the hit's selection is seen
        XCTAssertEqual(s.model.selected, 1)
        s.wait(60_000)  // a minute asked for: the clock stops at 1.2 s
        XCTAssertEqual(s.model.sim.now, 1200)
        XCTAssertTrue(s.model.paused)
        XCTAssertEqual(s.model.pauseWhy, "#2 → retrying (LT-4)")
        XCTAssertEqual(s.model.selected, 2)
        XCTAssertEqual(s.states("purchase"), ["retrying", "retrying"], "the whole instant is processed")
        XCTAssertTrue(s.headerRow().contains("PAUSED 1× · #2 → retrying (LT-4)"), s.headerRow())
        XCTAssertTrue(
            s.headerRow(glyphs: .ascii).contains("PAUSED 1x - #2 -> retrying (LT-4)"), s.headerRow(glyphs: .ascii))
        XCTAssertTrue(
            s.statusRow().contains("breakpoint: #2 → retrying (LT-4) at 00:00:01.200; space resumes"), s.statusRow())
        // Frozen: ticks and wall time later do not move it.
        s.wait(10_000)
        s.passWall(3000)
        XCTAssertEqual(s.model.sim.now, 1200)
        XCTAssertEqual(s.states("purchase"), ["retrying", "retrying"])
        // Space resumes; the next stop is the next retrying, not this one again.
        s.type(" ")
        XCTAssertFalse(s.model.paused)
        XCTAssertNil(s.model.pauseWhy)
        s.wait(60_000)
        XCTAssertEqual(s.model.sim.now, 3400, "1.2 s + 2 s backoff + 200 ms attempt")
        XCTAssertEqual(s.model.pauseWhy, "#2 → retrying (LT-4)")
        XCTAssertEqual(s.model.sim.request(2).attempts, 2)
        // The breakpoint shows in the status bar while set, and in the help.
        s.model.message = nil
        XCTAssertTrue(s.statusRow().hasPrefix(" b break retrying "), s.statusRow())
        s.type("?")
        var help = ""
        for _ in 0..<90 {
            help += s.screen().text
            s.press(.char("j"))
        }
        XCTAssertTrue(help.contains("breakpoints set now"), help)
        XCTAssertTrue(help.contains("retrying   a request becomes retrying"), help)
        s.press(.escape)
        s.command("break clear")
        XCTAssertEqual(s.model.message?.text, "breakpoints cleared (1)")
        s.type(" ")
        s.model.message = nil
        XCTAssertFalse(s.statusRow().contains("break"), s.statusRow())
        s.wait(60_000)
        XCTAssertEqual(s.states("purchase"), ["queued", "queued"])
    }

    /// A rule breakpoint and a request breakpoint; a breakpoint a user's own
    /// key trips stops the clock at once.
    func test_ruleAndRequestBreakpoints() {
        var s = Session(.linktrail, settings: [("requireConsent", "false")])
        s.wait(1000)
        s.command("break rule lt-5")
        XCTAssertEqual(s.model.breakpoints, [.rule("LT-5")])
        s.type("o")  // offline: attempts fail at once
        s.type("t")
        s.wait(60_000)  // 0, 2 s, 6 s: the third failure queues it (LT-5)
        XCTAssertEqual(s.model.sim.now, 7000)
        XCTAssertEqual(s.model.pauseWhy, "#2 → queued (LT-5)")
        s.command("break clear")
        s.command("break request 3")
        XCTAssertEqual(s.model.breakpoints, [.request(3)])
        s.type(" ")
        s.wait(500)
        XCTAssertFalse(s.model.paused)
        s.type("t")  // #3 is made now: its first transition stops the clock at once
        XCTAssertTrue(s.model.paused)
        XCTAssertEqual(s.model.sim.now, 7500)
        XCTAssertEqual(s.model.pauseWhy, "#3 → pending (LT-1a)")
        XCTAssertEqual(s.model.selected, 3)
        // Offline, it failed at once: the same instant, already seen; resuming goes on to its retry.
        s.type(" ")
        s.wait(60_000)
        XCTAssertEqual(s.model.sim.now, 9500)
        XCTAssertEqual(s.model.pauseWhy, "#3 → in-flight (LT-4)")
    }

    /// `b` opens the chooser: a state's letter sets it (and again clears it), `s`
    /// the selected request, `l` its last rule, `c` clears; the chooser marks
    /// what is set.
    func test_chooser_setsAndClears() {
        var s = Session(.linktrail, settings: [("requireConsent", "false")])
        s.wait(1000)
        s.type("b")
        XCTAssertEqual(s.model.mode, .chooseBreak)
        let open = s.screen().text
        XCTAssertTrue(open.contains("Pause the clock when a request"), open)
        XCTAssertTrue(open.contains(" r  becomes retrying"), open)
        XCTAssertTrue(open.contains(" s  request #1 changes state"), open)
        XCTAssertTrue(open.contains(" l  cites LT-4 (#1's last rule)"), open)
        assertSnapshot(open, "break-chooser-80x24")
        s.type("r")
        XCTAssertEqual(s.model.mode, .normal)
        XCTAssertEqual(s.model.breakpoints, [.state(.retrying)])
        s.type("bx")
        s.type("bs")
        s.type("bl")
        XCTAssertEqual(s.model.breakpoints, [.state(.retrying), .state(.dropped), .request(1), .rule("LT-4")])
        s.type("b")
        let marked = s.screen().text
        XCTAssertTrue(marked.contains("✓r  becomes retrying"), marked)
        XCTAssertTrue(marked.contains(" f  becomes in-flight"), marked)
        XCTAssertTrue(s.screen(glyphs: .ascii).text.contains("vr  becomes retrying"))
        s.type("r")  // again: cleared
        XCTAssertEqual(s.model.breakpoints, [.state(.dropped), .request(1), .rule("LT-4")])
        XCTAssertEqual(s.model.message?.text, "breakpoint retrying cleared; set: dropped, #1, LT-4")
        s.type("bz")
        XCTAssertEqual(s.model.mode, .chooseBreak)
        XCTAssertEqual(s.model.message?.isError, true)
        XCTAssertTrue(s.statusRow().contains("no breakpoint on `z`"), s.statusRow())
        s.press(.escape)
        XCTAssertEqual(s.model.mode, .normal)
        s.type("bc")
        XCTAssertEqual(s.model.breakpoints, [])
        XCTAssertEqual(s.model.message?.text, "breakpoints cleared (3)")
    }

    /// `:break` with bad words says what it expected; nothing is set.
    func test_breakCommand_badWords_sayWhatWasExpected() {
        var s = Session(.linktrail)
        let cases: [(String, String)] = [
            (
                "break flying",
                "unknown breakpoint `flying`; expected :break pending|in-flight|retrying|queued|delivered|dropped, :break rule ID (e.g. LT-2), :break request N or :break clear"
            ),
            ("break rule", "expected :break rule ID, e.g. :break rule LT-2 (the IDs are in docs/rules.md)"),
            (
                "break rule LT-99",
                "unknown rule `LT-99`, expected a rule ID such as LT-1, LT-1a, LT-2, LT-3, ..., NET, BACKOFF (docs/rules.md)"
            ),
            (
                "break rule IOS-4",
                "rule IOS-4 is ios's and this screen shows linktrail; expected one of LT-1, LT-1a, LT-2, LT-3, ..., NET, BACKOFF"
            ),
            ("break request", "expected :break request N, N a request number (e.g. 3)"),
            ("break request x3", "expected :break request N, N a request number (e.g. 3), found `x3`"),
            ("break request 0", "expected :break request N, N a request number (e.g. 3), found `0`"),
            (
                "break clear now",
                "unknown breakpoint `clear now`; expected :break pending|in-flight|retrying|queued|delivered|dropped, :break rule ID (e.g. LT-2), :break request N or :break clear"
            ),
            (
                "break \"\u{9b}[2J\"",
                "unknown breakpoint `\\u{9b}[2J`; expected :break pending|in-flight|retrying|queued|delivered|dropped, :break rule ID (e.g. LT-2), :break request N or :break clear"
            ),
        ]
        for (text, want) in cases {
            s.command(text)
            XCTAssertEqual(s.model.message?.text, want, text)
            XCTAssertEqual(s.model.message?.isError, true, text)
        }
        XCTAssertEqual(s.model.breakpoints, [])
        s.command("break")
        XCTAssertTrue(s.model.message!.text.hasPrefix("no breakpoints set; expected :break"), s.model.message!.text)
        s.command("break in-flight")
        s.command("break in-flight")
        XCTAssertEqual(s.model.message?.text, "breakpoint in-flight is already set; :break clear clears all")
        s.command("break")
        XCTAssertEqual(s.model.message?.text, "breakpoints: in-flight; :break clear clears them")
    }

    // MARK: The step

    /// `.` plays the next moment and pauses there, saying what happened; again
    /// and again, whether the clock was running or not; a breakpoint's hit on a
    /// step says so.
    func test_step_playsTheNextMomentAndPauses() {
        var s = Session(.ios)
        s.type("xda")
        s.type("t")
        s.type(".")
        XCTAssertTrue(s.model.paused)
        XCTAssertEqual(s.model.sim.now, 100, "the attempt reaches the backend at half the latency")
        XCTAssertEqual(
            s.model.message?.text, "stepped to 00:00:00.100: the backend received a request; space resumes")
        s.type(".")
        XCTAssertEqual(s.model.sim.now, 200)
        XCTAssertEqual(s.model.message?.text, "stepped to 00:00:00.200: #1 → retrying (IOS-4); space resumes")
        XCTAssertTrue(s.headerRow().contains("PAUSED 1× · step"), s.headerRow())
        s.command("break in-flight")
        s.type(".")
        XCTAssertEqual(s.model.sim.now, 30_200)
        XCTAssertEqual(s.model.pauseWhy, "#1 → in-flight (IOS-4)")
        XCTAssertEqual(s.model.message?.text, "breakpoint: #1 → in-flight (IOS-4) at 00:00:30.200; space resumes")
        s.command("break clear")
        for _ in 0..<20 where s.model.nextDueTime() != nil { s.type(".") }
        XCTAssertEqual(s.states("purchase"), ["dropped"])
        s.type(".")
        XCTAssertEqual(s.model.message?.text, "nothing is scheduled")
    }

    // MARK: The live compare

    /// Comparing, a breakpoint pauses the shared clock when any column matches,
    /// and the header names the column.
    func test_compare_breakpointPausesTheSharedClock_namingTheColumn() {
        var s = Session(compare: [.ios, .android, .flutter])
        s.command("break dropped")
        s.type("xga")  // 403 always
        s.type("t")
        s.wait(60_000)
        XCTAssertTrue(s.model.paused)
        XCTAssertEqual(s.model.sim.now, 200)
        XCTAssertEqual(s.model.pauseWhy, "ios #1 → dropped (IOS-3)")
        XCTAssertEqual(Set(s.model.columns.map(\.now)), [200])
        XCTAssertEqual(s.row("purchase"), ["dropped", "queued", "dropped"])
        XCTAssertEqual(s.model.selected, 1)
        XCTAssertTrue(s.headerRow().contains("PAUSED 1× · ios #1 → dropped (IOS-3)"), s.headerRow())
        s.wait(5000)
        XCTAssertEqual(s.model.sim.now, 200)
        s.command("break request 2")
        s.type(" ")
        s.type("t")  // row 2: its first transition, in any column, stops the clock
        XCTAssertEqual(s.model.pauseWhy, "ios #2 → pending (IOS-1)")
        XCTAssertEqual(s.model.selected, 2)
    }

    // MARK: ASCII

    /// Under ASCII glyphs the time parts write ASCII only: the speeds, a paused
    /// header with its reason, the chooser, the help with breakpoints set, a
    /// play's log and status, and the messages (`speed 0.1x`).
    func test_timeParts_underASCII_writeOnlyASCII() {
        var s = Session(.ios)
        var screens: [String] = []
        func look() { screens.append(s.screen(glyphs: .ascii).text) }
        s.type("--")
        look()
        s.command("break retrying")
        s.type("xdat")
        s.passWall(60_000)
        look()
        s.type("b")
        look()
        s.press(.escape)
        s.type("?")
        for _ in 0..<8 {
            look()
            s.press(.pageDown)
        }
        s.press(.escape)
        s.type(".")
        look()
        guard
            case .success(let sc) = Scenario.parse(
                "profile ios\nat 0 launch\nat 0 track a\nexpect at 1s state a delivered\n", file: "a.outbox")
        else { return XCTFail() }
        s.model = AppModel(playing: sc)
        look()
        s.type(" ")
        s.passWall(20_000)
        look()
        XCTAssertTrue(screens[1].contains("PAUSED 0.1x - #1 -> retrying (IOS-4)"), screens[1])
        XCTAssertTrue(screens.last!.contains("expect line 4: expect at 1s state a delivered: ok"), screens.last!)
        for (i, text) in screens.enumerated() {
            let bad = text.unicodeScalars.filter { !$0.isASCII }
            XCTAssertTrue(bad.isEmpty, "screen \(i): " + String(String.UnicodeScalarView(bad)) + "\n" + text)
        }
    }

    // MARK: --speed

    /// `--speed` takes the seven speeds; anything else is named, with the choices, exit 2.
    func test_speedOption_acceptsTheSpeeds_namesABadOne() {
        for (word, rate) in [("0.1", 100), ("0.25", 250), ("1", 1000), ("10", 10_000), ("3600", 3_600_000)] {
            let o = InteractiveCommand.parse(["--speed", word], console: .capturing())
            XCTAssertEqual(o?.speed.msPerSecond, Int64(rate), word)
        }
        for bad in ["2", "0.5", ".1", "1x", "⅒", ""] {
            let console = Console.capturing()
            XCTAssertEqual(CLI.main(["--speed", bad], console: console), 2, bad)
            XCTAssertEqual(
                console.err, "outbox: bad --speed `\(bad)`, expected 0.1, 0.25, 1, 10, 60, 600 or 3600\n", bad)
        }
    }
}
