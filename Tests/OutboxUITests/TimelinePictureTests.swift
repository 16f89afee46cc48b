import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxUI

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A parsed XML element: enough of a tree to ask what a picture holds.
final class XMLNode {
    let name: String
    let attributes: [String: String]
    var children: [XMLNode] = []
    var text = ""
    init(_ name: String, _ attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// Every element below (and including) this one, in document order.
    var all: [XMLNode] { [self] + children.flatMap(\.all) }
    /// The elements below with `class="c"`.
    func classed(_ c: String) -> [XMLNode] { all.filter { $0.attributes["class"] == c } }
    /// The text of this element and everything in it.
    var allText: String { text + children.map(\.allText).joined() }
    /// The first `<title>` child's text: a mark's tooltip.
    var tooltip: String? { children.first { $0.name == "title" }?.text }

    /// Parses `text` with Foundation's XMLParser; nil (and the parser's error) when it is not well-formed XML.
    static func parse(_ text: String) -> (XMLNode?, String) {
        final class Builder: NSObject, XMLParserDelegate {
            var stack: [XMLNode] = [XMLNode("#document", [:])]
            func parser(
                _ p: XMLParser, didStartElement e: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]
            ) {
                let n = XMLNode(e, attributes)
                stack.last!.children.append(n)
                stack.append(n)
            }
            func parser(_ p: XMLParser, didEndElement e: String, namespaceURI: String?, qualifiedName: String?) {
                stack.removeLast()
            }
            func parser(_ p: XMLParser, foundCharacters s: String) { stack.last!.text += s }
        }
        let parser = XMLParser(data: Data(text.utf8))
        let b = Builder()
        parser.delegate = b
        guard parser.parse() else { return (nil, parser.parserError.map { "\($0)" } ?? "?") }
        return (b.stack[0].children.first, "")
    }
}

/// `outbox run --format html|svg`, `outbox compare --format html|svg` and the live
/// screen's export to `.html` (issue 14): pages that need nothing outside
/// themselves, parse as XML, and draw a lane for every request.
final class TimelinePictureTests: XCTestCase {
    static let ladder = packageRoot + "/examples/ios-retry-ladder.outbox"
    static let purge = packageRoot + "/examples/linktrail-consent-purge.outbox"
    static let offline = packageRoot + "/examples/differences/offline.outbox"

    func cli(_ args: [String]) -> (Int32, String, String) {
        let console = Console.capturing()
        let status = CLI.main(args, console: console)
        return (status, console.out, console.err)
    }

