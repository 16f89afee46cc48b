import Foundation
import OutboxCore
import OutboxTestSupport
import XCTest

/// `outbox serve` as a user runs it: the built binary on a free port, its first
/// line the address, curl as the client, the report and the exit status when
/// it ends (idle, a time, a signal), and bad input refused before it listens.
final class ServeCommandTests: XCTestCase {
    /// The `outbox` executable beside the test bundle, or .build/debug's.
    static func binary() throws -> String {
        let bundle = Bundle(for: ServeCommandTests.self).bundleURL
        for c in [
            bundle.deletingLastPathComponent().appendingPathComponent("outbox").path,
            bundle.appendingPathComponent("outbox").path, packageRoot + "/.build/debug/outbox",
        ] where FileManager.default.isExecutableFile(atPath: c) {
            return c
        }
        throw XCTSkip("no built outbox executable (swift build)")
    }

    struct Running {
        let process: Process
        let out: Pipe, err: Pipe
        let port: Int
        let firstLine: String
    }

    /// Starts `outbox serve ARGS --listen 127.0.0.1:0 --headless` and reads its address.
    func start(_ args: [String]) throws -> Running {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try Self.binary())
        p.arguments = ["serve", "--listen", "127.0.0.1:0", "--headless"] + args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // The first line, byte by byte: nothing else is written until the end.
        var line: [UInt8] = []
        while true {
            let b = out.fileHandleForReading.readData(ofLength: 1)
            guard let c = b.first else { break }
            if c == 0x0A { break }
            line.append(c)
        }
        let first = String(decoding: line, as: UTF8.self)
        let port = Int(first.split(separator: ":").last ?? "") ?? 0
        return Running(process: p, out: out, err: err, port: port, firstLine: first)
    }

    func finish(_ r: Running) -> (Int32, String, String) {
        let o = String(decoding: r.out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let e = String(decoding: r.err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        r.process.waitUntilExit()
        return (r.process.terminationStatus, o, e)
    }

    func post(_ port: Int, _ body: String) throws {
        let (status, _, err) = try runProgram(
            "/usr/bin/curl", ["-sS", "--max-time", "5", "-d", body, "http://127.0.0.1:\(port)/v1/batch"])
        XCTAssertTrue(status == 0, err)
    }

    func script(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "serve-cmd-\(getpid())-\(text.hashValue).outbox"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let body = #"{"batch":[{"type":"track","event":"signup","messageId":"m-1"}]}"#

    func test_idle_endsTheRun_reportsEachRequestAndTheChecks_exit1WhenOneFails() throws {
        let file = try script(
            "profile ios\nat 0 launch\nat 0 server 503\nexpect attempts signup 2\nexpect counted signup 2\n")
        let r = try start(["--script", file, "--until", "idle:1s"])
        XCTAssertTrue(r.firstLine.hasPrefix("outbox serve: listening on http://127.0.0.1:"), r.firstLine)
        try post(r.port, Self.body)
        try post(r.port, Self.body)
        let (status, out, err) = finish(r)
        XCTAssertEqual(status, 1, out + err)
        let lines = out.split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines.first, "outbox serve: 2 lines of \(file) skipped (the app's actions: the real SDK makes them)")
        XCTAssertTrue(lines.contains { $0.hasSuffix("request   POST /v1/batch  segment  signup  → 503") }, out)
        XCTAssertTrue(
            lines.contains { $0.hasSuffix("request   POST /v1/batch  segment  signup (attempt 2)  → ok") }, out)
        XCTAssertTrue(lines.contains("  signup  m-1  segment  2 attempts, answered 2xx"), out)
        XCTAssertTrue(lines.contains("expect    expect attempts signup 2  ✓"), out)
        XCTAssertTrue(lines.contains("expect    expect counted signup 2  ✗ FAILED: 1 answered 2xx"), out)
        XCTAssertTrue(
            lines.last?.hasPrefix("serve: 2 requests (0 unrecognised), 1 event, 1 passed, 1 failed · ended at 00:00:0")
                ?? false, out)
        XCTAssertTrue(lines.last?.hasSuffix("(idle for 1s)") ?? false, out)
        XCTAssertEqual(err, "\(file):5: check failed: expect counted signup 2: found 1 answered 2xx\n")
    }

    func test_jsonlAndJUnit_andASignalEndsTheRunWithItsReport() throws {
        let r = try start(["--format", "jsonl", "--until", "30s"])
        try post(r.port, Self.body)
        r.process.interrupt()
        let (status, out, _) = finish(r)
        XCTAssertEqual(status, 130)
        let lines = out.split(separator: "\n").map(String.init)
        XCTAssertTrue(
            lines.contains {
                $0.contains(#""event":"signup","id":"m-1","attempt":1,"answer":"ok","request":1,"format":"segment"}"#)
            }, out)
        XCTAssertTrue(
            lines.contains(
                #"{"event":"signup","id":"m-1","kind":"track","format":"segment","attempts":1,"delivered":true,"verdict":"observed"}"#
            ), out)
        XCTAssertTrue(lines.last?.contains(#""why":"stopped by SIGINT""#) ?? false, out)
        for line in lines.dropFirst() {
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)), line)
        }
        let j = try start(["--format", "junit", "--until", "1s"])
        try post(j.port, Self.body)
        let (js, xml, _) = finish(j)
        XCTAssertEqual(js, 0)
        let doc = String(xml.drop { $0 != "<" })
        XCTAssertTrue(doc.contains(#"<testcase name="signup m-1" classname="segment">"#), doc)
        XCTAssertTrue(doc.contains("<system-out>1 attempt: ok</system-out>"), doc)
    }

    /// `--report FILE`: the JUnit or HTML document alone in the file, whole (a CI
    /// step reads it), and stdout keeps the address and says where the report is.
    func test_reportFile_holdsTheWholeDocument_stdoutTheAddress() throws {
        let dir = NSTemporaryDirectory() + "serve-report-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (format, head, tail) in [
            ("junit", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", "</testsuites>\n"),
            ("html", "<!DOCTYPE html>\n", "</html>\n"),
        ] {
            let path = dir + "/report." + format
            try "old".write(toFile: path, atomically: true, encoding: .utf8)
            let r = try start(["--format", format, "--until", "1s", "--report", path])
            try post(r.port, Self.body)
            let (status, out, err) = finish(r)
            XCTAssertEqual(status, 0, err)
            XCTAssertTrue(r.firstLine.hasPrefix("outbox serve: listening on "), r.firstLine)
            XCTAssertEqual(out, "outbox serve: the report is in \(path)\n")
            let doc = try String(contentsOfFile: path, encoding: .utf8)
            XCTAssertTrue(doc.hasPrefix(head) && doc.hasSuffix(tail), doc)
            XCTAssertTrue(doc.contains("signup"), doc)
        }
        let (status, _, err) = cli(["serve", "--headless", "--report", dir])
        XCTAssertEqual(status, 2)
        XCTAssertTrue(err.contains("cannot write the report to \(dir): "), err)
    }

    func test_badInput_isRefusedBeforeListening_exit2() throws {
        let bin = try Self.binary()
        let cases: [([String], String)] = [
            (
                ["serve"],
                // No terminal here (the live screen's refusal, before listening).
                "outbox serve: the live screen needs a terminal, and standard input or output is not one; run `outbox serve --headless` instead"
            ),
            (
                ["serve", "--headless", "--listen", "localhost"],
                "outbox serve: --listen needs HOST:PORT (127.0.0.1:8080, or port 0 for a free one)"
            ),
            (
                ["serve", "--headless", "--listen", "127.0.0.1:70000"],
                "outbox serve: bad --listen `127.0.0.1:70000`, expected HOST:PORT with a port from 0 to 65535"
            ),
            (
                ["serve", "--headless", "--until", "soon"],
                "outbox serve: bad --until `soon`, expected a duration above 0 (30s) or idle:DURATION (idle:5s)"
            ),
            (
                ["serve", "--headless", "--format", "xml"],
                "outbox serve: --format needs text, jsonl, junit or html, not `xml`"
            ),
            (["serve", "--headless", "--script", "/nonexistent/x.outbox"], "outbox serve: /nonexistent/x.outbox: "),
            (["serve", "--headless", "--listen", "256.1.1.1:0"], "outbox serve: cannot listen on 256.1.1.1:0: "),
        ]
        for (args, message) in cases {
            let (status, out, err) = try runProgram(bin, args)
            XCTAssertEqual(status, 2, "\(args): \(out) \(err)")
            XCTAssertTrue(err.hasPrefix(message), "\(args): \(err)")
            XCTAssertEqual(out, "", "\(args)")
        }
        let exists = try script("# here\n")
        for (args, message) in [
            (["--record", "/tmp/x.outbox"], "outbox serve: --record needs --profile P: the recording's profile line"),
            (["--record", exists, "--profile", "ios"], "outbox serve: \(exists) exists; --force replaces it"),
            (["--force"], "outbox serve: --force goes with --record FILE"),
            (
                ["--record", "/tmp", "--profile", "ios", "--force"],
                "outbox serve: cannot record to /tmp: it is a directory"
            ),
        ] {
            let (status, _, err) = try runProgram(bin, ["serve", "--headless"] + args)
            XCTAssertEqual(status, 2, "\(args)")
            XCTAssertTrue(err.hasPrefix(message), "\(args): \(err)")
        }
        XCTAssertEqual(try String(contentsOfFile: exists, encoding: .utf8), "# here\n", "kept")
        let bad = try script("at 1s server 5O3\n")
        let (status, _, err) = try runProgram(bin, ["serve", "--headless", "--script", bad])
        XCTAssertEqual(status, 2)
        XCTAssertTrue(err.hasPrefix("\(bad):1: bad server line: unknown answer `5O3`"), err)
    }

    /// `--profile`: a retry a tenth of a second after a 503, which iOS waits 30 s
    /// for, diverges: the event's line says why, stderr repeats it, exit 1.
    func test_profile_aRetryTooSoonDiverges_exit1() throws {
        let file = try script("at 0 server 503\n")
        let r = try start(["--script", file, "--until", "idle:1s", "--profile", "ios"])
        try post(r.port, Self.body)
        try post(r.port, Self.body)
        let (status, out, err) = finish(r)
        XCTAssertEqual(status, 1, out + err)
        XCTAssertTrue(out.contains("events, held to ios:\n"), out)
        XCTAssertTrue(
            out.contains("  signup  m-1  segment  2 attempts, answered 2xx, diverges: attempt 2 came "), out)
        XCTAssertTrue(out.contains("after attempt 1's 503; ios predicts 30s ± 3s (rule IOS-4)"), out)
        XCTAssertTrue(out.contains(", 1 event (1 diverges) · ended at"), out)
        XCTAssertTrue(err.hasPrefix("outbox serve: signup (m-1) diverges from ios: attempt 2 came "), err)
        let (bad, _, e2) = try runProgram(try Self.binary(), ["serve", "--headless", "--profile", "iso"])
        XCTAssertEqual(bad, 2)
        XCTAssertTrue(e2.hasPrefix("outbox serve: unknown profile `iso`"), e2)
    }

    /// The script's `set KEY VALUE` lines are the SDK as the run configured it:
    /// the same retry a tenth of a second after a 503 conforms to ios with
    /// `set retry.delays 200ms`; a key the profile lacks is refused by line.
    func test_profile_theScriptsSetLinesAreTheRunsConfiguration() throws {
        let file = try script("set retry.delays 200ms\nat 0 server 503\n")
        let r = try start(["--script", file, "--until", "idle:1s", "--profile", "ios"])
        try post(r.port, Self.body)
        try post(r.port, Self.body)
        let (status, out, err) = finish(r)
        XCTAssertEqual(status, 0, out + err)
        XCTAssertTrue(out.contains("  signup  m-1  segment  2 attempts, answered 2xx, conforms"), out)
        let bad = try script("set retry.atempts 3\n")
        let (b, _, e) = try runProgram(try Self.binary(), ["serve", "--headless", "--script", bad, "--profile", "ios"])
        XCTAssertEqual(b, 2)
        XCTAssertTrue(e.hasPrefix("\(bad):1: unknown setting `retry.atempts`, expected one of: "), e)
        XCTAssertTrue(e.contains("did you mean `retry.attempts`?"), e)
    }
}
