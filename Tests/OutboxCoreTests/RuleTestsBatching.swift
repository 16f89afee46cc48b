import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// `batch up to N [when M waiting|new] [every D] [head-of-line] rule R`, `batch
/// split`, `batch exhausted drops queue` (Policy/Batching.swift, issue 24 item
/// 1): whole histories of the made-up ACME profile with batching, with each
/// transition's batch, and the statement's errors.
final class RuleTestsBatching: XCTestCase {
    typealias U = UserProfileKit

    static func acme(_ more: String, on: String? = nil) -> String {
        if let on { return ProfileStatementTests.acme(on: on, more: more) }
        return ProfileStatementTests.acme(more: more)
    }

    /// `UserProfileKit.trails` with each transition's batch: `... ACME-8 b1`.
    static func trails(_ sim: Simulation) -> [String] {
        sim.journal.compactMap { e in
            guard case .transition(let t) = e else { return nil }
            return "\(sim.name(of: t.request)): " + trailLine(t, rule: sim.profile.rule(t.rule).id)
                + (t.batch > 0 ? " b\(t.batch)" : "")
        }
    }

    // MARK: What starts a flush

    /// `when M waiting`: the M-th waiting request starts a flush; one answer for
    /// the whole batch; every member's attempt counts; the backend counts the batch
    /// and each request. The outputs say the batch.
    func test_countTrigger_sendsTheBatchWhenMWaitAndOneAnswerServesAll() {
        guard
            let r = U.play(
                profile: Self.acme("batch up to 3 rule ACME-8"),
                """
                profile acme
                at 0 launch
                at 0 track a
                at 0.1s track b
                at 0.2s track c
                at 0.3s track d
                expect at 0.4s state c delivered
                expect at 0.4s state d pending
                expect at 0.4s received a 1
                """)
        else { return }
        XCTAssertEqual(
            Self.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "b: 100 new>pending #0 ACME-1",
                "c: 200 new>pending #0 ACME-1",
                "a: 200 pending>in-flight #1 ACME-8 b1",
                "b: 200 pending>in-flight #1 ACME-8 b1",
                "c: 200 pending>in-flight #1 ACME-8 b1",
                "d: 300 new>pending #0 ACME-1",
                "a: 400 in-flight>delivered #1 200 ACME-1 b1",
                "b: 400 in-flight>delivered #1 200 ACME-1 b1",
                "c: 400 in-flight>delivered #1 200 ACME-1 b1",
            ])
        XCTAssertEqual(r.sim.backend.batches, 1)
        XCTAssertEqual(r.sim.backend.received, 3)
        XCTAssertEqual(r.sim.batchCount, 1)
        XCTAssertTrue(U.logs(r.sim).contains("200 [ACME-8] batch 1: 3 requests (#1 … #3)"), "\(U.logs(r.sim))")
        XCTAssertTrue(
            r.jsonl.contains(
                #"{"t":0.2,"id":2,"name":"b","kind":"event","from":"pending","to":"in-flight","attempt":1,"rule":"ACME-8","batch":1}"#
            ), r.jsonl.joined(separator: "\n"))
        XCTAssertTrue(
            r.text.contains(
                "00:00:00.400  #3    event          c               in-flight → delivered   attempt 1   200                   ACME-1  batch 1"
            ), r.text.joined(separator: "\n"))
        // A transition outside any batch says none: the timeline is as before.
        XCTAssertTrue(
            r.jsonl.contains(
                #"{"t":0.3,"id":4,"name":"d","kind":"event","from":"new","to":"pending","attempt":0,"rule":"ACME-1"}"#))
    }

    /// `every D`: from the launch, each D what waits goes (in batches of at
    /// most N, side by side); an interval with nothing waiting does nothing, and
    /// the run ends once nothing waits (the interval does not keep it going).
    func test_interval_flushesWhatWaitsEveryDFromTheLaunchAndTheRunEnds() {
        guard
            let r = U.play(
                profile: Self.acme("batch up to 2 when 10 waiting every 5s rule ACME-8"),
                """
                profile acme
                at 1s launch
                at 2s track a
                at 3s track b
                at 4s track c
                at 13s track d
                """)
        else { return }
        XCTAssertEqual(
            Self.trails(r.sim),
            [
                "a: 2000 new>pending #0 ACME-1",
                "b: 3000 new>pending #0 ACME-1",
                "c: 4000 new>pending #0 ACME-1",
                // 6 s: the first interval after the launch at 1 s; two batches side by side.
                "a: 6000 pending>in-flight #1 ACME-8 b1",
                "b: 6000 pending>in-flight #1 ACME-8 b1",
                "c: 6000 pending>in-flight #1 ACME-8 b2",
                "a: 6200 in-flight>delivered #1 200 ACME-1 b1",
                "b: 6200 in-flight>delivered #1 200 ACME-1 b1",
                "c: 6200 in-flight>delivered #1 200 ACME-1 b2",
                "d: 13000 new>pending #0 ACME-1",
                // 11 s flushed nothing; 16 s takes d.
                "d: 16000 pending>in-flight #1 ACME-8 b3",
                "d: 16200 in-flight>delivered #1 200 ACME-1 b3",
            ])
        XCTAssertEqual(r.sim.now, 16200, "the run ends when nothing waits")
        XCTAssertEqual(
            U.logs(r.sim).filter { $0.contains("interval") },
            [
                "6000 [ACME-8] interval flush (every 5s): 3 waiting",
                "16000 [ACME-8] interval flush (every 5s): 1 waiting",
            ])
    }

    /// A batch keeps its members through its retries: one backoff for all (the
    /// jitter drawn once), every member's attempts counted; side by side, a new
    /// batch goes meanwhile.
    func test_retry_keepsTheBatchTogetherWithOneBackoffAndOthersGoSideBySide() {
        guard
            let r = U.play(
                profile: Self.acme("batch up to 2 rule ACME-8"),
                """
                profile acme
                set retry.jitter full
                at 0 launch
                at 0 server 503 x2
                at 0 track a
                at 0 track b
                at 0.3s track c
                at 0.3s track d
                expect at 10s attempts a 2
                expect at 10s attempts c 2
                """)
        else { return }
        let trails = Self.trails(r.sim)
        XCTAssertEqual(
            Array(trails.prefix(8)),
            [
                "a: 0 new>pending #0 ACME-1",
                "b: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-8 b1",
                "b: 0 pending>in-flight #1 ACME-8 b1",
                "a: 200 in-flight>retrying #1 503 ACME-2 b1",
                "b: 200 in-flight>retrying #1 503 ACME-2 b1",
                "c: 300 new>pending #0 ACME-1",
                "d: 300 new>pending #0 ACME-1",
            ])
        // a and b wait the same jittered backoff and go out together again.
        let a = r.sim.history(of: 1).map(\.time), b = r.sim.history(of: 2).map(\.time)
        XCTAssertEqual(a, b)
        XCTAssertEqual(r.sim.history(of: 1).map(\.batch), [0, 1, 1, 1, 1])
        // c and d go in batch 2 meanwhile; it takes the plan's second 503.
        XCTAssertEqual(r.sim.history(of: 3).map(\.batch), [0, 2, 2, 2, 2])
        XCTAssertEqual(r.sim.request(3).state, .delivered)
        XCTAssertEqual(r.sim.backend.batches, 4)
    }

    /// Head-of-line: while a batch waits to retry nothing else goes, even with M
    /// waiting; once it is delivered the flush goes on with what waits, batch by batch.
    func test_headOfLine_thePipelineWaitsOnTheFailingBatchThenDrains() {
        guard
            let r = U.play(
                profile: Self.acme("batch up to 2 every 10s head-of-line rule ACME-8"),
                """
                profile acme
                at 0 launch
                at 0 server 503 x2
                at 0 track a
                at 0.1s track b
                at 0.5s track c
                at 0.6s track d
                at 0.7s track e
                expect at 3.6s state c pending
                """)
        else { return }
        XCTAssertEqual(
            Self.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "b: 100 new>pending #0 ACME-1",
                "a: 100 pending>in-flight #1 ACME-8 b1",
                "b: 100 pending>in-flight #1 ACME-8 b1",
                "a: 300 in-flight>retrying #1 503 ACME-2 b1",
                "b: 300 in-flight>retrying #1 503 ACME-2 b1",
                "c: 500 new>pending #0 ACME-1",
                "d: 600 new>pending #0 ACME-1",
                "e: 700 new>pending #0 ACME-1",
                "a: 1300 retrying>in-flight #2 ACME-2 b1",
                "b: 1300 retrying>in-flight #2 ACME-2 b1",
                "a: 1500 in-flight>retrying #2 503 ACME-2 b1",
                "b: 1500 in-flight>retrying #2 503 ACME-2 b1",
                "a: 3500 retrying>in-flight #3 ACME-2 b1",
                "b: 3500 retrying>in-flight #3 ACME-2 b1",
                "a: 3700 in-flight>delivered #3 200 ACME-1 b1",
                "b: 3700 in-flight>delivered #3 200 ACME-1 b1",
                "c: 3700 pending>in-flight #1 ACME-8 b2",
                "d: 3700 pending>in-flight #1 ACME-8 b2",
                "c: 3900 in-flight>delivered #1 200 ACME-1 b2",
                "d: 3900 in-flight>delivered #1 200 ACME-1 b2",
                "e: 3900 pending>in-flight #1 ACME-8 b3",
                "e: 4100 in-flight>delivered #1 200 ACME-1 b3",
            ])
    }

