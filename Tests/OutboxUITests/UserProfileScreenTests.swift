import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

/// A fifth profile read from a file (Tests/OutboxCoreTests/Fixtures/acme.profile)
/// on the live screen: a session, a play and a compare (issue 13). The screen
/// knows the profile only through what it has: its name, rules, texts.
final class UserProfileScreenTests: XCTestCase {
    static func acme() throws -> Profile {
        let path = packageRoot + "/Tests/OutboxCoreTests/Fixtures/acme.profile"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        switch Profile.parse(text, file: "acme.profile", path: path) {
        case .success(let p): return p
        case .failure(let e):
            XCTFail(e.errors.map(\.description).joined(separator: "\n"))
            throw XCTSkip("acme.profile does not parse")
        }
    }

    func test_liveSession_showsTheProfilesNameRulesAndTexts() throws {
        var s = Session(try Self.acme())
        s.type("t")
        s.wait(1000)
        XCTAssertEqual(
            s.screen().text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
            [
                " OUTBOX acme │ 00:00:01.0 ▶ 1× │ net ● online │ backend ok │ app running",
                " all 1  pend 0  fly 0  retry 0  queue 0  deliv 1  drop 0   saved 0",
                "    # kind     name      state     att   next/last rule   │1 col = 1 s       now",
                "    1 event    purchase  delivered 1/3   200       ACME-1 │                   ●",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "─ #1 purchase────────────────────────────────────────┬─ Backend ────────────────",
                " event delivered  attempts 1 · budget 1/3 · not save…│ received 1  counted 1",
                " created 00:00:00.000 · value 49.99 USD              │ duplicates 0  rejected 0",
                " 00:00:00.300 ACME-1 in-flight → delivered  200      │ revenue 49.99 USD",
                "    Every request is saved on the device when made   │ next answer: ok",
                "    and sent at once.                                │",
                "─ Log────────────────────────────────────────────────┴──────────────────────────",
                " 00:00:00.000 app launched (launch 1)",
                " 00:00:00.300 ACME: #1 'purchase' delivered",
                "",
                " p ping o offline x backend . step / find Enter detail Tab pane ? help q quit",
            ])
        s.type("xga")  // the backend: 403, always
        s.type("t")
        s.wait(1000)
        XCTAssertEqual(s.states("purchase"), ["delivered", "dropped"])
        let screen = s.screen().text
        XCTAssertTrue(screen.contains("    2 event    purchase  dropped   1/3   rejected  ACME-3 │"), screen)
        XCTAssertTrue(screen.contains(" 00:00:01.300 ACME: #2 'purchase' rejected (403)"), screen)
        s.press(.enter)
        XCTAssertTrue(
            s.screen().text.contains(
                " 00:00:01.300 ACME-3 in-flight → dropped  403  rejected\n"
                    + "    Any other 4xx drops it (rejected); its completion says false."), s.screen().text)
    }

    /// The queue's own drop reasons (`keep`, issue 24; `expired` takes the same
    /// path) show on the screen as an answer's do: in the list and the detail.
    func test_overflow_showsAsADropReason() throws {
        let text =
            try String(contentsOfFile: packageRoot + "/Tests/OutboxCoreTests/Fixtures/acme.profile", encoding: .utf8)
            + "\nrule CAP-1 \"At most one request is kept; a new one is refused.\"\nkeep at most 1 refuse rule CAP-1\n"
        guard case .success(let p) = Profile.parse(text, file: "capped.profile") else { return XCTFail("no profile") }
        var s = Session(p)
        s.type("xda")  // the backend: 503, always
        s.type("t")
        s.type("t")
        s.wait(1000)
        XCTAssertEqual(s.states("purchase"), ["retrying", "dropped"])
        let screen = s.screen().text
        XCTAssertTrue(screen.contains("    2 event    purchase  dropped   0/3   overflow  CAP-1  │"), screen)
        s.press(.enter)
        XCTAssertTrue(s.screen().text.contains(" 00:00:00.000 CAP-1 new → dropped  overflow\n"), s.screen().text)
    }

    static let day = """
        profile acme
        at 0 launch
        at 0 server 503 x2
        at 0 track signup
        at 1s server 403
        at 1s screen home
        at 3s network offline
        at 4s track offline_buy
        at 4s logout
        expect at 4s state offline_buy queued
        at 6s network online
        expect at 6.3s state offline_buy delivered
        at 40s server 500 always
        at 40s track doomed
        at 80s quit
        expect at 80s state doomed queued
        at 90s server ok
        at 90s launch
        expect at 90.3s state doomed delivered
        """

