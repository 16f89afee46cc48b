import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// The faults QA reaches for (issue 15, item 1): CHANCE, TARGET, FLAP, LATJITTER.
final class RuleTestsFaults: XCTestCase {
    typealias K = RuleTestKit

    // MARK: CHANCE

    /// 10,000 events on Android (each gets one attempt: a 503 keeps it saved for
    /// getInstance) under `server 503 N%`: which of them got 503.
    static func failed(percent: String, seed: UInt64, count: Int = 10_000) -> [Int32] {
        var s = Settings(profile: .android)
        s.seed = seed
        var sim = Simulation(profile: .android, settings: s)
        sim.keepsJournal = false
        sim.apply(.appLaunched)
        XCTAssertNil(sim.apply(.serverPlanned(.status(503), .chance(ServerRepeat.percent(percent)!))))
        for i in 0..<count { sim.apply(.eventTracked(TrackedEvent(name: "e\(i % 7)"))) }
        sim.advance(to: 10_000)
        XCTAssertEqual(sim.requests.map(\.attempts).reduce(0, +), Int32(count), "one attempt each")
        return sim.requests.filter { $0.lastOutcome == .http(503) }.map(\.id)
    }

    func test_CHANCE_tenThousandAttemptsWithinOnePointOfN_sameSeedSame_otherSeedOther() {
        for (percent, n) in [("30%", 30.0), ("0.5%", 0.5), ("75%", 75.0), ("12.25%", 12.25)] {
            let a = Self.failed(percent: percent, seed: 7)
            let share = Double(a.count) / 100
            XCTAssertLessThanOrEqual(abs(share - n), 1.0, "\(percent): \(share)% failed")
            XCTAssertEqual(a, Self.failed(percent: percent, seed: 7), "\(percent): the same seed, the same attempts")
            XCTAssertNotEqual(a, Self.failed(percent: percent, seed: 8), "\(percent): another seed, other attempts")
        }
        XCTAssertEqual(Self.failed(percent: "0%", seed: 7, count: 1000), [])
        XCTAssertEqual(Self.failed(percent: "100%", seed: 7, count: 1000).count, 1000)
    }

    /// Over `503 x2` a 429 at 50% answers some attempts; the 503s beneath are used
    /// up only by attempts the layer did not answer, then ok.
    func test_CHANCE_layerOverThePlanBeneathUsedUpOnlyWhenItAnswers() {
        guard let sim = K.fixture("CHANCE-layer-over-the-plan-beneath-used-up-only-when-it-answers")?.sim else {
            return
        }
        let outcomes = (1...6).map { sim.request(K.id(sim, "a\($0)")).lastOutcome.word }
        // Seed 3 draws 429 for a1 and a5; the two 503s go to a2 and a3; then ok.
        XCTAssertEqual(outcomes, ["429", "503", "503", "200", "429", "200"])
        XCTAssertEqual(
            K.logs(sim, containing: "backend will answer"),
            [
                "0 [ANS] backend will answer: 503 ×2",
                "0 [CHANCE] backend will answer: 429 50%, else 503 ×2",
                "7000 [CHANCE] backend will answer: ok",
            ])
    }

    // MARK: TARGET

