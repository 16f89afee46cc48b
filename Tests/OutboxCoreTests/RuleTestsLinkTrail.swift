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
        guard
            let sim = play(
                """
                profile linktrail
                at 0 launch
                at 1s track a
                expect at 1s dropped a consent
                expect at 1s attempts a 0
                expect at 1s saved 1
                expect at 5s received a 0
                expect at 5s counted a 0
                """)?.sim
        else { return }
        XCTAssertEqual(K.trail(sim, "a"), ["1000 new>dropped #0 consent LT-1"])
        XCTAssertEqual(sim.backend.received, 0)
        // The one saved request is the held install, not the event.
        XCTAssertEqual(sim.request(K.id(sim, "install")).state, .pending)
    }

    func test_LT_1_denialDropsEventsEvenWithoutRequireConsent() {
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                at 0 launch
                at 1s consent deny
                at 2s track a value=5 currency=USD
                expect at 2s dropped a consent
                expect at 2s saved 0
                expect at 5s received a 0
                """)?.sim
        else { return }
        XCTAssertEqual(K.trail(sim, "a"), ["2000 new>dropped #0 consent LT-1"])
        XCTAssertNil(K.revenue(sim, "USD"))
    }

    func test_LT_1_requireConsentFalseLetsUndecidedThrough() {
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                at 0 launch
                at 1s track a
                expect at 1.1s state a in-flight
                expect at 1.2s state a delivered
                expect at 1.2s counted a 1
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile linktrail
                at 0 launch
                at 1s consent grant
                at 2s quit
                at 3s launch
                at 4s track a
                expect at 4.2s state a delivered
                expect at 4.2s counted a 1
                """)?.sim
        else { return }
        XCTAssertEqual(sim.consent, .granted)
        XCTAssertEqual(K.trail(sim, "a").last, "4200 in-flight>delivered #1 200 LT-4")
        XCTAssertEqual(sim.requests(named: "install").count, 1, "only the first launch creates an install")
    }

    func test_LT_1_denialIsSavedAcrossRelaunch() {
        guard
            let sim = play(
                """
                profile linktrail
                at 0 launch
                at 1s consent grant
                at 2s consent deny
                at 3s quit
                at 4s launch
                at 5s track a
                expect at 5s dropped a consent
                expect at 9s received a 0
                """)?.sim
        else { return }
        XCTAssertEqual(sim.consent, .denied)
        XCTAssertEqual(K.trail(sim, "a"), ["5000 new>dropped #0 consent LT-1"])
    }

    // MARK: LT-1a Saved from the start

    func test_LT_1a_savedFromAcceptanceUntilDeliveredOrDropped() {
        guard
            let sim = play(
                """
                profile linktrail
                at 0 launch
                expect at 0 state install pending
                expect at 0 saved 1
                at 1s consent grant
                at 1s server 500
                at 1s track a
                at 1s server 400
                at 1s track r
                expect at 1s saved 3
                expect at 1.2s state install delivered
                expect at 1.2s state a retrying
                expect at 1.2s dropped r rejected
                expect at 1.2s saved 1
                at 2s quit
                expect at 2s state a queued
                expect at 2s saved 1
                at 3s launch
                expect at 3.1s saved 1
                expect at 3.2s state a delivered
                expect at 3.2s saved 0
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                at 0 launch
                at 2s network offline
                at 2s track q
                at 9s network online
                at 10s server 500
                at 10s track r
                at 11s track early
                at 11.05s track late
                at 11.12s consent deny
                expect at 11.12s dropped q consent
                expect at 11.12s dropped r consent
                expect at 11.12s dropped early consent
                expect at 11.12s dropped late consent
                expect at 11.12s saved 0
                expect at 30s received early 1
                expect at 30s counted early 1
                expect at 30s received late 0
                expect at 30s attempts r 1
                expect at 30s attempts q 3
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile linktrail
                at 0 launch
                expect at 0 state install pending
                expect at 0 attempts install 0
                at 1s quit
                at 2s launch
                expect at 2s state install pending
                at 3s consent grant
                expect at 3s state install in-flight
                expect at 3.2s state install delivered
                expect at 3.2s counted install 1
                expect at 3.2s saved 0
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile linktrail
                at 0 launch
                at 1s consent deny
                expect at 1s dropped install consent
                expect at 1s saved 0
                at 2s quit
                at 3s launch
                at 4s consent grant
                expect at 5s dropped install consent
                expect at 5s attempts install 0
                expect at 5s received install 0
                """)?.sim
        else { return }
        XCTAssertEqual(sim.requests(named: "install").count, 1)
        XCTAssertEqual(K.trail(sim, "install"), ["0 new>pending #0 LT-3", "1000 pending>dropped #0 consent LT-3"])
    }

    func test_LT_3_installSentAtFirstLaunchWhenGateOpen() {
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                at 0 launch
                expect at 0 state install in-flight
                expect at 0.1s received install 1
                expect at 0.2s state install delivered
                """)?.sim
        else { return }
        XCTAssertEqual(
            K.trail(sim, "install"),
            [
                "0 new>pending #0 LT-3", "0 pending>in-flight #1 LT-3", "200 in-flight>delivered #1 200 LT-4",
            ])
    }

    // MARK: LT-4 Retries

    func test_LT_4_retriesAfterDelaysUpToAttempts() {
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                at 0 launch
                at 1s server 500 x2
                at 1s track a
                expect at 3.199s state a retrying
                expect at 3.2s state a in-flight
                expect at 7.6s state a delivered
                expect at 7.6s attempts a 3
                expect at 7.6s received a 3
                expect at 7.6s counted a 1
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                set retry.attempts 2
                at 0 launch
                at 1s server 500 always
                at 1s track a
                expect at 3.4s state a queued
                expect at 3.4s attempts a 2
                expect at 60s attempts a 2
                """)?.sim
        else { return }
        XCTAssertEqual(
            Array(K.trail(sim, "a").suffix(3)),
            [
                "1200 in-flight>retrying #1 500 LT-4", "3200 retrying>in-flight #2 LT-4",
                "3400 in-flight>queued #2 500 LT-5",
            ])
    }

    // MARK: LT-5 Retryable failures

    func test_LT_5_lastRetryableFailureReportsOnErrorAndQueues() {
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                at 0 launch
                at 1s server 503 always
                at 1s track a
                expect at 7.599s state a in-flight
                expect at 7.6s state a queued
                expect at 7.6s attempts a 3
                expect at 7.6s saved 1
                expect at 60s state a queued
                expect at 60s attempts a 3
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                set retry.attempts 4
                at 0 launch
                at 1s server 408
                at 1s track a
                at 3s server 429
                at 7s server timeout
                expect at 21.6s state a delivered
                expect at 21.6s attempts a 4
                expect at 21.6s received a 3
                expect at 21.6s counted a 1
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                at 0 launch
                at 1s server 422
                at 1s track a
                expect at 1.2s dropped a rejected
                expect at 1.2s attempts a 1
                expect at 1.2s saved 0
                expect at 1.2s log "[LinkTrail] [WARNING] Event 'a' rejected (422) — not retried."
                at 2s quit
                at 3s launch
                expect at 60s attempts a 1
                expect at 60s dropped a rejected
                expect at 60s received a 1
                expect at 60s counted a 0
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                at 0 launch
                at 1s server 400
                at 1s track s400
                at 1s server 401
                at 1s track s401
                at 1s server 403
                at 1s track s403
                at 1s server 404
                at 1s track s404
                at 1s server 409
                at 1s track s409
                expect at 30s dropped s400 rejected
                expect at 30s dropped s401 rejected
                expect at 30s dropped s403 rejected
                expect at 30s dropped s404 rejected
                expect at 30s dropped s409 rejected
                expect at 30s attempts s403 1
                expect at 30s log "[LinkTrail] [WARNING] Event 's409' rejected (409) — not retried."
                """)?.sim
        else { return }
        for (name, status) in [("s400", 400), ("s401", 401), ("s403", 403), ("s404", 404), ("s409", 409)] {
            XCTAssertEqual(K.trail(sim, name).last, "1200 in-flight>dropped #1 \(status) rejected LT-6")
            XCTAssertEqual(
                K.logs(sim, containing: "Event '\(name)' rejected"),
                ["1200 [LT-6] [LinkTrail] [WARNING] Event '\(name)' rejected (\(status)) — not retried."])
        }
    }

    // MARK: LT-7 Idempotency

    func test_LT_7_resendKeepsItsKeySoTheBackendCountsItOnce() {
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                at 0 launch
                at 1s server lost
                at 1s track a value=10 currency=USD
                at 1s track b
                expect at 1.1s received a 1
                expect at 1.1s counted a 1
                expect at 13.2s state a delivered
                expect at 13.2s attempts a 2
                expect at 13.2s received a 2
                expect at 13.2s counted a 1
                """)?.sim
        else { return }
        let a = K.id(sim, "a"), b = K.id(sim, "b"), install = K.id(sim, "install")
        XCTAssertNotNil(sim.idempotencyKey(of: a))
        XCTAssertEqual(sim.idempotencyKey(of: a)?.count, 16)
        XCTAssertNotEqual(sim.idempotencyKey(of: a), sim.idempotencyKey(of: b))
        XCTAssertNotEqual(sim.idempotencyKey(of: a), sim.idempotencyKey(of: install))
        XCTAssertEqual(sim.backend.duplicates, 1)
        XCTAssertEqual(sim.backend.counted, 3)  // install, a once, b
        XCTAssertEqual(K.revenue(sim, "USD"), 10_000_000, "the duplicate adds no revenue")
        let dup = sim.journal.compactMap { e -> LogLine? in
            if case .log(let l) = e, l.text.contains("duplicate") { return l }
            return nil
        }
        XCTAssertEqual(dup.map(\.time), [13100])
        XCTAssertEqual(dup.map(\.rule), [.lt7])
        XCTAssertEqual(dup.first?.text.contains(sim.idempotencyKey(of: a)!), true)
    }

    func test_LT_7_keySurvivesRelaunch() {
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                at 0 launch
                at 1s track b
                at 1.15s quit
                expect at 1.15s state b queued
                expect at 1.15s received b 1
                expect at 1.15s counted b 1
                at 2s launch
                expect at 2.2s state b delivered
                expect at 2.2s attempts b 2
                expect at 2.2s received b 2
                expect at 2.2s counted b 1
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                set retry.attempts 1
                at 0 launch
                at 1s network offline
                at 1s track a
                at 2s network online
                expect at 3s state a queued
                at 3s track b
                expect at 3.2s state a in-flight
                expect at 3.4s state a delivered
                at 4s network offline
                at 4s track c
                at 5s network online
                at 6s quit
                expect at 6s state c queued
                at 7s launch
                expect at 7.2s state c delivered
                at 8s network offline
                at 8s track d
                at 9s network online
                expect at 9.5s state d queued
                at 10s consent grant
                expect at 10.2s state d delivered
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                set retry.attempts 1
                at 0 launch
                at 1s network offline
                at 1s track a
                at 1s track b
                at 2s network online
                at 3s server 503
                at 3s consent grant
                at 3.1s consent grant
                expect at 3.1s state a in-flight
                expect at 3.1s state b queued
                expect at 3.2s state a in-flight
                expect at 3.4s state a delivered
                expect at 3.4s state b in-flight
                expect at 3.6s state b delivered
                expect at 3.6s saved 0
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                set retry.attempts 1
                at 0 launch
                at 1s network offline
                at 1s track a
                at 1s track b
                at 2s network online
                at 3s consent grant
                at 3s track c
                expect at 3.2s state a delivered
                expect at 3.2s state c delivered
                expect at 3.2s state b in-flight
                expect at 3.4s state b delivered
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                set retry.attempts 1
                at 0 launch
                at 1s network offline
                at 1s track a
                at 1s track b
                at 2s network online
                at 3s consent grant
                at 3.05s consent deny
                expect at 3.05s dropped a consent
                expect at 3.05s dropped b consent
                expect at 10s attempts b 1
                expect at 10s received a 0
                at 11s consent grant
                expect at 12s attempts b 1
                """)?.sim
        else { return }
        XCTAssertEqual(
            K.trail(sim, "a").suffix(2), ["3000 queued>in-flight #2 LT-11", "3050 in-flight>dropped #2 consent LT-2"])
        XCTAssertEqual(K.trail(sim, "b").suffix(1), ["3050 queued>dropped #1 consent LT-2"])
        XCTAssertEqual(
            K.logs(sim).filter { $0.contains("[LT-10]") }.map { String($0.prefix(22)) }, ["3050 [LT-10] flush end"])
    }

    // MARK: LT-11 Flush order

    func test_LT_11_flushSendsOldestFirstOneAtATimeAndDropsRejected() {
        // Queued in the order b (2.2 s), c (3.2 s), a (11 s); created a, b, c: the flush goes a, b, c.
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                set retry.attempts 1
                at 0 launch
                at 1s server timeout
                at 1s track a
                at 2s server 503
                at 2s track b
                at 3s server 503
                at 3s track c
                expect at 11s state a queued
                at 12s consent grant
                at 12.1s server 404
                expect at 12s state b queued
                expect at 12.2s state a delivered
                expect at 12.2s state b in-flight
                expect at 12.2s state c queued
                expect at 12.4s dropped b rejected
                expect at 12.4s state c in-flight
                expect at 12.6s state c delivered
                expect at 12.6s log "[LinkTrail] [WARNING] Event 'b' rejected (404) — not retried."
                expect at 20s attempts a 2
                expect at 20s attempts b 2
                expect at 20s attempts c 2
                expect at 20s saved 0
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                set retry.attempts 1
                at 0 launch
                at 1s network offline
                at 1s track a
                at 1s track b
                at 1s track c
                at 2s network online
                at 3s consent grant
                at 3.1s server 503 x1
                expect at 3.4s state a delivered
                expect at 3.4s state b queued
                expect at 3.4s state c queued
                expect at 30s attempts b 2
                expect at 30s attempts c 1
                expect at 30s saved 2
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                at 0 launch
                at 1s server 500
                at 1s track a
                at 2s track b
                at 2.05s quit
                expect at 2.05s state a queued
                expect at 2.05s state b queued
                expect at 2.05s saved 2
                expect at 4s received b 0
                at 5s launch
                expect at 5s state a in-flight
                expect at 5s state b queued
                expect at 5.4s state a delivered
                expect at 5.4s state b delivered
                expect at 5.4s attempts a 2
                expect at 5.4s attempts b 2
                expect at 5.4s received b 1
                """)?.sim
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
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                at 0 launch
                at 1s server 503 always
                at 1s track a
                expect at 7.6s state a queued
                expect at 7.6s attempts a 3
                at 8s quit
                at 9s launch
                expect at 9.2s state a queued
                expect at 9.2s attempts a 4
                at 10s quit
                at 10.5s server ok
                at 11s launch
                expect at 11.2s state a delivered
                expect at 11.2s attempts a 5
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile linktrail
                set requireConsent false
                at 0 launch
                at 1s track purchase value=49.99 currency=USD
                at 1s track purchase value=10 currency=USD
                at 1s track purchase value=5.5 currency=EUR
                at 1s track open
                at 1s server 422
                at 1s track refund value=100 currency=USD
                at 2s server lost
                at 2s track upgrade value=1 currency=EUR
                expect at 20s counted purchase 3
                expect at 20s counted open 1
                expect at 20s counted refund 0
                expect at 20s received upgrade 2
                expect at 20s counted upgrade 1
                """)?.sim
        else { return }
        XCTAssertEqual(K.revenue(sim, "USD"), 59_990_000)
        XCTAssertEqual(K.revenue(sim, "EUR"), 6_500_000, "5.5 + 1 (the duplicate of upgrade adds nothing)")
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
