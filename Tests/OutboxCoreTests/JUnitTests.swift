import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `outbox run --format junit` as a CI server reads it, and the `"file"` key of
/// JSONL with several files (docs/scenarios.md, "JUnit" and "JSONL").
final class JUnitTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("outbox-junit-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    private func write(_ text: String, _ name: String) throws -> String {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    private let passing = """
        profile android
        at 0 launch
        at 1s ping
        expect at 2s state ping delivered
        expect at 2s received ping 1   # a comment is not part of the name
        """

    private let failing = """
        profile ios
        at 0 launch
        at 1s track purchase
        expect at 2s state purchase queued
        expect at 2s attempts purchase 1
        expect at 3s received purchase 7
        """

    // MARK: What a CI server reads

    func testEveryExpectIsATestCaseAndFailuresAreCountedWithWhatWasFound() throws {
        let good = try write(passing, "good.outbox")
        let bad = try write(failing, "bad.outbox")
        let (status, out, err) = cli(["run", "--format", "junit", good, bad])
        XCTAssertEqual(status, 1, err)
        let doc = try XCTUnwrap(XMLDocumentTree(out), out)

        XCTAssertEqual(doc.root.name, "testsuites")
        XCTAssertEqual(doc.root.attributes["tests"], "5")
        XCTAssertEqual(doc.root.attributes["failures"], "2")
        let suites = doc.root.children.filter { $0.name == "testsuite" }
        XCTAssertEqual(suites.map { $0.attributes["name"] }, [good, bad])
        XCTAssertEqual(suites.map { $0.attributes["tests"] }, ["2", "3"])
        XCTAssertEqual(suites.map { $0.attributes["failures"] }, ["0", "2"])

        let cases = suites[1].children.filter { $0.name == "testcase" }
        XCTAssertEqual(
            cases.map { $0.attributes["name"]! },
            [
                "\(bad):4: expect at 2s state purchase queued",
                "\(bad):5: expect at 2s attempts purchase 1",
                "\(bad):6: expect at 3s received purchase 7",
            ])
        XCTAssertEqual(Set(cases.map { $0.attributes["classname"]! }), [bad])
        let failures = cases.map { $0.children.first { $0.name == "failure" } }
        XCTAssertEqual(failures.map { $0?.attributes["message"] }, ["found #1 is delivered", nil, "found received 1"])
        XCTAssertEqual(
            failures[0]?.text, "\(bad):4: check failed: expect at 2s state purchase queued: found #1 is delivered")
        // Virtual time: the moment each case was checked, and where each run ended.
        XCTAssertEqual(
            cases.map { $0.children.first { $0.name == "system-out" }?.text },
            [
                "checked at 00:00:02.000 virtual time", "checked at 00:00:02.000 virtual time",
                "checked at 00:00:03.000 virtual time",
            ])
        let props = suites.map { s in
            s.children.first { $0.name == "properties" }!.children.map {
                $0.attributes["name"]! + "=" + $0.attributes["value"]!
            }
        }
        XCTAssertEqual(
            props,
            [
                ["profile=android", "virtual-time=2", "transitions=3"],
                ["profile=ios", "virtual-time=3", "transitions=3"],
            ])
        // Wall time: seconds with six decimals, the cases within their suite's.
        for s in suites {
            let total = try XCTUnwrap(Double(s.attributes["time"]!))
            let parts = s.children.filter { $0.name == "testcase" }.map { Double($0.attributes["time"]!)! }
            XCTAssertLessThanOrEqual(parts.reduce(0, +), total + 0.000_001 * Double(parts.count))
            XCTAssertTrue(s.attributes["time"]!.range(of: #"^\d+\.\d{6}$"#, options: .regularExpression) != nil)
        }
        // stderr as for jsonl: the failures and the summaries.
        XCTAssertTrue(
            err.contains("\(bad):4: check failed: expect at 2s state purchase queued: found #1 is delivered"), err)
        XCTAssertTrue(err.contains("3 passed, 2 failed"), err)
    }

    func testAllPassingExitsZeroWithOneSuite() throws {
        let good = try write(passing, "good.outbox")
        let (status, out, err) = cli(["run", "--format=junit", good])
        XCTAssertEqual(status, 0, err)
        let doc = try XCTUnwrap(XMLDocumentTree(out), out)
        XCTAssertEqual(doc.root.children.filter { $0.name == "testsuite" }.count, 1)
        XCTAssertEqual(doc.root.attributes["failures"], "0")
        XCTAssertFalse(out.contains("<failure"), out)
        XCTAssertTrue(out.contains(#"name="\#(good):5: expect at 2s received ping 1" "#), out)
    }

    /// Bad input anywhere: exit 2, the problems on stderr, nothing on stdout.
    func testBadInputWritesNothingAndExitsTwo() throws {
        let good = try write(passing, "good.outbox")
        let broken = try write("profile ios\nat 5 launch\n", "broken.outbox")
        let (status, out, err) = cli(["run", "--format", "junit", good, broken])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertTrue(err.contains("\(broken):2: bad time `5`"), err)

        let (s2, out2, err2) = cli(["run", "--format", "xml", good])
        XCTAssertEqual(s2, 2)
        XCTAssertEqual(out2, "")
        XCTAssertTrue(err2.contains("--format needs text, jsonl, junit, html or svg"), err2)
    }

    /// A run stopped at a limit is exit 2 as today, and the report is not written.
    func testARunStoppedAtALimitWritesNothing() throws {
        let good = try write(passing, "good.outbox")
        let (status, out, err) = cli(["run", "--format", "junit", "--max-transitions", "2", good])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertTrue(err.contains("the run stopped at"), err)
    }

    // MARK: Escaping

    /// A file name may hold any character but `/` and NUL: markup, quotes, an
    /// escape sequence, a tab, a line end, a bidi override, U+FFFF. The report
    /// still parses, and each reads as the timeline shows it.
    func testHostileNamesAreEscapedAndTheReportStillParses() throws {
        let name = "a<b>&\"c'\u{1b}[2J\t\n\u{202e}\u{ffff}.outbox"
        let hostile = try write(
            "profile ios\nat 0 launch\nat 0 track \"x<&>\\x1b\"\nexpect at 1s state \"x<&>\\x1b\" queued\n", name)
        let (status, out, _) = cli(["run", "--format", "junit", hostile])
        XCTAssertEqual(status, 1)
        let doc = try XCTUnwrap(XMLDocumentTree(out), out)
        let suite = try XCTUnwrap(doc.root.children.first { $0.name == "testsuite" })
        let shown = dir.path + "/a<b>&\"c'\\x1b[2J\\t\\n\\u{202e}\\u{ffff}.outbox"
        XCTAssertEqual(suite.attributes["name"], shown)
        let testcase = try XCTUnwrap(suite.children.first { $0.name == "testcase" })
        XCTAssertEqual(testcase.attributes["name"], shown + #":4: expect at 1s state "x<&>\x1b" queued"#)
        XCTAssertEqual(testcase.children.first?.attributes["message"], #"found #1 is delivered"#)
        // No control character reaches the document.
        XCTAssertFalse(out.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, out)
    }

    /// The renderer alone, byte for byte: what every text goes through.
    func testTheRendererWritesThisDocument() {
        let suite = JUnitReport.Suite(
            file: "q&a.outbox", profile: "./a'b.profile",
            cases: [
                .init(
                    line: 3, text: "expect at 1s state \"<x>\" queued", ok: true, found: "", time: 1000, wallMicros: 12),
                .init(
                    line: 4, text: "expect at 2s saved 0", ok: false, found: "1 saved\r\n\u{1}", time: 2000,
                    wallMicros: 1_500_000),
            ], ended: 2500, transitions: 7, wallMicros: 2_000_001)
        XCTAssertEqual(
            JUnitReport.render([suite]),
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="outbox run" tests="2" failures="1" errors="0" time="2.000001">
              <testsuite name="q&amp;a.outbox" tests="2" failures="1" errors="0" skipped="0" time="2.000001">
                <properties>
                  <property name="profile" value="./a&#39;b.profile"/>
                  <property name="virtual-time" value="2.5"/>
                  <property name="transitions" value="7"/>
                </properties>
                <testcase name="q&amp;a.outbox:3: expect at 1s state &quot;&lt;x&gt;&quot; queued" classname="q&amp;a.outbox" time="0.000012">
                  <system-out>checked at 00:00:01.000 virtual time</system-out>
                </testcase>
                <testcase name="q&amp;a.outbox:4: expect at 2s saved 0" classname="q&amp;a.outbox" time="1.500000">
                  <failure message="found 1 saved\\r\\n\\x01" type="check failed">q&amp;a.outbox:4: check failed: expect at 2s saved 0: found 1 saved\\r\\n\\x01</failure>
                  <system-out>checked at 00:00:02.000 virtual time</system-out>
                </testcase>
              </testsuite>
            </testsuites>

            """)
    }

    // MARK: JSONL with several files

    /// One file: the lines are exactly as before (no `"file"`); several: each
    /// line names its file right after `"t"`.
    func testJSONLNamesTheFileOnlyWhenThereAreSeveral() throws {
        let good = try write(passing, "good.outbox")
        let bad = try write(failing, "bad.outbox")
        let (s1, one, _) = cli(["run", "--format", "jsonl", good])
        XCTAssertEqual(s1, 0)
        XCTAssertEqual(
            one.split(separator: "\n").last.map(String.init),
            #"{"t":2,"expect":"expect at 2s received ping 1","ok":true,"line":5}"#)
        XCTAssertFalse(one.contains("\"file\""), one)

        let (s2, both, _) = cli(["run", "--format", "jsonl", good, bad])
        XCTAssertEqual(s2, 1)
        let lines = both.split(separator: "\n").map(String.init)
        let q = { (p: String) in JSONObject.quote(p) }
        // Each line is the single-file line with the file inserted second.
        func withFile(_ line: Substring, _ file: String) -> String {
            let comma = line.firstIndex(of: ",")!
            return String(line[..<comma]) + ",\"file\":" + q(file) + String(line[comma...])
        }
        let (_, alone, _) = cli(["run", "--format", "jsonl", bad])
        let expected =
            one.split(separator: "\n").map { withFile($0, good) }
            + alone.split(separator: "\n").map { withFile($0, bad) }
        XCTAssertEqual(lines, expected)
        XCTAssertEqual(
            lines.last,
            #"{"t":3,"file":\#(q(bad)),"expect":"expect at 3s received purchase 7","ok":false,"line":6,"found":"received 1"}"#
        )
    }
}

/// A parsed XML document as a tree, with Foundation's XMLParser (which refuses
/// anything that is not well-formed).
struct XMLDocumentTree {
    final class Node {
        let name: String
        let attributes: [String: String]
        var children: [Node] = []
        var text = ""
        init(name: String, attributes: [String: String]) {
            self.name = name
            self.attributes = attributes
        }
    }

    let root: Node

    init?(_ text: String) {
        let parser = XMLParser(data: Data(text.utf8))
        let builder = Builder()
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else { return nil }
        self.root = root
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: Node?
        var stack: [Node] = []

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String]
        ) {
            let node = Node(name: name, attributes: attributes)
            if let parent = stack.last { parent.children.append(node) } else { root = node }
            stack.append(node)
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }
    }
}
