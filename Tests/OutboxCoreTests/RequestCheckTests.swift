import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// `expect at T request ID ...` (issue 15, item 2): one request by its number,
/// for requests of one name that differ. Treated as every other check: errors
/// with "did you mean", ids no line can make found before anything runs, the
/// timeline and JSONL lines, `compare`.
final class RequestCheckTests: XCTestCase {
    func errors(_ text: String) -> [String] {
        guard case .failure(let e) = Scenario.parse(text, file: "t.outbox") else { return [] }
        return e.errors.map(\.description)
    }

    /// The checks that can only fail, as `file:line: why` in line order (exit 1 when played).
    func unmatchable(_ text: String) -> [String] {
        guard case .success(let s) = Scenario.parse(text, file: "t.outbox") else { return ["bad input"] }
        return s.unmatchable.sorted { $0.key < $1.key }.map { "t.outbox:\($0.key): \($0.value)" }
    }

    static let twoPurchases = """
        profile ios
        at 0 launch
        at 0 track purchase
        at 0 server 503 always
        at 0 track purchase

        """

    func testTheThreeForms_checkedOneRequestEach() throws {
        let text =
            Self.twoPurchases + """
                expect at 2s request 1 delivered
                expect at 2s request 2 retrying
                expect at 2s request 1 attempts 1
                expect at 2s request 2 attempts 1
                expect at 2s request 2 delivered   # fails: it is retrying
                expect at 2s request 1 dropped exhausted
                expect at 2s request 2 attempts 4
                expect at 4m request 2 dropped exhausted
                expect at 4m request 2 attempts 4
                expect at 4m request 2 dropped
                """
        var runner = ScenarioRunner(try Scenario.parse(text, file: "t.outbox").get())
        runner.run()
        XCTAssertEqual(runner.checkCount, 10)
        XCTAssertEqual(
            runner.failures.map { "\($0.line): \($0.text): \($0.found)" },
            [
                "10: expect at 2s request 2 delivered: #2 is retrying",
                "11: expect at 2s request 1 dropped exhausted: #1 is delivered",
                "12: expect at 2s request 2 attempts 4: #2 has 1 attempts",
            ])
    }

    func testBadWordsSayWhatWasExpected_withDidYouMean() {
        let text =
            Self.twoPurchases + """
                expect at 2s request 1 deliverd
                expect at 2s request 1 dropped exhaustd
                expect at 2s request 1 atempts 2
                expect at 2s request one delivered
                expect at 2s request 0 delivered
                expect at 2s request #1 delivered
                expect at 2s request 1 attempts
                expect at 2s request 1 attempts -1
                expect at 2s requst 1 delivered
                """
        let form =
            "`request <id> <state>`, `request <id> dropped <reason>` or `request <id> attempts <n>` (the id without `#`, which starts a comment)"
        XCTAssertEqual(
            errors(text),
            [
                "t.outbox:6: unknown state `deliverd`, expected one of: pending, in-flight, retrying, queued, delivered, dropped; did you mean `delivered`?",
                "t.outbox:7: unknown drop reason `exhaustd`, expected one of: consent, rejected, exhausted, not-saved, overflow, expired, rate-limited, retry-budget; did you mean `exhausted`?",
                "t.outbox:8: bad `request` check: `atempts` then a word, expected \(form); did you mean `attempts`?",
                "t.outbox:9: bad request id `one`, expected a whole number ≥ 1 (the #ID the live screen and the timeline show)",
                "t.outbox:10: bad request id `0`, expected a whole number ≥ 1 (the #ID the live screen and the timeline show)",
                "t.outbox:11: bad `request` check, expected \(form)",
                "t.outbox:12: bad `request` check, expected `request <id> attempts <n>`",
                "t.outbox:13: bad count `-1`, expected a whole number ≥ 0",
                "t.outbox:14: unknown check `requst`, expected state, dropped, attempts, saved, received, counted, log, completion, revenue or request; did you mean `request`?",
            ])
    }

