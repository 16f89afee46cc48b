import ArgumentParser
import Dispatch
import OutboxCore
import OutboxFoundation
import OutboxStore
import OutboxTerminal
import OutboxUI

/// `outbox [--profile P | --compare P,P,... | --play FILE] [--theme NAME|PATH] [--speed S] [--seed N] [--record FILE] [--cast FILE]`: the interactive screen.
struct InteractiveCommand: OutboxSubcommand {
    struct Options {
        var profile = Builtins.standard
        var theme: String?
        var speed = Speed.normal
        var seed: UInt64 = 1
        var record: String?
        /// `--force`: `--record` and `--cast` may replace a file that exists.
        var force = false
        /// `--cast FILE`: the screen recorded as asciicast v2 (CastFile).
        var cast: String?
        var stateDir = SQLiteDeviceStore.defaultDirectory()
        var memory = false
        /// `--compare`: the profiles shown side by side, on devices in memory.
        var compare: [Profile]?
        var profileGiven = false
        /// `--play FILE`: the scenario file played on the screen, parsed before the terminal is touched.
        var play: String?
        var seedGiven = false, stateDirGiven = false
        /// `--no-mouse`: no mouse reporting; the terminal's own selection works.
        var mouse = true
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "live", abstract: "the interactive screen (the default: `outbox` alone opens it)",
            usage: CLI.parserUsage(synopsis), discussion: Help.live)
    }
    static var prefix: String { "outbox" }
    static var synopsis: String {
        "outbox [--profile NAME|PATH.profile] [--theme NAME|PATH] [--speed \(Speed.all.map(\.word).joined(separator: "|"))] [--seed N] [--no-mouse]\n"
            + "              [--record FILE] [--cast FILE] [--force] [--state-dir DIR | --memory] [--compare P,P,... | --play FILE]"
    }

    @Option(
        help: ArgumentHelp(
            // The default named from the registry, so the help cannot disagree with it.
            "the SDK profile: "
                + Builtins.all.filter { !Builtins.isReal($0.name) }.map {
                    $0 == Builtins.standard ? "\($0.rawValue) (default)" : $0.rawValue
                }
                .joined(separator: ", ") + ", a real SDK's (outbox profiles), a user profile's name, or PATH.profile",
            valueName: "NAME|PATH.profile"),
        completion: ProfileLoader.completion())
    var profile: String?

    @Option(
        help: ArgumentHelp("the colours: a theme's name or a .theme file", valueName: "NAME|PATH"),
        completion: .list(themeNames))
    var theme: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("the clock's starting speed", valueName: Speed.all.map(\.word).joined(separator: "|")),
        completion: .list(Speed.all.map(\.word)))
    var speed: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("the seed of every random choice (default 1)", valueName: "N"))
    var seed: String?

    @Option(
        help: ArgumentHelp("write the session as a scenario file (`outbox run FILE` replays it)", valueName: "FILE"),
        completion: .file(extensions: ["outbox"]))
    var record: String?

    @Flag(help: "let --record replace a file that exists")
    var force = false

    @Option(
        help: ArgumentHelp("keep the device in DIR (one SQLite database per profile)", valueName: "DIR"),
        completion: .directory)
    var stateDir: String?

    @Flag(help: "keep the device in memory: nothing is saved")
    var memory = false

    @Option(
        help: ArgumentHelp("2 to 4 profiles side by side, on devices in memory", valueName: "P,P,..."),
        completion: ProfileLoader.completion(list: true))
    var compare: String?

    @Option(
        help: ArgumentHelp("play a scenario file on the screen, paused at 0", valueName: "FILE"),
        completion: .file(extensions: ["outbox"]))
    var play: String?

    @Option(
        help: ArgumentHelp("record the screen as an asciicast v2 file (`asciinema play FILE`)", valueName: "FILE"),
        completion: .file(extensions: ["cast"]))
    var cast: String?

    @Flag(help: "no mouse: clicks and the wheel go to the terminal (its own text selection) instead of the screen")
    var noMouse = false

    func execute(console: Console) -> Int32 {
        guard let o = options(console: console) else { return 2 }
        return Self.start(o, console: console)
    }

    /// The options of the live screen from the command line, or nil after saying what is wrong.
    static func parse(_ args: [String], console: Console) -> Options? {
        do {
            return try parse(args).options(console: console)
        } catch {
            _ = CLI.report(error, args: [], console: console)
            return nil
        }
    }

    /// The parsed words checked and turned into options; nil after saying what is wrong.
    func options(console: Console) -> Options? {
        func shown(_ s: String) -> String { Self.shown(s) }
        var o = Options()
        if let v = profile {
            switch ProfileLoader.resolve(v, relativeTo: nil) {
            case .failure(let problem):
                console.error("outbox: --profile: " + problem.message)
                return nil
            case .success(let p): o.profile = p
            }
            o.profileGiven = true
        }
        if let v = compare {
            switch AppModel.parseCompare(v, profiles: ProfileLoader.resolver()) {
            case .failure(let p):
                console.error("outbox: --compare " + p.message)
                return nil
            case .success(let ps): o.compare = ps
            }
        }
        o.theme = theme
        if let v = speed {
            guard let sp = Speed.parse(v) else {
                console.error("outbox: bad --speed `\(shown(v))`, expected \(Speed.expected)")
                return nil
            }
            o.speed = sp
        }
        if let v = seed {
            guard let n = UInt64(v) else {
                console.error("outbox: bad --seed `\(shown(v))`, expected a whole number from 0 to \(UInt64.max)")
                return nil
            }
            o.seed = n
            o.seedGiven = true
        }
        o.record = record
        o.force = force
        if let v = stateDir {
            o.stateDir = v
            o.stateDirGiven = true
        }
        o.play = play
        o.memory = memory
        o.cast = cast
        o.mouse = !noMouse
        if o.force && o.record == nil && o.cast == nil {
            console.error("outbox: --force goes with --record FILE or --cast FILE (it lets the recording replace FILE)")
            return nil
        }
        if o.compare != nil && o.profileGiven {
            console.error(
                "outbox: --profile and --compare do not go together; the first profile of --compare is the first column"
            )
            return nil
        }
        if o.play != nil {
            // The file decides its profile, settings and seed, on a device in memory,
            // as `outbox run FILE` does; and it is already the recording of what plays.
            let clash: [(Bool, String)] = [
                (o.profileGiven, "--profile (the file's profile line decides)"),
                (o.compare != nil, "--compare (outbox compare FILE plays a file on several profiles)"),
                (o.seedGiven, "--seed (the file's set seed line decides)"),
                (o.stateDirGiven, "--state-dir (a play uses a device in memory, as outbox run FILE)"),
                (o.record != nil, "--record (the played file already replays with outbox run FILE)"),
            ]
            if let c = clash.first(where: { $0.0 }) {
                console.error("outbox: --play does not go with " + c.1)
                return nil
            }
        }
        return o
    }

    /// Loads a theme by name (shipped) or path (a .theme file).
    static func loadTheme(_ spec: String) -> Result<Theme, Problem> {
        if let t = Theme.builtin(spec) { return .success(t) }
        guard spec.contains("/") || spec.hasSuffix(".theme") else {
            return .failure(
                Problem(
                    "unknown theme `\(spec)`, expected one of: " + themeNames.joined(separator: ", ")
                        + ", or a path to a .theme file"))
        }
        // A theme is a few dozen lines: 1 MB is plenty, and `/dev/zero` is refused by name.
        let text: String
        switch Platform.readFile(spec, limit: 1 << 20) {
        case .failure(let f):
            // A refusal that says what it expected ("it is a FIFO, expected a regular file") needs no second.
            let expected = f.message.contains(", expected ") ? "" : "; expected a readable .theme file"
            return .failure(Problem("\(spec): cannot read the theme file: \(f.message)\(expected)"))
        case .success(let bytes):
            guard RunCommand.isUTF8(bytes[...]) else {
                return .failure(Problem("\(spec): cannot read the theme file: it is not UTF-8 text"))
            }
            text = String(decoding: bytes, as: UTF8.self)
        }
        let name = URL(fileURLWithPath: spec).deletingPathExtension().lastPathComponent
        switch Theme.parse(text, name: name, file: spec) {
        case .success(let t): return .success(t)
        case .failure(let e): return .failure(Problem(e.description))
        }
    }

    static let themeNames = ["default", "light", "high-contrast", "monochrome"]

    /// Opens the device of a profile: SQLite in the state directory, or memory.
    static func openStore(_ profile: Profile, _ o: Options) -> Result<any DeviceStore, StoreError> {
        // A profile that saves nothing (`save never`) never writes a device: no file is made for it.
        if o.memory || profile.savesNothing { return .success(InMemoryDeviceStore()) }
        do {
            return .success(try SQLiteDeviceStore(directory: o.stateDir, profile: profile))
        } catch {
            return .failure(error)
        }
    }

    /// A simulation on a device, with the app launched: what the device saved goes out now.
    static func newModel(_ profile: Profile, seed: UInt64, store: any DeviceStore) -> AppModel {
        var settings = Settings(profile: profile)
        settings.seed = seed
        // What the device holds before the launch restores it: a recording starts with it.
        let start = DeviceStart(of: store)
        var m = AppModel(sim: Simulation(profile: profile, settings: settings, store: store))
        m.profileResolver = ProfileLoader.resolver()
        m.startingDevice = start
        m.perform(.appLaunched)
        return m
    }

    /// A compare of these profiles: each on a device in memory, the app launched
    /// on all at 0 (one shared action, recorded once).
    static func newCompareModel(_ profiles: [Profile], seed: UInt64) -> AppModel {
        let sims = profiles.map { p -> Simulation in
            var settings = Settings(profile: p)
            settings.seed = seed
            return Simulation(profile: p, settings: settings, store: InMemoryDeviceStore())
        }
        var m = AppModel(compare: sims)
        m.profileResolver = ProfileLoader.resolver()
        m.perform(.appLaunched)
        return m
    }

    /// The first file `--record` or `--cast` would write that another option
    /// names too (written, or read: `--play`, `--theme`, a profile file), however
    /// spelled (`Platform.sameFile`), said as a refusal naming both; or nil.
    static func sameFileClash(_ o: Options) -> String? {
        var named: [(option: String, path: String)] = []
        if let p = o.record { named.append(("--record", p)) }
        if let p = o.cast { named.append(("--cast", p)) }
        let written = named.count
        if let p = o.play { named.append(("--play", p)) }
        if let t = o.theme, Theme.builtin(t) == nil { named.append(("--theme", t)) }
        for p in o.compare ?? (o.profileGiven ? [o.profile] : []) where p.reference.hasPrefix("/") {
            named.append((o.compare == nil ? "--profile" : "--compare", p.reference))
        }
        for i in 0..<written {
            for j in (i + 1)..<named.count where Platform.sameFile(named[i].path, named[j].path) {
                return sameFileMessage(named[i], named[j], bothWrite: j < written)
            }
        }
        return nil
    }

    static func sameFileMessage(
        _ a: (option: String, path: String), _ b: (option: String, path: String), bothWrite: Bool
    ) -> String {
        let names =
            a.path == b.path
            ? "both name `\(shown(a.path))`" : "name the same file (`\(shown(a.path))`, `\(shown(b.path))`)"
        let why =
            bothWrite
            ? "each writes it: give each a file of its own"
            : "\(a.option) writes it and \(b.option) reads it: give \(a.option) a file of its own"
        return "outbox: \(a.option) and \(b.option) \(names); \(why); nothing was written"
    }

    static func start(_ o: Options, console: Console) -> Int32 {
        // Two options on one file (`--record F --cast F`): neither may write over the other.
        if let clash = sameFileClash(o) {
            console.error(clash)
            return 2
        }
        // Checked first, before the terminal: an existing file is left untouched (the open refuses it again).
        if let path = o.record, !o.force, Platform.exists(path) {
            console.error("outbox: " + RecordingFile.existsMessage(path))
            return 2
        }
        if let path = o.cast, !o.force, Platform.exists(path) {
            console.error("outbox: " + CastFile.existsMessage(path))
            return 2
        }
        // A file to play is read and parsed first: bad input exits 2 before the terminal is touched.
        var played: [Scenario]?
        if let path = o.play {
            switch loadScenario(path, streams: true) {
            case .success(let sc): played = sc
            case .failure(let f):
                for e in f.lines { console.error(e) }
                return 2
            }
        }
        let noColor = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        var theme: Theme
        switch loadTheme(o.theme ?? "default") {
        case .success(let t): theme = t
        case .failure(let why):
            console.error("outbox: " + SafeText.escaped(why.message, max: 1000))
            return 2
        }
        // Before anything touches the terminal: a terminal that cannot show the
        // screen gets one line saying so, and its modes are left alone.
        if let why = Terminal.unusable() {
            console.error(refusal(why))
            return 2
        }
        // Opened before anything else changes: an existing file is refused untouched.
        var recording: RecordingFile?
        if let path = o.record {
            switch RecordingFile.open(path, force: o.force, seed: o.seed, version: CLI.version) {
            case .success(let r):
                recording = r
                if let text = removedText(r.removedStale) { console.error("outbox: --record: " + text) }
            case .failure(let why):
                console.error("outbox: " + why.message)
                return 2
            }
        }
        /// A recording that never started is not left behind (a file `--force` would replace stays).
        func dropRecording() {
            guard var r = recording else { return }
            r.discard()
        }
        let store: any DeviceStore
        switch o.compare != nil || o.play != nil ? .success(InMemoryDeviceStore()) : openStore(o.profile, o) {
        case .success(let s): store = s
        case .failure(let e):
            dropRecording()
            console.error("outbox: " + SafeText.escaped(e.description, max: 1000))
            return 2
        }
        var model: AppModel
        if let sc = played {
            model = AppModel(playing: sc)
            model.profileResolver = ProfileLoader.resolver()
        } else {
            model =
                o.compare.map { newCompareModel($0, seed: o.seed) } ?? newModel(o.profile, seed: o.seed, store: store)
        }
        model.speedIndex = AppModel.speeds.firstIndex(of: o.speed) ?? model.speedIndex
        model.profileNames = ProfileLoader.userNames  // for Tab after :profile and :compare
        // A profile file beside the recording is named `./NAME.profile` in it.
        if let path = o.record { model.recordingFolder = ProfileLoader.directory(of: ProfileLoader.absolute(path)) }
        var cast: CastFile?
        if let path = o.cast {
            // The file the recording made a moment ago, by another spelling (a
            // case-insensitive disk): refused as the same file, not as one that exists.
            if let id = recording?.identity, let c = Platform.stamp(path), c.device == id.device, c.inode == id.inode {
                (store as? SQLiteDeviceStore)?.close()
                dropRecording()
                console.error(sameFileMessage(("--record", o.record ?? ""), ("--cast", path), bothWrite: true))
                return 2
            }
            let size = Platform.terminalSize(1) ?? (80, 24)
            switch CastFile.open(path, force: o.force, width: size.columns, height: size.rows) {
            case .success(let c):
                cast = c
                if let text = removedText(c.removedStale) { console.error("outbox: --cast: " + text) }
            case .failure(let why):
                (store as? SQLiteDeviceStore)?.close()
                dropRecording()
                console.error("outbox: " + why.message)
                return 2
            }
        }
        console.flush()
        // Signals are caught before curses starts, so it installs none of its own
        // and every stop goes through the loop's quit.
        Terminal.catchStopSignals()
        var sink: (@Sendable (UnsafeRawBufferPointer) -> Void)?
        if let c = cast { sink = { c.output($0) } }
        guard let term = Terminal(noColor: noColor, mouse: o.mouse, cast: sink) else {
            (store as? SQLiteDeviceStore)?.close()
            dropRecording()
            if let c = cast {
                c.close()
                if c.madeFirst { Platform.remove(c.path) }
            }
            console.error(
                "outbox: curses could not start on the terminal '\(shown(termName))'; " + runInstead + ", " + setTerm)
            return 2
        }
        if let c = cast { term.onResize = { c.resized(width: $0, height: $1) } }
        if noColor || !term.colors { theme = Theme.monochrome }
        term.use(theme)
        let glyphs: Glyphs = term.utf8 ? .unicode : .ascii
        var loop = Loop(
            model: model, term: term, glyphs: glyphs, recording: recording, seed: o.seed, theme: theme, options: o,
            cast: cast)
        let outcome = loop.run()
        term.restore()
        // Written straight to stderr: after a hangup the terminal is gone, and a
        // message that cannot be shown must not end in a crash.
        console.flush()
        if let msg = outcome.message { Terminal.writeError(msg + "\n") }
        // A recording or cast that stopped (a full disk) is a failed write: exit 1, as for stdout.
        var status = outcome.status
        if var r = loop.recording {
            r.close()
            Terminal.writeError(recordedLine(r, loop.model) + "\n")
            if r.failure != nil && status == 0 { status = 1 }
        }
        if let c = cast {
            c.close()
            Terminal.writeError(c.summary + "\n")
            if c.failure != nil && status == 0 { status = 1 }
        }
        // Stopped by a signal: die of it, so the parent sees what happened (a
        // shell loop stops on Ctrl-C). SIGQUIT's default would dump core, so
        // that one exits 131 instead.
        if outcome.signal != 0 && outcome.signal != SIGQUIT { Terminal.die(of: outcome.signal) }
        return status
    }

    /// A scenario file to play: read and parsed as `outbox run` does; a failure
    /// is the lines `outbox run` would print (FILE:LINE: what was wrong). A file
    /// with a `compare` line is also parsed for each of its profiles, as `outbox
    /// compare FILE` plays it: one scenario per column.
    /// `streams`: the file is named on the command line (`--play <(...)`), so a
    /// pipe is read too; `:play` takes a regular file only, as a frozen screen
    /// cannot be got out of.
    static func loadScenario(_ path: String, streams: Bool = false) -> Result<[Scenario], LoadFailure> {
        let text: String
        switch RunCommand.readText(path, streams: streams) {
        case .success(let t): text = t
        case .failure(let why):
            return .failure(LoadFailure(lines: [RunCommand.unreadable(path, why)]))
        }
        switch Scenario.parse(
            text, file: path, profiles: ProfileLoader.resolver(relativeTo: ProfileLoader.directory(of: path)))
        {
        case .success(let s):
            guard let profiles = s.compareProfiles else { return .success([s]) }
            var columns: [Scenario] = []
            for p in profiles {
                switch Scenario.parse(
                    text, file: path, playing: p,
                    profiles: ProfileLoader.resolver(relativeTo: ProfileLoader.directory(of: path)))
                {
                case .success(let c): columns.append(c)
                case .failure(let e): return .failure(LoadFailure(lines: e.errors.map(\.description)))
                }
            }
            return .success(columns)
        case .failure(let e): return .failure(LoadFailure(lines: e.errors.map(\.description)))
        }
    }

    /// `:play FILE` on a screen: a model playing the file with the screen's speed
    /// and breakpoints, or why not (the first problem of the file, or a recording under way).
    static func playing(_ path: String, after old: AppModel, recording: Bool) -> Result<AppModel, Problem> {
        if recording {
            return .failure(
                Problem(":play does not go with --record: the played file already replays with outbox run FILE"))
        }
        switch loadScenario(path) {
        case .failure(let f):
            let more = f.lines.count > 1 ? " (and \(f.lines.count - 1) more: outbox run FILE lists them)" : ""
            return .failure(Problem(f.lines[0] + more))
        case .success(let sc):
            var m = AppModel(playing: sc)
            m.profileResolver = ProfileLoader.resolver()
            return .success(carrying(m, from: old))
        }
    }

    /// A new session replacing `old` (`:profile`, `:compare`, `:play`, a device
    /// reopened): every model that takes the screen's place is made by this. It
    /// keeps the screen's size, speed, breakpoints and habits, and what the command line
    /// set on the first: the recording's folder (each part names a profile file
    /// beside it `./PATH`, as the first does), whether `E` records, and a stopped
    /// recording's or cast's mark.
    static func carrying(_ next: AppModel, from old: AppModel) -> AppModel {
        var m = next
        m.setScreen(width: old.screen.width, height: old.screen.height)
        m.speedIndex = old.speedIndex
        m.setBreakpoints(old.breakpoints)
        m.keepHabits(of: old)
        m.recordingFolder = old.recordingFolder
        m.isRecording = old.isRecording
        m.recordingStopped = old.recordingStopped
        m.castStopped = old.castStopped
        return m
    }

    /// A recording that stopped: the message says why, once; the header's mark stays.
    static func noteRecordingTrouble(_ model: inout AppModel, _ r: RecordingFile?) {
        guard let r, let why = r.failure, !model.recordingStopped else { return }
        model.recordingStopped = true
        model.message = (
            r.empty
                ? "recording stopped: nothing was recorded: " + why
                    + (r.madeFirst ? "" : " (the file there was left as it was)")
                : "recording stopped: " + why, true
        )
    }

    /// Why a file to play was not loaded: one line per problem.
    struct LoadFailure: Error { let lines: [String] }

    /// What the exit says of a recording: where it is and how to replay it. The
    /// counts are of the lines in the file (a full disk may have stopped it).
    static func recordedLine(_ r: RecordingFile, _ model: AppModel) -> String {
        let replay = model.isComparing ? "outbox compare" : "outbox run"
        var line: String
        if r.empty {
            return "outbox: nothing was recorded: " + shown(r.failure ?? "")
                + (r.madeFirst ? " (the empty file was removed)" : " (\(shown(r.path)) was left as it was)")
        }
        if r.parts.count == 1 {
            line =
                "outbox: recorded \(r.actions) actions"
                + (r.checks > 0 ? " and \(r.checks) expect lines (E)" : "")
                + " to \(shown(r.path)); replay with `\(replay) \(shown(r.path))`"
        } else {
            line =
                "outbox: recorded the session in \(r.parts.count) parts, one per clock (:profile, :compare): "
                + r.parts.map(shown).joined(separator: ", ")
                + "; each replays on its own (the last: `\(replay) \(shown(r.path))`)"
        }
        if let why = r.failure {
            line += "; but the recording stopped there: " + shown(why) + " (the file ends with its last whole line)"
        }
        return line
    }

    /// Text from the command line or a file, fit to quote in a message.
    static func shown(_ s: String) -> String { SafeText.escaped(s, max: 200) }

    /// What a write says of the hidden files it removed from its folder
    /// (`Platform.removeStaleTemporaries`), after its own words: "" for none,
    /// `; removed .outbox-export-4242, left by an export that was stopped` for
    /// one, `; removed 2 hidden files left by writes that were stopped (NAME, NAME)`.
    static func removedNote(_ removed: [Platform.StaleTemporary]) -> String {
        removedText(removed).map { "; " + $0 } ?? ""
    }

    /// `removedNote` as words of its own (`removed ...`), or nil for none.
    static func removedText(_ removed: [Platform.StaleTemporary]) -> String? {
        func name(_ path: String) -> String {
            shown(String(path[(path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex)...]))
        }
        guard let first = removed.first else { return nil }
        if removed.count == 1 { return "removed \(name(first.path)), left by \(first.writer) that was stopped" }
        return "removed \(removed.count) hidden files left by writes that were stopped ("
            + removed.map { name($0.path) }.joined(separator: ", ") + ")"
    }

    static var termName: String { ProcessInfo.processInfo.environment["TERM"] ?? "" }
    static let runInstead = "use `outbox run FILE` for a headless timeline"
    static let setTerm = "or set TERM to e.g. xterm-256color"

    /// Why the live screen does not start here, in one line.
    /// Why the live screen cannot start, and what to run instead (`outbox serve` says `--headless`).
    static func refusal(_ why: Terminal.Unusable, command: String = "outbox", instead: String = runInstead) -> String {
        switch why {
        case .notATerminal:
            return command + ": the live screen needs a terminal, and standard input or output is not one; " + instead
        case .termUnset:
            return command + ": TERM is not set, so the terminal cannot be known; set TERM to e.g. xterm-256color, or "
                + instead
        case .noTerminfo(let t):
            return
                command
                + ": no terminfo database was found to set up the terminal '\(shown(t))'; install ncurses' terminfo, or "
                + instead
        case .unknownTerm(let t):
            return command + ": the terminal type '\(shown(t))' is unknown here (no terminfo entry); " + instead + ", "
                + setTerm
        case .hardcopy(let t):
            return command + ": the terminal '\(shown(t))' prints on paper and cannot show the live screen; " + instead
                + ", " + setTerm
        case .noCursorAddressing(let t):
            return command + ": the terminal '\(shown(t))' cannot show the live screen (no cursor addressing); "
                + instead + ", " + setTerm
        }
    }

    /// The interactive loop: keys in, wall time × speed into virtual time, frames out.
    struct Loop {
        var model: AppModel
        let term: Terminal
        let glyphs: Glyphs
        var recording: RecordingFile?
        let seed: UInt64
        var theme: Theme
        let options: Options
        var frameMs: UInt64 = 33
        /// How long a message shows in place of the hint bar.
        static let messageMs: UInt64 = 4000
        /// `--cast`: the header says when it stopped.
        var cast: CastFile? = nil

        static func wallMs() -> UInt64 { DispatchTime.now().uptimeNanoseconds / 1_000_000 }

        /// How the loop ended: the exit status, a line for stderr, and the signal
        /// that stopped it (0 for none).
        struct Outcome {
            var status: Int32
            var message: String?
            var signal: Int32 = 0
        }

        mutating func run() -> Outcome {
            var lastWall = Loop.wallMs()
            var lastFrame: UInt64 = 0
            var dirty = true
            var messageText: String?
            var messageSince: UInt64 = 0
            recording?.start(model)
            recordingTrouble()  // the very first write failing shows at once
            // The screen's size, kept once on the model; again on every resize (`handle`).
            // Curses draws the terminal's size up to AppView.maxWidth × maxHeight.
            model.setScreen(width: term.width, height: term.height)
            while true {
                if !model.castStopped, let why = cast?.stopped {
                    model.castStopped = true
                    model.message = ("cast stopped: cannot write \(shown(cast?.path ?? "")): " + why, true)
                    dirty = true
                }
                if let why = model.sim.store.failure {
                    saveRecording()
                    return Outcome(
                        status: 1, message: "outbox: the device store failed, so Outbox stopped: " + shown(why))
                }
                // A stop signal, or the terminal gone with none (nohup): quit as on
                // `q`, so the app closes by its rules and the recording says so.
                let sig = Terminal.stopSignal
                if sig != 0 || term.inputLost {
                    quit()
                    if sig == 0 {
                        return Outcome(status: 129, message: "outbox: the terminal went away, so Outbox quit")
                    }
                    return Outcome(
                        status: 128 + sig,
                        message: "outbox: stopped by \(Terminal.signalName(sig)); the app was closed as on q",
                        signal: sig)
                }
                // A message covers the hint bar for a few seconds of wall time, then goes.
                if model.message?.text != messageText {
                    messageText = model.message?.text
                    messageSince = Loop.wallMs()
                    dirty = true
                } else if messageText != nil && Loop.wallMs() - messageSince >= Loop.messageMs {
                    model.message = nil
                    messageText = nil
                    dirty = true
                }
                // A frame when something changed: a key, a message, or the clock moving.
                // A paused (or held) screen with nothing new draws nothing.
                let moving = !model.paused && !model.heldBySize
                if dirty || (moving && Loop.wallMs() - lastFrame >= frameMs) {
                    // The frame's layout, made once and kept for the keys and clicks until the next frame.
                    layOut()
                    term.draw(AppView.render(model, width: term.realWidth, height: term.realHeight, glyphs: glyphs))
                    frames += 1
                    lastFrame = Loop.wallMs()
                    dirty = false
                }
                let wait: Int32 = moving ? Int32(frameMs) : 1000
                if let key = term.readKey(timeoutMs: wait) {
                    dirty = true
                    if let end = handle(key) { return end }
                    // Keys already waiting (a paste) are all taken before the next
                    // frame: one frame per batch, not one per character.
                    var taken = 1
                    while taken < Loop.keysPerFrame, Terminal.stopSignal == 0, !term.resizePending,
                        let more = term.readKey(timeoutMs: 0)
                    {
                        if let end = handle(more) { return end }
                        taken += 1
                    }
                }
                // Wall time × speed, exact at ⅒× and ¼× (the model carries what is under a
                // millisecond). A stop (Ctrl-Z, kill -STOP) counts for nothing, and any gap
                // is capped (AppModel.maxWallStepMs): `fg` never plays hours in one frame.
                let now = Loop.wallMs()
                if Terminal.takeContinued() {
                    model.wallTimePassed(ms: Int64(now - lastWall), stopped: true)
                    lastWall = Loop.wallMs()
                    model.message = ("resumed: the clock did not run while Outbox was stopped", false)
                    dirty = true
                } else {
                    // The clock can stop itself (a breakpoint, the end of a play):
                    // that frame is drawn, as no timer frame follows a pause.
                    let clock = model.wallTimePassed(ms: Int64(now - lastWall))
                    lastWall = now
                    if clock == .stoppedItself { dirty = true }
                }
            }
        }

        /// Keys taken at most between two frames.
        static let keysPerFrame = 100_000
        /// Frames drawn so far (a test of the loop's batching reads it).
        var frames = 0

        /// One key: to the model, then what its effect asks of the loop; an
        /// outcome when the loop must end.
        mutating func handle(_ key: Key) -> Outcome? {
            if key == .resize {
                term.refreshSize()
                model.setScreen(width: term.width, height: term.height)
                layOut()  // the screen is cleared and drawn afresh: keys after it go by the new size
            }
            model.isRecording = recording != nil  // `E` pins into it
            let effect = model.handle(key)
            if effect == .leftCompare {
                newRecordingPart(why: ":compare off: one column, the first")
            } else {
                saveRecording()
            }
            switch effect {
            case .leftCompare?:
                break  // its recording part, above
            case .quit?:
                quit()
                return Outcome(status: 0)
            case .export(let path, let replace)?:
                export(to: path, replace: replace)
            case .switchProfile(let p)?:
                if model.sim.appRunning { model.perform(.appQuit) }
                saveRecording()  // the quit ends this part
                closeStore()
                switch InteractiveCommand.openStore(p, options) {
                case .success(let store):
                    model = carryingTime(InteractiveCommand.newModel(p, seed: seed, store: store))
                    newRecordingPart(why: ":profile \(p.rawValue): its device, a new clock")
                case .failure(let e):
                    // Back to the device we had; say why the switch failed.
                    if case .success(let again) = InteractiveCommand.openStore(model.sim.profile, options) {
                        model = carryingTime(
                            InteractiveCommand.newModel(model.sim.profile, seed: seed, store: again))
                        newRecordingPart(why: "the \(model.sim.profile.rawValue) device reopened, a new clock")
                    }
                    model.message = ("cannot open the \(p.rawValue) device: " + e.description, true)
                }
                layOut()
            case .startCompare(let profiles)?:
                // As a profile switch: the app closes on the device it ran on, and
                // the compare starts afresh (its own clock at 0, devices in memory).
                if model.sim.appRunning { model.perform(.appQuit) }
                saveRecording()  // the quit ends this part
                closeStore()
                model = carryingTime(InteractiveCommand.newCompareModel(profiles, seed: seed))
                model.message = (
                    "comparing " + profiles.map(\.rawValue).joined(separator: ", ")
                        + " from 0, devices in memory; :compare off keeps the first", false
                )
                newRecordingPart(
                    why: ":compare " + profiles.map(\.rawValue).joined(separator: ",") + ", a new clock")
                layOut()
            case .play(let path)?:
                play(path)
                layOut()
            case .nextTheme?:
                let names = InteractiveCommand.themeNames
                let next = names[((names.firstIndex(of: theme.name) ?? -1) + 1) % names.count]
                theme = Theme.builtin(next)!
                if !term.colors { theme = Theme.monochrome }
                term.use(theme)
                model.message = ("theme: " + theme.name, false)
            case nil:
                break
            }
            return nil
        }

        /// The model laid out for its screen (`AppView.layout(for:)`): before
        /// each frame, and when the screen or the model is new.
        mutating func layOut() {
            model.laidOut(AppView.layout(for: model))
        }

        /// A new session (`:profile`, `:compare`) keeps the screen's speed and breakpoints.
        func carryingTime(_ next: AppModel) -> AppModel {
            InteractiveCommand.carrying(next, from: model)
        }

        /// `:play FILE`: the file replaces the session (as a profile switch: the app
        /// closes on the device it ran on), keeping the speed and breakpoints.
        mutating func play(_ path: String) {
            switch InteractiveCommand.playing(path, after: model, recording: recording != nil) {
            case .failure(let why):
                model.message = (why.message, true)
            case .success(let next):
                if model.sim.appRunning { model.perform(.appQuit) }
                closeStore()
                model = next
            }
        }

        /// Quitting Outbox closes the app: what the rules save stays on the device.
        mutating func quit() {
            if model.sim.appRunning { model.perform(.appQuit) }
            saveRecording()
            closeStore()
        }

        func closeStore() {
            (model.sim.store as? SQLiteDeviceStore)?.close()
        }

        /// Appends what the user did since the last call to the recording; after
        /// every action, so a crash loses nothing (RecordingFile).
        mutating func saveRecording() {
            guard recording != nil else { return }
            recording!.append(model)
            recordingTrouble()
        }

        /// The session goes on with a new clock: the recording goes on in a new part.
        mutating func newRecordingPart(why: String) {
            guard recording != nil else { return }
            recording!.newPart(model, why: why)
            recordingTrouble()
        }

        /// A recording that cannot be written says so on the screen: a message
        /// once, and the header's mark for the rest of the session.
        mutating func recordingTrouble() {
            InteractiveCommand.noteRecordingTrouble(&model, recording)
        }

        /// Writes the timeline so far to `path`: a page when it ends `.html`, else
        /// JSONL (a compare: every column, with `"profile"`); a file there is replaced only with `replace`, else
        /// the screen asks. Every failure is a message on the screen.
        mutating func export(to path: String, replace: Bool) {
            Loop.export(&model, to: path, replace: replace)
        }

        /// `export(to:replace:)` on a model: the tests call it (`budget`: a
        /// test's byte budget, as on a disk with that much room). The document is
        /// written whole or not at all (`Platform.writeDocument`): a full disk
        /// leaves no file, half or empty. What can never be written (a link, a
        /// directory, a FIFO, a device) is said at once, without asking to replace it.
        static func export(_ model: inout AppModel, to given: String, replace: Bool, budget: Int? = nil) {
            var path = given
            if path == "~" || path.hasPrefix("~/"), let home = Platform.homeFolder() {
                path = home + path.dropFirst()
            }
            let shownPath = shown(given)
            if !replace, Platform.exists(path), Platform.notAFile(path) == nil {
                model.askReplace(given)
                return
            }
            let (text, what) = model.exportFile(for: path)
            let done = Platform.writeDocument(path, Array(text.utf8), replace: replace, budget: budget)
            let removed = InteractiveCommand.removedNote(done.removedStale)
            switch done.failure {
            case nil:
                model.message = ("exported \(what) to \(shownPath)" + (replace ? " (replaced)" : "") + removed, false)
            case .exists?:
                model.askReplace(given)  // made while the export was written: asked, never replaced
            case .other(let why)?:
                model.message = (
                    "export failed: cannot write \(shownPath): \(why); nothing was written" + removed, true
                )
            }
        }
    }
}
