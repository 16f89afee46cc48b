import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// LinkTrail (LT-1 .. LT-13): one or more tests per rule, each pinning exact times,
/// attempts, states, rule IDs on the transitions, log text and backend totals.
///
/// Most scenarios open the gate with `requireConsent false` and launch at 0, so the
/// install goes out at 0 and is delivered at 200 ms (default latency) before the
/// interesting part starts.
final class RuleTestsLinkTrail: XCTestCase {
    typealias K = RuleTestKit

    // MARK: LT-1 Consent gate

    func test_LT_1_undecidedUnderRequireConsentDropsEventNotSentNotSaved() {
        guard let sim = K.fixture("LT-1-undecided-under-require-consent-drops-event-not-sent-not-saved")?.sim else {
            return
        }
        XCTAssertEqual(K.trail(sim, "a"), ["1000 new>dropped #0 consent LT-1"])
        XCTAssertEqual(sim.backend.received, 0)
        // The one saved request is the held install, not the event.
        XCTAssertEqual(sim.request(K.id(sim, "install")).state, .pending)
    }

    func test_LT_1_denialDropsEventsEvenWithoutRequireConsent() {
        guard let sim = K.fixture("LT-1-denial-drops-events-even-without-require-consent")?.sim else { return }
        XCTAssertEqual(K.trail(sim, "a"), ["2000 new>dropped #0 consent LT-1"])
        XCTAssertNil(K.revenue(sim, "USD"))
    }

