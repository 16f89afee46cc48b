import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// The backoff formulas, jitters and stopping rules (`backoff`, `set retry.*`;
/// Policy/Backoff.swift; docs/profiles.md, BACKOFF and JITTER in docs/rules.md).
/// Each profile is built here on `base ios` (a 503 retries, citing IOS-4; the
/// last attempt drops `exhausted`), so the scenarios stay inline.
final class RuleTestsBackoff: XCTestCase {
    typealias K = RuleTestKit

    /// `profile t`, `base ios`, then `lines`.
    static func profile(_ lines: String, file: StaticString = #filePath, line: UInt = #line) -> Profile? {
        switch Profile.parse("profile t\nbase ios\n" + lines, file: "t.profile") {
        case .success(let p): return p
        case .failure(let e):
            XCTFail("bad profile: " + e.errors.map(\.description).joined(separator: "; "), file: file, line: line)
            return nil
        }
    }

    /// The errors of `profile t`, `base ios`, then `lines`.
    static func errors(_ lines: String) -> [String] {
        switch Profile.parse("profile t\nbase ios\n" + lines, file: "t.profile") {
        case .success: return []
        case .failure(let e): return e.errors.map(\.description)
        }
    }

    /// Plays `scenario` (its first line `profile t`) on the profile of `lines`.
    static func run(
        _ lines: String, _ scenario: String, maxTransitions: Int = ScenarioRunner.defaultMaxTransitions,
        file: StaticString = #filePath, line: UInt = #line
    ) -> ScenarioRunner? {
        guard let p = profile(lines, file: file, line: line) else { return nil }
        let resolver = ProfileResolver { name in name == "t" ? .success(p) : ProfileResolver.builtins.resolve(name) }
        switch Scenario.parse(scenario, file: "inline.outbox", profiles: resolver) {
        case .failure(let e):
            XCTFail("bad scenario: " + e.errors.map(\.description).joined(separator: "; "), file: file, line: line)
            return nil
        case .success(let sc):
            var runner = ScenarioRunner(sc, maxTransitions: maxTransitions)
            runner.run()
            for f in runner.failures { XCTFail("line \(f.line): \(f.text): found \(f.found)", file: file, line: line) }
            return runner
        }
    }

    /// One request `e` made at 0 against `server 503 always`, played for `hours`.
    static func outage(_ settings: String = "", hours: Int = 1) -> String {
        "profile t\n" + settings + "at 0 launch\nat 0 server 503 always\nat 0 track e\nexpect at \(hours)h saved 0\n"
    }

    /// The waits of request `id`: from each `in-flight → retrying` to the next `retrying → in-flight`.
    static func waits(_ sim: Simulation, id: Int32 = 1) -> [Millis] {
        let h = sim.history(of: id)
        return zip(h, h.dropFirst()).compactMap { a, b in
            a.to == .retrying && b.from == .retrying ? b.time - a.time : nil
        }
    }

    /// Twenty requests `e1`...`e20` made at 1s...20s against `server 503 always`:
    /// every wait of every request.
    static func manyWaits(_ lines: String, seed: Int, attempts: Int = 6) -> [[Millis]] {
        var text = "profile t\nset seed \(seed)\nset retry.attempts \(attempts)\nat 0 launch\nat 0 server 503 always\n"
        for i in 1...20 { text += "at \(i)s track e\(i)\n" }
        text += "expect at 100h saved 0\n"
        guard let sim = run(lines, text)?.sim else { return [] }
        return (1...Int32(sim.requests.count)).map { waits(sim, id: $0) }
    }

    // MARK: Formulas

    /// `backoff exponential 1s x2 cap 10s`: 1s, 2s, 4s, 8s, then the cap.
    func test_BACKOFF_exponentialDoublesFromItsBaseUpToTheCap() {
        guard let sim = Self.run("set retry.attempts 7\nbackoff exponential 1s x2 cap 10s\n", Self.outage())?.sim
        else { return }
        XCTAssertEqual(
            K.trail(sim, "e"),
            [
                "0 new>pending #0 IOS-1", "0 pending>in-flight #1 IOS-2",
                "200 in-flight>retrying #1 503 IOS-4", "1200 retrying>in-flight #2 IOS-4",
                "1400 in-flight>retrying #2 503 IOS-4", "3400 retrying>in-flight #3 IOS-4",
                "3600 in-flight>retrying #3 503 IOS-4", "7600 retrying>in-flight #4 IOS-4",
                "7800 in-flight>retrying #4 503 IOS-4", "15800 retrying>in-flight #5 IOS-4",
                "16000 in-flight>retrying #5 503 IOS-4", "26000 retrying>in-flight #6 IOS-4",
                "26200 in-flight>retrying #6 503 IOS-4", "36200 retrying>in-flight #7 IOS-4",
                "36400 in-flight>dropped #7 503 exhausted IOS-4",
            ])
    }

