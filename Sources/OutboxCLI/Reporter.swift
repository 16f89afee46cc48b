import OutboxCore
import OutboxFoundation

/// What `--format` asks `run` and `compare` for: timeline lines, or a picture (issue 14).
enum OutputFormat: Equatable {
    case lines(TimelineFormat)
    /// One self-contained HTML page (`TimelinePicture.html`).
    case html
    /// The swimlanes alone as one SVG document (`TimelinePicture.svg`).
    case svg
    /// The checks alone as JUnit XML (`JUnitReport`); the summaries go to stderr.
    case junit

    init?(_ word: String) {
        switch word {
        case "html": self = .html
        case "svg": self = .svg
        case "junit": self = .junit
        default:
            guard let f = TimelineFormat(rawValue: word) else { return nil }
            self = .lines(f)
        }
    }

    static let words = "text, jsonl, junit, html or svg"

    /// Why this format cannot report `files` files, or nil: an SVG draws one.
    func refusal(files: Int, command: String) -> String? {
        guard self == .svg && files > 1 else { return nil }
        return command
            + ": --format svg draws one file; give one, or use --format html for several (one page, a section per file)"
    }
}

/// How a command writes what it plays: one concrete type per output format
/// (Reporters.swift), which `run` and `compare` share (docs/architecture.md,
/// "Output"). A command tells its reporter, in this order:
///
///     begin(story)                 a file, before anything of it is played
///       begin(run:label:)          each run of it: one in `run`, one per profile in `compare`
///         item(_:in:)              each timeline item as it is played
///       end(run:label:)            each run, once every run of the story has come to its end
///     end(story)                   what the format shows of the story on stdout (a table, objects)
///     (the failed checks, on stderr: `Tally.add`)
///     summarize(story)             the story's summary lines
///   finish(tally)                  the line under several stories, then what is written whole
///
/// A run stopped by a limit, a failed store or lost output ends the command
/// before its story's `end`: what streams has been written, what is written
/// whole (a picture, JUnit XML) is not. `item` is called for every transition
/// of a big file, so a command's `play` is generic over its reporter (one
/// switch on the format, no existential), and `item` builds nothing its line
/// does not need.
protocol Reporter {
    /// What each run must keep of its journal for this format's lines.
    var journal: ScenarioRunner.JournalUse { get }
    /// Whether the format shows items as they are played. When not, `compare`
    /// plays a story's profiles at once, on every core, and calls no `item`.
    var streams: Bool { get }
    /// Whether a comparison's rows are shown (the matched requests and where
    /// they part): `compare` then records every run's transitions.
    var matchesRequests: Bool { get }

    mutating func begin(_ story: StoryStart)
    /// `label`: the run's profile in a comparison, nil for a file's one run.
    mutating func begin(run scenario: Scenario, label: String?)
    mutating func item(_ item: TimelineItem, in sim: Simulation)
    mutating func end(run runner: ScenarioRunner, label: String?)
    mutating func end(_ story: StoryEnd)
    mutating func summarize(_ story: StoryEnd)
    mutating func finish(_ tally: Tally)
}

extension Reporter {
    var matchesRequests: Bool { false }
    mutating func begin(_ story: StoryStart) {}
    mutating func begin(run scenario: Scenario, label: String?) {}
    mutating func item(_ item: TimelineItem, in sim: Simulation) {}
    mutating func end(run runner: ScenarioRunner, label: String?) {}
    mutating func end(_ story: StoryEnd) {}
}

/// A story as it begins: its file, the profiles it plays on (one in `run`),
/// and the lines skipped on some of them (only a comparison skips lines).
struct StoryStart {
    let file: String
    let profiles: [Profile]
    let skips: [(skip: Scenario.SkippedLine, profiles: [Profile])]

    /// `outbox run`: the file on its own profile.
    init(_ scenario: Scenario) {
        file = scenario.file
        profiles = [scenario.profile]
        skips = []
    }

    /// `outbox compare`: the file on each profile.
    init(_ story: CompareCommand.Story) {
        file = story.file
        profiles = story.profiles
        skips = story.skips
    }
}

/// A story whose runs have all come to their end.
enum StoryEnd {
    /// `outbox run`: the file played once, on its own profile.
    case single(ScenarioRunner)
    /// `outbox compare`: the file played once per profile; the rows matched
    /// when the reporter `matchesRequests`.
    case comparison(CompareReport)

    var file: String {
        switch self {
        case .single(let runner): return runner.scenario.file
        case .comparison(let report): return report.story.file
        }
    }

    /// A run's summary in two parts, so that a terminal's line shortens the
    /// path and never the verdict: `: N passed, M failed` and
    /// ` · T transitions · ended at CLOCK`.
    static func verdict(_ runner: ScenarioRunner) -> (verdict: String, tail: String) {
        let bad = runner.failures.count
        return (
            ": \(runner.checkCount - bad) passed, \(bad) failed",
            " · \(runner.sim.transitionCount) transitions · ended at \(VirtualTime.clock(runner.sim.now))"
        )
    }

    /// The summary lines as stderr gets them, whole: a run's one line, a
    /// comparison's line per profile.
    var summaryLines: [String] {
        switch self {
        case .single(let runner):
            let (verdict, tail) = Self.verdict(runner)
            return [runner.scenario.file + verdict + tail]
        case .comparison(let report): return report.summaryLines(width: Int.max)
        }
    }
}

/// The checks of a command's stories, and the exit status they give.
struct Tally {
    private(set) var checks = 0, failed = 0, stories = 0

    /// Counts a story's checks and says each failed one on stderr, with its
    /// file and line (and, in a comparison, its profile).
    mutating func add(_ story: StoryEnd, console: Console) {
        stories += 1
        switch story {
        case .single(let runner):
            add(runner, file: runner.scenario.file, profile: nil, console: console)
        case .comparison(let report):
            for (p, run) in zip(report.profiles, report.played) {
                add(run.runner, file: report.story.file, profile: p.rawValue, console: console)
            }
        }
    }

    private mutating func add(_ runner: ScenarioRunner, file: String, profile: String?, console: Console) {
        let on = profile.map { " on " + $0 } ?? ""
        for r in runner.failures {
            console.error("\(file):\(r.line): check failed\(on): \(r.text): found \(r.found)")
        }
        failed += runner.failures.count
        checks += runner.checkCount
    }

    /// The line under several stories (`N passed, M failed`); nil for one.
    var totalLine: String? { stories > 1 ? "\(checks - failed) passed, \(failed) failed" : nil }

    /// 0 when every check held; 1 when one failed or output was lost.
    func status(_ console: Console) -> Int32 { console.failed || failed > 0 ? 1 : 0 }
}
