import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// Every scenario in examples/ is a demo and a regression test at once: it must
/// pass, say what it shows, check enough to catch a broken rule, and replay to
/// the same timeline byte for byte.
final class ExamplesTests: XCTestCase {
    /// examples/*.outbox, sorted by name, as full paths.
    static var examples: [String] {
        let dir = packageRoot + "/examples"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.filter { $0.hasSuffix(".outbox") }.sorted().map { dir + "/" + $0 }
    }

    func testThereAreAtLeastSixExamples() {
        XCTAssertGreaterThanOrEqual(Self.examples.count, 6, "examples/: \(Self.examples)")
    }

    func testTheRequiredExamplesExist() {
        let names = Set(Self.examples.map { ($0 as NSString).lastPathComponent })
        for required in [
            "linktrail-consent-purge.outbox",
            "linktrail-offline-qa.outbox",
            "linktrail-lost-response.outbox",
            "ios-retry-ladder.outbox",
            "android-403-loop.outbox",
            "flutter-5xx-vs-network.outbox",
        ] {
            XCTAssertTrue(names.contains(required), "examples/\(required) is missing")
        }
    }

    func testEveryExamplePasses() {
        let examples = Self.examples
        XCTAssertFalse(examples.isEmpty)
        for path in examples {
            let (status, out, err) = cli(["run", "--quiet", path])
            XCTAssertEqual(status, 0, "\(path) failed:\n\(err)\(out)")
            XCTAssertEqual(err, "", "\(path) wrote to stderr:\n\(err)")
            XCTAssertFalse(out.contains("FAILED"), "\(path):\n\(out)")
            // --quiet with every check holding: only the summary line.
            let lines = out.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(path):\n\(out)")
            XCTAssertTrue(out.contains("\(path): "), out)
            XCTAssertTrue(out.contains(" passed, 0 failed"), out)
            XCTAssertFalse(out.contains(": 0 passed"), "\(path) checks nothing:\n\(out)")
        }
    }

    func testAllExamplesPassInOneRun() {
        let examples = Self.examples
        let (status, out, err) = cli(["run", "--quiet"] + examples)
        XCTAssertEqual(status, 0, err + out)
        let last = out.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(last.hasSuffix(" passed, 0 failed"), "last line: \(last)")
    }

    /// Each example says what it shows and checks enough, citing the rules.
    func testEveryExampleExplainsItselfAndChecksEnough() throws {
        let ruleID = try NSRegularExpression(
            pattern: #"\b(LT-\d+a?|IOS-\d|AND-\d|FL-\d|NET|LAT|TMO|ANS|CANCEL|BACKOFF|RETRYABLE|LOST|BACKEND|ORDER|CHANCE|TARGET|FLAP|LATJITTER)\b"#)
        for path in Self.examples {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            XCTAssertTrue(lines.first?.hasPrefix("# ") ?? false, "\(path) should start with a comment block")
            let header = lines.prefix { $0.hasPrefix("#") }
            XCTAssertGreaterThanOrEqual(header.count, 3, "\(path): the opening comment should say what it shows")
            XCTAssertTrue(header.contains { $0.contains("What to watch") }, "\(path): say what to watch")
            let expects = lines.filter { $0.hasPrefix("expect ") }
            XCTAssertGreaterThanOrEqual(expects.count, 8, "\(path) has too few expect lines")
            let citing = expects.filter { line in
                guard let hash = line.range(of: "#") else { return false }
                let comment = String(line[hash.lowerBound...])
                return ruleID.firstMatch(in: comment, range: NSRange(comment.startIndex..., in: comment)) != nil
            }
            XCTAssertGreaterThanOrEqual(citing.count, 4, "\(path): cite rule IDs in the expect comments")
            XCTAssertLessThanOrEqual(lines.count, 65, "\(path) is long for a demo")
        }
    }

    /// The same input gives the same timeline, byte for byte (ORDER).
    func testExamplesAreDeterministic() {
        for path in Self.examples {
            let first = cli(["run", "--format", "jsonl", path])
            let second = cli(["run", "--format", "jsonl", path])
            XCTAssertEqual(first.0, 0, "\(path): \(first.2)")
            XCTAssertFalse(first.1.isEmpty, "\(path) printed no timeline")
            XCTAssertEqual(first.0, second.0, path)
            XCTAssertTrue(first.1 == second.1, "\(path): two runs gave different timelines")
            XCTAssertEqual(Array(first.1.utf8), Array(second.1.utf8), path)
            XCTAssertEqual(first.2, second.2, "\(path): different summaries")
        }
    }

    /// The text timeline is just as repeatable.
    func testTextTimelinesAreDeterministic() {
        for path in Self.examples {
            let first = cli(["run", path])
            let second = cli(["run", path])
            XCTAssertEqual(first.1, second.1, path)
        }
    }
}