    /// `on 5xx queue`: the batch's members go back to the queue (saved) and the
    /// next flush sends them with the newer ones, in a new batch (Segment's
    /// default mode); the queued ones count toward `when M waiting`.
    func test_queueAnswer_putsTheBatchBackForTheNextFlushInANewBatch() {
        guard
            let r = U.play(
                profile: Self.acme(
                    "batch up to 3 every 5s rule ACME-8",
                    on: """
                        on 2xx deliver rule ACME-1
                        on transport retry rule ACME-2
                        on 5xx queue rule ACME-5
                        on 4xx drop rejected rule ACME-3
                        """),
                """
                profile acme
                at 0 launch
                at 0 server 503 x1
                at 1s track a
                at 2s track b
                expect at 5.5s saved 2
                at 6s track c
                """)
        else { return }
        XCTAssertEqual(
            Self.trails(r.sim),
            [
                "a: 1000 new>pending #0 ACME-1",
                "b: 2000 new>pending #0 ACME-1",
                "a: 5000 pending>in-flight #1 ACME-8 b1",
                "b: 5000 pending>in-flight #1 ACME-8 b1",
                "a: 5200 in-flight>queued #1 503 ACME-5 b1",
                "b: 5200 in-flight>queued #1 503 ACME-5 b1",
                "c: 6000 new>pending #0 ACME-1",
                // Three wait (two queued, one new): a flush.
                "a: 6000 queued>in-flight #2 ACME-8 b2",
                "b: 6000 queued>in-flight #2 ACME-8 b2",
                "c: 6000 pending>in-flight #1 ACME-8 b2",
                "a: 6200 in-flight>delivered #2 200 ACME-1 b2",
                "b: 6200 in-flight>delivered #2 200 ACME-1 b2",
                "c: 6200 in-flight>delivered #1 200 ACME-1 b2",
            ])
    }

