import OutboxCore
import OutboxFoundation
import OutboxUI

// The output formats of `run` and `compare` (Reporter.swift has the order a
// command calls them in). Which command offers which is `FormatWords`'s.

/// `--format text` of `outbox run`: the timeline for people as it is played,
/// a summary line per file and the total under several, on stdout. On a
/// terminal every line fits its width and has colour (unless NO_COLOR); files
/// and pipes get the full lines (docs/scenarios.md).
struct TextTimelineReporter: Reporter {
    let console: Console
    /// `--quiet`: only failed checks and the summaries.
    let quiet: Bool
    /// More than one story: each gets a heading.
    let several: Bool
    /// The terminal's width, or nil.
    let screen: Int?
    let paint: TimelinePaint
    let writer = TimelineWriter(format: .text)

    init(console: Console, quiet: Bool, several: Bool) {
        self.console = console
        self.quiet = quiet
        self.several = several
        screen = console.terminalColumns
        let noColor = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        paint = TimelinePaint(colour: screen != nil && !noColor)
    }

    // The timeline is printed as it happens and not kept (docs/reliability.md, Big inputs).
    var journal: ScenarioRunner.JournalUse { quiet ? .checksOnly : .streamed }
    var streams: Bool { true }

    func begin(_ story: StoryStart) {
        guard !quiet && several else { return }
        let profiles = " (" + story.profiles.map(\.rawValue).joined(separator: ", ") + ")"
        console.print(
            screen.map {
                TimelineWriter.fit(lead: "== ", path: RunCommand.shown(story.file), verdict: profiles, width: $0)
            } ?? SafeText.line("== " + story.file + profiles))
    }

    func item(_ item: TimelineItem, in sim: Simulation) {
        switch item {
        case .entry(let e):
            guard !quiet else { break }
            // Painted for a terminal: colour sequences around spans escaped one by one.
            if let w = screen {
                console.printExact(paint.render(writer.spans(e, in: sim, width: w)))
            } else {
                console.print(writer.line(e, in: sim))
            }
        case .check(let r):
            guard !quiet || !r.ok else { break }
            if let w = screen {
                console.printExact(paint.render(writer.spans(r, width: w)))
            } else {
                console.print(writer.check(r))
            }
        }
    }

    func summarize(_ story: StoryEnd) {
        switch story {
        case .single(let runner):
            // On a terminal the path gives way (in its middle), never the verdict.
            let (verdict, tail) = StoryEnd.verdict(runner)
            let file = runner.scenario.file
            console.print(
                screen.map { TimelineWriter.fit(path: RunCommand.shown(file), verdict: verdict, tail: tail, width: $0) }
                    ?? SafeText.line(file + verdict + tail))
        case .comparison(let report):
            for line in report.summaryLines(width: screen ?? Int.max) { console.print(line) }
        }
    }

    func finish(_ tally: Tally) {
        guard let line = tally.totalLine else { return }
        console.print(screen.map { TimelineWriter.fit(line, width: $0) } ?? line)
    }
}

/// `--format jsonl` of `run` and `compare`: one JSON object a line on stdout
/// as the runs play (docs/scenarios.md, "JSONL"), each naming its file when
/// there are several and its profile in a comparison; a comparison's skipped
/// lines before its timelines and its diverged rows after them. The summaries
/// go to stderr.
struct JSONLReporter: Reporter {
    let console: Console
    /// `--quiet`: only failed checks (and a comparison's diverged rows).
    let quiet: Bool
    let several: Bool
    var file = ""
    var writer = TimelineWriter(format: .jsonl)

    init(console: Console, quiet: Bool, several: Bool) {
        self.console = console
        self.quiet = quiet
        self.several = several
    }

    var journal: ScenarioRunner.JournalUse { quiet ? .checksOnly : .streamed }
    var streams: Bool { true }
    var matchesRequests: Bool { true }

    mutating func begin(_ story: StoryStart) {
        file = story.file
        // Skipped lines come first: they say what the timelines below lack.
        guard !quiet else { return }
        for s in story.skips { console.print(CompareReport.skipJSON(s.skip, s.profiles, file: story.file)) }
    }

    mutating func begin(run scenario: Scenario, label: String?) {
        // With several files each line says which; one file's lines stay as they were.
        writer = TimelineWriter(format: .jsonl, profile: label, file: several ? file : nil)
    }

    func item(_ item: TimelineItem, in sim: Simulation) {
        switch item {
        case .entry(let e):
            if !quiet { console.print(writer.line(e, in: sim)) }
        case .check(let r):
            if !quiet || !r.ok { console.print(writer.check(r)) }
        }
    }

    func end(_ story: StoryEnd) {
        if case .comparison(let report) = story { report.printJSONL(console: console) }
    }

    func summarize(_ story: StoryEnd) {
        for line in story.summaryLines { console.error(line) }
    }

