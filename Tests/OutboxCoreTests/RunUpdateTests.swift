import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// `outbox run --update FILE...` (issue 15, item 2): failing expect values
/// rewritten to what the run found, every other byte kept, written whole
/// (mode kept), then the files run again for the exit status.
final class RunUpdateTests: XCTestCase {
    var dir = ""

    override func setUp() {
        dir = NSTemporaryDirectory() + "outbox-update-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func write(_ name: String, _ text: String, mode: Int = 0o644) throws -> String {
        let path = dir + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    func read(_ path: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    func mode(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! Int
    }

    /// CRLF line ends, comments, tabs, a quoted name holding `#`: only the
    /// values of the failing lines change; what cannot be taken from the run
    /// is said and left; the status is the run's after the update.
    func testRewritesOnlyTheFailingValues_keepingEveryOtherByte() throws {
        let lines = [
            "# a regression test\t(kept)",
            "profile ios",
            "at 0 launch",
            "at 0 track \"my #1 purchase\"   # quoted, with a #",
            "at 0 server 503 x2",
            "at 0 track \"my #1 purchase\"",
            "expect at 5s   state \"my #1 purchase\"  delivered   # they differ: left",
            "expect at 5s attempts \"my #1 purchase\"\t3",
            "expect at 5s request 2 attempts  9 # one",
            "expect at 5s request 1 dropped consent",
            "expect at 5s saved 7",
            "expect at 5s log \"nothing like it\"",
            "expect at 5s received \"my #1 purchase\" 2  # holds: untouched",
            "expect at 4m request 2 \"queued\"",
            "",
        ]
        let file = try write("u.outbox", lines.joined(separator: "\r\n"), mode: 0o640)
        let (status, out, err) = cli(["run", "--quiet", "--update", file])
        XCTAssertEqual(status, 1)
        var want = lines
        want[7] = "expect at 5s attempts \"my #1 purchase\"\t1"
        want[8] = "expect at 5s request 2 attempts  1 # one"
        want[10] = "expect at 5s saved 1"
        want[13] = "expect at 4m request 2 delivered"
        XCTAssertEqual(try read(file), want.joined(separator: "\r\n"))
        XCTAssertEqual(try mode(file), 0o640)
        XCTAssertEqual(
            err,
            """
            \(file):7: cannot update expect at 5s   state "my #1 purchase"  delivered: the requests named 'my #1 purchase' differ (#1 delivered, #2 retrying), expected one state for all: check each with `request ID` (E pins them so)
            \(file):8: expect at 5s attempts "my #1 purchase"\\t3 → expect at 5s attempts "my #1 purchase"\\t1
            \(file):9: expect at 5s request 2 attempts  9 → expect at 5s request 2 attempts  1
            \(file):10: cannot update expect at 5s request 1 dropped consent: #1 is delivered, not dropped: a `dropped` check takes only a reason, expected the check edited by hand
            \(file):11: expect at 5s saved 7 → expect at 5s saved 1
            \(file):12: cannot update expect at 5s log "nothing like it": a log check names a text, not a value the run can give, expected the text edited by hand
            \(file):14: expect at 4m request 2 "queued" → expect at 4m request 2 delivered
            \(file): updated 4 expect lines, 3 left as they were
            \(file):7: check failed: expect at 5s   state "my #1 purchase"  delivered: found #2 is retrying
            \(file):10: check failed: expect at 5s request 1 dropped consent: found #1 is delivered
            \(file):12: check failed: expect at 5s log "nothing like it": found no log line contains "nothing like it"

            """)
        XCTAssertTrue(out.hasSuffix("\(file): 5 passed, 3 failed · 10 transitions · ended at 00:04:00.000\n"), out)
        // No temporary file is left beside it.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["u.outbox"])
    }

    /// When every failing value can be taken, the file holds afterwards: 0; a
    /// second update finds nothing to change and leaves the file as it is.
    func testAFileThatNowHolds_exitsZero_andASecondUpdateChangesNothing() throws {
        let text =
            "profile flutter\nat 0 launch\nat 1s track a\nexpect at 2s state a queued\nexpect at 2s counted a 0\n"
        let file = try write("ok.outbox", text)
        let (status, out, err) = cli(["run", "-q", "--update", file])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(
            err,
            """
            \(file):4: expect at 2s state a queued → expect at 2s state a delivered
            \(file):5: expect at 2s counted a 0 → expect at 2s counted a 1
            \(file): updated 2 expect lines

            """)
        XCTAssertEqual(out, "\(file): 2 passed, 0 failed · 3 transitions · ended at 00:00:02.000\n")
        let updated = try read(file)
        XCTAssertEqual(
            updated,
            text.replacingOccurrences(of: "a queued", with: "a delivered").replacingOccurrences(
                of: "counted a 0", with: "counted a 1"))
        let (again, _, err2) = cli(["run", "-q", "--update", file])
        XCTAssertEqual(again, 0)
        XCTAssertEqual(err2, "")
        XCTAssertEqual(try read(file), updated)
    }

    /// Bad input anywhere: nothing is written, status 2 as `run`'s.
    func testBadInput_writesNothing() throws {
        let good = try write("good.outbox", "profile ios\nat 0 launch\nat 0 track a\nexpect at 1s saved 9\n")
        let bad = try write("bad.outbox", "profile ios\nat 0 lanch\n")
        let (status, _, err) = cli(["run", "--update", good, bad])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(
            err, "\(bad):2: unknown action `lanch`, expected one of: \(ActionSyntax.verbs()); did you mean `launch`?\n")
        XCTAssertEqual(try read(good), "profile ios\nat 0 launch\nat 0 track a\nexpect at 1s saved 9\n")
    }

    func testRefusedCombinations() throws {
        let file = try write("r.outbox", "profile ios\nat 0 launch\nexpect at 1s saved 9\n")
        let cases: [([String], String)] = [
            (
                ["--watch"],
                "outbox run: --update does not go with --watch (a watch that rewrites the files it watches would fight the editor); update once, then watch"
            ),
            (
                ["--state-dir", dir],
                "outbox run: --update does not go with --state-dir (the device on disk changes with each run, so the run that confirms the update would not see what it saw)"
            ),
            (
                ["--format", "junit"],
                "outbox run: --update does not go with --format junit (a report of checks just rewritten to hold says nothing); update, then run with --format junit"
            ),
            ([file], "outbox run: --update got \(file) twice, expected each file once"),
        ]
        for (extra, message) in cases {
            let (status, out, err) = cli(["run", "--update", file] + extra)
            XCTAssertEqual(status, 2, extra.joined(separator: " "))
            XCTAssertEqual(out, "")
            XCTAssertEqual(err, message + "\n")
        }
        XCTAssertEqual(try read(file), "profile ios\nat 0 launch\nexpect at 1s saved 9\n")
    }

    /// A symbolic link: the file it names is updated, the link stays a link.
    func testThroughALink_theTargetIsUpdated() throws {
        let target = try write("target.outbox", "profile ios\nat 0 launch\nexpect at 1s saved 9\n", mode: 0o600)
        let link = dir + "/link.outbox"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let (status, _, _) = cli(["run", "-q", "--update", link])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(try read(target), "profile ios\nat 0 launch\nexpect at 1s saved 0\n")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), target)
        XCTAssertEqual(try mode(target), 0o600)
    }

