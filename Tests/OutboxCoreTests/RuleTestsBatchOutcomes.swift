import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// The rest of issue 24's batch outcomes and per-answer waits: a batch's byte
/// cap (`batch up to N and SIZE`, `set request.size`), a 400 that names the
/// requests at fault (`batch names STATUS`, Amplitude), and `on CLASS retry wait
/// D` (Amplitude's 30 s after a 429, Rudder v1's 1 s after a 400). Whole
/// histories of the made-up ACME profile, the real profiles that use them, and
/// the statements' errors.
final class RuleTestsBatchOutcomes: XCTestCase {
    typealias U = UserProfileKit
    typealias B = RuleTestsBatching

    // MARK: The byte cap

    /// A flush takes requests while their bytes fit: 3 of 1 KB in a 3 KB batch, an
    /// attribute's bytes counted, and a request bigger than the cap alone. The log
    /// line says each batch's bytes.
    func test_byteCap_takesRequestsWhileTheyFitAndABigOneGoesAlone() {
        guard
            let r = U.play(
                profile: B.acme("batch up to 10 and 3KB every 10s rule ACME-8"),
                """
                profile acme
                at 0 launch
                at 0 track a
                at 0 track b
                at 0 track c
                at 0 track d note=\(String(repeating: "x", count: 94))
                at 0 track e
                at 0 track huge blob=\(String(repeating: "y", count: 4000))
                at 0 track f
                expect at 11s state f delivered
                """)
        else { return }
        XCTAssertEqual(
            U.logs(r.sim).filter { $0.contains("batch ") },
            [
                "10000 [ACME-8] batch 1: 3 requests (#1 … #3), 3000 bytes",
                // d is 1000 + 4 + 94 + 6 = 1104 bytes: with e (1000) it fits; huge does not.
                "10000 [ACME-8] batch 2: 2 requests (#4 … #5), 2104 bytes",
                "10000 [ACME-8] batch 3: 1 request (#6 'huge'), 5010 bytes",
                "10000 [ACME-8] batch 4: 1 request (#7 'f'), 1000 bytes",
            ])
        XCTAssertEqual(r.sim.backend.batches, 4)
        XCTAssertEqual(r.sim.size(of: 4), 1104)
    }

    /// `set request.size` changes every request's size, in the profile and in a
    /// scenario: at 250 bytes, twelve fit in a 3 KB batch; the count cap still holds.
    func test_requestSize_setInTheScenarioAndTheCountCapStillHolds() {
        let twenty = (1...20).map { "at 0 track e\($0)" }.joined(separator: "\n")
        guard
            let r = U.play(
                profile: B.acme("batch up to 12 and 3KB every 10s rule ACME-8"),
                "profile acme\nset request.size 250\nat 0 launch\n" + twenty + "\nexpect at 11s state e20 delivered")
        else { return }
        XCTAssertEqual(
            U.logs(r.sim).filter { $0.contains("batch ") },
            [
                // The 12th waiting starts a flush (no `when`: N waiting); the interval sends the rest.
                "0 [ACME-8] batch 1: 12 requests (#1 … #12), 3000 bytes",
                "10000 [ACME-8] batch 2: 8 requests (#13 … #20), 2000 bytes",
            ])
        guard let p = U.load(B.acme("set request.size 2KB\nbatch up to 12 and 3KB rule ACME-8")) else { return }
        XCTAssertEqual(Settings(profile: p).requestSize, 2000)
        XCTAssertEqual(Settings(profile: p).value(of: "request.size"), "2KB")
    }

    /// Segment's profiles cap a batch at its file's 475 KB, not at a count.
    func test_segmentSwift_capsABatchAtTheFilesBytes() {
        for name in ["segment-swift", "segment-swift-retry"] {
            guard case .success(let seg) = ProfileResolver.builtins.resolve(name) else { return XCTFail(name) }
            XCTAssertEqual(seg.spec.policy.batch?.bytes, 475_000, name)
            XCTAssertEqual(seg.spec.policy.batch?.most, 10_000, name)
            XCTAssertEqual(Settings(profile: seg).requestSize, 1000, name)
        }
    }

