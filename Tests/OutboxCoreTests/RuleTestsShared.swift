import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// The shared parts: NET, LAT, TMO, ANS, CANCEL, BACKOFF, RETRYABLE, LOST, BACKEND, ORDER.
///
/// These rules are mechanics under every profile; the transitions they cause carry the
/// rule of the profile that decides the request's fate (LT-4, IOS-4, AND-2, ...), so the
/// tests pin the times, outcomes and backend totals the shared rule fixes.
final class RuleTestsShared: XCTestCase {
    typealias K = RuleTestKit

    // MARK: Refused actions

    /// An action the model refuses says why and changes nothing; trackEvent has its
    /// own quick path through `check`, which must refuse exactly as the general one.
    func test_refusedActionsSayWhyAndChangeNothing() {
        var sim = Simulation(profile: .linktrail)
        XCTAssertEqual(sim.apply(.eventTracked(TrackedEvent(name: "a"))), "the app is not running (launch it first)")
        XCTAssertEqual(sim.apply(.consentGranted), "the app is not running (launch it first)")
        XCTAssertNil(sim.apply(.appLaunched))
        let before = sim.requests.count
        XCTAssertEqual(sim.apply(.eventTracked(TrackedEvent(name: ""))), "an event needs a name")
        XCTAssertEqual(sim.apply(.appLaunched), "the app is already running")
        XCTAssertTrue(
            sim.apply(.pingSent)?.hasPrefix(
                "LinkTrail attribution SDK has no ping requests, expected an action of linktrail: launch, quit, consent grant|deny, track,"
            ) ?? false)
        XCTAssertEqual(sim.requests.count, before, "a refused action creates nothing")
        XCTAssertNil(sim.apply(.eventTracked(TrackedEvent(name: "a"))))
        XCTAssertEqual(sim.requests.count, before + 1)
    }

    // MARK: NET

