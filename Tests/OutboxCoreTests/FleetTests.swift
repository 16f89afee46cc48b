import Foundation
import OutboxCore
import OutboxServe
import OutboxTestSupport
import XCTest

/// `outbox fleet` (issue 26, docs/fleet.md): devices that share nothing but
/// the backend are independent (the fleet is the sum of its devices' own
/// runs, exactly); a device's life written by `--device` replays to the same
/// transitions; shards merge to the single run; the load follows from the
/// rules in the simple cases (amplification 1 + p + … + p^N).
final class FleetTests: XCTestCase {
    /// A fleet file written to a temporary folder; its path.
    func write(_ text: String, name: String = "fleet.outbox") -> String { temporaryFile(text, name: name) }

    /// The per-second columns of a JSONL report and its summary object.
    struct Rows: Equatable {
        var attempts: [Int64] = [], new: [Int64] = [], delivered: [Int64] = [], over: [Int64] = []
        var failed: [Int64] = [], dropped: [Int64] = [], queued: [Int64] = []
    }

    func rows(_ jsonl: String, file: StaticString = #filePath, line: UInt = #line) -> (Rows, JSONValue?) {
        var r = Rows()
        var summary: JSONValue?
        for l in jsonl.split(separator: "\n") {
            guard let v = JSONValue.parse(Array(l.utf8)) else {
                XCTFail("not JSON: \(l)", file: file, line: line)
                continue
            }
            if v["summary"] != nil {
                summary = v
                continue
            }
            func n(_ k: String) -> Int64 {
                guard case .number(let d)? = v[k] else { return -1 }
                return Int64(d)
            }
            r.attempts.append(n("attempts"))
            r.new.append(n("new"))
            r.delivered.append(n("delivered"))
            r.over.append(n("over"))
            r.failed.append(n("failed"))
            r.dropped.append(n("dropped"))
            r.queued.append(n("queued"))
        }
        return (r, summary)
    }

    static let mixed = """
        # twelve devices of two SDKs through two outages, with churn
        devices 12
        profile ios 50% android 50%
        events every 20s names open,buy
        churn offline every 3m for 40s
        churn relaunch every 4m closed 20s
        duration 10m
        seed 5
        at 0s launch
        at 2m server timeout always
        at 4m server ok
        at 6m server 503 30%
        at 8m server ok
        """

    // MARK: Independence

    /// With no capacity line the backend never refuses: each device's life is
    /// its own, and the fleet's every column, second by second, is the sum of
    /// its devices' single runs, each played from the scenario `--device N`
    /// wrote, to the fleet's end.
    func test_withoutCapacity_theFleetIsTheSumOfItsDevicesOwnRuns() throws {
        try assertIndependent(Self.mixed, profiles: ["profile ios", "profile android"])
    }

    /// The same with two real SDKs that batch, whose devices let go of their
    /// finished requests and batches at rest (`Simulation.forgetFinished`),
    /// while their single runs keep everything: forgetting changes nothing.
    func test_withoutCapacity_batchingDevicesAreTheSumOfTheirOwnRunsToo() throws {
        let batched = Self.mixed.replacingOccurrences(
            of: "profile ios 50% android 50%", with: "profile posthog-ios 50% segment-swift 50%")
        try assertIndependent(batched, profiles: ["profile posthog-ios", "profile segment-swift"])
    }

    func assertIndependent(_ text: String, profiles: Set<String>, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let path = write(text)
        let (status, out, err) = cli(["fleet", path, "--format", "jsonl"])
        XCTAssertEqual(status, 0, err)
        let (fleet, summary) = rows(out)
        XCTAssertEqual(fleet.attempts.count, 600)
        var sum = Rows()
        for k in [\Rows.attempts, \.new, \.delivered, \.over, \.failed, \.dropped, \.queued] {
            sum[keyPath: k] = [Int64](repeating: 0, count: 600)
        }
        var devicesSeen = Set<String>()
        for d in 0..<12 {
            let (s, scenario, e) = cli(["fleet", path, "--device", "\(d)"])
            XCTAssertEqual(s, 0, e)
            devicesSeen.insert(scenario.split(separator: "\n")[2].description)  // its profile line
            let one = try single(scenario, seconds: 600)
            for k in [\Rows.attempts, \.new, \.delivered, \.over, \.failed, \.dropped] {
                for t in 0..<600 { sum[keyPath: k][t] += one[keyPath: k][t] }
            }
        }
        var level: Int64 = 0
        for t in 0..<600 {
            level += sum.new[t] - sum.delivered[t] - sum.dropped[t]
            sum.queued[t] = level
        }
        XCTAssertEqual(devicesSeen, profiles, "the mix gave both profiles", file: file, line: line)
        XCTAssertEqual(fleet, sum, file: file, line: line)
        XCTAssertGreaterThan(fleet.new.reduce(0, +), 300, "the devices tracked events", file: file, line: line)
        XCTAssertGreaterThan(fleet.failed.reduce(0, +), 0, "the outages failed attempts", file: file, line: line)
        XCTAssertEqual(summary?["summary"]?["over"], .number(0), file: file, line: line)
    }