    /// `when M new` counts the requests made since the last flush (Segment's
    /// CountBasedFlushPolicy), `when M waiting` the queue's depth (PostHog's):
    /// after a failed flush put three back, one more starts a flush by depth,
    /// but it takes three new ones by count.
    func test_whenNew_countsSinceTheLastFlush_whenWaiting_theQueuesDepth() {
        let on = """
            on 2xx deliver rule ACME-1
            on transport retry rule ACME-2
            on 5xx queue rule ACME-5
            on 4xx drop rejected rule ACME-3
            """
        let scenario = """
            profile acme
            at 0 launch
            at 0 server 503 x1
            at 1s track a
            at 2s track b
            at 3s track c
            at 4s track d
            at 5s track e
            at 6s track f
            """
        func sends(_ when: String) -> [String] {
            guard let r = U.play(profile: Self.acme("batch up to 10 \(when) every 1m rule ACME-8", on: on), scenario)
            else { return [] }
            return Self.trails(r.sim).filter { $0.contains(">in-flight") }
        }
        XCTAssertEqual(
            sends("when 3 new"),
            [
                "a: 3000 pending>in-flight #1 ACME-8 b1", "b: 3000 pending>in-flight #1 ACME-8 b1",
                "c: 3000 pending>in-flight #1 ACME-8 b1",
                // d and e are not enough: three new since the flush at 3 s, at 6 s.
                "a: 6000 queued>in-flight #2 ACME-8 b2", "b: 6000 queued>in-flight #2 ACME-8 b2",
                "c: 6000 queued>in-flight #2 ACME-8 b2", "d: 6000 pending>in-flight #1 ACME-8 b2",
                "e: 6000 pending>in-flight #1 ACME-8 b2", "f: 6000 pending>in-flight #1 ACME-8 b2",
            ])
        XCTAssertEqual(
            sends("when 3 waiting"),
            [
                "a: 3000 pending>in-flight #1 ACME-8 b1", "b: 3000 pending>in-flight #1 ACME-8 b1",
                "c: 3000 pending>in-flight #1 ACME-8 b1",
                // Four wait at 4 s (three queued, d): a flush at once.
                "a: 4000 queued>in-flight #2 ACME-8 b2", "b: 4000 queued>in-flight #2 ACME-8 b2",
                "c: 4000 queued>in-flight #2 ACME-8 b2", "d: 4000 pending>in-flight #1 ACME-8 b2",
                // Then e and f are two: they wait for the interval.
                "e: 60000 pending>in-flight #1 ACME-8 b3", "f: 60000 pending>in-flight #1 ACME-8 b3",
            ])
    }

