import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

/// `E`: the live screen's state pinned as `expect` lines in the recording
/// (issue 15, item 2); `outbox run` on the recording passes.
final class PinTests: XCTestCase {
    /// The recording as `--record` writes it, and the run of it.
    func replay(_ m: AppModel) throws -> (text: String, runner: ScenarioRunner) {
        let text = m.recording(seed: 1, version: "test", path: "rec.outbox")
        var r = ScenarioRunner(try Scenario.parse(text, file: "rec.outbox").get())
        r.run()
        return (text, r)
    }

    /// The recording's `expect` lines.
    func expects(_ m: AppModel) -> [String] { m.recorded.filter { $0.hasPrefix("expect ") } }

    func recording(_ profile: Profile, settings: [(String, String)] = []) -> Session {
        var s = Session(profile, settings: settings)
        s.model.isRecording = true
        return s
    }

    /// One name in every state a request can end a session in, plus another
    /// name, pinned twice: the whole list of lines, and the replay holds them.
    func test_pin_mixedStatesOfOneName_requestChecks_andTheReplayPasses() throws {
        var s = recording(.ios)
        s.command("set retry.attempts 2")
        s.type("t")  // #1 delivered
        s.wait(500)
        s.command("server 400")
        s.type("t")  // #2 rejected
        s.wait(500)
        s.command("server 503 always")
        s.type("t")  // #3 retries, then exhausted
        s.wait(300)
        s.command("track signup")  // #4 retrying beside #3
        s.wait(700)
        s.type("E")
        XCTAssertEqual(s.model.message?.text, "pinned 13 expect lines at 2s in the recording")
        XCTAssertEqual(s.model.message?.isError, false)
        s.wait(60_000)  // #3 and #4 run out of attempts
        s.type("o")
        s.type("t")  // #5 queued, saved
        s.wait(1000)
        s.type("E")
        XCTAssertEqual(
            s.model.recorded,
            [
                "at 0 launch",
                "at 0 set retry.attempts 2",
                "at 0 track purchase value=49.99 currency=USD",
                "at 500ms server 400 x1",
                "at 500ms track purchase value=49.99 currency=USD",
                "at 1s server 503 always",
                "at 1s track purchase value=49.99 currency=USD",
                "at 1.3s track signup",
                "# E at 00:00:02.000: the state pinned",
                "expect at 2s request 1 delivered",
                "expect at 2s request 2 dropped rejected",
                "expect at 2s request 3 retrying",
                "expect at 2s attempts purchase 1",
                "expect at 2s received purchase 3",
                "expect at 2s counted purchase 1",
                "expect at 2s state signup retrying",
                "expect at 2s attempts signup 1",
                "expect at 2s received signup 1",
                "expect at 2s counted signup 0",
                "expect at 2s completion signup none",
                "expect at 2s revenue USD 49.99",
                "expect at 2s saved 2",
                "at 62s network offline",
                "at 62s track purchase value=49.99 currency=USD",
                "# E at 00:01:03.000: the state pinned",
                "expect at 63s request 1 delivered",
                "expect at 63s request 2 dropped rejected",
                "expect at 63s request 3 dropped exhausted",
                "expect at 63s request 5 queued",
                "expect at 63s request 1 attempts 1",
                "expect at 63s request 2 attempts 1",
                "expect at 63s request 3 attempts 2",
                "expect at 63s request 5 attempts 0",
                "expect at 63s received purchase 4",
                "expect at 63s counted purchase 1",
                "expect at 63s dropped signup exhausted",
                "expect at 63s attempts signup 2",
                "expect at 63s received signup 2",
                "expect at 63s counted signup 0",
                "expect at 63s completion signup false",
                "expect at 63s revenue USD 49.99",
                "expect at 63s saved 1",
            ])
        let (text, r) = try replay(s.model)
        XCTAssertEqual(r.failures.map { "\($0.line): \($0.text): \($0.found)" }, [], text)
        XCTAssertEqual(r.checkCount, expects(s.model).count)
    }
}