    /// Without --update the file is never written.
    func testPlainRunLeavesTheFile() throws {
        let file = try write("p.outbox", "profile ios\nat 0 launch\nexpect at 1s saved 9\n")
        let (status, _, _) = cli(["run", "-q", file])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(try read(file), "profile ios\nat 0 launch\nexpect at 1s saved 9\n")
    }
}

extension RunUpdateTests {
    /// docs/scenarios.md's example of `--update` says what it prints (stderr) and does.
    func testTheDocsExampleIsWhatItPrints() throws {
        let doc = try String(contentsOfFile: packageRoot + "/docs/scenarios.md", encoding: .utf8)
        guard let cat = doc.range(of: "$ cat checkout.outbox\n"),
            let run = doc.range(of: "$ outbox run --quiet --update checkout.outbox 2>&1 >/dev/null\n"),
            let end = doc.range(of: "$ echo $?\n1\n```", range: run.upperBound..<doc.endIndex)
        else { return XCTFail("docs/scenarios.md lost its --update example") }
        let text = String(doc[cat.upperBound..<run.lowerBound])
        let path = try write("checkout.outbox", text)
        let (status, _, err) = cli(["run", "--quiet", "--update", path])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(
            err.replacingOccurrences(of: path, with: "checkout.outbox"), String(doc[run.upperBound..<end.lowerBound]))
        XCTAssertEqual(
            try read(path),
            text.replacingOccurrences(of: "purchase 3 ", with: "purchase 1 ").replacingOccurrences(
                of: "saved 7", with: "saved 1"))
    }
}