    func parsed(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> XMLNode {
        let (root, why) = XMLNode.parse(text)
        return try XCTUnwrap(root, "not well-formed XML: " + why, file: file, line: line)
    }

    func test_runHTML_ladder_selfContained_everyPartThere() throws {
        let (status, out, err) = cli(["run", "--format", "html", Self.ladder])
        XCTAssertEqual(status, 0, err)
        // Self-contained: no reference to anything outside the page.
        XCTAssertFalse(out.lowercased().contains("http"), "the page refers to something outside itself")
        for outside in ["<script", "<link", "src=", "href=", "@import", "url("] {
            XCTAssertFalse(out.contains(outside), outside)
        }
        XCTAssertEqual(err, Self.ladder + ": 18 passed, 0 failed · 9 transitions · ended at 00:10:00.000\n")
        let page = try parsed(out)
        XCTAssertEqual(page.name, "html")
        XCTAssertEqual(page.all.first { $0.name == "title" }?.text, "outbox run " + Self.ladder)
        // One lane: the purchase, its four attempts and four 503s, dropped in the end.
        let lanes = page.classed("lane")
        XCTAssertEqual(lanes.map { $0.attributes["data-name"] }, ["purchase"])
        let lane = lanes[0]
        XCTAssertEqual(
            lane.classed("attempt").map(\.tooltip),
            [
                "attempt 1 in flight, 0 to 0.2s (200ms)", "attempt 2 in flight, 30.2s to 30.4s (200ms)",
                "attempt 3 in flight, 1m30.4s to 1m30.6s (200ms)", "attempt 4 in flight, 3m30.6s to 3m30.8s (200ms)",
            ])
        XCTAssertEqual(
            lane.classed("answer").map { $0.children.first { $0.name == "text" }?.text }, ["503", "503", "503", "503"])
        XCTAssertEqual(
            lane.classed("wait").map(\.tooltip),
            [
                "backoff wait, retrying after attempt 1: 0.2s to 30.2s (30s)",
                "backoff wait, retrying after attempt 2: 30.4s to 1m30.4s (1m0s)",
                "backoff wait, retrying after attempt 3: 1m30.6s to 3m30.6s (2m0s)",
            ])
        // Hovering the last answer shows its transition and its rule's text.
        let ios = Profile.ios
        let rule = ios.rule(ios.rule(id: "IOS-4")!)
        XCTAssertEqual(
            lane.classed("answer").last?.tooltip,
            "3m30.8s · #1 purchase · in-flight → dropped · attempt 4 · 503 · exhausted\nIOS-4: " + rule.text)
        XCTAssertEqual(
            lane.classed("final").map { $0.children.first { $0.name == "text" }?.text },
            ["dropped (exhausted) · 4 attempts"])
        XCTAssertEqual(
            lane.classed("note").map(\.tooltip),
            ["3m30.8s completion(#1 'purchase'): false (503 on the last of 4 attempts)"])
        // The quiet stretches are drawn shortened, each with its length written in it.
        XCTAssertEqual(
            page.classed("gap").map { $0.children.first { $0.name == "text" }?.text },
            [
                "≈ 30s", "≈ 1m0s", "≈ 2m0s", "≈ 6m29.2s",
            ])
        XCTAssertEqual(page.classed("gap").map { $0.attributes["data-ms"] }, ["30000", "60000", "120000", "389200"])
        // The legend, the backend, the final states, the checks, the log.
        XCTAssertEqual(page.classed("legend").count, 1)
        XCTAssertEqual(
            page.all.filter { $0.name == "p" && $0.attributes["class"] == "backend" }.map(\.allText),
            ["received 4 · counted 0 · duplicates 0 · rejected 4"])
        let requests = try XCTUnwrap(page.classed("requests").first)
        XCTAssertEqual(
            requests.children.dropFirst().map { $0.children.map(\.allText) },
            [["1", "purchase", "event", "dropped (exhausted)", "4"]])
        let checks = try XCTUnwrap(page.classed("checks").first)
        XCTAssertEqual(checks.children.count, 1 + 18)
        XCTAssertEqual(
            checks.children[1].children.map(\.allText),
            ["15", "00:00:00.000", "expect at 0 state purchase in-flight", "✓ pass"])
        XCTAssertEqual(checks.classed("fail").count, 0)
        let (_, text, _) = cli(["run", Self.ladder])
        let timeline = text.split(separator: "\n").filter { !$0.contains("  expect  ") && !$0.hasPrefix(Self.ladder) }
        XCTAssertEqual(page.classed("log").first?.text, timeline.map { $0 + "\n" }.joined())
    }

    func test_runHTML_failedCheck_markedWithWhatWasFound_exit1() throws {
        let dir = NSTemporaryDirectory() + "outbox-picture-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/bad.outbox"
        try "profile ios\nat 0 launch\nat 0 track purchase\nexpect at 1s state purchase dropped\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let (status, out, err) = cli(["run", "--format=html", file])
        XCTAssertEqual(status, 1)
        XCTAssertTrue(
            err.hasPrefix(file + ":4: check failed: expect at 1s state purchase dropped: found #1 is delivered"), err)
        let page = try parsed(out)
        XCTAssertEqual(
            page.classed("fail").map { $0.children.map(\.allText) },
            [["4", "00:00:01.000", "expect at 1s state purchase dropped", "✗ FAILED: found #1 is delivered"]])
    }

    func test_runSVG_purge_namesEveryRequest_drawsThePurgeAndFlushes() throws {
        let (status, out, err) = cli(["run", "--format", "svg", Self.purge])
        XCTAssertEqual(status, 0, err)
        XCTAssertTrue(
            out.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "))
        let svg = try parsed(out)
        XCTAssertEqual(svg.name, "svg")
        let names = ["install", "purchase", "signup", "refund", "open", "late"]
        XCTAssertEqual(svg.classed("lane").map { $0.attributes["data-name"] }, names)
        XCTAssertEqual(
            svg.classed("lane").map { $0.children.first { $0.name == "text" }?.text },
            names.enumerated().map { "#\($0 + 1) \($1)" })
        XCTAssertEqual(
            svg.classed("final").map { $0.children.first { $0.name == "text" }?.text },
            [
                "delivered · 1 attempt", "dropped (consent) · 3 attempts", "dropped (consent) · 3 attempts",
                "dropped (consent) · 1 attempt", "dropped (consent) · 1 attempt", "dropped (consent) · 0 attempts",
            ])
        let purge = svg.classed("purge")
        XCTAssertEqual(purge.count, 1)
        XCTAssertEqual(purge[0].tooltip, "16.8s consent denied: purged 2 from the queue · 1 in flight · 1 retrying (LT-2)")
        XCTAssertFalse(svg.classed("flush").isEmpty)
        // Only the picture on stdout; the summary goes to stderr.
        XCTAssertEqual(err, Self.purge + ": 17 passed, 0 failed · 27 transitions · ended at 00:00:30.000\n")
    }

    /// The device row's labels never overlap: a quit and a launch at one
    /// instant share "relaunch"; a label goes right of its mark or left of it,
    /// on either of the device row's two rows, and one with room nowhere is left
    /// out, its mark and tooltip kept (the quit and the launch just after the
    /// relaunch, 6 pixels apart); the quit after them has room again.
    func test_deviceRow_labelsNeverOverlap() throws {
        let dir = NSTemporaryDirectory() + "outbox-labels-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/relaunch.outbox"
        try """
        profile ios
        at 0 launch
        at 1s quit
        at 1s launch
        at 1.05s quit
        at 1.06s launch
        at 1.07s quit
        at 5s launch
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let (status, out, err) = cli(["run", "--format", "svg", file])
        XCTAssertEqual(status, 0, err)
        let app = try parsed(out).classed("app")
        XCTAssertEqual(app.count, 7, "one mark each")
        XCTAssertEqual(
            app.map { $0.children.first { $0.name == "text" }?.text },
            ["launch", "relaunch", nil, nil, nil, "close", "launch"])
        XCTAssertEqual(
            app.map(\.tooltip),
            [
                "0 app launched (launch 1)", "1s app closed · 0 saved on the device", "1s app launched (launch 2)",
                "1.05s app closed · 0 saved on the device", "1.06s app launched (launch 3)",
                "1.07s app closed · 0 saved on the device", "5s app launched (launch 4)",
            ])
    }

    func test_compare_svgAndHTML_oneLaneGroupPerProfile_offlineStretches() throws {
        let (status, out, err) = cli(["compare", "--format", "svg", Self.offline])
        XCTAssertEqual(status, 0, err)
        let svg = try parsed(out)
        let groups = svg.classed("group")
        XCTAssertEqual(groups.map { $0.attributes["data-profile"] }, ["ios", "android", "flutter"])
        XCTAssertEqual(
            groups.map { $0.classed("lane").map { $0.attributes["data-name"] } },
            [["checkout"], ["checkout"], ["checkout"]])
        XCTAssertEqual(
            groups.map { $0.classed("offline").map(\.tooltip) }, Array(repeating: ["offline from 1s to 11s"], count: 3))
        XCTAssertEqual(
            groups.map { $0.classed("final").map { $0.children.first { $0.name == "text" }?.text } },
            [
                ["delivered · 1 attempt"], ["delivered · 2 attempts"], ["delivered · 2 attempts"],
            ])
        XCTAssertEqual(groups.map { $0.classed("answer").count }, [1, 2, 2])
        // One axis: the quiet stretches are drawn once, across every group.
        XCTAssertEqual(svg.classed("gap").count, 4)
        XCTAssertTrue(groups.allSatisfy { $0.classed("gap").isEmpty })
        XCTAssertEqual(err.split(separator: "\n").map { String($0.prefix(8)) }, ["ios     ", "android ", "flutter "])

        let (hs, html, herr) = cli(["compare", "--format=html", Self.offline])
        XCTAssertEqual(hs, 0, herr)
        XCTAssertFalse(html.lowercased().contains("http"))
        let page = try parsed(html)
        XCTAssertEqual(page.classed("group").map { $0.attributes["data-profile"] }, ["ios", "android", "flutter"])
        XCTAssertEqual(
            page.all.filter { $0.name == "h3" }.map(\.text).filter { $0.hasPrefix("Checks") },
            ["Checks · ios", "Checks · android", "Checks · flutter"])
    }

    func test_severalFiles_html_aSectionEach_svgRefused() throws {
        let (status, out, err) = cli(["run", "--format", "html", Self.ladder, Self.purge])
        XCTAssertEqual(status, 0, err)
        let page = try parsed(out)
        let sections = page.all.filter { $0.name == "section" }
        XCTAssertEqual(
            sections.map { $0.children.first { $0.name == "h2" }?.text }, [Self.ladder + " ", Self.purge + " "])
        XCTAssertEqual(sections.map { $0.classed("lane").count }, [1, 6])
        XCTAssertEqual(err.split(separator: "\n").last, "35 passed, 0 failed")

        for command in ["run", "compare"] {
            let (s, o, e) = cli([command, "--format", "svg", Self.ladder, Self.purge])
            XCTAssertEqual(s, 2)
            XCTAssertEqual(o, "")
            XCTAssertEqual(
                e,
                "outbox \(command): --format svg draws one file; give one, or use --format html for several (one page, a section per file)\n"
            )
        }
        let (s, _, e) = cli(["run", "--format", "png", Self.ladder])
        XCTAssertEqual(s, 2)
        XCTAssertTrue(e.hasPrefix("outbox run: --format needs text, jsonl, junit, html or svg, not `png`\n"), e)
        let (cs, _, ce) = cli(["compare", "--format=pdf", Self.ladder])
        XCTAssertEqual(cs, 2)
        XCTAssertEqual(ce, "outbox compare: --format needs text, jsonl, html or svg, not `pdf`\n")
    }

    /// Names are text from outside: markup characters and controls cannot break the page.
    func test_namesWithMarkupAndControls_escaped() throws {
        let dir = NSTemporaryDirectory() + "outbox-picture-names-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/names.outbox"
        try ("profile flutter\nat 0 launch\n" + #"at 0 track "</svg><b>&amp;'q\x1b[31m\u{202e}""# + "\n")
            .write(toFile: file, atomically: true, encoding: .utf8)
        for format in ["html", "svg"] {
            let (status, out, err) = cli(["run", "--format", format, file])
            XCTAssertEqual(status, 0, err)
            XCTAssertFalse(out.unicodeScalars.contains { $0.value == 0x1b || $0.value == 0x202e })
            let root = try parsed(out)
            XCTAssertEqual(
                root.classed("lane").map { $0.attributes["data-name"] }, [#"</svg><b>&amp;'q\x1b[31m\u{202e}"#])
        }
    }

    /// `e` / `:export PATH` with a path ending `.html`: the same page for what happened so far.
    func test_liveExport_html_samePageAsARun() throws {
        let dir = NSTemporaryDirectory() + "outbox-picture-export-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var s = Session(.linktrail)
        s.type("ct")
        s.wait(2_500)
        let path = dir + "/now.html"
        InteractiveCommand.Loop.export(&s.model, to: path, replace: false)
        let lines = s.model.sim.journal.count
        XCTAssertEqual(s.model.message?.text, "exported \(lines) lines as HTML to \(path)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertFalse(text.lowercased().contains("http"))
        let page = try parsed(text)
        XCTAssertEqual(page.all.first { $0.name == "title" }?.text, "outbox: the live screen at 00:00:02.500")
        XCTAssertEqual(
            page.classed("lane").map { $0.attributes["data-name"] },
            s.model.sim.requests.map { s.model.sim.names[Int($0.nameID)] })
        XCTAssertFalse(page.classed("lane").isEmpty)
        // JSONL still, for any other path.
        InteractiveCommand.Loop.export(&s.model, to: dir + "/now.jsonl", replace: false)
        XCTAssertEqual(s.model.message?.text, "exported \(lines) lines to \(dir)/now.jsonl")
    }

    /// docs/timeline.html is what `outbox run --format html examples/ios-retry-ladder.outbox`
    /// writes now (docs/timeline.png is its screenshot: scripts/timeline-png makes both).
    func test_docsTimelinePage_isCurrent() throws {
        let committed = try String(contentsOfFile: packageRoot + "/docs/timeline.html", encoding: .utf8)
        XCTAssertEqual(committed, try Self.ladderPage(), "docs/timeline.html is stale: run scripts/timeline-png")
        let png = try Data(contentsOf: URL(fileURLWithPath: packageRoot + "/docs/timeline.png"))
        XCTAssertEqual(PNGHeader(png)?.size, PNGHeader.Size(width: 1400, height: 900))
    }

    /// The page scripts/timeline-png renders: the ladder, run from the package's root.
    static func ladderPage() throws -> String {
        let file = "examples/ios-retry-ladder.outbox"
        let text = try String(contentsOfFile: packageRoot + "/" + file, encoding: .utf8)
        let sc = try Scenario.parse(text, file: file).get()
        var runner = ScenarioRunner(sc)
        runner.run()
        return TimelinePicture().html(
            [TimelinePicture.Story(file: file, runs: [TimelinePicture.Run(sim: runner.sim, results: runner.results)])],
            title: RunCommand.pictureTitle([file]))
    }
}

/// A PNG's signature and size (its IHDR chunk), no more.
struct PNGHeader {
    struct Size: Equatable {
        let width: Int, height: Int
    }
    let size: Size

    init?(_ data: Data) {
        let b = [UInt8](data.prefix(24))
        guard b.count == 24, b[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
            b[12..<16] == [0x49, 0x48, 0x44, 0x52]
        else { return nil }
        func u32(_ i: Int) -> Int { b[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
        size = Size(width: u32(16), height: u32(20))
    }
}
