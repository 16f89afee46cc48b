import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Issue 10: numbers read from input are range-checked where they are read, sums
/// cannot trap, a run cannot go on for ever, and output that cannot be written
/// ends the command with a clear status instead of a crash.
final class LimitsTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("outbox-limits-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    private func write(_ text: String, _ name: String = "scenario.outbox") throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    // MARK: money

    /// Ten events of 999999999999 each: the total is past Int64's micros and is
    /// still summed exactly (it trapped before), shown and checked in full.
    func testRevenueSummedPastSixtyFourBitsIsExact() throws {
        var text = "profile linktrail\nset requireConsent false\nat 0 launch\n"
        for i in 1...10 { text += "at \(i)s track buy value=999999999999 currency=USD\n" }
        text += "expect at 20s revenue USD 9999999999990\n"
        text += "expect at 20s counted buy 10\n"
        let runner = play(text)
        XCTAssertEqual(runner?.failures.count, 0)
        let sum = runner.flatMap { r in r.sim.nameID("USD").flatMap { r.sim.backend.revenue[$0] } }
        XCTAssertEqual(sum?.text, "9999999999990")
        XCTAssertNil(sum?.micros, "past 64 bits of millionths: no Int64 view")
    }

    func testAmountSumAddsNegativesAndPrintsExactly() {
        var s = AmountSum()
        XCTAssertEqual(s.text, "0")
        s.add(Amount(micros: -1))
        XCTAssertEqual(s.text, "-0.000001")
        XCTAssertEqual(s.micros, -1)
        for _ in 0..<3 { s.add(Amount(micros: Int64.max)) }
        // 3 * (2^63 - 1) - 1 millionths
        XCTAssertEqual(s.text, "27670116110564.32742")
        XCTAssertEqual(AmountSum.parse("27670116110564.32742"), s)
        XCTAssertEqual(AmountSum.parse("-0.000001"), AmountSum(Amount(micros: -1)))
        XCTAssertNil(AmountSum.parse("1.0000001"), "finer than a millionth")
        XCTAssertNil(AmountSum.parse("1" + String(repeating: "0", count: 30)), "31 digits")
        XCTAssertNil(AmountSum.parse("1."))
        XCTAssertNil(AmountSum.parse("x"))
    }

    // MARK: times and settings

    /// Every time or duration past 100000h is bad input naming the line and the
    /// limit, in a file and through `:set` (both go through Settings.read).
    func testTimesPastTheLimitAreBadInput() throws {
        let cases: [(String, String)] = [
            (
                "set retry.delays 999999999999h",
                "bad value `999999999999h` for retry.delays, expected 1 to 1000 comma-separated times, each up to 100000h"
            ),
            (
                "set retry.delays 2s,100001h",
                "bad delay `100001h` (number 2 of 2) for retry.delays, expected at most 100000h"
            ),
            ("set timeout 999999999999h", "bad value `999999999999h` for timeout, expected a time up to 100000h"),
            ("set latency 100000h1ms", "bad value `100000h1ms` for latency"),
            ("at 999999999999h launch", "bad time `999999999999h`, expected at most 100000h"),
            ("expect at 100001h saved 0", "bad time `100001h`, expected at most 100000h"),
        ]
        for (line, message) in cases {
            let path = try write("profile linktrail\n" + line + "\n")
            let (status, out, err) = cli(["run", path])
            XCTAssertEqual(status, 2, line)
            XCTAssertEqual(out, "", line)
            XCTAssertTrue(err.hasPrefix("\(path):2: " + message), "\(line):\n\(err)")
        }
        // The limit itself is allowed.
        var s = Settings(profile: .ios)
        XCTAssertNil(s.set("timeout", "100000h", profile: .ios))
        XCTAssertEqual(s.timeout, VirtualTime.maxInput)
        XCTAssertNotNil(s.set("timeout", "360000000001ms", profile: .ios))
        XCTAssertEqual(s.timeout, VirtualTime.maxInput, "a refused value changes nothing")
    }

    /// The live screen's `:set` is read at the edge: a value past the limit never
    /// becomes an action; the model refuses a setting its profile lacks, and then
    /// nothing changes.
    func testASettingPastTheLimitIsRefusedAtTheEdge() {
        let read = ActionSyntax.parse(["set", "timeout", "999999999999h"], settingsOn: .linktrail)
        XCTAssertEqual(
            read, .failure(Problem("bad value `999999999999h` for timeout, expected a time up to 100000h, e.g. 10s")))
        var sim = Simulation(profile: .ios)
        let why = sim.apply(.setting("requireConsent", "false"))
        XCTAssertEqual(why, "setting `requireConsent` does not exist on profile ios (it has no consent gate)")
        XCTAssertEqual(sim.settings, Settings(profile: .ios))
    }

    /// The longest allowed waits, on the longest budget, run to the end without a
    /// trap: every sum of times stays inside the clock.
    func testLongestDelaysAndTimeoutsRunToTheEnd() throws {
        let text = """
            profile linktrail
            set retry.attempts 1000
            set retry.delays 100000h
            set timeout 100000h
            set latency 1ms
            at 0 launch
            at 0 consent grant
            at 0 server timeout always
            at 100000h track a
            expect at 100000h state a in-flight
            """
        let runner = play(text)
        XCTAssertEqual(runner?.failures.count, 0)
        XCTAssertNil(runner?.stopped)
        XCTAssertEqual(runner.map { Int($0.sim.request(2).attempts) }, 1000)
        // The line at 100000h, then 1000 timeouts and 999 waits of 100000h each.
        XCTAssertEqual(runner?.sim.now, VirtualTime.maxInput * (1 + 1000 + 999))
        XCTAssertEqual(runner?.sim.request(2).state, .queued, "LT-5: the budget spent, it waits for a flush")
    }

    func testRetryAttemptsPastTheCapAreBadInput() throws {
        let path = try write("profile ios\nset retry.attempts 1000000000\n")
        let (status, _, err) = cli(["run", path])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(
            err, "\(path):2: bad value `1000000000` for retry.attempts, expected a whole number from 1 to 1000\n")
        var s = Settings(profile: .ios)
        XCTAssertNil(s.set("retry.attempts", "1000", profile: .ios))
        XCTAssertNotNil(s.set("retry.attempts", "1001", profile: .ios))
        XCTAssertNotNil(
            s.set("retry.delays", Array(repeating: "1s", count: 1001).joined(separator: ","), profile: .ios))
    }

    func testSaturatingTimeNeverTraps() {
        XCTAssertEqual(VirtualTime.later(.max, by: .max), VirtualTime.maxClock)
        XCTAssertEqual(VirtualTime.later(VirtualTime.maxClock - 1, by: 5), VirtualTime.maxClock)
        XCTAssertEqual(VirtualTime.later(1000, by: 500), 1500)
    }

    // MARK: a run's limits

    /// The budget's cap bounds one request's retries, and `--max-transitions`
    /// bounds a whole run: a run past it stops with exit 2 and says where.
    func testARunPastItsTransitionLimitStopsWithExitTwo() throws {
        var text = """
            profile linktrail
            set retry.attempts 1000
            set retry.delays 1ms
            set latency 1ms
            at 0 launch
            at 0 consent grant
            at 0 server 503 always

            """
        for i in 1...50 { text += "at \(i)ms track e\(i)\n" }
        let path = try write(text)
        let (status, _, err) = cli(["run", "--quiet", "--max-transitions", "5000", path])
        XCTAssertEqual(status, 2)
        XCTAssertTrue(err.hasPrefix("\(path): the run stopped at 00:00:00."), err)
        XCTAssertTrue(err.contains("it passed the limit of 5000 transitions (set by --max-transitions)"), err)
        // Under the default limit the same file ends: 50 requests x 1000 attempts.
        let (ok, out, _) = cli(["run", "--quiet", path])
        XCTAssertEqual(ok, 0)
        XCTAssertTrue(out.contains("0 passed, 0 failed"), out)

        let (bad, _, err2) = cli(["run", "--max-transitions", "0", path])
        XCTAssertEqual(bad, 2)
        XCTAssertTrue(err2.contains("--max-transitions needs a whole number ≥ 1"), err2)
    }

    // MARK: files

    func testCRLFScenarioReadsLikeLF() throws {
        let text =
            "profile ios\r\nset retry.attempts 2\r\n# a comment\r\nat 0 launch\r\nat 1s track a\r\nexpect at 2s state a delivered\r\n"
        let path = try write(text)
        let (status, out, err) = cli(["run", "--quiet", path])
        XCTAssertEqual(status, 0, err)
        XCTAssertTrue(out.contains("1 passed, 0 failed"), out)
        XCTAssertEqual(err, "")
    }

    func testDevNullAndDirectoriesSayWhatTheyAre() throws {
        var (status, _, err) = cli(["run", "/dev/null"])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(err, "/dev/null:1: no profile line, expected `profile linktrail|ios|android|flutter` first\n")
        (status, _, err) = cli(["run", dir.path])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(err, "\(dir.path): cannot read the file: it is a directory; expected a readable scenario file\n")
        XCTAssertFalse(err.contains("NSCocoaErrorDomain"))
    }

    func testNotUTF8NamesTheLine() throws {
        let url = dir.appendingPathComponent("bad.outbox")
        try Data("profile ios\nat 0 launch\nat 1s track \u{FF}".utf8.map { $0 } + [0xFF, 0x0A]).write(to: url)
        let (status, _, err) = cli(["run", url.path])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(
            err, "\(url.path):3: cannot read the file: the line is not UTF-8 text; expected a readable scenario file\n")
    }

    // MARK: output that cannot be written

    /// `outbox run FILE > /dev/full`: one line on stderr, exit 1, no crash.
    func testAFullDiskOnStdoutEndsWithExitOne() throws {
        let path = packageRoot + "/examples/ios-logout.outbox"
        let full = open("/dev/full", O_WRONLY)
        try XCTSkipIf(full < 0, "no /dev/full on this system")
        defer { close(full) }
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let console = Console.writing(out: full, err: fds[1])
        let status = CLI.main(["run", path], console: console)
        close(fds[1])
        var buf = [UInt8](repeating: 0, count: 4096)
        let n = read(fds[0], &buf, buf.count)
        close(fds[0])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(
            String(decoding: buf[0..<max(n, 0)], as: UTF8.self),
            "outbox: cannot write to standard output: No space left on device\n")
    }

    /// `outbox run FILE | head`: the reader goes away; the run stops early, quietly.
    func testAReaderThatGoesAwayEndsTheRunQuietly() throws {
        Platform.ignoreBrokenPipes()
        var text = "profile ios\nat 0 launch\n"
        for i in 1...3000 { text += "at \(i)ms track e\(i)\n" }
        let path = try write(text)
        var out: [Int32] = [0, 0], err: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&out), 0)
        XCTAssertEqual(pipe(&err), 0)
        close(out[0])  // nobody reads stdout
        let console = Console.writing(out: out[1], err: err[1])
        let status = CLI.main(["run", path], console: console)
        close(out[1])
        close(err[1])
        var buf = [UInt8](repeating: 0, count: 4096)
        let n = read(err[0], &buf, buf.count)
        close(err[0])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(n, 0, "nothing said on stderr: " + String(decoding: buf[0..<max(n, 0)], as: UTF8.self))
        XCTAssertTrue(console.readerGone)
    }
}