    /// Played on the screen, the file ends where the runner ends.
    func test_play_onAUserProfile_endsWhereTheRunnerEnds() throws {
        let acme = try Self.acme()
        let resolver = ProfileResolver { $0 == "acme" ? .success(acme) : ProfileResolver.builtins.resolve($0) }
        guard case .success(let sc) = Scenario.parse(Self.day, file: "day.outbox", profiles: resolver) else {
            return XCTFail("day.outbox does not parse")
        }
        var runner = ScenarioRunner(sc)
        runner.run()
        XCTAssertEqual(runner.failures.count, 0)
        let want = journalLines(runner.sim, format: .jsonl)
        XCTAssertTrue(want.contains { $0.contains(#""rule":"ACME-4""#) })

        var s = Session(acme)
        s.model = AppModel(playing: sc)
        s.model.layOut()
        for _ in 0..<6 { s.type("+") }
        s.type(" ")
        var frames = 0
        while s.model.isPlaying && frames < 100_000 {
            s.passWall(33)
            frames += 1
        }
        XCTAssertFalse(s.model.isPlaying)
        XCTAssertEqual(journalLines(s.model.sim, format: .jsonl), want)
        XCTAssertEqual(s.model.sim.counts, runner.sim.counts)
        XCTAssertEqual(s.model.player!.results.map(\.ok), [true, true, true, true])
        XCTAssertEqual(
            s.model.message?.text, "played to the end: 4 passed, 0 failed, as outbox run ends; space goes on live")
    }

    func test_liveCompare_aBuiltinBesideAUserProfile() throws {
        var c = Session(compare: [Builtins.ios, try Self.acme()])
        c.type("t")
        c.wait(1000)
        XCTAssertEqual(
            c.screen(120, 30).text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
            [
                " OUTBOX compare │ 00:00:01.0 ▶ 1× │ net ● online │ backend ok │ 0 differ │ app running │ devices in memory",
                " Rows  all 1  pending 0  in-flight 0  retrying 0  queued 0  delivered 1  dropped 0   saved ios 0 · acme 0",
                "   name        │ios        att   next    rule    last 18s       now│acme       att   next    rule    last 18s       now",
                "   purchase    │delivered  1/4           IOS-3                   ● │delivered  1/3           ACME-1                  ●",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "─ purchase ─ ios ──────────────────────────────────────────┬─ acme ─────────────────────────────────────────────────────",
                " delivered att 1/4                                         │ delivered att 1/3",
                " #1 · not saved · completion true                          │ #1 · not saved · completion true",
                " 00:00.0 pending IOS-1                                     │ 00:00.0 pending ACME-1",
                " 00:00.0 in-flight IOS-2                                   │ 00:00.0 in-flight ACME-1",
                " 00:00.2 delivered IOS-3 200                               │ 00:00.3 delivered ACME-1 200",
                "   2xx: delivered, completion true; 4xx: dropped           │   Every request is saved on the device when made and sent",
                "   (rejected), completion false; 5xx or transport error:   │   at once.",
                "   retried.                                                │",
                "                                                           │",
                " p ping o offline x backend . step / find Enter detail Tab pane space pause L relaunch + speed : command ? help q quit",
            ])
        c.type("xga")  // 403 always, on both
        c.type("t")
        c.wait(1000)
        XCTAssertEqual(c.row("purchase", 2), ["dropped", "dropped"])
        XCTAssertEqual(c.model.columns.map { $0.profile.rule($0.request(2).rule).id }, ["IOS-3", "ACME-3"])
    }

    /// The detail pane says what a request's completion got on a profile with
    /// completion handlers, as on iOS.
    func test_detail_showsTheCompletionOnAUserProfileWithCompletions() throws {
        var s = Session(try Self.acme(), width: 120, height: 30)
        s.type("t")
        s.wait(1000)
        let line =
            s.screen().text.split(separator: "\n").first { $0.hasPrefix(" event delivered") }.map(String.init) ?? ""
        XCTAssertTrue(line.hasPrefix(" event delivered  attempts 1 · budget 1/3 · not saved · completion true "), line)
    }
}
