import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// `retry-after ignore|floor|replace|pause|mute ...` (Policy/RetryAfter.swift,
/// issue 24 item 3) and the scenario's `server STATUS retry-after D`: whole
/// histories of the made-up ACME profile with one line more (it retries
/// transport errors and 5xx after 1s then 2s, 3 attempts; drops any 4xx
/// `rejected`), and the lines' errors.
final class RuleTestsRetryAfter: XCTestCase {
    typealias U = UserProfileKit

    static func acme(_ more: String) -> String { ProfileStatementTests.acme(more: more) }

    // MARK: ignore (no statement)

    /// Without the statement the header is not read: the backoff waits as
    /// always. The timelines show the header where they show the answer.
    func test_ignore_theHeaderIsShownButNotRead() {
        for more in ["", "retry-after ignore"] {
            guard
                let r = U.play(
                    profile: Self.acme(more),
                    """
                    profile acme
                    at 0 launch
                    at 0 server 503 retry-after 10s x2
                    at 0 track a
                    expect at 4s state a delivered
                    """)
            else { return }
            XCTAssertNil(r.sim.profile.spec.policy.retryAfter)
            XCTAssertEqual(
                U.trails(r.sim),
                [
                    "a: 0 new>pending #0 ACME-1",
                    "a: 0 pending>in-flight #1 ACME-1",
                    "a: 200 in-flight>retrying #1 503 ACME-2",
                    "a: 1200 retrying>in-flight #2 ACME-2",
                    "a: 1400 in-flight>retrying #2 503 ACME-2",
                    "a: 3400 retrying>in-flight #3 ACME-2",
                    "a: 3600 in-flight>delivered #3 200 ACME-1",
                ], more)
            XCTAssertTrue(
                r.text.contains(
                    "00:00:00.200  #1    event          a               in-flight → retrying    attempt 1   503 (retry-after 10s) ACME-2"
                ), r.text.joined(separator: "\n"))
            XCTAssertTrue(
                r.jsonl.contains(
                    #"{"t":0.2,"id":1,"name":"a","kind":"event","from":"in-flight","to":"retrying","attempt":1,"rule":"ACME-2","status":503,"retry_after":10}"#
                ), r.jsonl.joined(separator: "\n"))
            // The answer without the header is shown as before.
            XCTAssertTrue(
                r.jsonl.contains(
                    #"{"t":3.6,"id":1,"name":"a","kind":"event","from":"in-flight","to":"delivered","attempt":3,"rule":"ACME-1","status":200}"#
                ), r.jsonl.joined(separator: "\n"))
            XCTAssertTrue(r.text.contains { $0.hasSuffix("backend will answer: 503 retry-after 10s ×2") })
        }
    }

    // MARK: floor

