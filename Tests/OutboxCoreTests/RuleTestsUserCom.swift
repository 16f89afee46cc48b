import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// Positive User on Android (AND-1 .. AND-6) and Flutter (FL-1 .. FL-5).
final class RuleTestsUserCom: XCTestCase {
    typealias K = RuleTestKit

    func completionLogCount(_ sim: Simulation) -> Int {
        sim.journal.filter { e in
            if case .log(let l) = e { return l.source == .completion }
            return false
        }.count
    }

    // MARK: AND-1 Straight away

    func test_AND_1_eachRequestIsSentAtOnceWithoutQueue() {
        guard
            let sim = play(
                """
                profile android
                at 0 launch
                at 1s track a
                at 1s ping
                expect at 1s state a in-flight
                expect at 1s state ping in-flight
                expect at 1s saved 0
                expect at 1.1s received a 1
                expect at 1.2s state a delivered
                expect at 1.2s state ping delivered
                expect at 1.2s saved 0
                """)?.sim
        else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 AND-1", "1000 pending>in-flight #1 AND-1", "1200 in-flight>delivered #1 200 AND-1",
            ])
        XCTAssertEqual(K.sent(sim, at: 1000), ["a", "ping"])
    }

    // MARK: AND-2 Saved on failure

    func test_AND_2_failedEventsAreSavedPingsAndLogoutExtrasAreNot() {
        guard
            let sim = play(
                """
                profile android
                at 0 launch
                at 1s server 500 always
                at 1s track e
                at 1s screen s
                at 1s product p
                at 1s notification n
                at 1s ping
                at 1s logout
                expect at 1s saved 0
                expect at 1.2s state e queued
                expect at 1.2s state s queued
                expect at 1.2s state p queued
                expect at 1.2s state n queued
                expect at 1.2s state logout queued
                expect at 1.2s dropped ping not-saved
                expect at 1.2s dropped token-removal not-saved
                expect at 1.2s dropped anonymous-ping not-saved
                expect at 1.2s saved 5
                expect at 100s attempts e 1
                expect at 100s attempts logout 1
                """)?.sim
        else { return }
        for name in ["e", "s", "p", "n", "logout"] {
            XCTAssertEqual(
                K.trail(sim, name),
                [
                    "1000 new>pending #0 AND-1", "1000 pending>in-flight #1 AND-1",
                    "1200 in-flight>queued #1 500 AND-2",
                ], name)
        }
        for name in ["ping", "token-removal", "anonymous-ping"] {
            XCTAssertEqual(K.trail(sim, name).last, "1200 in-flight>dropped #1 500 not-saved AND-2", name)
        }
        XCTAssertEqual(K.storeRows(sim), 5)
    }

    func test_AND_2_neverSavedRequestOnTheWireAtQuitIsLost() {
        guard
            let sim = play(
                """
                profile android
                at 0 launch
                at 1s track a
                at 1s ping
                at 1.15s quit
                expect at 1.15s dropped a not-saved
                expect at 1.15s dropped ping not-saved
                expect at 1.15s saved 0
                expect at 1.15s received a 1
                expect at 1.15s counted a 1
                at 2s launch
                expect at 10s attempts a 1
                expect at 10s received a 1
                """)?.sim
        else { return }
        XCTAssertEqual(K.trail(sim, "a").last, "1150 in-flight>dropped #1 not-saved AND-2")
        XCTAssertEqual(K.trail(sim, "ping").last, "1150 in-flight>dropped #1 not-saved AND-2")
    }

    // MARK: AND-3 getInstance

    func test_AND_3_getInstanceResendsAllSavedOldestFirstWithNoLimit() {
        // Queued in the order b, c (1.2 s), a (10 s); created a, b, c.
        guard
            let sim = play(
                """
                profile android
                at 0 launch
                at 0 server timeout
                at 0 track a
                at 1s server 500 always
                at 1s track b
                at 1s screen c
                expect at 10s state a queued
                at 11s getinstance
                expect at 11s state a in-flight
                expect at 11s state b in-flight
                expect at 11s state c in-flight
                at 11.1s getinstance
                expect at 11.1s attempts a 2
                expect at 11.2s state a queued
                at 12s getinstance
                at 13s getinstance
                at 14s getinstance
                at 15s getinstance
                at 16s getinstance
                at 20s server ok
                at 21s getinstance
                expect at 21.2s state a delivered
                expect at 21.2s state b delivered
                expect at 21.2s state c delivered
                expect at 21.2s attempts a 8
                expect at 21.2s attempts b 8
                expect at 21.2s attempts c 8
                expect at 21.2s received b 8
                expect at 21.2s counted b 1
                expect at 21.2s saved 0
                """)?.sim
        else { return }
        XCTAssertEqual(K.sent(sim, at: 11000), ["a", "b", "c"])
        XCTAssertEqual(K.sent(sim, at: 11100), [])
        XCTAssertEqual(K.sent(sim, at: 21000), ["a", "b", "c"])
        XCTAssertEqual(
            K.trail(sim, "a").suffix(3),
            [
                "16200 in-flight>queued #7 500 AND-2", "21000 queued>in-flight #8 AND-3",
                "21200 in-flight>delivered #8 200 AND-3",
            ])
        XCTAssertEqual(K.trail(sim, "a")[2], "10000 in-flight>queued #1 timeout AND-2")
    }

    func test_AND_3_launchCallsGetInstanceOnceAndSavedOnTheWireStaysSaved() {
        guard
            let sim = play(
                """
                profile android
                at 0 launch
                at 0 server 500 x2
                at 0 track a
                at 0 screen b
                at 1s getinstance
                at 1.05s quit
                expect at 1.05s state a queued
                expect at 1.05s state b queued
                expect at 1.05s saved 2
                expect at 1.05s received a 1
                at 2s launch
                expect at 2s state a in-flight
                expect at 2.2s state a delivered
                expect at 2.2s state b delivered
                expect at 2.2s attempts a 3
                expect at 2.2s received a 2
                expect at 2.2s saved 0
                """)?.sim
        else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "0 new>pending #0 AND-1",
                "0 pending>in-flight #1 AND-1",
                "200 in-flight>queued #1 500 AND-2",
                "1000 queued>in-flight #2 AND-3",
                "1050 in-flight>queued #2 AND-2",
                "2000 queued>in-flight #3 AND-3",
                "2200 in-flight>delivered #3 200 AND-3",
            ])
        let calls = sim.journal.compactMap { e -> Millis? in
            if case .log(let l) = e, l.rule == .and3, l.text.contains("getInstance()") { return l.time }
            return nil
        }
        XCTAssertEqual(calls, [0, 1000, 2000], "one call per launch and one per getinstance line")
    }

    // MARK: AND-4 Never dropped

    func test_AND_4_rejectedStaysSavedAndIsResentOnEveryGetInstance() {
        guard
            let sim = play(
                """
                profile android
                at 0 launch
                at 0 server 403 always
                at 1s screen s
                expect at 1.2s state s queued
                expect at 1.2s saved 1
                at 2s getinstance
                at 3s getinstance
                at 4s quit
                at 5s launch
                expect at 5.2s state s queued
                expect at 5.2s attempts s 4
                expect at 5.2s received s 4
                expect at 5.2s counted s 0
                expect at 5.2s saved 1
                """)?.sim
        else { return }
        XCTAssertEqual(
            K.trail(sim, "s"),
            [
                "1000 new>pending #0 AND-1",
                "1000 pending>in-flight #1 AND-1",
                "1200 in-flight>queued #1 403 AND-4",
                "2000 queued>in-flight #2 AND-3",
                "2200 in-flight>queued #2 403 AND-4",
                "3000 queued>in-flight #3 AND-3",
                "3200 in-flight>queued #3 403 AND-4",
                "5000 queued>in-flight #4 AND-3",
                "5200 in-flight>queued #4 403 AND-4",
            ])
        XCTAssertEqual(sim.backend.rejected, 4)
    }

    // MARK: AND-5 Offline

    func test_AND_5_attemptWhileOfflineFailsAtOnceAsTransportError() {
        guard
            let sim = play(
                """
                profile android
                at 0 launch
                at 1s network offline
                at 1s track a
                at 1s ping
                expect at 1s state a queued
                expect at 1s attempts a 1
                expect at 1s dropped ping not-saved
                expect at 1s attempts ping 1
                expect at 1s saved 1
                at 2s getinstance
                expect at 2s state a queued
                expect at 2s attempts a 2
                at 3s network online
                expect at 3.5s state a queued
                at 4s getinstance
                expect at 4.2s state a delivered
                expect at 4.2s attempts a 3
                expect at 4.2s received a 1
                """)?.sim
        else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 AND-1",
                "1000 pending>in-flight #1 AND-1",
                "1000 in-flight>queued #1 offline AND-5",
                "2000 queued>in-flight #2 AND-3",
                "2000 in-flight>queued #2 offline AND-5",
                "4000 queued>in-flight #3 AND-3",
                "4200 in-flight>delivered #3 200 AND-3",
            ])
        XCTAssertEqual(K.trail(sim, "ping").last, "1000 in-flight>dropped #1 offline not-saved AND-2")
    }

    // MARK: AND-6 No result

    func test_AND_6_appGetsNoCompletion() {
        guard
            let sim = play(
                """
                profile android
                at 0 launch
                at 1s track ok
                at 1s server 403
                at 1s screen blocked
                at 1s server 500
                at 1s ping
                expect at 1.2s state ok delivered
                expect at 1.2s completion ok none
                expect at 1.2s completion blocked none
                expect at 1.2s completion ping none
                """)?.sim
        else { return }
        XCTAssertEqual(completionLogCount(sim), 0)
        XCTAssertEqual(K.trail(sim, "ok").last, "1200 in-flight>delivered #1 200 AND-1")
        XCTAssertEqual(K.trail(sim, "blocked").last, "1200 in-flight>queued #1 403 AND-4")
        XCTAssertEqual(K.trail(sim, "ping").last, "1200 in-flight>dropped #1 500 not-saved AND-2")
        XCTAssertEqual(sim.requests.map(\.completion), [Completion](repeating: .none, count: 3))
    }

    // MARK: FL-1 Straight away

    func test_FL_1_eachRequestIsSentAtOnce() {
        guard
            let sim = play(
                """
                profile flutter
                at 0 launch
                at 1s product p
                at 1s notification n
                expect at 1s state p in-flight
                expect at 1s saved 0
                expect at 1.2s state p delivered
                expect at 1.2s state n delivered
                """)?.sim
        else { return }
        XCTAssertEqual(
            K.trail(sim, "p"),
            [
                "1000 new>pending #0 FL-1", "1000 pending>in-flight #1 FL-1", "1200 in-flight>delivered #1 200 FL-1",
            ])
        XCTAssertEqual(K.sent(sim, at: 1000), ["p", "n"])
    }

    // MARK: FL-2 Network errors are saved

    func test_FL_2_transportErrorsAreSaved() {
        guard
            let sim = play(
                """
                profile flutter
                at 0 launch
                at 1s network offline
                at 1s screen b
                at 1s logout
                at 2s network online
                at 3s track c
                at 3.05s network offline
                at 4s network online
                at 5s server timeout
                at 5s track a
                expect at 1s state b queued
                expect at 1s state logout queued
                expect at 1s state token-removal queued
                expect at 1s state anonymous-ping queued
                expect at 3.05s state c queued
                expect at 14.9s state a in-flight
                expect at 15s state a queued
                expect at 15s saved 6
                expect at 100s attempts a 1
                expect at 100s attempts b 1
                expect at 100s received a 0
                """)?.sim
        else { return }
        XCTAssertEqual(
            K.trail(sim, "b"),
            [
                "1000 new>pending #0 FL-1", "1000 pending>in-flight #1 FL-1", "1000 in-flight>queued #1 offline FL-2",
            ])
        XCTAssertEqual(K.trail(sim, "c").last, "3050 in-flight>queued #1 network-lost FL-2")
        XCTAssertEqual(K.trail(sim, "a").last, "15000 in-flight>queued #1 timeout FL-2")
        XCTAssertEqual(K.storeRows(sim), 6)
    }

    func test_FL_2_unsavedOnTheWireAtQuitIsLostSavedOneStays() {
        guard
            let sim = play(
                """
                profile flutter
                at 0 launch
                at 1s network offline
                at 1s track a
                at 2s network online
                at 3s quit
                at 4s launch
                at 4s track b
                at 4s logout
                at 4.15s quit
                expect at 4.15s state a queued
                expect at 4.15s dropped b not-saved
                expect at 4.15s dropped logout not-saved
                expect at 4.15s dropped token-removal not-saved
                expect at 4.15s saved 1
                expect at 4.15s received a 1
                expect at 4.15s received b 1
                """)?.sim
        else { return }
        XCTAssertEqual(K.trail(sim, "a").suffix(2), ["4000 queued>in-flight #2 FL-4", "4150 in-flight>queued #2 FL-2"])
        XCTAssertEqual(K.trail(sim, "b").last, "4150 in-flight>dropped #1 not-saved FL-2")
    }

    // MARK: FL-3 Server answers are final

    func test_FL_3_4xxDropsRejected5xxDropsNotSavedNeitherRetried() {
        guard
            let sim = play(
                """
                profile flutter
                at 0 launch
                at 0 server 404
                at 0 track a
                at 0 server 403
                at 0 screen f
                at 0 server 500
                at 0 track b
                at 0 server 503
                at 0 ping
                expect at 0.2s dropped a rejected
                expect at 0.2s dropped f rejected
                expect at 0.2s dropped b not-saved
                expect at 0.2s dropped ping not-saved
                expect at 0.2s saved 0
                at 1s quit
                at 2s launch
                expect at 10s attempts a 1
                expect at 10s attempts b 1
                """)?.sim
        else { return }
        XCTAssertEqual(K.trail(sim, "a").last, "200 in-flight>dropped #1 404 rejected FL-3")
        XCTAssertEqual(K.trail(sim, "f").last, "200 in-flight>dropped #1 403 rejected FL-3")
        XCTAssertEqual(K.trail(sim, "b").last, "200 in-flight>dropped #1 500 not-saved FL-3")
        XCTAssertEqual(K.trail(sim, "ping").last, "200 in-flight>dropped #1 503 not-saved FL-3")
    }

    func test_FL_3_savedRequestAnswered5xxOnResendIsDropped() {
        guard
            let sim = play(
                """
                profile flutter
                at 0 launch
                at 1s network offline
                at 1s track a
                at 2s network online
                at 3s quit
                expect at 3s saved 1
                at 4s server 502
                at 5s launch
                expect at 5.2s dropped a not-saved
                expect at 5.2s attempts a 2
                expect at 5.2s saved 0
                """)?.sim
        else { return }
        XCTAssertEqual(
            K.trail(sim, "a").suffix(2),
            ["5000 queued>in-flight #2 FL-4", "5200 in-flight>dropped #2 502 not-saved FL-3"])
        XCTAssertEqual(K.storeRows(sim), 0)
    }

    // MARK: FL-4 Resend

    func test_FL_4_savedRequestsGoAtNextLaunchAllAtOnceOldestFirst() {
        guard
            let sim = play(
                """
                profile flutter
                at 0 launch
                at 1s network offline
                at 1s track a
                at 1s screen b
                at 1s notification n
                at 2s network online
                expect at 4s state a queued
                expect at 4s attempts a 1
                at 5s quit
                at 6s launch
                expect at 6s state a in-flight
                expect at 6s state b in-flight
                expect at 6s state n in-flight
                expect at 6.2s state a delivered
                expect at 6.2s state b delivered
                expect at 6.2s state n delivered
                expect at 6.2s saved 0
                """)?.sim
        else { return }
        XCTAssertEqual(K.sent(sim, at: 6000), ["a", "b", "n"])
        XCTAssertEqual(
            K.trail(sim, "a").suffix(2), ["6000 queued>in-flight #2 FL-4", "6200 in-flight>delivered #2 200 FL-4"])
        XCTAssertEqual(K.sent(sim, at: 2000), [], "the network returning resends nothing")
    }

    // MARK: FL-5 No result

    func test_FL_5_appGetsNoCompletion() {
        guard
            let sim = play(
                """
                profile flutter
                at 0 launch
                at 1s track ok
                at 1s server 404
                at 1s screen bad
                at 1s server timeout
                at 1s ping
                expect at 1.2s completion ok none
                expect at 1.2s completion bad none
                expect at 11s state ping queued
                expect at 11s completion ping none
                """)?.sim
        else { return }
        XCTAssertEqual(completionLogCount(sim), 0)
        XCTAssertEqual(K.trail(sim, "ok").last, "1200 in-flight>delivered #1 200 FL-1")
        XCTAssertEqual(K.trail(sim, "bad").last, "1200 in-flight>dropped #1 404 rejected FL-3")
        XCTAssertEqual(K.trail(sim, "ping").last, "11000 in-flight>queued #1 timeout FL-2")
        XCTAssertEqual(sim.requests.map(\.completion), [Completion](repeating: .none, count: 3))
    }
}
