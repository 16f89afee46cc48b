import ArgumentParser
import Dispatch
import OutboxCore
import OutboxFoundation
import OutboxUI

/// `outbox compare FILE... [--profiles P,P,...] [--format text|jsonl|html|svg] [--width N] [--quiet]`:
/// each file played once per profile, the requests matched into rows, and the
/// rows where the profiles end differently marked (issue 11).
struct CompareCommand: OutboxSubcommand {
    static var defaultProfiles: [Profile] { Builtins.compareDefault }

    /// One file, parsed once per profile it plays.
    struct Story {
        let file: String
        let profiles: [Profile]
        let scenarios: [Scenario]

        /// Each skipped line once, with the profiles that skip it, in file order.
        var skips: [(skip: Scenario.SkippedLine, profiles: [Profile])] {
            var out: [(skip: Scenario.SkippedLine, profiles: [Profile])] = []
            var at: [Int: Int] = [:]
            for sc in scenarios {
                for s in sc.skipped {
                    if let k = at[s.line] {
                        out[k].profiles.append(sc.profile)
                    } else {
                        at[s.line] = out.count
                        out.append((s, [sc.profile]))
                    }
                }
            }
            return out.sorted { $0.skip.line < $1.skip.line }
        }
    }

    /// One profile's run: its model at the end, its failed checks and the compact
    /// record of its transitions.
    final class Played: @unchecked Sendable {
        var runner: ScenarioRunner
        var log = TransitionLog()

        /// `journal`: `.streamed` when every line is printed, `.checksOnly` when no
        /// transition is looked at (a quiet table), else `.transitionsOnly`
        /// (no log line is made that nothing reads).
        init(_ sc: Scenario, maxTransitions: Int, journal: ScenarioRunner.JournalUse) {
            runner = ScenarioRunner(sc, store: InMemoryDeviceStore(), maxTransitions: maxTransitions, journal: journal)
        }

