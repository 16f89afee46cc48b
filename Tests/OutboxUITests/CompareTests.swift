import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxUI

extension Session {
    /// A live compare, as `outbox --compare` starts it: devices in memory, the app
    /// launched on every column at 0.
    init(compare profiles: [Profile], width: Int = 80, height: Int = 24) {
        self.init(.linktrail, width: width, height: height)
        model = AppModel(compare: profiles.map { Simulation(profile: $0, settings: Settings(profile: $0)) })
        model.setScreen(width: width, height: height)
        model.layOut()
        model.perform(.appLaunched)
    }

    /// Each column's state of the `n`th request named `name` (1-based), "—" where missing.
    func row(_ name: String, _ n: Int = 1) -> [String] {
        guard let r = model.match.rows.first(where: { $0.name == name && $0.occurrence == n }) else { return [] }
        let sims = model.columns
        return r.ids.enumerated().map { c, id in id.map { sims[c].request($0).state.word } ?? "—" }
    }
}

/// The live compare (issue 11, part 6): one model, every key on every column.
final class CompareTests: XCTestCase {
    /// `:set` is read where it is typed (the model gets a typed setting), with
    /// the messages it gave when the model read it: on one profile, and on
    /// columns where some or none has the setting.
    func test_setCommand_readAtTheEdge_saysWhatItAlwaysSaid() {
        var one = Session(.ios)
        let recorded = one.model.recorded
        for (line, said) in [
            (
                "set latenc 2s",
                "unknown setting `latenc`, expected one of: retry.attempts, retry.delays, retry.jitter, latency, latency.jitter, timeout, seed; did you mean `latency`?"
            ),
            (
                "set requireConsent false",
                "setting `requireConsent` does not exist on profile ios (it has no consent gate)"
            ),
            ("set latency 2q", "bad value `2q` for latency, expected a time up to 100000h, e.g. 200ms"),
            ("set latency", "bad set, expected `set <key> <value>`"),
        ] {
            one.command(line)
            XCTAssertEqual(one.model.message?.text, said, line)
            XCTAssertEqual(one.model.message?.isError, true, line)
        }
        XCTAssertEqual(one.model.recorded, recorded, "a refused :set is not recorded")
        XCTAssertEqual(one.model.sim.settings, Settings(profile: .ios))
        one.command("set latency 0.5s")
        XCTAssertEqual(one.model.message?.text, ":set latency 0.5s")
        XCTAssertEqual(one.model.sim.settings.latency, 500)
        XCTAssertEqual(one.model.recorded.last, "at 0 set latency 0.5s", "recorded as typed")
        let logged = one.model.sim.journal.compactMap { e -> String? in
            guard case .log(let l) = e else { return nil }
            return l.text
        }
        XCTAssertEqual(logged.last, "set latency 0.5s", "logged as typed")

        var two = Session(compare: [.android, .ios])
        two.command("set retry.attempts x")
        XCTAssertEqual(
            two.model.message?.text, "bad value `x` for retry.attempts, expected a whole number from 1 to 1000")
        two.command("set nope 1")
        XCTAssertEqual(
            two.model.message?.text,
            "unknown setting `nope`, expected one of: latency, latency.jitter, timeout, seed")
        for value in ["maybe", "true"] {
            two.command("set requireConsent " + value)
            XCTAssertEqual(
                two.model.message?.text,
                "set skipped on android, ios: setting 'requireConsent' exists only on profiles with the consent gate",
                value)
            XCTAssertEqual(two.model.message?.isError, true)
        }
        two.command("set retry.attempts 3")
        XCTAssertEqual(
            two.model.message?.text,
            ":set retry.attempts 3; set skipped on android: setting 'retry.attempts' exists only on profiles that retry"
        )
        XCTAssertEqual(two.model.columns[1].settings.retryAttempts, 3)
    }

    let three: [Profile] = [.ios, .android, .flutter]