    func finish(_ tally: Tally) {
        if let line = tally.totalLine { console.error(line) }
    }
}

/// `run --format junit`: the checks as JUnit XML (`JUnitReport`), a suite per
/// run, written whole at the end, so a run stopped by bad input or a limit
/// leaves stdout empty. The summaries go to stderr.
struct JUnitReporter: Reporter {
    let console: Console
    var suites: [JUnitReport.Suite] = []
    var cases: [JUnitReport.Case] = []
    /// When the run being played started, and when its last check was made.
    var started = ContinuousClock.now, last = ContinuousClock.now

    init(console: Console) { self.console = console }

    var journal: ScenarioRunner.JournalUse { .checksOnly }
    var streams: Bool { true }

    /// The story's time counts from here: opening its device is part of it.
    mutating func begin(_ story: StoryStart) {
        started = .now
        last = started
    }

    mutating func item(_ item: TimelineItem, in sim: Simulation) {
        guard case .check(let r) = item else { return }
        let now = ContinuousClock.now
        cases.append(JUnitReport.Case(r, wallMicros: Self.micros(now - last)))
        last = now
    }

    mutating func end(run runner: ScenarioRunner, label: String?) {
        let now = ContinuousClock.now
        suites.append(
            JUnitReport.Suite(
                file: runner.scenario.file, profile: runner.scenario.profile.rawValue, cases: cases,
                ended: runner.sim.now, transitions: runner.sim.transitionCount,
                wallMicros: Self.micros(now - started)))
        cases = []
        started = now
        last = now
    }

    func summarize(_ story: StoryEnd) {
        for line in story.summaryLines { console.error(line) }
    }

    func finish(_ tally: Tally) {
        if let line = tally.totalLine { console.error(line) }
        console.printExact(JUnitReport.render(suites), terminator: "")
    }

    /// A wall-clock duration in whole microseconds.
    static func micros(_ d: Duration) -> Int {
        let c = d.components
        return Int(c.seconds) * 1_000_000 + Int(c.attoseconds / 1_000_000_000_000)
    }
}

/// `--format html` and `--format svg` of `run` and `compare`: the runs drawn
/// from their whole journals (`TimelinePicture`), a lane group per run (per
/// profile in a comparison), written whole at the end: one page with a
/// section per file, or one file's swimlanes as SVG. The summaries go to
/// stderr.
struct PictureReporter: Reporter {
    let console: Console
    /// SVG (one story) rather than an HTML page.
    let svg: Bool
    /// The page's heading: the command that made it.
    let title: String
    var stories: [TimelinePicture.Story] = []
    var runs: [TimelinePicture.Run] = []

    init(console: Console, svg: Bool, title: String) {
        self.console = console
        self.svg = svg
        self.title = title
    }

    // A picture is drawn from the whole run: its journal is kept, nothing is printed as it happens.
    var journal: ScenarioRunner.JournalUse { .kept }
    var streams: Bool { false }

    mutating func end(run runner: ScenarioRunner, label: String?) {
        runs.append(TimelinePicture.Run(label: label ?? "", sim: runner.sim, results: runner.results))
    }

    mutating func end(_ story: StoryEnd) {
        stories.append(TimelinePicture.Story(file: story.file, runs: runs))
        runs = []
    }

    func summarize(_ story: StoryEnd) {
        for line in story.summaryLines { console.error(line) }
    }

    func finish(_ tally: Tally) {
        if let line = tally.totalLine { console.error(line) }
        if svg {
            // XML: every name escaped by `SafeText.xml`, the rest Outbox's own markup.
            if let story = stories.first { console.printExact(TimelinePicture().svg(story), terminator: "") }
        } else {
            console.printExact(TimelinePicture().html(stories, title: title), terminator: "")
        }
    }
}

/// `compare --format text`: a table per file once its profiles have run
/// (`CompareReport.printText`: heading, skipped lines, the rows, a summary
/// line per profile), laid out for `width` columns, and the total under
/// several files, on stdout.
struct CompareTableReporter: Reporter {
    let console: Console
    let width: Int
    /// `--quiet`: no rows, only skips, failed checks and summaries.
    let quiet: Bool
    let several: Bool

    // Quiet, no table: the runs need keep nothing for one, as `run --quiet`.
    var journal: ScenarioRunner.JournalUse { .checksOnly }
    var streams: Bool { false }
    // A quiet table is not printed: its rows are not worked out.
    var matchesRequests: Bool { !quiet }

    func end(_ story: StoryEnd) {
        guard case .comparison(let report) = story else { return }
        report.printText(console: console, width: width, quiet: quiet, heading: several || !quiet)
    }

    func summarize(_ story: StoryEnd) {
        // A comparison's summary lines are the table's last lines.
        guard case .single = story else { return }
        for line in story.summaryLines { console.print(line) }
    }

    func finish(_ tally: Tally) {
        if let line = tally.totalLine { console.print(line) }
    }
}
