import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// The app lifecycle and `offline self` with batching (Policy/Lifecycle.swift,
/// Policy/Batching.swift): the background's flush sends batches, the interval
/// is suspended in the background, the limit cancels a batch as one, and the
/// mark counts a batch's attempt once.
final class RuleTestsLifecycleBatching: XCTestCase {
    typealias U = UserProfileKit

    static func acme(_ more: String) -> String { ProfileStatementTests.acme(more: more) }

    /// Background: the flush sends what waits as a batch; in the background
    /// the interval is suspended (c waits past 30 s); past the limit the app is
    /// suspended and the foreground sends the batch; a batch on the wire at the
    /// limit is cancelled as one (its members do what a transport failure does).
    func test_background_flushesBatches_suspendsTheInterval_cancelsABatchAsOne() {
        guard
            let r = U.play(
                profile: Self.acme(
                    "batch up to 10 every 30s rule ACME-8\non background flush rule ACME-7\nbackground limit 5s rule ACME-6"
                ),
                """
                profile acme
                at 0 launch
                at 0 track a
                at 0.1s track b
                at 1s background
                at 2s track c
                expect at 39s state c pending
                at 40s foreground
                at 41s set latency 20s
                at 41s set timeout 60s
                at 41s track d
                at 42s background
                expect at 50s state d queued
                at 60s foreground
                expect at 80s state d delivered
                """)
        else { return }
        XCTAssertEqual(
            RuleTestsBatching.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "b: 100 new>pending #0 ACME-1",
                "a: 1000 pending>in-flight #1 ACME-7 b1",
                "b: 1000 pending>in-flight #1 ACME-7 b1",
                "a: 1200 in-flight>delivered #1 200 ACME-1 b1",
                "b: 1200 in-flight>delivered #1 200 ACME-1 b1",
                "c: 2000 new>pending #0 ACME-1",
                "c: 40000 pending>in-flight #1 ACME-6 b2",
                "c: 40200 in-flight>delivered #1 200 ACME-1 b2",
                "d: 41000 new>pending #0 ACME-1",
                "d: 42000 pending>in-flight #1 ACME-7 b3",
                "d: 47000 in-flight>retrying #1 network-lost ACME-2 b3",
                "d: 48000 retrying>queued #1 ACME-6 b3",
                "d: 60000 queued>in-flight #2 ACME-6 b4",
                "d: 80000 in-flight>delivered #2 200 ACME-1 b4",
            ])
        XCTAssertEqual(
            U.logs(r.sim),
            [
                "0 [-] app launched (launch 1)",
                "1000 [ACME-7] app went to the background",
                "1000 [ACME-7] on background: flush, sending 2 waiting",
                "1000 [ACME-7] batch 1: 2 requests (#1 … #2)",
                "40000 [ACME-7] app came to the foreground",
                "40000 [ACME-6] back from suspension: sending 1 waiting",
                "40000 [ACME-6] batch 2: 1 request (#3 'c')",
                "41000 [-] set latency 20s",
                "41000 [-] set timeout 60s",
                "42000 [ACME-7] app went to the background",
                "42000 [ACME-7] on background: flush, sending 1 waiting",
                "42000 [ACME-7] batch 3: 1 request (#4 'd')",
                "47000 [ACME-6] background time is up (5s): batch 3 cancelled on the wire",
                "60000 [ACME-7] app came to the foreground",
                "60000 [ACME-6] back from suspension: sending 1 waiting",
                "60000 [ACME-6] batch 4: 1 request (#4 'd')",
            ])
    }

    /// `offline self` counts a batch's attempt once: two failed batches mark it;
    /// the network's return clears it and sends everything waiting in one batch.
    func test_offlineSelf_countsABatchOnce() {
        guard
            let r = U.play(
                profile: Self.acme(
                    "batch up to 10 when 2 waiting rule ACME-8\noffline self after 2 failures rule ACME-7"),
                """
                profile acme
                at 0 launch
                at 0 server 503 always
                at 0 track a
                at 0.1s track b
                at 0.5s track c
                at 0.6s track d
                at 5s track e
                at 10s network offline
                at 10s server ok
                at 11s network online
                expect at 12s state e delivered
                """)
        else { return }
        XCTAssertEqual(
            RuleTestsBatching.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "b: 100 new>pending #0 ACME-1",
                "a: 100 pending>in-flight #1 ACME-8 b1",
                "b: 100 pending>in-flight #1 ACME-8 b1",
                "a: 300 in-flight>retrying #1 503 ACME-2 b1",
                "b: 300 in-flight>retrying #1 503 ACME-2 b1",
                "c: 500 new>pending #0 ACME-1",
                "d: 600 new>pending #0 ACME-1",
                "c: 600 pending>in-flight #1 ACME-8 b2",
                "d: 600 pending>in-flight #1 ACME-8 b2",
                "c: 800 in-flight>retrying #1 503 ACME-2 b2",
                "d: 800 in-flight>retrying #1 503 ACME-2 b2",
                "a: 1300 retrying>queued #1 ACME-7 b1",
                "b: 1300 retrying>queued #1 ACME-7 b1",
                "c: 1800 retrying>queued #1 ACME-7 b2",
                "d: 1800 retrying>queued #1 ACME-7 b2",
                "e: 5000 new>queued #0 ACME-7",
                "a: 11000 queued>in-flight #2 ACME-7 b3",
                "b: 11000 queued>in-flight #2 ACME-7 b3",
                "c: 11000 queued>in-flight #2 ACME-7 b3",
                "d: 11000 queued>in-flight #2 ACME-7 b3",
                "e: 11000 queued>in-flight #1 ACME-7 b3",
                "a: 11200 in-flight>delivered #2 200 ACME-1 b3",
                "b: 11200 in-flight>delivered #2 200 ACME-1 b3",
                "c: 11200 in-flight>delivered #2 200 ACME-1 b3",
                "d: 11200 in-flight>delivered #2 200 ACME-1 b3",
                "e: 11200 in-flight>delivered #1 200 ACME-1 b3",
            ])
        XCTAssertEqual(
            U.logs(r.sim).filter { $0.contains("ACME-7") },
            [
                "800 [ACME-7] SDK marks itself offline: 2 failed attempts in a row; nothing is sent until the network returns or the app launches again",
                "11000 [ACME-7] SDK no longer offline: the network returned; sending 5 waiting",
                "11000 [ACME-7] batch 3: 5 requests (#1 … #5)",
            ])
    }
}