    func test_oneKey_actsOnEveryColumn_oneRecordedLine() {
        var s = Session(compare: three)
        XCTAssertEqual(s.model.profiles, three)
        s.type("t")
        XCTAssertEqual(s.row("purchase"), ["in-flight", "in-flight", "in-flight"])
        s.wait(1000)
        XCTAssertEqual(s.row("purchase"), ["delivered", "delivered", "delivered"])
        s.type("xga")  // the chooser: 403, always
        XCTAssertEqual(s.model.columns.map(\.plan.text), ["403 always", "403 always", "403 always"])
        XCTAssertEqual(s.model.message?.text, "backend will answer 403 always")
        s.type("o")
        XCTAssertEqual(s.model.columns.map(\.online), [false, false, false])
        s.type("o")
        s.type("t")
        s.wait(1000)
        // The same 403, three ways: iOS and Flutter drop it, Android keeps it (AND-4).
        XCTAssertEqual(s.row("purchase", 2), ["dropped", "queued", "dropped"])
        XCTAssertEqual(s.model.match.rows.map { $0.differs(in: s.model.columns) }, [false, true])
        XCTAssertEqual(s.model.compareCounts.differ, 1)
        // Every column on one clock.
        XCTAssertEqual(Set(s.model.columns.map(\.now)), [s.model.sim.now])
        XCTAssertEqual(
            s.model.recorded,
            [
                "at 0 launch", "at 0 track purchase value=49.99 currency=USD", "at 1s server 403 always",
                "at 1s network offline", "at 1s network online", "at 1s track purchase value=49.99 currency=USD",
            ])
        // Space pauses all: one clock.
        s.type(" ")
        XCTAssertTrue(s.model.paused)
    }

    /// One meaning of "differs" (issue 22, newcomer 2.3): offline, iOS keeps
    /// the purchase without an attempt (IOS-5) while Android and Flutter spend
    /// one: all three are queued, yet they differ, on the live screen as in
    /// `outbox compare` of the session's recording.
    func test_aRowDiffersOnAttempts_liveAsHeadless() throws {
        var s = Session(compare: three, width: 160, height: 45)
        s.type("t")
        s.wait(1000)
        s.type("o")
        s.type("t")
        s.wait(3000)
        XCTAssertEqual(s.row("purchase", 2), ["queued", "queued", "queued"])
        let second = s.model.match.rows[1]
        XCTAssertEqual(second.ids.enumerated().map { s.model.columns[$0].request($1!).attempts }, [0, 1, 1])
        XCTAssertEqual(s.model.match.rows.map { $0.differs(in: s.model.columns) }, [false, true])
        XCTAssertEqual(s.model.compareCounts.differ, 1)
        XCTAssertEqual(s.model.compareCounts, CompareCounts.counted(s.model.columns, s.model.match))
        let text = s.screen().text
        XCTAssertTrue(text.contains(" 1 differ "), text)
        let marked = text.split(separator: "\n").filter { $0.hasPrefix("≠") }
        XCTAssertEqual(marked.count, 1, text)
        XCTAssertTrue(marked.first?.contains("queued     0/4") ?? false, text)

        // The recording, played headless: the same row is the one marked.
        let dir = NSTemporaryDirectory() + "compare-differs-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/cmp.outbox"
        try ("profile ios\ncompare ios,android,flutter\n" + s.model.recorded.joined(separator: "\n") + "\n")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let console = Console.capturing()
        XCTAssertEqual(CLI.main(["compare", "--width", "160", file], console: console), 0, console.err)
        let bang = console.out.split(separator: "\n").filter { $0.hasPrefix("! ") }
        XCTAssertEqual(bang.map { String($0.prefix(15)) }, ["! purchase (2) "], console.out)
    }