        /// Runs to the end; `emit` gets every timeline item, as `outbox run` does.
        func play(until cancelled: () -> Bool, emit: (TimelineItem, Simulation) -> Void) {
            runner.run(until: cancelled) { item, sim in
                if case .entry(.transition(let t)) = item { log.append(t) }
                emit(item, sim)
            }
        }
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "compare",
            abstract: "play scenario files on several profiles and show where they differ",
            usage: CLI.parserUsage(synopsis), discussion: Help.compare)
    }
    static var synopsis: String {
        "outbox compare FILE... [--profiles P,P,...] [--format \(FormatWords.choices(FormatWords.compare))] [--width N] [--quiet]\n"
            + "                                      [--max-transitions N] [--watch]"
    }

    @Argument(
        help: ArgumentHelp("scenario files (.outbox)", valueName: "FILE"), completion: .file(extensions: ["outbox"]))
    var files: [String] = []

    @Option(
        help: ArgumentHelp(
            "the profiles, in this order (any built-in, `outbox profiles` lists them, or PATH.profile); default the file's `compare` line, else ios,android,flutter",
            valueName: "P,P,..."),
        completion: ProfileLoader.completion(list: true))
    var profiles: String?

    @Option(
        help: ArgumentHelp(
            "text: a table per file (default); jsonl: every line of `outbox run --format jsonl` with \"profile\" added, {\"skipped\": ...} and {\"diverged\": ...} objects; html, svg: `outbox run`'s picture with one lane group per profile on one time axis",
            valueName: FormatWords.choices(FormatWords.compare)),
        completion: .list(FormatWords.compare))
    var format: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "lay the table out for N columns (default: the terminal's width, else $COLUMNS, else 80)", valueName: "N"))
    var width: String?

    @Flag(
        name: [.long, .short],
        help: "text: no table, only skips, failed checks and summaries; jsonl: only failed checks, diverged")
    var quiet = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("stop a run past N transitions, as `outbox run`", valueName: "N"))
    var maxTransitions: String?

    @Flag(
        help:
            "play again whenever a file changes (a scenario, or a profile file it or --profiles names), clearing the terminal between runs; bad input is shown and the watch goes on; Ctrl-C ends it"
    )
    var watch = false

    func execute(console: Console) -> Int32 {
        guard watch else { return play(console: console, noting: nil) }
        return Watch.loop(files: files, command: "outbox compare --watch", console: console) { noted in
            play(console: console, noting: noted)
        }
    }

    /// One comparison of the files; `noting` collects the profile files read.
    func play(console: Console, noting: ProfileLoader.ReadPaths?) -> Int32 {
        let output: OutputFormat
        switch FormatWords.parse(self.format, command: Self.prefix, available: FormatWords.compare) {
        case .failure(let why):
            console.error(why.message)
            return 2
        case .success(let word): output = OutputFormat(word)!
        }
        var profiles: [Profile]?
        if let v = self.profiles {
            switch Profile.list(v, profiles: ProfileLoader.resolver(noting: noting)) {
            case .success(let list): profiles = list
            case .failure(let why):
                console.error("outbox compare: --profiles: " + why.message)
                return 2
            }
        }
        var width: Int?
        if let v = self.width {
            guard let n = Int(v), (20...10_000).contains(n) else {
                console.error("outbox compare: --width needs a number of columns from 20 to 10000")
                return 2
            }
            width = n
        }
        let maxTransitions: Int
        switch RunCommand.maxTransitions(self.maxTransitions, command: Self.prefix) {
        case .failure(let why):
            console.error(why.message)
            return 2
        case .success(let n): maxTransitions = n
        }
        guard !files.isEmpty else {
            console.error("outbox compare: no scenario file given")
            console.error("usage: " + Self.synopsis)
            return 2
        }
        if let why = output.refusal(files: files.count, command: Self.prefix) {
            console.error(why)
            return 2
        }

        // Parse everything first, once per profile: bad input anywhere means nothing runs.
        var stories: [Story] = []
        var bad = false
        for f in files {
            let text: String
            switch RunCommand.readText(f, streams: true) {
            case .success(let t): text = t
            case .failure(let why):
                console.error(RunCommand.unreadable(f, why))
                bad = true
                continue
            }
            let here = ProfileLoader.resolver(relativeTo: ProfileLoader.directory(of: f), noting: noting)
            let list = profiles ?? Scenario.compareLine(in: text, profiles: here) ?? Self.defaultProfiles
            var scenarios: [Scenario] = []
            var problems: [ScenarioError] = []
            for parsed in Self.parseAll(text, file: f, list, noting: noting) {
                switch parsed {
                case .success(let s): scenarios.append(s)
                case .failure(let e):
                    // The same problem is usually found on every profile: said once per line.
                    for x in e.errors where !problems.contains(where: { $0.line == x.line }) { problems.append(x) }
                }
            }
            if problems.isEmpty {
                stories.append(Story(file: f, profiles: list, scenarios: scenarios))
            } else {
                for x in problems.sorted(by: { $0.line < $1.line }) { console.error(x.description) }
                bad = true
            }
        }
        if bad { return 2 }

        let several = stories.count > 1
        switch output {
        case .lines(.text):
            let columns =
                width ?? Platform.terminalColumns(1)
                ?? ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init).flatMap { $0 >= 20 ? $0 : nil }
                ?? 80
            let table = CompareTableReporter(console: console, width: columns, quiet: quiet, several: several)
            return play(stories, reporting: table, console: console, maxTransitions: maxTransitions)
        case .lines(.jsonl):
            let jsonl = JSONLReporter(console: console, quiet: quiet, several: several)
            return play(stories, reporting: jsonl, console: console, maxTransitions: maxTransitions)
        case .html, .svg:
            let title = "outbox compare " + files.joined(separator: " ")
            let picture = PictureReporter(console: console, svg: output == .svg, title: title)
            return play(stories, reporting: picture, console: console, maxTransitions: maxTransitions)
        case .junit:
            preconditionFailure("compare --format junit is refused by FormatWords.compare")
        }
    }

    /// Plays the parsed stories one after the other, each story's profiles in
    /// order when `reporter` streams, else at once; `reporter` writes what
    /// they do (Reporter.swift has the order).
    func play<R: Reporter>(_ stories: [Story], reporting reporter: R, console: Console, maxTransitions: Int)
        -> Int32
    {
        var reporter = reporter
        var tally = Tally()
        // The rows are read from each run's transitions, even where the format shows none.
        var journal = reporter.journal
        if reporter.matchesRequests && journal == .checksOnly { journal = .transitionsOnly }
        for story in stories {
            reporter.begin(StoryStart(story))
            let played: [Played]
            if reporter.streams {
                played = Self.playInOrder(
                    story, reporting: &reporter, journal: journal, maxTransitions: maxTransitions, console: console)
                if console.failed { return 1 }
            } else {
                played = Self.playTogether(story, maxTransitions: maxTransitions, journal: journal)
            }
            for (p, run) in zip(story.profiles, played) {
                if let why = run.runner.stopped {
                    console.error(
                        "\(story.file) (\(p.rawValue)): the run stopped at \(VirtualTime.clock(run.runner.sim.now)): \(why); "
                            + "expected a scenario that ends within Outbox's limits (docs/reliability.md)")
                    return 2
                }
            }
            for (p, run) in zip(story.profiles, played) { reporter.end(run: run.runner, label: p.rawValue) }
            let end = StoryEnd.comparison(CompareReport(story: story, played: played, rows: reporter.matchesRequests))
            reporter.end(end)
            tally.add(end, console: console)
            reporter.summarize(end)
        }
        reporter.finish(tally)
        return tally.status(console)
    }

    /// The file parsed for each profile, the parses on as many cores as there are.
    static func parseAll(
        _ text: String, file: String, _ profiles: [Profile], noting: ProfileLoader.ReadPaths? = nil
    ) -> [Result<Scenario, ScenarioErrors>] {
        final class Slot: @unchecked Sendable { var parsed: Result<Scenario, ScenarioErrors>? }
        let slots = profiles.map { _ in Slot() }
        DispatchQueue.concurrentPerform(iterations: profiles.count) { k in
            slots[k].parsed = Scenario.parse(
                text, file: file, playing: profiles[k],
                profiles: ProfileLoader.resolver(relativeTo: ProfileLoader.directory(of: file), noting: noting))
        }
        return slots.map { $0.parsed! }
    }

    /// The profiles one after the other, `reporter` told of each item as it
    /// is played (`outbox run --format jsonl`'s lines with `"profile"` added).
    static func playInOrder<R: Reporter>(
        _ story: Story, reporting reporter: inout R, journal: ScenarioRunner.JournalUse, maxTransitions: Int,
        console: Console
    ) -> [Played] {
        var out: [Played] = []
        for sc in story.scenarios {
            let run = Played(sc, maxTransitions: maxTransitions, journal: journal)
            reporter.begin(run: sc, label: sc.profile.rawValue)
            run.play(until: { console.failed }) { item, sim in reporter.item(item, in: sim) }
            out.append(run)
            if console.failed { break }
        }
        return out
    }

    /// The profiles at once, on as many cores as there are (nothing printed
    /// while they run).
    static func playTogether(_ story: Story, maxTransitions: Int, journal: ScenarioRunner.JournalUse) -> [Played] {
        let played = story.scenarios.map { Played($0, maxTransitions: maxTransitions, journal: journal) }
        DispatchQueue.concurrentPerform(iterations: played.count) { k in
            played[k].play(until: { false }, emit: { _, _ in })
        }
        return played
    }
}