/// Issue 10: control bytes from any input never reach the terminal through
/// `outbox run`, and a huge word is cut, not echoed whole.
final class OutputSafetyTests: XCTestCase {
    private func write(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "outbox-safety-\(UUID().uuidString).outbox")
        try Data(text.utf8).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    private func assertNoControlBytes(_ s: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for u in s.unicodeScalars where u != "\n" {
            XCTAssertFalse(
                SafeText.needsEscape(u), "\(what) holds U+\(String(u.value, radix: 16))", file: file, line: line)
        }
    }

    func testTimelineShowsControlBytesEscaped() throws {
        let path = try write(
            "profile ios\nat 0 launch\nat 1s track \"\u{1b}]2;TITLE\u{07}\"\nat 2s track \"\u{1b}[2J\u{9b}1m\"\nexpect at 3s state \"\u{1b}]2;TITLE\u{07}\" queued\n"
        )
        let (status, out, err) = cli(["run", path])
        XCTAssertEqual(status, 1)
        assertNoControlBytes(out, "stdout")
        assertNoControlBytes(err, "stderr")
        let lines = out.split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines[1],
            "00:00:01.000  #1    event          \\x1b]2;TITLE\\x07 new → pending                                             IOS-1"
        )
        XCTAssertTrue(out.contains("completion(#2 '\\x1b[2J\\u{9b}1m'): true"), out)
        XCTAssertTrue(
            err.contains("check failed: expect at 3s state \"\\x1b]2;TITLE\\x07\" queued: found #1 is delivered"), err)