    func test_LT_1_requireConsentFalseLetsUndecidedThrough() {
        guard let sim = K.fixture("LT-1-require-consent-false-lets-undecided-through")?.sim else { return }
        XCTAssertEqual(sim.consent, .undecided)
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 LT-1a",
                "1000 pending>in-flight #1 LT-4",
                "1200 in-flight>delivered #1 200 LT-4",
            ])
    }

    func test_LT_1_grantIsSavedAcrossRelaunch() {
        guard let sim = K.fixture("LT-1-grant-is-saved-across-relaunch")?.sim else { return }
        XCTAssertEqual(sim.consent, .granted)
        XCTAssertEqual(K.trail(sim, "a").last, "4200 in-flight>delivered #1 200 LT-4")
        XCTAssertEqual(sim.requests(named: "install").count, 1, "only the first launch creates an install")
    }

    func test_LT_1_denialIsSavedAcrossRelaunch() {
        guard let sim = K.fixture("LT-1-denial-is-saved-across-relaunch")?.sim else { return }
        XCTAssertEqual(sim.consent, .denied)
        XCTAssertEqual(K.trail(sim, "a"), ["5000 new>dropped #0 consent LT-1"])
    }

    // MARK: LT-1a Saved from the start

    func test_LT_1a_savedFromAcceptanceUntilDeliveredOrDropped() {
        guard let sim = K.fixture("LT-1a-saved-from-acceptance-until-delivered-or-dropped")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 LT-1a",
                "1000 pending>in-flight #1 LT-4",
                "1200 in-flight>retrying #1 500 LT-4",
                "2000 retrying>queued #1 LT-12",
                "3000 queued>in-flight #2 LT-11",
                "3200 in-flight>delivered #2 200 LT-11",
            ])
        XCTAssertEqual(K.storeRows(sim), 0)
    }

    // MARK: LT-2 Denial purge

    func test_LT_2_denialPurgesQueuedInFlightAndRetrying() {
        guard let sim = K.fixture("LT-2-denial-purges-queued-in-flight-and-retrying")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "q").suffix(2),
            ["8000 in-flight>queued #3 offline LT-5", "11120 queued>dropped #3 consent LT-2"])
        XCTAssertEqual(
            K.trail(sim, "r").suffix(2),
            ["10200 in-flight>retrying #1 500 LT-4", "11120 retrying>dropped #1 consent LT-2"])
        // Cancelled on the wire: the answers (11.2 s, 11.25 s) are ignored; nothing happens after the purge.
        XCTAssertEqual(K.trail(sim, "early").last, "11120 in-flight>dropped #1 consent LT-2")
        XCTAssertEqual(K.trail(sim, "late").last, "11120 in-flight>dropped #1 consent LT-2")
        let later = sim.journal.filter { e in
            if case .transition(let t) = e { return t.time > 11120 }
            return false
        }
        XCTAssertEqual(later.count, 0, "no transition after the purge")
        XCTAssertEqual(K.logs(sim, containing: "purged").count, 1)
        XCTAssertEqual(K.storeRows(sim), 0)
        // install + r + early reached the backend; late was cancelled before it got there.
        XCTAssertEqual(sim.backend.received, 3)
    }

    // MARK: LT-3 Install

    func test_LT_3_installHeldPendingUntilGrantThenSent() {
        guard let sim = K.fixture("LT-3-install-held-pending-until-grant-then-sent")?.sim else { return }
        XCTAssertEqual(sim.requests(named: "install").count, 1, "one install, on the first launch only")
        XCTAssertEqual(
            K.trail(sim, "install"),
            [
                "0 new>pending #0 LT-3",
                "3000 pending>in-flight #1 LT-3",
                "3200 in-flight>delivered #1 200 LT-4",
            ])
    }

    func test_LT_3_denialDropsHeldInstall() {
        guard let sim = K.fixture("LT-3-denial-drops-held-install")?.sim else { return }
        XCTAssertEqual(sim.requests(named: "install").count, 1)
        XCTAssertEqual(K.trail(sim, "install"), ["0 new>pending #0 LT-3", "1000 pending>dropped #0 consent LT-3"])
    }

    func test_LT_3_installSentAtFirstLaunchWhenGateOpen() {
        guard let sim = K.fixture("LT-3-install-sent-at-first-launch-when-gate-open")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "install"),
            [
                "0 new>pending #0 LT-3", "0 pending>in-flight #1 LT-3", "200 in-flight>delivered #1 200 LT-4",
            ])
    }

    // MARK: LT-4 Retries

    func test_LT_4_retriesAfterDelaysUpToAttempts() {
        guard let sim = K.fixture("LT-4-retries-after-delays-up-to-attempts")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 LT-1a",
                "1000 pending>in-flight #1 LT-4",
                "1200 in-flight>retrying #1 500 LT-4",
                "3200 retrying>in-flight #2 LT-4",
                "3400 in-flight>retrying #2 500 LT-4",
                "7400 retrying>in-flight #3 LT-4",
                "7600 in-flight>delivered #3 200 LT-4",
            ])
    }

    func test_LT_4_retryAttemptsSettingLimitsTheRun() {
        guard let sim = K.fixture("LT-4-retry-attempts-setting-limits-the-run")?.sim else { return }
        XCTAssertEqual(
            Array(K.trail(sim, "a").suffix(3)),
            [
                "1200 in-flight>retrying #1 500 LT-4", "3200 retrying>in-flight #2 LT-4",
                "3400 in-flight>queued #2 500 LT-5",
            ])
    }

    // MARK: LT-5 Retryable failures

    func test_LT_5_lastRetryableFailureReportsOnErrorAndQueues() {
        guard let sim = K.fixture("LT-5-last-retryable-failure-reports-on-error-and-queues")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 LT-1a",
                "1000 pending>in-flight #1 LT-4",
                "1200 in-flight>retrying #1 503 LT-4",
                "3200 retrying>in-flight #2 LT-4",
                "3400 in-flight>retrying #2 503 LT-4",
                "7400 retrying>in-flight #3 LT-4",
                "7600 in-flight>queued #3 503 LT-5",
            ])
        let onError = sim.journal.compactMap { e -> LogLine? in
            if case .log(let l) = e, l.source == .onError { return l }
            return nil
        }
        XCTAssertEqual(onError.count, 1, "onError is reported once, after the last attempt")
        XCTAssertEqual(onError.first?.time, 7600)
        XCTAssertEqual(onError.first?.rule, .lt5)
        XCTAssertEqual(K.storeRows(sim), 1)
    }

    func test_LT_5_408And429AndTransportErrorsAreRetried() {
        guard let sim = K.fixture("LT-5-408-and-429-and-transport-errors-are-retried")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 LT-1a",
                "1000 pending>in-flight #1 LT-4",
                "1200 in-flight>retrying #1 408 LT-4",
                "3200 retrying>in-flight #2 LT-4",
                "3400 in-flight>retrying #2 429 LT-4",
                "7400 retrying>in-flight #3 LT-4",
                "17400 in-flight>retrying #3 timeout LT-4",
                "21400 retrying>in-flight #4 LT-4",
                "21600 in-flight>delivered #4 200 LT-4",
            ])
        XCTAssertEqual(K.logs(sim, containing: "WARNING"), [])
    }

    // MARK: LT-6 Non-retryable answers

    func test_LT_6_rejectedIsDroppedWithWarning() {
        guard let sim = K.fixture("LT-6-rejected-is-dropped-with-warning")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 LT-1a",
                "1000 pending>in-flight #1 LT-4",
                "1200 in-flight>dropped #1 422 rejected LT-6",
            ])
        XCTAssertEqual(
            K.logs(sim, containing: "[WARNING]"),
            ["1200 [LT-6] [LinkTrail] [WARNING] Event 'a' rejected (422) — not retried."])
        let onError = sim.journal.compactMap { e -> LogLine? in
            if case .log(let l) = e, l.source == .onError { return l }
            return nil
        }
        XCTAssertEqual(onError.map(\.time), [1200])
        XCTAssertEqual(onError.map(\.rule), [.lt6])
        XCTAssertEqual(sim.backend.rejected, 1)
    }

    func test_LT_6_everyOtherStatusIsNotRetriedEvenWithAttemptsLeft() {
        guard let sim = K.fixture("LT-6-every-other-status-is-not-retried-even-with-attempts-left")?.sim else { return }
        for (name, status) in [("s400", 400), ("s401", 401), ("s403", 403), ("s404", 404), ("s409", 409)] {
            XCTAssertEqual(K.trail(sim, name).last, "1200 in-flight>dropped #1 \(status) rejected LT-6")
            XCTAssertEqual(
                K.logs(sim, containing: "Event '\(name)' rejected"),
                ["1200 [LT-6] [LinkTrail] [WARNING] Event '\(name)' rejected (\(status)) — not retried."])
        }
    }

    // MARK: LT-7 Idempotency

    func test_LT_7_resendKeepsItsKeySoTheBackendCountsItOnce() {
        guard let sim = K.fixture("LT-7-resend-keeps-its-key-so-the-backend-counts-it-once")?.sim else { return }
        let a = K.id(sim, "a"), b = K.id(sim, "b"), install = K.id(sim, "install")
        XCTAssertNotNil(sim.idempotencyKey(of: a))
        XCTAssertEqual(sim.idempotencyKey(of: a)?.count, 16)
        XCTAssertNotEqual(sim.idempotencyKey(of: a), sim.idempotencyKey(of: b))
        XCTAssertNotEqual(sim.idempotencyKey(of: a), sim.idempotencyKey(of: install))
        XCTAssertEqual(sim.backend.duplicates, 1)
        XCTAssertEqual(sim.backend.counted, 3)  // install, a once, b
        let dup = sim.journal.compactMap { e -> LogLine? in
            if case .log(let l) = e, l.text.contains("duplicate") { return l }
            return nil
        }
        XCTAssertEqual(dup.map(\.time), [13100])
        XCTAssertEqual(dup.map(\.rule), [.lt7])
        XCTAssertEqual(dup.first?.text.contains(sim.idempotencyKey(of: a)!), true)
    }

    func test_LT_7_keySurvivesRelaunch() {
        guard let sim = K.fixture("LT-7-key-survives-relaunch")?.sim else { return }
        XCTAssertEqual(sim.backend.duplicates, 1)
        XCTAssertEqual(
            K.trail(sim, "b").suffix(3),
            [
                "1150 in-flight>queued #1 LT-12", "2000 queued>in-flight #2 LT-11",
                "2200 in-flight>delivered #2 200 LT-11",
            ])
    }

    // MARK: LT-8 Flush triggers

    func test_LT_8_flushAtLaunchConsentGrantAndSuccessNotNetworkReturn() {
        guard let sim = K.fixture("LT-8-flush-at-launch-consent-grant-and-success-not-network-return")?.sim else {
            return
        }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 LT-1a",
                "1000 pending>in-flight #1 LT-4",
                "1000 in-flight>queued #1 offline LT-5",
                "3200 queued>in-flight #2 LT-11",
                "3400 in-flight>delivered #2 200 LT-11",
            ])
        XCTAssertEqual(
            K.trail(sim, "c").suffix(2), ["7000 queued>in-flight #2 LT-11", "7200 in-flight>delivered #2 200 LT-11"])
        XCTAssertEqual(
            K.trail(sim, "d").suffix(2), ["10000 queued>in-flight #2 LT-11", "10200 in-flight>delivered #2 200 LT-11"])
        // Flushes start at launch (0, 7 s), after successes outside a flush (install 0.2 s, b 3.2 s)
        // and at the grant (10 s); never when the network returns (2 s, 5 s, 9 s), and not after
        // the flush's own successes (3.4 s, 7.2 s, 10.2 s).
        let starts = sim.journal.compactMap { e -> Millis? in
            if case .log(let l) = e, l.rule == .lt8, l.text.hasPrefix("flush") { return l.time }
            return nil
        }
        XCTAssertEqual(starts, [0, 200, 3200, 7000, 10000])
        XCTAssertEqual(K.logs(sim, containing: "network returning").map { $0.prefix(4) }, ["2000", "5000", "9000"])
    }

    // MARK: LT-9 One flush at a time

    func test_LT_9_triggerDuringFlushDefersOnePass() {
        guard let sim = K.fixture("LT-9-trigger-during-flush-defers-one-pass")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a").suffix(4),
            [
                "3000 queued>in-flight #2 LT-11",
                "3200 in-flight>queued #2 503 LT-11",
                "3200 queued>in-flight #3 LT-11",
                "3400 in-flight>delivered #3 200 LT-11",
            ])
        XCTAssertEqual(
            K.trail(sim, "b").suffix(2), ["3400 queued>in-flight #2 LT-11", "3600 in-flight>delivered #2 200 LT-11"])
        XCTAssertEqual(K.logs(sim).filter { $0.contains("[LT-9]") }.map { String($0.prefix(4)) }, ["3100"])
        // The first flush ended on the 503 (LT-11) and the deferred pass started at once.
        XCTAssertEqual(
            K.logs(sim, containing: "flush ended").map { String($0.prefix(11)) }, ["3200 [LT-11", "3600 [LT-11"])
        XCTAssertEqual(K.logs(sim, containing: "flush started").map { String($0.prefix(4)) }, ["3000", "3200"])
    }

    func test_LT_9_successOutsideFlushDuringFlushStartsNoSecondFlush() {
        guard let sim = K.fixture("LT-9-success-outside-flush-during-flush-starts-no-second-flush")?.sim else { return }
        // At 3.2 s a's flush answer fires first (set first), then c's success asks for one more pass.
        XCTAssertEqual(K.sent(sim, at: 3200), ["b"])
        XCTAssertEqual(K.logs(sim, containing: "flush started").map { String($0.prefix(4)) }, ["3000"])
        XCTAssertEqual(K.logs(sim).filter { $0.contains("[LT-9]") }.map { String($0.prefix(4)) }, ["3200"])
        // The deferred pass finds nothing left.
        XCTAssertEqual(K.logs(sim, containing: "flush (LT-8: deferred").map { String($0.prefix(4)) }, ["3400"])
    }

    // MARK: LT-10 Flush gate

    func test_LT_10_flushSendsNothingWhileConsentUndecidedUnderRequireConsent() {
        // A device left with a saved event by a run without requireConsent, launched by an
        // app that requires consent: the launch flush sends nothing until the grant.
        let device = InMemoryDeviceStore()
        K.play(
            """
            profile linktrail
            set requireConsent false
            set retry.attempts 1
            at 0 launch
            at 1s network offline
            at 1s track a
            at 2s quit
            expect at 2s saved 1
            expect at 2s state a queued
            """, on: device)
        guard
            let sim = K.play(
                """
                profile linktrail
                at 0 launch
                expect at 0 state a queued
                expect at 4s state a queued
                expect at 4s attempts a 1
                at 5s consent grant
                expect at 5s state a in-flight
                expect at 5.2s state a delivered
                expect at 5.2s attempts a 2
                expect at 5.2s saved 0
                """, on: device)?.sim
        else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "0 new>queued #1 LT-12",
                "5000 queued>in-flight #2 LT-11",
                "5200 in-flight>delivered #2 200 LT-11",
            ])
        XCTAssertEqual(K.logs(sim).filter { $0.contains("[LT-10]") }.count, 1)
        XCTAssertEqual(K.logs(sim).filter { $0.contains("[LT-10]") }.first?.hasPrefix("0 [LT-10] flush ended"), true)
    }

    func test_LT_10_withdrawalStopsFlushAtOnce() {
        guard let sim = K.fixture("LT-10-withdrawal-stops-flush-at-once")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a").suffix(2), ["3000 queued>in-flight #2 LT-11", "3050 in-flight>dropped #2 consent LT-2"])
        XCTAssertEqual(K.trail(sim, "b").suffix(1), ["3050 queued>dropped #1 consent LT-2"])
        XCTAssertEqual(
            K.logs(sim).filter { $0.contains("[LT-10]") }.map { String($0.prefix(22)) }, ["3050 [LT-10] flush end"])
    }

    // MARK: LT-11 Flush order

    func test_LT_11_flushSendsOldestFirstOneAtATimeAndDropsRejected() {
        // Queued in the order b (2.2 s), c (3.2 s), a (11 s); created a, b, c: the flush goes a, b, c.
        guard let sim = K.fixture("LT-11-flush-sends-oldest-first-one-at-a-time-and-drops-rejected")?.sim else {
            return
        }
        XCTAssertEqual(
            K.trail(sim, "a").suffix(3),
            [
                "11000 in-flight>queued #1 timeout LT-5", "12000 queued>in-flight #2 LT-11",
                "12200 in-flight>delivered #2 200 LT-11",
            ])
        XCTAssertEqual(
            K.trail(sim, "b").suffix(2),
            ["12200 queued>in-flight #2 LT-11", "12400 in-flight>dropped #2 404 rejected LT-6"])
        XCTAssertEqual(
            K.trail(sim, "c").suffix(2), ["12400 queued>in-flight #2 LT-11", "12600 in-flight>delivered #2 200 LT-11"])
        XCTAssertEqual(K.sent(sim, at: 12000), ["a"])
        XCTAssertEqual(K.logs(sim, containing: "flush started").map { String($0.prefix(5)) }, ["12000"])
        XCTAssertEqual(K.logs(sim, containing: "flush ended").last?.hasPrefix("12600 [LT-11]"), true)
    }

    func test_LT_11_retryableFailureLeavesItQueuedAndEndsFlush() {
        guard let sim = K.fixture("LT-11-retryable-failure-leaves-it-queued-and-ends-flush")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "b").suffix(2), ["3200 queued>in-flight #2 LT-11", "3400 in-flight>queued #2 503 LT-11"])
        XCTAssertEqual(
            K.trail(sim, "c"),
            [
                "1000 new>pending #0 LT-1a", "1000 pending>in-flight #1 LT-4", "1000 in-flight>queued #1 offline LT-5",
            ])
        XCTAssertEqual(K.logs(sim, containing: "flush ended").map { String($0.prefix(12)) }, ["3400 [LT-11]"])
        // One attempt in the flush: no backoff retry, no onError for the flush's failure.
        XCTAssertEqual(K.logs(sim, containing: "onError").map { String($0.prefix(4)) }, ["1000", "1000", "1000"])
    }

    // MARK: LT-12 Saved across launches

    func test_LT_12_inFlightAndRetryingTurnQueuedAtQuitAndGoWithNextLaunchFlush() {
        guard let sim = K.fixture("LT-12-in-flight-and-retrying-turn-queued-at-quit-and-go-with-next-launch-flush")?.sim
        else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 LT-1a",
                "1000 pending>in-flight #1 LT-4",
                "1200 in-flight>retrying #1 500 LT-4",
                "2050 retrying>queued #1 LT-12",
                "5000 queued>in-flight #2 LT-11",
                "5200 in-flight>delivered #2 200 LT-11",
            ])
        XCTAssertEqual(
            K.trail(sim, "b"),
            [
                "2000 new>pending #0 LT-1a",
                "2000 pending>in-flight #1 LT-4",
                "2050 in-flight>queued #1 LT-12",
                "5200 queued>in-flight #2 LT-11",
                "5400 in-flight>delivered #2 200 LT-11",
            ])
    }

    func test_LT_12_flushFailureAfterRelaunchKeepsCountingAttempts() {
        guard let sim = K.fixture("LT-12-flush-failure-after-relaunch-keeps-counting-attempts")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a").suffix(4),
            [
                "9000 queued>in-flight #4 LT-11",
                "9200 in-flight>queued #4 503 LT-11",
                "11000 queued>in-flight #5 LT-11",
                "11200 in-flight>delivered #5 200 LT-11",
            ])
    }

    // MARK: LT-13 Revenue

    func test_LT_13_backendSumsRevenueByCurrencyForCountedEvents() {
        guard let sim = K.fixture("LT-13-backend-sums-revenue-by-currency-for-counted-events")?.sim else { return }
        XCTAssertEqual(sim.backend.revenue.count, 2, "an event without value adds no revenue line")
        XCTAssertEqual(K.trail(sim, "refund").last, "1200 in-flight>dropped #1 422 rejected LT-6")
        XCTAssertEqual(
            K.trail(sim, "upgrade").suffix(3),
            [
                "12000 in-flight>retrying #1 timeout LT-4", "14000 retrying>in-flight #2 LT-4",
                "14200 in-flight>delivered #2 200 LT-4",
            ])
    }
}