extension PinTests {
    /// On every profile, pins where timers fall due: at the very instant a
    /// retry or an answer is due (ORDER: the expect sees the instant after its
    /// timers and lines), with attempts on the wire, and between. The replay
    /// counts every pinned line and finds each holding.
    func test_pin_atTimerInstantsAndMidFlight_onEveryProfile_replayHolds() throws {
        for profile in Profile.allCases {
            var s = recording(profile)
            let keys: [String] =
                profile == .linktrail
                ? ["c", "t", "xd3", "t", "o", "t", "o", "T", "L", "t"]
                : ["t", "p", "xd3", "s", "o", "r", "o", "n", "L", "u", profile == .android ? "g" : "t"]
            var pins = 0
            for (i, k) in keys.enumerated() {
                s.type(k)
                // In flight: the attempt just sent.
                s.wait(Millis(40 + i))
                s.type("E")
                XCTAssertEqual(
                    s.model.message?.text.hasPrefix("pinned"), true,
                    "\(profile.rawValue) after \(k): \(s.model.message?.text ?? "")")
                pins += 1
                // At the instant the next timer is due, then just after it.
                for _ in 0..<3 {
                    guard let due = s.model.sim.nextDueTime() else { break }
                    s.model.tick(to: due)
                    s.type("E")
                    s.wait(1)
                    s.type("E")
                    pins += 2
                }
            }
            XCTAssertEqual(s.model.recorded.filter { $0.hasPrefix("# E at") }.count, pins)
            let (text, r) = try replay(s.model)
            XCTAssertEqual(
                r.failures.map { "\($0.line): \($0.text): \($0.found)" }, [], "\(profile.rawValue)\n" + text)
            XCTAssertEqual(r.checkCount, expects(s.model).count, profile.rawValue)
            XCTAssertGreaterThan(r.checkCount, 100, profile.rawValue)
        }
    }

    /// An action after `E` in the same instant (the clock paused) would come
    /// before the pinned lines in the replay (ORDER: an instant's checks see
    /// all its lines): the clock moves 1 ms first, and the replay holds.
    func test_pin_thenActInTheSameInstant_movesTheClockOneMillisecond() throws {
        var s = recording(.flutter)
        s.type("t")
        s.wait(1000)
        s.type(" ")
        XCTAssertTrue(s.model.paused)
        s.type("E")
        s.type("E")  // twice in one instant: the same lines again, no move
        s.type("t")
        s.type("E")
        XCTAssertTrue(s.model.paused)
        XCTAssertEqual(s.model.sim.now, 1001)
        XCTAssertEqual(
            s.model.recorded.filter { !$0.hasPrefix("expect") },
            [
                "at 0 launch", "at 0 track purchase value=49.99 currency=USD", "# E at 00:00:01.000: the state pinned",
                "# E at 00:00:01.000: the state pinned", "at 1.001s track purchase value=49.99 currency=USD",
                "# E at 00:00:01.001: the state pinned",
            ])
        XCTAssertEqual(
            expects(s.model).filter { $0.contains("purchase") || $0.contains("request") },
            [
                "expect at 1s state purchase delivered", "expect at 1s attempts purchase 1",
                "expect at 1s received purchase 1", "expect at 1s counted purchase 1",
                "expect at 1s state purchase delivered", "expect at 1s attempts purchase 1",
                "expect at 1s received purchase 1", "expect at 1s counted purchase 1",
                "expect at 1.001s request 1 delivered", "expect at 1.001s request 2 in-flight",
                "expect at 1.001s attempts purchase 1",
                "expect at 1.001s received purchase 1", "expect at 1.001s counted purchase 1",
            ])
        let (text, r) = try replay(s.model)
        XCTAssertEqual(r.failures.map { "\($0.line): \($0.text): \($0.found)" }, [], text)
        XCTAssertEqual(r.checkCount, expects(s.model).count)
    }