        // JSONL keeps the names exact, as JSON escapes.
        let (_, json, _) = cli(["run", "--format", "jsonl", path])
        assertNoControlBytes(json, "jsonl")
        XCTAssertTrue(json.contains(#""name":"\u001b]2;TITLE\u0007""#), json)
        XCTAssertTrue(json.contains(#""name":"\u001b[2J\u009b1m""#), json)
    }

    func testErrorsShowControlBytesEscapedAndCutHugeWords() throws {
        var path = try write("profile ios\nat 0 \u{1b}[2Jlaunch\n")
        var (status, _, err) = cli(["run", path])
        XCTAssertEqual(status, 2)
        XCTAssertTrue(err.hasPrefix("\(path):2: unknown action `\\x1b[2Jlaunch`, expected one of: launch"), err)

        path = try write("profile ios\nat 0 " + String(repeating: "x", count: 1_000_000) + "\n")
        (status, _, err) = cli(["run", path])
        XCTAssertEqual(status, 2)
        XCTAssertLessThan(err.utf8.count, 1000, "a 1 MB word is not echoed whole")
        XCTAssertTrue(err.contains("`" + String(repeating: "x", count: 199) + "…[+"), err)
        // The word is "`xxx…x`," (1,000,003 characters): 200 shown, the rest counted,
        // and its closing "`," kept after the mark, so the quote still ends (issue 22).
        XCTAssertTrue(err.contains("…[+999801 chars]`, expected one of: launch"), err)
    }

    /// Issue 22: the cut mark never eats the marks that close a quoted word.
    func testACutWordKeepsItsClosingMarks() {
        let delays = Array(repeating: "1s", count: 1000).joined(separator: ",")
        XCTAssertEqual(
            SafeText.line("bad value `\(delays)x` for retry.delays"),
            "bad value `" + String(delays.prefix(199)) + "…[+2801 chars]` for retry.delays")
        XCTAssertEqual(
            SafeText.line("(" + String(repeating: "y", count: 300) + ");", maxWord: 10), "(yyyyyyyyy…[+291 chars]);")
        // Nothing but closing marks: the word is cut as any other.
        XCTAssertEqual(
            SafeText.line(String(repeating: ",", count: 20), maxWord: 10),
            String(repeating: ",", count: 10) + "…[+6 chars],,,,")
    }

    func testSafeLineLeavesPlainLinesAloneAndIsIdempotent() {
        let plain = "00:00:01.000  #1    event          buy             new → pending    IOS-1"
        XCTAssertEqual(SafeText.line(plain), plain)
        let hostile = "a\u{1b}b " + String(repeating: "y", count: 300) + " \u{202e}z"
        let once = SafeText.line(hostile)
        XCTAssertEqual(once, "a\\x1bb " + String(repeating: "y", count: 200) + "…[+100 chars] \\u{202e}z")
        XCTAssertEqual(SafeText.line(once, maxWord: 1000), once)
    }
}

/// Issue 10: theme files given by path are read with limits and plain errors.
final class ThemeFileTests: XCTestCase {
    func testThemePathsThatAreNotThemesSayWhy() throws {
        func message(_ spec: String) -> String? {
            if case .failure(let p) = InteractiveCommand.loadTheme(spec) { return p.message }
            return nil
        }
        XCTAssertEqual(
            message("/tmp"), "/tmp: cannot read the theme file: it is a directory; expected a readable .theme file")
        XCTAssertEqual(
            message("/nonexistent/x.theme"),
            "/nonexistent/x.theme: cannot read the theme file: No such file or directory; expected a readable .theme file"
        )
        if FileManager.default.fileExists(atPath: "/dev/zero") {
            XCTAssertEqual(
                message("/dev/zero"),
                "/dev/zero: cannot read the theme file: it is a character device, expected a regular file")
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("crlf-\(UUID().uuidString).theme")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("normal default default\r\nheader black cyan bold\r\n".utf8).write(to: url)
        XCTAssertNil(message(url.path), "a CRLF theme loads")
    }
}

/// The benchmark drives the core with budgets past what input may ask for; the
/// input limits must not starve it (it looped for ever when they did).
final class BenchUnderLimitsTests: XCTestCase {
    func testTheTransitionsFigureRunsItsWorkloadUnderTheInputLimits() {
        let rate = ModelBench.transitionsPerSecond(live: 10, transitions: 20_000)
        XCTAssertGreaterThan(rate, 0)
    }
}