    // MARK: Outcomes of a batch

    /// `batch split 413`: a batch of two or more answered 413 is halved and both
    /// halves go out at once, the attempt not counted against the budget; a
    /// batch of one answered 413 gets what the answer table says.
    func test_split_halvesTheBatchUntilOneThenTheAnswerTableDecides() {
        guard
            let r = U.play(
                profile: Self.acme("batch up to 4 rule ACME-8\nbatch split 413 rule ACME-7"),
                """
                profile acme
                at 0 launch
                at 0 server 413 x4
                at 0 track a
                at 0 track b
                at 0 track c
                at 0 track d
                expect at 1s dropped a rejected
                expect at 1s state b delivered
                """)
        else { return }
        XCTAssertEqual(
            Self.trails(r.sim).filter { $0.hasPrefix("a:") || $0.hasPrefix("b:") },
            [
                "a: 0 new>pending #0 ACME-1",
                "b: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-8 b1",
                "b: 0 pending>in-flight #1 ACME-8 b1",
                "a: 200 in-flight>pending #1 413 ACME-7 b1",
                "b: 200 in-flight>pending #1 413 ACME-7 b1",
                "a: 200 pending>in-flight #2 ACME-7 b2",
                "b: 200 pending>in-flight #2 ACME-7 b2",
                "a: 400 in-flight>pending #2 413 ACME-7 b2",
                "b: 400 in-flight>pending #2 413 ACME-7 b2",
                "a: 400 pending>in-flight #3 ACME-7 b4",
                "b: 400 pending>in-flight #3 ACME-7 b5",
                "a: 600 in-flight>dropped #3 413 rejected ACME-3 b4",
                "b: 600 in-flight>delivered #3 200 ACME-1 b5",
            ])
        XCTAssertEqual(r.sim.request(1).budgetUsed, 1, "the two splits were not counted against the budget")
        XCTAssertTrue(U.logs(r.sim).contains("200 [ACME-7] batch 1 split in two (2 + 2 requests) after 413"))
    }

    /// `batch exhausted drops queue`: the batch whose budget ends is dropped,
    /// and every request waiting with it (PostHog's dropAllQueuedRecords).
    func test_exhaustedDropsQueue_dropsEveryWaitingRequestWithTheBatch() {
        guard
            let r = U.play(
                profile: Self.acme("batch up to 2 rule ACME-8\nbatch exhausted drops queue rule ACME-6"),
                """
                profile acme
                at 0 launch
                at 0 server 503 always
                at 0 track a
                at 0 track b
                at 1s track c
                expect at 4s dropped c exhausted
                """)
        else { return }
        XCTAssertEqual(
            Array(Self.trails(r.sim).suffix(3)),
            [
                "a: 3600 in-flight>dropped #3 503 exhausted ACME-2 b1",
                "b: 3600 in-flight>dropped #3 503 exhausted ACME-2 b1",
                "c: 3600 pending>dropped #0 exhausted ACME-6",
            ])
        XCTAssertTrue(
            U.logs(r.sim).contains("3600 [ACME-6] queue dropped: 1 request waiting, after a batch ran out of attempts"))
        XCTAssertEqual(r.sim.savedCount, 0)
    }

