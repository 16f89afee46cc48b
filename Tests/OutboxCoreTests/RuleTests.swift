import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// Helpers shared by the rule tests (RuleTests*.swift): compact, exact renderings of
/// a request's transitions and of the log, so a test can pin every field at once.
enum RuleTestKit {
    /// The only request with this name (fails the test when there is not exactly one).
    static func id(_ sim: Simulation, _ name: String, file: StaticString = #filePath, line: UInt = #line) -> Int32 {
        let ids = sim.requests(named: name)
        XCTAssertEqual(ids.count, 1, "expected exactly one request named '\(name)'", file: file, line: line)
        return ids.first ?? 1
    }

    /// Every transition of the request named `name`, one string each:
    /// `<ms> <from>><to> #<attempt>[ <outcome>][ <reason>] <rule>`, e.g.
    /// `1200 in-flight>retrying #1 500 LT-4`, `0 new>pending #0 LT-3`.
    static func trail(_ sim: Simulation, _ name: String, file: StaticString = #filePath, line: UInt = #line) -> [String]
    {
        trail(sim, id: id(sim, name, file: file, line: line))
    }

    static func trail(_ sim: Simulation, id: Int32) -> [String] {
        sim.history(of: id).map { trailLine($0, rule: $0.rule.id) }
    }

    /// Every log line: `<ms> [<rule or ->] <text>`.
    static func logs(_ sim: Simulation) -> [String] {
        sim.journal.compactMap { e in
            guard case .log(let l) = e else { return nil }
            return "\(l.time) [\(l.rule?.id ?? "-")] \(l.text)"
        }
    }

    /// The log lines whose text contains `text`, rendered as `logs` does.
    static func logs(_ sim: Simulation, containing text: String) -> [String] {
        logs(sim).filter { $0.contains(text) }
    }

    /// Names of the requests that went on the wire at `time`, in journal order.
    static func sent(_ sim: Simulation, at time: Millis) -> [String] {
        sim.journal.compactMap { e in
            guard case .transition(let t) = e, t.time == time, t.to == .inFlight else { return nil }
            return sim.name(of: t.request)
        }
    }

    /// Revenue the backend summed for a currency, in millionths (LT-13).
    static func revenue(_ sim: Simulation, _ currency: String) -> Int64? {
        guard let c = sim.nameID(currency) else { return nil }
        return sim.backend.revenue[c]?.micros
    }

    /// How many rows the device store holds.
    static func storeRows(_ sim: Simulation) -> Int? {
        (sim.store as? InMemoryDeviceStore)?.count
    }

    /// Plays the rule fixture `NAME.outbox` (Tests/OutboxCoreTests/Fixtures/rules,
    /// played on its own by RuleFixtureTests too): a failed expect line names the
    /// file and its line. The tests that pin what no expect line says (whole
    /// histories, log lines, backend totals) load their scenario this way.
    static func fixture(_ name: String, file: StaticString = #filePath, line: UInt = #line) -> ScenarioRunner? {
        playFile(RuleFixtureTests.directory + "/" + name + ".outbox", file: file, line: line)
    }

    /// `play` on a given device store, so two scenarios can share one device (what
    /// `outbox run --state-dir` does): the second one starts with what the first saved.
    @discardableResult
    static func play(_ text: String, on store: InMemoryDeviceStore, file: StaticString = #filePath, line: UInt = #line)
        -> ScenarioRunner?
    {
        OutboxTestSupport.play(text, on: store, file: file, line: line)
    }

    /// The whole timeline of a scenario as text, for determinism checks.
    static func timeline(_ text: String) -> [String] {
        guard case .success(let sc) = Scenario.parse(text, file: "inline.outbox") else { return [] }
        var runner = ScenarioRunner(sc)
        return runTimeline(&runner, format: .jsonl)
    }
}

/// docs/rules.md stays in step with the rules and the tests.
final class RuleTests: XCTestCase {
    func test_rulesDoc_coversEveryRuleWithExistingTests() throws {
        let doc = try String(contentsOfFile: packageRoot + "/docs/rules.md", encoding: .utf8)
        let testDir = packageRoot + "/Tests/OutboxCoreTests"
        let files = try FileManager.default.contentsOfDirectory(atPath: testDir).filter { $0.hasSuffix(".swift") }
            .sorted()
        XCTAssertFalse(files.isEmpty)
        var sources = ""
        for f in files { sources += try String(contentsOfFile: testDir + "/" + f, encoding: .utf8) + "\n" }

        // Every rule has its own heading: `### <ID> ` (so LT-1 is not found inside LT-10).
        let headings = Set(
            doc.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("### ") else { return nil }
                return line.dropFirst(4).split(separator: " ").first.map(String.init)
            })
        for rule in RuleID.allCases {
            XCTAssertTrue(headings.contains(rule.id), "docs/rules.md has no `### \(rule.id) ...` heading")
            // And at least one test named for it exists.
            let prefix = "func test_" + rule.id.replacingOccurrences(of: "-", with: "_") + "_"
            XCTAssertTrue(
                sources.contains(prefix),
                "no test named test_\(rule.id.replacingOccurrences(of: "-", with: "_"))_... for \(rule.id)")
        }
        XCTAssertEqual(
            headings.filter { $0.first?.isUppercase == true && RuleID(id: $0) == nil }, [],
            "docs/rules.md has headings for rules that do not exist")

        // Every test name the doc lists exists in the test sources.
        var listed: [String] = []
        var word = ""
        for ch in doc + " " {
            if ch.isLetter || ch.isNumber || ch == "_" {
                word.append(ch)
            } else {
                if word.hasPrefix("test_") { listed.append(word) }
                word = ""
            }
        }
        XCTAssertGreaterThan(listed.count, RuleID.allCases.count, "docs/rules.md lists too few tests")
        for name in Set(listed).sorted() {
            XCTAssertTrue(
                sources.contains("func \(name)("), "docs/rules.md lists \(name), which no test source defines")
        }
        // Each rule's section names at least one test.
        var section = ""
        var sections: [String: String] = [:]
        for line in doc.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("### ") {
                section = String(line.dropFirst(4).split(separator: " ").first ?? "")
            } else if line.hasPrefix("## ") {
                section = ""
            } else if !section.isEmpty {
                sections[section, default: ""] += line + "\n"
            }
        }
        for rule in RuleID.allCases {
            XCTAssertTrue(sections[rule.id, default: ""].contains("test_"), "the section of \(rule.id) lists no test")
        }
    }
}