    /// Twelve devices through an eight-minute outage: the oldest requests are
    /// dropped (retries exhausted) while newer ones still queue, a backlog.
    static let backlog = """
        # twelve devices whose queue drops its oldest while the backend is down
        devices 12
        profile ios 50% android 50%
        events every 5s names open,buy
        duration 10m
        seed 7
        at 0s launch
        at 1m server timeout always
        at 9m server ok
        """

    /// In a backlog a device lets go of its oldest requests once enough are
    /// final (`Simulation.forgetFinalPrefix`), while its single run keeps
    /// everything: the fleet is still the sum of its devices' runs.
    func test_withoutCapacity_devicesForgettingInABacklogAreTheSumOfTheirOwnRuns() throws {
        try assertIndependent(Self.backlog, profiles: ["profile ios", "profile android"])
    }

    /// Mid-outage no device is at rest, yet it holds only its backlog: the
    /// requests already dropped before the oldest one still waiting are gone.
    func test_inABacklog_devicesHoldWhatWaitsNotWhatWasDropped() throws {
        let text = Self.backlog.replacingOccurrences(of: "duration 10m", with: "duration 8m")
        guard case .success(let fleet) = FleetFile.parse(text, file: "backlog.fleet") else { return XCTFail("bad fleet file") }
        let run = FleetRun(fleet)
        let result = run.run()
        let held = run.lanes.map(\.lane.requestsHeld)
        let made = Int(result.new.reduce(0, +)), dropped = Int(result.dropped.reduce(0, +))
        let queued = Int(result.queued.last ?? 0)
        XCTAssertGreaterThan(dropped, 100, "the outage dropped requests")
        XCTAssertGreaterThan(queued, 12, "and a backlog waits")
        XCTAssertLessThan(held[0].all, made - dropped / 2, "\(held[0].all) held of \(made) made, \(queued) queued")
    }

    /// A device at rest lets go of what it is done with, so a long run holds
    /// what is live, not every request ever made (a million devices × two
    /// hours of events would not fit): after the mixed fleet's ten minutes,
    /// its devices at rest hold no request, and all of them far fewer than
    /// were made, the batching ones too. (A device never at rest, one whose
    /// install waits for consent, holds its whole past: docs/fleet.md, "Memory".)
    func test_devicesAtRest_forgetTheirFinishedRequests() throws {
        for text in [Self.mixed, Self.mixed.replacingOccurrences(of: "ios 50% android", with: "posthog-ios 50% segment-swift")] {
            guard case .success(let fleet) = FleetFile.parse(text, file: "mixed.fleet") else { return XCTFail("bad fleet file") }
            let run = FleetRun(fleet)
            let result = run.run()
            let held = run.lanes.map(\.lane.requestsHeld)
            let made = result.new.reduce(0, +)
            XCTAssertGreaterThan(made, 300)
            XCTAssertEqual(held.map(\.atRest), [0], "devices at rest hold nothing")
            XCTAssertLessThan(held[0].all, Int(made) / 2, "\(held[0].all) of \(made) held")
        }
    }

    /// Plays a device's scenario on a model sending to a backend without a
    /// limit, to `seconds`, and counts what the fleet counts.
    func single(_ text: String, seconds: Int, file: StaticString = #filePath, line: UInt = #line) throws -> Rows {
        guard case .success(let sc) = Scenario.parse(text, file: "device.outbox") else {
            XCTFail("the device's scenario does not parse:\n\(text)", file: file, line: line)
            return Rows()
        }
        var runner = ScenarioRunner(sc)
        var sim = Simulation(profile: sc.profile, settings: sc.settings, store: InMemoryDeviceStore())
        let gate = FleetGate(capacity: nil, over: .status(503), seconds: seconds)
        sim.send(to: gate)
        var r = Rows()
        r.new = [Int64](repeating: 0, count: seconds)
        r.delivered = r.new
        r.dropped = r.new
        let end = Millis(seconds) * 1000
        while true {
            let next = [runner.nextLineTime, sim.nextDueTime(), sim.nextFlapTime].compactMap { $0 }.min()
            guard let next, next < end else { break }
            _ = runner.step(on: &sim) { item, _ in
                guard case .entry(.transition(let tr)) = item else { return }
                let s = Int(tr.time / 1000)
                if tr.from == nil { r.new[s] += 1 }
                if tr.to == .delivered && tr.from != .delivered { r.delivered[s] += 1 }
                if tr.to == .dropped && tr.from != .dropped { r.dropped[s] += 1 }
            }
        }
        r.attempts = gate.attempts.map(Int64.init)
        r.over = gate.overs.map(Int64.init)
        r.failed = gate.failed.map(Int64.init)
        return r
    }