    /// Segment's base: 0.5s × 2^(n−1), capped at 300s; a factor with decimals rounds down to the millisecond.
    func test_BACKOFF_exponentialHalfSecondBaseAndDecimalFactor() {
        guard let a = Self.run("set retry.attempts 12\nbackoff exponential 500ms x2 cap 5m\n", Self.outage())?.sim,
            let b = Self.run("set retry.attempts 6\nbackoff exponential 1s x1.5\n", Self.outage())?.sim
        else { return }
        XCTAssertEqual(
            Self.waits(a), [500, 1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000])
        XCTAssertEqual(Self.waits(b), [1000, 1500, 2250, 3375, 5062])
    }

    /// PostHog iOS: `backoff linear 1s cap 3s` waits 1s, 2s, 3s, 3s.
    func test_BACKOFF_linearStepsUpToTheCap() {
        guard let sim = Self.run("set retry.attempts 5\nbackoff linear 1s cap 3s\n", Self.outage())?.sim else { return }
        XCTAssertEqual(
            K.trail(sim, "e"),
            [
                "0 new>pending #0 IOS-1", "0 pending>in-flight #1 IOS-2",
                "200 in-flight>retrying #1 503 IOS-4", "1200 retrying>in-flight #2 IOS-4",
                "1400 in-flight>retrying #2 503 IOS-4", "3400 retrying>in-flight #3 IOS-4",
                "3600 in-flight>retrying #3 503 IOS-4", "6600 retrying>in-flight #4 IOS-4",
                "6800 in-flight>retrying #4 503 IOS-4", "9800 retrying>in-flight #5 IOS-4",
                "10000 in-flight>dropped #5 503 exhausted IOS-4",
            ])
    }

    /// `backoff ladder` is `set retry.delays` (the last repeating), with a cap if given;
    /// a scenario's `set retry.delays` makes the formula the ladder again.
    func test_BACKOFF_ladderWithACap_andRetryDelaysReplacesAFormula() {
        guard let a = Self.run("set retry.attempts 5\nbackoff ladder 1s,8s,32s cap 10s\n", Self.outage())?.sim,
            let b = Self.run(
                "set retry.attempts 4\nbackoff exponential 1s x2\n", Self.outage("set retry.delays 3s,5s\n"))?.sim
        else { return }
        XCTAssertEqual(Self.waits(a), [1000, 8000, 10_000, 10_000])
        XCTAssertEqual(
            K.trail(b, "e"),
            [
                "0 new>pending #0 IOS-1", "0 pending>in-flight #1 IOS-2",
                "200 in-flight>retrying #1 503 IOS-4", "3200 retrying>in-flight #2 IOS-4",
                "3400 in-flight>retrying #2 503 IOS-4", "8400 retrying>in-flight #3 IOS-4",
                "8600 in-flight>retrying #3 503 IOS-4", "13600 retrying>in-flight #4 IOS-4",
                "13800 in-flight>dropped #4 503 exhausted IOS-4",
            ])
    }

    // MARK: Jitters

