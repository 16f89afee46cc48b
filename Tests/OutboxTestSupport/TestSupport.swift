// What the test targets share (issue 23): scenarios played inline, timelines and
// transition trails rendered, the command line run in-process, the package root,
// and the rule look-ups the tests of the built-ins use. A library target of its
// own that only the test targets depend on: the `outbox` product never links it
// (nor XCTest). Only public API is used, without `@testable`, so a release build
// of every target (no testability) compiles it too.
import Foundation
import OutboxCLI
import OutboxCore
import OutboxServe
import OutboxServer
import XCTest

/// The package root, for reading examples/, docs/, fixtures and snapshots.
public let packageRoot: String = {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/OutboxTestSupport/TestSupport.swift
    return parts.joined(separator: "/")
}()

/// Runs the command line in-process and returns (status, stdout, stderr).
public func cli(_ args: [String]) -> (Int32, String, String) {
    // `outbox serve` in-process has the executable's server.
    if ServeListeners.make == nil { ServeListeners.make = ServeServer.start }
    if ServeBenchmarks.throughput == nil { ServeBench.install() }
    let console = Console.capturing()
    let status = CLI.main(args, console: console)
    return (status, console.out, console.err)
}

/// Parses a scenario written inline; fails the test on bad input.
/// `savedDevice`: played on a device that already holds requests (`--state-dir`).
public func parseScenario(
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
public func play(
    _ text: String, on store: any DeviceStore = InMemoryDeviceStore(), file: StaticString = #filePath,
    line: UInt = #line
) -> ScenarioRunner? {
    // A device that holds requests may hold any name an expect line checks.
    guard let sc = parseScenario(text, savedDevice: !store.loadAll().isEmpty, file: file, line: line) else {
        return nil
    }
    let runner = playParsed(sc, on: store, file: file, line: line).runner
    XCTAssertFalse(runner.results.isEmpty, "the scenario has no expect lines", file: file, line: line)
    return runner
}

/// Plays the scenario file at `path` to the end as `play` plays an inline one, and
/// returns the runner: bad input, a failed expect line ("FILE: line N: <the line>:
/// found ...", then the timeline) and a file without expect lines fail the test,
/// naming the file by its path from the package root. The rule fixtures
/// (Tests/OutboxCoreTests/Fixtures/rules) are played through it.
@discardableResult
public func playFile(_ path: String, file: StaticString = #filePath, line: UInt = #line) -> ScenarioRunner? {
    let name = path.hasPrefix(packageRoot + "/") ? String(path.dropFirst(packageRoot.count + 1)) : path
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        XCTFail("cannot read \(name)", file: file, line: line)
        return nil
    }
    switch Scenario.parse(text, file: name) {
    case .failure(let e):
        XCTFail("bad scenario: " + e.errors.map(\.description).joined(separator: "; "), file: file, line: line)
        return nil
    case .success(let sc):
        let runner = playParsed(sc, failing: name + ": ", file: file, line: line).runner
        XCTAssertFalse(runner.results.isEmpty, "\(name) has no expect lines", file: file, line: line)
        return runner
    }
}

/// Plays a parsed scenario to the end, writing its timeline in each of `formats`
/// (the text one is always made, first, for the failure messages), and fails the
/// test for each failed expect line: `failing` names what was played, then the
/// line, the check, what was found and the whole text timeline. The runner and
/// the timelines of `formats`, in their order.
public func playParsed(
    _ sc: Scenario, on store: any DeviceStore = InMemoryDeviceStore(), formats: [TimelineFormat] = [.text],
    failing prefix: String = "", file: StaticString = #filePath, line: UInt = #line
) -> (runner: ScenarioRunner, timelines: [[String]]) {
    var runner = ScenarioRunner(sc, store: store)
    let all = runTimelines(&runner, formats: [.text] + formats)
    for f in runner.failures {
        XCTFail(
            prefix + "line \(f.line): \(f.text): found \(f.found)\n" + all[0].joined(separator: "\n"), file: file,
            line: line)
    }
    return (runner, Array(all.dropFirst()))
}

/// Runs a scenario to the end and returns its timeline, a line per entry and check.
public func runTimeline(_ runner: inout ScenarioRunner, format: TimelineFormat) -> [String] {
    runTimelines(&runner, formats: [format])[0]
}

/// Runs a scenario to the end once and returns its timeline in each format, in
/// the order given: a line per entry and check.
public func runTimelines(_ runner: inout ScenarioRunner, formats: [TimelineFormat]) -> [[String]] {
    var out = [[String]](repeating: [], count: formats.count)
    let writers = formats.map { TimelineWriter(format: $0) }
    runner.run { item, sim in
        for (i, w) in writers.enumerated() {
            switch item {
            case .entry(let e): out[i].append(w.line(e, in: sim))
            case .check(let r): out[i].append(w.check(r))
            }
        }
    }
    return out
}