    func test_NET_offlineAttemptFailsAtOnceAsTransportError() {
        guard let sim = K.fixture("NET-offline-attempt-fails-at-once-as-transport-error")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 LT-1a",
                "1000 pending>in-flight #1 LT-4",
                "1000 in-flight>retrying #1 offline LT-4",
                "3000 retrying>in-flight #2 LT-4",
                "3000 in-flight>retrying #2 offline LT-4",
                "7000 retrying>in-flight #3 LT-4",
                "7000 in-flight>queued #3 offline LT-5",
            ])
        XCTAssertEqual(K.logs(sim, containing: "network offline"), ["1000 [NET] network offline"])
    }

    func test_NET_goingOfflineFailsAttemptsOnTheWire() {
        guard let sim = K.fixture("NET-going-offline-fails-attempts-on-the-wire")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 LT-1a",
                "1000 pending>in-flight #1 LT-4",
                "1190 in-flight>retrying #1 network-lost LT-4",
                "3190 retrying>in-flight #2 LT-4",
                "3190 in-flight>retrying #2 offline LT-4",
                "7190 retrying>in-flight #3 LT-4",
                "7190 in-flight>queued #3 offline LT-5",
                "9200 queued>in-flight #4 LT-11",
                "9400 in-flight>delivered #4 200 LT-11",
            ])
        XCTAssertEqual(K.trail(sim, "b")[2], "1190 in-flight>retrying #1 network-lost LT-4")
        XCTAssertEqual(sim.backend.duplicates, 1, "a reached the backend before the drop and again on the flush")
    }

    func test_NET_iosDoesNotAttemptWhileOffline() {
        guard let sim = K.fixture("NET-ios-does-not-attempt-while-offline")?.sim else { return }
        XCTAssertEqual(K.trail(sim, "a"), ["1000 new>queued #0 IOS-5"])
    }

    // MARK: LAT

    func test_LAT_reachesBackendAtHalfLatencyRoundedDownAnswersAtLatency() {
        guard let sim = K.fixture("LAT-reaches-backend-at-half-latency-rounded-down-answers-at-latency")?.sim else {
            return
        }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 AND-1", "1000 pending>in-flight #1 AND-1", "1301 in-flight>delivered #1 200 AND-1",
            ])
    }

    func test_LAT_defaultLatencyIs200ms() {
        guard let sim = K.fixture("LAT-default-latency-is-200ms")?.sim else { return }
        XCTAssertEqual(K.trail(sim, "ping").last, "5200 in-flight>delivered #1 200 IOS-3")
    }

    // MARK: TMO

    func test_TMO_serverTimeoutFailsAfterTimeoutNeverRecorded() {
        guard let sim = K.fixture("TMO-server-timeout-fails-after-timeout-never-recorded")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 LT-1a",
                "1000 pending>in-flight #1 LT-4",
                "4000 in-flight>retrying #1 timeout LT-4",
                "6000 retrying>in-flight #2 LT-4",
                "6200 in-flight>delivered #2 200 LT-4",
            ])
        XCTAssertEqual(sim.backend.duplicates, 0)
    }

    func test_TMO_timeoutShorterThanLatencyTimesOutEveryAttempt() {
        guard let sim = K.fixture("TMO-timeout-shorter-than-latency-times-out-every-attempt")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "install"),
            [
                "0 new>pending #0 LT-3",
                "0 pending>in-flight #1 LT-3",
                "200 in-flight>retrying #1 timeout LT-4",
                "1200 retrying>in-flight #2 LT-4",
                "1400 in-flight>retrying #2 timeout LT-4",
                "2400 retrying>in-flight #3 LT-4",
                "2600 in-flight>queued #3 timeout LT-5",
                "4000 queued>in-flight #4 LT-11",
                "4200 in-flight>queued #4 timeout LT-11",
            ])
        XCTAssertEqual(sim.backend.received, 0)
    }

    func test_TMO_timeoutShorterThanLatencyReachesBackendWhenHalfLatencyFits() {
        // Half of 401 ms is 200 ms (rounded down): at most the 200 ms timeout, so it arrives.
        guard let sim = K.fixture("TMO-timeout-shorter-than-latency-reaches-backend-when-half-latency-fits")?.sim else {
            return
        }
        XCTAssertEqual(
            K.trail(sim, "install"),
            [
                "0 new>pending #0 LT-3",
                "0 pending>in-flight #1 LT-3",
                "200 in-flight>retrying #1 timeout LT-4",
                "1200 retrying>in-flight #2 LT-4",
                "1400 in-flight>queued #2 timeout LT-5",
            ])
        XCTAssertEqual(sim.backend.duplicates, 1)
    }

    // MARK: ANS

    func test_ANS_answerFixedWhenSentAndOnlyOnlineAttemptsUseThePlan() {
        guard let sim = K.fixture("ANS-answer-fixed-when-sent-and-only-online-attempts-use-the-plan")?.sim else {
            return
        }
        XCTAssertEqual(K.trail(sim, "a").last, "1200 in-flight>delivered #1 200 LT-4")
        XCTAssertEqual(
            K.trail(sim, "b"),
            [
                "2000 new>pending #0 LT-1a",
                "2000 pending>in-flight #1 LT-4",
                "2000 in-flight>retrying #1 offline LT-4",
                "4000 retrying>in-flight #2 LT-4",
                "4200 in-flight>delivered #2 200 LT-4",
            ])
        XCTAssertEqual(
            K.trail(sim, "c").suffix(3),
            [
                "3700 in-flight>retrying #1 500 LT-4", "5700 retrying>in-flight #2 LT-4",
                "5900 in-flight>delivered #2 200 LT-4",
            ])
        XCTAssertEqual(K.logs(sim, containing: "backend will answer"), ["1100 [ANS] backend will answer: 500 ×1"])
    }

    func test_ANS_planCoversNextNAttemptsOrAlwaysAndIsReplaced() {
        guard let sim = K.fixture("ANS-plan-covers-next-n-attempts-or-always-and-is-replaced")?.sim else { return }
        XCTAssertEqual(K.trail(sim, "a").last, "1200 in-flight>queued #1 503 AND-2")
        XCTAssertEqual(K.trail(sim, "b").last, "1200 in-flight>queued #1 503 AND-2")
        XCTAssertEqual(K.trail(sim, "c").last, "1200 in-flight>delivered #1 200 AND-1")
        XCTAssertEqual(K.trail(sim, "d").last, "2200 in-flight>queued #1 404 AND-4")
        XCTAssertEqual(K.trail(sim, "e").last, "2200 in-flight>queued #1 404 AND-4")
        XCTAssertEqual(K.trail(sim, "f").last, "2200 in-flight>queued #1 500 AND-2")
        XCTAssertEqual(K.trail(sim, "g").last, "2200 in-flight>delivered #1 200 AND-1")
        XCTAssertEqual(sim.backend.rejected, 5)
    }

    // MARK: CANCEL

    func test_CANCEL_denialCancelsAttemptsOnlyThoseNotYetArrivedAreUnrecorded() {
        guard let sim = K.fixture("CANCEL-denial-cancels-attempts-only-those-not-yet-arrived-are-unrecorded")?.sim
        else { return }
        XCTAssertEqual(K.trail(sim, "a").last, "1120 in-flight>dropped #1 consent LT-2")
        XCTAssertEqual(K.trail(sim, "b").last, "1120 in-flight>dropped #1 consent LT-2")
        // The answers (1.2 s, 1.25 s) are ignored: nothing is journaled after the denial.
        XCTAssertEqual(sim.journal.last.map(\.time), 1120)
    }

    func test_CANCEL_quitCancelsAttemptsOnTheWire() {
        guard let sim = K.fixture("CANCEL-quit-cancels-attempts-on-the-wire")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "ping").suffix(3),
            [
                "1120 in-flight>queued #1 IOS-6", "2000 queued>in-flight #2 IOS-6",
                "2200 in-flight>delivered #2 200 IOS-3",
            ])
        // Nothing happens at 1.2 s or 1.25 s, when the cancelled answers would have come.
        XCTAssertFalse(sim.journal.contains { $0.time > 1120 && $0.time < 2000 })
    }

    // MARK: BACKOFF

    func test_BACKOFF_delayStartsWhenTheAttemptFails() {
        guard let sim = K.fixture("BACKOFF-delay-starts-when-the-attempt-fails")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a")[2...3], ["1200 in-flight>retrying #1 500 LT-4", "3200 retrying>in-flight #2 LT-4"])
        XCTAssertEqual(
            K.trail(sim, "b")[2...3], ["11000 in-flight>retrying #1 timeout LT-4", "13000 retrying>in-flight #2 LT-4"])
        XCTAssertEqual(
            K.trail(sim, "c")[2...4],
            [
                "20150 in-flight>retrying #1 network-lost LT-4", "22150 retrying>in-flight #2 LT-4",
                "22150 in-flight>retrying #2 offline LT-4",
            ])
    }

    func test_BACKOFF_shortDelayListRepeatsItsLastDelay() {
        guard let sim = K.fixture("BACKOFF-short-delay-list-repeats-its-last-delay")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 LT-1a",
                "1000 pending>in-flight #1 LT-4",
                "1200 in-flight>retrying #1 500 LT-4",
                "3200 retrying>in-flight #2 LT-4",
                "3400 in-flight>retrying #2 500 LT-4",
                "7400 retrying>in-flight #3 LT-4",
                "7600 in-flight>retrying #3 500 LT-4",
                "11600 retrying>in-flight #4 LT-4",
                "11800 in-flight>retrying #4 500 LT-4",
                "15800 retrying>in-flight #5 LT-4",
                "16000 in-flight>queued #5 500 LT-5",
            ])
    }

    func test_BACKOFF_shortDelayListRepeatsOnIOS() {
        guard let sim = K.fixture("BACKOFF-short-delay-list-repeats-on-ios")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "ping").filter { $0.contains(">in-flight") },
            [
                "0 pending>in-flight #1 IOS-2",
                "10200 retrying>in-flight #2 IOS-4",
                "20400 retrying>in-flight #3 IOS-4",
                "30600 retrying>in-flight #4 IOS-4",
            ])
        XCTAssertEqual(K.trail(sim, "ping").last, "30800 in-flight>dropped #4 500 exhausted IOS-4")
    }

    // MARK: RETRYABLE

    func test_RETRYABLE_linkTrail1xxAnd3xxAreRejectedLike4xx() {
        guard let sim = K.fixture("RETRYABLE-linktrail-1xx-and-3xx-are-rejected-like-4xx")?.sim else { return }
        XCTAssertEqual(K.trail(sim, "moved").last, "1200 in-flight>dropped #1 302 rejected LT-6")
        XCTAssertEqual(K.trail(sim, "cont").last, "1200 in-flight>dropped #1 100 rejected LT-6")
    }

    func test_RETRYABLE_ios1xxAnd3xxAreRejectedLike4xx() {
        guard let sim = K.fixture("RETRYABLE-ios-1xx-and-3xx-are-rejected-like-4xx")?.sim else { return }
        XCTAssertEqual(K.trail(sim, "ping").last, "1200 in-flight>dropped #1 301 rejected IOS-3")
        XCTAssertEqual(K.trail(sim, "s").last, "1200 in-flight>dropped #1 101 rejected IOS-3")
    }

    func test_RETRYABLE_android1xxAnd3xxAreKeptLike4xx() {
        guard let sim = K.fixture("RETRYABLE-android-1xx-and-3xx-are-kept-like-4xx")?.sim else { return }
        XCTAssertEqual(K.trail(sim, "a")[2], "1200 in-flight>queued #1 304 AND-4")
    }

    func test_RETRYABLE_flutter1xxAnd3xxAreRejectedLike4xx() {
        guard let sim = K.fixture("RETRYABLE-flutter-1xx-and-3xx-are-rejected-like-4xx")?.sim else { return }
        XCTAssertEqual(K.trail(sim, "a").last, "1200 in-flight>dropped #1 307 rejected FL-3")
        XCTAssertEqual(K.trail(sim, "ping").last, "1200 in-flight>dropped #1 199 rejected FL-3")
    }

    // MARK: LOST

    func test_LOST_backendCountsThenClientTimesOutResendCountedOnce() {
        guard let sim = K.fixture("LOST-backend-counts-then-client-times-out-resend-counted-once")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 LT-1a",
                "1000 pending>in-flight #1 LT-4",
                "11000 in-flight>retrying #1 timeout LT-4",
                "13000 retrying>in-flight #2 LT-4",
                "13200 in-flight>delivered #2 200 LT-4",
            ])
        XCTAssertEqual(K.logs(sim, containing: "answer will be lost").map { String($0.prefix(11)) }, ["1100 [LOST]"])
        XCTAssertEqual(sim.backend.duplicates, 1)
    }

    func test_LOST_withoutIdempotencyKeyTheResendIsCountedAgain() {
        guard let sim = K.fixture("LOST-without-idempotency-key-the-resend-is-counted-again")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "ping")[2...4],
            [
                "10000 in-flight>retrying #1 timeout IOS-4", "40000 retrying>in-flight #2 IOS-4",
                "40200 in-flight>delivered #2 200 IOS-3",
            ])
        XCTAssertEqual(sim.backend.duplicates, 0)
    }

    // MARK: BACKEND

    func test_BACKEND_totalsReceivedCountedDuplicatesRejected() {
        guard let sim = K.fixture("BACKEND-totals-received-counted-duplicates-rejected")?.sim else { return }
        XCTAssertEqual(sim.backend.received, 6)  // install, a, b, c twice, d once
        XCTAssertEqual(sim.backend.counted, 4)  // install, a, c, d
        XCTAssertEqual(sim.backend.duplicates, 1)
        XCTAssertEqual(sim.backend.rejected, 1)
        XCTAssertEqual(K.trail(sim, "b").last, "1200 in-flight>dropped #1 400 rejected LT-6")
        XCTAssertEqual(
            K.trail(sim, "c").suffix(3),
            [
                "11000 in-flight>retrying #1 timeout LT-4", "13000 retrying>in-flight #2 LT-4",
                "13200 in-flight>delivered #2 200 LT-4",
            ])
        XCTAssertEqual(
            K.trail(sim, "d").suffix(3),
            [
                "11000 in-flight>retrying #1 timeout LT-4", "13000 retrying>in-flight #2 LT-4",
                "13200 in-flight>delivered #2 200 LT-4",
            ])
    }

    func test_BACKEND_partialAcceptRecordsEventWithoutDroppedAttributes() {
        guard let sim = K.fixture("BACKEND-partial-accept-records-event-without-dropped-attributes")?.sim else {
            return
        }
        XCTAssertEqual(K.trail(sim, "signup").last, "1200 in-flight>delivered #1 partial LT-4")
        XCTAssertEqual(
            K.logs(sim, containing: "accepted in part"),
            ["1100 [BACKEND] backend: #2 'signup' accepted in part, attributes dropped: plan, age"])
        XCTAssertEqual(sim.backend.rejected, 0)
    }

    func test_BACKEND_partialAcceptIsASuccessOnIOS() {
        guard let sim = K.fixture("BACKEND-partial-accept-is-a-success-on-ios")?.sim else { return }
        XCTAssertEqual(K.trail(sim, "a").last, "200 in-flight>delivered #1 partial IOS-3")
    }

    func test_BACKEND_countsEveryTimeWithoutIdempotencyKey() {
        guard let sim = K.fixture("BACKEND-counts-every-time-without-idempotency-key")?.sim else { return }
        XCTAssertNil(sim.idempotencyKey(of: K.id(sim, "a")))
        XCTAssertEqual(sim.backend.duplicates, 0)
    }

    // MARK: ORDER

    func test_ORDER_timersFireBeforeActionsAtTheSameInstant() {
        guard let sim = K.fixture("ORDER-timers-fire-before-actions-at-the-same-instant")?.sim else { return }
        XCTAssertEqual(K.trail(sim, "ping").last, "1200 in-flight>delivered #1 200 IOS-3")
    }

    func test_ORDER_timersAtOneInstantFireInTheOrderSet() {
        guard let sim = K.fixture("ORDER-timers-at-one-instant-fire-in-the-order-set")?.sim else { return }
        let delivered = sim.journal.compactMap { e -> String? in
            if case .transition(let t) = e, t.to == .delivered { return sim.name(of: t.request) }
            return nil
        }
        XCTAssertEqual(delivered, ["b", "a"])
    }

    func test_ORDER_actionsInFileOrderEachWithItsWholeEffectThenWhatTheySet() {
        guard let sim = K.fixture("ORDER-actions-in-file-order-each-with-its-whole-effect-then-what-they-set")?.sim
        else { return }
        XCTAssertEqual(K.trail(sim, "s1")[2], "1000 in-flight>retrying #1 500 LT-4")
        XCTAssertEqual(K.trail(sim, "s2")[2], "1000 in-flight>delivered #1 200 LT-4")
        // a was on the wire when the next line took the network down; its answer, due at
        // the same instant, was set by the actions and fires only after them.
        XCTAssertEqual(K.trail(sim, "a")[2], "2000 in-flight>retrying #1 network-lost LT-4")
        XCTAssertEqual(K.trail(sim, "z")[2], "5000 in-flight>retrying #1 offline LT-4")
        XCTAssertEqual(K.trail(sim, "a")[3], "4000 retrying>in-flight #2 LT-4")
    }

    func test_ORDER_sameInputGivesSameTimeline() {
        let text = """
            profile linktrail
            set requireConsent false
            at 0 launch
            at 1s server lost
            at 1s track a value=1 currency=USD
            at 2s network offline
            at 2s track b
            at 3s network online
            at 4s consent deny
            at 5s consent grant
            expect at 20s saved 0
            """
        let one = K.timeline(text), two = K.timeline(text)
        XCTAssertGreaterThan(one.count, 10)
        XCTAssertEqual(one, two)
    }

    /// The waits of every retry: from `in-flight → retrying` to `retrying → in-flight`.
    static func retryWaits(jitter: String, seed: Int) -> [Millis] {
        var text = """
            profile ios
            set retry.attempts 4
            set retry.delays 10s
            set retry.jitter \(jitter)
            set seed \(seed)
            at 0 launch
            at 0 server 503 always

            """
        for i in 1...20 { text += "at \(i)s track e\(i)\n" }
        text += "expect at 10m state e1 dropped\n"
        guard let sim = play(text)?.sim else { return [] }
        var out: [Millis] = []
        for id in 1...Int32(sim.requests.count) {
            let h = sim.history(of: id)
            for (a, b) in zip(h, h.dropFirst()) where a.to == .retrying && b.from == .retrying {
                out.append(b.time - a.time)
            }
        }
        return out
    }

    func test_JITTER_noneWaitsTheDelay_fullWithinIt_equalInItsUpperHalf() {
        let none = Self.retryWaits(jitter: "none", seed: 1)
        XCTAssertEqual(none, [Millis](repeating: 10_000, count: 60), "20 requests, 3 retries each")
        let full = Self.retryWaits(jitter: "full", seed: 1)
        XCTAssertEqual(full.count, 60)
        XCTAssertTrue(full.allSatisfy { (0...10_000).contains($0) }, "\(full)")
        XCTAssertGreaterThan(Set(full).count, 40, "drawn, not fixed: \(full)")
        XCTAssertLessThan(full.min()!, 3_000)
        let equal = Self.retryWaits(jitter: "equal", seed: 1)
        XCTAssertTrue(equal.allSatisfy { (5_000...10_000).contains($0) }, "\(equal)")
        XCTAssertGreaterThan(Set(equal).count, 40)
    }

    func test_JITTER_drawnFromTheSeed_sameSeedSameWaits_otherSeedOthers() {
        XCTAssertEqual(Self.retryWaits(jitter: "full", seed: 7), Self.retryWaits(jitter: "full", seed: 7))
        XCTAssertNotEqual(Self.retryWaits(jitter: "full", seed: 7), Self.retryWaits(jitter: "full", seed: 8))
    }
}
