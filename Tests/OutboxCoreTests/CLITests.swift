import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// What a user of `outbox` checks: exit codes, where errors point, what is
/// printed, and the JSONL contract (docs/scenarios.md, "JSONL").
final class CLITests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("outbox-cli-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    /// Writes a scenario file in this test's temporary directory; returns its path.
    private func write(_ text: String, _ name: String = "scenario.outbox") throws -> String {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    private func lines(_ s: String) -> [String] {
        s.split(separator: "\n").map(String.init)
    }

    // MARK: outbox bench

    /// `--only` takes a comma-separated list; an unknown figure is named, with the choices.
    func testBenchOnlyRunsTheNamedFiguresAndNamesAnUnknownOne() {
        let (bad, _, err) = cli(["bench", "--only", "chaos,bogus"])
        XCTAssertEqual(bad, 2)
        XCTAssertTrue(err.contains("not a figure: `bogus`"), err)
        XCTAssertTrue(err.contains("transitions, batched, frame, bytes, start, keys, memory, store, chaos"), err)

        let (status, out, err2) = cli(["bench", "--quick", "--json", "--only", "chaos,memory"])
        XCTAssertEqual(status, 0, err2)
        let figures = lines(out).filter { $0.hasPrefix("{") }.compactMap { line -> String? in
            guard let r = line.range(of: "\"figure\":\"") else { return nil }
            return String(line[r.upperBound...].prefix { $0 != "\"" })
        }
        XCTAssertEqual(figures, ["memory_per_live_request", "chaos_run"], out)
        XCTAssertTrue(out.contains("\"identical_at_every_speed\":true"), out)
    }

    // MARK: Failing checks: exit 1, FILE:LINE and what was found

    func testWrongExpectExitsOneNamingFileLineAndWhatWasFound() throws {
        let path = try write(
            """
            profile ios
            # a comment and a blank line, so line numbers are tested

            at 0 launch
            at 1s track purchase
            expect at 2s state purchase queued       # wrong: it was delivered
            expect at 2s attempts purchase 1         # right
            expect at 500ms state purchase pending   # not made yet
            expect at 2s received nobody 0           # 0 for an unknown name holds
            """)
        let (status, out, err) = cli(["run", path])
        XCTAssertEqual(status, 1, err)
        XCTAssertTrue(err.contains("\(path):6: "), err)
        XCTAssertTrue(err.contains("expect at 2s state purchase queued"), err)
        XCTAssertTrue(err.contains("found #1 is delivered"), err)
        XCTAssertTrue(err.contains("\(path):8: "), err)
        XCTAssertTrue(err.contains("no request is named 'purchase'"), err)
        XCTAssertFalse(err.contains("\(path):7:"), "a holding check is not an error:\n\(err)")
        XCTAssertFalse(err.contains("\(path):9:"), "received on an unknown name means 0:\n\(err)")
        // The run still happened: timeline, the failed check marked, a summary.
        XCTAssertTrue(out.contains("new → pending"), out)
        XCTAssertTrue(out.contains("FAILED"), out)
        XCTAssertTrue(out.contains("2 passed, 2 failed"), out)
    }

    func testOneFailingFileAmongSeveralExitsOne() throws {
        let good = try write(
            "profile android\nat 0 launch\nat 1s ping\nexpect at 2s state ping delivered\n", "good.outbox")
        let bad = try write("profile android\nat 0 launch\nat 1s ping\nexpect at 2s state ping queued\n", "bad.outbox")
        let (status, out, err) = cli(["run", good, bad])
        XCTAssertEqual(status, 1)
        XCTAssertTrue(err.contains("\(bad):4: "), err)
        XCTAssertFalse(err.contains(good), err)
        XCTAssertTrue(out.contains("1 passed, 1 failed"), out)
    }

    // MARK: Bad input: exit 2, FILE:LINE, what was expected, nothing runs

    /// (what, scenario, line of the error, words the message must hold)
    private let badInputs: [(String, String, Int, [String])] = [
        (
            "unknown statement", "profile linktrail\nat 0 launch\nfrobnicate now\n", 3,
            ["frobnicate", "expected"]
        ),
        (
            "bad time", "profile linktrail\n\n# a comment\nat 5 launch\n", 4,
            ["bad time `5`", "expected", "250ms"]
        ),
        (
            "bad time unit", "profile ios\nat 0 launch\nexpect at 3 days saved 0\n", 3,
            ["bad time", "expected"]
        ),
        (
            "time finer than a millisecond", "profile ios\nat 0.5ms launch\n", 2,
            ["bad time", "whole milliseconds"]
        ),
        (
            "unknown action", "profile linktrail\nat 0 launch\nat 1s dance\n", 3,
            ["unknown action `dance`", "expected", "launch"]
        ),
        (
            "ping on linktrail", "profile linktrail\nat 0 launch\nat 1s ping\n", 3,
            ["ping", "LinkTrail"]
        ),
        (
            "screen on linktrail", "profile linktrail\nat 0 launch\nat 1s screen home\n", 3,
            ["LinkTrail"]
        ),
        (
            "consent on ios", "profile ios\nat 0 launch\nat 1s consent grant\n", 3,
            ["consent", "ios"]
        ),
        (
            "getinstance on flutter", "profile flutter\nat 0 launch\nat 1s getinstance\n", 3,
            ["getinstance", "flutter"]
        ),
        (
            "retry.attempts on android", "profile android\nset retry.attempts 3\nat 0 launch\n", 2,
            ["retry.attempts", "android"]
        ),
        (
            "requireConsent on ios", "profile ios\nset requireConsent false\n", 2,
            ["requireConsent", "ios"]
        ),
        (
            "unknown setting", "profile ios\nset colour blue\n", 2,
            ["colour", "expected"]
        ),
        (
            "bad setting value", "profile ios\nset retry.attempts 0\n", 2,
            ["retry.attempts", "expected"]
        ),
        (
            "request before launch", "profile ios\nat 1s track purchase\nat 2s launch\n", 2,
            ["running app", "expected", "launch"]
        ),
        (
            "request before launch, lines out of order", "profile ios\nat 2s launch\nat 1s ping\n", 3,
            ["running app", "expected"]
        ),
        (
            "launch twice", "profile ios\nat 0 launch\nat 1s launch\n", 3,
            ["already running", "expected"]
        ),
        (
            "quit while not running", "profile ios\nat 1s quit\n", 2,
            ["not running", "expected"]
        ),
        (
            "request after quit", "profile flutter\nat 0 launch\nat 1s quit\nat 2s ping\n", 4,
            ["running app"]
        ),
        (
            "set after at", "profile ios\nat 0 launch\nset latency 1s\n", 3,
            ["set", "after the first `at`", "expected"]
        ),
        (
            "missing profile", "at 0 launch\nexpect at 1s saved 0\n", 1,
            ["profile", "expected"]
        ),
        (
            "no profile at all", "# only a comment", 1,
            ["no profile line", "expected"]
        ),
        (
            "unknown profile", "profile windows\n", 1,
            ["profile", "expected", "linktrail"]
        ),
        (
            "unterminated quote", "profile ios\nat 0 launch\nexpect at 1s log \"never closed\n", 3,
            ["unterminated quote", "expected"]
        ),
        (
            "unknown check", "profile ios\nat 0 launch\nexpect at 1s smells purchase\n", 3,
            ["unknown check `smells`", "expected"]
        ),
        (
            "unknown state", "profile ios\nat 0 launch\nexpect at 1s state purchase flying\n", 3,
            ["flying", "expected", "in-flight"]
        ),
        (
            "bad server answer", "profile ios\nat 0 launch\nat 1s server 700\n", 3,
            ["server", "expected"]
        ),
    ]

    func testBadInputExitsTwoNamingFileLineAndRunsNothing() throws {
        for (n, (what, text, line, words)) in badInputs.enumerated() {
            let path = try write(text, "bad-\(n).outbox")
            let (status, out, err) = cli(["run", path])
            XCTAssertEqual(status, 2, "\(what): exit \(status)\n\(err)")
            XCTAssertEqual(out, "", "\(what): nothing may run, yet stdout has:\n\(out)")
            XCTAssertTrue(err.hasPrefix("\(path):\(line): "), "\(what): expected \(path):\(line): in\n\(err)")
            for w in words {
                XCTAssertTrue(err.contains(w), "\(what): the message should mention `\(w)`:\n\(err)")
            }
        }
    }

    func testBadInputWithFormatJSONLAndQuietStillRunsNothing() throws {
        let path = try write("profile linktrail\nat 0 launch\nat 1s ping\n")
        for extra in [["--format", "jsonl"], ["--quiet"]] {
            let (status, out, err) = cli(["run"] + extra + [path])
            XCTAssertEqual(status, 2, "\(extra)")
            XCTAssertEqual(out, "", "\(extra)")
            XCTAssertTrue(err.contains("\(path):3: "), err)
        }
    }

    func testEveryProblemInAFileIsReported() throws {
        let path = try write("profile ios\nat 0 launch\nat 1s dance\nat soon ping\nexpect at 2s smells x\n")
        let (status, out, err) = cli(["run", path])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        for line in [3, 4, 5] {
            XCTAssertTrue(err.contains("\(path):\(line): "), "line \(line) not reported:\n\(err)")
        }
    }

    func testUnreadableFileExitsTwo() throws {
        let missing = dir.appendingPathComponent("no-such-file.outbox").path
        var (status, out, err) = cli(["run", missing])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        // A file that is not there has no line to name (issue 22).
        XCTAssertEqual(
            err,
            "\(missing): cannot read the file: No such file or directory; expected a readable scenario file\n")

        // A directory is not a scenario either.
        (status, out, err) = cli(["run", dir.path])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertEqual(err, "\(dir.path): cannot read the file: it is a directory; expected a readable scenario file\n")

        // Not UTF-8 text.
        let binary = dir.appendingPathComponent("binary.outbox")
        try Data([0x70, 0x72, 0xFF, 0xFE, 0x00, 0xC3]).write(to: binary)
        (status, out, err) = cli(["run", binary.path])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertTrue(err.contains("\(binary.path):1: "), err)
    }

    func testABadFileAmongGoodOnesStopsEverything() throws {
        let good = try write("profile ios\nat 0 launch\nat 1s ping\nexpect at 2s state ping delivered\n", "good.outbox")
        let bad = try write("profile ios\nat 0 launch\nat 1s getinstance\n", "bad.outbox")
        let (status, out, err) = cli(["run", good, bad])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "", "the good file must not run either")
        XCTAssertTrue(err.contains("\(bad):3: "), err)
    }

    // MARK: --format jsonl

    private let richScenario = """
        profile linktrail
        set requireConsent false
        at 0 launch
        at 1s server 503
        at 1s track purchase value=49.99 currency=USD
        at 2s network offline
        at 2s track offline_event
        at 3s network online
        at 10s server 404
        at 10s track bad
        expect at 1.2s state purchase retrying
        expect at 1.2s log "no such line"
        expect at 11s dropped bad rejected
        """

    private func jsonObjects(_ out: String, file: StaticString = #filePath, line: UInt = #line) -> [[String: Any]] {
        var objects: [[String: Any]] = []
        for l in lines(out) {
            guard let data = l.data(using: .utf8),
                let any = try? JSONSerialization.jsonObject(with: data),
                let o = any as? [String: Any]
            else {
                XCTFail("not a JSON object: \(l)", file: file, line: line)
                continue
            }
            objects.append(o)
        }
        return objects
    }

    func testJSONLLinesAreObjectsWithTheRequiredKeys() throws {
        let path = try write(richScenario)
        let (status, out, err) = cli(["run", "--format", "jsonl", path])
        XCTAssertEqual(status, 1, "one check is written to fail:\n\(err)")
        let objects = jsonObjects(out)
        XCTAssertGreaterThan(objects.count, 10)

        var transitions: [[String: Any]] = [], logs: [[String: Any]] = [], checks: [[String: Any]] = []
        var lastT = -1.0
        for o in objects {
            guard let t = o["t"] as? NSNumber, !(o["t"] is String) else {
                XCTFail("no numeric \"t\": \(o)")
                continue
            }
            XCTAssertGreaterThanOrEqual(t.doubleValue, lastT, "time order: \(o)")
            lastT = t.doubleValue
            if o["to"] != nil {
                transitions.append(o)
                for k in ["id", "name", "kind", "from", "to", "attempt", "rule"] {
                    XCTAssertNotNil(o[k], "transition without \"\(k)\": \(o)")
                }
                XCTAssertTrue(o["id"] is NSNumber && !(o["id"] is String), "\(o)")
                XCTAssertTrue(o["attempt"] is NSNumber && !(o["attempt"] is String), "\(o)")
                for k in ["name", "kind", "from", "to", "rule"] { XCTAssertTrue(o[k] is String, "\(k): \(o)") }
            } else if o["log"] != nil {
                logs.append(o)
                XCTAssertTrue(o["log"] is String, "\(o)")
                XCTAssertTrue(o["source"] is String, "\(o)")
            } else if o["expect"] != nil {
                checks.append(o)
                XCTAssertTrue(o["expect"] is String, "\(o)")
                XCTAssertNotNil(o["ok"] as? Bool, "\(o)")
                XCTAssertNotNil(o["line"] as? Int, "\(o)")
            } else {
                XCTFail("neither a transition, a log line nor a check: \(o)")
            }
        }
        XCTAssertFalse(transitions.isEmpty)
        XCTAssertFalse(logs.isEmpty)
        XCTAssertEqual(checks.count, 3)

        // A creation comes from "new".
        XCTAssertTrue(transitions.contains { $0["from"] as? String == "new" && $0["name"] as? String == "purchase" })
        // "status" is a number for an HTTP answer...
        let http = transitions.first { $0["name"] as? String == "purchase" && $0["to"] as? String == "retrying" }
        XCTAssertEqual((http?["status"] as? NSNumber)?.intValue, 503, "\(String(describing: http))")
        XCTAssertFalse(http?["status"] is String)
        XCTAssertEqual((http?["t"] as? NSNumber)?.doubleValue, 1.2)
        XCTAssertEqual(http?["rule"] as? String, "LT-4")
        // ...and a string for a transport error.
        let offline = transitions.first {
            $0["name"] as? String == "offline_event" && $0["to"] as? String == "retrying"
        }
        XCTAssertEqual(offline?["status"] as? String, "offline", "\(String(describing: offline))")
        // A drop carries its reason.
        let drop = transitions.first { $0["name"] as? String == "bad" && $0["to"] as? String == "dropped" }
        XCTAssertEqual(drop?["reason"] as? String, "rejected")
        XCTAssertEqual((drop?["status"] as? NSNumber)?.intValue, 404)
        XCTAssertEqual(drop?["rule"] as? String, "LT-6")
        // The LT-6 warning is a log line tied to its request and rule.
        let warning = logs.first { ($0["log"] as? String)?.contains("[WARNING] Event 'bad' rejected (404)") ?? false }
        XCTAssertNotNil(warning)
        XCTAssertEqual(warning?["rule"] as? String, "LT-6")
        XCTAssertNotNil(warning?["id"] as? Int)

        // Checks: the line as written (without its comment), ok, line, and "found" when failed.
        let good = checks.first { $0["line"] as? Int == 11 }
        XCTAssertEqual(good?["expect"] as? String, "expect at 1.2s state purchase retrying")
        XCTAssertEqual(good?["ok"] as? Bool, true)
        XCTAssertNil(good?["found"])
        let failed = checks.first { $0["line"] as? Int == 12 }
        XCTAssertEqual(failed?["ok"] as? Bool, false)
        XCTAssertNotNil(failed?["found"] as? String)

        // The summary goes to stderr, so stdout stays pure JSON lines.
        XCTAssertTrue(err.contains("1 failed"), err)
    }

    func testJSONLFormatEqualsSignAndQuiet() throws {
        let path = try write(richScenario)
        let (status, out, _) = cli(["run", "--format=jsonl", "--quiet", path])
        XCTAssertEqual(status, 1)
        let objects = jsonObjects(out)
        XCTAssertEqual(objects.count, 1, "only the failed check:\n\(out)")
        XCTAssertEqual(objects.first?["ok"] as? Bool, false)
        XCTAssertEqual(objects.first?["line"] as? Int, 12)
    }

    // MARK: --quiet

    func testQuietPrintsOnlyTheSummaryWhenEverythingHolds() throws {
        let path = try write("profile flutter\nat 0 launch\nat 1s track a\nexpect at 2s state a delivered\n")
        let (status, out, err) = cli(["run", "--quiet", path])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(err, "")
        XCTAssertEqual(lines(out).count, 1, out)
        XCTAssertTrue(out.hasPrefix("\(path): 1 passed, 0 failed"), out)
    }

    func testQuietPrintsOnlyFailedChecksAndTheSummary() throws {
        let path = try write(
            """
            profile flutter
            at 0 launch
            at 1s server 503
            at 1s track a
            expect at 2s dropped a not-saved
            expect at 2s state a queued
            """)
        let (status, out, err) = cli(["run", "-q", path])
        XCTAssertEqual(status, 1)
        let printed = lines(out)
        XCTAssertEqual(printed.count, 2, out)
        XCTAssertTrue(printed[0].contains("expect at 2s state a queued"), out)
        XCTAssertTrue(printed[0].contains("FAILED"), out)
        XCTAssertTrue(printed[1].contains("1 passed, 1 failed"), out)
        XCTAssertFalse(out.contains("→"), "no transitions with --quiet:\n\(out)")
        XCTAssertFalse(out.contains("✓"), "no passing checks with --quiet:\n\(out)")
        XCTAssertTrue(err.contains("\(path):6: "), err)
    }

    // MARK: help, version, profiles, usage errors

    func testHelp() {
        for args in [["--help"], ["help"], ["-h"]] {
            let (status, out, err) = cli(args)
            XCTAssertEqual(status, 0, "\(args)")
            XCTAssertEqual(err, "")
            // swift-argument-parser's layout (issue 14): OVERVIEW, the text, USAGE, the commands.
            XCTAssertTrue(out.hasPrefix("OVERVIEW: watch a mobile SDK's delivery queue at work\n"), out)
            XCTAssertTrue(out.contains("\nUSAGE: outbox [--profile NAME|PATH.profile]"), out)
            XCTAssertTrue(out.contains("\n       outbox run FILE..."), out)
            XCTAssertTrue(out.contains("\n  profiles "), out)
        }
    }

    func testHelpRun() {
        for args in [["help", "run"], ["run", "--help"]] {
            let (status, out, _) = cli(args)
            XCTAssertEqual(status, 0, "\(args)")
            XCTAssertTrue(out.contains("outbox run FILE..."), out)
            XCTAssertTrue(out.contains("--format text|jsonl"), out)
            XCTAssertTrue(out.contains("--quiet"), out)
            XCTAssertTrue(out.contains("exit status"), out)
            // Only run's own usage: not the live screen's or `state`'s. Since issue 14 the
            // layout is swift-argument-parser's: OVERVIEW first, USAGE after the text.
            XCTAssertTrue(out.hasPrefix("OVERVIEW: play scenario files headless and check their expect lines\n"), out)
            XCTAssertTrue(
                out.contains(
                    "\nUSAGE: outbox run FILE... [--format text|jsonl|junit|html|svg] [--quiet] [--state-dir DIR] [--max-transitions N]\n"
                        + "                  [--watch | --update]\n\n"
                ), out)
            XCTAssertEqual(out.components(separatedBy: "USAGE:").count, 2, out)
            XCTAssertFalse(out.contains("outbox state"), out)
            XCTAssertFalse(out.contains("--speed"), out)
        }
    }

    func testHelpForAnUnknownTopicExitsTwo() {
        let (status, out, err) = cli(["help", "dance"])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertTrue(err.contains("dance"), err)
    }

    func testVersion() {
        let (status, out, err) = cli(["--version"])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(err, "")
        XCTAssertEqual(out, "outbox \(CLI.version)\n")
        XCTAssertNotNil(out.range(of: #"^outbox \d+\.\d+\.\d+\n$"#, options: .regularExpression), out)
    }

    func testProfilesIOSListsItsRulesAndMarksAssumptions() {
        let (status, out, err) = cli(["profiles", "ios"])
        XCTAssertEqual(status, 0, err)
        let printed = lines(out)
        for n in 1...7 {
            XCTAssertTrue(
                printed.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("IOS-\(n) ") },
                "IOS-\(n) missing:\n\(out)")
        }
        func ruleLine(_ id: String) -> String {
            printed.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(id + " ") } ?? ""
        }
        // The rules page marks IOS-2 and IOS-7 as assumptions; IOS-3 and IOS-4 are from the documents.
        XCTAssertTrue(ruleLine("IOS-2").contains("assumption"), ruleLine("IOS-2"))
        XCTAssertTrue(ruleLine("IOS-7").contains("assumption"), ruleLine("IOS-7"))
        XCTAssertFalse(ruleLine("IOS-3").contains("assumption"), ruleLine("IOS-3"))
        XCTAssertFalse(ruleLine("IOS-4").contains("assumption"), ruleLine("IOS-4"))
        XCTAssertTrue(out.lowercased().contains("assumptions"), out)
        // Its settings with their defaults, and nothing of the other profiles.
        XCTAssertTrue(out.contains("retry.attempts"), out)
        XCTAssertTrue(out.contains("30s,1m,2m") || out.contains("30s,60s,120s"), out)
        XCTAssertFalse(out.contains("requireConsent"), out)
        XCTAssertFalse(out.contains("LT-1"), out)
        XCTAssertFalse(out.contains("AND-1"), out)
    }

    func testProfilesListsAllFour() {
        let (status, out, _) = cli(["profiles"])
        XCTAssertEqual(status, 0)
        for id in ["LT-13", "IOS-7", "AND-6", "FL-5"] { XCTAssertTrue(out.contains(id), id) }
        // LinkTrail's assumptions are marked too.
        let lt3 = lines(out).first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("LT-3 ") } ?? ""
        XCTAssertTrue(lt3.contains("assumption"), lt3)
    }

    func testUnknownProfileExitsTwo() {
        let (status, out, err) = cli(["profiles", "windows"])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertTrue(err.contains("windows"), err)
        XCTAssertTrue(err.contains("linktrail"), err)
    }

    func testUnknownCommandExitsTwoNamingTheCommands() {
        let (status, out, err) = cli(["dance"])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertEqual(
            err,
            "outbox: unknown command `dance`, expected one of: live, run, compare, fleet, serve, state, profiles, bench, keys, help\n"
                + "(`outbox help` says more)\n")
    }

    /// A mistyped command or action gets "did you mean" like a mistyped option
    /// (issue 22, newcomer 2.11).
    func testAMistypedCommandOrActionGetsDidYouMean() {
        let commands = "live, run, compare, fleet, serve, state, profiles, bench, keys, help"
        for (args, message) in [
            (["rnu", "x.outbox"], "outbox: unknown command `rnu`, expected one of: \(commands); did you mean `run`?"),
            (
                ["comapre", "x"],
                "outbox: unknown command `comapre`, expected one of: \(commands); did you mean `compare`?"
            ),
            (
                ["profile", "ios"],
                "outbox: unknown command `profile`, expected one of: \(commands); did you mean `profiles`?"
            ),
            (["stat"], "outbox: unknown command `stat`, expected one of: \(commands); did you mean `state`?"),
        ] {
            let (status, out, err) = cli(args)
            XCTAssertEqual(status, 2, args.joined(separator: " "))
            XCTAssertEqual(out, "")
            XCTAssertEqual(err, message + "\n(`outbox help` says more)\n")
        }
        var (status, out, err) = cli(["state", "shwo"])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertEqual(err, "outbox state: unknown action `shwo`, expected show or reset; did you mean `show`?\n")
        (status, out, err) = cli(["state", "rest"])
        XCTAssertEqual(err, "outbox state: unknown action `rest`, expected show or reset; did you mean `reset`?\n")
        (status, out, err) = cli(["state", "dance"])
        XCTAssertEqual(err, "outbox state: unknown action `dance`, expected show or reset\n")
        (status, out, err) = cli(["help", "rnu"])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(err, "outbox: no help for `rnu`, expected one of: \(commands); did you mean `run`?\n")
    }

    func testUnknownOptionExitsTwoWithUsage() throws {
        let path = try write("profile ios\nat 0 launch\nexpect at 1s saved 0\n")
        for args in [["run", "--loud", path], ["--loud"], ["run", "--format", "xml", path], ["run", "--format"]] {
            let (status, out, err) = cli(args)
            XCTAssertEqual(status, 2, "\(args)")
            XCTAssertEqual(out, "", "\(args): nothing may run")
            XCTAssertTrue(err.contains("usage: outbox") || err.contains("--format"), "\(args): \(err)")
        }
        let (status, _, err) = cli(["run", "--loud", path])
        XCTAssertEqual(status, 2)
        XCTAssertTrue(err.contains("--loud"), err)
        XCTAssertTrue(err.contains("usage: outbox"), err)
        XCTAssertTrue(err.contains("outbox run FILE..."), err)
    }

    func testRunWithoutFilesExitsTwoWithUsage() {
        let (status, out, err) = cli(["run"])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertTrue(err.contains("no scenario file"), err)
        XCTAssertTrue(err.contains("usage: outbox"), err)
        XCTAssertTrue(err.contains("outbox run FILE..."), err)
    }
}
