import ArgumentParser
import OutboxCore
import OutboxFoundation
import OutboxStore
import OutboxUI

/// `outbox run FILE... [--format text|jsonl|junit|html|svg] [--quiet] [--state-dir DIR] [--max-transitions N] [--watch | --update]`
struct RunCommand: OutboxSubcommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "run", abstract: "play scenario files headless and check their expect lines",
            usage: CLI.parserUsage(synopsis), discussion: Help.run)
    }
    static var synopsis: String {
        "outbox run FILE... [--format \(FormatWords.choices(FormatWords.run))] [--quiet] [--state-dir DIR] [--max-transitions N]\n"
            + "                  [--watch | --update]"
    }

    @Argument(
        help: ArgumentHelp("scenario files (.outbox)", valueName: "FILE"), completion: .file(extensions: ["outbox"]))
    var files: [String] = []

    @Option(
        help: ArgumentHelp(
            "text for people (default), jsonl one JSON object a line (also --format=jsonl), junit the checks as JUnit XML, html one self-contained page, svg the swimlanes alone",
            valueName: FormatWords.choices(FormatWords.run)),
        completion: .list(FormatWords.run))
    var format: String?

    @Flag(name: [.long, .short], help: "print only failed checks and the summary")
    var quiet = false

    @Option(
        help: ArgumentHelp(
            "use the saved device in DIR (one SQLite database per profile) instead of one in memory; what the run saves stays there for the next run or the live screen",
            valueName: "DIR"),
        completion: .directory)
    var stateDir: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "stop a run that makes more than N transitions (default 10000000, about 0.5 GB of timeline)",
            valueName: "N"))
    var maxTransitions: String?

    @Flag(
        help:
            "run again whenever a file changes (a scenario, or a profile file one names), clearing the terminal between runs; bad input is shown and the watch goes on; Ctrl-C ends it"
    )
    var watch = false

    /// `--max-transitions N`, or why N is refused.
    static func maxTransitions(_ word: String?, command: String) -> Result<Int, Problem> {
        guard let word else { return .success(ScenarioRunner.defaultMaxTransitions) }
        guard let n = Int(word), n >= 1 else {
            return .failure(
                Problem(
                    "\(command): --max-transitions needs a whole number ≥ 1 (default \(ScenarioRunner.defaultMaxTransitions))"
                ))
        }
        return .success(n)
    }

    @Flag(
        help:
            "rewrite each file's failing expect values to what the run found (a snapshot update; comments, spacing and line ends kept), say on stderr what changed, then run the files again: 0 when they now hold"
    )
    var update = false

    func execute(console: Console) -> Int32 {
        guard let (output, maxTransitions) = options(console: console) else { return 2 }
        if update {
            if let why = updateRefusal() {
                console.error(why)
                return 2
            }
            return updating(console: console, output: output, maxTransitions: maxTransitions)
        }
        guard watch else { return play(console: console, output: output, maxTransitions: maxTransitions) }
        return watching(console: console, output: output, maxTransitions: maxTransitions)
    }

    /// `--watch`: plays the files, then again each time one of them (or a
    /// profile file they name) changes, until Ctrl-C, which ends the process
    /// as it ends any command (the shell sees 130). Bad input is printed and
    /// the watch goes on: the next save may fix it.
    func watching(console: Console, output: OutputFormat, maxTransitions: Int) -> Int32 {
        Watch.loop(files: files, command: "outbox run --watch", console: console) { noted in
            play(console: console, output: output, maxTransitions: maxTransitions, noting: noted)
        }
    }

    /// The options checked, or nil when one is bad (the message is printed).
    func options(console: Console) -> (OutputFormat, Int)? {
        let output: OutputFormat
        switch FormatWords.parse(self.format, command: Self.prefix, available: FormatWords.run) {
        case .failure(let why):
            console.error(why.message)
            return nil
        case .success(let word): output = OutputFormat(word)!
        }
        let maxTransitions: Int
        switch Self.maxTransitions(self.maxTransitions, command: Self.prefix) {
        case .failure(let why):
            console.error(why.message)
            return nil
        case .success(let n): maxTransitions = n
        }
        guard !files.isEmpty else {
            console.error("outbox run: no scenario file given")
            console.error("usage: " + Self.synopsis)
            return nil
        }
        if let why = output.refusal(files: files.count, command: Self.prefix) {
            console.error(why)
            return nil
        }
        return (output, maxTransitions)
    }

    /// Plays the files once; returns the exit status. `noting` keeps the
    /// profile files the scenarios name.
    func play(console: Console, output: OutputFormat, maxTransitions: Int, noting: ProfileLoader.ReadPaths? = nil)
        -> Int32
    {
        let stateDir = self.stateDir
        // Parse everything first: bad input anywhere means nothing runs.
        var scenarios: [Scenario] = []
        var bad = false
        for f in files {
            let text: String
            switch Self.readText(f, streams: true) {
            case .success(let t): text = t
            case .failure(let why):
                console.error(RunCommand.unreadable(f, why))
                bad = true
                continue
            }
            // A device on disk may hold requests of any name: expect lines are not held to the file's.
            let profiles = ProfileLoader.resolver(relativeTo: ProfileLoader.directory(of: f), noting: noting)
            switch Scenario.parse(text, file: f, profiles: profiles, savedDevice: stateDir != nil) {
            case .success(let s): scenarios.append(s)
            case .failure(let e):
                for problem in e.errors { console.error(problem.description) }
                bad = true
            }
        }
        if bad { return 2 }
        if stateDir != nil {
            // A device on disk and a file's starting contents cannot both be the device.
            for sc in scenarios {
                guard let line = sc.device.line else { continue }
                console.error(
                    SafeText.line(
                        "\(sc.file):\(line): the file gives the device's starting contents (`saved`/`device` lines), "
                            + "and --state-dir gives a saved device; expected one of them: run without --state-dir, "
                            + "or remove the lines"))
                bad = true
            }
            if bad { return 2 }
        }

        let several = scenarios.count > 1
        switch output {
        case .lines(.text):
            let text = TextTimelineReporter(console: console, quiet: quiet, several: several)
            return play(scenarios, reporting: text, console: console, maxTransitions: maxTransitions)
        case .lines(.jsonl):
            let jsonl = JSONLReporter(console: console, quiet: quiet, several: several)
            return play(scenarios, reporting: jsonl, console: console, maxTransitions: maxTransitions)
        case .junit:
            let junit = JUnitReporter(console: console)
            return play(scenarios, reporting: junit, console: console, maxTransitions: maxTransitions)
        case .html, .svg:
            let picture = PictureReporter(console: console, svg: output == .svg, title: Self.pictureTitle(files))
            return play(scenarios, reporting: picture, console: console, maxTransitions: maxTransitions)
        }
    }

    /// Plays the parsed files one after the other, each on its device,
    /// `reporter` writing what they do (Reporter.swift has the order).
    func play<R: Reporter>(_ scenarios: [Scenario], reporting reporter: R, console: Console, maxTransitions: Int)
        -> Int32
    {
        var reporter = reporter
        var tally = Tally()
        for sc in scenarios {
            reporter.begin(StoryStart(sc))
            var store: any DeviceStore = InMemoryDeviceStore()
            var disk: SQLiteDeviceStore?
            // A profile that saves nothing (`save never`) never writes a device: no file is made for it.
            if let dir = stateDir, !sc.profile.savesNothing {
                do {
                    disk = try SQLiteDeviceStore(directory: dir, profile: sc.profile)
                    store = disk!
                } catch {
                    console.error("outbox run: " + error.description)
                    return 2
                }
            }
            defer { disk?.close() }
            var runner = ScenarioRunner(sc, store: store, maxTransitions: maxTransitions, journal: reporter.journal)
            reporter.begin(run: sc, label: nil)
            runner.run(until: { console.failed }) { item, sim in reporter.item(item, in: sim) }
            if console.failed { return 1 }
            if let why = store.failure {
                console.error("outbox run: the device store failed, so the run stopped: " + why)
                return 2
            }
            if let why = runner.stopped {
                console.error(
                    "\(sc.file): the run stopped at \(VirtualTime.clock(runner.sim.now)): \(why); "
                        + "expected a scenario that ends within Outbox's limits (docs/reliability.md)")
                return 2
            }
            reporter.end(run: runner, label: nil)
            let end = StoryEnd.single(runner)
            reporter.end(end)
            tally.add(end, console: console)
            reporter.summarize(end)
        }
        reporter.finish(tally)
        return tally.status(console)
    }

    /// The heading of `run --format html`'s page: the command that made it.
    static func pictureTitle(_ files: [String]) -> String { "outbox run " + files.joined(separator: " ") }

    /// A path as a line for people shows it: escaped, but whole (a terminal's
    /// line shortens it in its middle; `SafeText.line` would cut its end).
    static func shown(_ path: String) -> String { SafeText.line(path, maxWord: Int.max) }

    /// The error for a scenario file that cannot be read (`run`, `compare`, `--play`).
    static func unreadable(_ path: String, _ why: Platform.ReadFailure) -> String {
        // A refusal that says what it expected ("it is a FIFO, expected a regular file") needs no second.
        path + (why.line.map { ":\($0)" } ?? "") + ": cannot read the file: \(why.message)"
            + (why.message.contains(", expected ") ? "" : "; expected a readable scenario file")
    }

    /// The most bytes a scenario file may hold (docs/reliability.md).
    static let maxFileBytes = 256 << 20

    /// A scenario file's text; a failure says what was wrong (no such file, a
    /// directory, too large, not UTF-8 and where, a FIFO or a device). `streams`:
    /// a pipe or a terminal is read too, as `cat` would, for a file named on the
    /// command line (`outbox run <(...)`, `/dev/stdin`); elsewhere (`:play`) only
    /// a regular file is, so nothing waits on a FIFO (docs/reliability.md).
    static func readText(_ path: String, streams: Bool = false) -> Result<String, Platform.ReadFailure> {
        readContents(path, streams: streams).map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// `readText`'s bytes (UTF-8 text) and the stamp of the file they were read from (`--update`).
    static func readContents(_ path: String, streams: Bool = false) -> Result<
        Platform.ReadContents, Platform.ReadFailure
    > {
        switch Platform.readStamped(path, limit: maxFileBytes, streams: streams) {
        case .failure(let f): return .failure(f)
        case .success(let (bytes, stamp)):
            if isUTF8(bytes[...]) { return .success(Platform.ReadContents(bytes: bytes, stamp: stamp)) }
            // Name the first line that is not UTF-8.
            var line = 1, start = 0
            for (i, b) in bytes.enumerated() where b == 10 {
                if !isUTF8(bytes[start..<i]) { break }
                line += 1
                start = i + 1
            }
            return .failure(Platform.ReadFailure(message: "the line is not UTF-8 text", line: line))
        }
    }

    /// Whether bytes are valid UTF-8 (without `String(validating:)`, which older macOS lacks).
    static func isUTF8(_ bytes: ArraySlice<UInt8>) -> Bool {
        var it = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&it) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}