    func test_pin_withoutARecording_saysSo_writesNothing() {
        var s = Session(.ios)
        s.type("tE")
        XCTAssertEqual(
            s.model.message?.text,
            "E pins the state into a recording, expected outbox --record FILE")
        XCTAssertEqual(s.model.message?.isError, true)
        XCTAssertEqual(s.model.recorded, ["at 0 launch", "at 0 track purchase value=49.99 currency=USD"])
    }

    /// Comparing, each column is pinned `expect on` its profile with its own
    /// request ids (LinkTrail's install is its #1); `outbox compare` plays the
    /// file once per profile and each holds.
    func test_pin_whileComparing_eachColumnOnItsProfile() throws {
        var m = AppModel(compare: [Profile.linktrail, .ios].map { Simulation(profile: $0) })
        m.isRecording = true
        m.perform(.appLaunched)
        _ = m.handle(.char("t"))
        m.tick(to: 2000)
        _ = m.handle(.char("E"))
        // LinkTrail's consent is undecided: its install waits, the event is dropped (LT-3).
        XCTAssertEqual(m.message?.text, "pinned 16 expect lines at 2s in the recording")
        let text = m.recording(seed: 1, version: "t", path: "c.outbox")
        XCTAssertEqual(
            m.recorded,
            [
                "at 0 launch",
                "at 0 track purchase value=49.99 currency=USD",
                "# E at 00:00:02.000: the state pinned",
                "expect on linktrail at 2s state install pending",
                "expect on linktrail at 2s attempts install 0",
                "expect on linktrail at 2s received install 0",
                "expect on linktrail at 2s counted install 0",
                "expect on linktrail at 2s dropped purchase consent",
                "expect on linktrail at 2s attempts purchase 0",
                "expect on linktrail at 2s received purchase 0",
                "expect on linktrail at 2s counted purchase 0",
                "expect on linktrail at 2s saved 1",
                "expect on ios at 2s state purchase delivered",
                "expect on ios at 2s attempts purchase 1",
                "expect on ios at 2s received purchase 1",
                "expect on ios at 2s counted purchase 1",
                "expect on ios at 2s completion purchase true",
                "expect on ios at 2s revenue USD 49.99",
                "expect on ios at 2s saved 0",
            ])
        for p in [Profile.linktrail, .ios] {
            var r = ScenarioRunner(try Scenario.parse(text, file: "c.outbox", playing: p).get())
            r.run()
            XCTAssertEqual(r.failures.map { "\($0.line): \($0.text): \($0.found)" }, [], text)
            XCTAssertEqual(r.checkCount, p == .ios ? 7 : 9)
        }
    }
}

extension PinTests {
    /// Names with spaces, `#`, quotes and control characters are written as
    /// `ActionSyntax.word` writes them, and read back to the same names.
    func test_pin_quotedNames_readBackTheSame() throws {
        var s = recording(.flutter)
        s.command(#"track "two words # not a comment""#)
        s.command(#"track "say \"hi\"\tthen\x1b""#)
        s.wait(500)
        s.type("E")
        XCTAssertEqual(
            expects(s.model),
            [
                #"expect at 500ms state "two words # not a comment" delivered"#,
                #"expect at 500ms attempts "two words # not a comment" 1"#,
                #"expect at 500ms received "two words # not a comment" 1"#,
                #"expect at 500ms counted "two words # not a comment" 1"#,
                #"expect at 500ms state "say \"hi\"\tthen\x1b" delivered"#,
                #"expect at 500ms attempts "say \"hi\"\tthen\x1b" 1"#,
                #"expect at 500ms received "say \"hi\"\tthen\x1b" 1"#,
                #"expect at 500ms counted "say \"hi\"\tthen\x1b" 1"#,
                "expect at 500ms saved 0",
            ])
        let (text, r) = try replay(s.model)
        XCTAssertEqual(r.failures.map { "\($0.line): \($0.text): \($0.found)" }, [], text)
        XCTAssertEqual(r.checkCount, 9)
    }
}