    /// `on CLASS stall`: the batch's upload never returns; it stays on the wire
    /// and nothing more goes (no interval, no count trigger, the network coming
    /// back changes nothing) until the app closes; the next launch sends again.
    func test_stall_stopsEveryUploadUntilTheAppCloses() {
        guard
            let r = U.play(
                profile: Self.acme(
                    "batch up to 2 every 5s rule ACME-8\nresend on network rule ACME-4",
                    on: """
                        on 2xx deliver rule ACME-1
                        on offline stall rule ACME-6
                        on transport retry rule ACME-2
                        on 5xx retry rule ACME-2
                        on 4xx drop rejected rule ACME-3
                        """),
                """
                profile acme
                at 0 launch
                at 0 network offline
                at 1s track a
                at 5.5s network online
                at 6s track b
                at 6s track c
                expect at 29s state a in-flight
                expect at 29s state c pending
                at 30s quit
                at 31s launch
                expect at 32s state a delivered
                expect at 32s state c delivered
                """)
        else { return }
        XCTAssertEqual(
            Self.trails(r.sim),
            [
                "a: 1000 new>pending #0 ACME-1",
                "a: 5000 pending>in-flight #1 ACME-8 b1",
                "b: 6000 new>pending #0 ACME-1",
                "c: 6000 new>pending #0 ACME-1",
                "a: 30000 in-flight>queued #1 ACME-4 b1",
                "b: 30000 pending>queued #0 ACME-4",
                "c: 30000 pending>queued #0 ACME-4",
                "a: 31000 queued>in-flight #2 ACME-4 b2",
                "b: 31000 queued>in-flight #1 ACME-4 b2",
                "c: 31000 queued>in-flight #1 ACME-4 b3",
                "a: 31200 in-flight>delivered #2 200 ACME-1 b2",
                "b: 31200 in-flight>delivered #1 200 ACME-1 b2",
                "c: 31200 in-flight>delivered #1 200 ACME-1 b3",
            ])
        XCTAssertTrue(
            U.logs(r.sim).contains(
                "5000 [ACME-6] batch 1 stalled after offline: no answer will come, uploads stop until the app closes"),
            "\(U.logs(r.sim))")
    }

