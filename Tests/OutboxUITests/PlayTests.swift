import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxUI

/// Part 6 of issue 12: a scenario file played on the live screen ends where
/// `outbox run FILE` ends; its lines run as the clock passes them, `.` steps
/// from moment to moment, breakpoints and speeds apply, `expect` lines show.
final class PlayTests: XCTestCase {
    static let examples = [
        "ios-retry-ladder", "linktrail-consent-purge", "android-403-loop", "flutter-5xx-vs-network", "ios-logout",
        "ios-offline", "ios-quit-relaunch", "linktrail-lost-response", "linktrail-offline-qa", "linktrail-one-flush",
        "linktrail-quit-relaunch", "linktrail-rejected-partial", "ios-flaky-backend",
    ]

    func scenario(_ name: String) throws -> Scenario {
        let path = packageRoot + "/examples/\(name).outbox"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard case .success(let sc) = Scenario.parse(text, file: "examples/\(name).outbox") else {
            throw XCTSkip("examples/\(name).outbox does not parse")
        }
        return sc
    }

    /// What `outbox run FILE` ends with: the runner's journal, as JSONL lines,
    /// and its checks.
    func run(_ sc: Scenario) -> (journal: [String], checks: [String], sim: Simulation) {
        var runner = ScenarioRunner(sc)
        runner.run()
        return (lines(runner.sim), runner.results.map(checkText), runner.sim)
    }

    func lines(_ sim: Simulation) -> [String] { journalLines(sim, format: .jsonl) }

    func checkText(_ r: CheckResult) -> String { "\(r.line) \(r.time) \(r.text) \(r.ok) \(r.found)" }

    /// A screen playing `sc`, at 80×24.
    func session(_ sc: Scenario) -> Session {
        var s = Session(.linktrail)
        s.model = AppModel(playing: sc)
        s.model.layOut()
        return s
    }

    /// Every example, played on the screen at 3600× in 33 ms frames (space, then
    /// wall time), ends with the journal, the checks, the counts and the backend
    /// of `outbox run FILE`; the clock pauses at its end.
    func test_play_endsWhereOutboxRunEnds_everyExample() throws {
        for name in PlayTests.examples {
            let sc = try scenario(name)
            var s = session(sc)
            XCTAssertTrue(s.model.paused, name)
            XCTAssertEqual(s.model.pauseWhy, "play ready")
            for _ in 0..<6 { s.type("+") }
            s.type(" ")
            var frames = 0
            while s.model.isPlaying && frames < 100_000 {
                s.passWall(33)
                frames += 1
            }
            let want = run(sc)
            XCTAssertFalse(s.model.isPlaying, name)
            XCTAssertEqual(lines(s.model.sim), want.journal, name)
            XCTAssertEqual(s.model.player!.results.map(checkText), want.checks, name)
            XCTAssertEqual(s.model.sim.counts, want.sim.counts, name)
            XCTAssertEqual(s.model.sim.savedCount, want.sim.savedCount, name)
            XCTAssertEqual(s.model.sim.backend.received, want.sim.backend.received, name)
            XCTAssertEqual(s.model.sim.backend.counted, want.sim.backend.counted, name)
            XCTAssertEqual(s.model.sim.now, want.sim.now, "\(name): the clock stops at the play's last instant")
            XCTAssertTrue(s.model.paused, name)
            XCTAssertEqual(s.model.pauseWhy, "end of play", name)
            XCTAssertEqual(
                s.model.message?.text,
                "played to the end: \(want.checks.count) passed, 0 failed, as outbox run ends; space goes on live",
                name)
            // Going on after the end is a live session: time passes, nothing is replayed.
            s.type(" ")
            s.passWall(1000)
            XCTAssertEqual(lines(s.model.sim), want.journal, name)
        }
    }

    /// `.` steps from moment to moment (a line's time or a timer's) and ends in
    /// the same place; at 1× with breakpoints that stop it again and again, too.
    func test_play_byStepsAndThroughBreakpoints_endsWhereOutboxRunEnds() throws {
        for name in ["ios-retry-ladder", "linktrail-consent-purge", "linktrail-offline-qa"] {
            let sc = try scenario(name)
            let want = run(sc)
            var stepped = session(sc)
            var times: [Millis] = []
            for _ in 0..<1000 where stepped.model.isPlaying {
                stepped.type(".")
                times.append(stepped.model.sim.now)
            }
            XCTAssertEqual(lines(stepped.model.sim), want.journal, name)
            XCTAssertEqual(stepped.model.player!.results.map(checkText), want.checks, name)
            XCTAssertEqual(times, times.sorted(), name)
            XCTAssertEqual(Set(times).count, times.count, "\(name): each step is a new instant")

            var broken = session(sc)
            broken.command("break in-flight")
            broken.command("break dropped")
            broken.type(" ")
            var stops = 0
            for _ in 0..<100_000 where broken.model.isPlaying {
                broken.passWall(33)
                if broken.model.paused && broken.model.isPlaying {
                    stops += 1
                    let why = broken.model.pauseWhy ?? ""
                    XCTAssertTrue(why.contains("→ in-flight (") || why.contains("→ dropped ("), why)
                    broken.type(" ")
                }
            }
            XCTAssertGreaterThan(stops, 1, name)
            XCTAssertEqual(lines(broken.model.sim), want.journal, name)
        }
    }