    /// A flush of 1000 at once (the interval, after the launch) makes batches of
    /// 475: the cap, not a count.
    func test_segmentSwift_anIntervalFlushOf1000GoesAs475_475_50() {
        let events = (1...1000).map { "at 0 track e\($0)" }.joined(separator: "\n")
        guard
            let r = U.play(
                "profile segment-swift\nat 0 server 503 x200\nat 0 launch\n" + events
                    + "\nat 1s server ok\nexpect at 31s state e1000 delivered",
                on: [])
        else { return }
        let sent = U.logs(r.sim).filter { $0.hasPrefix("30000 ") && $0.contains("requests (#") }
        XCTAssertEqual(
            sent,
            [
                "30000 [SEG-2] batch 51: 475 requests (#1 … #475), 475000 bytes",
                "30000 [SEG-2] batch 52: 475 requests (#476 … #950), 475000 bytes",
                "30000 [SEG-2] batch 53: 50 requests (#951 … #1000), 50000 bytes",
            ])
    }

    // MARK: A 400 that names the requests at fault

    /// Amplitude's 400: the request whose own plan answers 400 is dropped
    /// `rejected`; the others go back to the queue, their attempt not counted
    /// against the budget, and go at the next flush.
    func test_names_dropsTheNamedAndQueuesTheRestForTheNextFlush() {
        guard
            let r = U.play(
                profile: B.acme("batch up to 10 every 10s rule ACME-8\nbatch names 400 rule ACME-7"),
                """
                profile acme
                at 0 launch
                at 0 server 400 always for bad
                at 1s track a
                at 1s track bad
                at 1s track b
                expect at 21s state a delivered
                expect at 21s dropped bad rejected
                expect at 21s attempts a 2
                """)
        else { return }
        XCTAssertEqual(
            B.trails(r.sim),
            [
                "a: 1000 new>pending #0 ACME-1",
                "bad: 1000 new>pending #0 ACME-1",
                "b: 1000 new>pending #0 ACME-1",
                "a: 10000 pending>in-flight #1 ACME-8 b1",
                "bad: 10000 pending>in-flight #1 ACME-8 b1",
                "b: 10000 pending>in-flight #1 ACME-8 b1",
                "bad: 10200 in-flight>dropped #1 400 rejected ACME-7 b1",
                "a: 10200 in-flight>queued #1 400 ACME-7 b1",
                "b: 10200 in-flight>queued #1 400 ACME-7 b1",
                "a: 20000 queued>in-flight #2 ACME-8 b2",
                "b: 20000 queued>in-flight #2 ACME-8 b2",
                "a: 20200 in-flight>delivered #2 200 ACME-1 b2",
                "b: 20200 in-flight>delivered #2 200 ACME-1 b2",
            ])
        XCTAssertTrue(
            U.logs(r.sim).contains(
                "10200 [ACME-7] batch 1: the 400 names #2 'bad' at fault; the other 2 go back to the queue"),
            "\(U.logs(r.sim))")
        XCTAssertEqual(r.sim.request(1).budgetUsed, 1, "the named answer's attempt is not counted for the rest")
        XCTAssertEqual(r.sim.backend.received, 5)
    }

    /// A 400 planned for every request names none: the answer table acts on the
    /// whole batch (ACME's 4xx drops it). Named by kind, every screen is at fault.
    func test_names_a400ForEveryRequestNamesNoneAndAKindNamesItsRequests() {
        let profile = B.acme("batch up to 10 every 10s rule ACME-8\nbatch names 400 rule ACME-7")
        guard
            let all = U.play(
                profile: profile,
                """
                profile acme
                at 0 launch
                at 0 server 400
                at 1s track a
                at 1s track b
                expect at 11s dropped a rejected
                expect at 11s dropped b rejected
                """)
        else { return }
        XCTAssertEqual(all.sim.profile.rule(all.sim.request(1).rule).id, "ACME-3")
        guard
            let kind = U.play(
                profile: profile,
                """
                profile acme
                at 0 launch
                at 0 server 400 always for kind:screen
                at 1s track a
                at 1s screen home
                at 1s screen cart
                expect at 11s dropped home rejected
                expect at 11s dropped cart rejected
                expect at 11s state a queued
                """)
        else { return }
        XCTAssertTrue(
            U.logs(kind.sim).contains(
                "10200 [ACME-7] batch 1: the 400 names 2 requests (#2, #3) at fault; the other one goes back to the queue"
            ),
            "\(U.logs(kind.sim))")
    }

