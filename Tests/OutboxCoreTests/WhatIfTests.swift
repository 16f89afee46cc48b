import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// examples/what-if/: three profiles that each change one thing about a
/// built-in, each with a scenario that plays it beside that built-in
/// (`compare BUILTIN,./X.profile`; plain `expect` lines check the what-if,
/// `expect on BUILTIN` lines the built-in). The tests read the profiles as the
/// command line does, relative to the scenario file, play each scenario on both
/// profiles, pin every request's whole history on both, and check that each
/// what-if differs from its base exactly where it says it does.
final class WhatIfTests: XCTestCase {
    static let dir = packageRoot + "/examples/what-if"
    /// Each what-if and the built-in it starts from.
    static let whatIfs = [
        "ios-jitter": "ios", "flutter-retry-429": "flutter", "linktrail-5-attempts": "linktrail",
        "posthog-retry-after": "ios", "modern-ios": "ios", "ios-retry-budget": "ios", "ios-throttle": "ios",
    ]
    /// A fifth SDK, a whole profile with no base, compared with `ios`.
    static let fifthSDK = "sentry-cocoa-draft"

    /// `./X.profile` is examples/what-if/X.profile (the scenario's folder), else a built-in.
    static let resolver = ProfileResolver { word in
        guard word.hasPrefix("./") && word.hasSuffix(".profile") else { return ProfileResolver.builtins.resolve(word) }
        let file = String(word.dropFirst(2))
        guard let text = try? String(contentsOfFile: dir + "/" + file, encoding: .utf8) else {
            return .failure(Problem("no file \(file) in examples/what-if"))
        }
        switch Profile.parse(text, file: file, path: dir + "/" + file) {
        case .success(let p): return .success(p)
        case .failure(let e): return .failure(Problem(e.errors.map(\.description).joined(separator: "; ")))
        }
    }

    /// A file here that does not parse: thrown, so the test fails saying why.
    struct BadInput: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    static func profile(_ name: String) throws -> Profile {
        try resolver.resolve("./\(name).profile").mapError { BadInput(message: $0.message) as Error }.get()
    }

    static func scenarioText(_ name: String) throws -> String {
        try String(contentsOfFile: dir + "/\(name).outbox", encoding: .utf8)
    }

    /// Plays examples/what-if/NAME.outbox on `profile` (a line replaced first, if
    /// asked) and fails the test for each check that does not hold.
    static func play(
        _ name: String, on profile: Profile, replacing: (String, String)? = nil, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> ScenarioRunner {
        var text = try scenarioText(name)
        if let (old, new) = replacing {
            XCTAssertTrue(text.contains(old), file: file, line: line)
            text = text.replacingOccurrences(of: old, with: new)
        }
        let sc: Scenario
        switch Scenario.parse(text, file: "\(name).outbox", playing: profile, profiles: resolver) {
        case .success(let s): sc = s
        case .failure(let e):
            throw BadInput(message: e.errors.map(\.description).joined(separator: "\n"))
        }
        return playParsed(sc, failing: "\(name) on \(profile.name), ", file: file, line: line).runner
    }

    /// Every request's transitions, by name: `<ms> <from>><to> #<attempt>[ <outcome>][ <reason>] <rule>`,
    /// the rule resolved through the profile that cited it.
    static func trails(_ sim: Simulation) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for id in 1...Int32(sim.requests.count) {
            out[sim.name(of: id)] = sim.history(of: id).map { trailLine($0, rule: sim.profile.rule($0.rule).id) }
        }
        return out
    }

    static func assertTrails(
        _ sim: Simulation, _ expected: [String: [String]], file: StaticString = #filePath, line: UInt = #line
    ) {
        let got = trails(sim)
        XCTAssertEqual(
            got.keys.sorted(), expected.keys.sorted(), "\(sim.profile.name): the requests", file: file, line: line)
        for (name, trail) in expected {
            XCTAssertEqual(got[name] ?? [], trail, "\(sim.profile.name): \(name)", file: file, line: line)
        }
    }

    // MARK: The folder