    /// The iOS ladder played at 1× with a breakpoint on `retrying`: the clock
    /// stops at each failed attempt's instant, the request selected, and the
    /// checks reached so far are counted in the status bar.
    func test_play_iosLadder_breakOnRetrying_statusCountsChecks() throws {
        let sc = try scenario("ios-retry-ladder")
        var s = session(sc)
        s.command("break retrying")
        s.type(" ")
        s.passWall(60_000)
        XCTAssertTrue(s.model.paused)
        XCTAssertEqual(s.model.sim.now, 200)
        XCTAssertEqual(s.model.pauseWhy, "#1 → retrying (IOS-4)")
        XCTAssertEqual(s.model.selected, 1)
        s.model.message = nil
        let status = s.statusRow()
        XCTAssertTrue(status.hasPrefix(" b break retrying . play "), status)
        s.type(" ")
        s.passWall(60_000)
        XCTAssertEqual(s.model.sim.now, 30_400, "the second attempt fails 30 s later")
        XCTAssertEqual(s.model.pauseWhy, "#1 → retrying (IOS-4)")
        let text = s.screen().text
        XCTAssertTrue(text.contains("PAUSED 1× · #1 → retrying (IOS-4)"), text)
    }

    /// `expect` lines show as they are reached: the message line, the log, a count
    /// in the status bar; a failing one is an error and is counted as failed.
    func test_play_expectLines_showWhenReached() {
        let text = """
            profile ios
            at 0 launch
            at 0 track a
            expect at 100ms received a 1
            expect at 1s state a delivered
            expect at 1s state a dropped
            """
        guard case .success(let sc) = Scenario.parse(text, file: "t.outbox") else { return XCTFail("no parse") }
        var s = session(sc)
        s.type(".")  // 0: launch, track
        XCTAssertEqual(s.model.message?.text, "stepped to 00:00:00.000: #1 → pending (IOS-1); space resumes")
        s.type(".")  // 100 ms: the attempt reaches the backend; the first check
        XCTAssertEqual(s.model.message?.text, "line 4: expect at 100ms received a 1: ok")
        XCTAssertEqual(s.model.playStatus, "play 1 ok")
        s.type(".")  // 200 ms: delivered
        s.type(".")  // 1 s: the two checks, one fails
        XCTAssertEqual(s.model.message?.isError, true)
        XCTAssertEqual(
            s.model.message?.text,
            "played to the end: 2 passed, 1 failed, as outbox run ends; space goes on live")
        XCTAssertEqual(s.model.playStatus, "play 2 ok 1 FAILED (end)")
        let screen = s.screen(100, 30).text
        XCTAssertTrue(
            screen.contains("00:00:01.000 expect line 6: expect at 1s state a dropped: FAILED, found #1 is delivered"),
            screen)
        XCTAssertTrue(screen.contains("00:00:00.100 expect line 4: expect at 100ms received a 1: ok"), screen)
        s.model.message = nil
        XCTAssertTrue(s.statusRow().hasPrefix(" . play 2 ok 1 FAILED (end) "), s.statusRow())
        assertSnapshot(s.screen().text, "play-end-80x24")
    }