    // MARK: One device up close

    /// With a capacity that binds, a device's life depends on the others:
    /// `--device N` writes the backend's refusals to it by send number, and
    /// its scenario replays to the very transitions it made in the fleet.
    func test_deviceScenario_replaysToTheSameTransitions_whenCapacityBinds() throws {
        let text = Self.bindingCapacity(profile: "ios")
        let (refused, _) = try assertDevicesReplay(text, path: write(text), devices: [0, 7, 39])
        XCTAssertGreaterThan(refused, 0, "the capacity refused some of the three devices' sends")
    }

    /// Forty devices through a 1-minute outage, with a capacity that binds.
    static func bindingCapacity(profile: String) -> String {
        """
        devices 40
        profile \(profile)
        events every 10s
        capacity 2/s
        duration 5m
        at 0s launch
        at 1m server timeout always
        at 2m server ok
        """
    }

    /// Plays each of `devices` from the scenario `--device N` writes and checks
    /// it makes the transitions it made in the fleet; returns how many of their
    /// sends the capacity refused, and how many attempts they throttled.
    func assertDevicesReplay(
        _ text: String, path: String, devices: [Int], file: StaticString = #filePath, line: UInt = #line
    ) throws -> (refused: Int, throttled: Int) {
        let fleet: FleetFile
        switch FleetFile.parse(text, file: path, profiles: fleetResolver(path)) {
        case .success(let f): fleet = f
        case .failure(let e):
            XCTFail(e.errors.map(\.description).joined(separator: "\n"), file: file, line: line)
            return (0, 0)
        }
        var refused = 0, throttled = 0
        for d in devices {
            let run = FleetRun(fleet, record: d)
            _ = run.run()
            let lane = try XCTUnwrap(run.recordedLane, file: file, line: line)
            refused += lane.recordedAnswers.count
            throttled += lane.recordedTransitions.filter { $0.outcome == .throttled }.count
            let (s, scenario, e) = cli(["fleet", path, "--device", "\(d)"])
            XCTAssertEqual(s, 0, e, file: file, line: line)
            guard case .success(let sc) = Scenario.parse(scenario, file: "device.outbox", profiles: fleetResolver(path))
            else {
                XCTFail("device \(d)'s scenario does not parse:\n\(scenario)", file: file, line: line)
                return (refused, throttled)
            }
            var runner = ScenarioRunner(sc)
            var replayed: [String] = []
            runner.run { item, _ in
                if case .entry(.transition(let t)) = item, t.time < fleet.duration { replayed.append(Self.text(t)) }
            }
            XCTAssertEqual(replayed, lane.recordedTransitions.map(Self.text), "device \(d)", file: file, line: line)
            XCTAssertGreaterThan(replayed.count, 20, file: file, line: line)
            if !lane.recordedAnswers.isEmpty {
                XCTAssertTrue(scenario.contains("at 0s server 503 on sends "), file: file, line: line)
            }
        }
        return (refused, throttled)
    }

    /// The same with a throttled profile: the draws depend on the seed, the
    /// request and the attempt only, and a rejected attempt takes no send
    /// number, so the refusals replayed by number land on the same attempts.
    func test_THROTTLE_aThrottledDeviceReplaysToTheSameTransitions() throws {
        let dir = (write(ProfileStatementTests.acme(more: "throttle k 2"), name: "acme-throttle.profile") as NSString)
            .deletingLastPathComponent
        let text = Self.bindingCapacity(profile: "acme-throttle.profile")
        let path = dir + "/throttle.fleet"
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        let (refused, throttled) = try assertDevicesReplay(text, path: path, devices: [3, 21])
        XCTAssertGreaterThan(refused, 0, "the capacity refused some of the devices' sends")
        XCTAssertGreaterThan(throttled, 5, "the devices throttled some of their attempts")
    }