    /// Each jitter's draws stay in its bounds over several seeds, with the delay
    /// capped before the draw and the wait after it.
    func test_JITTER_everyJitterWithinItsBounds_overSeveralSeeds() {
        let formula = "backoff exponential 1s x2 cap 20s\n"
        let delays: [Millis] = [1000, 2000, 4000, 8000, 16_000]
        func check(
            _ jitter: String, _ bounds: (Millis) -> ClosedRange<Millis>, file: StaticString = #filePath,
            line: UInt = #line
        ) {
            for seed in [1, 2, 3, 99] {
                let all = Self.manyWaits(formula + "set retry.jitter \(jitter)\n", seed: seed)
                XCTAssertEqual(all.count, 20, file: file, line: line)
                for w in all {
                    XCTAssertEqual(w.count, 5, file: file, line: line)
                    for (d, x) in zip(delays, w) {
                        XCTAssertTrue(
                            bounds(d).contains(x), "\(jitter) seed \(seed): \(x) for \(d)", file: file, line: line)
                    }
                }
                let firsts = Set(all.map { $0[0] })
                XCTAssertGreaterThan(firsts.count, 10, "\(jitter) is drawn: \(firsts)", file: file, line: line)
            }
        }
        check("full") { 0...$0 }
        check("equal") { ($0 / 2)...$0 }
        check("±50%") { ($0 / 2)...min(20_000, $0 * 3 / 2) }
        check("+-20%") { ($0 * 8 / 10)...min(20_000, $0 * 12 / 10) }
        check("+10%") { $0...min(20_000, $0 * 11 / 10) }
        check("+100%") { $0...min(20_000, $0 * 2) }
        // None: the delays themselves.
        XCTAssertEqual(Set(Self.manyWaits(formula, seed: 5).map { $0 }), [delays])
    }

    /// Decorrelated (AWS): each wait from the base to 3 × the one before (the
    /// first from the base to 3 × the base), never past the cap.
    func test_JITTER_decorrelatedDrawsFromTheBaseTo3TimesTheLastWait() {
        for seed in [1, 2, 3, 4] {
            let all = Self.manyWaits(
                "backoff exponential 1s x2 cap 30s\nset retry.jitter decorrelated\n", seed: seed, attempts: 10)
            XCTAssertEqual(all.count, 20)
            for w in all {
                XCTAssertEqual(w.count, 9)
                var prev: Millis = 1000
                for x in w {
                    XCTAssertTrue((1000...min(30_000, 3 * prev)).contains(x), "seed \(seed): \(x) after \(prev): \(w)")
                    prev = x
                }
            }
            XCTAssertGreaterThan(Set(all.map { $0[0] }).count, 10)
            XCTAssertTrue(all.contains { $0.contains(30_000) }, "reaches the cap: \(all)")
        }
    }

    /// Every jitter is drawn from the seed, the request and the attempt: the same
    /// seed gives the same waits, another seed others.
    func test_JITTER_newJittersDeterministicForASeed() {
        for jitter in ["decorrelated", "±50%", "+10%", "full"] {
            let lines = "backoff linear 2s cap 1m\nset retry.jitter \(jitter)\n"
            XCTAssertEqual(Self.manyWaits(lines, seed: 7), Self.manyWaits(lines, seed: 7), jitter)
            XCTAssertNotEqual(Self.manyWaits(lines, seed: 7), Self.manyWaits(lines, seed: 8), jitter)
        }
    }

    /// The formula's `full` and `equal` draw as the ladder's always did: a ladder
    /// written as `backoff ladder ... cap` with a cap above it waits what
    /// `set retry.delays` waits.
    func test_JITTER_formulaPathDrawsLikeTheLadder() {
        for jitter in ["full", "equal"] {
            let plain = Self.manyWaits("set retry.delays 1s,2s,4s\nset retry.jitter \(jitter)\n", seed: 3)
            let capped = Self.manyWaits("backoff ladder 1s,2s,4s cap 1h\nset retry.jitter \(jitter)\n", seed: 3)
            XCTAssertEqual(plain, capped, jitter)
            XCTAssertEqual(plain.count, 20)
        }
    }

    // MARK: Stopping rules

    /// `retry.attempts unlimited`: a failing backend is retried until the run's
    /// limit on transitions stops it; a good answer still ends it.
    func test_BACKOFF_unlimitedAttemptsStopOnlyAtTheRunLimit() {
        guard
            let runner = Self.run(
                "set retry.attempts unlimited\nbackoff linear 1s cap 2s\n",
                "profile t\nat 0 launch\nat 0 server 503 always\nat 0 track e\n", maxTransitions: 500)
        else { return }
        XCTAssertEqual(runner.stopped, "it passed the limit of 500 transitions (set by --max-transitions)")
        let r = runner.sim.request(1)
        XCTAssertEqual(r.state, .retrying)
        XCTAssertGreaterThan(r.attempts, 240)
        XCTAssertEqual(Set(Self.waits(runner.sim).dropFirst()), [2000])
        // Healed: delivered on the attempt after the outage.
        guard
            let healed = Self.run(
                "set retry.attempts unlimited\nbackoff linear 1s cap 2s\n",
                "profile t\nat 0 launch\nat 0 server 503 x40\nat 0 track e\nexpect at 1h state e delivered\nexpect at 1h attempts e 41\n"
            )
        else { return }
        XCTAssertNil(healed.stopped)
    }