    /// The network going off fails the whole batch on the wire as one; a quit
    /// keeps its saved members and the next launch resends them in batches.
    func test_networkOffAndQuit_endTheBatchAsOneAndTheLaunchResendsInBatches() {
        guard
            let r = U.play(
                profile: Self.acme("batch up to 2 rule ACME-8"),
                """
                profile acme
                at 0 launch
                at 0 track a
                at 0 track b
                at 0.05s network offline
                at 0.5s track c
                at 0.6s quit
                at 1s network online
                at 2s launch
                expect at 3s state a delivered
                expect at 3s state c delivered
                """)
        else { return }
        XCTAssertEqual(
            Self.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "b: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-8 b1",
                "b: 0 pending>in-flight #1 ACME-8 b1",
                "a: 50 in-flight>retrying #1 network-lost ACME-2 b1",
                "b: 50 in-flight>retrying #1 network-lost ACME-2 b1",
                "c: 500 new>pending #0 ACME-1",
                "a: 600 retrying>queued #1 ACME-4 b1",
                "b: 600 retrying>queued #1 ACME-4 b1",
                "c: 600 pending>queued #0 ACME-4",
                "a: 2000 queued>in-flight #2 ACME-4 b2",
                "b: 2000 queued>in-flight #2 ACME-4 b2",
                "c: 2000 queued>in-flight #1 ACME-4 b3",
                "a: 2200 in-flight>delivered #2 200 ACME-1 b2",
                "b: 2200 in-flight>delivered #2 200 ACME-1 b2",
                "c: 2200 in-flight>delivered #1 200 ACME-1 b3",
            ])
        XCTAssertEqual(r.sim.backend.batches, 2, "batch 1 never reached the backend")
    }

    /// The network returning resends what waits, the requests never sent
    /// included: a pending request is not lost from the queue by the resend
    /// (it once was, and the interval then flushed nothing for ever).
    func test_networkBack_resendsThePendingRequestsToo() {
        guard
            let r = U.play(
                profile: Self.acme("batch up to 5 every 10s rule ACME-8\nresend on network rule ACME-4"),
                """
                profile acme
                at 0 launch
                at 0.5s track a
                at 1s network offline
                at 2s network online
                at 3s track b
                expect at 30s state a delivered
                expect at 30s state b delivered
                """)
        else { return }
        XCTAssertEqual(
            Self.trails(r.sim),
            [
                "a: 500 new>pending #0 ACME-1",
                "a: 2000 pending>in-flight #1 ACME-4 b1",
                "a: 2200 in-flight>delivered #1 200 ACME-1 b1",
                "b: 3000 new>pending #0 ACME-1",
                "b: 10000 pending>in-flight #1 ACME-8 b2",
                "b: 10200 in-flight>delivered #1 200 ACME-1 b2",
            ])
        XCTAssertEqual(
            U.logs(r.sim).filter { $0.contains("interval") }, ["10000 [ACME-8] interval flush (every 10s): 1 waiting"])
    }

    /// `keep at most N drop oldest` counts the requests waiting for a flush and
    /// evicts the oldest of them.
    func test_capacity_countsAndEvictsRequestsWaitingForAFlush() {
        guard
            let r = U.play(
                profile: Self.acme("batch up to 10 every 1m rule ACME-8\nkeep at most 2 drop oldest rule ACME-7"),
                """
                profile acme
                at 0 launch
                at 1s track a
                at 2s track b
                at 3s track c
                expect at 3s dropped a overflow
                expect at 61s state c delivered
                """)
        else { return }
        XCTAssertEqual(
            Self.trails(r.sim).prefix(5),
            [
                "a: 1000 new>pending #0 ACME-1",
                "b: 2000 new>pending #0 ACME-1",
                "a: 3000 pending>dropped #0 overflow ACME-7",
                "c: 3000 new>pending #0 ACME-1",
                "b: 60000 pending>in-flight #1 ACME-8 b1",
            ])
    }

    /// The seeds' profiles do not batch: no transition of theirs has a batch.
    func test_seedProfiles_haveNoBatches() {
        for name in ["ios", "android", "flutter", "linktrail"] {
            XCTAssertNil((try? ProfileResolver.builtins.resolve(name).get())?.spec.policy.batch, name)
        }
        XCTAssertEqual(MemoryLayout<Transition>.stride, 32, "the batch number fits the transition's padding")
    }

    // MARK: The statement

    func test_errors_badBatchLinesSayWhatWasExpected() {
        let form =
            "expected `batch up to N [and SIZE] [when M waiting|new] [every DURATION] [head-of-line] rule ID`, `batch split STATUS rule ID`, `batch exhausted drops queue rule ID`, `batch names STATUS rule ID` or `batch none`"
        let up = "expected `batch up to N [and SIZE] [when M waiting|new] [every DURATION] [head-of-line] rule ID`"
        let size = "expected a whole number from 1 to 10000"
        let cases: [(String, String)] = [
            ("batch", "bad batch line, " + form),
            ("batch 20 rule ACME-8", "bad batch line `20`, " + form),
            ("batch upto 20 rule ACME-8", "bad batch line `upto`, " + form),
            ("batch splt 413 rule ACME-7", "bad batch line `splt`, " + form + "; did you mean `split`?"),
            ("batch up to", "bad batch line, " + up),
            ("batch up to 0 rule ACME-8", "bad batch size `0`, " + size),
            ("batch up to 10001 rule ACME-8", "bad batch size `10001`, " + size),
            ("batch up to lots rule ACME-8", "bad batch size `lots`, " + size),
            ("batch up to 20", "bad batch line, " + up),
            ("batch up to 20 every 5s", "the batch line cites no rule, " + up),
            (
                "batch up to 20 every rule ACME-8",
                "bad batch interval `rule`, expected 0, a number with a unit (250ms, 1.5s, 2m, 1h), units together (2m10s, 1h2m3.5s) or a clock (00:02:10.000), in whole milliseconds"
            ),
            (
                "batch up to 20 every 0 rule ACME-8",
                "bad batch interval `0`, expected a duration above 0 (leave `every` out for none)"
            ),
            (
                "batch up to 20 when 5 rule ACME-8",
                "`when` needs a count and `waiting` or `new` after it (`when 20 waiting`), " + up
            ),
            ("batch up to 20 when 0 waiting rule ACME-8", "bad batch count `0`, " + size),
            (
                "batch up to 20 head-of-lne rule ACME-8",
                "unexpected `head-of-lne`, " + up + "; did you mean `head-of-line`?"
            ),
            ("batch up to 20 rule", "`rule` needs a rule ID after it, " + up),
            ("batch up to 20 rule ACME-8 now", "unexpected `now` after the rule, " + up),
            (
                "batch up to 20 rule ACME-99",
                "rule ACME-99 is cited but not defined, expected a line `rule ACME-99 \"what it does\"`"
            ),
        ]
        for (line, message) in cases {
            let errors = U.errors(Self.acme(line))
            XCTAssertEqual(errors.count, 1, line + ": \(errors)")
            XCTAssertTrue(errors.first?.hasSuffix(message) ?? false, line + ": \(errors.first ?? "none")")
            XCTAssertTrue(errors.first?.hasPrefix("acme.profile:25: ") ?? false, line + ": \(errors.first ?? "none")")
        }
    }

    func test_errors_splitAndExhaustedNeedABatchAndSayTheirForms() {
        let cases: [(String, String)] = [
            ("batch split 413 rule ACME-7", "`batch split` needs a `batch up to N` line before it"),
            ("batch exhausted drops queue rule ACME-7", "`batch exhausted` needs a `batch up to N` line before it"),
            (
                "batch up to 5 rule ACME-8\nbatch split 200 rule ACME-7",
                "bad batch split status `200`, expected a failure status (413)"
            ),
            (
                "batch up to 5 rule ACME-8\nbatch split big rule ACME-7",
                "bad batch split status `big`, expected a failure status (413)"
            ),
            (
                "batch up to 5 rule ACME-8\nbatch split 413",
                "bad batch split line, expected `batch split STATUS rule ID`"
            ),
            (
                "batch up to 5 rule ACME-8\nbatch exhausted drops all rule ACME-7",
                "bad batch exhausted line, expected `batch exhausted drops queue rule ID`"
            ),
        ]
        for (lines, message) in cases {
            let errors = U.errors(Self.acme(lines))
            XCTAssertEqual(errors.count, 1, lines + ": \(errors)")
            XCTAssertTrue(errors.first?.hasSuffix(message) ?? false, lines + ": \(errors.first ?? "none")")
        }
    }

    func test_errors_stallNeedsBatches() {
        XCTAssertEqual(
            U.errors(Self.acme("on 401 stall rule ACME-6")),
            ["acme.profile:25: `on 401 stall` needs batches (`batch up to N ...`): only a batch's upload stalls"])
        XCTAssertEqual(U.errors(Self.acme("on 401 stall rule ACME-6\nbatch up to 5 rule ACME-8")), [])
    }

    func test_errors_batchWithTheFlushOrTheGateIsRefused() {
        let errors = U.errors(
            """
            profile lt
            base linktrail
            rule LTB-1 "Batches of 10."
            batch up to 10 rule LTB-1
            """)
        XCTAssertEqual(
            errors,
            [
                "acme.profile:4: `batch` and `component flush` both send the queue: a profile has one or the other",
                "acme.profile:4: `batch` cannot be combined with `component consent-gate` (not modelled yet)",
            ])
        // `batch none` takes a base's batching away.
        XCTAssertNil(U.load(Self.acme("batch up to 5 rule ACME-8\nbatch none"))?.spec.policy.batch)
    }
}