    /// The built-ins, and a `.profile` path read relative to the fleet file's folder (as the command line does).
    func fleetResolver(_ fleetPath: String) -> ProfileResolver {
        let dir = (fleetPath as NSString).deletingLastPathComponent
        return ProfileResolver { word in
            guard word.hasSuffix(".profile") else { return ProfileResolver.builtins.resolve(word) }
            let path = word.hasPrefix("/") ? word : dir + "/" + word
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                return .failure(Problem("no file \(path)"))
            }
            return Profile.parse(text, file: path, path: path).mapError { Problem($0.errors.map(\.description).joined(separator: "; ")) }
        }
    }

    static func text(_ t: Transition) -> String {
        "\(t.time) #\(t.request) a\(t.attempt) b\(t.batch) \(t.from.map { "\($0)" } ?? "-")→\(t.to) \(t.reason.map(\.word) ?? "") \(t.rule) \(t.outcome)"
    }

    // MARK: Shards

    /// Four shards, run one by one and merged, are the single run when the
    /// capacity does not bind: the same rows and the same summary.
    func test_fourShardsMerged_equalTheSingleRun() throws {
        let path = write(Self.mixed)
        let (s0, whole, e0) = cli(["fleet", path, "--format", "jsonl"])
        XCTAssertEqual(s0, 0, e0)
        var files: [String] = []
        for i in 0..<4 {
            let (s, out, e) = cli(["fleet", path, "--shard", "\(i)/4", "--format", "jsonl"])
            XCTAssertEqual(s, 0, e)
            let f = path + ".\(i).jsonl"
            FileManager.default.createFile(atPath: f, contents: Data(out.utf8))
            files.append(f)
        }
        let (sm, merged, em) = cli(["fleet", "merge"] + files.reversed() + ["--format", "jsonl"])
        XCTAssertEqual(sm, 0, em)
        let (a, sa) = rows(whole), (b, sb) = rows(merged)
        XCTAssertEqual(a, b)
        XCTAssertEqual(sa?["summary"], sb?["summary"])
        XCTAssertEqual(sb?["shards"], .array([.number(0), .number(1), .number(2), .number(3)]))
        XCTAssertEqual(sb?["shard"], .string("0/4"))

        // Three of four: the report is written, the missing shard named, status 1.
        let (s3, _, e3) = cli(["fleet", "merge", files[0], files[1], files[3]])
        XCTAssertEqual(s3, 1)
        XCTAssertEqual(e3, "outbox fleet merge: shard 2/4 missing: the report covers 3 of 4 shards\n")
        // A shard twice is refused.
        let (s2, _, e2) = cli(["fleet", "merge", files[0], files[0]])
        XCTAssertEqual(s2, 2)
        XCTAssertEqual(e2, "outbox fleet merge: shard 0/4 is in both \(files[0]) and \(files[0]); expected each shard once\n")
    }

    /// As the issue asks: the real program, four shards at once under `xargs -P 4`, merged.
    func test_fourShardsUnderXargs_mergeToTheSingleRun() throws {
        let outbox = try builtOutbox()
        let path = write(Self.mixed)
        let dir = (path as NSString).deletingLastPathComponent
        let script = """
            set -e
            cd '\(dir)'
            printf '0\\n1\\n2\\n3\\n' | xargs -P 4 -I{} sh -c '"$0" fleet fleet.outbox --shard {}/4 --format jsonl > shard-{}.jsonl' '\(outbox)'
            '\(outbox)' fleet merge shard-0.jsonl shard-1.jsonl shard-2.jsonl shard-3.jsonl --format jsonl > merged.jsonl
            '\(outbox)' fleet fleet.outbox --format jsonl > whole.jsonl
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let merged = try String(contentsOfFile: dir + "/merged.jsonl", encoding: .utf8)
        let whole = try String(contentsOfFile: dir + "/whole.jsonl", encoding: .utf8)
        XCTAssertEqual(rows(merged).0, rows(whole).0)
        XCTAssertEqual(rows(merged).1?["summary"], rows(whole).1?["summary"])
    }

    // MARK: The numbers follow from the rules

    /// Writes a fleet file at `path`, runs `outbox fleet` on it and returns the summary object.
    func summary(ofFleet text: String, at path: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> JSONValue
    {
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        let (status, out, err) = cli(["fleet", path, "--format", "jsonl"])
        XCTAssertEqual(status, 0, err, file: file, line: line)
        return try XCTUnwrap(rows(out, file: file, line: line).1?["summary"], file: file, line: line)
    }

    /// Failures of independent probability p and N retries: each event is
    /// sent 1 + p + … + p^N times on average, and p^(N+1) of them are dropped
    /// exhausted. ACME retries a 503 twice (3 attempts); p = 30%.
    func test_amplification_isTheGeometricSumOfTheFailureChance() throws {
        let profile = ProfileStatementTests.acme()
        let dir = (write(profile, name: "acme.profile") as NSString).deletingLastPathComponent
        let summary = try summary(
            ofFleet: """
                devices 2000
                profile acme.profile
                events every 1m names screen
                duration 30m
                seed 11
                at 0s launch
                at 0s server 503 30%
                """, at: dir + "/amp.outbox")
        guard case .number(let events)? = summary["events"], case .number(let attempts)? = summary["attempts"],
            case .number(let exhausted)? = summary["dropped"]?["exhausted"]
        else { return XCTFail("no events, attempts or exhausted drops in \(summary)") }
        XCTAssertGreaterThan(events, 55_000)
        let p = 0.3
        XCTAssertEqual(attempts / events, 1 + p + p * p, accuracy: 0.015)
        XCTAssertEqual(exhausted / events, p * p * p, accuracy: 0.005)
    }

    /// A retry budget caps the load near 1 + the budget (BUDGET, issue 26):
    /// ACME retries a 503 twice and fails half its attempts (p = 50%), so
    /// without a budget each event is sent 1 + p + p² = 1.75 times; with
    /// `retry-budget 10%` a device's retries are at most a tenth of its first
    /// attempts (the bucket starts empty), so at most 1.1, and the retries it
    /// refused are dropped `retry-budget`.
    func test_BUDGET_aFleetsAmplificationStaysNearOnePlusTheBudget() throws {
        let dir = (write(ProfileStatementTests.acme(), name: "acme.profile") as NSString).deletingLastPathComponent
        FileManager.default.createFile(
            atPath: dir + "/acme-budget.profile",
            contents: Data(ProfileStatementTests.acme(more: "retry-budget 10%").utf8))
        func summary(_ profile: String) throws -> JSONValue {
            try self.summary(
                ofFleet: """
                    devices 1000
                    profile \(profile).profile
                    events every 20s names screen
                    duration 30m
                    seed 11
                    at 0s launch
                    at 0s server 503 50%
                    """, at: dir + "/\(profile).fleet")
        }
        func number(_ v: JSONValue?) -> Double {
            guard case .number(let d)? = v else { return -1 }
            return d
        }
        let p = 0.5
        let free = try summary("acme"), budget = try summary("acme-budget")
        let events = number(free["events"])
        XCTAssertGreaterThan(events, 85_000)
        XCTAssertEqual(number(budget["events"]), events, "the same events: the budget changes only the retries")
        XCTAssertEqual(number(free["attempts"]) / events, 1 + p + p * p, accuracy: 0.015)
        XCTAssertEqual(number(free["dropped"]?["exhausted"]) / events, p * p * p, accuracy: 0.005)
        let amplification = number(budget["attempts"]) / events
        XCTAssertLessThanOrEqual(amplification, 1.1, "at most a tenth of the first attempts are retried")
        XCTAssertGreaterThan(amplification, 1.08, "the budget is spent: the failures want far more retries")
        // An event ends failed when its first attempt failed and no retry of it
        // succeeded: p − (1 − p) × retries. Nearly all of them the budget refused.
        let refused = number(budget["dropped"]?["retry-budget"]), exhausted = max(0, number(budget["dropped"]?["exhausted"]))
        XCTAssertEqual((refused + exhausted) / events, p - (amplification - 1) * (1 - p), accuracy: 0.01)
        XCTAssertLessThan(exhausted, refused / 100)
    }

    /// An attempt the throttle rejects never reaches the fleet's backend
    /// (THROTTLE): the gate counts exactly the device's attempts that were
    /// not rejected on the device.
    func test_THROTTLE_rejectedAttemptsReachNoFleetBackend() throws {
        guard case .success(let acme) = Profile.parse(ProfileStatementTests.acme(more: "throttle k 2"), file: "acme-throttle.profile")
        else { return XCTFail("bad profile") }
        // The profile text through a resolver, as the acme profile is given elsewhere.
        let resolver = ProfileResolver {
            ["acme-throttle.profile", "acme"].contains($0) ? .success(acme) : ProfileResolver.builtins.resolve($0)
        }
        let text = """
            devices 3
            profile acme-throttle.profile
            events every 5s
            duration 10m
            seed 3
            at 0s launch
            at 1m server 503 always
            at 4m server ok
            """
        let fleet: FleetFile
        switch FleetFile.parse(text, file: "throttle.fleet", profiles: resolver) {
        case .success(let f): fleet = f
        case .failure(let e): return XCTFail(e.errors.map(\.description).joined(separator: "\n"))
        }
        var sent: Int64 = 0, rejected = 0
        var total: Int64 = -1
        for d in 0..<3 {
            let run = FleetRun(fleet, record: d)
            let result = run.run()
            if total < 0 { total = result.attempts.reduce(0, +) }
            XCTAssertEqual(result.attempts.reduce(0, +), total, "every run of the file is the same")
            let lane = try XCTUnwrap(run.recordedLane)
            let starts = lane.recordedTransitions.filter { $0.to == .inFlight && $0.time < 600_000 }.count
            let throttled = lane.recordedTransitions.filter { $0.outcome == .throttled && $0.time < 600_000 }.count
            rejected += throttled
            sent += Int64(starts - throttled)
        }
        XCTAssertGreaterThan(rejected, 30, "the outage throttled the devices")
        XCTAssertEqual(total, sent)
    }

    // MARK: Bad input

    func test_badFleetFiles_sayWhereAndWhatWasExpected() {
        let path = write(
            """
            devices many
            profile ios 70% andriod 30%
            events every 0s
            capacity 100
            at 0s launch
            expect at 1s state event delivered
            """, name: "bad.outbox")
        let (status, out, err) = cli(["fleet", path])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        let lines = err.split(separator: "\n").map { String($0).replacingOccurrences(of: path, with: "bad.outbox") }
        XCTAssertEqual(
            lines,
            [
                "bad.outbox:1: bad devices line, expected `devices N` with N from 1 to 10000000",
                "bad.outbox:2: bad profile line: unknown profile `andriod`, expected linktrail, ios, android, flutter or a real SDK's name (`outbox profiles` lists them: posthog-ios, segment-swift, ...), or a profile file (a path ending .profile); did you mean `android`?",
                "bad.outbox:3: bad events interval `0s`, expected a time of at least 1ms, expected `events every D [call WORD] [names A,B,...]` (e.g. `events every 1m names open,buy`)",
                "bad.outbox:4: bad capacity line, expected `capacity R/s [answer STATUS [retry-after D]]` (e.g. `capacity 20000/s answer 429 retry-after 30s`)",
                "bad.outbox:6: `expect` in a fleet file, expected checks in a device's own scenario: write one with `outbox fleet FILE --device N` and add them there",
                "bad.outbox:1: no devices line, expected `devices N` (e.g. `devices 1000000`)",
                "bad.outbox:1: no duration line, expected `duration D` (e.g. `duration 2h`)",
            ])
    }

    func test_badOptions_areRefusedByName() {
        let path = write(Self.mixed)
        XCTAssertEqual(cli(["fleet", path, "--shard", "4/4"]).2.split(separator: "\n").first,
            "outbox fleet: --shard: bad shard `4/4`, expected I/N with N from 1 to 100000 and I from 0 to N − 1 (e.g. 0/4)")
        XCTAssertEqual(cli(["fleet", path, "--device", "12"]).2,
            "outbox fleet: --device needs a device number from 0 to 11, not `12`\n")
        XCTAssertEqual(cli(["fleet", path, "--device", "1", "--shard", "0/2"]).2,
            "outbox fleet: device 1 is not in shard 0/2 (it holds the devices whose number is 0 modulo 2)\n")
        XCTAssertEqual(cli(["fleet", path, "--format", "junit"]).0, 2)
        let (s, _, e) = cli(["fleet", "merge", path])
        XCTAssertEqual(s, 2)
        XCTAssertTrue(e.hasSuffix(":1: not a JSON object, expected a line `outbox fleet --format jsonl` wrote\n"), e)
    }

    /// `--live` goes alone (D374): refused by name, exit 2, before any terminal.
    func test_live_withAReportOption_isRefusedByName() {
        let path = write(Self.mixed)
        let expected = ": the live screen runs the whole fleet under the file's own profile; expected `outbox fleet FILE --live`\n"
        for (args, named) in [
            (["--format", "jsonl"], "--format"), (["--shard", "0/2"], "--shard"), (["--device", "1"], "--device"),
            (["--profiles", "ios"], "--profiles"), (["--format", "svg", "--device", "1"], "--format, --device"),
        ] {
            let (status, out, err) = cli(["fleet", path, "--live"] + args)
            XCTAssertEqual(status, 2)
            XCTAssertEqual(out, "")
            XCTAssertEqual(err, "outbox fleet: --live goes without " + named + expected)
        }
        XCTAssertEqual(cli(["fleet", "merge", path, "--live"]).2, "outbox fleet: --live goes without merge" + expected)
    }
}

/// `outbox fleet --profiles A,B` (D355-D359): the same fleet under each
/// profile, each run what the file gives with its profile line rewritten to
/// that profile, side by side: a column per profile in text, a "profile" field
/// on every JSONL object; without the option, the reports as they were.
final class FleetProfilesTests: XCTestCase {
    static let file = outageMixFleet

    func write(_ text: String, name: String = "mix.fleet") -> String { temporaryFile(text, name: name) }

    /// The file with its profile line rewritten to `profile NAME`, run alone.
    func rewritten(_ name: String, format: String) -> String {
        let text = Self.file.replacingOccurrences(of: "profile ios 50% android 50%", with: "profile " + name)
        let (s, out, e) = cli(["fleet", write(text, name: name + ".fleet"), "--format", format])
        XCTAssertEqual(s, 0, e)
        return out
    }

    func test_jsonl_everyObjectCarriesItsProfile_eachRunIsTheFileRewrittenToIt() throws {
        let path = write(Self.file)
        let (s, out, e) = cli(["fleet", path, "--profiles", "android,ios", "--format", "jsonl"])
        XCTAssertEqual(s, 0, e)
        let lines = out.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2 * (360 + 1))
        for (k, name) in ["android", "ios"].enumerated() {
            let run = lines[(k * 361)..<((k + 1) * 361)]
            let tag = "{\"profile\":\"\(name)\","
            XCTAssertTrue(run.allSatisfy { $0.hasPrefix(tag) }, "every object of run \(k) starts with \(tag)")
            // Without the tag, the seconds are the rewritten file's, line for line, and so is the summary.
            let alone = rewritten(name, format: "jsonl").split(separator: "\n").map(String.init)
            XCTAssertEqual(run.dropLast().map { "{" + $0.dropFirst(tag.count) }, Array(alone.dropLast()), name)
            let summary = try XCTUnwrap(JSONValue.parse(Array(run.last!.utf8)))
            let other = try XCTUnwrap(JSONValue.parse(Array(alone.last!.utf8)))
            XCTAssertEqual(summary["summary"], other["summary"], name)
            XCTAssertEqual(summary["profiles"], .string(name))
        }
        XCTAssertNotEqual(lines[360], lines[721], "the two profiles' summaries differ")
    }

    func test_text_aColumnPerProfile_theSameRowsForEach() throws {
        let path = write(Self.file)
        let (s, out, e) = cli(["fleet", path, "--profiles", "ios,android"])
        XCTAssertEqual(s, 0, e)
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines[0], "fleet \(path): 30 devices under ios, android, 6m, capacity 3/s")
        XCTAssertEqual(lines[1], "outage 00:01:00–00:03:00: server timeout")
        XCTAssertEqual(lines[2].split(separator: " "), ["peak/s", "ios", "android"])
        // The figures: a header of the profiles, then a name and a value per profile on each row.
        let blank = try XCTUnwrap(lines.firstIndex(of: ""))
        XCTAssertEqual(lines[blank + 1].split(separator: " "), ["ios", "android"])
        // Cells are two spaces or more apart (a name or a value has single spaces).
        var figures: [String: [String]] = [:]
        for line in lines[(blank + 2)...] where !line.isEmpty {
            XCTAssertEqual(line.count, lines[blank + 1].count, "every row as wide as the header: \(line)")
            let cells = line.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty
            }
            XCTAssertEqual(cells.count, 3, line)
            figures[cells[0]] = Array(cells.dropFirst())
        }
        // Each column is the summary of the file rewritten to its profile.
        for (k, name) in ["ios", "android"].enumerated() {
            let alone = rewritten(name, format: "jsonl").split(separator: "\n").last.map(String.init) ?? ""
            let sum = try XCTUnwrap(JSONValue.parse(Array(alone.utf8)))["summary"]
            func number(_ key: String) -> String {
                guard case .number(let d)? = sum?[key] else { return "?" }
                return String(Int64(d))
            }
            XCTAssertEqual(figures["events"]?[k], number("events"), name)
            XCTAssertEqual(figures["attempts"]?[k], number("attempts"), name)
            XCTAssertEqual(figures["delivered"]?[k], number("delivered"), name)
            XCTAssertEqual(figures["answered over capacity"]?[k], number("over"), name)
            guard case .number(let peak)? = sum?["peak"]?["attempts"] else { return XCTFail("no peak") }
            XCTAssertEqual(figures["peak after the recovery"]?[k], "\(Int64(peak))/s", name)
        }
        XCTAssertEqual(figures["events"]?[0], figures["events"]?[1], "the same events under each profile")
    }

    /// Without --profiles nothing changes: no "profile" field, the file's mix in the heading.
    func test_withoutProfiles_theReportsAreTheFilesOwn() {
        let path = write(Self.file)
        let (_, jsonl, _) = cli(["fleet", path, "--format", "jsonl"])
        XCTAssertFalse(jsonl.contains("\"profile\""))
        XCTAssertTrue(jsonl.hasPrefix("{\"t\":0,"))
        let (_, text, _) = cli(["fleet", path])
        XCTAssertTrue(text.hasPrefix("fleet \(path): 30 devices (ios 50% android 50%), 6m, capacity 3/s\n"), text)
    }

    func test_badProfiles_areRefusedNamingTheOptionAndTheValue() {
        let path = write(Self.file)
        func refused(_ args: [String]) -> String {
            let (s, out, e) = cli(["fleet", path] + args)
            XCTAssertEqual(s, 2, args.joined(separator: " "))
            XCTAssertEqual(out, "")
            return e
        }
        XCTAssertEqual(
            refused(["--profiles", "ios,andriod"]),
            "outbox fleet: --profiles `ios,andriod`: unknown profile `andriod`, expected linktrail, ios, android, flutter or a real SDK's name (`outbox profiles` lists them: posthog-ios, segment-swift, ...), or a profile file (a path ending .profile); did you mean `android`?\n"
        )
        XCTAssertEqual(
            refused(["--profiles", "ios,,android"]),
            "outbox fleet: --profiles `ios,,android`: an empty name, expected profile names separated by commas (e.g. --profiles ios,android)\n"
        )
        XCTAssertEqual(
            refused(["--profiles", "ios,ios"]),
            "outbox fleet: --profiles `ios,ios`: profile `ios` named twice, expected each profile once\n")
        XCTAssertEqual(
            refused(["--profiles", "a,b,c,d,e,f,g,h,i"]), "outbox fleet: --profiles `a,b,c,d,e,f,g,h,i`: 9 profiles, expected 1 to 8\n")
        XCTAssertEqual(
            refused(["--profiles", "ios", "--shard", "0/2"]),
            "outbox fleet: --profiles goes without --shard: a shard's report is one run, for `outbox fleet merge`; expected one or the other (shard a fleet file per profile)\n"
        )
        XCTAssertEqual(
            refused(["--profiles", "ios", "--device", "3"]),
            "outbox fleet: --profiles goes without --device: a device's life is written under the file's own profile; expected one or the other\n"
        )
        XCTAssertEqual(
            cli(["fleet", "merge", path, "--profiles", "ios"]).2,
            "outbox fleet merge: --shard, --device and --profiles are for a run, expected only report files and --format\n")
    }

    /// A line a profile lacks is that profile's problem, named; the file's own problems are said once.
    func test_aLineAProfileLacks_isRefusedNamingTheProfile() {
        let path = write(
            """
            devices 5
            profile linktrail
            events every 1m
            duration 5m
            at 0s launch
            at 1m consent grant
            """)
        let (s, _, e) = cli(["fleet", path, "--profiles", "linktrail,ios"])
        XCTAssertEqual(s, 2)
        XCTAssertEqual(e, "\(path):6: ios lacks this line: the profile has no consent gate\n")
        let bad = write("devices 5\nprofile ios\nduration 5m\nat 0s launch\nat 1m consent granted\n")
        let (s2, _, e2) = cli(["fleet", bad, "--profiles", "linktrail,ios"])
        XCTAssertEqual(s2, 2)
        XCTAssertEqual(
            e2, "\(bad):5: bad consent `granted`, expected `consent grant` or `consent deny`; did you mean `grant`?\n")
    }

    /// `merge` takes one run's reports: a --profiles report is refused at its second run.
    func test_merge_refusesAProfilesReport() {
        let path = write(Self.file)
        let (_, jsonl, _) = cli(["fleet", path, "--profiles", "ios,android", "--format", "jsonl"])
        let report = path + ".jsonl"
        FileManager.default.createFile(atPath: report, contents: Data(jsonl.utf8))
        let (s, _, e) = cli(["fleet", "merge", report])
        XCTAssertEqual(s, 2)
        XCTAssertEqual(
            e,
            "\(report):362: a second run after the summary (line 361): a report of `--profiles` is not merged, expected one run's or shard's report\n"
        )
    }
}

/// SENDS: `server A on sends N,...` answers the device's Nth attempt made
/// online with A, whatever the plan; how `--device` replays a fleet's
/// backend refusing a device.
final class RuleTestsSends: XCTestCase {
    func test_SENDS_answersTheNumberedAttemptsWhateverThePlan() throws {
        let r = try XCTUnwrap(
            play(
                """
                profile ios
                at 0 launch
                at 0 server 503 on sends 2,3
                at 0 server timeout on sends 5
                at 1s track a
                at 2s track b
                expect at 3m state b delivered
                """))
        XCTAssertEqual(RuleTestKit.trail(r.sim, "a"), ["1000 new>pending #0 IOS-1", "1000 pending>in-flight #1 IOS-2", "1200 in-flight>delivered #1 200 IOS-3"])
        XCTAssertEqual(
            RuleTestKit.trail(r.sim, "b"),
            [
                "2000 new>pending #0 IOS-1", "2000 pending>in-flight #1 IOS-2", "2200 in-flight>retrying #1 503 IOS-4",
                "32200 retrying>in-flight #2 IOS-4", "32400 in-flight>retrying #2 503 IOS-4",
                "92400 retrying>in-flight #3 IOS-4", "92600 in-flight>delivered #3 200 IOS-3",
            ])
        XCTAssertEqual(r.sim.sends, 4, "send 5 never came")
        XCTAssertEqual(
            RuleTestKit.logs(r.sim).filter { $0.contains("[SENDS]") },
            ["0 [SENDS] backend will answer 503 to sends 2,3 (0 sent so far)", "0 [SENDS] backend will answer timeout to send 5 (0 sent so far)"])
    }

    func test_SENDS_badListsAreRefused() {
        for (line, message) in [
            ("at 0 server 503 on sends", "t.outbox:3: bad server line: `on` goes last, as `server <answer> [retry-after <time>] on sends N,...` (e.g. `server 503 on sends 4,9`)"), ("at 0 server 503 on sends 0", "t.outbox:3: bad send number `0`, expected send numbers from 1, comma-separated, with ranges N-M (e.g. `4,9,12-15`)"), ("at 0 server 503 on sends 3-1", "t.outbox:3: bad send number `3-1`, expected send numbers from 1, comma-separated, with ranges N-M (e.g. `4,9,12-15`)"),
            ("at 0 server 503 x2 on sends 4", "t.outbox:3: bad server line: `on sends` takes no repeat, expected `server <answer> [retry-after <time>] on sends N,...`"),
        ] {
            guard case .failure(let e) = Scenario.parse("profile ios\nat 0 launch\n" + line, file: "t.outbox") else {
                XCTFail("accepted: \(line)")
                continue
            }
            XCTAssertEqual(e.errors.map(\.description), [message], line)
        }
    }
}