    /// An id past the most requests the file's lines can make can only fail,
    /// found before anything runs, as a name no line creates: a failed check
    /// (exit 1), not bad input (issue 22); every way a request is made counts (a
    /// logout makes three, LinkTrail's first launch an install, a `saved` line one).
    func testAnIDNoLineCanMakeCanOnlyFail() {
        XCTAssertEqual(
            unmatchable(Self.twoPurchases + "expect at 2s request 3 delivered\nexpect at 3s request 3 attempts 1\n"),
            [
                "t.outbox:6: no request #3 can exist: the lines of the file make at most 2 requests, expected an id from 1 to 2"
            ])
        XCTAssertEqual(
            unmatchable("profile ios\nat 0 launch\nexpect at 1s request 1 delivered\n"),
            [
                "t.outbox:3: no request #1 can exist: the lines of the file make no request, expected a line that makes it before"
            ])
        // UserCom's logout makes three; a saved line one; the same line text twice counts twice.
        let android = """
            profile android
            saved event kept
            at 0 launch
            at 0 getinstance
            at 1s logout
            at 2s ping
            at 2s ping
            expect at 9s request 6 delivered
            expect at 9s request 7 delivered

            """
        XCTAssertEqual(
            unmatchable(android),
            [
                "t.outbox:9: no request #7 can exist: the lines of the file make at most 6 requests, expected an id from 1 to 6"
            ])
        // LinkTrail's install at the first launch.
        let linktrail =
            "profile linktrail\nat 0 launch\nat 0 consent grant\nat 1s track a\nexpect at 9s request 2 delivered\n"
        XCTAssertEqual(unmatchable(linktrail), [])
        XCTAssertEqual(
            unmatchable(linktrail + "expect at 9s request 3 delivered\n"),
            [
                "t.outbox:6: no request #3 can exist: the lines of the file make at most 2 requests, expected an id from 1 to 2"
            ])
        // A device on disk (`run --state-dir`) may hold any number of requests.
        guard
            case .success = Scenario.parse(
                Self.twoPurchases + "expect at 2s request 9 delivered\n", file: "t", savedDevice: true)
        else { return XCTFail("refused with a saved device") }
    }

    /// The lines the text and JSONL timelines and JUnit write for a `request` check.
    func testTimelinesAndReportsShowTheLineAsWritten() throws {
        let file = NSTemporaryDirectory() + "req-\(getpid()).outbox"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try (Self.twoPurchases + "expect at 2s request 2 retrying  # the second\nexpect at 2s request 2 delivered\n")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let (s1, text, _) = cli(["run", "--quiet", file])
        XCTAssertEqual(s1, 1)
        XCTAssertEqual(
            text,
            """
            00:00:02.000  expect    expect at 2s request 2 delivered  ✗ FAILED: #2 is retrying
            \(file): 1 passed, 1 failed · 12 transitions · ended at 00:03:30.800

            """)
        let (_, jsonl, _) = cli(["run", "--format", "jsonl", file])
        XCTAssertTrue(
            jsonl.contains(
                #"{"t":2,"expect":"expect at 2s request 2 retrying","ok":true,"line":6}"#), jsonl)
        XCTAssertTrue(
            jsonl.contains(
                ##"{"t":2,"expect":"expect at 2s request 2 delivered","ok":false,"line":7,"found":"#2 is retrying"}"##),
            jsonl)
        let (_, junit, _) = cli(["run", "--format", "junit", file])
        XCTAssertTrue(junit.contains("check failed: expect at 2s request 2 delivered: found #2 is retrying"), junit)
        let (_, html, _) = cli(["run", "--format", "html", file])
        XCTAssertTrue(html.contains("expect at 2s request 2 delivered"), html)
        XCTAssertTrue(html.contains("#2 is retrying"), html)
    }

    /// `outbox compare` plays the file once per profile: a plain `expect` checks
    /// the file's own profile, and an `expect on` line each profile it names
    /// with that profile's own ids (LinkTrail's install is its #1).
    func testCompare_idsAreEachProfilesOwn() {
        let text = """
            profile ios
            compare ios,linktrail
            at 0 launch
            at 0 consent grant
            at 1s track purchase
            expect at 5s request 1 delivered
            expect on linktrail at 5s request 1 attempts 1
            expect on linktrail at 5s request 2 delivered
            expect on ios at 5s request 2 delivered

            """
        guard case .success(let sc) = Scenario.parse(text, file: "c", playing: .linktrail) else {
            return XCTFail("linktrail does not parse")
        }
        var r = ScenarioRunner(sc)
        r.run()
        XCTAssertEqual(r.checkCount, 2)
        XCTAssertEqual(r.failures.map(\.line), [])
        // `consent grant` is left out on iOS: its one request is #1, and no #2 can exist.
        guard case .success(let ios) = Scenario.parse(text, file: "c", playing: .ios) else {
            return XCTFail("ios does not parse")
        }
        XCTAssertEqual(
            ios.unmatchable,
            [9: "no request #2 can exist: the lines of the file make at most 1 request, expected an id from 1 to 1"])
        var played = ScenarioRunner(ios)
        played.run()
        XCTAssertEqual(played.failures.map(\.line), [9])
        XCTAssertEqual(played.failures.first?.found, ios.unmatchable[9])
    }
}