/// `--watch` of `outbox run` and `outbox compare`: play, say what happened and
/// what is watched, wait for a change, clear the terminal, play again.
enum Watch {
    /// Plays (`play` notes the profile files it read), then again each time one
    /// of `files` or those profile files changes, until Ctrl-C, which ends the
    /// process as it ends any command (the shell sees 130). Bad input is printed
    /// and the watch goes on: the next save may fix it. Returns only when the
    /// console cannot be written (1).
    ///
    /// `wait` stands in for the watcher in tests: given the paths and the
    /// stamps they had when read, it returns once one may differ, or false to
    /// end the loop (with the last run's status).
    static func loop(
        files: [String], command: String, console: Console,
        wait: ((_ paths: [String], _ seen: [Platform.FileStamp?]) -> Bool)? = nil,
        play: (ProfileLoader.ReadPaths) -> Int32
    ) -> Int32 {
        let watcher = Platform.FileWatcher()
        let wait =
            wait ?? { paths, seen in
                watcher.wait(for: paths, seen: seen)
                return true
            }
        var first = true
        while true {
            // Stamped before they are read: a save during the run is a change.
            let stamps = files.map(Platform.stamp)
            // Between runs, on a terminal: the cursor home, the screen cleared.
            if !first && console.terminalColumns != nil { console.printExact("\u{1b}[H\u{1b}[2J", terminator: "") }
            first = false
            let noted = ProfileLoader.ReadPaths()
            let status = play(noted)
            if console.failed { return 1 }
            let profiles = noted.paths.filter { !files.contains($0) }
            let what = status == 0 ? "every check holds" : status == 1 ? "a check failed" : "bad input or a limit"
            let watched =
                "\(files.count) file" + (files.count == 1 ? "" : "s")
                + (profiles.isEmpty ? "" : " and \(profiles.count) profile file" + (profiles.count == 1 ? "" : "s"))
            console.error("\(command): \(what) (status \(status)); watching \(watched) for changes, Ctrl-C ends")
            if console.failed { return 1 }
            // The profiles as they were when read: a save during the run is a change too.
            guard wait(files + profiles, stamps + profiles.map(noted.stamp)) else { return status }
        }
    }
}
