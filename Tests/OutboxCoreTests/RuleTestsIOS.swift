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
        guard
            let sim = play(
                """
                profile ios
                at 0 launch
                at 0 server 500 always
                at 1s ping
                at 1s track e
                at 1s screen s
                at 1s product p
                at 1s notification n
                at 1s logout
                expect at 1s saved 5
                expect at 1.2s saved 5
                expect at 1.2s state ping retrying
                expect at 1.2s state e retrying
                expect at 1.2s dropped logout not-saved
                at 2s quit
                expect at 2s saved 5
                expect at 2s state ping queued
                expect at 2s state e queued
                expect at 2s state s queued
                expect at 2s state p queued
                expect at 2s state n queued
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile ios
                at 0 launch
                at 0 server 500
                at 0 ping
                at 1s screen s
                expect at 1s state ping retrying
                expect at 1s state s in-flight
                expect at 1.2s state s delivered
                expect at 1.2s completion s true
                expect at 1.2s completion ping none
                expect at 30.4s state ping delivered
                expect at 30.4s completion ping true
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile ios
                at 0 launch
                at 0 server 500
                at 0 track a
                at 10s network offline
                at 20s screen b
                at 25s product c
                expect at 30.2s state a queued
                at 40s network online
                expect at 40s state a in-flight
                expect at 40s state b in-flight
                expect at 40s state c in-flight
                expect at 40.2s state a delivered
                expect at 40.2s state b delivered
                expect at 40.2s state c delivered
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile ios
                at 0 launch
                at 1s server partial
                at 1s track a color=red
                at 1s server 403
                at 1s screen s
                at 1s server 429
                at 1s ping
                at 1s server 503
                at 1s product p
                at 1s server timeout
                at 1s notification n
                expect at 1.2s state a delivered
                expect at 1.2s completion a true
                expect at 1.2s dropped s rejected
                expect at 1.2s completion s false
                expect at 1.2s dropped ping rejected
                expect at 1.2s completion ping false
                expect at 1.2s state p retrying
                expect at 1.2s completion p none
                expect at 1.2s saved 2
                expect at 11s state n retrying
                expect at 31.4s state p delivered
                expect at 31.4s completion p true
                expect at 41.2s state n delivered
                expect at 41.2s completion n true
                expect at 41.2s saved 0
                expect at 41.2s received n 1
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile ios
                at 0 launch
                at 0 server 500 always
                at 0 ping
                expect at 210.7s state ping in-flight
                expect at 210.7s completion ping none
                expect at 210.8s dropped ping exhausted
                expect at 210.8s attempts ping 4
                expect at 210.8s completion ping false
                expect at 210.8s saved 0
                expect at 999s attempts ping 4
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile ios
                set retry.attempts 2
                at 0 launch
                at 0 server 503 always
                at 0 screen s
                expect at 30.4s dropped s exhausted
                expect at 30.4s attempts s 2
                expect at 30.4s completion s false
                """)?.sim
        else { return }
        XCTAssertEqual(
            K.trail(sim, "s").suffix(2),
            ["30200 retrying>in-flight #2 IOS-4", "30400 in-flight>dropped #2 503 exhausted IOS-4"])
    }

    // MARK: IOS-5 Offline

    func test_IOS_5_offlineRequestsWaitQueuedWithoutAttempts() {
        guard
            let sim = play(
                """
                profile ios
                at 0 launch
                at 1s network offline
                at 1s ping
                at 1s screen s
                expect at 1s state ping queued
                expect at 10s state ping queued
                expect at 10s attempts ping 0
                expect at 10s saved 2
                expect at 10s received ping 0
                expect at 10s completion ping none
                at 20s network online
                expect at 20s state ping in-flight
                expect at 20.2s state ping delivered
                expect at 20.2s state s delivered
                expect at 20.2s attempts ping 1
                expect at 20.2s completion ping true
                expect at 20.2s saved 0
                """)?.sim
        else { return }
        XCTAssertEqual(
            K.trail(sim, "ping"),
            [
                "1000 new>queued #0 IOS-5", "20000 queued>in-flight #1 IOS-5", "20200 in-flight>delivered #1 200 IOS-3",
            ])
        XCTAssertEqual(K.sent(sim, at: 20000), ["ping", "s"])
    }

    func test_IOS_5_droppedUnderAttemptWaitsOutBackoffThenQueued() {
        guard
            let sim = play(
                """
                profile ios
                at 0 launch
                at 1s ping
                at 1.1s network offline
                expect at 1.1s state ping retrying
                expect at 1.1s attempts ping 1
                expect at 1.1s received ping 1
                expect at 31.099s state ping retrying
                expect at 31.1s state ping queued
                expect at 31.1s attempts ping 1
                at 40s network online
                expect at 40s state ping in-flight
                expect at 40.2s state ping delivered
                expect at 40.2s attempts ping 2
                expect at 40.2s received ping 2
                expect at 40.2s counted ping 2
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile ios
                at 0 launch
                at 1s ping
                at 1.05s network offline
                at 1.05s screen s
                at 10s network online
                expect at 10s state ping retrying
                expect at 10s state s in-flight
                expect at 10.2s state s delivered
                expect at 31.05s state ping in-flight
                expect at 31.25s state ping delivered
                expect at 31.25s attempts ping 2
                expect at 31.25s received ping 1
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile ios
                at 0 launch
                at 0 server 500 always
                at 0 ping
                at 100s quit
                expect at 100s state ping queued
                expect at 100s attempts ping 3
                at 200s launch
                expect at 200s state ping in-flight
                expect at 200.2s state ping retrying
                expect at 410.7s state ping in-flight
                expect at 410.8s dropped ping exhausted
                expect at 410.8s attempts ping 7
                expect at 410.8s completion ping none
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile ios
                at 0 launch
                at 0 server 500 x2
                at 0 ping
                at 1s screen s
                at 5s quit
                expect at 5s state ping queued
                expect at 5s state s queued
                expect at 5s saved 2
                at 6s launch
                expect at 6s state ping in-flight
                expect at 6s state s in-flight
                expect at 6.2s state ping delivered
                expect at 6.2s state s delivered
                expect at 6.2s completion ping none
                expect at 6.2s completion s none
                expect at 60s attempts ping 2
                expect at 60s attempts s 2
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile ios
                at 0 launch
                at 1s network offline
                at 1s notification n
                at 2s quit
                expect at 2s saved 1
                at 3s network online
                expect at 3.5s state n queued
                at 4s launch
                expect at 4.2s state n delivered
                expect at 4.2s attempts n 1
                expect at 4.2s completion n none
                """)?.sim
        else { return }
        XCTAssertEqual(
            K.trail(sim, "n"),
            [
                "1000 new>queued #0 IOS-5", "4000 queued>in-flight #1 IOS-6", "4200 in-flight>delivered #1 200 IOS-3",
            ])
    }

    // MARK: IOS-7 Logout

    func test_IOS_7_logoutWhileOfflineIsDroppedNotSavedWithoutAttempt() {
        guard
            let sim = play(
                """
                profile ios
                at 0 launch
                at 1s network offline
                at 1s logout
                expect at 1s dropped logout not-saved
                expect at 1s dropped token-removal not-saved
                expect at 1s dropped anonymous-ping not-saved
                expect at 1s attempts logout 0
                expect at 1s attempts token-removal 0
                expect at 1s attempts anonymous-ping 0
                expect at 1s saved 0
                at 2s network online
                expect at 60s attempts logout 0
                expect at 60s received logout 0
                expect at 60s completion logout none
                """)?.sim
        else { return }
        for name in ["logout", "token-removal", "anonymous-ping"] {
            XCTAssertEqual(K.trail(sim, name), ["1000 new>dropped #0 not-saved IOS-7"], name)
        }
    }

    func test_IOS_7_logoutRequestsGoDirectlyNeverSavedNeverRetried() {
        guard
            let sim = play(
                """
                profile ios
                at 0 launch
                at 1s server 500
                at 1s logout
                expect at 1s state logout in-flight
                expect at 1s state token-removal in-flight
                expect at 1s state anonymous-ping in-flight
                expect at 1s saved 0
                expect at 1.2s dropped logout not-saved
                expect at 1.2s state token-removal delivered
                expect at 1.2s state anonymous-ping delivered
                expect at 100s attempts logout 1
                expect at 100s completion logout none
                expect at 100s completion token-removal none
                """)?.sim
        else { return }
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
        guard
            let sim = play(
                """
                profile ios
                at 0 launch
                at 1s logout
                at 1.15s quit
                expect at 1.15s dropped logout not-saved
                expect at 1.15s dropped token-removal not-saved
                expect at 1.15s dropped anonymous-ping not-saved
                expect at 1.15s saved 0
                at 2s launch
                expect at 60s attempts logout 1
                expect at 60s received logout 1
                """)?.sim
        else { return }
        XCTAssertEqual(K.trail(sim, "logout").last, "1150 in-flight>dropped #1 not-saved IOS-7")
    }
}