/// The journal `sim` has kept, a timeline line per entry (no checks); only the
/// entries up to `end` when given.
public func journalLines(_ sim: Simulation, format: TimelineFormat, upTo end: Millis? = nil) -> [String] {
    let writer = TimelineWriter(format: format)
    return sim.journal.filter { end == nil || $0.time <= end! }.map { writer.line($0, in: sim) }
}

/// One transition as the rule tests write it:
/// `<ms> <from>><to> #<attempt>[ <outcome>][ <reason>] <rule>`, e.g.
/// `1200 in-flight>retrying #1 500 LT-4`, `0 new>pending #0 LT-3`. `rule` is the
/// cited rule's ID, resolved by the caller (through the built-ins or the profile).
public func trailLine(_ t: Transition, rule: String) -> String {
    var s = "\(t.time) \(t.from?.word ?? "new")>\(t.to.word) #\(t.attempt)"
    if !t.outcome.isNone { s += " " + t.outcome.word }
    if let r = t.reason { s += " " + r.word }
    return s + " " + rule
}

// Test plumbing since profiles became files (issue 13): a rule ID is resolved
// through its profile; tests of the built-ins resolve them through the registry.
extension RuleID {
    public static var allCases: [RuleID] { Rules.shared + Profile.seeds.flatMap(\.ownRules) }
    public var owner: Profile? { Builtins.all.first { $0.ownRules.contains(self) } }
    public var info: RuleInfo { (owner ?? Builtins.all[0]).rule(self) }
    public var id: String { info.id }
    public var text: String { info.text }
    public var isAssumption: Bool { info.isAssumption }
    public var profile: Profile? { owner }
    public init?(id: String) {
        guard let r = Builtins.all.lazy.compactMap({ $0.rule(id: id) }).first else { return nil }
        self = r
    }
    public static func rules(for p: Profile) -> [RuleID] { Rules.shared + p.ownRules }
}

extension Profile {
    /// The three Positive User (UserCom) built-ins.
    public var isUserCom: Bool { self != .linktrail }
}

/// Runs the program at `path` with `arguments` (in `directory` when given) until
/// it exits; (status, stdout, stderr). For the repository's scripts and tools.
public func runProgram(_ path: String, _ arguments: [String], in directory: String? = nil) throws -> (
    Int32, String, String
) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = arguments
    if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let o = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return (p.terminationStatus, o, e)
}

// MARK: Settings read as a scenario writes them

extension Settings {
    /// `set key value` read on `profile`'s terms (`Settings.read`) and applied:
    /// nil, or why it was refused (then nothing changes).
    public mutating func set(_ key: String, _ value: String, profile: Profile) -> String? {
        switch Settings.read(key, value, on: profile) {
        case .success(let s):
            apply(s)
            return nil
        case .failure(let p): return p.message
        }
    }
}

extension Action {
    /// `set key value` as an action, read whatever the profile; the words must be good.
    public static func setting(_ key: String, _ value: String) -> Action {
        .settingChanged(try! SettingChange.read(key, value, on: nil).get())
    }
}

/// Skips a test class of in-memory, single-threaded work under ThreadSanitizer
/// (`scripts/sanitizers` sets OUTBOX_SANITIZER): it has no race to find there,
/// and its minutes are CI's (docs/reliability.md, "Sanitizers"). AddressSanitizer keeps it.
public func skipUnderThreadSanitizer(_ what: String) throws {
    try XCTSkipIf(
        ProcessInfo.processInfo.environment["OUTBOX_SANITIZER"] == "thread",
        "single-threaded (\(what)): nothing for ThreadSanitizer to find")
}

// MARK: Fleet files

/// A fleet of two SDKs through a two-minute outage, the capacity binding after
/// it: small enough to run in a moment, what the `--profiles` and picture tests run.
public let outageMixFleet = """
    # devices of two SDKs through a two-minute outage, the capacity binding after it
    devices 30
    profile ios 50% android 50%
    events every 20s
    capacity 3/s
    duration 6m
    seed 4
    at 0s launch
    at 1m server timeout always
    at 3m server ok
    """

extension XCTestCase {
    /// `text` written as `name` in a temporary folder of its own, removed when
    /// the test ends; the file's path.
    public func temporaryFile(_ text: String, name: String) -> String {
        let dir = NSTemporaryDirectory() + "outbox-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/" + name
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        return path
    }
}
