import XCTest
@testable import OutboxCore
@testable import OutboxCLI

/// Parses a scenario written inline; fails the test on bad input.
/// `savedDevice`: played on a device that already holds requests (`--state-dir`).
func parseScenario(
    _ text: String, savedDevice: Bool = false, file: StaticString = #filePath, line: UInt = #line
) -> Scenario? {
    switch Scenario.parse(text, file: "inline.outbox", savedDevice: savedDevice) {
    case .success(let s): return s
    case .failure(let e):
        XCTFail("bad scenario: " + e.errors.map(\.description).joined(separator: "; "), file: file, line: line)
        return nil
    }
}

/// Plays an inline scenario to the end and fails the test for each failed expect,
/// printing the timeline. Returns the runner for further assertions. Pass a store
/// to play on a given device (two scenarios can share one, as `outbox run
/// --state-dir` does).
@discardableResult
func play(_ text: String, on store: any DeviceStore = InMemoryDeviceStore(), file: StaticString = #filePath,
          line: UInt = #line) -> ScenarioRunner? {
    // A device that holds requests may hold any name an expect line checks.
    guard let sc = parseScenario(text, savedDevice: !store.loadAll().isEmpty, file: file, line: line) else { return nil }
    var runner = ScenarioRunner(sc, store: store)
    let timeline = runTimeline(&runner, format: .text)
    for f in runner.failures {
        XCTFail("line \(f.line): \(f.text): found \(f.found)\n" + timeline.joined(separator: "\n"), file: file, line: line)
    }
    XCTAssertFalse(runner.results.isEmpty, "the scenario has no expect lines", file: file, line: line)
    return runner
}

/// Runs a scenario to the end and returns its timeline, a line per entry and check.
func runTimeline(_ runner: inout ScenarioRunner, format: TimelineFormat) -> [String] {
    var out: [String] = []
    let writer = TimelineWriter(format: format)
    runner.run { item, sim in
        switch item {
        case .entry(let e): out.append(writer.line(e, in: sim))
        case .check(let r): out.append(writer.check(r))
        }
    }
    return out
}

/// Runs the command line in-process and returns (status, stdout, stderr).
func cli(_ args: [String]) -> (Int32, String, String) {
    let console = Console.capturing()
    let status = CLI.main(args, console: console)
    return (status, console.out, console.err)
}

/// The package root, for reading examples/ and docs/.
let packageRoot: String = {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/OutboxCoreTests/TestSupport.swift
    return parts.joined(separator: "/")
}()

// Test plumbing since profiles became files (issue 13): a rule ID is resolved
// through its profile; tests of the built-ins resolve them through the registry.
extension RuleID {
    static var allCases: [RuleID] { Rules.shared + Builtins.all.flatMap(\.ownRules) }
    var owner: Profile? { Builtins.all.first { $0.ownRules.contains(self) } }
    var info: RuleInfo { (owner ?? Builtins.all[0]).rule(self) }
    var id: String { info.id }
    var text: String { info.text }
    var isAssumption: Bool { info.isAssumption }
    var profile: Profile? { owner }
    init?(id: String) {
        guard let r = Builtins.all.lazy.compactMap({ $0.rule(id: id) }).first else { return nil }
        self = r
    }
    static func rules(for p: Profile) -> [RuleID] { Rules.shared + p.ownRules }
}

extension Profile {
    /// The three Positive User (UserCom) built-ins.
    var isUserCom: Bool { self != .linktrail }
}

/// The `outbox` built with these tests: beside them (a sanitized run's
/// program), else `.build/debug`; the test is skipped when there is none.
func builtOutbox() throws -> String {
    let candidates = [
        Bundle.main.bundleURL.appendingPathComponent("outbox").path,
        Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("outbox").path,
        packageRoot + "/.build/debug/outbox",
    ]
    guard let b = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw XCTSkip("no built outbox beside the tests or in .build/debug; run `swift build`")
    }
    return b
}