    /// `backoff give up after 12h` (Segment): the attempt that fails 12 h or more
    /// after the first failure ends the budget (`on exhausted`), however many are left.
    func test_BACKOFF_giveUpAfterATotalTimeSinceTheFirstFailure() {
        guard
            let sim = Self.run(
                "set retry.attempts unlimited\nbackoff exponential 500ms x2 cap 5m\nbackoff give up after 12h\n",
                Self.outage(hours: 24))?.sim
        else { return }
        let h = sim.history(of: 1)
        let last = K.trail(sim, "e").last!
        // First failure at 200ms; waits 0.5s...256s (10 retries, 511.5s), then 5m each.
        // The attempts at 200ms + 511.5s + 10×0.2s + k × 300.2s: the first at or past 12h ends it.
        let firstFail: Millis = 200
        let failures = h.filter { $0.from == .inFlight }.map(\.time)
        XCTAssertEqual(failures.first, firstFail)
        XCTAssertTrue(failures.dropLast().allSatisfy { $0 - firstFail < 43_200_000 }, "\(failures.suffix(3))")
        XCTAssertGreaterThanOrEqual(failures.last! - firstFail, 43_200_000)
        XCTAssertLessThan(failures.last! - firstFail, 43_200_000 + 300_200)
        XCTAssertTrue(last.hasSuffix("in-flight>dropped #\(sim.request(1).attempts) 503 exhausted IOS-4"), last)
        XCTAssertEqual(sim.request(1).attempts, Int32(failures.count))
        XCTAssertEqual(
            Self.waits(sim).prefix(11),
            [500, 1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000])
        // The budget's own limit still ends it first when it comes first.
        guard
            let short = Self.run(
                "set retry.attempts 3\nbackoff linear 1s\nbackoff give up after 12h\n", Self.outage())?.sim
        else { return }
        XCTAssertEqual(K.trail(short, "e").last, "3600 in-flight>dropped #3 503 exhausted IOS-4")
    }

    /// A total time shorter than the waits: exactly where it ends.
    func test_BACKOFF_giveUpAfterWholeHistory() {
        guard
            let sim = Self.run(
                "set retry.attempts 100\nbackoff linear 1s\nbackoff give up after 5s\n", Self.outage())?.sim
        else { return }
        // Failures at 200, 1400, 3600, 6800: 6800 − 200 ≥ 5s ends it.
        XCTAssertEqual(
            K.trail(sim, "e"),
            [
                "0 new>pending #0 IOS-1", "0 pending>in-flight #1 IOS-2",
                "200 in-flight>retrying #1 503 IOS-4", "1200 retrying>in-flight #2 IOS-4",
                "1400 in-flight>retrying #2 503 IOS-4", "3400 retrying>in-flight #3 IOS-4",
                "3600 in-flight>retrying #3 503 IOS-4", "6600 retrying>in-flight #4 IOS-4",
                "6800 in-flight>dropped #4 503 exhausted IOS-4",
            ])
    }

    /// `never` removes a stopping rule given before (a base's).
    func test_BACKOFF_neverRemovesAStoppingRule() {
        let lines = """
            set retry.attempts 5
            backoff linear 1s cap 3s
            backoff give up after 2s
            backoff give up never
            backoff cool off 1m after 1
            backoff cool off never
            backoff reset at cap
            backoff reset never

            """
        guard let sim = Self.run(lines, Self.outage())?.sim else { return }
        XCTAssertEqual(Self.waits(sim), [1000, 2000, 3000, 3000])
        XCTAssertEqual(K.trail(sim, "e").last, "10000 in-flight>dropped #5 503 exhausted IOS-4")
    }

