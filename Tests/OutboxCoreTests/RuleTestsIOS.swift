import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// Positive User on iOS (IOS-1 .. IOS-7). Defaults: 4 attempts, delays 30s,60s,120s,
/// latency 200 ms; a retry delay starts when the failing answer arrives.
final class RuleTestsIOS: XCTestCase {
    typealias K = RuleTestKit

    /// The completion log lines: `<ms> [<rule>] <text>`.
    func completionLogs(_ sim: Simulation) -> [LogLine] {
        sim.journal.compactMap { e in
            if case .log(let l) = e, l.source == .completion { return l }
            return nil
        }
    }

    // MARK: IOS-1 One saved queue

    func test_IOS_1_everyKindGoesIntoOneSavedQueue() {
        guard let sim = K.fixture("IOS-1-every-kind-goes-into-one-saved-queue")?.sim else { return }
        for name in ["ping", "e", "s", "p", "n"] {
            XCTAssertEqual(
                K.trail(sim, name),
                [
                    "1000 new>pending #0 IOS-1",
                    "1000 pending>in-flight #1 IOS-2",
                    "1200 in-flight>retrying #1 500 IOS-4",
                    "2000 retrying>queued #1 IOS-6",
                ], name)
        }
        XCTAssertEqual(K.storeRows(sim), 5)
    }

    // MARK: IOS-2 No head-of-line blocking