    /// A file with a `compare` line opens as a compare, one column per profile of
    /// the line, each ending where `outbox compare FILE` ends it (the runs of
    /// the file parsed for that profile); every `expect on` line is reached.
    func test_play_fileWithACompareLine_opensAsACompare_endsWhereOutboxCompareEnds() throws {
        let dir = packageRoot + "/examples/differences"
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".outbox") }.sorted()
        XCTAssertGreaterThanOrEqual(files.count, 8)
        for f in files {
            // The examples compare on outbox compare's default profiles; here the file says so itself.
            var text = try String(contentsOfFile: dir + "/" + f, encoding: .utf8)
            let profileLine = text.range(of: "\nprofile ")!
            let lineEnd = text[profileLine.upperBound...].firstIndex(of: "\n")!
            text.insert(contentsOf: "\ncompare ios,android,flutter", at: lineEnd)
            let path = try write(text)
            guard case .success(let scs) = InteractiveCommand.loadScenario(path) else { return XCTFail(f) }
            guard case .success(let own) = Scenario.parse(text, file: path), let profiles = own.compareProfiles else {
                return XCTFail("\(f) has no compare line")
            }
            XCTAssertEqual(scs.map(\.profile), profiles, f)
            var s = session(scs[0])
            s.model = AppModel(playing: scs)
            s.model.layOut()
            XCTAssertEqual(s.model.profiles, profiles, f)
            XCTAssertTrue(s.model.message!.text.contains("; as outbox compare plays it"), s.model.message!.text)
            for _ in 0..<6 { s.type("+") }
            s.type(" ")
            for _ in 0..<100_000 where s.model.isPlaying { s.passWall(33) }
            var checks = 0
            for (c, p) in profiles.enumerated() {
                guard case .success(let sc) = Scenario.parse(text, file: path, playing: p) else { return XCTFail(f) }
                let want = run(sc)
                XCTAssertEqual(lines(s.model.columns[c]), want.journal, "\(f) \(p.rawValue)")
                checks += want.checks.count
            }
            XCTAssertEqual(s.model.player!.results.count, checks, f)
            XCTAssertEqual(s.model.player!.failed, 0, f)
            XCTAssertEqual(
                s.model.message?.text,
                "played to the end: \(checks) passed, 0 failed, as outbox compare ends; space goes on live", f)
            XCTAssertEqual(Set(s.model.columns.map(\.now)).count, 1, "\(f): one clock")
        }
    }

    /// A compare being played stops at a breakpoint in any column, and says which.
    func test_play_compare_breakpointNamesTheColumn() throws {
        let text = try String(
            contentsOfFile: packageRoot + "/examples/differences/firewall-403.outbox", encoding: .utf8)
        let path = try write(
            text.replacingOccurrences(of: "\nprofile ios\n", with: "\nprofile ios\ncompare android,ios\n"))
        guard case .success(let scs) = InteractiveCommand.loadScenario(path) else { return XCTFail() }
        XCTAssertEqual(scs.map(\.profile), [.android, .ios])
        var s = session(scs[0])
        s.model = AppModel(playing: scs)
        s.command("break dropped")
        s.type(" ")
        s.passWall(600_000)
        XCTAssertTrue(s.model.paused)
        XCTAssertTrue(s.model.isPlaying)
        let why = s.model.pauseWhy ?? ""
        XCTAssertTrue(why.contains(" → dropped ("), why)
        XCTAssertTrue(s.model.profiles.map(\.rawValue).contains(String(why.prefix { $0 != " " })), why)
    }

    // MARK: The command line

    func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("play-\(UUID().uuidString).outbox")
            .path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// `--play` with a bad file: `outbox run`'s messages (FILE:LINE), exit 2,
    /// before the terminal is looked at; options that do not go with it are named.
    func test_playOption_badFileOrOptions_exit2() throws {
        let bad = try write("profile ios\nat 0 launch\nat 1s fly away\n")
        var console = Console.capturing()
        XCTAssertEqual(CLI.main(["--play", bad], console: console), 2)
        XCTAssertEqual(
            console.err,
            "\(bad):3: unknown action `fly`, expected one of: launch, quit, getinstance, consent grant|deny, track, ping, screen, product, notification, logout, network online|offline|flap, server\n"
        )
        console = Console.capturing()
        XCTAssertEqual(CLI.main(["--play", "/nonexistent/x.outbox"], console: console), 2)
        XCTAssertTrue(console.err.hasPrefix("/nonexistent/x.outbox: cannot read the file: "), console.err)
        let good = try write("profile ios\nat 0 launch\n")
        for (args, why) in [
            (["--record", "/tmp/r.outbox"], "--record (the played file already replays with outbox run FILE)"),
            (["--profile", "ios"], "--profile (the file's profile line decides)"),
            (["--seed", "3"], "--seed (the file's set seed line decides)"),
            (["--state-dir", "/tmp"], "--state-dir (a play uses a device in memory, as outbox run FILE)"),
            (["--compare", "ios,android"], "--compare (outbox compare FILE plays a file on several profiles)"),
        ] {
            console = Console.capturing()
            XCTAssertEqual(CLI.main(["--play", good] + args, console: console), 2)
            XCTAssertEqual(console.err, "outbox: --play does not go with \(why)\n")
        }
        console = Console.capturing()
        XCTAssertEqual(CLI.main(["--play"], console: console), 2)
        XCTAssertTrue(console.err.hasPrefix("outbox: --play needs a value"), console.err)
        // A good file gets past the parse: here no terminal, which is the next check.
        console = Console.capturing()
        XCTAssertEqual(CLI.main(["--play", good, "--speed", "0.1"], console: console), 2)
        XCTAssertTrue(console.err.contains("the live screen needs a terminal"), console.err)
    }

    /// `:play FILE` asks the loop to load it; the loop's model keeps the speed and
    /// breakpoints; a bad file is a message on the screen; with --record it is refused.
    func test_playCommand() throws {
        var s = Session(.linktrail)
        s.type("-")
        s.command("break retrying")
        s.press(.char(":"))
        s.type("play \"my file.outbox\"")
        XCTAssertEqual(s.press(.enter), .play("my file.outbox"))
        s.command("play")
        XCTAssertEqual(s.model.message?.text, "expected :play FILE, a scenario file (quote a path with spaces)")
        let good = try write("profile ios\nat 0 launch\nat 1s track a\n")
        guard case .success(let m) = InteractiveCommand.playing(good, after: s.model, recording: false) else {
            return XCTFail("did not load")
        }
        XCTAssertEqual(m.clockSpeed.text(ascii: true), "0.25x")
        XCTAssertEqual(m.breakpoints, [.state(.retrying)])
        XCTAssertEqual(m.sim.profile, .ios)
        XCTAssertEqual(m.player?.lineCount, 2)
        let bad = try write("profile ios\nat 0 launch\nat 1s fly\nat 2s swim\n")
        guard case .failure(let p) = InteractiveCommand.playing(bad, after: s.model, recording: false) else {
            return XCTFail("loaded a bad file")
        }
        XCTAssertEqual(
            p.message,
            "\(bad):3: unknown action `fly`, expected one of: launch, quit, getinstance, consent grant|deny, track, ping, screen, product, notification, logout, network online|offline|flap, server (and 1 more: outbox run FILE lists them)"
        )
        guard case .failure(let r) = InteractiveCommand.playing(good, after: s.model, recording: true) else {
            return XCTFail("played while recording")
        }
        XCTAssertEqual(
            r.message, ":play does not go with --record: the played file already replays with outbox run FILE")
    }

    // MARK: Slow motion, replayed

    /// At ⅒× a person (a key every 0.7 s) catches a purchase on the wire and
    /// denies consent: it is dropped (consent). The recording replays to the same
    /// outcome and the same timeline with `outbox run`.
    func test_tenthSpeed_catchesARequestInFlight_purgeDropsIt_replayedRecordingAgrees() {
        var s = Session(.linktrail)
        s.type("-")
        s.passWall(700)
        s.type("-")
        s.passWall(700)
        s.type("c")  // grant: the install goes out, 2 s of wall time on the wire
        s.passWall(700)
        XCTAssertEqual(s.states("install"), ["in-flight"])
        s.passWall(2100)
        XCTAssertEqual(s.states("install"), ["delivered"])
        s.type("t")
        s.passWall(700)
        XCTAssertEqual(s.states("purchase"), ["in-flight"], "0.7 s of wall time is 70 ms: still on the wire")
        XCTAssertTrue(s.screen().text.contains("purchase  in-flight"), s.screen().text)
        s.type("c")  // deny: the purge drops it (LT-2)
        XCTAssertEqual(s.states("purchase"), ["dropped"])
        let id = s.model.sim.requests(named: "purchase")[0]
        XCTAssertEqual(s.model.sim.request(id).reason, .consent)
        XCTAssertTrue(
            s.screen().text.contains("consent denied: purged 0 from the queue · 1 in flight · 0 retrying"),
            s.screen().text)
        s.passWall(5000)
        let end = s.model.sim.now
        let text = "profile linktrail\n" + s.model.recorded.joined(separator: "\n") + "\n"
        XCTAssertEqual(
            s.model.recorded,
            [
                "at 0 launch", "at 245ms consent grant", "at 525ms track purchase value=49.99 currency=USD",
                "at 595ms consent deny",
            ])
        guard case .success(let sc) = Scenario.parse(text, file: "rec.outbox") else { return XCTFail(text) }
        var runner = ScenarioRunner(sc)
        runner.run()
        XCTAssertEqual(runner.sim.request(id).state, .dropped)
        XCTAssertEqual(runner.sim.request(id).reason, .consent)
        XCTAssertEqual(
            journalLines(s.model.sim, format: .jsonl, upTo: end), journalLines(runner.sim, format: .jsonl, upTo: end))
    }
}