    /// `backoff cool off 30m after 5` (Rudder's new SDKs): five retries of the
    /// formula, then a 30-minute wait, then the formula from n = 1 again.
    func test_BACKOFF_coolOffAfterNRetriesThenStartOver() {
        guard
            let sim = Self.run(
                "set retry.attempts unlimited\nbackoff exponential 3s x2\nbackoff cool off 30m after 5\n",
                Self.outage("set retry.attempts 20\n", hours: 3))?.sim
        else { return }
        let cycle: [Millis] = [3000, 6000, 12_000, 24_000, 48_000, 1_800_000]
        XCTAssertEqual(Self.waits(sim), Array((cycle + cycle + cycle + [3000]).prefix(19)))
        XCTAssertEqual(
            K.trail(sim, "e").last, "\(sim.history(of: 1).last!.time) in-flight>dropped #20 503 exhausted IOS-4")
        // The cool-off is neither jittered nor capped.
        guard
            let jittered = Self.run(
                "backoff exponential 3s x2 cap 10s\nset retry.jitter full\nbackoff cool off 30m after 2\n",
                Self.outage("set retry.attempts 7\n", hours: 2))?.sim
        else { return }
        let w = Self.waits(jittered)
        XCTAssertEqual(w.count, 6)
        XCTAssertEqual([w[2], w[5]], [1_800_000, 1_800_000])
        XCTAssertTrue((0...3000).contains(w[0]) && (0...6000).contains(w[1]) && (0...3000).contains(w[3]), "\(w)")
    }

    /// `backoff reset at cap` (Rudder v1): a wait at the cap starts the formula
    /// over, a sawtooth; with +100% jitter the cap can come early.
    func test_BACKOFF_resetAtCapSawtooth() {
        guard
            let sim = Self.run(
                "backoff exponential 1s x2 cap 8s\nbackoff reset at cap\n", Self.outage("set retry.attempts 13\n"))?.sim
        else { return }
        XCTAssertEqual(Self.waits(sim), [1000, 2000, 4000, 8000, 1000, 2000, 4000, 8000, 1000, 2000, 4000, 8000])
        for seed in [1, 2, 3] {
            let all = Self.manyWaits(
                "backoff exponential 3s x2 cap 5m\nset retry.jitter +100%\nbackoff reset at cap\n", seed: seed,
                attempts: 30)
            for w in all {
                // After each wait at the cap the next is retry 1 again: 3s to 6s.
                for (a, b) in zip(w, w.dropFirst()) where a == 300_000 {
                    XCTAssertTrue((3000...6000).contains(b), "seed \(seed): \(w)")
                }
                XCTAssertTrue(w.contains(300_000), "\(w)")
                XCTAssertTrue(w.allSatisfy { $0 <= 300_000 })
            }
        }
    }

    /// A launch gives a fresh budget, and with it a fresh cycle and first failure.
    func test_BACKOFF_aLaunchStartsTheCycleOver() {
        guard
            let sim = Self.run(
                "backoff exponential 1s x2 cap 1m\nbackoff give up after 10s\n",
                """
                profile t
                set retry.attempts unlimited
                at 0 launch
                at 0 server 503 always
                at 0 track e
                at 5s quit
                at 6s launch
                expect at 1m saved 0

                """)?.sim
        else { return }
        // The quit leaves it queued (IOS-6); after the launch the formula starts at
        // n = 1 again, and the 10s count from the new first failure (6200, not 200).
        XCTAssertEqual(
            K.trail(sim, "e"),
            [
                "0 new>pending #0 IOS-1", "0 pending>in-flight #1 IOS-2",
                "200 in-flight>retrying #1 503 IOS-4", "1200 retrying>in-flight #2 IOS-4",
                "1400 in-flight>retrying #2 503 IOS-4", "3400 retrying>in-flight #3 IOS-4",
                "3600 in-flight>retrying #3 503 IOS-4", "5000 retrying>queued #3 IOS-6",
                "6000 queued>in-flight #4 IOS-6", "6200 in-flight>retrying #4 503 IOS-4",
                "7200 retrying>in-flight #5 IOS-4", "7400 in-flight>retrying #5 503 IOS-4",
                "9400 retrying>in-flight #6 IOS-4", "9600 in-flight>retrying #6 503 IOS-4",
                "13600 retrying>in-flight #7 IOS-4", "13800 in-flight>retrying #7 503 IOS-4",
                "21800 retrying>in-flight #8 IOS-4", "22000 in-flight>dropped #8 503 exhausted IOS-4",
            ])
    }

    // MARK: Parse errors