    func test_IOS_2_retryingRequestDoesNotHoldBackNewerOnes() {
        guard let sim = K.fixture("IOS-2-retrying-request-does-not-hold-back-newer-ones")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "s"),
            [
                "1000 new>pending #0 IOS-1", "1000 pending>in-flight #1 IOS-2", "1200 in-flight>delivered #1 200 IOS-3",
            ])
        XCTAssertEqual(
            K.trail(sim, "ping"),
            [
                "0 new>pending #0 IOS-1",
                "0 pending>in-flight #1 IOS-2",
                "200 in-flight>retrying #1 500 IOS-4",
                "30200 retrying>in-flight #2 IOS-4",
                "30400 in-flight>delivered #2 200 IOS-3",
            ])
    }

    func test_IOS_2_dueRequestsGoOutSideBySideOldestFirst() {
        // Queued in the order b (20 s), c (25 s), a (30.2 s); created a, b, c.
        guard let sim = K.fixture("IOS-2-due-requests-go-out-side-by-side-oldest-first")?.sim else { return }
        XCTAssertEqual(K.sent(sim, at: 40000), ["a", "b", "c"])
        XCTAssertEqual(
            K.trail(sim, "a").suffix(3),
            [
                "30200 retrying>queued #1 IOS-5", "40000 queued>in-flight #2 IOS-5",
                "40200 in-flight>delivered #2 200 IOS-3",
            ])
        XCTAssertEqual(
            K.trail(sim, "b"),
            [
                "20000 new>queued #0 IOS-5", "40000 queued>in-flight #1 IOS-5",
                "40200 in-flight>delivered #1 200 IOS-3",
            ])
    }

    // MARK: IOS-3 Answers

    func test_IOS_3_answersDecideDeliveredRejectedOrRetried() {
        guard let sim = K.fixture("IOS-3-answers-decide-delivered-rejected-or-retried")?.sim else { return }
        XCTAssertEqual(K.trail(sim, "a").last, "1200 in-flight>delivered #1 partial IOS-3")
        XCTAssertEqual(K.trail(sim, "s").last, "1200 in-flight>dropped #1 403 rejected IOS-3")
        XCTAssertEqual(K.trail(sim, "ping").last, "1200 in-flight>dropped #1 429 rejected IOS-3")
        XCTAssertEqual(
            K.trail(sim, "p").suffix(3),
            [
                "1200 in-flight>retrying #1 503 IOS-4", "31200 retrying>in-flight #2 IOS-4",
                "31400 in-flight>delivered #2 200 IOS-3",
            ])
        XCTAssertEqual(
            K.trail(sim, "n").suffix(3),
            [
                "11000 in-flight>retrying #1 timeout IOS-4", "41000 retrying>in-flight #2 IOS-4",
                "41200 in-flight>delivered #2 200 IOS-3",
            ])
        let c = completionLogs(sim)
        XCTAssertEqual(c.map(\.time), [1200, 1200, 1200, 31400, 41200])
        XCTAssertEqual(c.map(\.rule), [.ios3, .ios3, .ios3, .ios3, .ios3])
        XCTAssertEqual(c.map { $0.text.contains("false") }, [false, true, true, false, false])
    }

    // MARK: IOS-4 Retry budget

    func test_IOS_4_lastFailedAttemptDropsExhaustedWithCompletionFalse() {
        guard let sim = K.fixture("IOS-4-last-failed-attempt-drops-exhausted-with-completion-false")?.sim else {
            return
        }
        XCTAssertEqual(
            K.trail(sim, "ping"),
            [
                "0 new>pending #0 IOS-1",
                "0 pending>in-flight #1 IOS-2",
                "200 in-flight>retrying #1 500 IOS-4",
                "30200 retrying>in-flight #2 IOS-4",
                "30400 in-flight>retrying #2 500 IOS-4",
                "90400 retrying>in-flight #3 IOS-4",
                "90600 in-flight>retrying #3 500 IOS-4",
                "210600 retrying>in-flight #4 IOS-4",
                "210800 in-flight>dropped #4 500 exhausted IOS-4",
            ])
        let c = completionLogs(sim)
        XCTAssertEqual(c.map(\.time), [210800])
        XCTAssertEqual(c.map(\.rule), [.ios4])
    }

    func test_IOS_4_retryAttemptsSettingIsTheBudget() {
        guard let sim = K.fixture("IOS-4-retry-attempts-setting-is-the-budget")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "s").suffix(2),
            ["30200 retrying>in-flight #2 IOS-4", "30400 in-flight>dropped #2 503 exhausted IOS-4"])
    }

    // MARK: IOS-5 Offline

    func test_IOS_5_offlineRequestsWaitQueuedWithoutAttempts() {
        guard let sim = K.fixture("IOS-5-offline-requests-wait-queued-without-attempts")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "ping"),
            [
                "1000 new>queued #0 IOS-5", "20000 queued>in-flight #1 IOS-5", "20200 in-flight>delivered #1 200 IOS-3",
            ])
        XCTAssertEqual(K.sent(sim, at: 20000), ["ping", "s"])
    }

    func test_IOS_5_droppedUnderAttemptWaitsOutBackoffThenQueued() {
        guard let sim = K.fixture("IOS-5-dropped-under-attempt-waits-out-backoff-then-queued")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "ping"),
            [
                "1000 new>pending #0 IOS-1",
                "1000 pending>in-flight #1 IOS-2",
                "1100 in-flight>retrying #1 network-lost IOS-4",
                "31100 retrying>queued #1 IOS-5",
                "40000 queued>in-flight #2 IOS-5",
                "40200 in-flight>delivered #2 200 IOS-3",
            ])
    }

    func test_IOS_5_networkReturnSendsOnlyRequestsWhoseTimeHasCome() {
        guard let sim = K.fixture("IOS-5-network-return-sends-only-requests-whose-time-has-come")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "ping").suffix(3),
            [
                "1050 in-flight>retrying #1 network-lost IOS-4", "31050 retrying>in-flight #2 IOS-4",
                "31250 in-flight>delivered #2 200 IOS-3",
            ])
        XCTAssertEqual(K.sent(sim, at: 10000), ["s"])
    }

    // MARK: IOS-6 Launches

    func test_IOS_6_relaunchResetsBudgetAndNeverCallsCompletion() {
        guard let sim = K.fixture("IOS-6-relaunch-resets-budget-and-never-calls-completion")?.sim else { return }
        XCTAssertEqual(
            Array(K.trail(sim, "ping").dropFirst(7)),
            [
                "100000 retrying>queued #3 IOS-6",
                "200000 queued>in-flight #4 IOS-6",
                "200200 in-flight>retrying #4 500 IOS-4",
                "230200 retrying>in-flight #5 IOS-4",
                "230400 in-flight>retrying #5 500 IOS-4",
                "290400 retrying>in-flight #6 IOS-4",
                "290600 in-flight>retrying #6 500 IOS-4",
                "410600 retrying>in-flight #7 IOS-4",
                "410800 in-flight>dropped #7 500 exhausted IOS-4",
            ])
        XCTAssertEqual(sim.request(K.id(sim, "ping")).completion, .none)
        let c = completionLogs(sim)
        XCTAssertEqual(c.map(\.time), [410800])
        XCTAssertEqual(c.map(\.rule), [.ios6])
    }

    func test_IOS_6_savedRequestsGoOutAtOnceAfterLaunchWhateverTheirTimer() {
        guard let sim = K.fixture("IOS-6-saved-requests-go-out-at-once-after-launch-whatever-their-timer")?.sim else {
            return
        }
        XCTAssertEqual(K.sent(sim, at: 6000), ["ping", "s"])
        XCTAssertEqual(
            K.trail(sim, "ping").suffix(4),
            [
                "200 in-flight>retrying #1 500 IOS-4",
                "5000 retrying>queued #1 IOS-6",
                "6000 queued>in-flight #2 IOS-6",
                "6200 in-flight>delivered #2 200 IOS-3",
            ])
        XCTAssertEqual(completionLogs(sim).map(\.rule), [.ios6, .ios6])
    }

    func test_IOS_6_requestMadeOfflineBeforeQuitGoesAfterNextLaunch() {
        guard let sim = K.fixture("IOS-6-request-made-offline-before-quit-goes-after-next-launch")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "n"),
            [
                "1000 new>queued #0 IOS-5", "4000 queued>in-flight #1 IOS-6", "4200 in-flight>delivered #1 200 IOS-3",
            ])
    }

    // MARK: IOS-7 Logout

    func test_IOS_7_logoutWhileOfflineIsDroppedNotSavedWithoutAttempt() {
        guard let sim = K.fixture("IOS-7-logout-while-offline-is-dropped-not-saved-without-attempt")?.sim else {
            return
        }
        for name in ["logout", "token-removal", "anonymous-ping"] {
            XCTAssertEqual(K.trail(sim, name), ["1000 new>dropped #0 not-saved IOS-7"], name)
        }
    }

    func test_IOS_7_logoutRequestsGoDirectlyNeverSavedNeverRetried() {
        guard let sim = K.fixture("IOS-7-logout-requests-go-directly-never-saved-never-retried")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "logout"),
            [
                "1000 new>pending #0 IOS-7", "1000 pending>in-flight #1 IOS-7",
                "1200 in-flight>dropped #1 500 not-saved IOS-7",
            ])
        XCTAssertEqual(
            K.trail(sim, "token-removal"),
            [
                "1000 new>pending #0 IOS-7", "1000 pending>in-flight #1 IOS-7", "1200 in-flight>delivered #1 200 IOS-7",
            ])
        XCTAssertEqual(K.sent(sim, at: 1000), ["logout", "token-removal", "anonymous-ping"])
        XCTAssertEqual(completionLogs(sim).count, 0)
    }

    func test_IOS_7_quitWhileLogoutOnTheWireDropsIt() {
        guard let sim = K.fixture("IOS-7-quit-while-logout-on-the-wire-drops-it")?.sim else { return }
        XCTAssertEqual(K.trail(sim, "logout").last, "1150 in-flight>dropped #1 not-saved IOS-7")
    }
}
