import Foundation
import OutboxCore
import OutboxStore
import OutboxTerminal
import OutboxUI

/// `outbox [--profile P | --compare P,P,...] [--theme NAME|PATH] [--speed N] [--seed N] [--record FILE]`: the interactive screen.
enum InteractiveCommand {
    struct Options {
        var profile = Profile.linktrail
        var theme: String?
        var speed: Int64 = 1
        var seed: UInt64 = 1
        var record: String?
        var stateDir = SQLiteDeviceStore.defaultDirectory()
        var memory = false
        /// `--compare`: the profiles shown side by side, on devices in memory.
        var compare: [Profile]?
        var profileGiven = false
    }

    static func parse(_ args: [String], console: Console) -> Options? {
        var o = Options()
        var i = 0
        func value(_ flag: String) -> String? {
            guard i + 1 < args.count else {
                console.error("outbox: \(flag) needs a value")
                console.error(CLI.usage)
                return nil
            }
            i += 1
            return args[i]
        }
        while i < args.count {
            switch args[i] {
            case "--profile":
                guard let v = value("--profile") else { return nil }
                guard let p = Profile(rawValue: v) else {
                    console.error("outbox: unknown profile `\(shown(v))`, expected linktrail, ios, android or flutter")
                    return nil
                }
                o.profile = p
                o.profileGiven = true
            case "--compare":
                guard let v = value("--compare") else { return nil }
                switch AppModel.parseCompare(v) {
                case .failure(let p):
                    console.error("outbox: --compare " + p.message)
                    return nil
                case .success(let ps): o.compare = ps
                }
            case "--theme":
                guard let v = value("--theme") else { return nil }
                o.theme = v
            case "--speed":
                guard let v = value("--speed") else { return nil }
                guard let n = Int64(v), AppModel.speeds.contains(n) else {
                    console.error("outbox: bad --speed `\(shown(v))`, expected 1, 10, 60 or 600")
                    return nil
                }
                o.speed = n
            case "--seed":
                guard let v = value("--seed") else { return nil }
                guard let n = UInt64(v) else {
                    console.error("outbox: bad --seed `\(shown(v))`, expected a whole number")
                    return nil
                }
                o.seed = n
            case "--record":
                guard let v = value("--record") else { return nil }
                o.record = v
            case "--state-dir":
                guard let v = value("--state-dir") else { return nil }
                o.stateDir = v
            case "--memory":
                o.memory = true
            default:
                console.error("outbox: unknown option `\(shown(args[i]))`")
                console.error(CLI.usage)
                return nil
            }
            i += 1
        }
        if o.compare != nil && o.profileGiven {
            console.error("outbox: --profile and --compare do not go together; the first profile of --compare is the first column")
            return nil
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
            return .failure(Problem("\(spec):1: cannot read the theme file: \(f.message); expected a readable .theme file"))
        case .success(let bytes):
            guard RunCommand.isUTF8(bytes[...]) else {
                return .failure(Problem("\(spec):1: cannot read the theme file: it is not UTF-8 text"))
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
        if o.memory { return .success(InMemoryDeviceStore()) }
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
        var m = AppModel(sim: Simulation(profile: profile, settings: settings, store: store))
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
        m.perform(.appLaunched)
        return m
    }

    static func main(_ args: [String], console: Console) -> Int32 {
        guard let o = parse(args, console: console) else { return 2 }
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
        if let path = o.record,
            !FileManager.default.isWritableFile(
                atPath: (path as NSString).deletingLastPathComponent.isEmpty
                    ? "." : (path as NSString).deletingLastPathComponent)
        {
            console.error("outbox: cannot write the recording to `\(shown(path))`: its folder is missing or read-only")
            return 2
        }
        let store: any DeviceStore
        switch o.compare != nil ? .success(InMemoryDeviceStore()) : openStore(o.profile, o) {
        case .success(let s): store = s
        case .failure(let e):
            console.error("outbox: " + SafeText.escaped(e.description, max: 1000))
            return 2
        }
        var model = o.compare.map { newCompareModel($0, seed: o.seed) } ?? newModel(o.profile, seed: o.seed, store: store)
        model.speedIndex = AppModel.speeds.firstIndex(of: o.speed) ?? 0
        console.flush()
        // Signals are caught before curses starts, so it installs none of its own
        // and every stop goes through the loop's quit.
        Terminal.catchStopSignals()
        guard let term = Terminal(noColor: noColor) else {
            (store as? SQLiteDeviceStore)?.close()
            console.error(
                "outbox: curses could not start on the terminal '\(shown(termName))'; " + runInstead + ", " + setTerm)
            return 2
        }
        if noColor || !term.colors { theme = Theme.monochrome }
        term.use(theme)
        let glyphs: Glyphs = term.utf8 ? .unicode : .ascii
        var loop = Loop(
            model: model, term: term, glyphs: glyphs, record: o.record, seed: o.seed, theme: theme, options: o)
        let outcome = loop.run()
        term.restore()
        // Written straight to stderr: after a hangup the terminal is gone, and a
        // message that cannot be shown must not end in a crash.
        console.flush()
        if let msg = outcome.message { Terminal.writeError(msg + "\n") }
        if let path = o.record {
            let replay = loop.model.isComparing ? "outbox compare" : "outbox run"
            Terminal.writeError(
                "outbox: recorded \(loop.model.recorded.count) actions to \(shown(path)); replay with `\(replay) \(shown(path))`\n"
            )
        }
        // Stopped by a signal: die of it, so the parent sees what happened (a
        // shell loop stops on Ctrl-C). SIGQUIT's default would dump core, so
        // that one exits 131 instead.
        if outcome.signal != 0 && outcome.signal != SIGQUIT { Terminal.die(of: outcome.signal) }
        return outcome.status
    }

    /// Text from the command line or a file, fit to quote in a message.
    static func shown(_ s: String) -> String { SafeText.escaped(s, max: 200) }

    static var termName: String { ProcessInfo.processInfo.environment["TERM"] ?? "" }
    static let runInstead = "use `outbox run FILE` for a headless timeline"
    static let setTerm = "or set TERM to e.g. xterm-256color"

    /// Why the live screen does not start here, in one line.
    static func refusal(_ why: Terminal.Unusable) -> String {
        switch why {
        case .notATerminal:
            return "outbox: the live screen needs a terminal, and standard input or output is not one; " + runInstead
        case .termUnset:
            return "outbox: TERM is not set, so the terminal cannot be known; set TERM to e.g. xterm-256color, or "
                + runInstead
        case .noTerminfo(let t):
            return
                "outbox: no terminfo database was found to set up the terminal '\(shown(t))'; install ncurses' terminfo, or "
                + runInstead
        case .unknownTerm(let t):
            return "outbox: the terminal type '\(shown(t))' is unknown here (no terminfo entry); " + runInstead + ", "
                + setTerm
        case .hardcopy(let t):
            return "outbox: the terminal '\(shown(t))' prints on paper and cannot show the live screen; " + runInstead
                + ", " + setTerm
        case .noCursorAddressing(let t):
            return "outbox: the terminal '\(shown(t))' cannot show the live screen (no cursor addressing); "
                + runInstead + ", " + setTerm
        }
    }

    /// The interactive loop: keys in, wall time × speed into virtual time, frames out.
    struct Loop {
        var model: AppModel
        let term: Terminal
        let glyphs: Glyphs
        let record: String?
        let seed: UInt64
        var theme: Theme
        let options: Options
        var frameMs: UInt64 = 33

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
            var carry: Int64 = 0
            var lastFrame: UInt64 = 0
            var dirty = true
            saveRecording()
            while true {
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
                model.setScreen(width: term.width, height: term.height)
                if dirty || Loop.wallMs() - lastFrame >= frameMs {
                    term.draw(AppView.render(model, width: term.width, height: term.height, glyphs: glyphs))
                    lastFrame = Loop.wallMs()
                    dirty = false
                }
                let wait: Int32 = model.paused ? 1000 : Int32(frameMs)
                if let key = term.readKey(timeoutMs: wait) {
                    if key == .resize { term.refreshSize() }
                    let recordedBefore = model.recorded.count, columnsBefore = model.others.count
                    let effect = model.handle(key)
                    if model.recorded.count != recordedBefore || model.others.count != columnsBefore { saveRecording() }
                    dirty = true
                    switch effect {
                    case .quit?:
                        quit()
                        return Outcome(status: 0)
                    case .export?:
                        export()
                    case .switchProfile(let p)?:
                        if model.sim.appRunning { model.perform(.appQuit) }
                        closeStore()
                        switch InteractiveCommand.openStore(p, options) {
                        case .success(let store):
                            model = InteractiveCommand.newModel(p, seed: seed, store: store)
                            saveRecording()
                        case .failure(let e):
                            // Back to the device we had; say why the switch failed.
                            if case .success(let again) = InteractiveCommand.openStore(model.sim.profile, options) {
                                model = InteractiveCommand.newModel(model.sim.profile, seed: seed, store: again)
                            }
                            model.message = ("cannot open the \(p.rawValue) device: " + e.description, true)
                        }
                    case .startCompare(let profiles)?:
                        // As a profile switch: the app closes on the device it ran on, and
                        // the compare starts afresh (its own clock at 0, devices in memory).
                        if model.sim.appRunning { model.perform(.appQuit) }
                        closeStore()
                        model = InteractiveCommand.newCompareModel(profiles, seed: seed)
                        model.message = ("comparing " + profiles.map(\.rawValue).joined(separator: ", ")
                            + " from 0, devices in memory; :compare off keeps the first", false)
                        saveRecording()
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
                }
                let now = Loop.wallMs()
                if !model.paused {
                    carry += Int64(now - lastWall) * model.speed
                    if carry > 0 {
                        model.tick(to: model.sim.now + carry)
                        carry = 0
                    }
                }
                lastWall = now
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

        /// Writes what the user did so far as a scenario file; after every action, so a crash loses nothing.
        func saveRecording() {
            guard let path = record else { return }
            let text = model.recording(seed: seed, version: CLI.version, path: path)
            try? text.write(toFile: path, atomically: true, encoding: .utf8)
        }

        /// Writes each column's timeline so far as JSONL, one file per profile.
        mutating func export() {
            let stamp = VirtualTime.clock(model.sim.now).replacingOccurrences(of: ":", with: "").replacingOccurrences(
                of: ".", with: "-")
            let writer = TimelineWriter(format: .jsonl)
            var paths: [String] = [], lines = 0
            for sim in model.columns {
                let path = FileManager.default.currentDirectoryPath + "/outbox-\(sim.profile.rawValue)-\(stamp).jsonl"
                var out = ""
                for e in sim.journal { out += writer.line(e, in: sim) + "\n" }
                do {
                    try out.write(toFile: path, atomically: true, encoding: .utf8)
                } catch {
                    model.message = ("export failed: cannot write \(path)", true)
                    return
                }
                paths.append(path)
                lines += sim.journal.count
            }
            model.message = ("exported \(lines) lines to " + paths.joined(separator: ", "), false)
        }
    }
}
