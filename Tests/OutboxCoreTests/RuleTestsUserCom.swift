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
        guard let sim = K.fixture("AND-1-each-request-is-sent-at-once-without-queue")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            [
                "1000 new>pending #0 AND-1", "1000 pending>in-flight #1 AND-1", "1200 in-flight>delivered #1 200 AND-1",
            ])
        XCTAssertEqual(K.sent(sim, at: 1000), ["a", "ping"])
    }

    // MARK: AND-2 Saved on failure

    func test_AND_2_failedEventsAreSavedPingsAndLogoutExtrasAreNot() {
        guard let sim = K.fixture("AND-2-failed-events-are-saved-pings-and-logout-extras-are-not")?.sim else { return }
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
        guard let sim = K.fixture("AND-2-never-saved-request-on-the-wire-at-quit-is-lost")?.sim else { return }
        XCTAssertEqual(K.trail(sim, "a").last, "1150 in-flight>dropped #1 not-saved AND-2")
        XCTAssertEqual(K.trail(sim, "ping").last, "1150 in-flight>dropped #1 not-saved AND-2")
    }

    // MARK: AND-3 getInstance

    func test_AND_3_getInstanceResendsAllSavedOldestFirstWithNoLimit() {
        // Queued in the order b, c (1.2 s), a (10 s); created a, b, c.
        guard let sim = K.fixture("AND-3-getinstance-resends-all-saved-oldest-first-with-no-limit")?.sim else { return }
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
        guard let sim = K.fixture("AND-3-launch-calls-getinstance-once-and-saved-on-the-wire-stays-saved")?.sim else {
            return
        }
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
        guard let sim = K.fixture("AND-4-rejected-stays-saved-and-is-resent-on-every-getinstance")?.sim else { return }
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
        guard let sim = K.fixture("AND-5-attempt-while-offline-fails-at-once-as-transport-error")?.sim else { return }
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
        guard let sim = K.fixture("AND-6-app-gets-no-completion")?.sim else { return }
        XCTAssertEqual(completionLogCount(sim), 0)
        XCTAssertEqual(K.trail(sim, "ok").last, "1200 in-flight>delivered #1 200 AND-1")
        XCTAssertEqual(K.trail(sim, "blocked").last, "1200 in-flight>queued #1 403 AND-4")
        XCTAssertEqual(K.trail(sim, "ping").last, "1200 in-flight>dropped #1 500 not-saved AND-2")
        XCTAssertEqual(sim.requests.map(\.completion), [Completion](repeating: .none, count: 3))
    }

    // MARK: FL-1 Straight away

    func test_FL_1_eachRequestIsSentAtOnce() {
        guard let sim = K.fixture("FL-1-each-request-is-sent-at-once")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "p"),
            [
                "1000 new>pending #0 FL-1", "1000 pending>in-flight #1 FL-1", "1200 in-flight>delivered #1 200 FL-1",
            ])
        XCTAssertEqual(K.sent(sim, at: 1000), ["p", "n"])
    }

    // MARK: FL-2 Network errors are saved

    func test_FL_2_transportErrorsAreSaved() {
        guard let sim = K.fixture("FL-2-transport-errors-are-saved")?.sim else { return }
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
        guard let sim = K.fixture("FL-2-unsaved-on-the-wire-at-quit-is-lost-saved-one-stays")?.sim else { return }
        XCTAssertEqual(K.trail(sim, "a").suffix(2), ["4000 queued>in-flight #2 FL-4", "4150 in-flight>queued #2 FL-2"])
        XCTAssertEqual(K.trail(sim, "b").last, "4150 in-flight>dropped #1 not-saved FL-2")
    }

    // MARK: FL-3 Server answers are final

    func test_FL_3_4xxDropsRejected5xxDropsNotSavedNeitherRetried() {
        guard let sim = K.fixture("FL-3-4xx-drops-rejected-5xx-drops-not-saved-neither-retried")?.sim else { return }
        XCTAssertEqual(K.trail(sim, "a").last, "200 in-flight>dropped #1 404 rejected FL-3")
        XCTAssertEqual(K.trail(sim, "f").last, "200 in-flight>dropped #1 403 rejected FL-3")
        XCTAssertEqual(K.trail(sim, "b").last, "200 in-flight>dropped #1 500 not-saved FL-3")
        XCTAssertEqual(K.trail(sim, "ping").last, "200 in-flight>dropped #1 503 not-saved FL-3")
    }

    func test_FL_3_savedRequestAnswered5xxOnResendIsDropped() {
        guard let sim = K.fixture("FL-3-saved-request-answered-5xx-on-resend-is-dropped")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a").suffix(2),
            ["5000 queued>in-flight #2 FL-4", "5200 in-flight>dropped #2 502 not-saved FL-3"])
        XCTAssertEqual(K.storeRows(sim), 0)
    }

    // MARK: FL-4 Resend

    func test_FL_4_savedRequestsGoAtNextLaunchAllAtOnceOldestFirst() {
        guard let sim = K.fixture("FL-4-saved-requests-go-at-next-launch-all-at-once-oldest-first")?.sim else { return }
        XCTAssertEqual(K.sent(sim, at: 6000), ["a", "b", "n"])
        XCTAssertEqual(
            K.trail(sim, "a").suffix(2), ["6000 queued>in-flight #2 FL-4", "6200 in-flight>delivered #2 200 FL-4"])
        XCTAssertEqual(K.sent(sim, at: 2000), [], "the network returning resends nothing")
    }

    // MARK: FL-5 No result

    func test_FL_5_appGetsNoCompletion() {
        guard let sim = K.fixture("FL-5-app-gets-no-completion")?.sim else { return }
        XCTAssertEqual(completionLogCount(sim), 0)
        XCTAssertEqual(K.trail(sim, "ok").last, "1200 in-flight>delivered #1 200 FL-1")
        XCTAssertEqual(K.trail(sim, "bad").last, "1200 in-flight>dropped #1 404 rejected FL-3")
        XCTAssertEqual(K.trail(sim, "ping").last, "11000 in-flight>queued #1 timeout FL-2")
        XCTAssertEqual(sim.requests.map(\.completion), [Completion](repeating: .none, count: 3))
    }
}