    func test_BACKOFF_badLinesSayWhatWasExpected() {
        let cases: [(String, String)] = [
            (
                "backoff",
                "t.profile:3: bad backoff line, expected `backoff ladder D[,D...] [cap D]`, `backoff exponential D xF [cap D]`, `backoff linear D [cap D]`, `backoff give up after D|never`, `backoff cool off D after N|never` or `backoff reset at cap|never`"
            ),
            (
                "backoff expnential 1s x2",
                "t.profile:3: bad backoff line, expected `backoff ladder D[,D...] [cap D]`, `backoff exponential D xF [cap D]`, `backoff linear D [cap D]`, `backoff give up after D|never`, `backoff cool off D after N|never` or `backoff reset at cap|never`; did you mean `exponential`?"
            ),
            ("backoff exponential 1s", "t.profile:3: bad backoff line, expected `backoff exponential D xF [cap D]`"),
            (
                "backoff exponential 1s x2 5m",
                "t.profile:3: bad backoff line, expected `backoff exponential D xF [cap D]`"
            ),
            (
                "backoff exponential soon x2",
                "t.profile:3: bad base `soon` for `backoff exponential D xF [cap D]`, " + VirtualTime.expected
            ),
            (
                "backoff exponential 1s 2",
                "t.profile:3: bad factor `2` for `backoff exponential D xF [cap D]`, expected x and a number from 1 to 10 with at most 2 decimals, e.g. x2 or x1.5"
            ),
            (
                "backoff exponential 1s x0.5",
                "t.profile:3: bad factor `x0.5` for `backoff exponential D xF [cap D]`, expected x and a number from 1 to 10 with at most 2 decimals, e.g. x2 or x1.5"
            ),
            (
                "backoff exponential 1s x1.255",
                "t.profile:3: bad factor `x1.255` for `backoff exponential D xF [cap D]`, expected x and a number from 1 to 10 with at most 2 decimals, e.g. x2 or x1.5"
            ),
            (
                "backoff linear 1s cap 200000h",
                "t.profile:3: bad cap `200000h` for `backoff linear D [cap D]`, expected at most 100000h, the longest time Outbox takes"
            ),
            ("backoff linear", "t.profile:3: bad backoff line, expected `backoff linear D [cap D]`"),
            (
                "backoff ladder 1s,,2s",
                "t.profile:3: an empty delay (number 2 of 3) for retry.delays, " + VirtualTime.expected
            ),
            ("backoff give up 12h", "t.profile:3: bad backoff line, expected `backoff give up after D|never`"),
            (
                "backoff give up after later",
                "t.profile:3: bad time `later` for `backoff give up after D|never`, " + VirtualTime.expected
            ),
            (
                "backoff cool off 30m after 0",
                "t.profile:3: bad count `0` for `backoff cool off D after N|never`, expected a whole number from 1 to 1000"
            ),
            (
                "backoff cool off 30m after +5",
                "t.profile:3: bad count `+5` for `backoff cool off D after N|never`, expected a whole number from 1 to 1000"
            ),
            ("backoff cool off 30m", "t.profile:3: bad backoff line, expected `backoff cool off D after N|never`"),
            ("backoff reset at 5m", "t.profile:3: bad backoff line, expected `backoff reset at cap|never`"),
            (
                "backoff exponential 1s x2\nbackoff reset at cap",
                "t.profile:4: `backoff reset at cap` needs a cap, expected `cap D` on the profile's backoff formula line"
            ),
            (
                "set retry.jitter half",
                "t.profile:3: bad value `half` for retry.jitter, expected none, full, equal, decorrelated, ±P% (P from 1 to 100) or +P% (P from 1 to 1000)"
            ),
            (
                "set retry.jitter decorelated",
                "t.profile:3: bad value `decorelated` for retry.jitter, expected none, full, equal, decorrelated, ±P% (P from 1 to 100) or +P% (P from 1 to 1000); did you mean `decorrelated`?"
            ),
            (
                "set retry.jitter ±101%",
                "t.profile:3: bad value `±101%` for retry.jitter, expected none, full, equal, decorrelated, ±P% (P from 1 to 100) or +P% (P from 1 to 1000)"
            ),
            (
                "set retry.jitter +0%",
                "t.profile:3: bad value `+0%` for retry.jitter, expected none, full, equal, decorrelated, ±P% (P from 1 to 100) or +P% (P from 1 to 1000)"
            ),
            (
                "set retry.jitter 10%",
                "t.profile:3: bad value `10%` for retry.jitter, expected none, full, equal, decorrelated, ±P% (P from 1 to 100) or +P% (P from 1 to 1000)"
            ),
            (
                "set retry.attempts unlimted",
                "t.profile:3: bad value `unlimted` for retry.attempts, expected a whole number from 1 to 1000; did you mean `unlimited`?"
            ),
        ]
        for (line, message) in cases {
            XCTAssertEqual(Self.errors(line + "\n"), [message], line)
        }
        // A backoff line needs retries.
        switch Profile.parse(
            "profile t\nbase android\nbackoff linear 1s\n", file: "t.profile")
        {
        case .success: XCTFail("a backoff line on a profile that never retries")
        case .failure(let e):
            XCTAssertEqual(
                e.errors.map(\.description),
                ["t.profile:3: a backoff line needs retries, expected an `on CLASS retry` line in the profile"])
        }
    }

