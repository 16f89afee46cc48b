import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// Profiles are files (issue 13): the built-ins are exactly `profiles/*.profile`,
/// a built-in's text loaded as a user's file plays every example as the
/// built-in does, and a fifth profile read from a file runs through the runner
/// and the compare.
final class ProfileFileTests: XCTestCase {
    typealias U = UserProfileKit

    static let profilesDir = packageRoot + "/profiles"

    /// profiles/*.profile and profiles/real/*.profile (as `real/NAME.profile`), sorted by name.
    static func profileFiles() throws -> [String] {
        let fm = FileManager.default
        let seeds = try fm.contentsOfDirectory(atPath: profilesDir).filter { $0.hasSuffix(".profile") }
        let real = try fm.contentsOfDirectory(atPath: profilesDir + "/real").filter { $0.hasSuffix(".profile") }
        return (seeds + real.map { "real/" + $0 }).sorted { name($0) < name($1) }
    }

    /// A file's profile name: `real/posthog-ios.profile` is `posthog-ios`.
    static func name(_ file: String) -> String {
        String(file.split(separator: "/").last!.dropLast(".profile".count))
    }

    // MARK: (a) The embedded texts are the files

    func test_builtinSources_areTheFilesByteForByte() throws {
        let files = try Self.profileFiles()
        XCTAssertEqual(files.map(Self.name), Builtins.all.map(\.name).sorted())
        for f in files {
            let name = Self.name(f)
            XCTAssertEqual(f.hasPrefix("real/"), Builtins.isReal(name), f)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.profilesDir + "/" + f))
            guard let source = Builtins.source(name) else {
                XCTFail("profiles/\(f) is not embedded; run scripts/embed-profiles")
                continue
            }
            XCTAssertTrue(
                Array(source.utf8) == Array(bytes),
                "profiles/\(f) and its embedded copy differ; run scripts/embed-profiles")
            XCTAssertEqual(Builtins.named(name)?.spec.source, source)
        }
    }

    func test_embedProfilesCheck_saysTheEmbeddedCopyIsCurrent() throws {
        let script = packageRoot + "/scripts/embed-profiles"
        guard FileManager.default.isExecutableFile(atPath: script) else { throw XCTSkip("no scripts/embed-profiles") }
        let (status, out, err) = try runProgram(script, ["--check"], in: packageRoot)
        XCTAssertEqual(status, 0, out + err)
    }

    // MARK: (b) A built-in's text as a user's file plays like the built-in

    /// Each built-in's `--source` text loaded as a user's profile file.
    static func copies(file: StaticString = #filePath, line: UInt = #line) -> [Profile] {
        Builtins.all.compactMap { b in
            U.load(Builtins.source(b.name)!, path: "copy.profile", file: file, line: line)
        }
    }

    /// Both timelines of a scenario, played to the end.
    static func timelines(_ sc: Scenario) -> (text: String, jsonl: String, results: Int) {
        var runner = ScenarioRunner(sc)
        let both = runTimelines(&runner, formats: [.text, .jsonl]).map { $0.map { $0 + "\n" }.joined() }
        return (both[0], both[1], runner.results.count)
    }

    func test_eachBuiltinsSourceLoadedAsAFile_playsEveryExampleAsTheBuiltinDoes() throws {
        let copies = Self.copies()
        XCTAssertEqual(copies.count, Builtins.all.count)
        for (b, c) in zip(Builtins.all, copies) {
            XCTAssertFalse(c.isBuiltin)
            XCTAssertTrue(b.isBuiltin)
            XCTAssertEqual(c.name, b.name)
            XCTAssertEqual(c.title, b.title)
            // Its rules take other numbers (a user's own), with the same IDs and texts.
            XCTAssertEqual(c.ownRules.map { c.rule($0) }, b.ownRules.map { b.rule($0) })
            XCTAssertNotEqual(c.ownRules, b.ownRules)
            XCTAssertEqual(Settings(profile: c), Settings(profile: b))
        }
        let resolver = U.resolver(copies)
        var played = 0
        for path in ExamplesTests.examples {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let name = (path as NSString).lastPathComponent
            // A profile line naming a file is for the CLI's resolver, not this test.
            let profileWord =
                text.split(separator: "\n").first { $0.hasPrefix("profile ") }?.split(separator: " ").dropFirst()
                .first.map(String.init) ?? ""
            if profileWord.contains("/") || profileWord.hasSuffix(".profile") { continue }
            guard case .success(let builtin) = Scenario.parse(text, file: name),
                case .success(let copy) = Scenario.parse(text, file: name, profiles: resolver)
            else {
                XCTFail("\(name) does not parse")
                continue
            }
            XCTAssertFalse(copy.profile.isBuiltin, name)
            let (a, b) = (Self.timelines(builtin), Self.timelines(copy))
            XCTAssertGreaterThan(a.results, 0, name)
            XCTAssertTrue(
                a.text == b.text, "\(name): the text timelines differ\n" + Self.firstDifference(a.text, b.text))
            XCTAssertTrue(a.jsonl == b.jsonl, "\(name): the JSONL differs\n" + Self.firstDifference(a.jsonl, b.jsonl))
            played += 1
            // And as `outbox compare` plays it, on every profile of its compare line.
            for p in Scenario.compareLine(in: text) ?? [] {
                let cp = copies.first { $0.name == p.name }!
                guard case .success(let x) = Scenario.parse(text, file: name, playing: p),
                    case .success(let y) = Scenario.parse(text, file: name, playing: cp, profiles: resolver)
                else {
                    XCTFail("\(name) does not parse for \(p.name)")
                    continue
                }
                let (ta, tb) = (Self.timelines(x), Self.timelines(y))
                XCTAssertTrue(ta.jsonl == tb.jsonl, "\(name) on \(p.name)\n" + Self.firstDifference(ta.jsonl, tb.jsonl))
            }
        }
        XCTAssertGreaterThanOrEqual(played, 12)
    }

    static func firstDifference(_ a: String, _ b: String) -> String {
        let x = a.split(separator: "\n", omittingEmptySubsequences: false)
        let y = b.split(separator: "\n", omittingEmptySubsequences: false)
        for i in 0..<max(x.count, y.count) {
            let l = i < x.count ? String(x[i]) : "<none>", r = i < y.count ? String(y[i]) : "<none>"
            if l != r { return "line \(i + 1):\n  built-in: \(l)\n  copy:     \(r)" }
        }
        return ""
    }

    // MARK: (c) A fifth profile from a file

    static let acmePath = packageRoot + "/Tests/OutboxCoreTests/Fixtures/acme.profile"

    static func acme(file: StaticString = #filePath, line: UInt = #line) throws -> Profile? {
        let text = try String(contentsOfFile: acmePath, encoding: .utf8)
        return U.load(text, path: "Fixtures/acme.profile", file: file, line: line)
    }

    /// A day of the ACME app: retries with equal jitter, a 403, a lost answer,
    /// the network off and back, logout outside the queue, a quit and a launch.
    static let acmeDay = """
        profile acme
        compare ios,acme
        at 0 launch
        at 0 server 503 x2
        at 0 track signup
        at 1s server 403
        at 1s screen home
        at 2s server lost
        at 2s ping
        at 3s network offline
        at 4s track offline_buy
        at 4s logout
        expect at 4s state offline_buy queued
        expect at 4s dropped logout not-saved
        at 6s network online
        expect at 6.3s state offline_buy delivered
        at 40s server 500 always
        at 40s track doomed
        at 80s quit
        expect at 80s state doomed queued
        at 90s server ok
        at 90s launch
        expect at 90.3s state doomed delivered
        expect at 90.3s saved 0
        expect on ios at 90.3s saved 0
        """

    func test_fifthProfile_fromAFile_runsThroughTheRunner() throws {
        guard let acme = try Self.acme() else { return }
        XCTAssertEqual(acme.name, "acme")
        XCTAssertEqual(acme.title, "ACME analytics SDK (a test profile)")
        XCTAssertEqual(acme.spec.path, "Fixtures/acme.profile")
        XCTAssertTrue(acme.makes(.ping) && acme.makes(.screen) && acme.makes(.logout) && !acme.makes(.product))
        XCTAssertTrue(acme.hasCompletions && acme.retries)
        XCTAssertFalse(acme.hasConsentGate || acme.hasFlush || acme.hasIdempotencyKeys || acme.hasGetInstance)
        guard let r = U.play(Self.acmeDay, on: [acme]) else { return }
        // Waits: equal jitter, from half the delay to all of it (5s, then 20s).
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "signup: 0 new>pending #0 ACME-1",
                "signup: 0 pending>in-flight #1 ACME-1",
                "signup: 300 in-flight>retrying #1 503 ACME-2",
                "home: 1000 new>pending #0 ACME-1",
                "home: 1000 pending>in-flight #1 ACME-1",
                "home: 1300 in-flight>dropped #1 403 rejected ACME-3",
                "ping: 2000 new>pending #0 ACME-1",
                "ping: 2000 pending>in-flight #1 ACME-1",
                "ping: 3000 in-flight>retrying #1 network-lost ACME-2",
                "offline_buy: 4000 new>queued #0 ACME-5",
                "logout: 4000 new>dropped #0 not-saved ACME-7",
                "token-removal: 4000 new>dropped #0 not-saved ACME-7",
                "anonymous-ping: 4000 new>dropped #0 not-saved ACME-7",
                "signup: 4238 retrying>queued #1 ACME-5",
                "signup: 6000 queued>in-flight #2 ACME-5",
                "offline_buy: 6000 queued>in-flight #1 ACME-5",
                "signup: 6300 in-flight>delivered #2 200 ACME-1",
                "offline_buy: 6300 in-flight>delivered #1 200 ACME-1",
                "ping: 7759 retrying>in-flight #2 ACME-2",
                "ping: 8059 in-flight>delivered #2 200 ACME-1",
                "doomed: 40000 new>pending #0 ACME-1",
                "doomed: 40000 pending>in-flight #1 ACME-1",
                "doomed: 40300 in-flight>retrying #1 500 ACME-2",
                "doomed: 44568 retrying>in-flight #2 ACME-2",
                "doomed: 44868 in-flight>retrying #2 500 ACME-2",
                "doomed: 60132 retrying>in-flight #3 ACME-2",
                "doomed: 60432 in-flight>queued #3 500 ACME-4",
                "doomed: 90000 queued>in-flight #4 ACME-6",
                "doomed: 90300 in-flight>delivered #4 200 ACME-1",
            ])
        XCTAssertEqual(
            U.logs(r.sim),
            [
                "0 [-] app launched (launch 1)",
                "0 [ANS] backend will answer: 503 ×2",
                "1000 [ANS] backend will answer: 403 ×1",
                "1300 [ACME-3] ACME: #2 'home' rejected (403)",
                "2000 [ANS] backend will answer: lost ×1",
                "2150 [LOST] backend: #3 'ping' recorded; its answer will be lost",
                "3000 [NET] network offline",
                "4000 [-] logout(): sending logout, token-removal, anonymous-ping",
                "6000 [NET] network online",
                "6000 [ACME-5] ACME: network back, 2 queued go out (ACME-5)",
                "6300 [ACME-1] ACME: #1 'signup' delivered",
                "6300 [ACME-1] ACME: #4 'offline_buy' delivered",
                "8059 [ACME-1] ACME: #3 'ping' delivered",
                "40000 [ANS] backend will answer: 500 always",
                "80000 [-] app closing",
                "80000 [-] app closed · 1 saved on the device",
                "90000 [ANS] backend will answer: ok",
                "90000 [-] app launched (launch 2)",
                "90000 [ACME-6] ACME: launch, 1 saved go out (ACME-6)",
                "90300 [ACME-6] #8 'doomed': no completion handler to call (it survived a quit)",
            ])
        XCTAssertEqual(r.runner.results.count, 6)
    }

    func test_fifthProfile_inTheCompare() throws {
        guard let acme = try Self.acme() else { return }
        let resolver = U.resolver([acme])
        let list = Scenario.compareLine(in: Self.acmeDay, profiles: resolver)
        XCTAssertEqual(list?.map(\.name), ["ios", "acme"])
        var scenarios: [Scenario] = []
        for p in list ?? [] {
            switch Scenario.parse(Self.acmeDay, file: "day.outbox", playing: p, profiles: resolver) {
            case .success(let s): scenarios.append(s)
            case .failure(let e): return XCTFail(e.errors.map(\.description).joined(separator: "\n"))
            }
        }
        let story = CompareCommand.Story(file: "day.outbox", profiles: list!, scenarios: scenarios)
        let played = CompareCommand.playTogether(story, maxTransitions: 100_000, journal: .transitionsOnly)
        let console = Console.capturing()
        CompareReport(story: story, played: played).printText(console: console, width: 120, quiet: false, heading: true)
        let out = console.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(out.first, "== day.outbox: ios, acme")
        // The one row where they end differently, and why: the profile's own rule.
        XCTAssertEqual(
            Array(out.suffix(6)),
            [
                "    first differs at 00:00:40.200:",
                "      ios   in-flight → retrying    attempt 1  500                IOS-4",
                "      acme  in-flight → retrying    attempt 1  500                ACME-2 at 00:00:40.300",
                "ios   4 delivered 4 dropped · 9 att · 9 rcvd 5 cntd · 1/1 checks · end 00:01:30.300",
                "acme  4 delivered 4 dropped · 10 att · 10 rcvd 5 cntd · 6/6 checks · end 00:01:30.300",
                "",
            ])
        XCTAssertEqual(out.filter { $0.hasPrefix("!") }.map { String($0.prefix(18)) }, ["! doomed          "])
        XCTAssertEqual(played.map { $0.runner.failures.count }, [0, 0])
        let jconsole = Console.capturing()
        CompareReport(story: story, played: played).printJSONL(console: jconsole)
        XCTAssertTrue(
            jconsole.out.hasPrefix(
                #"{"diverged":{"file":"day.outbox","name":"doomed","occurrence":1,"at":40.2,"ios":{"id":8,"state":"delivered","#
                    + #""attempts":3,"saved":false,"completion":"none","rule":"IOS-4"},"acme":{"id":8,"state":"delivered","#
                    + #""attempts":4,"saved":false,"#), jconsole.out)
        XCTAssertTrue(jconsole.out.contains(#""rule":"ACME-2"}}}"#), jconsole.out)
    }

    /// `expect on P` names profiles as the `profile` and `compare` lines do,
    /// through the scenario's resolver.
    func test_expectOn_namesAUserProfileThroughTheResolver() throws {
        guard let acme = try Self.acme() else { return }
        let text =
            "profile acme\ncompare ios,acme\nat 0 launch\nat 0 track a\nexpect on acme at 0.3s state a delivered\n"
        switch Scenario.parse(text, file: "on.outbox", profiles: U.resolver([acme])) {
        case .success(let sc):
            var runner = ScenarioRunner(sc)
            runner.run()
            XCTAssertEqual(runner.results.map(\.ok), [true])
        case .failure(let e):
            XCTFail(e.errors.map(\.description).joined(separator: "\n"))
        }
    }

    /// A user profile with completion handlers shows them in the compare, as
    /// iOS does.
    func test_compare_showsAUserProfilesCompletions() throws {
        guard let acme = try Self.acme() else { return }
        let text = "profile acme\ncompare ios,acme\nat 0 launch\nat 0 track a\nexpect at 1s state a delivered\n"
        let resolver = U.resolver([acme])
        let list = [Builtins.ios, acme]
        let scenarios = list.compactMap { p -> Scenario? in
            guard case .success(let s) = Scenario.parse(text, file: "c.outbox", playing: p, profiles: resolver) else {
                return nil
            }
            return s
        }
        XCTAssertEqual(scenarios.count, 2)
        let story = CompareCommand.Story(file: "c.outbox", profiles: list, scenarios: scenarios)
        let played = CompareCommand.playTogether(story, maxTransitions: 100_000, journal: .transitionsOnly)
        let console = Console.capturing()
        CompareReport(story: story, played: played).printJSONL(console: console)
        let text2 = Console.capturing()
        CompareReport(story: story, played: played).printText(console: text2, width: 120, quiet: false, heading: true)
        let row = text2.out.split(separator: "\n").first { $0.hasPrefix("  a ") }.map(String.init) ?? ""
        XCTAssertEqual(row.components(separatedBy: "completion true").count, 3, row)
    }

    /// Through the command line: the scenario names the file by its path
    /// (`profile ./acme.profile`, `compare ios,./acme.profile`), as a user writes it.
    func test_fifthProfile_fromAFile_throughRunAndCompare() throws {
        let dir = NSTemporaryDirectory() + "profile-files-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.copyItem(atPath: Self.acmePath, toPath: dir + "/acme.profile")
        let day = Self.acmeDay.replacingOccurrences(
            of: "profile acme\ncompare ios,acme", with: "profile ./acme.profile\ncompare ios,./acme.profile")
        XCTAssertNotEqual(day, Self.acmeDay)
        try day.write(toFile: dir + "/day.outbox", atomically: true, encoding: .utf8)
        let path = dir + "/day.outbox"

        let (status, out, err) = cli(["run", "--quiet", path])
        XCTAssertEqual(status, 0, err + out)
        XCTAssertEqual(out, "\(path): 6 passed, 0 failed · 29 transitions · ended at 00:01:30.300\n")
        let jsonl = cli(["run", "--format", "jsonl", path])
        XCTAssertEqual(jsonl.0, 0, jsonl.2)
        XCTAssertTrue(
            jsonl.1.contains(
                #"{"t":60.432,"id":8,"name":"doomed","kind":"event","from":"in-flight","to":"queued","attempt":3,"rule":"ACME-4","status":500}"#
            ), jsonl.1)

        let compare = cli(["compare", "--width", "120", path])
        XCTAssertEqual(compare.0, 0, compare.2 + compare.1)
        let lines = compare.1.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "== \(path): ios, acme")
        XCTAssertEqual(lines.filter { $0.hasPrefix("!") }.map { String($0.prefix(8)) }, ["! doomed"])
        XCTAssertTrue(
            lines.contains("      acme  in-flight → retrying    attempt 1  500                ACME-2 at 00:00:40.300"),
            compare.1)
    }
}