    /// The wait is the larger of the backoff and the header (PostHog iOS,
    /// Mixpanel): citing the statement's rule where the header won.
    func test_floor_theLargerOfTheBackoffAndTheHeader() {
        guard
            let r = U.play(
                profile: Self.acme("retry-after floor rule ACME-5"),
                """
                profile acme
                at 0 launch
                at 0 server 503 retry-after 1.5s x2
                at 0 track a
                expect at 5s attempts a 3
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                // 1.5s beats the backoff's 1s.
                "a: 200 in-flight>retrying #1 503 ACME-5",
                "a: 1700 retrying>in-flight #2 ACME-5",
                // The backoff's 2s beats 1.5s.
                "a: 1900 in-flight>retrying #2 503 ACME-2",
                "a: 3900 retrying>in-flight #3 ACME-2",
                "a: 4100 in-flight>delivered #3 200 ACME-1",
            ])
    }

    // MARK: replace, cap

    /// A header above 0 is the wait (PostHog Android's `calculateDelay`), at
    /// most the cap; a header of 0 leaves the backoff (Android reads it only above 0).
    func test_replace_theHeaderAboveZeroIsTheWaitUpToTheCap() {
        guard
            let r = U.play(
                profile: Self.acme("retry-after replace cap 5s rule ACME-5"),
                """
                profile acme
                at 0 launch
                at 0 server 503 retry-after 300ms x1
                at 0 track a
                at 2s server 503 retry-after 10s x1
                at 2s track b
                at 10s server 503 retry-after 0 x1
                at 10s track c
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                // 300ms replaces the backoff's 1s.
                "a: 200 in-flight>retrying #1 503 ACME-5",
                "a: 500 retrying>in-flight #2 ACME-5",
                "a: 700 in-flight>delivered #2 200 ACME-1",
                "b: 2000 new>pending #0 ACME-1",
                "b: 2000 pending>in-flight #1 ACME-1",
                // 10s, capped at 5s.
                "b: 2200 in-flight>retrying #1 503 ACME-5",
                "b: 7200 retrying>in-flight #2 ACME-5",
                "b: 7400 in-flight>delivered #2 200 ACME-1",
                "c: 10000 new>pending #0 ACME-1",
                "c: 10000 pending>in-flight #1 ACME-1",
                // 0: the backoff's 1s, its rule.
                "c: 10200 in-flight>retrying #1 503 ACME-2",
                "c: 11200 retrying>in-flight #2 ACME-2",
                "c: 11400 in-flight>delivered #2 200 ACME-1",
            ])
    }

    /// `floor` and `replace` read only the retried answers: a 4xx with the
    /// header is dropped as before, and the classes `on` names narrow them.
    func test_replace_onClassesNarrowsWhatIsRead() {
        guard
            let r = U.play(
                profile: Self.acme("retry-after replace on 503 rule ACME-5"),
                """
                profile acme
                at 0 launch
                at 0 server 500 retry-after 300ms x1
                at 0 track a
                at 5s server 429 retry-after 300ms x1
                at 5s track b
                expect at 6s dropped b rejected
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                // 500 is not 503: the backoff's 1s.
                "a: 200 in-flight>retrying #1 500 ACME-2",
                "a: 1200 retrying>in-flight #2 ACME-2",
                "a: 1400 in-flight>delivered #2 200 ACME-1",
                "b: 5000 new>pending #0 ACME-1",
                "b: 5000 pending>in-flight #1 ACME-1",
                "b: 5200 in-flight>dropped #1 429 rejected ACME-3",
            ])
    }

    // MARK: pause, default

    /// Segment's smart retry: nothing goes out until the header's time is up;
    /// the attempt is not counted (a has 4 attempts, one counted), what would
    /// go out meanwhile waits `retrying` (b made during it; a's backoff falling
    /// due during c's pause), and then what waited goes, in the order it was
    /// held. A 429 without the header pauses for `default`; a 503 without it
    /// takes the backoff.
    func test_pause_nothingGoesOutUntilTheEndAndTheAttemptIsNotCounted() {
        guard
            let r = U.play(
                profile: Self.acme("retry-after pause on 429 5xx default 3s cap 10s rule ACME-5"),
                """
                profile acme
                at 0 launch
                at 0 server 429 retry-after 1s x2
                at 0 track a
                at 0.5s track b
                at 2s server 503 x1
                at 2.5s server 429 x1
                at 2.5s track c
                expect at 20s attempts a 4
                expect at 20s state a delivered
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "a: 200 in-flight>retrying #1 429 ACME-5",
                // Made during the pause: b waits for its end.
                "b: 500 new>pending #0 ACME-1",
                "b: 500 pending>retrying #0 ACME-5",
                "a: 1200 retrying>in-flight #2 ACME-5",
                "b: 1200 retrying>in-flight #1 ACME-5",
                // a's second 429 pauses again; b's answer is ok.
                "a: 1400 in-flight>retrying #2 429 ACME-5",
                "b: 1400 in-flight>delivered #1 200 ACME-1",
                "a: 2400 retrying>in-flight #3 ACME-5",
                "c: 2500 new>pending #0 ACME-1",
                "c: 2500 pending>in-flight #1 ACME-1",
                // A 503 without the header: the backoff (1s), counted.
                "a: 2600 in-flight>retrying #3 503 ACME-2",
                // A 429 without the header: the default, 3s.
                "c: 2700 in-flight>retrying #1 429 ACME-5",
                // a's backoff falls due during the pause: held to its end.
                "a: 3600 retrying>retrying #3 ACME-5",
                "c: 5700 retrying>in-flight #2 ACME-5",
                "a: 5700 retrying>in-flight #4 ACME-5",
                "c: 5900 in-flight>delivered #2 200 ACME-1",
                "a: 5900 in-flight>delivered #4 200 ACME-1",
            ])
        XCTAssertEqual(
            U.logs(r.sim).filter { $0.contains("paused") },
            [
                "200 [ACME-5] paused for 1s (until 00:00:01.200) after 429 on #1 'a'; the attempt is not counted",
                "1400 [ACME-5] paused for 1s (until 00:00:02.400) after 429 on #1 'a'; the attempt is not counted",
                "2700 [ACME-5] paused for 3s (until 00:00:05.700) after 429 on #3 'c'; the attempt is not counted",
            ])
        XCTAssertEqual(r.sim.request(1).budgetUsed, 2, "attempts 3 and 4 counted, not the 429s")
    }

    /// Not counted, a 429 with the header keeps a request going past its
    /// budget of 3; the cap bounds each pause; a launch ends the pause.
    func test_pause_capAndALaunchEndsIt() {
        guard
            let r = U.play(
                profile: Self.acme("retry-after pause cap 2s rule ACME-5\non 429 retry rule ACME-2"),
                """
                profile acme
                at 0 launch
                at 0 server 429 retry-after 1m x4
                at 0 track a
                expect at 6.9s attempts a 4
                at 7s quit
                at 8s launch
                at 8s track b
                expect at 9s state b delivered
                expect at 9s state a delivered
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "a: 200 in-flight>retrying #1 429 ACME-5",
                "a: 2200 retrying>in-flight #2 ACME-5",
                "a: 2400 in-flight>retrying #2 429 ACME-5",
                "a: 4400 retrying>in-flight #3 ACME-5",
                "a: 4600 in-flight>retrying #3 429 ACME-5",
                "a: 6600 retrying>in-flight #4 ACME-5",
                "a: 6800 in-flight>retrying #4 429 ACME-5",
                "a: 7000 retrying>queued #4 ACME-4",
                // The pause (until 8.8s) ended with the process.
                "a: 8000 queued>in-flight #5 ACME-4",
                "b: 8000 new>pending #0 ACME-1",
                "b: 8000 pending>in-flight #1 ACME-1",
                "a: 8200 in-flight>delivered #5 200 ACME-1",
                "b: 8200 in-flight>delivered #1 200 ACME-1",
            ])
    }

    /// The kinds `direct` sends are outside the queue: a pause never holds
    /// them (iOS's logout, IOS-7); the queue's requests wait.
    func test_pause_neverHoldsTheDirectKinds() {
        guard
            let r = U.play(
                profile: """
                    profile iosp
                    base ios
                    title "iOS paused by Retry-After (what-if)"
                    rule P-1 "A 429 pauses the pipeline until Retry-After."
                    on 429 retry rule P-1
                    retry-after pause rule P-1
                    """,
                """
                profile iosp
                at 0 launch
                at 0 server 429 retry-after 10s x1
                at 0 track a
                at 1s logout
                at 2s track b
                expect at 1.2s state logout delivered
                expect at 9s state b retrying
                expect at 10.4s state b delivered
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim).filter { $0.hasPrefix("a:") || $0.hasPrefix("b:") || $0.hasPrefix("logout:") },
            [
                "a: 0 new>pending #0 IOS-1",
                "a: 0 pending>in-flight #1 IOS-2",
                "a: 200 in-flight>retrying #1 429 P-1",
                "logout: 1000 new>pending #0 IOS-7",
                "logout: 1000 pending>in-flight #1 IOS-7",
                "logout: 1200 in-flight>delivered #1 200 IOS-7",
                "b: 2000 new>pending #0 IOS-1",
                "b: 2000 pending>retrying #0 P-1",
                "a: 10200 retrying>in-flight #2 P-1",
                "b: 10200 retrying>in-flight #1 P-1",
                "a: 10400 in-flight>delivered #2 200 IOS-3",
                "b: 10400 in-flight>delivered #1 200 IOS-3",
            ])
    }

    // MARK: mute, default

    /// Sentry: a 429 mutes its kind until the header's time is up (60s
    /// without one); the answer does what its `on` line says (dropped
    /// `rejected`); a request of a muted kind that would go out is dropped
    /// `rate-limited`, never sent; other kinds go on.
    func test_mute_a429MutesItsKindAndWhatWouldGoOutIsDropped() {
        guard
            let r = U.play(
                profile: Self.acme("retry-after mute default 60s rule ACME-5"),
                """
                profile acme
                at 0 launch
                at 0 server 429 x1
                at 0 track a
                at 1s track b
                at 1s ping
                at 30s server 429 retry-after 90s x1 for kind:ping
                at 30s ping
                at 61s track c
                at 62s ping
                expect at 61s dropped b rate-limited
                expect at 62s attempts b 0
                expect at 62s saved 0
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "a: 200 in-flight>dropped #1 429 rejected ACME-3",
                "b: 1000 new>pending #0 ACME-1",
                "b: 1000 pending>dropped #0 rate-limited ACME-5",
                "ping: 1000 new>pending #0 ACME-1",
                "ping: 1000 pending>in-flight #1 ACME-1",
                "ping: 1200 in-flight>delivered #1 200 ACME-1",
                "ping: 30000 new>pending #0 ACME-1",
                "ping: 30000 pending>in-flight #1 ACME-1",
                "ping: 30200 in-flight>dropped #1 429 rejected ACME-3",
                // The event mute ended at 60.2s.
                "c: 61000 new>pending #0 ACME-1",
                "c: 61000 pending>in-flight #1 ACME-1",
                "c: 61200 in-flight>delivered #1 200 ACME-1",
                "ping: 62000 new>pending #0 ACME-1",
                "ping: 62000 pending>dropped #0 rate-limited ACME-5",
            ])
        XCTAssertEqual(
            U.logs(r.sim).filter { $0.contains("rate limited") },
            [
                "200 [ACME-5] rate limited: event requests muted for 1m (until 00:01:00.200) after 429 on #1 'a'",
                "30200 [ACME-5] rate limited: ping requests muted for 90s (until 00:02:00.200) after 429 on #4 'ping'",
            ])
        XCTAssertTrue(
            r.jsonl.contains(
                #"{"t":1,"id":2,"name":"b","kind":"event","from":"pending","to":"dropped","attempt":0,"rule":"ACME-5","reason":"rate-limited"}"#
            ), r.jsonl.joined(separator: "\n"))
        XCTAssertEqual(r.sim.backend.received, 4, "b and the last ping were never sent")
    }

    /// A mute without `default` reads only a header; `on` names the classes
    /// (here 503 too); a retry falling due in the mute is dropped.
    func test_mute_withoutDefaultOnlyTheHeaderAndItsRetriesAreDropped() {
        guard
            let r = U.play(
                profile: Self.acme("retry-after mute on 429 503 rule ACME-5"),
                """
                profile acme
                at 0 launch
                at 0 server 429 x1
                at 0 track a
                at 1s server 503 retry-after 5s x1
                at 1s track b
                at 3s track c
                at 7s track d
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "a: 200 in-flight>dropped #1 429 rejected ACME-3",
                "b: 1000 new>pending #0 ACME-1",
                "b: 1000 pending>in-flight #1 ACME-1",
                // 503 is retried (1s); the mute drops the retry when due.
                "b: 1200 in-flight>retrying #1 503 ACME-2",
                "b: 2200 retrying>dropped #1 rate-limited ACME-5",
                "c: 3000 new>pending #0 ACME-1",
                "c: 3000 pending>dropped #0 rate-limited ACME-5",
                "d: 7000 new>pending #0 ACME-1",
                "d: 7000 pending>in-flight #1 ACME-1",
                "d: 7200 in-flight>delivered #1 200 ACME-1",
            ])
    }

    // MARK: batches (Policy/Batching.swift)

    /// Batched (Segment's smart retry sends batches): the oldest member's answer
    /// pauses the pipeline; the whole batch waits, not counted; a batch a flush
    /// makes during the pause gets its number and waits too; then both go.
    func test_pause_batchesWaitWholeAndGoTogether() {
        guard
            let r = U.play(
                profile: Self.acme("batch up to 2 rule ACME-8\nretry-after pause on 429 5xx default 3s rule ACME-5"),
                """
                profile acme
                at 0 launch
                at 0 server 429 retry-after 2s x1
                at 0 track a
                at 0 track b
                at 0.5s track c
                at 0.5s track d
                expect at 2.4s state d delivered
                expect at 2.4s attempts a 2
                """)
        else { return }
        XCTAssertEqual(
            RuleTestsBatching.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "b: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-8 b1",
                "b: 0 pending>in-flight #1 ACME-8 b1",
                "a: 200 in-flight>retrying #1 429 ACME-5 b1",
                "b: 200 in-flight>retrying #1 429 ACME-5 b1",
                "c: 500 new>pending #0 ACME-1",
                "d: 500 new>pending #0 ACME-1",
                "c: 500 pending>retrying #0 ACME-5 b2",
                "d: 500 pending>retrying #0 ACME-5 b2",
                "a: 2200 retrying>in-flight #2 ACME-5 b1",
                "b: 2200 retrying>in-flight #2 ACME-5 b1",
                "c: 2200 retrying>in-flight #1 ACME-5 b2",
                "d: 2200 retrying>in-flight #1 ACME-5 b2",
                "a: 2400 in-flight>delivered #2 200 ACME-1 b1",
                "b: 2400 in-flight>delivered #2 200 ACME-1 b1",
                "c: 2400 in-flight>delivered #1 200 ACME-1 b2",
                "d: 2400 in-flight>delivered #1 200 ACME-1 b2",
            ])
        XCTAssertEqual(r.sim.request(1).budgetUsed, 1, "the 429 was not counted")
        XCTAssertTrue(
            U.logs(r.sim).contains(
                "200 [ACME-5] paused for 2s (until 00:00:02.200) after 429 on batch 1 (#1 'a' …); the attempt is not counted"
            ), "\(U.logs(r.sim))")
    }

    /// `limit 3`: the third pause since the last success drops what it paused
    /// `exhausted`, and the count starts over; a success starts it over too
    /// (Segment Swift's rate-limit maxRetryCount).
    func test_pause_limitDropsTheNthPauseSinceASuccess() {
        guard
            let r = U.play(
                profile: Self.acme("retry-after pause limit 3 rule ACME-5\non 429 retry rule ACME-2"),
                """
                profile acme
                at 0 launch
                at 0 server 429 retry-after 1s x2
                at 0 track a
                at 3s server 429 retry-after 1s always
                at 3s track b
                expect at 2.6s state a delivered
                expect at 5.6s dropped b exhausted
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "a: 200 in-flight>retrying #1 429 ACME-5",
                "a: 1200 retrying>in-flight #2 ACME-5",
                "a: 1400 in-flight>retrying #2 429 ACME-5",
                "a: 2400 retrying>in-flight #3 ACME-5",
                "a: 2600 in-flight>delivered #3 200 ACME-1",
                "b: 3000 new>pending #0 ACME-1",
                "b: 3000 pending>in-flight #1 ACME-1",
                "b: 3200 in-flight>retrying #1 429 ACME-5",
                "b: 4200 retrying>in-flight #2 ACME-5",
                "b: 4400 in-flight>retrying #2 429 ACME-5",
                "b: 5400 retrying>in-flight #3 ACME-5",
                "b: 5600 in-flight>dropped #3 429 exhausted ACME-5",
            ])
        XCTAssertEqual(
            U.logs(r.sim).filter { $0.contains("budget") },
            [
                "5600 [ACME-5] rate-limit budget spent: 3 pauses since the last success (limit 3); #2 'b' is dropped after 429"
            ])
    }

    /// `within 2.5s`: a pause that would end past the episode's first pause +
    /// 2.5s drops what it paused and ends the episode and the pause; an answer
    /// that pauses nothing ends the episode too (segment-python's 1800 s).
    func test_pause_withinBoundsAnEpisode() {
        guard
            let r = U.play(
                profile: Self.acme("retry-after pause within 2.5s rule ACME-5\non 429 retry rule ACME-2"),
                """
                profile acme
                at 0 launch
                at 0 server 429 retry-after 1s always
                at 0 track a
                at 0.5s track b
                at 3s server 429 retry-after 1s x1
                at 3s track c
                expect at 3s dropped a exhausted
                expect at 4.4s state c delivered
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "a: 200 in-flight>retrying #1 429 ACME-5",
                "b: 500 new>pending #0 ACME-1",
                "b: 500 pending>retrying #0 ACME-5",
                "a: 1200 retrying>in-flight #2 ACME-5",
                "b: 1200 retrying>in-flight #1 ACME-5",
                "a: 1400 in-flight>retrying #2 429 ACME-5",
                "b: 1400 in-flight>retrying #1 429 ACME-5",
                "a: 2400 retrying>in-flight #3 ACME-5",
                "b: 2400 retrying>in-flight #2 ACME-5",
                "a: 2600 in-flight>dropped #3 429 exhausted ACME-5",
                "b: 2600 in-flight>retrying #2 429 ACME-5",
                "c: 3000 new>pending #0 ACME-1",
                "c: 3000 pending>retrying #0 ACME-5",
                "b: 3600 retrying>in-flight #3 ACME-5",
                "c: 3600 retrying>in-flight #1 ACME-5",
                "b: 3800 in-flight>retrying #3 429 ACME-5",
                "c: 3800 in-flight>delivered #1 200 ACME-1",
                "b: 4800 retrying>in-flight #4 ACME-5",
                "b: 5000 in-flight>delivered #4 200 ACME-1",
            ])
        XCTAssertEqual(
            U.logs(r.sim).filter { $0.contains("budget") || $0.contains("paused") },
            [
                "200 [ACME-5] paused for 1s (until 00:00:01.200) after 429 on #1 'a'; the attempt is not counted",
                "1400 [ACME-5] paused for 1s (until 00:00:02.400) after 429 on #1 'a'; the attempt is not counted",
                "1400 [ACME-5] paused for 1s (until 00:00:02.400) after 429 on #2 'b'; the attempt is not counted",
                "2600 [ACME-5] rate-limit budget spent: the pause would end at 00:00:03.600, past the 2.5s begun by the pause at 00:00:00.200 (within 2.5s); #1 'a' is dropped after 429",
                "2600 [ACME-5] paused for 1s (until 00:00:03.600) after 429 on #2 'b'; the attempt is not counted",
                "3800 [ACME-5] paused for 1s (until 00:00:04.800) after 429 on #2 'b'; the attempt is not counted",
            ])
    }

    /// Batched, the limit drops the whole batch that was paused.
    func test_pause_limitDropsABatch() {
        guard
            let r = U.play(
                profile: Self.acme("batch up to 2 rule ACME-8\nretry-after pause on 429 limit 2 rule ACME-5"),
                """
                profile acme
                at 0 launch
                at 0 server 429 retry-after 1s always
                at 0 track a
                at 0 track b
                expect at 2s dropped b exhausted
                """)
        else { return }
        XCTAssertEqual(
            RuleTestsBatching.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "b: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-8 b1",
                "b: 0 pending>in-flight #1 ACME-8 b1",
                "a: 200 in-flight>retrying #1 429 ACME-5 b1",
                "b: 200 in-flight>retrying #1 429 ACME-5 b1",
                "a: 1200 retrying>in-flight #2 ACME-5 b1",
                "b: 1200 retrying>in-flight #2 ACME-5 b1",
                "a: 1400 in-flight>dropped #2 429 exhausted ACME-5 b1",
                "b: 1400 in-flight>dropped #2 429 exhausted ACME-5 b1",
            ])
        XCTAssertEqual(
            U.logs(r.sim).filter { $0.contains("budget") },
            [
                "1400 [ACME-5] rate-limit budget spent: 2 pauses since the last success (limit 2); batch 1 (#1 'a' …) is dropped after 429"
            ])
    }

    /// Batched, a floor reads the oldest member's answer: the batch waits the
    /// header (2s) over its backoff (1s); a batch made meanwhile goes at once.
    func test_floor_aBatchWaitsTheLargerOfItsBackoffAndTheHeader() {
        guard
            let r = U.play(
                profile: Self.acme("batch up to 2 rule ACME-8\nretry-after floor rule ACME-5"),
                """
                profile acme
                at 0 launch
                at 0 server 503 retry-after 2s x1
                at 0 track a
                at 0 track b
                at 0.5s track c
                at 0.5s track d
                expect at 2.4s state a delivered
                """)
        else { return }
        XCTAssertEqual(
            RuleTestsBatching.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "b: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-8 b1",
                "b: 0 pending>in-flight #1 ACME-8 b1",
                "a: 200 in-flight>retrying #1 503 ACME-5 b1",
                "b: 200 in-flight>retrying #1 503 ACME-5 b1",
                "c: 500 new>pending #0 ACME-1",
                "d: 500 new>pending #0 ACME-1",
                "c: 500 pending>in-flight #1 ACME-8 b2",
                "d: 500 pending>in-flight #1 ACME-8 b2",
                "c: 700 in-flight>delivered #1 200 ACME-1 b2",
                "d: 700 in-flight>delivered #1 200 ACME-1 b2",
                "a: 2200 retrying>in-flight #2 ACME-5 b1",
                "b: 2200 retrying>in-flight #2 ACME-5 b1",
                "a: 2400 in-flight>delivered #2 200 ACME-1 b1",
                "b: 2400 in-flight>delivered #2 200 ACME-1 b1",
            ])
        // Every member's answer carried the header: each timeline line shows it.
        XCTAssertEqual(r.sim.retryAfterHeader(2, attempt: 1), 2000)
    }

    /// Batched, a 429 mutes the kinds of its batch's members; a later batch
    /// goes without its members of a muted kind, dropped `rate-limited`.
    func test_mute_aBatchGoesWithoutItsMutedMembers() {
        guard
            let r = U.play(
                profile: Self.acme("batch up to 2 rule ACME-8\nretry-after mute default 60s rule ACME-5"),
                """
                profile acme
                at 0 launch
                at 0 server 429 x1
                at 0 ping
                at 0 ping
                at 1s ping
                at 1s track b
                expect at 1.2s state b delivered
                expect at 1.2s received ping 2
                """)
        else { return }
        XCTAssertEqual(
            RuleTestsBatching.trails(r.sim),
            [
                "ping: 0 new>pending #0 ACME-1",
                "ping: 0 new>pending #0 ACME-1",
                "ping: 0 pending>in-flight #1 ACME-8 b1",
                "ping: 0 pending>in-flight #1 ACME-8 b1",
                "ping: 200 in-flight>dropped #1 429 rejected ACME-3 b1",
                "ping: 200 in-flight>dropped #1 429 rejected ACME-3 b1",
                "ping: 1000 new>pending #0 ACME-1",
                "b: 1000 new>pending #0 ACME-1",
                "ping: 1000 pending>dropped #0 rate-limited ACME-5",
                "b: 1000 pending>in-flight #1 ACME-8 b2",
                "b: 1200 in-flight>delivered #1 200 ACME-1 b2",
            ])
    }

    // MARK: the real SDKs' profiles (profiles/real/)

    /// PostHog's two SDKs part ways on a short header (the reference's
    /// "divergence inside one vendor"): Android's `calculateDelay` waits the
    /// header (PHA-12), iOS's `max(delay, retryAfter)` its 1s, 2s backoff.
    func test_real_postHogAndroidReplacesAndPostHogIOSFloors() {
        let story = """
            at 0 launch
            at 0 server 503 retry-after 500ms x2
            at 0 track a
            expect at 45s state a delivered
            expect at 45s attempts a 3
            """
        guard let android = U.play("profile posthog-android\n" + story, on: []),
            let ios = U.play("profile posthog-ios\n" + story, on: [])
        else { return }
        XCTAssertEqual(
            RuleTestsBatching.trails(android.sim),
            [
                "a: 0 new>pending #0 PHA-1",
                "a: 30000 pending>in-flight #1 PHA-2 b1",
                "a: 30200 in-flight>retrying #1 503 PHA-12 b1",
                "a: 30700 retrying>in-flight #2 PHA-12 b1",
                "a: 30900 in-flight>retrying #2 503 PHA-12 b1",
                "a: 31400 retrying>in-flight #3 PHA-12 b1",
                "a: 31600 in-flight>delivered #3 200 PHA-3 b1",
            ])
        XCTAssertEqual(
            RuleTestsBatching.trails(ios.sim),
            [
                "a: 0 new>pending #0 PHI-1",
                "a: 30000 pending>in-flight #1 PHI-2 b1",
                "a: 30200 in-flight>retrying #1 503 PHI-4 b1",
                "a: 31200 retrying>in-flight #2 PHI-4 b1",
                "a: 31400 in-flight>retrying #2 503 PHI-4 b1",
                "a: 33400 retrying>in-flight #3 PHI-4 b1",
                "a: 33600 in-flight>delivered #3 200 PHI-3 b1",
            ])
        // A header longer than the backoff: both wait it, citing their Retry-After rule.
        let long = story.replacingOccurrences(of: "503 retry-after 500ms", with: "429 retry-after 5s")
        for (name, rule) in [("posthog-android", "PHA-12"), ("posthog-ios", "PHI-11")] {
            guard let r = U.play("profile \(name)\n" + long, on: []) else { return }
            XCTAssertEqual(
                RuleTestsBatching.trails(r.sim).filter { $0.contains("retrying") }.map {
                    String($0.split(separator: " ")[1])
                },
                ["30200", "35200", "35400", "40400"], name)
            XCTAssertTrue(
                RuleTestsBatching.trails(r.sim).contains("a: 30200 in-flight>retrying #1 429 \(rule) b1"), name)
        }
    }

    /// Segment's smart retry: a 429 pauses the pipeline for its header (300 s
    /// without one, SGR-11) and is not counted; Sentry: a 429 drops its
    /// envelope and mutes the category (60 s without the header, SNC-8).
    func test_real_segmentPausesAndSentryMutes() {
        guard
            let segment = U.play(
                """
                profile segment-swift-retry
                at 0 launch
                at 0 server 429 x1
                at 0 track a
                expect at 330.199s attempts a 1
                expect at 330.4s state a delivered
                """, on: []),
            let sentry = U.play(
                """
                profile sentry-cocoa
                at 0 launch
                at 0 server 429 x1
                at 0 track a
                at 0 track b
                at 59s track c
                at 61s track d
                expect at 0.2s dropped b rate-limited
                expect at 59s dropped c rate-limited
                expect at 61.2s state d delivered
                """, on: [])
        else { return }
        XCTAssertEqual(
            RuleTestsBatching.trails(segment.sim),
            [
                "a: 0 new>pending #0 SGR-1",
                "a: 30000 pending>in-flight #1 SGR-2 b1",
                "a: 30200 in-flight>retrying #1 429 SGR-11 b1",
                "a: 330200 retrying>in-flight #2 SGR-11 b1",
                "a: 330400 in-flight>delivered #2 200 SGR-3 b1",
            ])
        XCTAssertEqual(segment.sim.request(1).budgetUsed, 1)
        XCTAssertEqual(
            RuleTestsBatching.trails(sentry.sim),
            [
                "a: 0 new>pending #0 SNC-1",
                "a: 0 pending>in-flight #1 SNC-2 b1",
                "b: 0 new>pending #0 SNC-1",
                "a: 200 in-flight>dropped #1 429 rejected SNC-3 b1",
                "b: 200 pending>dropped #0 rate-limited SNC-8",
                "c: 59000 new>pending #0 SNC-1",
                "c: 59000 pending>dropped #0 rate-limited SNC-8",
                "d: 61000 new>pending #0 SNC-1",
                "d: 61000 pending>in-flight #1 SNC-2 b2",
                "d: 61200 in-flight>delivered #1 200 SNC-3 b2",
            ])
    }

    // MARK: errors

    func test_errors_badLinesSayWhatWasExpected() {
        let form =
            "expected `retry-after floor|replace|pause|mute [on CLASS...] [default D] [cap D] [limit N] [within D] rule ID` or `retry-after ignore`"
        let classes = "expected statuses (429) or hundreds (5xx)"
        let cases: [(String, String)] = [
            ("retry-after", "bad retry-after line, " + form),
            ("retry-after flor rule ACME-5", "bad retry-after line, " + form + "; did you mean `floor`?"),
            ("retry-after ignore now", "bad retry-after line, " + form),
            ("retry-after floor", "bad retry-after line, " + form),
            ("retry-after floor rule", "`rule` needs a rule ID after it, " + form),
            ("retry-after floor ACME-5", "unexpected `ACME-5` in a retry-after line, " + form),
            ("retry-after floor rule ACME-5 x", "bad retry-after line, " + form),
            (
                "retry-after floor capp 5s rule ACME-5",
                "unexpected `capp` in a retry-after line, " + form + "; did you mean `cap`?"
            ),
            ("retry-after floor cap rule ACME-5", "bad retry-after cap `rule`, " + VirtualTime.expected),
            ("retry-after floor cap", "`cap` needs a time after it, " + form),
            ("retry-after floor cap 5 rule ACME-5", "bad retry-after cap `5`, " + VirtualTime.expected),
            ("retry-after floor cap 0 rule ACME-5", "bad retry-after cap `0`, expected a time above 0"),
            ("retry-after mute default 0 rule ACME-5", "bad retry-after default `0`, expected a time above 0"),
            (
                "retry-after mute default 200000h rule ACME-5",
                "bad retry-after default `200000h`, expected at most 100000h, the longest time Outbox takes"
            ),
            ("retry-after floor cap 5s cap 6s rule ACME-5", "`cap` twice in a retry-after line, " + form),
            ("retry-after pause on rule ACME-5", "`on` needs answer classes after it, " + form),
            (
                "retry-after floor limit 3 rule ACME-5",
                "`limit` in a retry-after floor line: it bounds pauses, expected `retry-after pause ... limit N`"
            ),
            (
                "retry-after mute within 30m rule ACME-5",
                "`within` in a retry-after mute line: it bounds pauses, expected `retry-after pause ... within D`"
            ),
            (
                "retry-after pause limit 0 rule ACME-5",
                "bad retry-after limit `0`, expected a whole number of pauses from 1 (limit 100)"
            ),
            (
                "retry-after pause limit many rule ACME-5",
                "bad retry-after limit `many`, expected a whole number of pauses from 1 (limit 100)"
            ),
            ("retry-after pause within 0 rule ACME-5", "bad retry-after within `0`, expected a time above 0"),
            ("retry-after pause limit 2 limit 3 rule ACME-5", "`limit` twice in a retry-after line, " + form),
            (
                "retry-after pause on 4o4 rule ACME-5",
                "unknown answer class `4o4` in a retry-after line, " + classes + "; did you mean `404`?"
            ),
            (
                "retry-after pause on timeout rule ACME-5",
                "`on timeout` in a retry-after line: only a status answer carries Retry-After, " + classes
            ),
            (
                "retry-after mute on 2xx rule ACME-5",
                "`on 2xx` in a retry-after line: a success waits for nothing, expected failure statuses (429) or hundreds (5xx)"
            ),
            (
                "retry-after mute rule NOPE",
                "rule NOPE is cited but not defined, expected a line `rule NOPE \"what it does\"`"
            ),
            // The reason is the mechanism's own, not an answer's.
            (
                "on 4xx drop rate-limited rule ACME-3",
                "bad drop reason `rate-limited`, expected rejected, exhausted or not-saved"
            ),
        ]
        for (line, message) in cases {
            XCTAssertEqual(ProfileStatementTests.errors(adding: line), ["acme.profile:25: " + message], line)
        }
    }

    /// What the statement needs of the rest of the profile, named at its line.
    func test_errors_whatTheModesNeed() {
        let noRetries = """
            on 2xx deliver rule ACME-1
            on transport drop rejected rule ACME-2
            on 5xx drop rejected rule ACME-2
            on 4xx drop rejected rule ACME-3
            """
        for (line, message) in [
            (
                "retry-after floor rule ACME-5",
                "`retry-after floor` reads the retried answers' header, expected an `on CLASS retry` line in the profile"
            ),
            (
                "retry-after replace on 503 rule ACME-5",
                "`retry-after replace` ... reads the retried answers' header, expected an `on CLASS retry` line in the profile"
            ),
            (
                "retry-after pause rule ACME-5",
                "`retry-after pause` reads the retried answers' header, expected an `on CLASS retry` line in the profile"
            ),
        ] {
            let text = ProfileStatementTests.acme(on: noRetries, exhausted: "", retry: "", more: line)
            XCTAssertEqual(U.errors(text), ["acme.profile:24: " + message], line)
        }
        // Without retries, a pause with its own classes and a mute are fine.
        for line in ["retry-after pause on 429 default 5s rule ACME-5", "retry-after mute rule ACME-5"] {
            XCTAssertEqual(
                U.errors(ProfileStatementTests.acme(on: noRetries, exhausted: "", retry: "", more: line)), [], line)
        }
        // The flush sends the queue itself: a pause or a mute would stall it.
        let flush = "component flush start ACME-6 more ACME-6 stop ACME-6 send ACME-6\n"
        for mode in ["pause", "mute"] {
            let errors = U.errors(Self.acme(flush + "retry-after \(mode) default 5s rule ACME-5"))
            XCTAssertEqual(
                errors,
                [
                    "acme.profile:26: `retry-after \(mode)` holds what goes out, and the flush sends one request at a time itself, expected `retry-after floor|replace` or no `component flush`"
                ])
        }
        XCTAssertEqual(U.errors(Self.acme(flush + "retry-after floor rule ACME-5")), [])
    }

    /// A later line replaces an earlier one, a base's too; `ignore` removes it.
    func test_statement_laterLinesReplaceAndIgnoreRemoves() {
        guard
            let p = U.load(
                Self.acme("retry-after floor rule ACME-5\nretry-after mute on 429 5xx default 60s cap 2m rule ACME-6"))
        else { return }
        XCTAssertEqual(
            p.spec.policy.retryAfter,
            RetryAfterRule(
                mode: .mute, classes: [.status(429), .hundred(5)], defaultWait: 60_000, cap: 120_000,
                rule: p.spec.policy.retryAfter!.rule))
        XCTAssertEqual(p.rule(p.spec.policy.retryAfter!.rule).id, "ACME-6")
        // A base's line is kept, and `ignore` removes it.
        for (more, mode) in [("", RetryAfterRule.Mode.mute), ("retry-after ignore", nil)] {
            switch Profile.parse("profile derived\nbase acme\n" + more, file: "derived.profile", base: { _ in p }) {
            case .success(let d): XCTAssertEqual(d.spec.policy.retryAfter?.mode, mode, more)
            case .failure(let e): XCTFail(e.errors.map(\.description).joined(separator: "; "))
            }
        }
    }

    // MARK: the scenario's `server ... retry-after D`

    /// Every form of `server` takes it right after the status; it writes back as read.
    func test_scenario_everyServerFormTakesIt() {
        let cases: [(String, Action)] = [
            ("server 429 retry-after 10s", .serverPlanned(.retryAfter(429, 10_000), .times(1))),
            ("server 503 retry-after 2s x3", .serverPlanned(.retryAfter(503, 2000), .times(3))),
            ("server 503 retry-after 2s 30%", .serverPlanned(.retryAfter(503, 2000), .chance(3000))),
            (
                "server 429 retry-after 5s always for purchase",
                .serverPlanned(.retryAfter(429, 5000), .always, for: .name("purchase"))
            ),
            (
                "server 429 retry-after 1.5s x2 for kind:event",
                .serverPlanned(.retryAfter(429, 1500), .times(2), for: .kind("event"))
            ),
            ("server 429 retry-after 0", .serverPlanned(.retryAfter(429, 0), .times(1))),
        ]
        for (line, action) in cases {
            let words = line.split(separator: " ").map(String.init)
            guard case .success(let a) = ActionSyntax.parse(words) else { return XCTFail(line) }
            XCTAssertEqual(a, action, line)
            let back = ActionSyntax.text(for: a)
            XCTAssertEqual(
                ActionSyntax.parse(back.split(separator: " ").map(String.init)).flatMap { try? $0.get() }, action,
                back)
        }
        XCTAssertEqual(ActionSyntax.text(for: cases[1].1), "server 503 retry-after 2s x3")
        XCTAssertEqual(ActionSyntax.text(for: cases[0].1), "server 429 retry-after 10s x1")
    }

    /// Bad `retry-after` words are named with the file and line.
    func test_scenario_badRetryAfterWordsAreNamed() {
        let form =
            "expected `server <status> retry-after <time> [x<N> | always | <N>%] [for ...]`, e.g. `server 429 retry-after 10s`"
        let cases: [(String, String)] = [
            (
                "server ok retry-after 10s",
                "bad server line: `retry-after` goes with a status answer (100-599), not `ok`; expected e.g. `server 429 retry-after 10s`"
            ),
            (
                "server timeout retry-after 10s x2",
                "bad server line: `retry-after` goes with a status answer (100-599), not `timeout`; expected e.g. `server 429 retry-after 10s`"
            ),
            (
                "server lost retry-after 1s",
                "bad server line: `retry-after` goes with a status answer (100-599), not `lost`; expected e.g. `server 429 retry-after 10s`"
            ),
            (
                "server partial retry-after 1s",
                "bad server line: `retry-after` goes with a status answer (100-599), not `partial`; expected e.g. `server 429 retry-after 10s`"
            ),
            ("server 429 retry-after", "bad server line: `retry-after` needs a time after it, " + form),
            ("server 429 retry-after soon", "bad retry-after time `soon`, " + VirtualTime.expected),
            ("server 429 retry-after -1s", "bad retry-after time `-1s`, " + VirtualTime.expected),
            (
                "server 429 retry-after 200000h",
                "bad retry-after time `200000h`, expected at most 100000h, the longest time Outbox takes"
            ),
            ("server 429 x3 retry-after 10s", "bad server line: `retry-after` goes right after the answer, " + form),
            ("server retry-after 10s 429", "bad server line: the answer comes before `retry-after`, " + form),
        ]
        for (line, message) in cases {
            let text = "profile ios\nat 0 launch\nat 0 \(line)\n"
            switch Scenario.parse(text, file: "s.outbox") {
            case .success: XCTFail("parsed: " + line)
            case .failure(let e): XCTAssertEqual(e.errors.map(\.description), ["s.outbox:3: " + message], line)
            }
        }
    }
}
