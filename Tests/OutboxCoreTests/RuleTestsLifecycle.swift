import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// `offline self after N failures [or transport] rule R` (Policy/Offline.swift),
/// `save never rule R` (Policy/Saving.swift) and the app lifecycle: `background
/// rule R`, `on background flush rule R`, `background limit D rule R`
/// (Policy/Lifecycle.swift), issue 24 items 5 and 6: whole histories of the
/// made-up ACME profile with a line more, and the statements' errors.
final class RuleTestsLifecycle: XCTestCase {
    typealias U = UserProfileKit

    static func acme(
        _ more: String, save: String = "save at create", offline: String = "offline fail",
        resend: String = "resend on launch rule ACME-4"
    ) -> String {
        ProfileStatementTests.acme(save: save, offline: offline, resend: resend, more: more)
    }

    // MARK: offline self

    /// The third failed attempt in a row marks the SDK offline: the retries
    /// falling due and a new request wait queued citing the rule, attempts on
    /// the wire finish; the network coming back clears the mark and sends them.
    func test_offlineSelf_afterNFailuresHoldsEverythingUntilTheNetworkReturns() {
        guard
            let r = U.play(
                profile: Self.acme("offline self after 3 failures rule ACME-7"),
                """
                profile acme
                at 0 launch
                at 0 server 503 always
                at 0 track a
                at 0.1s track b
                at 4s track c
                expect at 4s state c queued
                expect at 4s state a queued
                expect at 4s received a 2
                at 5s network offline
                at 5.5s server ok
                at 6s network online
                expect at 7s state c delivered
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "b: 100 new>pending #0 ACME-1",
                "b: 100 pending>in-flight #1 ACME-1",
                "a: 200 in-flight>retrying #1 503 ACME-2",
                "b: 300 in-flight>retrying #1 503 ACME-2",
                "a: 1200 retrying>in-flight #2 ACME-2",
                // On the wire when the mark comes: it finishes (the fourth failure).
                "b: 1300 retrying>in-flight #2 ACME-2",
                "a: 1400 in-flight>retrying #2 503 ACME-2",
                "b: 1500 in-flight>retrying #2 503 ACME-2",
                "a: 3400 retrying>queued #2 ACME-7",
                "b: 3500 retrying>queued #2 ACME-7",
                "c: 4000 new>queued #0 ACME-7",
                "a: 6000 queued>in-flight #3 ACME-7",
                "b: 6000 queued>in-flight #3 ACME-7",
                "c: 6000 queued>in-flight #1 ACME-7",
                "a: 6200 in-flight>delivered #3 200 ACME-1",
                "b: 6200 in-flight>delivered #3 200 ACME-1",
                "c: 6200 in-flight>delivered #1 200 ACME-1",
            ])
        XCTAssertEqual(
            U.logs(r.sim),
            [
                "0 [-] app launched (launch 1)",
                "0 [ANS] backend will answer: 503 always",
                "1400 [ACME-7] SDK marks itself offline: 3 failed attempts in a row; nothing is sent until the network returns or the app launches again",
                "5000 [NET] network offline",
                "5500 [ANS] backend will answer: ok",
                "6000 [NET] network online",
                "6000 [ACME-7] SDK no longer offline: the network returned; sending 3 queued",
            ])
        XCTAssertFalse(r.sim.markedOffline)
        XCTAssertEqual(r.sim.savedCount, 0)
    }

    /// With `or transport`, one timeout marks it at once; the next launch (a new
    /// process) clears it, and the launch's own resend sends what waited.
    func test_offlineSelf_orTransport_marksOnATimeoutAndALaunchClears() {
        guard
            let r = U.play(
                profile: Self.acme("offline self after 7 failures or transport rule ACME-7"),
                """
                profile acme
                at 0 launch
                at 0 server timeout
                at 0 track a
                at 20s track b
                at 30s quit
                expect at 30s saved 2
                at 31s launch
                expect at 32s state b delivered
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "a: 10000 in-flight>retrying #1 timeout ACME-2",
                "a: 11000 retrying>queued #1 ACME-7",
                "b: 20000 new>queued #0 ACME-7",
                "a: 31000 queued>in-flight #2 ACME-4",
                "b: 31000 queued>in-flight #1 ACME-4",
                "a: 31200 in-flight>delivered #2 200 ACME-1",
                "b: 31200 in-flight>delivered #1 200 ACME-1",
            ])
        XCTAssertEqual(
            U.logs(r.sim),
            [
                "0 [-] app launched (launch 1)",
                "0 [ANS] backend will answer: timeout ×1",
                "10000 [ACME-7] SDK marks itself offline: a transport failure (timeout); nothing is sent until the network returns or the app launches again",
                "30000 [-] app closing",
                "30000 [-] app closed · 2 saved on the device",
                "31000 [-] app launched (launch 2)",
                "31000 [ACME-7] SDK no longer offline: the app launched again",
                "31000 [ACME-4] launch: 2 saved go out",
            ])
    }

    /// Failures in a row: a success between them starts the count again, so two
    /// and two never reach three.
    func test_offlineSelf_aSuccessStartsTheCountAgain() {
        guard
            let r = U.play(
                profile: Self.acme("offline self after 3 failures rule ACME-7"),
                """
                profile acme
                at 0 launch
                at 0 server 503 x2
                at 0 track a
                at 0.1s track b
                at 2s server 503 x2
                at 2s track c
                at 2.1s track d
                expect at 4s state d delivered
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "b: 100 new>pending #0 ACME-1",
                "b: 100 pending>in-flight #1 ACME-1",
                "a: 200 in-flight>retrying #1 503 ACME-2",
                "b: 300 in-flight>retrying #1 503 ACME-2",
                "a: 1200 retrying>in-flight #2 ACME-2",
                "b: 1300 retrying>in-flight #2 ACME-2",
                "a: 1400 in-flight>delivered #2 200 ACME-1",
                "b: 1500 in-flight>delivered #2 200 ACME-1",
                "c: 2000 new>pending #0 ACME-1",
                "c: 2000 pending>in-flight #1 ACME-1",
                "d: 2100 new>pending #0 ACME-1",
                "d: 2100 pending>in-flight #1 ACME-1",
                "c: 2200 in-flight>retrying #1 503 ACME-2",
                "d: 2300 in-flight>retrying #1 503 ACME-2",
                "c: 3200 retrying>in-flight #2 ACME-2",
                "d: 3300 retrying>in-flight #2 ACME-2",
                "c: 3400 in-flight>delivered #2 200 ACME-1",
                "d: 3500 in-flight>delivered #2 200 ACME-1",
            ])
        XCTAssertFalse(U.logs(r.sim).contains { $0.contains("offline") }, U.logs(r.sim).joined(separator: "\n"))
    }

    // MARK: save never

    /// Memory only: nothing is saved; at the quit the live request is dropped
    /// `not-saved` citing the save line's rule, and nothing comes back.
    func test_saveNever_quitDropsEveryLiveRequestAndNothingComesBack() {
        let store = CountingStore()
        guard let p = U.load(Self.acme("", save: "save never rule ACME-7")),
            let sc = parse(
                """
                profile acme
                at 0 launch
                at 0 server 503 always
                at 0 track a
                expect at 0.4s saved 0
                at 0.5s quit
                at 1s launch
                at 1s track b
                expect at 5s dropped b exhausted
                expect at 5s saved 0
                """, [p])
        else { return }
        var runner = ScenarioRunner(sc, store: store)
        runner.run()
        XCTAssertEqual(runner.failures.map { "\($0.line): \($0.text): \($0.found)" }, [])
        XCTAssertEqual(
            U.trails(runner.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "a: 200 in-flight>retrying #1 503 ACME-2",
                "a: 500 retrying>dropped #1 not-saved ACME-7",
                "b: 1000 new>pending #0 ACME-1",
                "b: 1000 pending>in-flight #1 ACME-1",
                "b: 1200 in-flight>retrying #1 503 ACME-2",
                "b: 2200 retrying>in-flight #2 ACME-2",
                "b: 2400 in-flight>retrying #2 503 ACME-2",
                "b: 4400 retrying>in-flight #3 ACME-2",
                "b: 4600 in-flight>dropped #3 503 exhausted ACME-2",
            ])
        XCTAssertEqual(store.writes, 0, "the device store is never written")
        XCTAssertEqual(
            U.logs(runner.sim),
            [
                "0 [-] app launched (launch 1)",
                "0 [ANS] backend will answer: 503 always",
                "500 [-] app closing",
                "500 [-] app closed · 0 saved on the device",
                "1000 [-] app launched (launch 2)",
            ])
    }

    /// An answer that says `queue` keeps the request queued in memory, not
    /// saved; the quit drops it too (a queued request survives only when saved).
    func test_saveNever_aQueuedRequestLivesInMemoryAndGoesAtTheQuit() {
        let profile = Self.acme("", save: "save never rule ACME-7", offline: "offline hold rule ACME-5")
            .replacingOccurrences(of: "on 5xx retry rule ACME-2", with: "on 5xx queue rule ACME-2")
        let store = CountingStore()
        guard let p = U.load(profile),
            let sc = parse(
                """
                profile acme
                at 0 launch
                at 0 server 503
                at 0 track a
                at 0.1s track b
                at 0.5s network offline
                at 0.5s track c
                expect at 0.9s state a queued
                expect at 0.9s state c queued
                expect at 0.9s saved 0
                at 1s quit
                at 2s launch
                expect at 2s state c dropped
                """, [p])
        else { return }
        var runner = ScenarioRunner(sc, store: store)
        runner.run()
        XCTAssertEqual(runner.failures.map { "\($0.line): \($0.text): \($0.found)" }, [])
        XCTAssertEqual(
            U.trails(runner.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                "b: 100 new>pending #0 ACME-1",
                "b: 100 pending>in-flight #1 ACME-1",
                "a: 200 in-flight>queued #1 503 ACME-2",
                "b: 300 in-flight>delivered #1 200 ACME-1",
                // Held offline, it waits queued, in memory.
                "c: 500 new>queued #0 ACME-5",
                "a: 1000 queued>dropped #1 not-saved ACME-7",
                "c: 1000 queued>dropped #0 not-saved ACME-7",
            ])
        XCTAssertEqual(store.writes, 0, "the device store is never written")
    }

    /// A `saved` line cannot give a memory-only device anything; the consent
    /// gate, which keeps its decision on the device, is refused with it.
    func test_saveNever_refusesSavedLinesAndTheConsentGate() {
        guard let p = U.load(Self.acme("", save: "save never rule ACME-7")) else { return }
        switch Scenario.parse(
            "profile acme\nsaved event a\nat 0 launch", file: "s.outbox", profiles: U.resolver([p]))
        {
        case .success: XCTFail("a saved line parsed on a memory-only profile")
        case .failure(let e):
            XCTAssertEqual(
                e.errors.map(\.description),
                ["s.outbox:2: profile acme saves nothing (`save never`): its device holds no saved request"])
        }
        XCTAssertEqual(
            U.errors(
                Self.acme(
                    "component consent-gate drop ACME-5 purge ACME-6 install ACME-8", save: "save never rule ACME-7")),
            [
                "acme.profile:14: `save never` with the consent gate, which keeps its decision on the device (LT-1), expected `save at create` or `save on failure ...`"
            ])
    }

    // MARK: the app lifecycle

    /// Going to the background flushes what is queued; the limit cancels the
    /// attempts still on the wire and suspends the app: the retries falling due
    /// wait queued until the foreground sends them. A second `background` (or
    /// `foreground`) changes nothing.
    func test_background_flushesTheQueueTheLimitCancelsAndSuspendsUntilForeground() {
        guard
            let r = U.play(
                profile: Self.acme(
                    "on background flush rule ACME-7\nbackground limit 5s rule ACME-8",
                    offline: "offline hold rule ACME-5"),
                """
                profile acme
                at 0 launch
                at 0 network offline
                at 0 track a
                at 0.1s track b
                at 1s network online
                at 1s set latency 20s
                at 1s set timeout 60s
                at 2s background
                at 2s background
                at 4s foreground
                at 4s foreground
                at 5s background
                expect at 9.9s state a in-flight
                expect at 11s state b queued
                expect at 11s received a 0
                at 20s foreground
                expect at 40s state b delivered
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>queued #0 ACME-5",
                "b: 100 new>queued #0 ACME-5",
                "a: 2000 queued>in-flight #1 ACME-7",
                "b: 2000 queued>in-flight #1 ACME-7",
                // 5 s after the second background: cancelled before reaching the backend.
                "a: 10000 in-flight>retrying #1 network-lost ACME-8",
                "b: 10000 in-flight>retrying #1 network-lost ACME-8",
                // Suspended: the retries wait.
                "a: 11000 retrying>queued #1 ACME-8",
                "b: 11000 retrying>queued #1 ACME-8",
                "a: 20000 queued>in-flight #2 ACME-8",
                "b: 20000 queued>in-flight #2 ACME-8",
                "a: 40000 in-flight>delivered #2 200 ACME-1",
                "b: 40000 in-flight>delivered #2 200 ACME-1",
            ])
        XCTAssertEqual(
            U.logs(r.sim),
            [
                "0 [-] app launched (launch 1)",
                "0 [NET] network offline",
                "1000 [NET] network online",
                "1000 [ACME-4] the network returning resends nothing",
                "1000 [-] set latency 20s",
                "1000 [-] set timeout 60s",
                "2000 [ACME-7] app went to the background",
                "2000 [ACME-7] on background: flush, sending 2 queued",
                "2000 [ACME-7] app already in the background",
                "4000 [ACME-7] app came to the foreground",
                "4000 [ACME-7] app already in the foreground",
                "5000 [ACME-7] app went to the background",
                "5000 [ACME-7] on background: flush, sending 0 queued",
                "10000 [ACME-8] background time is up (5s): #1 'a' cancelled on the wire",
                "10000 [ACME-8] background time is up (5s): #2 'b' cancelled on the wire",
                "20000 [ACME-7] app came to the foreground",
                "20000 [ACME-8] back from suspension: sending 2 queued",
            ])
        XCTAssertEqual(r.sim.backend.received, 2, "the cancelled attempts never reached it")
        XCTAssertFalse(r.sim.inBackground)
    }

    /// An attempt that reached the backend before the limit is counted there;
    /// cancelled, it is retried and counted again (no idempotency key): a
    /// duplicate. A quit in the background is a quit; the launch is in the foreground.
    func test_background_limitAfterTheBackendCountedMakesADuplicate() {
        guard
            let r = U.play(
                profile: Self.acme("background limit 2s rule ACME-8"),
                """
                profile acme
                at 0 launch
                at 0 set latency 6s
                at 0 set timeout 60s
                at 0 track a
                at 1s background
                expect at 3.5s state a retrying
                expect at 3.5s received a 1
                at 4s foreground
                expect at 11s state a delivered
                expect at 11s counted a 2
                at 12s background
                at 13s quit
                at 14s launch
                """)
        else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "a: 0 new>pending #0 ACME-1",
                "a: 0 pending>in-flight #1 ACME-1",
                // Reached the backend at 3 s, cancelled at 3 s (the limit, set after the reach).
                "a: 3000 in-flight>retrying #1 network-lost ACME-8",
                // Its retry falls due at 4 s, still suspended (timers before lines, ORDER):
                // it waits, and the foreground at 4 s sends it.
                "a: 4000 retrying>queued #1 ACME-8",
                "a: 4000 queued>in-flight #2 ACME-8",
                "a: 10000 in-flight>delivered #2 200 ACME-1",
            ])
        XCTAssertFalse(r.sim.inBackground, "a launch starts in the foreground")
        XCTAssertEqual(
            U.logs(r.sim).filter { $0.contains("ACME-8") },
            [
                "1000 [ACME-8] app went to the background",
                "3000 [ACME-8] background time is up (2s): #1 'a' cancelled on the wire",
                "4000 [ACME-8] app came to the foreground",
                "4000 [ACME-8] back from suspension: sending 1 queued",
                "12000 [ACME-8] app went to the background",
            ])
    }

    /// Held offline, the background's flush sends nothing and says so.
    func test_background_flushWhileHeldOfflineSaysTheyWait() {
        guard
            let r = U.play(
                profile: Self.acme("on background flush rule ACME-7", offline: "offline hold rule ACME-5"),
                """
                profile acme
                at 0 launch
                at 0 network offline
                at 0 track a
                at 1s background
                at 2s foreground
                expect at 3s state a queued
                """)
        else { return }
        XCTAssertEqual(U.trails(r.sim), ["a: 0 new>queued #0 ACME-5"])
        XCTAssertEqual(
            U.logs(r.sim),
            [
                "0 [-] app launched (launch 1)",
                "0 [NET] network offline",
                "1000 [ACME-7] app went to the background",
                "1000 [ACME-5] on background: 1 queued wait (the SDK is offline)",
                "2000 [ACME-7] app came to the foreground",
            ])
    }

    /// A profile without the lifecycle refuses a `background` line, naming what
    /// it has instead; the line needs the app running and takes no argument.
    func test_background_scenarioErrors() {
        guard let p = U.load(Self.acme("background rule ACME-7")) else { return }
        let cases: [(String, String)] = [
            (
                "profile ios\nat 0 launch\nat 1s background",
                "s.outbox:3: Positive User (UserCom) SDK on iOS has no app lifecycle (background, foreground), expected an action of ios: launch, quit, track, ping, screen, product, notification, logout, network online|offline|flap, server"
            ),
            (
                "profile acme\nat 1s foreground\nat 2s launch",
                "s.outbox:2: `foreground` needs a running app, expected `at <time> launch` before it"
            ),
            ("profile acme\nat 0 launch\nat 1s background x", "s.outbox:3: `background` takes no arguments, found `x`"),
        ]
        for (text, message) in cases {
            switch Scenario.parse(text, file: "s.outbox", profiles: U.resolver([p])) {
            case .success: XCTFail("parsed: " + text)
            case .failure(let e): XCTAssertEqual(e.errors.map(\.description), [message], text)
            }
        }
        XCTAssertTrue(p.verbs.hasSuffix("logout, background|foreground, network online|offline|flap, server"), p.verbs)
        XCTAssertEqual(ActionSyntax.text(for: .appBackgrounded), "background")
        XCTAssertEqual(ActionSyntax.text(for: .appForegrounded), "foreground")
    }

    /// A profile's own `call background` (a lifecycle event that only logs) keeps its meaning.
    func test_background_aProfilesOwnCallKeepsItsMeaning() {
        let own = U.load(Self.acme("call background makes nothing \"to the background\""))
        let parsed = ActionSyntax.parse(["background"], vocabulary: own?.vocabulary ?? .builtin)
        guard case .success(.call("background", nil))? = parsed else {
            return XCTFail("not the call: \(String(describing: parsed))")
        }
        guard case .success(.appBackgrounded)? = ActionSyntax.parse(["background"]) else {
            return XCTFail("not the action")
        }
    }

    // MARK: the statements' errors

    func test_errors_badLinesSayWhatWasExpected() {
        let bg =
            "bad background line, expected `background rule ID`, `background limit DURATION rule ID` or `background none` (or `on background flush rule ID`)"
        let onBg = "bad on background line, expected `on background flush rule ID`"
        let selfOff =
            "bad offline self line, expected `offline self after N failures [or transport] rule ID` or `offline self none`"
        let cases: [(String, String)] = [
            ("background", bg), ("background rule", bg), ("background limit 5s", bg), ("background none x", bg),
            ("background limt 5s rule ACME-7", bg + "; did you mean `limit`?"),
            (
                "background limit 0 rule ACME-7",
                "bad background limit `0`, expected a duration above 0 (the time the app has in the background)"
            ),
            ("background limit 3d rule ACME-7", "bad background limit `3d`, " + VirtualTime.expected),
            ("on background rule ACME-7", onBg), ("on background flush", onBg),
            ("offline self", selfOff), ("offline self after 3 rule ACME-7", selfOff),
            (
                "offline self after 0 failures rule ACME-7",
                "bad failure count `0`, expected a whole number from 1 to 1000000"
            ),
            (
                "offline self after 3 failures or transprt rule ACME-7",
                "bad offline self line: `or transprt`, " + String(selfOff.dropFirst("bad offline self line, ".count))
                    + "; did you mean `transport`?"
            ),
            (
                "offline self after 3 failures rule NOPE",
                "rule NOPE is cited but not defined, expected a line `rule NOPE \"what it does\"`"
            ),
            ("save never", "bad save never line, expected `save never rule ID`"),
            ("save never ACME-7", "bad save never line, expected `save never rule ID`"),
        ]
        for (line, message) in cases {
            XCTAssertEqual(ProfileStatementTests.errors(adding: line), ["acme.profile:25: " + message], line)
        }
        XCTAssertEqual(
            ProfileStatementTests.errors(adding: "call background makes nothing \"x\"\nbackground rule ACME-7"),
            [
                "acme.profile:26: a `call background` line and the app lifecycle: `background` is then the engine's action, expected no `call background` line"
            ])
    }

    /// `none` removes a base's; a profile without these lines has none of them.
    func test_noneRemovesABasesAndTheSeedsHaveNone() {
        guard
            let base = U.load(
                Self.acme("offline self after 3 failures rule ACME-7\non background flush rule ACME-7"))
        else { return }
        XCTAssertNotNil(base.spec.policy.selfOffline)
        XCTAssertTrue(base.hasLifecycle)
        let child = """
            profile child
            base acme
            offline self none
            background none
            """
        switch Profile.parse(child, file: "child.profile", path: "child.profile", base: { $0 == "acme" ? base : nil }) {
        case .success(let p):
            XCTAssertNil(p.spec.policy.selfOffline)
            XCTAssertFalse(p.hasLifecycle)
        case .failure(let e): XCTFail(e.errors.map(\.description).joined(separator: "; "))
        }
        for p in Profile.seeds {
            XCTAssertNil(p.spec.policy.selfOffline, p.name)
            XCTAssertFalse(p.hasLifecycle, p.name)
            XCTAssertFalse(p.savesNothing, p.name)
        }
    }

    // MARK: helpers

    func parse(_ text: String, _ profiles: [Profile], file: StaticString = #filePath, line: UInt = #line)
        -> Scenario?
    {
        switch Scenario.parse(text, file: "inline.outbox", profiles: U.resolver(profiles)) {
        case .success(let s): return s
        case .failure(let e):
            XCTFail(e.errors.map(\.description).joined(separator: "; "), file: file, line: line)
            return nil
        }
    }
}

/// A device in memory that counts every write made to it.
final class CountingStore: DeviceStore {
    let inner = InMemoryDeviceStore()
    var writes = 0
    func save(_ request: SavedRequest) {
        writes += 1
        inner.save(request)
    }
    func attempted(id: Int32, attempts: Int32) {
        writes += 1
        inner.attempted(id: id, attempts: attempts)
    }
    func remove(id: Int32) {
        writes += 1
        inner.remove(id: id)
    }
    func loadAll() -> [SavedRequest] { inner.loadAll() }
    var consent: Consent {
        get { inner.consent }
        set {
            writes += 1
            inner.consent = newValue
        }
    }
    var installCreated: Bool {
        get { inner.installCreated }
        set {
            writes += 1
            inner.installCreated = newValue
        }
    }
    var failure: String? { nil }
    var epoch: UInt64 { 0 }
}