    /// The new values in a scenario's `set` lines: read, and refused with the same words.
    func test_BACKOFF_scenarioSetLinesTakeTheNewValues() {
        guard
            let runner = Self.run(
                "backoff exponential 1s x2 cap 10s\n",
                Self.outage("set retry.attempts unlimited\nset retry.jitter ±50%\nset retry.attempts 3\n"))
        else { return }
        XCTAssertEqual(runner.sim.settings.retryJitter, .plusMinus(50))
        XCTAssertFalse(runner.sim.settings.retryUnlimited)
        XCTAssertEqual(runner.sim.request(1).attempts, 3)
        let w = Self.waits(runner.sim)
        XCTAssertTrue((500...1500).contains(w[0]) && (1000...3000).contains(w[1]), "\(w)")
        switch Scenario.parse("profile ios\nset retry.jitter ±50\nat 0 launch\n", file: "s.outbox") {
        case .success: XCTFail("±50 without %")
        case .failure(let e):
            XCTAssertEqual(
                e.errors.map(\.description),
                [
                    "s.outbox:2: bad value `±50` for retry.jitter, expected none, full, equal, decorrelated, ±P% (P from 1 to 100) or +P% (P from 1 to 1000)"
                ])
        }
    }

    /// `outbox profiles NAME` lists the backoff lines of a profile that has them, and
    /// `retry.attempts unlimited`.
    func test_BACKOFF_profilesListsTheBackoffPart() throws {
        let dir = NSTemporaryDirectory() + "rule-backoff-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/seg.profile"
        try """
        profile seg
        base ios
        set retry.attempts unlimited
        backoff exponential 500ms x2 cap 5m
        set retry.jitter +10%
        backoff give up after 12h
        backoff cool off 30m after 5
        backoff reset at cap

        """.write(toFile: path, atomically: true, encoding: .utf8)
        let (status, out, err) = cli(["profiles", path])
        XCTAssertEqual(status, 0, err)
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let s = lines.firstIndex(of: "settings (set <key> <value>):") else { return XCTFail(out) }
        XCTAssertEqual(
            Array(lines[(s + 1)...(s + 3)]),
            [
                "  retry.attempts  unlimited     attempts before giving up",
                "  retry.delays    (backoff)     waits before the retries; the last repeats (BACKOFF)",
                "  retry.jitter    +10%          randomises each wait, drawn from seed (JITTER)",
            ])
        guard let b = lines.firstIndex(where: { $0.hasPrefix("backoff (") }) else { return XCTFail(out) }
        XCTAssertEqual(
            Array(lines[b...(b + 4)]),
            [
                "backoff (the wait before retry n, n = 1 for the first; the cap bounds it before and after the jitter):",
                "  backoff exponential 500ms x2 cap 5m",
                "  backoff give up after 12h",
                "  backoff cool off 30m after 5",
                "  backoff reset at cap",
            ])
        XCTAssertTrue(lines[b + 5].hasPrefix("assumptions"), lines[b + 5])
        // `--explain` names the file behind each backoff line.
        let (xs, xout, xerr) = cli(["profiles", path, "--explain"])
        XCTAssertEqual(xs, 0, xerr)
        XCTAssertTrue(xout.contains("backoff give up after 12h\n    → Policy/Backoff.swift (backoff)\n"), xout)
        XCTAssertTrue(xout.contains("set retry.jitter +10%\n    → Policy/Backoff.swift (set retry.jitter)\n"), xout)
    }
}
