import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// `keep at most N drop oldest|refuse rule R` and `expire after D rule R`
/// (Policy/Capacity.swift, issue 24 item 4): whole histories of the made-up
/// ACME profile with one line more, and the statements' errors.
final class RuleTestsCapacity: XCTestCase {
    typealias U = UserProfileKit

    static func acme(_ more: String, offline: String = "offline fail", resend: String = "resend on launch rule ACME-4")
        -> String
    {
        ProfileStatementTests.acme(offline: offline, resend: resend, more: more)
    }

    // MARK: keep at most N drop oldest

    /// Full, the oldest waiting request is evicted; one on the wire is never:
    /// with both kept ones in flight, the new one is dropped instead.
    func test_keepDropOldest_evictsTheOldestWaitingNeverOneInFlight() {
        guard
            let r = U.play(
                profile: Self.acme("keep at most 2 drop oldest rule ACME-7"),
                """
                profile acme
                at 0 launch
                at 0 server 503 always
                at 0 track a
                at 0.1s track b
                at 0.15s track c
                expect at 0.15s dropped c overflow
                at 0.5s track d
                expect at 0.5s dropped a overflow
                expect at 0.5s saved 2
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "b: 100 new>pending #0 ACME-1",
                "b: 100 pending>in-flight #1 ACME-1",
                // a and b are both on the wire: the new one is dropped.
                "c: 150 new>dropped #0 overflow ACME-7",
                "a: 200 in-flight>retrying #1 503 ACME-2",
                "b: 300 in-flight>retrying #1 503 ACME-2",
                // a waits for its retry: the oldest waiting one goes, d is made.
                "a: 500 retrying>dropped #1 overflow ACME-7",
                "d: 500 new>pending #0 ACME-1",
                "d: 500 pending>in-flight #1 ACME-1",
                "d: 700 in-flight>retrying #1 503 ACME-2",
                "b: 1300 retrying>in-flight #2 ACME-2",
                "b: 1500 in-flight>retrying #2 503 ACME-2",
                "d: 1700 retrying>in-flight #2 ACME-2",
                "d: 1900 in-flight>retrying #2 503 ACME-2",
                "b: 3500 retrying>in-flight #3 ACME-2",
                "b: 3700 in-flight>dropped #3 503 exhausted ACME-2",
                "d: 3900 retrying>in-flight #3 ACME-2",
                "d: 4100 in-flight>dropped #3 503 exhausted ACME-2",
            ])
        XCTAssertTrue(
            r.jsonl.contains(
                #"{"t":0.5,"id":1,"name":"a","kind":"event","from":"retrying","to":"dropped","attempt":1,"rule":"ACME-7","reason":"overflow"}"#
            ), r.jsonl.joined(separator: "\n"))
        XCTAssertTrue(
            r.text.contains(
                "00:00:00.500  #1    event          a               retrying → dropped      attempt 1   overflow              ACME-7"
            ), r.text.joined(separator: "\n"))
        XCTAssertEqual(r.sim.backend.received, 7, "c was never sent")
    }

    /// What a quit keeps comes back at the launch and counts: the oldest
    /// restored one is evicted for a new one, and gone from the device.
    func test_keepDropOldest_restoredRequestsCountAndTheOldestIsEvicted() {
        guard
            let r = U.play(
                profile: Self.acme("keep at most 2 drop oldest rule ACME-7"),
                """
                profile acme
                at 0 launch
                at 0 server 503 always
                at 0 track a
                at 0.1s track b
                at 0.5s quit
                expect at 0.5s saved 2
                at 1s launch
                at 1.5s track c
                expect at 1.5s dropped a overflow
                expect at 1.5s saved 2
                """)
        else { return }
        XCTAssertEqual(
            Array(U.trails(r.sim).prefix(15)),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "b: 100 new>pending #0 ACME-1",
                "b: 100 pending>in-flight #1 ACME-1",
                "a: 200 in-flight>retrying #1 503 ACME-2",
                "b: 300 in-flight>retrying #1 503 ACME-2",
                "a: 500 retrying>queued #1 ACME-4",
                "b: 500 retrying>queued #1 ACME-4",
                "a: 1000 queued>in-flight #2 ACME-4",
                "b: 1000 queued>in-flight #2 ACME-4",
                "a: 1200 in-flight>retrying #2 503 ACME-2",
                "b: 1200 in-flight>retrying #2 503 ACME-2",
                "a: 1500 retrying>dropped #2 overflow ACME-7",
                "c: 1500 new>pending #0 ACME-1",
                "c: 1500 pending>in-flight #1 ACME-1",
            ])
        // Evicted, a is gone from the device too: `expect at 1.5s saved 2` (b and c).
        XCTAssertEqual(r.sim.request(1).saved, false)
    }

    // MARK: keep at most N refuse

    /// Full, the new request is dropped at once: never sent, never saved.
    func test_keepRefuse_theNewRequestIsDroppedNeverSentNorSaved() {
        guard
            let r = U.play(
                profile: Self.acme("keep at most 2 refuse rule ACME-7"),
                """
                profile acme
                at 0 launch
                at 0 server 503 always
                at 0 track a
                at 1s track b
                at 2s track c
                expect at 2s dropped c overflow
                expect at 2s attempts c 0
                expect at 2s saved 2
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "a: 200 in-flight>retrying #1 503 ACME-2",
                "b: 1000 new>pending #0 ACME-1",
                "b: 1000 pending>in-flight #1 ACME-1",
                "a: 1200 retrying>in-flight #2 ACME-2",
                "b: 1200 in-flight>retrying #1 503 ACME-2",
                "a: 1400 in-flight>retrying #2 503 ACME-2",
                "c: 2000 new>dropped #0 overflow ACME-7",
                "b: 2200 retrying>in-flight #2 ACME-2",
                "b: 2400 in-flight>retrying #2 503 ACME-2",
                "a: 3400 retrying>in-flight #3 ACME-2",
                "a: 3600 in-flight>dropped #3 503 exhausted ACME-2",
                "b: 4400 retrying>in-flight #3 ACME-2",
                "b: 4600 in-flight>dropped #3 503 exhausted ACME-2",
            ])
    }

    /// Direct kinds are outside the queue: not counted, never refused.
    func test_keepRefuse_directKindsAreNotCounted() {
        guard
            let r = U.play(
                profile: Self.acme(
                    "keep at most 1 refuse rule ACME-7\ndirect logout token-removal anonymous-ping rule ACME-6"),
                """
                profile acme
                at 0 launch
                at 0 logout
                at 0.05s track a
                at 0.1s track b
                expect at 0.1s dropped b overflow
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "logout: 0 new>pending #0 ACME-6",
                "logout: 0 pending>in-flight #1 ACME-6",
                "token-removal: 0 new>pending #0 ACME-6",
                "token-removal: 0 pending>in-flight #1 ACME-6",
                "anonymous-ping: 0 new>pending #0 ACME-6",
                "anonymous-ping: 0 pending>in-flight #1 ACME-6",
                // Three direct requests on the wire, none counted: a is kept.
                "a: 50 new>pending #0 ACME-1",
                "a: 50 pending>in-flight #1 ACME-1",
                // a on the wire is the one kept.
                "b: 100 new>dropped #0 overflow ACME-7",
                "logout: 200 in-flight>delivered #1 200 ACME-6",
                "token-removal: 200 in-flight>delivered #1 200 ACME-6",
                "anonymous-ping: 200 in-flight>delivered #1 200 ACME-6",
                "a: 250 in-flight>delivered #1 200 ACME-1",
            ])
    }

    // MARK: expire after D

    /// A retry falling due after the limit drops the request instead of sending it.
    func test_expire_atTheRetryFallingDue() {
        guard
            let r = U.play(
                profile: Self.acme("expire after 1s rule ACME-8"),
                """
                profile acme
                at 0 launch
                at 0 server 503 always
                at 0 track a
                at 0.5s track b
                expect at 1.2s dropped a expired
                expect at 1.7s dropped b expired
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "a: 200 in-flight>retrying #1 503 ACME-2",
                "b: 500 new>pending #0 ACME-1",
                "b: 500 pending>in-flight #1 ACME-1",
                "b: 700 in-flight>retrying #1 503 ACME-2",
                "a: 1200 retrying>dropped #1 expired ACME-8",
                "b: 1700 retrying>dropped #1 expired ACME-8",
            ])
        XCTAssertEqual(r.sim.backend.received, 2)
    }

    /// At a launch, a saved request past the limit is dropped before the resend,
    /// which then has nothing to say; a younger one goes out, then expires at its retry.
    func test_expire_atLaunchBeforeTheResend() {
        guard
            let r = U.play(
                profile: Self.acme("expire after 10s rule ACME-8"),
                """
                profile acme
                at 0 launch
                at 0 server 503 always
                at 0 track a
                at 0.5s quit
                at 11s launch
                expect at 11s dropped a expired
                at 11s track b
                at 11.1s quit
                at 20s launch
                expect at 21.2s dropped b expired
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "a: 200 in-flight>retrying #1 503 ACME-2",
                "a: 500 retrying>queued #1 ACME-4",
                "a: 11000 queued>dropped #1 expired ACME-8",
                "b: 11000 new>pending #0 ACME-1",
                "b: 11000 pending>in-flight #1 ACME-1",
                "b: 11100 in-flight>queued #1 ACME-4",
                "b: 20000 queued>in-flight #2 ACME-4",
                "b: 20200 in-flight>retrying #2 503 ACME-2",
                "b: 21200 retrying>dropped #2 expired ACME-8",
            ])
        XCTAssertEqual(U.logs(r.sim).filter { $0.contains("saved go out") }, ["20000 [ACME-4] launch: 1 saved go out"])
        XCTAssertEqual(r.sim.savedCount, 0)
    }

    /// Firebase's shape: a device that was offline for days. Saved requests seeded
    /// with their creation times (`saved ... created T`): at the launch the one
    /// past 72 h is dropped unsent, the younger one goes out.
    func test_expire_aSeededDeviceAtLaunch() {
        guard
            let r = U.play(
                profile: Self.acme("expire after 72h rule ACME-8"),
                """
                profile acme
                saved event old created 0
                saved event fresh created 80h
                at 100h launch
                expect at 100h dropped old expired
                expect at 100h attempts old 0
                expect at 100h0m0.2s state fresh delivered
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "old: 360000000 new>queued #0 ACME-4",
                "fresh: 360000000 new>queued #0 ACME-4",
                "old: 360000000 queued>dropped #0 expired ACME-8",
                "fresh: 360000000 queued>in-flight #1 ACME-4",
                "fresh: 360000200 in-flight>delivered #1 200 ACME-1",
            ])
        XCTAssertEqual(U.logs(r.sim).filter { $0.contains("go out") }, ["360000000 [ACME-4] launch: 1 saved go out"])
    }

    /// With `offline hold`: made offline, requests wait queued and count; the
    /// oldest is evicted; when the network returns, the one past the limit is
    /// dropped, never attempted, and the resend says only the others.
    func test_keepAndExpire_withOfflineHold() {
        let text = Self.acme(
            "expire after 10s rule ACME-8\nkeep at most 2 drop oldest rule ACME-7",
            offline: "offline hold rule ACME-5", resend: "resend on network rule ACME-6")
        guard
            let r = U.play(
                profile: text,
                """
                profile acme
                at 0 launch
                at 0 network offline
                at 1s track a
                at 2s track b
                at 3s track c
                expect at 3s dropped a overflow
                expect at 3s saved 2
                at 12.5s track d
                expect at 12.5s dropped b overflow
                at 14s network online
                expect at 14s dropped c expired
                expect at 14s attempts c 0
                expect at 14.2s state d delivered
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 1000 new>queued #0 ACME-5",
                "b: 2000 new>queued #0 ACME-5",
                "a: 3000 queued>dropped #0 overflow ACME-7",
                "c: 3000 new>queued #0 ACME-5",
                "b: 12500 queued>dropped #0 overflow ACME-7",
                "d: 12500 new>queued #0 ACME-5",
                "c: 14000 queued>dropped #0 expired ACME-8",
                "d: 14000 queued>in-flight #1 ACME-6",
                "d: 14200 in-flight>delivered #1 200 ACME-1",
            ])
        XCTAssertEqual(U.logs(r.sim).filter { $0.contains("go out") }, ["14000 [ACME-6] network back: 1 queued go out"])
    }

    /// The flush (LinkTrail's LT-8) reaching a request past the limit drops it and takes the next.
    func test_expire_whenTheFlushReachesIt() {
        let text = """
            profile ltx
            base linktrail
            rule AGE-1 "A request older than 20s is not sent."
            expire after 20s rule AGE-1
            """
        guard
            let r = U.play(
                profile: text,
                """
                profile ltx
                at 0 launch
                at 0 consent grant
                at 1s network offline
                at 1s track a
                expect at 7s state a queued
                at 8s network online
                at 30s track b
                expect at 30.2s state b delivered
                expect at 30.2s dropped a expired
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim).filter { $0.hasPrefix("a: ") }.suffix(2),
            ["a: 7000 in-flight>queued #3 offline LT-5", "a: 30200 queued>dropped #3 expired AGE-1"])
        XCTAssertEqual(
            U.logs(r.sim).filter { $0.hasPrefix("30200") },
            [
                "30200 [LT-8] flush started (LT-8: successful send of #3 'b') · 1 queued",
                "30200 [LT-11] flush ended (LT-11: queue empty) · sent 0 · 0 left",
            ])
    }

    /// `compare` keeps each transition packed (four bits for the reason, since
    /// `retry-budget` made eight): every reason, the new ones included, reads back as written.
    func test_everyDropReasonReadsBackFromTheCompareLog() {
        var log = TransitionLog()
        for (i, reason) in DropReason.allCases.enumerated() {
            log.append(
                Transition(
                    time: Millis(i), request: Int32(i + 1), attempt: 1, previous: -1, batch: 0, outcome: .none,
                    from: .queued, to: .dropped, reason: reason, rule: RuleID(rawValue: 0)))
        }
        let steps = log.steps(of: Set(1...Int32(DropReason.allCases.count)))
        XCTAssertEqual(
            (1...Int32(DropReason.allCases.count)).map { steps[$0]?.first?.reason },
            DropReason.allCases.map { $0 })
        XCTAssertLessThan(DropReason.allCases.count, 16, "the compare log packs a reason in four bits")
    }

    // MARK: The statements

    /// `keep none` and `expire none` remove a base's.
    func test_none_removesABasesLimits() {
        guard let b = U.load(Self.acme("keep at most 1 refuse rule ACME-7\nexpire after 1s rule ACME-8")) else {
            return
        }
        XCTAssertEqual(b.spec.policy.capacity?.most, 1)
        XCTAssertEqual(b.spec.policy.expiry?.after, 1000)
        switch Profile.parse(
            "profile mine\nbase acme\nkeep none\nexpire none", file: "mine.profile", base: { $0 == "acme" ? b : nil })
        {
        case .success(let p):
            XCTAssertNil(p.spec.policy.capacity)
            XCTAssertNil(p.spec.policy.expiry)
        case .failure(let e): XCTFail(e.errors.map(\.description).joined(separator: "; "))
        }
    }

    func test_errors_badLinesSayWhatWasExpected() {
        let keep = "bad keep line, expected `keep at most N drop oldest|refuse rule ID` or `keep none`"
        let count = "expected a whole number from 1 to 1000000"
        let expire = "bad expire line, expected `expire after DURATION rule ID` or `expire none`"
        let cases: [(String, String)] = [
            ("keep", keep), ("keep at most", keep), ("keep 10 drop oldest rule ACME-7", keep),
            ("keep at most 10", keep), ("keep at most 10 drop oldest", keep),
            ("keep at most 10 drop oldest ACME-7", keep), ("keep at most 10 refuse", keep),
            ("keep at most 10 drop oldest rule ACME-7 x", keep), ("keep none x", keep),
            ("keep at most ten drop oldest rule ACME-7", "bad keep count `ten`, " + count),
            ("keep at most 0 refuse rule ACME-7", "bad keep count `0`, " + count),
            ("keep at most -5 refuse rule ACME-7", "bad keep count `-5`, " + count),
            ("keep at most 1000001 refuse rule ACME-7", "bad keep count `1000001`, " + count),
            (
                "keep at most 10 drop newest rule ACME-7",
                "`drop newest` would drop the request just made, which is `refuse`, expected `keep at most 10 refuse rule ID`"
            ),
            (
                "keep at most 10 refuse rule NOPE",
                "rule NOPE is cited but not defined, expected a line `rule NOPE \"what it does\"`"
            ),
            ("expire", expire), ("expire after 72h", expire), ("expire after 72h ACME-8", expire),
            ("expire 72h rule ACME-8", expire), ("expire none x", expire),
            ("expire after 3d rule ACME-8", "bad expire duration `3d`, " + VirtualTime.expected),
            (
                "expire after 200000h rule ACME-8",
                "bad expire duration `200000h`, expected at most 100000h, the longest time Outbox takes"
            ),
            (
                "expire after 0 rule ACME-8",
                "bad expire duration `0`, expected a duration above 0 (`expire none` for no limit)"
            ),
            // The queue's own reasons are not an answer's.
            (
                "on 4xx drop overflow rule ACME-3",
                "bad drop reason `overflow`, expected rejected, exhausted or not-saved"
            ),
            ("on 4xx drop expired rule ACME-3", "bad drop reason `expired`, expected rejected, exhausted or not-saved"),
        ]
        for (line, message) in cases {
            XCTAssertEqual(ProfileStatementTests.errors(adding: line), ["acme.profile:25: " + message], line)
        }
    }

    /// `expect dropped NAME overflow|expired` reads both; a wrong reason lists them all.
    func test_scenario_dropReasonsIncludeOverflowAndExpired() {
        switch Scenario.parse("profile ios\nat 0 launch\nat 0 track a\nexpect at 1s dropped a bogus", file: "s.outbox")
        {
        case .success: XCTFail("a bogus reason parsed")
        case .failure(let e):
            XCTAssertEqual(
                e.errors.map(\.description),
                [
                    "s.outbox:4: unknown drop reason `bogus`, expected one of: consent, rejected, exhausted, not-saved, overflow, expired, rate-limited, retry-budget"
                ])
        }
        for word in ["overflow", "expired"] {
            guard
                case .success = Scenario.parse(
                    "profile ios\nat 0 launch\nat 0 track a\nexpect at 1s dropped a \(word)", file: "s.outbox")
            else {
                return XCTFail(word)
            }
        }
    }
}
