import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// `retry-budget P% [bucket N] [rule ID]` (Policy/RetryBudget.swift, rule
/// BUDGET) and `throttle k K [window D] [rule ID]` (Policy/Throttle.swift, rule
/// THROTTLE), issue 26: whole histories of the made-up ACME profile with one
/// line more (it retries transport errors and 5xx after 1s then 2s, 3
/// attempts; drops a spent request `exhausted`), the formula, and the lines' errors.
final class RuleTestsBudget: XCTestCase {
    typealias U = UserProfileKit

    static func acme(_ more: String, exhausted: String = "on exhausted drop exhausted rule ACME-2") -> String {
        ProfileStatementTests.acme(exhausted: exhausted, more: more)
    }

    // MARK: BUDGET

    /// Five deliveries fill the bucket to its 2 tokens (half a token each, the
    /// fifth capped); in the outage f spends both on its two retries and is
    /// dropped `exhausted` as ever; g's first attempt leaves half a token, so its
    /// retry is not made and it is dropped `retry-budget` citing the budget's
    /// rule; h's half makes a whole token: one retry, then none.
    func test_BUDGET_stopsRetriesOnceTheBucketIsEmpty() throws {
        let r = try XCTUnwrap(
            U.play(
                profile: Self.acme("retry-budget 50% bucket 2 rule ACME-5"),
                """
                profile acme
                at 0 launch
                at 0 track a
                at 1s track b
                at 2s track c
                at 3s track d
                at 4s track e
                at 10s server 503 always
                at 10s track f
                at 20s track g
                at 21s track h
                expect at 13.6s dropped f exhausted
                expect at 20.2s dropped g retry-budget
                expect at 22.4s dropped h retry-budget
                expect at 22.4s attempts h 2
                at 30s server ok
                """))
        var expected: [String] = []
        for (i, name) in ["a", "b", "c", "d", "e"].enumerated() {
            let t = i * 1000
            expected += [
                "\(name): \(t) new>pending #0 ACME-1", "\(name): \(t) pending>in-flight #1 ACME-1",
                "\(name): \(t + 200) in-flight>delivered #1 200 ACME-1",
            ]
        }
        expected += [
            "f: 10000 new>pending #0 ACME-1", "f: 10000 pending>in-flight #1 ACME-1",
            "f: 10200 in-flight>retrying #1 503 ACME-2", "f: 11200 retrying>in-flight #2 ACME-2",
            "f: 11400 in-flight>retrying #2 503 ACME-2", "f: 13400 retrying>in-flight #3 ACME-2",
            "f: 13600 in-flight>dropped #3 503 exhausted ACME-2",
            "g: 20000 new>pending #0 ACME-1", "g: 20000 pending>in-flight #1 ACME-1",
            "g: 20200 in-flight>dropped #1 503 retry-budget ACME-5",
            "h: 21000 new>pending #0 ACME-1", "h: 21000 pending>in-flight #1 ACME-1",
            "h: 21200 in-flight>retrying #1 503 ACME-2", "h: 22200 retrying>in-flight #2 ACME-2",
            "h: 22400 in-flight>dropped #2 503 retry-budget ACME-5",
        ]
        XCTAssertEqual(U.trails(r.sim), expected)
        XCTAssertEqual(
            U.logs(r.sim).filter { $0.contains("[ACME-5]") },
            [
                "20200 [ACME-5] retry budget empty: #7 'g' is not retried after 503 (0.5 of the 1 token a retry takes; 50% of first attempts, at most 2)",
                "22400 [ACME-5] retry budget empty: #8 'h' is not retried after 503 (0 of the 1 token a retry takes; 50% of first attempts, at most 2)",
            ])
        XCTAssertEqual(r.sim.retryBudgetTokens, 0)
        XCTAssertTrue(
            r.jsonl.contains { $0.contains(#""name":"g","kind":"event","from":"in-flight","to":"dropped""#) && $0.contains(#""reason":"retry-budget""#) },
            r.jsonl.joined(separator: "\n"))
        XCTAssertEqual(r.sim.backend.received, 11, "5 + f's 3 + g's 1 + h's 2: the budget held back g's and h's retries")
    }

    /// The bucket starts empty and empties at a launch: a relaunched app gets
    /// no retries it did not earn (a and b's whole token is gone by c). Under
    /// `on exhausted queue`, a refused retry saves the request for the next
    /// resend instead of dropping it; without `rule`, the refusal cites BUDGET.
    /// A resend is not a first attempt: it adds nothing.
    func test_BUDGET_startsEmptyAtEachLaunch_andARefusalTakesTheExhaustedPath() throws {
        let r = try XCTUnwrap(
            U.play(
                profile: Self.acme("retry-budget 50% bucket 3", exhausted: "on exhausted queue rule ACME-4"),
                """
                profile acme
                at 0 launch
                at 0 track a
                at 1s track b
                at 5s quit
                at 6s launch
                at 6s server 503 x2
                at 6s track c
                expect at 6.2s state c queued
                at 7s quit
                at 8s launch
                expect at 8.2s state c queued
                at 9s quit
                at 10s launch
                expect at 10.2s state c delivered
                """))
        XCTAssertEqual(
            U.trails(r.sim).filter { $0.hasPrefix("c: ") },
            [
                "c: 6000 new>pending #0 ACME-1", "c: 6000 pending>in-flight #1 ACME-1",
                "c: 6200 in-flight>queued #1 503 BUDGET", "c: 8000 queued>in-flight #2 ACME-4",
                "c: 8200 in-flight>queued #2 503 BUDGET", "c: 10000 queued>in-flight #3 ACME-4",
                "c: 10200 in-flight>delivered #3 200 ACME-1",
            ])
        XCTAssertEqual(
            U.logs(r.sim).filter { $0.contains("[BUDGET]") },
            [
                "6200 [BUDGET] retry budget empty: #3 'c' is not retried after 503 (0.5 of the 1 token a retry takes; 50% of first attempts, at most 3)",
                "8200 [BUDGET] retry budget empty: #3 'c' is not retried after 503 (0 of the 1 token a retry takes; 50% of first attempts, at most 3)",
            ])
    }

    /// `retry-budget none` removes a base's budget; the defaults are a bucket of 10 and BUDGET.
    func test_BUDGET_noneRemovesABasesBudget() throws {
        let base = try XCTUnwrap(U.load(Self.acme("retry-budget 10%")))
        XCTAssertEqual(base.spec.policy.retryBudget, RetryBudgetRule(deposit: 1000, bucket: 10, rule: .budget))
        let variant = try Profile.parse(
            "profile acme-free\nbase acme\nretry-budget none\n", file: "acme-free.profile",
            base: { $0 == "acme" ? base : nil }
        ).get()
        XCTAssertNil(variant.spec.policy.retryBudget)
        XCTAssertNotNil(base.spec.policy.retryBudget)
    }

    /// Bad lines are named by file, line and word, with what was expected.
    func test_BUDGET_badLinesSayWhatWasExpected() {
        let form = "expected `retry-budget P% [bucket N] [rule ID]` or `retry-budget none`"
        for (line, message) in [
            ("retry-budget", "bad retry-budget line, " + form),
            ("retry-budget ten", "bad retry-budget share `ten`, expected a share of the requests from 0.01% to 100% with at most two decimals (`retry-budget 10%`)"),
            ("retry-budget 0%", "bad retry-budget share `0%`, expected a share of the requests from 0.01% to 100% with at most two decimals (`retry-budget 10%`)"),
            ("retry-budget 150%", "bad retry-budget share `150%`, expected a share of the requests from 0.01% to 100% with at most two decimals (`retry-budget 10%`)"),
            ("retry-budget 10% bucket", "`bucket` needs a number of tokens after it, " + form),
            ("retry-budget 10% bucket 0", "bad retry-budget bucket `0`, expected a whole number of tokens from 1 to 1000000"),
            ("retry-budget 10% bucket +5", "bad retry-budget bucket `+5`, expected a whole number of tokens from 1 to 1000000"),
            ("retry-budget 10% bukket 5", "unexpected `bukket` in a retry-budget line, " + form + "; did you mean `bucket`?"),
            ("retry-budget 10% bucket 5 bucket 6", "`bucket` twice in a retry-budget line, " + form),
            ("retry-budget 10% rule", "`rule` needs a rule ID after it, " + form),
        ] {
            XCTAssertEqual(U.errors(Self.acme(line)), ["acme.profile:25: " + message], line)
        }
        // A budget needs retries, and does not go with batches.
        let noRetries = """
            on 2xx deliver rule ACME-1
            on transport queue rule ACME-2
            on 5xx queue rule ACME-2
            on 4xx drop rejected rule ACME-3
            """
        XCTAssertEqual(
            U.errors(ProfileStatementTests.acme(on: noRetries, exhausted: "", retry: "", more: "retry-budget 10%")),
            ["acme.profile:24: `retry-budget` needs retries to budget, expected an `on CLASS retry` line in the profile"])
        XCTAssertEqual(
            U.errors(Self.acme("retry-budget 10%\nbatch up to 10 rule ACME-6")),
            ["acme.profile:25: `retry-budget` does not go with `batch` (a batch's retries are not budgeted yet), expected one or the other"])
    }

    // MARK: THROTTLE

    /// The SRE book's formula, K = 2 and K = 1.1, at the counts a window may hold.
    func test_THROTTLE_theRejectionChanceIsTheSREBooksFormula() {
        let k2 = ThrottleRule(k100: 200, window: 120_000, rule: .throttle)
        for (req, acc) in [(0, 0), (1, 0), (10, 0), (10, 2), (10, 5), (10, 10), (100, 30), (7, 3)] {
            XCTAssertEqual(
                k2.rejection(requests: req, accepts: acc), max(0, Double(req - 2 * acc) / Double(req + 1)),
                accuracy: 1e-12, "\(req) requests, \(acc) accepts")
        }
        XCTAssertEqual(k2.rejection(requests: 10, accepts: 2), 6.0 / 11.0)
        let k11 = ThrottleRule(k100: 110, window: 120_000, rule: .throttle)
        XCTAssertEqual(k11.rejection(requests: 10, accepts: 5), 4.5 / 11.0, accuracy: 1e-12)
        XCTAssertEqual(k11.rejection(requests: 10, accepts: 10), 0)
    }

    /// An outage: after one accept and three requests, every retry is drawn
    /// against the formula; a rejected one never reaches the backend, ends
    /// `throttled` citing the throttle's rule and waits its backoff as an
    /// offline attempt does. c's last attempt is throttled too, and `on
    /// exhausted` drops it, citing its own rule.
    func test_THROTTLE_rejectsOnTheDeviceAndTheBackoffRetries() throws {
        let r = try XCTUnwrap(
            U.play(
                profile: Self.acme("throttle k 2 rule ACME-6"),
                """
                profile acme
                at 0 launch
                at 0 track a
                at 1s server 503 always
                at 1s track b
                at 1s track c
                at 1.5s track d
                at 4s server ok
                at 4s track e
                expect at 4.2s dropped c exhausted
                expect at 4.9s state d delivered
                """))
        XCTAssertEqual(
            U.trails(r.sim).filter { !$0.hasPrefix("a: ") && !$0.hasPrefix("e: ") },
            [
                "b: 1000 new>pending #0 ACME-1", "b: 1000 pending>in-flight #1 ACME-1",
                "c: 1000 new>pending #0 ACME-1", "c: 1000 pending>in-flight #1 ACME-1",
                "b: 1200 in-flight>retrying #1 503 ACME-2", "c: 1200 in-flight>retrying #1 503 ACME-2",
                "d: 1500 new>pending #0 ACME-1", "d: 1500 pending>in-flight #1 ACME-1",
                "d: 1700 in-flight>retrying #1 503 ACME-2",
                "b: 2200 retrying>in-flight #2 ACME-2", "b: 2200 in-flight>retrying #2 throttled ACME-6",
                "c: 2200 retrying>in-flight #2 ACME-2", "c: 2200 in-flight>retrying #2 throttled ACME-6",
                "d: 2700 retrying>in-flight #2 ACME-2", "d: 2700 in-flight>retrying #2 throttled ACME-6",
                "b: 4200 retrying>in-flight #3 ACME-6",
                "c: 4200 retrying>in-flight #3 ACME-6", "c: 4200 in-flight>dropped #3 throttled exhausted ACME-2",
                "b: 4400 in-flight>delivered #3 200 ACME-1",
                "d: 4700 retrying>in-flight #3 ACME-6", "d: 4900 in-flight>delivered #3 200 ACME-1",
            ])
        XCTAssertEqual(
            U.logs(r.sim).filter { $0.contains("[ACME-6]") },
            [
                "2200 [ACME-6] throttled: #2 'b' not sent, rejected on the device with probability 0.400 (4 requests, 1 accept in the last 2m; K 2)",
                "2200 [ACME-6] throttled: #3 'c' not sent, rejected on the device with probability 0.500 (5 requests, 1 accept in the last 2m; K 2)",
                "2700 [ACME-6] throttled: #4 'd' not sent, rejected on the device with probability 0.571 (6 requests, 1 accept in the last 2m; K 2)",
                "4200 [ACME-6] throttled: #3 'c' not sent, rejected on the device with probability 0.700 (9 requests, 1 accept in the last 2m; K 2)",
            ])
        // 11 attempts, 4 of them rejected on the device: the backend saw 7.
        XCTAssertEqual(r.sim.sends, 7)
        XCTAssertEqual(r.sim.backend.received, 7)
        // The window at the end: 11 requests (the rejected ones too), 4 accepts (a, e, b, d).
        let w = try XCTUnwrap(r.sim.throttleWindow)
        XCTAssertEqual(w.requests, 11)
        XCTAssertEqual(w.accepts, 4)
        XCTAssertEqual(w.rejection, 3.0 / 12.0)
    }

    /// A long run, K = 2, failures of chance 60%: every attempt's chance is
    /// recomputed from the journal alone (its requests and accepts in the
    /// trailing 2 minutes before it); each rejection's log line gives that
    /// chance, the rejections number the sum of the chances within four
    /// standard deviations, the backend sees only the attempts not rejected,
    /// and the same seed gives the same timeline, byte for byte.
    func test_THROTTLE_aLongRunRejectsTheFormulasShare_deterministically() throws {
        var scenario = ["profile acme", "at 0 launch", "at 0 server 503 60%"]
        for i in 0..<400 { scenario.append("at \(i * 3)s track e\(i)") }
        let text = scenario.joined(separator: "\n")
        let r = try XCTUnwrap(U.play(profile: Self.acme("throttle k 2"), text))
        let window: Millis = 120_000
        var requestTimes: [Millis] = [], acceptTimes: [Millis] = []
        var chance: [String: Double] = [:]
        var attempts = 0, rejected = 0, expected = 0.0, variance = 0.0, between = 0
        for case .transition(let t) in r.sim.journal {
            let key = "\(t.request)@\(t.time)"
            if t.to == .inFlight {
                let req = requestTimes.filter { $0 > t.time - window }.count
                let acc = acceptTimes.filter { $0 > t.time - window }.count
                let p = max(0, Double(req - 2 * acc) / Double(req + 1))
                chance[key] = p
                expected += p
                variance += p * (1 - p)
                if p > 0 && p < 1 { between += 1 }
                attempts += 1
                requestTimes.append(t.time)
            } else if t.from == .inFlight {
                if t.outcome == .throttled {
                    rejected += 1
                } else if let s = t.outcome.httpStatus, s < 500, s != 429 {
                    acceptTimes.append(t.time)
                }
            }
        }
        var lines = 0
        for case .log(let l) in r.sim.journal where l.text.hasPrefix("throttled: ") {
            let p = try XCTUnwrap(chance["\(l.request)@\(l.time)"], l.text)
            XCTAssertTrue(l.text.contains("with probability \(Throttle.chance(p)) ("), l.text)
            XCTAssertEqual(l.rule, .throttle)
            lines += 1
        }
        XCTAssertEqual(lines, rejected)
        XCTAssertGreaterThan(attempts, 600)
        XCTAssertGreaterThan(between, 200, "the chance moved between 0 and 1")
        XCTAssertGreaterThan(rejected, 50, "expected \(expected), \(between) chances between 0 and 1, \(attempts) attempts")
        XCTAssertEqual(Double(rejected), expected, accuracy: 4 * variance.squareRoot(), "\(rejected) of \(attempts)")
        XCTAssertEqual(r.sim.sends, attempts - rejected, "a rejected attempt never reaches the backend")
        // Determinism: the same seed, the same timeline; another seed, another.
        let again = try XCTUnwrap(U.play(profile: Self.acme("throttle k 2"), text))
        XCTAssertEqual(again.text, r.text)
        let other = try XCTUnwrap(
            U.play(profile: Self.acme("throttle k 2"), text.replacingOccurrences(of: "at 0 launch", with: "set seed 2\nat 0 launch")))
        XCTAssertNotEqual(other.text, r.text)
    }

    /// Bad lines are named by file, line and word, with what was expected.
    func test_THROTTLE_badLinesSayWhatWasExpected() {
        let form = "expected `throttle k K [window D] [rule ID]` or `throttle none`"
        let k = "expected a number from 1 to 100 with at most two decimals (`k 2`; `k 1.1` rejects sooner)"
        for (line, message) in [
            ("throttle 2", "bad throttle line, " + form + " (`throttle k 2`, the SRE book's K)"),
            ("throttle k", "bad throttle line, " + form + " (`throttle k 2`, the SRE book's K)"),
            ("throttle k two", "bad throttle K `two`, " + k),
            ("throttle k 0.5", "bad throttle K `0.5`, " + k),
            ("throttle k 1.234", "bad throttle K `1.234`, " + k),
            ("throttle k 2 window", "`window` needs a time after it, " + form),
            ("throttle k 2 window 500ms", "bad throttle window `500ms`, expected a time of at least 1s"),
            ("throttle k 2 windw 1m", "unexpected `windw` in a throttle line, " + form + "; did you mean `window`?"),
            ("throttle k 2 rule ACME-6 rule ACME-7", "`rule` twice in a throttle line, " + form),
        ] {
            XCTAssertEqual(U.errors(Self.acme(line)), ["acme.profile:25: " + message], line)
        }
        XCTAssertEqual(
            U.errors(Self.acme("throttle k 2\nbatch up to 10 rule ACME-6")),
            ["acme.profile:25: `throttle` does not go with `batch` (a batch's sends are not throttled yet), expected one or the other"])
        let ok = U.load(Self.acme("throttle k 1.1 window 30s rule ACME-6"))
        XCTAssertEqual(ok?.spec.policy.throttle?.k100, 110)
        XCTAssertEqual(ok?.spec.policy.throttle?.window, 30_000)
    }
}