    func testTheFolderHoldsEachWhatIfWithItsScenarioAndAReadme() throws {
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: Self.dir))
        var expected: Set<String> = ["README.md"]
        for name in Self.whatIfs.keys + [Self.fifthSDK] { expected.formUnion(["\(name).profile", "\(name).outbox"]) }
        XCTAssertEqual(files, expected)
        let readme = try String(contentsOfFile: Self.dir + "/README.md", encoding: .utf8)
        for name in Self.whatIfs.keys + [Self.fifthSDK] {
            XCTAssertTrue(readme.contains("outbox run examples/what-if/\(name).outbox"), "README: how to run \(name)")
            XCTAssertTrue(
                readme.contains("outbox compare examples/what-if/\(name).outbox"), "README: how to compare \(name)")
        }
    }

    func testEveryWhatIfProfileParsesAndStartsFromItsBase() throws {
        for (name, base) in Self.whatIfs {
            let text = try String(contentsOfFile: Self.dir + "/\(name).profile", encoding: .utf8)
            let p = try Self.profile(name)
            XCTAssertEqual(p.name, name, "the file is named for its profile")
            XCTAssertFalse(p.isBuiltin)
            XCTAssertTrue(p.title.hasSuffix("(what-if)"), "\(name): its own title, not the base's: \(p.title)")
            XCTAssertTrue(text.contains("\nbase \(base)\n"), "\(name) starts from \(base)")
            XCTAssertTrue(text.hasPrefix("# "), "\(name).profile says what it asks")
            XCTAssertTrue(
                text.contains("outbox run examples/what-if/\(name).outbox"), "\(name).profile says how to try it")
        }
    }

    /// Each scenario compares its what-if with the built-in, explains itself,
    /// and every check holds on both profiles (plain lines on the what-if,
    /// `expect on` lines on the built-in).
    func testEveryScenarioPassesOnTheWhatIfAndOnItsBase() throws {
        for (name, baseName) in Self.whatIfs {
            let text = try Self.scenarioText(name)
            let sc = try Scenario.parse(text, file: "\(name).outbox", profiles: Self.resolver).get()
            let whatIf = try Self.profile(name)
            let base = try XCTUnwrap(Builtins.named(baseName))
            XCTAssertEqual(sc.profile, whatIf, "\(name): `profile ./\(name).profile`")
            XCTAssertEqual(sc.compareProfiles, [base, whatIf], "\(name): `compare \(baseName),./\(name).profile`")
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertTrue(lines.prefix { $0.hasPrefix("#") }.contains { $0.contains("What to watch") }, name)
            XCTAssertLessThanOrEqual(lines.count, 65, "\(name) is long for a demo")
            for p in [base, whatIf] {
                let runner = try Self.play(name, on: p)
                XCTAssertGreaterThanOrEqual(
                    runner.results.count, p == base ? 4 : 8, "\(name) on \(p.name) checks little")
            }
        }
    }

    /// The command line finds `./X.profile` beside the scenario: `outbox run`
    /// plays the what-if with every check holding, and `outbox compare` plays
    /// both, marking the requests they end differently.
    func testTheCommandLinePlaysAndComparesEachScenario() throws {
        let marked = [
            "ios-jitter": ["signup", "purchase", "home"], "flutter-retry-429": ["signup", "purchase", "level_up"],
            "linktrail-5-attempts": ["purchase"], "posthog-retry-after": ["purchase", "share"],
            "modern-ios": (0..<20).map { "e\($0)" } + ["o1", "o2"], "ios-retry-budget": ["c"], "ios-throttle": ["a"],
        ]
        for (name, base) in Self.whatIfs {
            let path = Self.dir + "/\(name).outbox"
            let (status, out, err) = cli(["run", "--quiet", path])
            XCTAssertEqual(status, 0, "\(name): \(err)")
            XCTAssertEqual(err, "", name)
            XCTAssertTrue(out.hasPrefix(path + ": ") && out.contains(" passed, 0 failed · "), out)
            let (cs, cout, cerr) = cli(["compare", path, "--width", "100"])
            XCTAssertEqual(cs, 0, "\(name): \(cerr)")
            XCTAssertTrue(cout.hasPrefix("== \(path): \(base), \(name)\n"), cout)
            let rows = cout.split(separator: "\n").filter { $0.hasPrefix("! ") }.map {
                $0.dropFirst(2).split(separator: " ")[0]
            }
            XCTAssertEqual(rows.map(String.init), marked[name], "\(name):\n\(cout)")
        }
    }

    // MARK: iOS with exponential backoff and full jitter

    static let iosLadder: [String: [String]] = [
        "signup": [
            "2000 new>pending #0 IOS-1",
            "2000 pending>in-flight #1 IOS-2",
            "2200 in-flight>retrying #1 503 IOS-4",
            "32200 retrying>in-flight #2 IOS-4",
            "32400 in-flight>retrying #2 503 IOS-4",
            "92400 retrying>in-flight #3 IOS-4",
            "92600 in-flight>delivered #3 200 IOS-3",
        ],
        "purchase": [
            "2000 new>pending #0 IOS-1",
            "2000 pending>in-flight #1 IOS-2",
            "2200 in-flight>retrying #1 503 IOS-4",
            "32200 retrying>in-flight #2 IOS-4",
            "32400 in-flight>retrying #2 503 IOS-4",
            "92400 retrying>in-flight #3 IOS-4",
            "92600 in-flight>delivered #3 200 IOS-3",
        ],
        "home": [
            "2000 new>pending #0 IOS-1",
            "2000 pending>in-flight #1 IOS-2",
            "2200 in-flight>retrying #1 503 IOS-4",
            "32200 retrying>in-flight #2 IOS-4",
            "32400 in-flight>retrying #2 503 IOS-4",
            "92400 retrying>in-flight #3 IOS-4",
            "92600 in-flight>delivered #3 200 IOS-3",
        ],
    ]

    static let iosJitter: [String: [String]] = [
        "signup": [
            "2000 new>pending #0 IOS-1",
            "2000 pending>in-flight #1 IOS-2",
            "2200 in-flight>retrying #1 503 IOSJ-4",
            "2387 retrying>in-flight #2 IOSJ-4",
            "2587 in-flight>retrying #2 503 IOSJ-4",
            "3640 retrying>in-flight #3 IOSJ-4",
            "3840 in-flight>retrying #3 503 IOSJ-4",
            "6893 retrying>in-flight #4 IOSJ-4",
            "7093 in-flight>retrying #4 503 IOSJ-4",
            "8021 retrying>in-flight #5 IOSJ-4",
            "8221 in-flight>retrying #5 503 IOSJ-4",
            "23024 retrying>in-flight #6 IOSJ-4",
            "23224 in-flight>retrying #6 503 IOSJ-4",
            "32360 retrying>in-flight #7 IOSJ-4",
            "32560 in-flight>retrying #7 503 IOSJ-4",
            "58299 retrying>in-flight #8 IOSJ-4",
            "58499 in-flight>delivered #8 200 IOS-3",
        ],
        "purchase": [
            "2000 new>pending #0 IOS-1",
            "2000 pending>in-flight #1 IOS-2",
            "2200 in-flight>retrying #1 503 IOSJ-4",
            "2558 retrying>in-flight #2 IOSJ-4",
            "2758 in-flight>retrying #2 503 IOSJ-4",
            "3951 retrying>in-flight #3 IOSJ-4",
            "4151 in-flight>retrying #3 503 IOSJ-4",
            "6682 retrying>in-flight #4 IOSJ-4",
            "6882 in-flight>retrying #4 503 IOSJ-4",
            "10011 retrying>in-flight #5 IOSJ-4",
            "10211 in-flight>retrying #5 503 IOSJ-4",
            "23120 retrying>in-flight #6 IOSJ-4",
            "23320 in-flight>retrying #6 503 IOSJ-4",
            "43753 retrying>in-flight #7 IOSJ-4",
            "43953 in-flight>delivered #7 200 IOS-3",
        ],
        "home": [
            "2000 new>pending #0 IOS-1",
            "2000 pending>in-flight #1 IOS-2",
            "2200 in-flight>retrying #1 503 IOSJ-4",
            "2847 retrying>in-flight #2 IOSJ-4",
            "3047 in-flight>retrying #2 503 IOSJ-4",
            "3430 retrying>in-flight #3 IOSJ-4",
            "3630 in-flight>retrying #3 503 IOSJ-4",
            "6576 retrying>in-flight #4 IOSJ-4",
            "6776 in-flight>retrying #4 503 IOSJ-4",
            "10643 retrying>in-flight #5 IOSJ-4",
            "10843 in-flight>retrying #5 503 IOSJ-4",
            "25976 retrying>in-flight #6 IOSJ-4",
            "26176 in-flight>retrying #6 503 IOSJ-4",
            "44554 retrying>in-flight #7 IOSJ-4",
            "44754 in-flight>delivered #7 200 IOS-3",
        ],
    ]

    func testIOSJitterScenarioHistoriesOnBothProfiles() throws {
        Self.assertTrails(try Self.play("ios-jitter", on: .ios).sim, Self.iosLadder)
        Self.assertTrails(try Self.play("ios-jitter", on: Self.profile("ios-jitter")).sim, Self.iosJitter)
    }

    /// The waits between a failed attempt and the next: on the ladder exactly
    /// 30s then 60s, the three requests together; with full jitter each within
    /// [0, 1s·2^(n-1)] (capped at 32s), each request its own, none equal to the delay.
    func testIOSJitterWaitsAreDrawnWithinTheDoublingDelays() throws {
        func waits(_ sim: Simulation) -> [String: [Millis]] {
            var out: [String: [Millis]] = [:]
            for id in 1...Int32(sim.requests.count) {
                var failedAt: Millis?
                for t in sim.history(of: id) {
                    if t.to == .retrying { failedAt = t.time }
                    if t.from == .retrying, t.to == .inFlight, let f = failedAt {
                        out[sim.name(of: id), default: []].append(t.time - f)
                    }
                }
            }
            return out
        }
        let ladder = waits(try Self.play("ios-jitter", on: .ios).sim)
        XCTAssertEqual(ladder, ["signup": [30_000, 60_000], "purchase": [30_000, 60_000], "home": [30_000, 60_000]])
        for seed in ["1", "2", "3"] {
            let p = try Self.profile("ios-jitter")
            // Other seeds draw other waits, with other times for the checks: only the waits matter here.
            let text = try Self.scenarioText("ios-jitter").split(separator: "\n").filter { !$0.hasPrefix("expect") }
                .joined(separator: "\n").replacingOccurrences(
                    of: "\nat 0 launch", with: "\nset seed \(seed)\nat 0 launch")
            var runner = ScenarioRunner(
                try Scenario.parse(text, file: "x.outbox", playing: p, profiles: Self.resolver).get())
            runner.run { _, _ in }
            let jittered = waits(runner.sim)
            XCTAssertEqual(jittered.keys.sorted(), ["home", "purchase", "signup"], "seed \(seed)")
            for (name, ws) in jittered {
                XCTAssertTrue(
                    (1...7).contains(ws.count), "seed \(seed): \(name) waited \(ws.count) times, 8 attempts allow 7")
                for (n, w) in ws.enumerated() {
                    let delay = Millis(1000 << min(n, 5))
                    XCTAssertTrue(
                        (0...delay).contains(w),
                        "seed \(seed): \(name)'s wait \(n + 1) is \(w), not within 0...\(delay)")
                    XCTAssertNotEqual(w, delay, "seed \(seed): \(name)'s wait \(n + 1) is not jittered")
                }
            }
            XCTAssertNotEqual(jittered["signup"], jittered["purchase"], "seed \(seed): each request draws its own")
            if seed == "1" {
                XCTAssertEqual(jittered["signup"], [187, 1053, 3053, 928, 14803, 9136, 25739])
            }
        }
    }

    // MARK: Flutter that retries 429

    static let flutter: [String: [String]] = [
        "signup": [
            "1000 new>pending #0 FL-1",
            "1000 pending>in-flight #1 FL-1",
            "1200 in-flight>dropped #1 429 rejected FL-3",
        ],
        "purchase": [
            "30000 new>pending #0 FL-1",
            "30000 pending>in-flight #1 FL-1",
            "30200 in-flight>dropped #1 429 rejected FL-3",
        ],
        "share": [
            "60000 new>pending #0 FL-1",
            "60000 pending>in-flight #1 FL-1",
            "60200 in-flight>dropped #1 503 not-saved FL-3",
        ],
        "level_up": [
            "65000 new>pending #0 FL-1",
            "65000 pending>in-flight #1 FL-1",
            "65200 in-flight>dropped #1 429 rejected FL-3",
        ],
    ]

    static let flutterRetry429: [String: [String]] = [
        "signup": [
            "1000 new>pending #0 FL-1",
            "1000 pending>in-flight #1 FL-1",
            "1200 in-flight>retrying #1 429 FLR-1",
            "6200 retrying>in-flight #2 FLR-1",
            "6400 in-flight>retrying #2 429 FLR-1",
            "16400 retrying>in-flight #3 FLR-1",
            "16600 in-flight>delivered #3 200 FL-1",
        ],
        "purchase": [
            "30000 new>pending #0 FL-1",
            "30000 pending>in-flight #1 FL-1",
            "30200 in-flight>retrying #1 429 FLR-1",
            "35200 retrying>in-flight #2 FLR-1",
            "35400 in-flight>retrying #2 429 FLR-1",
            "45400 retrying>in-flight #3 FLR-1",
            "45600 in-flight>queued #3 429 FLR-2",
            "80000 queued>in-flight #4 FL-4",
            "80200 in-flight>delivered #4 200 FL-4",
        ],
        "share": [
            "60000 new>pending #0 FL-1",
            "60000 pending>in-flight #1 FL-1",
            "60200 in-flight>dropped #1 503 not-saved FL-3",
        ],
        "level_up": [
            "65000 new>pending #0 FL-1",
            "65000 pending>in-flight #1 FL-1",
            "65200 in-flight>retrying #1 429 FLR-1",
            "70000 retrying>dropped #1 not-saved FL-2",
        ],
    ]

    func testFlutterRetry429ScenarioHistoriesOnBothProfiles() throws {
        Self.assertTrails(try Self.play("flutter-retry-429", on: .flutter).sim, Self.flutter)
        Self.assertTrails(
            try Self.play("flutter-retry-429", on: Self.profile("flutter-retry-429")).sim, Self.flutterRetry429)
    }

    // MARK: LinkTrail with 5 attempts

    static let linktrail: [String: [String]] = [
        "install": [
            "0 new>pending #0 LT-3",
            "0 pending>in-flight #1 LT-3",
            "200 in-flight>delivered #1 200 LT-4",
        ],
        "purchase": [
            "3000 new>pending #0 LT-1a",
            "3000 pending>in-flight #1 LT-4",
            "3000 in-flight>retrying #1 offline LT-4",
            "5000 retrying>in-flight #2 LT-4",
            "5000 in-flight>retrying #2 offline LT-4",
            "9000 retrying>in-flight #3 LT-4",
            "9000 in-flight>queued #3 offline LT-5",
            "20200 queued>in-flight #4 LT-11",
            "20400 in-flight>delivered #4 200 LT-11",
        ],
        "share": [
            "20000 new>pending #0 LT-1a",
            "20000 pending>in-flight #1 LT-4",
            "20200 in-flight>delivered #1 200 LT-4",
        ],
    ]

    static let linktrail5: [String: [String]] = [
        "install": [
            "0 new>pending #0 LT-3",
            "0 pending>in-flight #1 LT-3",
            "200 in-flight>delivered #1 200 LT-4",
        ],
        "purchase": [
            "3000 new>pending #0 LT-1a",
            "3000 pending>in-flight #1 LT-4",
            "3000 in-flight>retrying #1 offline LT-4",
            "5000 retrying>in-flight #2 LT-4",
            "5000 in-flight>retrying #2 offline LT-4",
            "9000 retrying>in-flight #3 LT-4",
            "9000 in-flight>retrying #3 offline LT-4",
            "13000 retrying>in-flight #4 LT-4",
            "13000 in-flight>retrying #4 offline LT-4",
            "17000 retrying>in-flight #5 LT-4",
            "17200 in-flight>delivered #5 200 LT-4",
        ],
        "share": [
            "20000 new>pending #0 LT-1a",
            "20000 pending>in-flight #1 LT-4",
            "20200 in-flight>delivered #1 200 LT-4",
        ],
    ]

    func testLinkTrail5AttemptsScenarioHistoriesOnBothProfiles() throws {
        let builtin = try Self.play("linktrail-5-attempts", on: .linktrail)
        Self.assertTrails(builtin.sim, Self.linktrail)
        XCTAssertEqual(
            RuleTestKit.logs(builtin.sim, containing: "onError"),
            ["9000 [LT-5] onError: 'purchase' failed (offline) after 3 attempts; kept in the offline queue"])
        let five = try Self.play("linktrail-5-attempts", on: Self.profile("linktrail-5-attempts"))
        Self.assertTrails(five.sim, Self.linktrail5)
        XCTAssertEqual(RuleTestKit.logs(five.sim, containing: "onError"), [])
    }

    // MARK: Each differs from its base where it says, and nowhere else

    /// What each answer class does: `<outcome> <action> <rule>` for every status and transport outcome.
    static func answers(_ p: Profile) -> [String: String] {
        var out: [String: String] = [:]
        func describe(_ r: Response) -> String {
            let a: String
            switch r.action {
            case .deliver: a = "deliver"
            case .retry: a = "retry"
            case .queue: a = "queue"
            case .stall: a = "stall"
            case .drop(let why): a = "drop " + why.word
            }
            return a + " " + p.rule(r.rule).id + (r.whenSaved.map { " when-saved " + p.rule($0).id } ?? "")
        }
        for s in 100...599 { out[String(s)] = describe(p.spec.response(.http(s), planned: .status(s))) }
        out["timeout"] = describe(p.spec.response(.timeout, planned: .timeout))
        out["lost"] = describe(p.spec.response(.timeout, planned: .lost))
        out["offline"] = describe(p.spec.response(.offline, planned: .ok))
        out["network-lost"] = describe(p.spec.response(.networkLost, planned: .ok))
        out["partial"] = describe(p.spec.response(.partial, planned: .partial))
        out["exhausted"] = p.spec.exhausted.map(describe) ?? "none"
        return out
    }

    /// The classes whose answer differs, with the base's and the what-if's.
    static func differences(_ whatIf: Profile, _ base: Profile) -> [String: String] {
        let (w, b) = (answers(whatIf), answers(base))
        var out: [String: String] = [:]
        for (k, v) in w where b[k] != v { out[k] = "\(b[k]!) → \(v)" }
        return out
    }

    /// Everything but the answers, the settings, the name, title and own rules: the same as the base.
    static func assertSameBesidesAnswersAndSettings(_ w: Profile, _ b: Profile, line: UInt = #line) {
        XCTAssertEqual(w.spec.kinds, b.spec.kinds, line: line)
        XCTAssertEqual(w.spec.policy.directKinds, b.spec.policy.directKinds, line: line)
        XCTAssertEqual(w.spec.policy.directRule, b.spec.policy.directRule, line: line)
        XCTAssertEqual(w.spec.policy.gate, b.spec.policy.gate, line: line)
        XCTAssertEqual(w.spec.policy.flush, b.spec.policy.flush, line: line)
        XCTAssertEqual(w.spec.policy.keysRule, b.spec.policy.keysRule, line: line)
        XCTAssertEqual(w.spec.policy.save, b.spec.policy.save, line: line)
        XCTAssertEqual(w.spec.policy.createdRule, b.spec.policy.createdRule, line: line)
        XCTAssertEqual(w.spec.policy.sendRule, b.spec.policy.sendRule, line: line)
        XCTAssertEqual(w.spec.policy.offline, b.spec.policy.offline, line: line)
        XCTAssertEqual(w.spec.policy.survivesRule, b.spec.policy.survivesRule, line: line)
        XCTAssertEqual(w.spec.policy.resendLaunch, b.spec.policy.resendLaunch, line: line)
        XCTAssertEqual(w.spec.policy.resendNetwork, b.spec.policy.resendNetwork, line: line)
        XCTAssertEqual(w.spec.policy.resendGetInstance, b.spec.policy.resendGetInstance, line: line)
        XCTAssertEqual(w.spec.policy.report, b.spec.policy.report, line: line)
        XCTAssertEqual(w.spec.texts, b.spec.texts, line: line)
        // The base's rules, unchanged, then the what-if's own.
        XCTAssertEqual(Array(w.ownRules.prefix(b.ownRules.count)), b.ownRules, line: line)
        for r in b.ownRules + Rules.shared { XCTAssertEqual(w.rule(r), b.rule(r), line: line) }
    }

    func testIOSJitterDiffersFromIOSInItsWaitsAndRulesOnly() throws {
        let (w, b) = (try Self.profile("ios-jitter"), Profile.ios)
        Self.assertSameBesidesAnswersAndSettings(w, b)
        XCTAssertEqual(w.ownRules.dropFirst(b.ownRules.count).map { w.rule($0).id }, ["IOSJ-4"])
        // The same actions; the retried classes cite IOSJ-4 instead of IOS-4.
        var expected: [String: String] = [:]
        for s in 500...599 { expected[String(s)] = "retry IOS-4 → retry IOSJ-4" }
        for k in ["timeout", "lost", "offline", "network-lost"] { expected[k] = "retry IOS-4 → retry IOSJ-4" }
        expected["exhausted"] = "drop exhausted IOS-4 → drop exhausted IOSJ-4"
        XCTAssertEqual(Self.differences(w, b), expected)
        var settings = Settings(profile: b)
        settings.retryAttempts = 8
        settings.retryDelays = [1000, 2000, 4000, 8000, 16000, 32000]
        settings.retryJitter = .full
        XCTAssertEqual(Settings(profile: w), settings)
    }

    func testFlutterRetry429DiffersFromFlutterIn429Only() throws {
        let (w, b) = (try Self.profile("flutter-retry-429"), Profile.flutter)
        Self.assertSameBesidesAnswersAndSettings(w, b)
        XCTAssertEqual(w.ownRules.dropFirst(b.ownRules.count).map { w.rule($0).id }, ["FLR-1", "FLR-2"])
        XCTAssertEqual(
            Self.differences(w, b),
            ["429": "drop rejected FL-3 → retry FLR-1", "exhausted": "none → queue FLR-2"])
        XCTAssertFalse(b.retries)
        XCTAssertTrue(w.retries)
        // Retries bring the retry settings; nothing else changes.
        var settings = Settings(profile: b)
        settings.retryAttempts = 3
        settings.retryDelays = [5000, 10000]
        XCTAssertEqual(Settings(profile: w), settings)
        XCTAssertEqual(
            Settings.keys(on: w).map(\.name),
            ["retry.attempts", "retry.delays", "retry.jitter", "latency", "latency.jitter", "timeout", "seed"])
    }

    func testLinkTrail5AttemptsDiffersFromLinkTrailInItsBudgetOnly() throws {
        let (w, b) = (try Self.profile("linktrail-5-attempts"), Profile.linktrail)
        Self.assertSameBesidesAnswersAndSettings(w, b)
        XCTAssertEqual(w.ownRules, b.ownRules, "no rules of its own")
        XCTAssertEqual(Self.differences(w, b), [:])
        var settings = Settings(profile: b)
        settings.retryAttempts = 5
        XCTAssertEqual(Settings(profile: w), settings)
    }

    // MARK: iOS with PostHog iOS's backoff and its Retry-After floor

    static let iosRetryAfter: [String: [String]] = [
        "purchase": [
            "1000 new>pending #0 IOS-1",
            "1000 pending>in-flight #1 IOS-2",
            "1200 in-flight>dropped #1 429 rejected IOS-3",
        ],
        "share": [
            "20000 new>pending #0 IOS-1",
            "20000 pending>in-flight #1 IOS-2",
            "20200 in-flight>retrying #1 503 IOS-4",
            "50200 retrying>in-flight #2 IOS-4",
            "50400 in-flight>delivered #2 200 IOS-3",
        ],
        "home": [
            "40000 new>pending #0 IOS-1",
            "40000 pending>in-flight #1 IOS-2",
            "40200 in-flight>retrying #1 503 IOS-4",
            "70200 retrying>in-flight #2 IOS-4",
            "70400 in-flight>delivered #2 200 IOS-3",
        ],
    ]

    static let postHogRetryAfter: [String: [String]] = [
        "purchase": [
            "1000 new>pending #0 IOS-1",
            "1000 pending>in-flight #1 IOS-2",
            "1200 in-flight>retrying #1 429 PHR-2",
            "6200 retrying>in-flight #2 PHR-2",
            "6400 in-flight>retrying #2 429 PHR-2",
            "11400 retrying>in-flight #3 PHR-2",
            "11600 in-flight>delivered #3 200 IOS-3",
        ],
        "share": [
            "20000 new>pending #0 IOS-1",
            "20000 pending>in-flight #1 IOS-2",
            "20200 in-flight>retrying #1 503 PHR-2",
            "22200 retrying>in-flight #2 PHR-2",
            "22400 in-flight>retrying #2 503 IOS-4",
            "24400 retrying>in-flight #3 IOS-4",
            "24600 in-flight>retrying #3 503 IOS-4",
            "27600 retrying>in-flight #4 IOS-4",
            "27800 in-flight>delivered #4 200 IOS-3",
        ],
        "home": [
            "40000 new>pending #0 IOS-1",
            "40000 pending>in-flight #1 IOS-2",
            "40200 in-flight>retrying #1 503 IOS-4",
            "41200 retrying>in-flight #2 IOS-4",
            "41400 in-flight>delivered #2 200 IOS-3",
        ],
    ]

    func testPostHogRetryAfterScenarioHistoriesOnBothProfiles() throws {
        Self.assertTrails(try Self.play("posthog-retry-after", on: .ios).sim, Self.iosRetryAfter)
        let w = try Self.play("posthog-retry-after", on: Self.profile("posthog-retry-after")).sim
        Self.assertTrails(w, Self.postHogRetryAfter)
        // The headers the timelines show.
        XCTAssertEqual(w.retryAfterHeader(1, attempt: 2), 5000)
        XCTAssertEqual(w.retryAfterHeader(3, attempt: 1), nil)
    }

    func testPostHogRetryAfterDiffersFromIOSIn429ItsBackoffAndRetryAfterOnly() throws {
        let (w, b) = (try Self.profile("posthog-retry-after"), Profile.ios)
        Self.assertSameBesidesAnswersAndSettings(w, b)
        XCTAssertEqual(w.ownRules.dropFirst(b.ownRules.count).map { w.rule($0).id }, ["PHR-1", "PHR-2", "PHR-3"])
        XCTAssertEqual(Self.differences(w, b), ["429": "drop rejected IOS-3 → retry PHR-1"])
        XCTAssertNil(b.spec.policy.retryAfter)
        XCTAssertEqual(w.spec.policy.retryAfter?.mode, .floor)
        XCTAssertEqual(w.rule(w.spec.policy.retryAfter!.rule).id, "PHR-2")
        var settings = Settings(profile: b)
        settings.backoff = .linear(step: 1000)
        settings.retryCap = 30_000
        XCTAssertEqual(Settings(profile: w), settings)
    }

    // MARK: iOS with a modern SDK's delivery policy

    /// The policy issue 24 set out to make sayable, one file with no Swift:
    /// batches of 20 or every 30 s, exponential 1 s x 2^n to 5 min with full
    /// jitter, Retry-After honoured, at most 1000 kept, a flush on background.
    func testModernIOSScenarioHistoriesOnBothProfiles() throws {
        let ios = Self.trails(try Self.play("modern-ios", on: .ios).sim)
        XCTAssertEqual(
            ios["e0"],
            [
                "1000 new>pending #0 IOS-1", "1000 pending>in-flight #1 IOS-2",
                "1200 in-flight>dropped #1 429 rejected IOS-3",
            ])
        XCTAssertEqual(
            ios["e19"],
            ["2900 new>pending #0 IOS-1", "2900 pending>in-flight #1 IOS-2", "3100 in-flight>delivered #1 200 IOS-3"])
        let w = try Self.play("modern-ios", on: Self.profile("modern-ios")).sim
        let m = Self.trails(w)
        XCTAssertEqual(
            m["e0"],
            [
                "1000 new>pending #0 IOS-1", "2900 pending>in-flight #1 MOD-1", "3100 in-flight>retrying #1 429 MOD-3",
                "23100 retrying>in-flight #2 MOD-3", "23300 in-flight>delivered #2 200 IOS-3",
            ])
        // The whole batch shares e0's times from its send on.
        for i in 1..<20 { XCTAssertEqual(m["e\(i)"]?.dropFirst(), m["e0"]?.dropFirst(), "e\(i)") }
        XCTAssertEqual(
            m["o1"],
            [
                "60000 new>pending #0 IOS-1", "90000 pending>in-flight #1 MOD-1",
                "90200 in-flight>retrying #1 503 MOD-2",
                "90453 retrying>in-flight #2 MOD-2", "90653 in-flight>retrying #2 503 MOD-2",
                "92526 retrying>in-flight #3 MOD-2", "92726 in-flight>retrying #3 503 MOD-2",
                "95941 retrying>in-flight #4 MOD-2", "96141 in-flight>delivered #4 200 IOS-3",
            ])
        XCTAssertEqual(
            m["late"],
            [
                "180000 new>pending #0 IOS-1", "185000 pending>in-flight #1 MOD-5",
                "185200 in-flight>delivered #1 200 IOS-3",
            ])
        // Three batches made; seven arrivals (batch 1 twice, batch 2 four times, batch 3 once).
        XCTAssertEqual(w.batchCount, 3)
        XCTAssertEqual(w.backend.batches, 7)
        let p = try Self.profile("modern-ios")
        XCTAssertEqual(p.spec.policy.batch?.most, 20)
        XCTAssertEqual(p.spec.policy.capacity?.most, 1000)
        XCTAssertEqual(p.spec.policy.retryAfter?.mode, .floor)
        XCTAssertTrue(p.hasLifecycle)
    }

    // MARK: iOS with a retry budget (issue 26)

    /// The outage's three requests on both: on ios all are retried; with the
    /// budget the third finds 0.6 of a token and is dropped `retry-budget`.
    func testIOSRetryBudgetScenarioHistoriesOnBothProfiles() throws {
        let ios = Self.trails(try Self.play("ios-retry-budget", on: .ios).sim)
        let w = try Self.play("ios-retry-budget", on: Self.profile("ios-retry-budget")).sim
        let budget = Self.trails(w)
        for name in ["a", "b", "c"] {
            XCTAssertEqual(
                ios[name],
                [
                    "21000 new>pending #0 IOS-1", "21000 pending>in-flight #1 IOS-2",
                    "21200 in-flight>retrying #1 503 IOS-4", "51200 retrying>in-flight #2 IOS-4",
                    "51400 in-flight>delivered #2 200 IOS-3",
                ], name)
        }
        XCTAssertEqual(budget["a"], ios["a"])
        XCTAssertEqual(budget["b"], ios["b"])
        XCTAssertEqual(
            budget["c"],
            [
                "21000 new>pending #0 IOS-1", "21000 pending>in-flight #1 IOS-2",
                "21200 in-flight>dropped #1 503 retry-budget IOSB-1",
            ])
        for i in 1...10 { XCTAssertEqual(budget["e\(i)"], ios["e\(i)"], "e\(i)") }
        XCTAssertEqual(w.retryBudgetTokens, 0.6, "a's and b's retries took two of the 2.6 tokens")
        XCTAssertTrue(
            UserProfileKit.logs(w).contains(
                "21200 [IOSB-1] retry budget empty: #13 'c' is not retried after 503 (0.6 of the 1 token a retry takes; 20% of first attempts, at most 5)"
            ), UserProfileKit.logs(w).joined(separator: "\n"))
    }

    /// A what-if of ios that adds one statement citing one rule of its own:
    /// the same answers, settings and everything else.
    static func sameAsIOSButOneStatement(_ name: String, rule: String, line: UInt = #line) throws -> Profile {
        let (w, b) = (try profile(name), Profile.ios)
        assertSameBesidesAnswersAndSettings(w, b, line: line)
        XCTAssertEqual(w.ownRules.dropFirst(b.ownRules.count).map { w.rule($0).id }, [rule], line: line)
        XCTAssertEqual(differences(w, b), [:], line: line)
        XCTAssertEqual(Settings(profile: w), Settings(profile: b), line: line)
        XCTAssertNil(b.spec.policy.retryBudget, line: line)
        XCTAssertNil(b.spec.policy.throttle, line: line)
        return w
    }

    func testIOSRetryBudgetDiffersFromIOSInItsBudgetOnly() throws {
        let w = try Self.sameAsIOSButOneStatement("ios-retry-budget", rule: "IOSB-1")
        XCTAssertEqual(w.spec.policy.retryBudget, RetryBudgetRule(deposit: 2000, bucket: 5, rule: w.rule(id: "IOSB-1")!))
        XCTAssertNil(w.spec.policy.throttle)
    }

    // MARK: iOS with client-side adaptive throttling (issue 26)

    func testIOSThrottleScenarioHistoriesOnBothProfiles() throws {
        let ios = Self.trails(try Self.play("ios-throttle", on: .ios).sim)
        let w = try Self.play("ios-throttle", on: Self.profile("ios-throttle")).sim
        let th = Self.trails(w)
        XCTAssertEqual(
            ios["a"],
            [
                "11000 new>pending #0 IOS-1", "11000 pending>in-flight #1 IOS-2", "11200 in-flight>retrying #1 503 IOS-4",
                "41200 retrying>in-flight #2 IOS-4", "41400 in-flight>retrying #2 503 IOS-4",
                "101400 retrying>in-flight #3 IOS-4", "101600 in-flight>delivered #3 200 IOS-3",
            ])
        XCTAssertEqual(
            th["a"],
            [
                "11000 new>pending #0 IOS-1", "11000 pending>in-flight #1 IOS-2", "11200 in-flight>retrying #1 503 IOS-4",
                "41200 retrying>in-flight #2 IOS-4", "41400 in-flight>retrying #2 503 IOS-4",
                "101400 retrying>in-flight #3 IOS-4", "101400 in-flight>retrying #3 throttled IOST-1",
                "221400 retrying>in-flight #4 IOST-1", "221600 in-flight>delivered #4 200 IOS-3",
            ])
        XCTAssertEqual(
            th["f"],
            [
                "16000 new>pending #0 IOS-1", "16000 pending>in-flight #1 IOS-2",
                "16000 in-flight>retrying #1 throttled IOST-1", "46000 retrying>in-flight #2 IOST-1",
                "46000 in-flight>retrying #2 throttled IOST-1", "106000 retrying>in-flight #3 IOST-1",
                "106200 in-flight>delivered #3 200 IOS-3",
            ])
        XCTAssertEqual(th["h"], ios["h"], "h was never throttled")
        XCTAssertEqual(
            UserProfileKit.logs(w).filter { $0.contains("[IOST-1]") }.map { $0.split(separator: "(")[0] },
            [
                "16000 [IOST-1] throttled: #9 'f' not sent, rejected on the device with probability 0.222 ",
                "44200 [IOST-1] throttled: #7 'd' not sent, rejected on the device with probability 0.533 ",
                "45200 [IOST-1] throttled: #8 'e' not sent, rejected on the device with probability 0.563 ",
                "46000 [IOST-1] throttled: #9 'f' not sent, rejected on the device with probability 0.588 ",
                "47200 [IOST-1] throttled: #10 'g' not sent, rejected on the device with probability 0.611 ",
                "101400 [IOST-1] throttled: #4 'a' not sent, rejected on the device with probability 0.650 ",
            ])
        XCTAssertEqual(w.sends, 22, "6 of 28 attempts never left the device")
        XCTAssertEqual(w.backend.received, 22)
    }

    func testIOSThrottleDiffersFromIOSInItsThrottleOnly() throws {
        let w = try Self.sameAsIOSButOneStatement("ios-throttle", rule: "IOST-1")
        XCTAssertEqual(w.spec.policy.throttle, ThrottleRule(k100: 200, window: 120_000, rule: w.rule(id: "IOST-1")!))
        XCTAssertNil(w.spec.policy.retryBudget)
    }

    // MARK: A fifth SDK: Sentry Cocoa, a profile file and nothing else

    /// The profile is a whole SDK (no `base`), read from the SDK's source: its
    /// rules cite the source, and its own call and kind come from its `call`
    /// line, known to it alone.
    func testTheFifthSDKIsAWholeProfileWithItsOwnCallAndKind() throws {
        let text = try String(contentsOfFile: Self.dir + "/\(Self.fifthSDK).profile", encoding: .utf8)
        XCTAssertFalse(text.contains("\nbase "), "a whole SDK, not a variant")
        XCTAssertTrue(text.contains("outbox run examples/what-if/\(Self.fifthSDK).outbox"))
        let p = try Self.profile(Self.fifthSDK)
        XCTAssertEqual(p.name, "sentry-cocoa-draft")
        XCTAssertEqual(p.title, "Sentry Cocoa SDK c34c99b, without rate limits or the cache cap (what-if)")
        XCTAssertFalse(p.isBuiltin)
        let capture = try XCTUnwrap(p.vocabulary.call("capture"))
        XCTAssertTrue(capture.takesName)
        XCTAssertEqual(capture.madeWords, ["error"])
        XCTAssertNil(Profile.ios.vocabulary.call("capture"), "ios knows nothing of Sentry's call")
        XCTAssertNil(Profile.ios.vocabulary.kind("error"))
        let own = p.ownRules.map(p.rule)
        XCTAssertEqual(own.map(\.id), (1...8).map { "SEN-\($0)" })
        XCTAssertEqual(own.filter(\.isAssumption).map(\.id), ["SEN-6", "SEN-7", "SEN-8"])
        XCTAssertTrue(
            own.filter { !$0.isAssumption }.allSatisfy {
                $0.text.contains("SentryHttpTransport.m") || $0.text.contains("sentry-cocoa@c34c99b")
            }, "the source is cited")
    }

    static let sentryOnIOS: [String: [String]] = [
        "cart": [
            "6000 new>queued #0 IOS-5",
            "9000 queued>in-flight #1 IOS-5",
            "9200 in-flight>delivered #1 200 IOS-3",
        ],
        "checkout": [
            "12000 new>pending #0 IOS-1",
            "12000 pending>in-flight #1 IOS-2",
            "22000 in-flight>retrying #1 timeout IOS-4",
            "30000 retrying>queued #1 IOS-6",
            "40000 queued>in-flight #2 IOS-6",
            "40200 in-flight>delivered #2 200 IOS-3",
        ],
        "purchase": [
            "2000 new>pending #0 IOS-1",
            "2000 pending>in-flight #1 IOS-2",
            "2200 in-flight>retrying #1 503 IOS-4",
            "30000 retrying>queued #1 IOS-6",
            "40000 queued>in-flight #2 IOS-6",
            "40200 in-flight>delivered #2 200 IOS-3",
        ],
        "signup": [
            "1000 new>pending #0 IOS-1",
            "1000 pending>in-flight #1 IOS-2",
            "1200 in-flight>delivered #1 200 IOS-3",
        ],
    ]
    static let sentry: [String: [String]] = [
        "cart": [
            "6000 new>pending #0 SEN-1",
            "6000 pending>in-flight #1 SEN-1",
            "6000 in-flight>queued #1 offline SEN-6",
            "9000 queued>in-flight #2 SEN-4",
            "9200 in-flight>delivered #2 200 SEN-2",
        ],
        "checkout": [
            "12000 new>pending #0 SEN-1",
            "12000 pending>in-flight #1 SEN-1",
            "22000 in-flight>queued #1 timeout SEN-3",
            "40000 queued>in-flight #2 SEN-5",
            "40200 in-flight>delivered #2 200 SEN-2",
        ],
        "crash": [
            "3000 new>pending #0 SEN-1",
            "3000 pending>in-flight #1 SEN-1",
            "3200 in-flight>delivered #1 200 SEN-2",
        ],
        "purchase": [
            "2000 new>pending #0 SEN-1",
            "2000 pending>in-flight #1 SEN-1",
            "2200 in-flight>dropped #1 503 rejected SEN-2",
        ],
        "signup": [
            "1000 new>pending #0 SEN-1",
            "1000 pending>in-flight #1 SEN-1",
            "1200 in-flight>delivered #1 200 SEN-2",
        ],
    ]

    /// Every request's whole history on both: Sentry deletes on any answer and
    /// keeps only what got none; ios retries the 503 and holds while offline.
    func testSentryScenarioHistoriesOnBothProfiles() throws {
        Self.assertTrails(try Self.play(Self.fifthSDK, on: .ios).sim, Self.sentryOnIOS)
        Self.assertTrails(try Self.play(Self.fifthSDK, on: Self.profile(Self.fifthSDK)).sim, Self.sentry)
    }

    /// `outbox run` plays it with every check holding; `outbox compare` skips
    /// Sentry's own call on ios (a line the profile lacks, not bad input).
    func testTheCommandLinePlaysTheFifthSDKAndSkipsItsCallOnIOS() throws {
        let path = Self.dir + "/\(Self.fifthSDK).outbox"
        let (status, out, err) = cli(["run", "--quiet", path])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(out, path + ": 12 passed, 0 failed · 19 transitions · ended at 00:00:40.200\n")
        let (cs, cout, cerr) = cli(["compare", path, "--width", "80"])
        XCTAssertEqual(cs, 0, cerr)
        XCTAssertTrue(
            cout.hasPrefix(
                "== \(path): ios, sentry-cocoa-draft\n" + "skipped \(path):20 `at 3s capture crash` on ios:\n"
                    + "  the profile has no capture call\n"), cout)
        let rows = cout.split(separator: "\n").filter { $0.hasPrefix("! ") }.map {
            String($0.dropFirst(2).split(separator: " ")[0])
        }
        XCTAssertEqual(rows, ["purchase", "crash", "cart"], cout)
        XCTAssertTrue(
            cout.hasSuffix(
                "sentry-cocoa-draft  4 deliv 1 drop · 7 att · 6 rcvd 5 cntd · 12/12 checks · end 00:00:40.200\n"),
            cout)
    }
}