    func test_TARGET_forNameLeavesOtherRequestsAlone() {
        guard let sim = K.fixture("TARGET-for-name-leaves-other-requests-alone")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "signup"),
            ["1000 new>pending #0 IOS-1", "1000 pending>in-flight #1 IOS-2", "1200 in-flight>delivered #1 200 IOS-3"])
        XCTAssertEqual(
            K.trail(sim, "home"),
            ["1000 new>pending #0 IOS-1", "1000 pending>in-flight #1 IOS-2", "1200 in-flight>delivered #1 200 IOS-3"])
        XCTAssertEqual(
            K.trail(sim, "purchase"),
            [
                "1000 new>pending #0 IOS-1", "1000 pending>in-flight #1 IOS-2", "1200 in-flight>retrying #1 503 IOS-4",
                "31200 retrying>in-flight #2 IOS-4", "31400 in-flight>delivered #2 200 IOS-3",
            ])
        XCTAssertEqual(
            K.logs(sim, containing: "backend will answer"),
            [
                "0 [TARGET] backend will answer: 503 always for purchase",
                "2000 [TARGET] backend will answer: no plan of its own for purchase (the plans beneath answer)",
            ])
    }

    func test_TARGET_forKindLeavesOtherKindsAlone_nameBeforeKindBeforeAll_usedUpFallsThrough() {
        guard let sim = K.fixture("TARGET-for-kind-leaves-other-kinds-alone-name-before-kind-before-all")?.sim else {
            return
        }
        let ids = (1...Int32(sim.requests.count)).map { "\(sim.name(of: $0)) \(sim.request($0).lastOutcome.word)" }
        // ping 1 takes its kind's 404, then the kind's plan is used up: ping 2 falls to the 500 for all.
        // vip 1 takes its name's 409; vip 2 falls to its kind's ok always; `other` is an event: 500.
        XCTAssertEqual(ids, ["ping 404", "ping 500", "home 200", "vip 409", "vip 200", "other 500"])
        XCTAssertEqual(
            K.trail(sim, "other"),
            [
                "6000 new>pending #0 FL-1", "6000 pending>in-flight #1 FL-1",
                "6200 in-flight>dropped #1 500 not-saved FL-3",
            ])
        XCTAssertEqual(sim.plans.targeted.map(\.target.label), ["kind:screen"], "used-up plans are gone")
    }

    // MARK: FLAP

    func test_FLAP_alternatesExactlyUntilTheNextNetworkLine() {
        guard let runner = K.fixture("FLAP-alternates-exactly-until-the-next-network-line") else { return }
        let sim = runner.sim
        let changes = sim.networkChanges.map { "\($0.time) \($0.online ? "on" : "off")" }
        XCTAssertEqual(
            changes,
            [
                "1000 off", "2000 on", "5000 off", "6500 on", "9500 off", "11000 on", "14000 off", "15000 on",
                "15500 off", "15750 on",
            ])
        XCTAssertEqual(
            K.logs(sim).filter { $0.contains("network") },
            [
                "1000 [NET] network offline",
                "2000 [FLAP] network flap: online 3s, offline 1.5s, repeating",
                "2000 [FLAP] network online (flap 3s/1.5s)",
                "5000 [FLAP] network offline (flap 3s/1.5s)",
                "6500 [FLAP] network online (flap 3s/1.5s)",
                "9500 [FLAP] network offline (flap 3s/1.5s)",
                "11000 [FLAP] network online (flap 3s/1.5s)",
                // The flap's toggle at 14s comes before the line at 14s (ORDER), which finds the network off.
                "14000 [FLAP] network offline (flap 3s/1.5s)",
                "14000 [FLAP] network flap 3s/1.5s stopped",
                "14000 [-] network already offline",
                "15000 [FLAP] network flap: online 500ms, offline 250ms, repeating",
                "15000 [FLAP] network online (flap 500ms/250ms)",
                "15500 [FLAP] network offline (flap 500ms/250ms)",
                "15750 [FLAP] network online (flap 500ms/250ms)",
                "16000 [FLAP] network flap 500ms/250ms stopped",
                "16000 [-] network already online",
            ])
    }

    /// A flap going offline fails the attempt on the wire as `network offline`
    /// does (NET), at its exact instant, after the timers due then (ORDER); a run
    /// held offline with requests live waits for the flap to bring it back.
    func test_FLAP_offlineFailsAttemptsOnTheWire_timersAtTheInstantFirst_aRunWaitsForTheNetworkBack() {
        guard let sim = K.fixture("FLAP-offline-fails-attempts-on-the-wire-a-run-waits-for-the-network-back")?.sim
        else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            ["200 new>pending #0 LT-1a", "200 pending>in-flight #1 LT-4", "1200 in-flight>delivered #1 200 LT-4"])
        XCTAssertEqual(
            K.trail(sim, "b"),
            [
                "500 new>pending #0 LT-1a", "500 pending>in-flight #1 LT-4",
                "1200 in-flight>retrying #1 network-lost LT-4",
                "3200 retrying>in-flight #2 LT-4", "3200 in-flight>retrying #2 offline LT-4",
                "7200 retrying>in-flight #3 LT-4", "7200 in-flight>queued #3 offline LT-5",
            ])
        // Held offline with b queued: the run went on to the flap's return at 11.2s, and ended there.
        XCTAssertEqual(sim.networkChanges.map(\.time), [1200, 11_200])
        XCTAssertEqual(sim.now, 11_200)
    }

    /// A flap's toggles count toward the run's limit: a 100 ms flap with a line a
    /// year on is stopped, not played for ever.
    func test_FLAP_togglesCountTowardTheRunsLimit() {
        guard
            let sc = parseScenario(
                """
                profile flutter
                at 0 launch
                at 0 network flap 100ms 100ms
                at 8760h track late
                expect at 8761h state late delivered
                """)
        else { return }
        var runner = ScenarioRunner(sc, maxTransitions: 1000, journal: .checksOnly)
        runner.run()
        XCTAssertEqual(runner.stopped, "it passed the limit of 1000 transitions (set by --max-transitions)")
        XCTAssertEqual(runner.sim.now, 100_100)
        XCTAssertEqual(runner.sim.networkChanges.count, 1001, "one past the limit, as for transitions")
    }

    // MARK: LATJITTER

    /// The latencies of 300 requests' first attempts (Flutter: one each), as the
    /// gaps between send and answer.
    static func latencies(_ latency: String, jitter: String, seed: UInt64, timeout: String = "10s") -> [Millis] {
        var text = """
            profile flutter
            set latency \(latency)
            set latency.jitter \(jitter)
            set timeout \(timeout)
            set seed \(seed)
            at 0 launch

            """
        for i in 1...300 { text += "at \(i)s track e\(i)\n" }
        text += "expect at 400s received e1 1\n"
        guard let sim = play(text)?.sim else { return [] }
        return (1...Int32(sim.requests.count)).map { id in
            let h = sim.history(of: id)
            return h[2].time - h[1].time
        }
    }

    func test_LATJITTER_withinBoundsNeverBelowZero_seeded() {
        let l = Self.latencies("200ms", jitter: "50ms", seed: 5)
        XCTAssertEqual(l.count, 300)
        XCTAssertTrue(l.allSatisfy { (150...250).contains($0) }, "\(l)")
        XCTAssertEqual(l.min(), 150)
        XCTAssertEqual(l.max(), 250)
        XCTAssertGreaterThan(Set(l).count, 80, "drawn, not fixed")
        XCTAssertEqual(l, Self.latencies("200ms", jitter: "50ms", seed: 5))
        XCTAssertNotEqual(l, Self.latencies("200ms", jitter: "50ms", seed: 6))
        // Below zero is cut off: 100 ± 300 draws from 0 to 400.
        let wide = Self.latencies("100ms", jitter: "300ms", seed: 5)
        XCTAssertTrue(wide.allSatisfy { (0...400).contains($0) }, "\(wide)")
        XCTAssertTrue(wide.contains(0) || wide.min()! < 20, "\(wide.min()!)")
        XCTAssertEqual(Self.latencies("200ms", jitter: "0", seed: 5), [Millis](repeating: 200, count: 300))
    }

    /// TMO compares the timeout with the attempt's own latency, fixed when it was
    /// sent: a later `set latency` or `set timeout` does not change it.
    func test_LATJITTER_timeoutComparedWithTheAttemptsOwnLatency() {
        let l = Self.latencies("1s", jitter: "500ms", seed: 9, timeout: "1s")
        // Latencies above 1s time out at 1s; the others answer at their latency.
        XCTAssertTrue(l.allSatisfy { (500...1000).contains($0) }, "\(l)")
        XCTAssertTrue(l.contains(1000))
        guard let sim = K.fixture("LATJITTER-timeout-compared-with-the-attempts-own-latency")?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "a"),
            ["0 new>pending #0 FL-1", "0 pending>in-flight #1 FL-1", "1000 in-flight>delivered #1 200 FL-1"])
        XCTAssertEqual(K.trail(sim, "b").last, "2100 in-flight>queued #1 timeout FL-2")
    }

    // MARK: Scenario words

    func test_faultLines_roundTripThroughTheirText() {
        let actions: [Action] = [
            .serverPlanned(.status(503), .chance(3000)),
            .serverPlanned(.status(503), .chance(50)),
            .serverPlanned(.timeout, .chance(1225)),
            .serverPlanned(.ok, .chance(10_000)),
            .serverPlanned(.status(503), .chance(0), for: .name("purchase")),
            .serverPlanned(.status(429), .times(3), for: .name("big order")),
            .serverPlanned(.lost, .always, for: .kind("token-removal")),
            .serverPlanned(.ok, .times(1), for: .name("kind:odd")),
            .serverPlanned(.ok, .times(1), for: .name("name:odd")),
            .networkFlapping(up: 5000, down: 2000),
            .networkFlapping(up: 100, down: 3_600_000),
            .setting("latency.jitter", "50ms"),
        ]
        let texts = actions.map(ActionSyntax.text(for:))
        XCTAssertEqual(
            texts,
            [
                "server 503 30%", "server 503 0.5%", "server timeout 12.25%", "server ok 100%",
                "server 503 0% for purchase", "server 429 x3 for \"big order\"",
                "server lost always for kind:token-removal",
                "server ok x1 for name:kind:odd", "server ok x1 for name:name:odd", "network flap 5s 2s",
                "network flap 100ms 1h", "set latency.jitter 50ms",
            ])
        for (a, t) in zip(actions, texts) {
            guard case .success(let (words, _)) = LineLexer.words(t),
                case .success(let back)? = ActionSyntax.parse(words)
            else { return XCTFail("`\(t)` does not read back") }
            XCTAssertEqual(back, a, t)
        }
    }

    func test_faultLines_badInputSaysWhereAndWhatWasExpected() {
        let text = """
            profile ios
            set latency.jitter 5x
            at 0 launch
            at 1s server 503 150%
            at 1s server 503 3.333%
            at 1s server 503 30
            at 1s server 503 for kind:evnt
            at 1s server 503 x2 for
            at 1s network flap 5s
            at 1s network flap
            at 1s network flap 0 2s
            at 1s network flap 5s 2x
            at 1s network flap 99ms 2s
            at 1s network flip
            at 1s server 503 x99999999999999999999
            at 1s server 503 30% four purchase
            """
        guard case .failure(let e) = Scenario.parse(text, file: "faults.outbox") else { return XCTFail("parsed") }
        XCTAssertEqual(
            e.errors.map(\.description),
            [
                "faults.outbox:2: bad value `5x` for latency.jitter, expected a time up to 100000h, e.g. 50ms",
                "faults.outbox:4: bad chance `150%`, expected a percent from 0% to 100% with at most two decimals, e.g. 30% or 0.5%",
                "faults.outbox:5: bad chance `3.333%`, expected a percent from 0% to 100% with at most two decimals, e.g. 30% or 0.5%",
                "faults.outbox:6: bad repeat `30`, expected x<N> (N ≥ 1), always or a chance <N>% (e.g. 30%)",
                "faults.outbox:7: unknown request kind `evnt` in `for kind:evnt`, expected one of: install, event, ping, screen, product, notification, logout, token-removal, anonymous-ping; did you mean `event`?",
                "faults.outbox:8: bad server line: `for` takes one word (a name, or kind:<kind>), expected `server <answer> [x<N> | always | <N>%] [for <name> | for kind:<kind>]` with ok, a status 100-599, timeout, lost or partial",
                "faults.outbox:9: bad network flap: missing the down time, expected `network flap <up> <down>` with two times of at least 100ms, e.g. `network flap 5s 2s`",
                "faults.outbox:10: bad network flap: missing the up and down times, expected `network flap <up> <down>` with two times of at least 100ms, e.g. `network flap 5s 2s`",
                "faults.outbox:11: bad flap up time `0`, expected a time of at least 100ms, e.g. 2s",
                "faults.outbox:12: bad flap down time `2x`, " + Self.timeProblem("2x"),
                "faults.outbox:13: bad flap up time `99ms`, expected a time of at least 100ms, e.g. 2s",
                "faults.outbox:14: bad network `flip`, expected `network online`, `network offline` or `network flap <up> <down>`; did you mean `flap`?",
                "faults.outbox:15: bad repeat `x99999999999999999999`: N is past the largest, 9223372036854775807; expected x<N> with N from 1 to 9223372036854775807, or always",
                "faults.outbox:16: bad server line, expected `server <answer> [x<N> | always | <N>%] [for <name> | for kind:<kind>]` with ok, a status 100-599, timeout, lost or partial; did you mean `for`?",
            ])
    }

    static func timeProblem(_ word: String) -> String {
        guard case .failure(let p) = VirtualTime.parseLimited(word) else { return "" }
        return p.message
    }

    /// A plan for a kind the profile never makes is a line the profile lacks,
    /// like `ping` on LinkTrail: bad input for `run`, skipped by `compare`.
    func test_TARGET_aKindTheProfileNeverMakesIsLacked() {
        let text = "profile linktrail\nat 0 launch\nat 1s server 503 for kind:ping\nat 1s server 503 for kind:install\n"
        guard case .failure(let e) = Scenario.parse(text, file: "k.outbox") else { return XCTFail("parsed") }
        XCTAssertEqual(
            e.errors.map(\.description),
            [
                "k.outbox:3: LinkTrail attribution SDK has no ping requests (for kind:ping), expected an action of linktrail: launch, quit, consent grant|deny, track, network online|offline|flap, server"
            ])
    }
}