    func test_anActionAProfileLacks_isSkippedThere_withANote() {
        var s = Session(compare: [.linktrail, .ios, .android])
        s.type("p")
        XCTAssertEqual(s.row("ping"), ["—", "in-flight", "in-flight"])
        XCTAssertEqual(
            s.model.message?.text, "ping skipped on linktrail: LinkTrail attribution SDK has no ping requests")
        XCTAssertEqual(s.model.message?.isError, false)
        XCTAssertTrue(
            s.screen().text.contains(" ping skipped on linktrail: LinkTrail attribution SDK has no ping"),
            s.screen().text)
        s.type("g")
        XCTAssertTrue(
            s.model.message!.text.hasPrefix(
                "getinstance skipped on linktrail, ios: LinkTrail attribution SDK has no getInstance() call"),
            s.model.message!.text)
        s.type("c")  // consent: LinkTrail's column only
        XCTAssertEqual(s.model.columns.map(\.consent), [.granted, .undecided, .undecided])
        XCTAssertTrue(
            s.model.message!.text.hasPrefix(
                "consent skipped on ios, android: Positive User (UserCom) SDK on iOS has no consent gate"))
        s.command("set requireConsent false")
        XCTAssertEqual(
            s.model.message?.text,
            ":set requireConsent false; set skipped on ios, android: setting 'requireConsent' exists only on profiles with the consent gate"
        )
        s.command("set latency 300ms")
        XCTAssertEqual(s.model.columns.map(\.settings.latency), [300, 300, 300])
        XCTAssertEqual(s.model.message?.text, ":set latency 300ms")
        // Refused on one column for another reason: no column changes.
        s.command("set retry.attempts 0")
        XCTAssertEqual(s.model.message?.isError, true)
        XCTAssertEqual(
            s.model.message?.text, "bad value `0` for retry.attempts, expected a whole number from 1 to 1000")
        XCTAssertEqual(s.model.columns.map(\.settings.retryAttempts), [3, 4, 0])
        let lines = s.model.recorded.count
        // No column has it: an error, nothing recorded.
        var two = Session(compare: [.ios, .flutter])
        two.type("g")
        XCTAssertEqual(two.model.message?.isError, true)
        XCTAssertEqual(two.model.recorded, ["at 0 launch"])
        two.type("c")
        XCTAssertEqual(
            two.model.message?.text, "`c` needs the consent gate; ios, flutter have none (? lists the keys here)")
        XCTAssertEqual(s.model.recorded.count, lines)
    }

    /// The recorded lines, replayed by `outbox run` on each column's profile with
    /// the lines it skipped left out, give each column's timeline exactly.
    func test_eachColumn_isWhatRunGivesForItsProfile() {
        var s = Session(compare: [.linktrail, .ios, .android, .flutter])
        for (i, k) in ["c", "t", "p", "xd3", "t", "o", "t", "g", "o", "T", "L", "t", "xga", "t"].enumerated() {
            s.type(k)
            s.wait(Millis(211 * (i + 1) + 700))
            // The counts kept from the journals are the counts of every row, recounted.
            XCTAssertEqual(s.model.compareCounts, CompareCounts.counted(s.model.columns, s.model.match), "after \(k)")
        }
        XCTAssertGreaterThan(s.model.compareCounts.differ, 3)
        s.command("set retry.attempts 2")
        s.command("track \"big order\" value=12.5 currency=EUR")
        s.wait(60_000)
        let end = s.model.sim.now
        let writer = TimelineWriter(format: .jsonl)
        for sim in s.model.columns {
            let p = sim.profile
            let kept = s.model.recorded.filter { line in
                guard case .success(let lexed) = LineLexer.words(line),
                    case .success(let a)? = ActionSyntax.parse(Array(lexed.words.dropFirst(2)))
                else {
                    XCTFail("the recorded line does not read back: " + line)
                    return false
                }
                if case .settingChanged(let c) = a {
                    return c.setting.key.exists(on: p)
                }
                return a.missing(on: p) == nil
            }
            let text = "profile \(p.rawValue)\n" + kept.joined(separator: "\n") + "\n"
            guard case .success(let sc) = Scenario.parse(text, file: "rec.outbox") else {
                return XCTFail("does not parse:\n" + text)
            }
            var runner = ScenarioRunner(sc)
            runner.run()
            let ui = sim.journal.filter { $0.time <= end }.map { writer.line($0, in: sim) }
            let replay = runner.sim.journal.filter { $0.time <= end }.map { writer.line($0, in: runner.sim) }
            XCTAssertGreaterThan(ui.count, 30)
            let first = (0..<min(ui.count, replay.count)).first { ui[$0] != replay[$0] } ?? min(ui.count, replay.count)
            XCTAssertEqual(
                ui.count, replay.count, "\(p.rawValue): replay has \(replay.count) lines, the column \(ui.count)")
            XCTAssertTrue(
                ui == replay,
                "\(p.rawValue) differs from its replay at line \(first + 1):\n  column: "
                    + (first < ui.count ? ui[first] : "<none>") + "\n  replay: "
                    + (first < replay.count ? replay[first] : "<none>") + "\n" + text)
        }
    }

