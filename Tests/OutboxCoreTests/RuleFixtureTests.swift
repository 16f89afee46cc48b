import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// The rule fixtures, Tests/OutboxCoreTests/Fixtures/rules/*.outbox: one scenario
/// per rule test, named for the rule and what it shows, its checks in `expect`
/// lines. Each is played here through the same helper the rule tests use
/// (`playFile`), so a failed expect line names the file and its line; the rule
/// tests that pin what no expect line says (whole histories, log lines, backend
/// totals) load the same file by name (`RuleTestKit.fixture`). A rule scenario
/// whose checks are all expect lines needs no Swift: a file here is enough.
final class RuleFixtureTests: XCTestCase {
    static let directory = packageRoot + "/Tests/OutboxCoreTests/Fixtures/rules"
    /// The fewest checks a fixture may make.
    static let minimumChecks = 1

    /// The fixtures, sorted by name, as full paths.
    static var fixtures: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".outbox") }.sorted().map { directory + "/" + $0 }
    }

    func test_everyFixturePlaysWithEveryExpectLineChecked() throws {
        let fixtures = Self.fixtures
        XCTAssertFalse(fixtures.isEmpty, "no .outbox file in \(Self.directory)")
        for path in fixtures {
            let name = (path as NSString).lastPathComponent
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
            let expects = lines.filter { $0.hasPrefix("expect ") }.count
            XCTAssertGreaterThanOrEqual(expects, Self.minimumChecks, "\(name) has too few expect lines")
            guard let runner = playFile(path) else { continue }
            // Every expect line of the file was checked: none skipped (an `expect on`
            // another profile), none left after the run ended.
            XCTAssertEqual(runner.results.count, expects, "\(name): checks made")
        }
    }

    /// Each file is named for a rule of the built-ins and opens, as the examples do,
    /// with a comment naming it and saying what to watch.
    func test_everyFixtureNamesItsRuleAndSaysWhatToWatch() throws {
        for path in Self.fixtures {
            let name = (path as NSString).lastPathComponent
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false
            ).map(String.init)
            let rule = RuleID.allCases.map(\.id).filter { name.hasPrefix($0 + "-") }.max { $0.count < $1.count }
            XCTAssertNotNil(rule, "\(name) does not start with a rule ID and a dash")
            let header = lines.prefix { $0.hasPrefix("#") }
            XCTAssertTrue(
                header.first?.hasPrefix("# \(rule ?? "?")") ?? false, "\(name): the first line names the rule")
            XCTAssertTrue(header.contains { $0.contains("What to watch: ") }, "\(name): say what to watch")
        }
    }

    /// A file's header names the rule test that loads it (`RuleTestsX.test_…
    /// plays this file`): that test exists and loads this file, and every file a
    /// rule test loads is here, so the header stays true when a test is renamed.
    func test_theTestAFixtureNamesLoadsIt() throws {
        let dir = packageRoot + "/Tests/OutboxCoreTests"
        let sources = try FileManager.default.contentsOfDirectory(atPath: dir).filter {
            $0.hasPrefix("RuleTests") && $0.hasSuffix(".swift")
        }.sorted()
        XCTAssertFalse(sources.isEmpty)
        // "RuleTestsIOS.test_IOS_2_…" -> the fixtures its body loads.
        var loads: [String: [String]] = [:]
        for source in sources {
            let text = try String(contentsOfFile: dir + "/" + source, encoding: .utf8)
            let type = String(source.dropLast(".swift".count))
            for chunk in text.components(separatedBy: "    func ").dropFirst() {
                guard chunk.hasPrefix("test_"), let end = chunk.firstIndex(of: "(") else { continue }
                let names = chunk.components(separatedBy: "K.fixture(\"").dropFirst().compactMap {
                    $0.split(separator: "\"", maxSplits: 1).first.map(String.init)
                }
                loads[type + "." + chunk[..<end]] = names
            }
        }
        let present = Set(Self.fixtures.map { (($0 as NSString).lastPathComponent as NSString).deletingPathExtension })
        for (test, names) in loads.sorted(by: { $0.key < $1.key }) {
            for name in names {
                XCTAssertTrue(present.contains(name), "\(test) loads \(name).outbox, which is not there")
            }
        }
        for path in Self.fixtures {
            let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let named = text.split(separator: "\n").filter { $0.hasPrefix("# RuleTests") && $0.contains(" plays this") }
                .map { String($0.dropFirst(2).split(separator: " ")[0]) }
            for test in named {
                XCTAssertEqual(loads[test], [name], "\(name).outbox names \(test), which should load it")
            }
        }
    }
}