    /// Under head-of-line, the named answer ends the batch and the flush waits for
    /// its next trigger; the rest go then, with what came since.
    func test_names_underHeadOfLineTheRestGoAtTheNextTrigger() {
        guard
            let r = U.play(
                profile: B.acme("batch up to 2 every 10s head-of-line rule ACME-8\nbatch names 400 rule ACME-7"),
                """
                profile acme
                at 0 launch
                at 0 server 400 always for bad
                at 1s track bad
                at 1s track a
                at 1s track b
                expect at 5s state b pending
                expect at 5s state a queued
                expect at 11s state b delivered
                expect at 11s attempts a 2
                """)
        else { return }
        // The count trigger sent bad and a at 1 s; b waited for the interval, with a.
        XCTAssertEqual(r.sim.backend.batches, 2)
    }

    // MARK: A fixed wait for one answer

    /// `on 429 retry wait 7s`: a 429 waits 7 s whatever the backoff; a 503 waits
    /// the ladder's 1 s; both count against the budget.
    func test_retryWait_aClassWaitsItsOwnTimeAndTheOthersTheBackoff() {
        guard
            let r = U.play(
                profile: ProfileStatementTests.acme(
                    on: """
                        on 2xx deliver rule ACME-1
                        on transport retry rule ACME-2
                        on 5xx retry rule ACME-2
                        on 4xx drop rejected rule ACME-3
                        on 429 retry wait 7s rule ACME-6
                        """),
                """
                profile acme
                at 0 launch
                at 0 server 429
                at 0 screen a
                at 10s server 503
                at 10s screen b
                expect at 20s state a delivered
                expect at 20s state b delivered
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "a: 200 in-flight>retrying #1 429 ACME-6",
                "a: 7200 retrying>in-flight #2 ACME-6",
                "a: 7400 in-flight>delivered #2 200 ACME-1",
                "b: 10000 new>pending #0 ACME-1",
                "b: 10000 pending>in-flight #1 ACME-1",
                "b: 10200 in-flight>retrying #1 503 ACME-2",
                "b: 11200 retrying>in-flight #2 ACME-2",
                "b: 11400 in-flight>delivered #2 200 ACME-1",
            ])
    }

    /// The real profiles that wait their own time: Amplitude-Kotlin's 30 s after a
    /// 429 (its ladder starts at 1 s), Rudder v1's 1 s after a 400 (its backoff at 3 s).
    func test_realProfiles_amplitudeKotlin429Waits30s_rudderV1400Waits1s() {
        guard
            let amk = U.play(
                """
                profile amplitude-kotlin
                at 0 launch
                at 0 server 429
                at 0 track a
                at 30s track b
                expect at 200s state a delivered
                """, on: [])
        else { return }
        let a = U.trails(amk.sim).filter { $0.hasPrefix("a: ") }
        XCTAssertTrue(a.contains("a: 30200 in-flight>retrying #1 429 AMK-8"), "\(a)")
        XCTAssertTrue(a.contains("a: 60200 retrying>in-flight #2 AMK-8"), "\(a)")
        guard
            let rud = U.play(
                """
                profile rudder-ios-v1
                at 0 launch
                at 0 server 400 x2
                at 0 track a
                expect at 20s state a delivered
                """, on: [])
        else { return }
        XCTAssertEqual(
            U.trails(rud.sim),
            [
                "a: 0 new>pending #0 RUD1-1",
                "a: 10000 pending>in-flight #1 RUD1-10",
                "a: 10200 in-flight>retrying #1 400 RUD1-6",
                "a: 11200 retrying>in-flight #2 RUD1-6",
                "a: 11400 in-flight>retrying #2 400 RUD1-6",
                "a: 12400 retrying>in-flight #3 RUD1-6",
                "a: 12600 in-flight>delivered #3 200 RUD1-3",
            ])
    }

    // MARK: The statements' errors

    func test_errors_sizeNamesAndWaitSayWhatWasExpected() {
        let up = "expected `batch up to N [and SIZE] [when M waiting|new] [every DURATION] [head-of-line] rule ID`"
        let size = "expected bytes from 1 to 100MB (`500`, `500B`, `475KB`, `1MB`; KB is 1000 bytes)"
        let cases: [(String, String)] = [
            ("batch up to 20 and rule ACME-8", "bad batch size `rule`, " + size),
            ("batch up to 20 and", "`and` needs a size after it (`and 475KB`), " + up),
            ("batch up to 20 and 0KB rule ACME-8", "bad batch size `0KB`, " + size),
            ("batch up to 20 and 101MB rule ACME-8", "bad batch size `101MB`, " + size),
            ("batch up to 20 and 1.5KB rule ACME-8", "bad batch size `1.5KB`, " + size),
            ("batch up to 20 and -5 rule ACME-8", "bad batch size `-5`, " + size),
            ("batch names 400 rule ACME-7", "`batch names` needs a `batch up to N` line before it"),
            (
                "batch up to 5 rule ACME-8\nbatch names 200 rule ACME-7",
                "bad batch names status `200`, expected a failure status (400)"
            ),
            (
                "batch up to 5 rule ACME-8\nbatch names 400",
                "bad batch names line, expected `batch names STATUS rule ID`"
            ),
            (
                "batch up to 5 rule ACME-8\nbatch split 400 rule ACME-7\nbatch names 400 rule ACME-7",
                "`batch names 400` and `batch split 400` name the same status, expected two"
            ),
            (
                "set request.size 2KB",
                "setting request.size needs a batch byte cap, expected `batch up to N and SIZE ...` before the end"
            ),
            (
                "batch up to 5 and 1KB rule ACME-8\nset request.size lots",
                "bad value `lots` for request.size, expected bytes from 1 to 100MB, e.g. 1KB (500, 500B, 475KB, 1MB; KB is 1000 bytes)"
            ),
            (
                "on 429 retry wait rule ACME-6",
                "bad wait `rule`, expected 0, a number with a unit (250ms, 1.5s, 2m, 1h), units together (2m10s, 1h2m3.5s) or a clock (00:02:10.000), in whole milliseconds"
            ),
            (
                "on 429 retry wait",
                "`wait` needs a duration after it (`wait 30s`), expected `on CLASS deliver|retry [wait DURATION]|queue|stall|drop REASON [rule ID]`"
            ),
            (
                "on 429 drop rejected wait 5s rule ACME-6",
                "unexpected `wait`, expected `on CLASS deliver|retry [wait DURATION]|queue|stall|drop REASON [rule ID]` (`wait` goes with `retry`)"
            ),
            (
                "on exhausted queue wait 5s rule ACME-6",
                "unexpected `wait`, expected `on CLASS deliver|retry [wait DURATION]|queue|stall|drop REASON [rule ID]` (`wait` goes with `retry`)"
            ),
        ]
        for (lines, message) in cases {
            let errors = U.errors(B.acme(lines))
            XCTAssertEqual(errors.count, 1, lines + ": \(errors)")
            XCTAssertTrue(errors.first?.hasSuffix(message) ?? false, lines + ": \(errors.first ?? "none")")
        }
    }

    /// `set request.size` in a scenario on a profile without a byte cap is bad
    /// input naming the line; the size words read as documented.
    func test_requestSize_isRefusedWithoutAByteCapAndSizesRead() {
        switch Scenario.parse("profile ios\nset request.size 1KB\nat 0 launch\n", file: "s.outbox") {
        case .success: XCTFail("expected bad input")
        case .failure(let e):
            XCTAssertEqual(
                e.errors.map(\.description),
                [
                    "s.outbox:2: setting `request.size` does not exist on profile ios (it has no batch byte cap, `batch up to N and SIZE`)"
                ])
        }
        XCTAssertEqual(Batching.size("500"), 500)
        XCTAssertEqual(Batching.size("500B"), 500)
        XCTAssertEqual(Batching.size("475KB"), 475_000)
        XCTAssertEqual(Batching.size("475kB"), 475_000)
        XCTAssertEqual(Batching.size("100MB"), 100_000_000)
        XCTAssertNil(Batching.size("KB"))
        XCTAssertNil(Batching.size("99999999999KB"))
        XCTAssertEqual(Batching.sizeText(475_000), "475KB")
        XCTAssertEqual(Batching.sizeText(1_000_000), "1MB")
        XCTAssertEqual(Batching.sizeText(1234), "1234B")
    }
}
