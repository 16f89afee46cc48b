import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// The real SDKs' built-in profiles (profiles/real/, issue 24) against the facts
/// they were written from (shared/reference/real-sdks.md): for each, what its
/// source says it does in an outage, with a 429 and its Retry-After, with a 400,
/// at its queue's cap, offline, in the background. And docs/real-sdks.md is the
/// page its stories make.
final class RealSDKProfileTests: XCTestCase {
    /// Plays `lines` (after `profile NAME` and a launch at 0) on a built-in.
    static func play(_ name: String, _ lines: String, file: StaticString = #filePath, line: UInt = #line)
        -> Simulation?
    {
        let text = "profile \(name)\nat 0 launch\n" + lines
        switch Scenario.parse(text, file: "\(name).outbox") {
        case .failure(let e):
            XCTFail(e.errors.map(\.description).joined(separator: "; "), file: file, line: line)
            return nil
        case .success(let sc):
            var runner = ScenarioRunner(sc)
            runner.run()
            for f in runner.failures {
                XCTFail("\(name): line \(f.line): \(f.text): \(f.found)", file: file, line: line)
            }
            return runner.sim
        }
    }

    /// When request `id`'s attempts went out, in milliseconds.
    static func sends(_ sim: Simulation, _ id: Int32 = 1) -> [Millis] {
        sim.history(of: id).filter { $0.to == .inFlight }.map(\.time)
    }

    /// The waits between request `id`'s attempts: each send minus the answer before it (latency 200 ms).
    static func waits(_ sim: Simulation, _ id: Int32 = 1) -> [Millis] {
        let h = sim.history(of: id)
        var out: [Millis] = []
        for (i, t) in h.enumerated() where t.to == .inFlight && i > 0 && h[i - 1].from == .inFlight {
            out.append(t.time - h[i - 1].time)
        }
        return out
    }

    func last(_ sim: Simulation, _ id: Int32 = 1) -> Transition? { sim.history(of: id).last }

    // MARK: PostHog

    /// PostHog Android with `server 503 always`: a batch retried after
    /// min(2^(n-1), 30) s, 1, 2, 4, then on the fourth failure (retryCount past
    /// maxRetries 3) the whole queue is dropped, the request made meanwhile too.
    func test_posthogAndroid_503Always_exponentialThenTheWholeQueueIsDropped() {
        guard
            let sim = Self.play(
                "posthog-android",
                """
                at 0 server 503 always
                at 0 track a
                at 30.5s track late
                expect at 40s dropped a exhausted
                expect at 40s dropped late exhausted
                expect at 40s attempts a 4
                expect at 40s attempts late 0
                """)
        else { return }
        XCTAssertEqual(Self.sends(sim), [30_000, 31_200, 33_400, 37_600])
        XCTAssertEqual(Self.waits(sim), [1000, 2000, 4000])
        XCTAssertEqual(last(sim, 2)?.rule, sim.profile.rule(id: "PHA-6"))
    }

    /// PostHog Android with `server 429 retry-after 5s`: the header replaces
    /// the backoff (calculateDelay); PostHog iOS takes the larger of it and its
    /// linear 1, 2, 3 s: both wait 5 s; with `retry-after 1s` Android waits 1 s
    /// and iOS its own 2 s at the second retry.
    func test_posthog_429RetryAfter_androidReplacesTheBackoff_iosTakesItAsAFloor() {
        for (name, header, expected) in [
            ("posthog-android", "5s", [5000, 5000, 5000]), ("posthog-ios", "5s", [5000, 5000, 5000]),
            ("posthog-android", "1s", [1000, 1000, 1000]), ("posthog-ios", "1s", [1000, 2000, 3000]),
        ] as [(String, String, [Millis])] {
            guard
                let sim = Self.play(
                    name,
                    """
                    at 0 server 429 retry-after \(header) always
                    at 0 track a
                    """)
            else { continue }
            XCTAssertEqual(Self.waits(sim), expected, "\(name), Retry-After \(header)")
            XCTAssertEqual(sim.request(1).state, .dropped, name)
        }
    }

    /// PostHog iOS keeps at most 1000 events and drops the oldest
    /// ("Queue is full, dropping oldest record"); offline it holds them.
    func test_posthogIOS_offline_keepsTheNewest1000() {
        var lines = "at 0 network offline\n"
        for i in 0..<1005 { lines += "at \(i * 10)ms track e\(i)\n" }
        lines += "expect at 11s dropped e0 overflow\nexpect at 11s dropped e4 overflow\nexpect at 11s state e5 queued\n"
        lines += "at 20s network online\nexpect at 30s state e1004 delivered\nexpect at 30s state e5 delivered\n"
        guard let sim = Self.play("posthog-ios", lines) else { return }
        XCTAssertEqual(sim.count(.delivered), 1000)
        XCTAssertEqual(sim.backend.batches, 20, "1000 in batches of maxBatchSize 50")
    }

    /// A 413 halves PostHog's batch, and the halves go at once.
    func test_posthogIOS_413_halvesTheBatch() {
        var lines = "at 0 server 413 x1\n"
        for i in 0..<20 { lines += "at \(i)ms track e\(i)\n" }
        guard let sim = Self.play("posthog-ios", lines) else { return }
        XCTAssertEqual(sim.count(.delivered), 20)
        XCTAssertEqual(sim.backend.batches, 3, "20, then 10 and 10")
        XCTAssertEqual(Set(sim.history(of: 1).map(\.batch)), [0, 1, 2])
        XCTAssertEqual(Set(sim.history(of: 20).map(\.batch)), [0, 1, 3])
    }

    // MARK: Segment

    /// Segment's default mode drops only on 400, keeps everything else for the
    /// next flush (no backoff, no attempt limit), and flushes every 20 new events.
    func test_segmentSwift_keepsA503ForTheNextFlush_dropsOnlyOn400() {
        var lines = "at 0 server 503 x1\n"
        for i in 0..<20 { lines += "at \(i)ms track e\(i)\n" }
        lines += "expect at 1s state e0 queued\nexpect at 31s state e0 delivered\n"
        lines += "at 40s server 400 x1\nat 40s track bad\nexpect at 71s dropped bad rejected\n"
        guard let sim = Self.play("segment-swift", lines) else { return }
        XCTAssertEqual(Self.sends(sim), [19, 30_000], "the 20th event's flush, then the interval at 30 s")
    }

    /// Segment's smart retry: a 429 with Retry-After pauses the pipeline until it
    /// and the attempt is not counted; a 503 waits 0.5 s x 2^(n-1) plus up to 10%.
    func test_segmentSwiftRetry_429PausesUncounted_503BacksOffExponentially() {
        guard
            let sim = Self.play(
                "segment-swift-retry",
                """
                at 0 server 503 x3
                at 0 track a
                at 30.5s track b
                """)
        else { return }
        let w = Self.waits(sim)
        XCTAssertEqual(w.count, 3)
        for (wait, base) in zip(w, [500, 1000, 2000] as [Millis]) {
            XCTAssertTrue((base...base + base / 10).contains(wait), "\(w)")
        }
        guard
            let p = Self.play(
                "segment-swift-retry",
                """
                at 0 server 429 retry-after 10s x2
                at 0 track a
                expect at 60s state a delivered
                """)
        else { return }
        XCTAssertEqual(Self.sends(p), [30_000, 40_200, 50_400])
        XCTAssertEqual(p.request(1).budgetUsed, 1, "the paused attempts are not counted")
    }

    /// segment-swift-retry: the 100th rate-limit pause since the last 2xx
    /// (rateLimitConfig maxRetryCount) drops the batch; each 429 without the
    /// header waits the default 300 s, so it comes after 100 attempts, 8¼ h on.
    func test_segmentSwiftRetry_the100thPauseDropsTheBatch() {
        guard
            let sim = Self.play(
                "segment-swift-retry",
                """
                at 0 server 429 always
                at 0 track a
                expect at 30m attempts a 6
                """)
        else { return }
        let s = Self.sends(sim)
        XCTAssertEqual(s.count, 100)
        XCTAssertEqual(s.first, 30_000)
        XCTAssertEqual(s.last, 30_000 + 99 * 300_200)
        XCTAssertEqual(last(sim)?.to, .dropped)
        XCTAssertEqual(last(sim)?.reason, .exhausted)
        XCTAssertEqual(last(sim)?.time, 30_000 + 99 * 300_200 + 200)
    }

    // MARK: Amplitude

    /// Amplitude-Swift marks itself offline after more than six failures and
    /// sends nothing until the network comes back (its connectivity plugin).
    func test_amplitudeSwift_marksItselfOfflineAfterSevenFailures() {
        var lines = "at 0 server 503 always\n"
        for i in 0..<30 { lines += "at \(i)ms track e\(i)\n" }
        lines += "at 5m server ok\nexpect at 6m state e0 queued\n"
        lines += "at 7m network offline\nat 7m1s network online\nexpect at 7m2s state e0 delivered\n"
        guard let sim = Self.play("amplitude-swift", lines) else { return }
        // Seven failed attempts, then the one after the network came back.
        XCTAssertEqual(sim.request(1).attempts, 8)
        XCTAssertEqual(Array(Self.waits(sim).prefix(6)), [1000, 2000, 4000, 8000, 16_000, 32_000])
        XCTAssertEqual(Self.sends(sim).last, 421_000)
    }

    /// Amplitude-Kotlin's fixed schedule 1, 8, 32, 128, 300 s, each jittered by
    /// up to half of itself either way, with no attempt limit.
    func test_amplitudeKotlin_fixedScheduleJitteredByHalf() {
        var lines = "at 0 server 503 x7\n"
        for i in 0..<30 { lines += "at \(i)ms track e\(i)\n" }
        guard let sim = Self.play("amplitude-kotlin", lines) else { return }
        let w = Self.waits(sim)
        XCTAssertEqual(w.count, 7)
        for (wait, d) in zip(w, [1000, 8000, 32_000, 128_000, 300_000, 300_000, 300_000] as [Millis]) {
            XCTAssertTrue((d / 2...d + d / 2).contains(wait), "\(w)")
        }
        XCTAssertEqual(sim.request(1).state, .delivered)
    }

    // MARK: RudderStack

    /// Rudder v1 offline: the upload's semaphore is never signalled, the batch
    /// stays on the wire and nothing more is uploaded until the app closes;
    /// the next launch sends the rows again.
    func test_rudderIOSv1_offlineStallsUntilTheAppCloses() {
        guard
            let sim = Self.play(
                "rudder-ios-v1",
                """
                at 0 network offline
                at 1s track a
                at 30s network online
                at 31s track b
                expect at 4m59s state a in-flight
                expect at 4m59s state b pending
                at 5m quit
                at 6m launch
                expect at 7m state a delivered
                expect at 7m state b delivered
                """)
        else { return }
        XCTAssertEqual(sim.request(1).attempts, 2)
    }

    /// Rudder v1's sawtooth: 3 s x 2^a plus up to as much again, capped at
    /// 300 s; the wait that reaches the cap starts the count over.
    func test_rudderIOSv1_backoffSawtoothResetsAtTheCap() {
        guard
            let sim = Self.play(
                "rudder-ios-v1",
                """
                at 0 server 503 x10
                at 0 track a
                """)
        else { return }
        let w = Self.waits(sim)
        XCTAssertEqual(w.count, 10)
        XCTAssertTrue(w.contains(300_000), "\(w)")
        let cap = w.firstIndex(of: 300_000)!
        XCTAssertLessThan(w[cap + 1], 7000, "after the cap it starts over at 3-6 s: \(w)")
    }

    /// Rudder's new SDKs stop uploading at a 401; 400 and 413 delete the batch.
    func test_rudderSwift_401StopsUploads_400Deletes() {
        guard
            let sim = Self.play(
                "rudder-swift",
                """
                at 0 server 400 x1
                at 0 track a
                at 20s server 401 x1
                at 20s track b
                at 25s track c
                at 40s track d
                expect at 5m dropped a rejected
                expect at 5m state b in-flight
                expect at 5m state c in-flight
                expect at 5m state d pending
                """)
        else { return }
        // b and c went together at 30 s and stalled; d never goes.
        XCTAssertEqual(sim.request(2).attempts, 1)
        XCTAssertEqual(sim.history(of: 3).last?.batch, 2)
    }

    /// After five waits Rudder's new SDKs cool off for 30 minutes, then start over.
    func test_rudderSwift_coolsOff30MinutesAfterFiveWaits() {
        guard let sim = Self.play("rudder-swift", "at 0 server 503 x7\nat 0 track a\n") else { return }
        let w = Self.waits(sim)
        XCTAssertEqual(w.count, 7)
        XCTAssertEqual(w[5], 1_800_000, "\(w)")
        XCTAssertTrue((3000...6000).contains(w[6]), "\(w)")
    }

    // MARK: Mixpanel

    /// Mixpanel keeps a failed batch and waits 60 s x 2^(n-1), at most 600 s,
    /// Retry-After as a floor; only 2xx delivers.
    func test_mixpanelSwift_backoff60sDoublingCapped600_andRetryAfterAsAFloor() {
        guard let sim = Self.play("mixpanel-swift", "at 0 server 503 x5\nat 0 track a\n") else { return }
        XCTAssertEqual(Self.waits(sim), [60_000, 120_000, 240_000, 480_000, 600_000])
        guard let p = Self.play("mixpanel-swift", "at 0 server 503 retry-after 90s x1\nat 0 track a\n") else {
            return
        }
        XCTAssertEqual(Self.waits(p), [90_000])
    }

    // MARK: Sentry

    /// Sentry Cocoa deletes an envelope on any answer (a 503 too) and keeps
    /// it only without one; a 429 mutes the category for 60 s without the
    /// header, and what comes meanwhile is dropped before sending.
    func test_sentryCocoa_503Deletes_429MutesForSixtySeconds() {
        guard
            let sim = Self.play(
                "sentry-cocoa",
                """
                at 0 server 503 x1
                at 0 track a
                at 1s server 429 x1
                at 1s track b
                at 2s track c
                at 70s track d
                expect at 80s dropped a rejected
                expect at 80s dropped b rejected
                expect at 80s dropped c rate-limited
                expect at 80s state d delivered
                """)
        else { return }
        XCTAssertEqual(sim.backend.received, 3, "c never left the device")
    }

    // MARK: The Python SDKs

    /// posthog-python keeps at most 10000 events in memory and refuses the new
    /// one; nothing survives the process.
    func test_posthogPython_refusesTheNewestAtTheCapAndKeepsNothingAtAQuit() {
        // The backend never answers: one batch at a time waits out its timeouts, the rest wait in memory.
        var lines = "at 0 server timeout always\n"
        for i in 0..<10_001 { lines += "at \(i)ms track e\(i)\n" }
        lines += "expect at 11s dropped e10000 overflow\nat 12s quit\nexpect at 12s saved 0\n"
        guard let sim = Self.play("posthog-python", lines) else { return }
        XCTAssertEqual(sim.request(1).reason, .notSaved)
    }

    /// segment-python retries the first time at once, then 0.5 s x 2^(n-2) plus up to 10%.
    func test_segmentPython_firstRetryAtOnce() {
        guard let sim = Self.play("segment-python", "at 0 server 503 x3\nat 0 track a\n") else { return }
        let w = Self.waits(sim)
        XCTAssertEqual(w.count, 3)
        XCTAssertEqual(w[0], 0)
        XCTAssertTrue((500...550).contains(w[1]) && (1000...1100).contains(w[2]), "\(w)")
    }

    /// segment-python: a rate-limit episode lasts at most 1800 s from its
    /// first pause; a Retry-After of 300 s every time pauses six times (the
    /// sixth ends 30 min and 1 s after the first: each answer takes 200 ms), then the
    /// seventh wait would end past the episode and the batch is dropped.
    func test_segmentPython_rateLimitEpisodeBoundedAt1800s() {
        guard
            let sim = Self.play(
                "segment-python",
                """
                at 0 server 429 retry-after 300s always
                at 0 track a
                """)
        else { return }
        let s = Self.sends(sim)
        XCTAssertEqual(s.count, 6, "\(s.prefix(10))")
        XCTAssertEqual(last(sim)?.to, .dropped)
        XCTAssertEqual(last(sim)?.reason, .exhausted)
        XCTAssertEqual(last(sim).map { sim.profile.rule($0.rule).id }, "SGP-8")
    }

    /// rudder-python's quirk: a 400 whose body names no error (Outbox's) is
    /// retried; a 404 is given up at once.
    func test_rudderPython_a400WithoutABodyIsRetried_a404Dropped() {
        guard
            let sim = Self.play(
                "rudder-python",
                """
                at 0 server 400 x2
                at 0 track a
                at 1m server 404 x1
                at 1m track b
                expect at 2m state a delivered
                expect at 2m dropped b rejected
                """)
        else { return }
        XCTAssertEqual(sim.request(1).attempts, 3)
    }

    /// mixpanel-python sends at once and retries 5xx through urllib3: 0, 0.5, 1, 2 s.
    func test_mixpanelPython_urllib3Retries() {
        guard
            let sim = Self.play(
                "mixpanel-python", "at 0 server 503 always\nat 0 track a\nexpect at 10s dropped a exhausted\n")
        else { return }
        XCTAssertEqual(Self.waits(sim), [0, 500, 1000, 2000])
        XCTAssertEqual(Self.sends(sim).first, 0, "no queue: sent at once")
    }

    /// amplitude-python's per-event schedule 100 x 2^((r-1)//2) ms.
    func test_amplitudePython_schedule() {
        guard let sim = Self.play("amplitude-python", "at 0 server 503 x5\nat 0 track a\n") else { return }
        XCTAssertEqual(Self.waits(sim), [100, 100, 200, 200, 400])
    }

    /// amplitude-python, as running it under `outbox serve` showed and its
    /// source says: an event is sent at most 12 times (not 13); a 400 or a 429
    /// that names no event re-queues the batch as any failure; a connection
    /// closed without an answer (`lost`) loses it, neither retried nor called back.
    func test_amplitudePython_twelveSends_400And429Requeue_lostIsGone() {
        guard let sim = Self.play("amplitude-python", "at 0 server 503 always\nat 0 track a\n") else { return }
        XCTAssertEqual(Self.sends(sim).count, 12)
        XCTAssertEqual(last(sim)?.reason, .exhausted)
        for status in ["400", "429"] {
            guard let s = Self.play("amplitude-python", "at 0 server \(status) x1\nat 0 track a\n") else { return }
            XCTAssertEqual(Self.waits(s), [100], status)
            XCTAssertEqual(last(s)?.to, .delivered, status)
        }
        guard let l = Self.play("amplitude-python", "at 0 server lost x1\nat 0 track a\n") else { return }
        XCTAssertEqual(Self.sends(l).count, 1)
        XCTAssertEqual(last(l).map { l.profile.rule($0.rule).id }, "AMP-11")
        XCTAssertEqual(last(l)?.to, .dropped)
    }

    /// sentry-python never retries.
    func test_sentryPython_neverRetries() {
        guard
            let sim = Self.play(
                "sentry-python", "at 0 server 503 x1\nat 0 track a\nexpect at 1s dropped a rejected\n")
        else { return }
        XCTAssertEqual(sim.request(1).attempts, 1)
    }

    // MARK: Every real profile

    /// Each names its version in its title, cites a source file in its rules,
    /// and lives in profiles/real/; `outbox profiles` lists them apart.
    func test_everyRealProfile_namesItsVersionAndCitesItsSource() {
        let real = Builtins.all.filter { Builtins.isReal($0.name) }
        XCTAssertEqual(real.count, 16)
        for p in real {
            XCTAssertNotNil(
                p.title.range(of: #"[0-9a-f]{7}|[0-9]+\.[0-9]+\.[0-9]+"#, options: .regularExpression), p.name)
            for r in p.ownRules.map({ p.rule($0) }) where !r.isAssumption {
                XCTAssertTrue(
                    r.text.range(of: #"[A-Za-z_]+\.(swift|kt|m|py|java)|L[0-9]+|\("#, options: .regularExpression)
                        != nil || r.text.hasSuffix(".\")") || r.text.contains("("), "\(p.name) \(r.id): \(r.text)")
            }
        }
        let (status, out, _) = cli(["profiles"])
        XCTAssertEqual(status, 0)
        let seeds = out.range(of: "== the seeds' SDKs")!, reals = out.range(of: "== real SDKs")!
        XCTAssertLessThan(seeds.lowerBound, reals.lowerBound)
        XCTAssertLessThan(reals.lowerBound, out.range(of: "\nposthog-ios: PostHog iOS SDK 64c7dd0\n")!.lowerBound)
    }

    // MARK: docs/real-sdks.md

    func test_realSDKsPage_isTheOneItsStoriesMake() throws {
        // 16 profiles x 6 stories, Segment's week offline alone 2.2 x 10^7 transitions:
        // about 95 s in a debug build, many times that under a sanitizer, and no
        // memory or thread question the other tests do not ask already.
        try XCTSkipIf(
            ProcessInfo.processInfo.environment["OUTBOX_SANITIZER"] != nil,
            "the page's 96 runs take too long under a sanitizer; the plain run checks the page")
        let doc = try String(contentsOfFile: packageRoot + "/docs/real-sdks.md", encoding: .utf8)
        let (status, out, err) = cli(["profiles", "--real-sdks-doc", packageRoot + "/examples/real-sdks"])
        XCTAssertEqual(status, 0, err)
        XCTAssertTrue(out == doc, "docs/real-sdks.md is stale: run scripts/real-sdks")
        for story in ["outage", "429", "400", "quit", "week", "background"] {
            XCTAssertTrue(doc.lowercased().contains(story), story)
        }
    }
}
