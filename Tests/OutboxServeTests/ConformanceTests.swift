import OutboxCore
import OutboxTestSupport
import XCTest

@testable import OutboxServe

/// `outbox serve --profile P`: what a profile expects after each answer
/// (`Profile.expectation`), and the verdicts on observed attempts: within the
/// window, outside it, after the profile would have stopped, missing, and a run
/// that ended too early to tell.
final class ConformanceTests: XCTestCase {
    static func builtin(_ name: String) -> Profile {
        guard case .success(let p) = ProfileResolver.builtins.resolve(name) else { fatalError(name) }
        return p
    }

    func test_expectation_readsTheAnswerTableBudgetBackoffAndRetryAfter() {
        let ios = Self.builtin("ios"), s = Settings(profile: ios)
        // iOS: 5xx retried after 30 s, 60 s, 120 s, budget 4; 4xx dropped; a 2xx delivered.
        XCTAssertEqual(
            ios.expectation(afterAttempt: 1, answer: .status(503), settings: s).next, .retry(low: 30_000, high: 30_000))
        XCTAssertEqual(
            ios.expectation(afterAttempt: 3, answer: .status(503), settings: s).next,
            .retry(low: 120_000, high: 120_000))
        XCTAssertEqual(
            ios.expectation(afterAttempt: 4, answer: .status(503), settings: s).next, .end("dropped exhausted"))
        XCTAssertEqual(
            ios.expectation(afterAttempt: 1, answer: .status(400), settings: s).next, .end("dropped rejected"))
        XCTAssertEqual(ios.expectation(afterAttempt: 1, answer: .ok, settings: s).next, .end("delivered"))
        // PostHog iOS takes Retry-After as a floor of its linear backoff; Android lets it replace it.
        let phi = Self.builtin("posthog-ios"), pha = Self.builtin("posthog-android")
        XCTAssertEqual(
            phi.expectation(afterAttempt: 1, answer: .retryAfter(429, 10_000), settings: Settings(profile: phi)).next,
            .retry(low: 10_000, high: 10_000))
        XCTAssertEqual(
            phi.expectation(afterAttempt: 1, answer: .status(503), settings: Settings(profile: phi)).next,
            .retry(low: 1000, high: 1000))
        XCTAssertEqual(
            pha.expectation(afterAttempt: 2, answer: .retryAfter(503, 500), settings: Settings(profile: pha)).next,
            .retry(low: 500, high: 500))
        // A fixed wait for one answer (Amplitude-Kotlin's 429), and a jittered ladder (±50 %).
        let amk = Self.builtin("amplitude-kotlin"), st = Settings(profile: amk)
        XCTAssertEqual(
            amk.expectation(afterAttempt: 1, answer: .status(429), settings: st).next, .retry(low: 30_000, high: 30_000)
        )
        XCTAssertEqual(
            amk.expectation(afterAttempt: 2, answer: .status(503), settings: st).next, .retry(low: 4000, high: 12_000))
        // Segment's default mode keeps a failed batch for the next flush: no time predicted.
        let seg = Self.builtin("segment-swift")
        XCTAssertEqual(
            seg.expectation(afterAttempt: 1, answer: .status(503), settings: Settings(profile: seg)).next, .kept)
        XCTAssertEqual(ios.rule(ios.expectation(afterAttempt: 1, answer: .status(503), settings: s).rule).id, "IOS-4")
    }

    /// A session of one Segment event's attempts at the given times and answers.
    static func session(_ attempts: [(Millis, Answer)]) -> ServeSession {
        var plan = ""
        for (t, a) in attempts { plan += "at \(VirtualTime.duration(t)) server \(a.word)\n" }
        guard case .success(let script) = ServeScript.parse(plan, file: "t") else { fatalError(plan) }
        var s = ServeSession(script: script)
        let body = Array(#"{"batch":[{"type":"track","event":"buy","messageId":"m-1"}]}"#.utf8)
        for (t, _) in attempts {
            _ = s.receive(WireRequest(method: "POST", target: "/v1/batch", headers: [], body: body), at: t)
        }
        return s
    }

    func verdict(_ attempts: [(Millis, Answer)], _ profile: String, end: Millis) -> Conformance.Verdict {
        let s = Self.session(attempts), p = Self.builtin(profile)
        return Conformance.verdict(s.events[0], in: s, profile: p, settings: Settings(profile: p), endedAt: end)
    }

    func test_verdicts_withinOutsideAfterTheEndMissingAndUndecided() {
        // iOS waits 30 s after a 503, then 60 s.
        XCTAssertEqual(
            verdict([(0, .status(503)), (30_200, .status(503)), (89_900, .ok)], "ios", end: 100_000),
            .init(kind: .conforms, why: ""))
        XCTAssertEqual(
            verdict([(0, .status(503)), (5000, .ok)], "ios", end: 100_000),
            .init(
                kind: .diverges,
                why: "attempt 2 came 5s after attempt 1's 503; ios predicts 30s ± 3s (rule IOS-4)"))
        XCTAssertEqual(
            verdict([(0, .status(400)), (1000, .ok)], "ios", end: 100_000),
            .init(kind: .diverges, why: "attempt 2 came after a 400, which ios ends: dropped rejected (rule IOS-3)"))
        XCTAssertEqual(
            verdict([(0, .status(503))], "ios", end: 40_000),
            .init(
                kind: .diverges,
                why:
                    "no attempt 2 by 00:00:40.000, 40s after attempt 1's 503; ios predicts one 30s ± 3s after it (rule IOS-4)"
            ))
        XCTAssertEqual(
            verdict([(0, .status(503))], "ios", end: 10_000),
            .init(kind: .undecided, why: "the run ended before attempt 2 was due (30s ± 3s after attempt 1's 503)"))
        // Segment keeps the batch for its next flush: any later attempt conforms.
        XCTAssertEqual(verdict([(0, .status(503)), (45_000, .ok)], "segment-swift", end: 60_000).kind, .conforms)
    }
}
