import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// The order `run` and `compare` call a `Reporter` in (Reporter.swift,
/// docs/architecture.md "Output"): what a new command's output relies on.
final class ReporterTests: XCTestCase {
    /// Writes down each call; the calls are kept in a reference, since the
    /// command plays a copy of the reporter.
    struct Recording: Reporter {
        final class Calls { var list: [String] = [] }
        let calls = Calls()
        var journal: ScenarioRunner.JournalUse
        var streams: Bool
        var matchesRequests: Bool

        func note(_ s: String) { calls.list.append(s) }
        func begin(_ story: StoryStart) {
            note("begin \(story.file) " + story.profiles.map(\.rawValue).joined(separator: ","))
        }
        func begin(run scenario: Scenario, label: String?) { note("begin run \(label ?? "-")") }
        func item(_ item: TimelineItem, in sim: Simulation) {
            // Items are counted, not listed: only that they come between a run's begin and end matters.
            if calls.list.last != "items" { note("items") }
        }
        func end(run runner: ScenarioRunner, label: String?) { note("end run \(label ?? "-")") }
        func end(_ story: StoryEnd) {
            switch story {
            case .single(let r): note("end single \(r.scenario.file)")
            case .comparison(let c): note("end comparison \(c.story.file) rows \(c.match.rows.count)")
            }
        }
        func summarize(_ story: StoryEnd) { note("summarize \(story.file)") }
        func finish(_ tally: Tally) { note("finish \(tally.totalLine ?? "-")") }
    }

    static let text = """
        profile ios
        at 0 launch
        at 0 track a
        expect at 1s state a delivered
        expect at 1s state a dropped
        """

    func testRunCallsEachFileInOrderThenFinishes() throws {
        let scenarios = try ["a.outbox", "b.outbox"].map { try Scenario.parse(Self.text, file: $0).get() }
        let console = Console.capturing()
        let reporter = Recording(journal: .checksOnly, streams: true, matchesRequests: false)
        let status = try RunCommand.parse(["a.outbox", "b.outbox"])
            .play(scenarios, reporting: reporter, console: console, maxTransitions: 1000)
        XCTAssertEqual(status, 1)
        XCTAssertEqual(
            reporter.calls.list,
            [
                "begin a.outbox ios", "begin run -", "items", "end run -", "end single a.outbox", "summarize a.outbox",
                "begin b.outbox ios", "begin run -", "items", "end run -", "end single b.outbox", "summarize b.outbox",
                "finish 2 passed, 2 failed",
            ])
        // The failed checks are the command's, between a story's end and its summary.
        XCTAssertEqual(
            console.err,
            "a.outbox:5: check failed: expect at 1s state a dropped: found #1 is delivered\n"
                + "b.outbox:5: check failed: expect at 1s state a dropped: found #1 is delivered\n")
        XCTAssertEqual(console.out, "")
    }

    func testCompareCallsEachProfileThenTheStory() throws {
        let profiles = [Builtins.named("ios")!, Builtins.named("android")!]
        let scenarios = try profiles.map { try Scenario.parse(Self.text, file: "a.outbox", playing: $0).get() }
        let story = CompareCommand.Story(file: "a.outbox", profiles: profiles, scenarios: scenarios)
        let command = try CompareCommand.parse(["a.outbox"])
        for streams in [true, false] {
            let console = Console.capturing()
            let reporter = Recording(journal: .checksOnly, streams: streams, matchesRequests: true)
            XCTAssertEqual(command.play([story], reporting: reporter, console: console, maxTransitions: 1000), 1)
            // Not streaming, the profiles play at once and no item is told.
            let played = streams ? ["begin run ios", "items", "begin run android", "items"] : []
            XCTAssertEqual(
                reporter.calls.list,
                ["begin a.outbox ios,android"] + played + [
                    "end run ios", "end run android", "end comparison a.outbox rows 1", "summarize a.outbox",
                    "finish -",
                ])
            // A plain `expect` checks the file's own profile.
            XCTAssertEqual(
                console.err, "a.outbox:5: check failed on ios: expect at 1s state a dropped: found #1 is delivered\n")
        }
    }
}