    /// What `--record` writes in a compare, played by `outbox compare`'s own
    /// parser for each column's profile, gives each column's timeline exactly;
    /// and `outbox compare REC` takes its columns from the recording's `compare` line.
    func test_theRecording_replaysToTheSameColumns_withOutboxCompare() throws {
        var s = Session(compare: [.android, .linktrail, .flutter, .ios])
        for (i, k) in ["t", "c", "p", "xd3", "t", "o", "t", "g", "o", "L", "t", "xga", "t"].enumerated() {
            s.type(k)
            s.wait(Millis(173 * (i + 1) + 900))
        }
        s.command("set retry.attempts 2")
        s.command("track \"big order\" value=12.5 currency=EUR")
        s.wait(90_000)
        let end = s.model.sim.now
        let text = s.model.recording(seed: 7, version: "test", path: "rec\nat 0 quit.outbox")
        XCTAssertTrue(
            text.hasPrefix(
                "# recorded by outbox test\n# replay: outbox compare rec\\nat 0 quit.outbox\nprofile android\ncompare android,linktrail,flutter,ios\nset seed 7\nat 0 launch\n"
            ), text)
        let writer = TimelineWriter(format: .jsonl)
        for sim in s.model.columns {
            guard case .success(let sc) = Scenario.parse(text, file: "rec.outbox", playing: sim.profile) else {
                return XCTFail("the recording does not parse for \(sim.profile.rawValue):\n" + text)
            }
            XCTAssertEqual(sc.compareProfiles, [.android, .linktrail, .flutter, .ios])
            XCTAssertEqual(sc.settings.seed, 7)
            var runner = ScenarioRunner(sc)
            runner.run()
            // The session ran on seed 1; the seed only names LinkTrail's idempotency keys.
            let strip = { (line: String) in
                line.replacingOccurrences(of: #""key":"[0-9a-f]+""#, with: "", options: .regularExpression)
            }
            let ui = sim.journal.filter { $0.time <= end }.map { strip(writer.line($0, in: sim)) }
            let replay = runner.sim.journal.filter { $0.time <= end }.map { strip(writer.line($0, in: runner.sim)) }
            XCTAssertGreaterThan(ui.count, 20, sim.profile.rawValue)
            XCTAssertEqual(ui, replay, "\(sim.profile.rawValue): the column and its replay differ\n" + text)
        }
        // The command itself, on the file as written.
        let path = NSTemporaryDirectory() + "outbox-compare-rec-\(getpid()).outbox"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let console = Console.capturing()
        let status = CLI.main(["compare", path, "--width", "120"], console: console)
        XCTAssertEqual(status, 0, console.err + console.out)
        XCTAssertTrue(console.out.hasPrefix("== \(path): android, linktrail, flutter, ios\n"), console.out)
        XCTAssertTrue(console.out.contains("`at 1.073s consent grant` on android, flutter, ios"), console.out)
    }

    func test_compareOff_keepsTheFirstColumn_andItsRecording() {
        var s = Session(compare: [.ios, .android])
        s.type("t")
        s.wait(500)
        s.type("g")  // Android only: recorded, but not the first column's
        s.type("t")
        s.wait(500)
        let first = s.model.sim
        s.command("compare off")
        XCTAssertFalse(s.model.isComparing)
        XCTAssertEqual(s.model.sim.profile, .ios)
        XCTAssertEqual(s.model.sim.now, first.now)
        XCTAssertEqual(s.model.sim.requests.count, 2)
        XCTAssertEqual(s.model.sim.journal.count, first.journal.count)
        XCTAssertEqual(s.model.selected, 2)
        XCTAssertEqual(
            s.model.recorded,
            [
                "at 0 launch", "at 0 track purchase value=49.99 currency=USD",
                "at 500ms track purchase value=49.99 currency=USD",
            ])
        XCTAssertTrue(s.screen().text.hasPrefix(" OUTBOX ios │"), s.screen().text)
        s.type("t")
        XCTAssertEqual(s.model.sim.requests.count, 3)
        s.command("compare off")
        XCTAssertEqual(s.model.message?.text, "not comparing: one column already")
    }

    func test_compareCommand_badInput_andProfileSwitchWhileComparing() {
        var s = Session(compare: three)
        for (cmd, want) in [
            ("compare ios", ":compare needs 2 to 4 profiles, comma-separated, e.g. ios,android,flutter"),
            (
                "compare ios,nokia",
                ":compare has an unknown profile `nokia`, expected linktrail, ios, android, flutter or " + ProfileResolver.realSDKs
            ),
            ("compare ios,ios", ":compare names ios twice; each profile once"),
            ("compare", "expected :compare P,P,... (2 to 4 of linktrail, ios, android, flutter) or :compare off"),
            ("profile android", ":profile shows one column; :compare off first (keeps ios), or :compare P,P,..."),
        ] {
            s.command(cmd)
            XCTAssertEqual(s.model.message?.text, want, cmd)
            XCTAssertEqual(s.model.message?.isError, true, cmd)
        }
        var t = s
        t.press(.char(":"))
        t.type("compare android,linktrail")
        XCTAssertEqual(t.press(.enter), .startCompare([.android, .linktrail]))
        var one = Session(.ios)
        one.press(.char(":"))
        one.type("compare flutter,ios")
        XCTAssertEqual(one.press(.enter), .startCompare([.flutter, .ios]))
    }

    func test_selection_isOneRowInEveryColumn_enterEnlargesTheDetail() {
        var s = Session(compare: three, width: 120, height: 40)
        s.type("t")
        s.wait(1000)
        s.type("xga")
        s.type("t")
        s.wait(1000)
        XCTAssertEqual(s.model.selectedMatchRow, 1)
        s.type("k")
        XCTAssertEqual(s.model.selectedMatchRow, 0)
        s.type("j")
        // Every column's story fits the detail already: Enter says so instead of
        // adding blank rows (issue 22, newcomer 2.10).
        s.press(.enter)
        XCTAssertFalse(s.model.detailExpanded)
        XCTAssertEqual(s.model.message?.text, "the detail shows every column's whole story already")
        let big = s.screen().text
        // The detail of every column, side by side, each with its rule.
        let detail = big.split(separator: "\n").first { $0.contains(" 00:01.2 dropped ") }.map(String.init) ?? ""
        XCTAssertTrue(detail.contains("dropped IOS-3 403 rejected"), big)
        XCTAssertTrue(detail.contains("queued AND-4 403"), big)
        XCTAssertTrue(detail.contains("dropped FL-3 403 rejected"), big)
        // The tabs filter rows where any column is in that state.
        s.type("]]]]")  // queued
        XCTAssertEqual(s.model.tab, .queued)
        XCTAssertEqual(s.model.rowCount, 1)
        s.type("]")  // delivered
        XCTAssertEqual(s.model.rowCount, 1)
        s.type("/")
        s.type("nothing")
        s.press(.enter)
        XCTAssertEqual(s.model.rowCount, 0)
    }

    /// The detail's clock dropped the hours (`00:02.2` for 1:00:02.2): past the
    /// first hour it shows them (issue 22, word leftovers).
    func test_detailClock_showsTheHours_pastTheFirstHour() {
        var s = Session(compare: [.ios, .android], width: 120, height: 30)
        s.type("t")
        s.wait(3_600_000)
        s.type("t")
        s.wait(1000)
        s.type("j")
        XCTAssertEqual(s.model.selectedMatchRow, 1)
        let lines = s.screen().text.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0).replacingOccurrences(of: " +$", with: "", options: .regularExpression)
        }
        // The detail of the second purchase, made an hour in: each clock with its hour.
        let detail = lines.drop { !$0.hasPrefix("─ purchase (2) ─ ios ") }.prefix(6)
        XCTAssertEqual(
            Array(detail.dropFirst(3)),
            [
                " 01:00:00.0 pending IOS-1                                  │ 01:00:00.0 pending AND-1",
                " 01:00:00.0 in-flight IOS-2                                │ 01:00:00.0 in-flight AND-1",
                " 01:00:00.2 delivered IOS-3 200                            │ 01:00:00.2 delivered AND-1 200",
            ], lines.joined(separator: "\n"))
        // The first purchase, in the first hour: minutes, seconds and tenths.
        s.type("k")
        let first = s.screen().text.split(separator: "\n").map {
            String($0).replacingOccurrences(of: " +$", with: "", options: .regularExpression)
        }
        XCTAssertTrue(
            first.contains(" 00:00.2 delivered IOS-3 200                               │ 00:00.2 delivered AND-1 200"),
            first.joined(separator: "\n"))
        XCTAssertEqual(AppView.detailClock(62_500), "01:02.5")
        XCTAssertEqual(AppView.detailClock(3_602_500), "01:00:02.5")
        XCTAssertEqual(AppView.detailClock(3_599_999), "59:59.9")
    }

    // MARK: Whole screens

    /// The screens of the issue: after `t`, then `:server 403 always`, `t` and
    /// time passing. The differing row is marked; every column shows name,
    /// state and attempts, at 80×24 (short) and 160×45 (with timelines).
    func compareStory(width: Int, height: Int) -> Session {
        var s = Session(compare: three, width: width, height: height)
        s.wait(1400)
        s.type("t")
        s.wait(1400)
        s.command("server 403 always")
        s.wait(600)
        s.type("t")
        s.wait(2500)
        return s
    }

    func test_screen_80x24_threeColumns() {
        let s = compareStory(width: 80, height: 24)
        let text = s.screen().text
        assertSnapshot(text, "compare-80x24")
        assertSnapshot(s.screen(glyphs: .ascii).text, "compare-80x24-ascii")
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("   purchase  │delivered 1/4        │delivered 1          │delivered 1"), text)
        XCTAssertTrue(lines.contains("≠  purchase  │dropped   1/4        │queued    1          │dropped   1"), text)
        XCTAssertTrue(s.screen(glyphs: .ascii).text.contains("!= purchase  |dropped   1/4"))
    }

    func test_screen_160x45_threeColumnsWithTimelines() {
        let s = compareStory(width: 160, height: 45)
        let text = s.screen().text
        assertSnapshot(text, "compare-160x45")
        XCTAssertTrue(text.contains("1 differ"), text)
        let marked = text.split(separator: "\n").filter { $0.hasPrefix("≠") }
        XCTAssertEqual(marked.count, 1, text)
        XCTAssertTrue(marked[0].contains("dropped    1/4") && marked[0].contains("IOS-3"), String(marked[0]))
        XCTAssertTrue(marked[0].contains("queued     1") && marked[0].contains("AND-4"), String(marked[0]))
        XCTAssertTrue(marked[0].contains("✗"), String(marked[0]))  // the timeline's failed answer
    }

    /// Four columns at 80 still show name, state (short words) and attempts.
    func test_screen_80x24_fourColumns_shortStates() {
        var s = Session(compare: [.linktrail, .ios, .android, .flutter])
        s.type("c")
        s.wait(1000)
        s.type("t")
        s.wait(1000)
        let text = s.screen().text
        assertSnapshot(text, "compare-four-80x24")
        let lines = text.split(separator: "\n")
        XCTAssertTrue(lines.contains("   name      │linktrail      │ios            │android        │flutter"), text)
        XCTAssertTrue(lines.contains("≠  install   │deliv 1/3      │—              │—              │—"), text)
        XCTAssertTrue(lines.contains("   purchase  │deliv 1/3      │deliv 1/4      │deliv 1        │deliv 1"), text)
    }

    /// The smallest screen with four columns: each still shows state and attempts
    /// inside its own column; every size draws without a crash.
    func test_smallestScreen_fourColumns_staysInsideColumns() {
        var s = Session(compare: [.linktrail, .ios, .android, .flutter], width: 60, height: 15)
        s.type("c")
        s.command("set retry.attempts 10")
        s.type("xdat")
        s.wait(3000)
        let text = s.screen().text
        assertSnapshot(text, "compare-four-60x15")
        let row = text.split(separator: "\n").first { $0.contains("purchase") }.map(String.init) ?? ""
        XCTAssertEqual(
            row.split(separator: "│").map { $0.trimmingCharacters(in: .whitespaces) },
            ["≠  purchase", "retry 2/10", "retry 1/10", "queue 1", "drop  1"], text)
        for (w, h) in [(0, 0), (59, 14), (60, 15), (61, 16), (80, 24), (160, 45), (400, 120)] {
            for keys in ["", "?", "x", ":", "/", "\r"] {
                var t = s
                t.type(keys)
                XCTAssertEqual(t.screen(w, h).lines.count, h)
            }
        }
    }

    func test_helpAndKeysDoc_listCompare() {
        let help = KeyMap.helpLines().map { $0.keys + " " + $0.help }.joined(separator: "\n")
        XCTAssertTrue(help.contains("--compare P,P,...: 2 to 4 profiles side by side"), help)
        XCTAssertTrue(help.contains(":compare off"), help)
        XCTAssertTrue(KeyMap.markdown.contains("`--compare P,P,...`"))
    }
}
