import ArgumentParser
import OutboxCore
import OutboxFoundation
import OutboxUI

/// Where the command line writes: stdout and stderr, or buffers in tests.
///
/// A write that fails (a full disk, a closed descriptor) is not a crash: the
/// console stops writing, says so once on stderr if stderr still works, and the
/// command ends with exit status 1 (`CLI.main`). A reader that went away
/// (`outbox run FILE | head`) ends it the same way, without a message.
public final class Console {
    public private(set) var out = ""
    public private(set) var err = ""
    private let capture: Bool
    private let outFD: Int32, errFD: Int32
    /// Why writing to stdout or stderr failed, or nil; once set, nothing more is written.
    public private(set) var writeFailure: String?
    /// True when the failure was a reader going away (EPIPE), which is not reported.
    public private(set) var readerGone = false

    /// Set when stdout or stderr was closed when the process started: it is
    /// /dev/null now (`Platform.fillClosedStandardDescriptors`), and a write to it
    /// fails as a write to a closed descriptor did, so output lost is still said
    /// (exit 1, and one line on stderr when only stdout was closed).
    private var outClosed = false, errClosed = false

    /// A console that writes to the process's stdout and stderr; `closed`: the
    /// descriptors that were closed at start-up.
    public static func standard(closed: Set<Int32> = []) -> Console {
        let c = Console(capture: false)
        c.outClosed = closed.contains(1)
        c.errClosed = closed.contains(2)
        return c
    }
    /// A console that keeps what is written, for tests.
    public static func capturing() -> Console { Console(capture: true) }
    /// A console that writes to these descriptors (tests of failed writes).
    public static func writing(out: Int32, err: Int32) -> Console { Console(capture: false, outFD: out, errFD: err) }

    init(capture: Bool, outFD: Int32 = 1, errFD: Int32 = 2) {
        self.capture = capture
        self.outFD = outFD
        self.errFD = errFD
    }

    /// The width of the terminal stdout goes to, or nil: a file, a pipe, a
    /// test's buffer (`outbox run` fits its text timeline to a terminal).
    public var terminalColumns: Int? { capture ? nil : Platform.terminalColumns(outFD) }

    /// Whether stdout is a terminal (never for a test's buffer).
    public var isTerminal: Bool { !capture && Platform.isTerminal(outFD) }

    /// Whether writing has failed: long commands stop early when it has.
    public var failed: Bool { writeFailure != nil }

    /// Writes text for people to stdout: every scalar `SafeText` escapes (C0 and
    /// C1 controls, bidi controls, invisible characters) is written as its
    /// visible escape, line ends apart, so no control byte from a path, a name
    /// or a file reaches the terminal whatever the line was built from (issue 22:
    /// `profiles PATH`, `state show`, `state reset` printed paths raw). Words are
    /// not cut here: the lines that cut long words (`SafeText.line`) do so
    /// themselves, and escaping again changes nothing.
    public func print(_ s: String, terminator: String = "\n") {
        printExact(Console.safe(s), terminator: terminator)
    }

    /// Writes `s` to stdout byte for byte. Only for text already made safe for
    /// where it goes, or asked for exactly: JSONL and XML (escaped by their
    /// writers), the painted timeline (its colours are escape sequences, its
    /// text escaped span by span), `profiles --source` to a file or a pipe.
    public func printExact(_ s: String, terminator: String = "\n") {
        out += s + terminator
        if !capture && out.utf8.count > 1 << 16 { flush() }
    }

    /// `s` with every scalar that needs it escaped, line feeds kept; `s` itself
    /// when nothing does (the common case, checked without building a string).
    static func safe(_ s: String) -> String {
        if SafeText.isClean(s, keepingNewlines: true) { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            if u != "\n", let e = SafeText.escape(u) {
                out.append(contentsOf: e.unicodeScalars)
            } else {
                out.append(u)
            }
        }
        return String(out)
    }

    /// Writes one message to stderr. Messages repeat input (file names, words of
    /// a scenario): each line is escaped and long words cut (`SafeText.line`), so no
    /// control byte from the input reaches the terminal.
    public func error(_ s: String) {
        let safe = s.split(separator: "\n", omittingEmptySubsequences: false).map { SafeText.line(String($0)) }
            .joined(separator: "\n")
        if capture {
            err += safe + "\n"
            return
        }
        flush()
        guard writeFailure == nil else { return }
        if errClosed { return failed(.other("it was closed"), stream: "standard error") }
        if let f = Platform.write(errFD, Array((safe + "\n").utf8)) { failed(f, stream: "standard error") }
    }

    public func flush() {
        guard !capture, !out.isEmpty else { return }
        let bytes = Array(out.utf8)
        out = ""
        guard writeFailure == nil else { return }
        if outClosed { return failed(.other("it was closed"), stream: "standard output") }
        if let f = Platform.write(outFD, bytes) { failed(f, stream: "standard output") }
    }

    private func failed(_ f: Platform.WriteFailure, stream: String) {
        switch f {
        case .brokenPipe:
            readerGone = true
            writeFailure = "the reader of \(stream) went away"
        case .other(let why):
            writeFailure = "cannot write to \(stream): \(why)"
            if stream == "standard output" && !errClosed {
                // One line on whatever still works; if stderr fails too, there is nowhere left.
                _ = Platform.write(errFD, Array("outbox: \(writeFailure!)\n".utf8))
            }
        }
    }
}

/// The `outbox` command line: declared with swift-argument-parser (`OutboxCommand`
/// and a type per command), parsed here in-process so tests can call `main` with
/// a capturing console; nothing in it calls `exit()`.
public enum CLI {
    public static let version = "0.1.0"

    /// Every command's usage line, the live screen's first.
    public static var usage: String {
        "usage: " + OutboxCommand.commands.map { $0.synopsis }.joined(separator: "\n       ")
    }

    /// Runs the command line and returns the exit status.
    /// The process's entry point: the real stdout and stderr, broken pipes as errors.
    public static func start(_ args: [String]) -> Int32 {
        // First of all: a closed stdout must not become the lock file's descriptor.
        let closed = Platform.fillClosedStandardDescriptors()
        Platform.ignoreBrokenPipes()
        return main(args, console: .standard(closed: closed))
    }

    public static func main(_ args: [String], console: Console) -> Int32 {
        let status = dispatch(args, console: console)
        console.flush()
        // Output that could not be written is a failed command, whatever it did.
        return console.failed && status == 0 ? 1 : status
    }

    /// A usage line as the parser shows it: after `USAGE: `, which indents
    /// the lines after the first itself (ours are indented for `usage: `).
    static func parserUsage(_ synopsis: String) -> String {
        synopsis.split(separator: "\n").enumerated().map { n, line in
            n == 0 ? String(line) : String(line.dropFirst(min(7, line.prefix { $0 == " " }.count)))
        }.joined(separator: "\n")
    }

    /// The width help, usage and the man page are laid out for.
    static let helpColumns = 80

    static func dispatch(_ args: [String], console: Console) -> Int32 {
        // `outbox help [COMMAND]` and a word that names no command are answered
        // here, in Outbox's words (the parser would take an unknown word for an
        // argument of the live screen).
        switch args.first {
        case "--help", "-h": return help([], console: console)
        case "--version" where args.count == 1:
            console.print("outbox \(version)")
            return 0
        default: break
        }
        if let first = args.first,
            first == "--generate-completion-script" || first.hasPrefix("--generate-completion-script=")
        {
            return completionScript(args, console: console)
        }
        if args.first == "---completion" { return customCompletion(args, console: console) }
        if let first = args.first, !first.hasPrefix("-") {
            if first == "help" { return help(Array(args.dropFirst()), console: console) }
            if OutboxCommand.command(named: first) == nil {
                // A mistyped name gets its suggestion (`rnu`: did you mean `run`?) and the
                // pointer to help, not the whole usage (issue 22).
                console.error(
                    "outbox: unknown command `\(SafeText.escaped(first, max: 60))`, expected one of: "
                        + OutboxCommand.names.joined(separator: ", ") + Suggest.hint(first, among: OutboxCommand.names))
                console.error("(`outbox help` says more)")
                return 2
            }
        }
        let command: ParsableCommand
        do {
            command = try OutboxCommand.parseAsRoot(args)
        } catch {
            return report(error, args: args, console: console)
        }
        guard let c = command as? any OutboxSubcommand else {
            // The parser's own commands (`CMD --help` is one): they answer by throwing.
            do {
                var own = command
                try own.run()
                return 0
            } catch {
                return report(error, args: args, console: console)
            }
        }
        return c.execute(console: console)
    }

    /// Help, the version and completion scripts on stdout with status 0; a usage
    /// error as `outbox CMD: what was wrong` and the command's usage on stderr, status 2.
    static func report(_ error: Error, args: [String], console: Console) -> Int32 {
        if OutboxCommand.exitCode(for: error) == .success {
            console.print(OutboxCommand.fullMessage(for: error, columns: helpColumns))
            return 0
        }
        let command = args.first.flatMap(OutboxCommand.command(named:)) ?? InteractiveCommand.self
        console.error(command.prefix + ": " + usageError(OutboxCommand.message(for: error)))
        console.error("usage: " + command.synopsis)
        console.error("(`outbox help \(command.configuration.commandName ?? "")` says more)")
        return 2
    }

    /// `outbox --generate-completion-script SHELL`: the parser's script for the
    /// command line as `CompletionRoot` declares it (the live screen's options at
    /// the top level too), on stdout with status 0.
    static func completionScript(_ args: [String], console: Console) -> Int32 {
        do {
            _ = try CompletionRoot.parseAsRoot(args)
        } catch {
            guard CompletionRoot.exitCode(for: error) == .success else {
                return report(error, args: [], console: console)
            }
            console.print(CompletionRoot.bashWithoutSlashes(CompletionRoot.fullMessage(for: error)))
            return 0
        }
        return report(
            ValidationError("--generate-completion-script needs bash, zsh or fish"), args: [], console: console)
    }

    /// `outbox ---completion [COMMAND] -- OPTION ...`: what the completion
    /// script asks when Tab is pressed on a value whose words are found then
    /// (the profiles: the user folder's are read each time). Answered by the
    /// tree the script was made from (`CompletionRoot`: the live screen's
    /// options at the top level), one word a line on stdout; anything it cannot
    /// answer is exit 1 with nothing printed, so a Tab never writes over the
    /// line being typed.
    static func customCompletion(_ args: [String], console: Console) -> Int32 {
        do {
            _ = try CompletionRoot.parseAsRoot(args)
        } catch {
            guard CompletionRoot.exitCode(for: error) == .success else { return 1 }
            let words = CompletionRoot.fullMessage(for: error)
            if !words.isEmpty { console.print(words) }
            return 0
        }
        return 1
    }

    /// The parser's message in Outbox's words: lower case, names in backquotes,
    /// `--x needs a value`. What is not recognised passes through.
    static func usageError(_ message: String) -> String {
        // The whole message against a template whose `'*'` is any quoted text
        // without a quote: the quoted texts, or nil.
        func match(_ template: String) -> [String]? {
            let parts = message.split(separator: "'", omittingEmptySubsequences: false)
            let want = template.split(separator: "'", omittingEmptySubsequences: false)
            guard parts.count == want.count, parts.count >= 3 else { return nil }
            for (k, w) in want.enumerated() where k % 2 == 0 && parts[k] != w { return nil }
            return parts.enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        }
        if let q = match("Missing value for '*'") {
            return "\(q[0].split(separator: " ").first ?? "") needs a value"
        }
        if let q = match("Unknown option '*'") { return "unknown option `\(q[0])`" }
        if let q = match("Unknown option '*'. Did you mean '*'?") {
            return "unknown option `\(q[0])`; did you mean `\(q[1])`?"
        }
        if let q = match("Unexpected argument '*'") { return "unexpected argument `\(q[0])`" }
        guard let c = message.first else { return message }
        return c.lowercased() + message.dropFirst()
    }

    /// `outbox help [COMMAND]`; `outbox help --man` prints the man page (docs/outbox.1).
    static func help(_ args: [String], console: Console) -> Int32 {
        if args == ["--man"] {
            console.print(Manual.page(), terminator: "")
            return 0
        }
        guard let topic = args.first else {
            console.print(OutboxCommand.helpMessage(columns: helpColumns))
            return 0
        }
        var command: ParsableCommand.Type? = OutboxCommand.command(named: topic)
        if command == nil && topic == "keys" { command = KeysCommand.self }
        guard let command, args.count == 1 else {
            console.error(
                "outbox: no help for `\(SafeText.escaped(args.joined(separator: " "), max: 60))`, expected one of: "
                    + OutboxCommand.names.joined(separator: ", ")
                    + (args.count == 1 ? Suggest.hint(topic, among: OutboxCommand.names) : ""))
            return 2
        }
        console.print(OutboxCommand.helpMessage(for: command, columns: helpColumns))
        return 0
    }
}

/// A command of `outbox`: its usage line and what it does once parsed.
protocol OutboxSubcommand: ParsableCommand {
    /// How messages of this command begin: `outbox run`, `outbox` for the live screen.
    static var prefix: String { get }
    /// The usage line, without `usage: `.
    static var synopsis: String { get }
    /// Runs the parsed command; returns the exit status.
    func execute(console: Console) -> Int32
}

extension OutboxSubcommand {
    static var prefix: String { "outbox " + (configuration.commandName ?? "") }
}

/// `outbox`: the live screen by default, and the commands.
struct OutboxCommand: ParsableCommand {
    /// Every command, in the order help and the man page show them.
    static let commands: [any OutboxSubcommand.Type] = [
        InteractiveCommand.self, RunCommand.self, CompareCommand.self, FleetCommand.self, ServeCommand.self,
        StateCommand.self,
        ProfilesCommand.self, BenchCommand.self, KeysCommand.self,
    ]

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "outbox",
            abstract: "watch a mobile SDK's delivery queue at work",
            usage: CLI.parserUsage(
                String(CLI.usage.dropFirst("usage: ".count)) + "\n       outbox help [COMMAND] | --help | --version"),
            discussion: Help.overview,
            subcommands: commands + [TortureCommand.self],
            defaultSubcommand: InteractiveCommand.self)
    }

    /// The names `outbox help` and messages offer (the live screen's is its own).
    static var names: [String] { commands.compactMap { $0.configuration.commandName } + ["help"] }

    static func command(named name: String) -> (any OutboxSubcommand.Type)? {
        (commands + [TortureCommand.self]).first { $0.configuration.commandName == name }
    }
}

/// The command line as the completion scripts see it. `live` is the default
/// command, so its options are typed at the top level (`outbox --profile ios`,
/// as the README and the guide write them); the parser's script generators do
/// not take a default command's options to the top level, so this root declares
/// them there itself, beside the same commands. Only completion scripts are
/// made from it; `OutboxCommand` parses.
struct CompletionRoot: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "outbox", subcommands: OutboxCommand.commands + [TortureCommand.self])
    }

    @OptionGroup var live: InteractiveCommand

    /// The bash script's `complete -o filenames` makes bash add `/` to any word
    /// offered that names a folder here: `outbox prof<Tab>` gave `profiles/` in
    /// the checkout. Where the top level offers command names, that option is
    /// turned off for the one completion (file values keep it). Other scripts
    /// come back as they are.
    static func bashWithoutSlashes(_ script: String) -> String {
        var lines = script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard script.hasPrefix("#!/bin/bash"),
            let at = lines.firstIndex(where: { $0 == "        # Offer subcommand completions" })
        else { return script }
        lines.insert("        compopt +o filenames 2>/dev/null", at: at + 1)
        return lines.joined(separator: "\n")
    }
}

/// `outbox keys`: the key table as markdown (docs/keys.md).
struct KeysCommand: OutboxSubcommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "keys", abstract: "print the key table as markdown (docs/keys.md)",
            usage: CLI.parserUsage(synopsis))
    }
    static var synopsis: String { "outbox keys" }

    func execute(console: Console) -> Int32 {
        console.print(KeyMap.markdown, terminator: "")
        return 0
    }
}

/// The output formats of `run` and `compare`, in one place: the words the
/// option takes, and those this build writes. A word declared but not written
/// yet is refused by name, exit 2.
/// The words `--format` takes, per command, in one place (usage lines,
/// completions, the man page and the messages read them).
enum FormatWords {
    /// Every word `run --format` takes.
    static let run = ["text", "jsonl", "junit", "html", "svg"]
    /// Every word `compare --format` takes (JUnit is `run`'s).
    static let compare = ["text", "jsonl", "html", "svg"]
    /// Every word `fleet --format` takes.
    static let fleet = ["text", "jsonl", "html", "svg"]
    /// Every word any command takes (completions of the man page).
    static let declared = run

    /// `text|jsonl|...`, for usage lines.
    static func choices(_ words: [String]) -> String { words.joined(separator: "|") }

    /// The format for a word given to `--format`, or the message that refuses it.
    static func parse(_ word: String?, command: String, available: [String]) -> Result<String, Problem> {
        guard let word else { return .success("text") }
        if available.contains(word) { return .success(word) }
        let expected = available.dropLast().joined(separator: ", ") + " or " + available.last!
        return .failure(Problem("\(command): --format needs \(expected), not `\(SafeText.escaped(word, max: 40))`"))
    }
}

/// The prose of `outbox help` and each command's help (their options are
/// listed from the declarations).
enum Help {
    static let overview = """
        Outbox models how an SDK sends, retries, saves and drops requests, for the
        four SDKs of its seeds (linktrail, ios, android, flutter) and for real SDKs
        read from their source (posthog-ios, segment-swift, ...: `outbox profiles`
        lists them, docs/real-sdks.md compares them); a profile is a text file
        (docs/profiles.md), so --profile also takes PATH.profile or the name of one
        in ~/.config/outbox/profiles. Every transition names the rule behind it
        (docs/rules.md, or the profile file's own `rule` lines).

        With no command, opens the interactive screen (`outbox help live` lists its
        options; press ? there for its keys). `outbox help COMMAND` or
        `outbox COMMAND --help` shows a command's options; `outbox help --man`
        prints the manual page (docs/outbox.1), and
        `outbox --generate-completion-script bash|zsh|fish` a completion script.

        See docs/scenarios.md for the scenario format (its Faults section: a chance
        of an answer, plans for one request, a flapping network, latency jitter),
        examples/ for demos.
        """

    static let live = """
        The live screen: one simulated device and its SDK's queue, on a clock you
        can speed up, slow down and pause (press ? for the keys).

        --compare ios,android,flutter shows 2 to 4 profiles side by side, on devices
        in memory: one clock, network and backend plan; every key acts on all.
        --play FILE plays a scenario file on the screen, paused at 0: space plays,
        . steps to the next line or timer, - and + change the speed (0.1x to
        3600x), b or :break STATE|rule ID|request N pauses the clock when a request
        does that; left alone it ends where `outbox run FILE` ends (a file with a
        compare line opens as a compare, ending as `outbox compare`). A bad file
        exits 2 before the terminal is touched; --play goes without --record,
        --profile, --seed, --state-dir and --compare (the file decides).
        --record FILE writes the session as a scenario, a line per action, starting
        with what the device held (so `outbox run FILE` replays it); an existing
        FILE is kept unless --force. --cast FILE records the screen as asciicast v2
        (`asciinema play FILE`): every byte sent to the terminal, when it was sent.
        Faults: x plans the backend's answers (N times, always, a chance N%; for
        the selected request's name or kind), F flaps the network, J jitters the
        latency; each is a scenario line (server 503 30% for purchase, network flap
        5s 2s, set latency.jitter 50ms), shown in the header and recorded.
        A click selects a row or a tab, the wheel scrolls the pane under it;
        --no-mouse leaves the mouse to the terminal (its own text selection).
        """

    static let serve = """
        A real HTTP/1.1 backend (SwiftNIO) for real SDKs: point an app or a server
        SDK at it and it reads each request in its SDK's wire format (Segment,
        RudderStack, PostHog, Amplitude, Mixpanel, Sentry envelopes, or JSON with
        --id-field; docs/wire-formats.md), inflates gzip and deflate bodies, lists
        the events each carried by their id across retries, and answers each
        request as the script's plan says: `at 5s server 503 x3`, `server 429
        retry-after 10s`, `server timeout` (held unanswered), `server lost`
        (closed unanswered), `for NAME` or `for kind:K`; `network offline`
        refuses connections until `network online`; `set latency 1s` delays each
        answer. A request it cannot read is shown as unrecognised and still
        answered by the plan.

        The first line printed is the address. Without --headless, on a terminal,
        a live screen shows a row per event (its attempts, last answer, and with
        --profile the verdict and when the next attempt is due), the selected
        event's attempts, headers and payload, and the log; keys choose the next
        answers (x, as in the simulator), take the network offline (o), run a
        script line (:), and hold the next request at a breakpoint (b) until its
        answer is picked; ? lists the keys, q restores the terminal and prints the
        report below (--format, --report, --record as headless). With --headless it
        reports when the run ends (--until 30s, or idle:5s: once no request has come for 5 s): the
        requests and their answers, each event's attempts, and the script's expect
        lines (attempts NAME N, received NAME N, counted NAME N, unrecognised N),
        checked at their time or, without one, at the end. --format jsonl writes a
        JSON object per attempt, event, check and a summary; junit a test case per
        event and per check; html a page with a lane per event (each attempt in its
        answer's colour, --profile's predicted windows behind them) and the tables.
        --report FILE writes the report to FILE (whole, at the end) and leaves
        stdout the address.

        It listens on loopback unless --listen names another address, and then says
        on stderr that what the SDKs send crosses the network. Nothing is written to
        disk unless --report or --record asks. At most 512 connections are open at
        once; bodies above 16 MB (32 MB inflated) are answered 413.

        exit status: 0 every check held, 1 a check failed or an event diverged from
        --profile, 2 bad input (a bad
        option or script line, an address it cannot listen on), 130 stopped by a
        signal (the report is printed first).

        --profile P holds each event to the profile: each next attempt within the
        window P predicts after the answer before it (give or take 300 ms or a
        tenth), none where P stops; an event that diverges is said on its line and
        on stderr, and the run exits 1 (docs/serve.md).

        --record FILE (with --profile) writes what was seen as a scenario: each event
        tracked at its first arrival, its answers as server lines for its name, so
        `outbox run FILE` replays it on the profile's model.

        Not built yet (issue 25): a TCP reset answer.
        """

    static let run = """
        Plays each scenario on the virtual clock, as fast as the machine allows,
        prints the timeline (one line per transition, log line and check, in time
        order) and checks the expect lines. On a terminal the text timeline fits
        its width (abbreviated, never wrapped) and is coloured unless NO_COLOR is
        set; to a file or a pipe it is written in full, without colour.

        exit status:
          0  every check holds
          1  a check failed (each failure names its file, line and what was found),
             or the output could not be written (a full disk, a closed stdout)
          2  bad input (unreadable file, unknown word, bad time, a number past its
             limit, an action the profile lacks, an expect on a request no line
             of the file creates): the message names the file and line, nothing
             runs; or a run stopped at a limit (--max-transitions, the clock's
             range); or a bad option, named

        A mistyped word gets "did you mean `track`?" when a known word is close.

        Limits on numbers and files: docs/reliability.md.

        Without --state-dir the device of a run lives in memory and is gone when
        the run ends.

        --watch plays the files, then again each time one changes (or a profile
        file one names), the terminal cleared between runs; bad input is shown
        and the watch goes on. Ctrl-C ends it (the shell sees status 130).

        --update rewrites each failing expect line's value (its last word) to
        what the run found, keeping every other byte of the file, says on stderr
        what it changed (FILE:LINE: old -> new) and what it could not and why,
        then runs the files again: the status is that run's (0: they now hold).
        Not with --watch, --state-dir or --format junit. `E` in the live screen
        (with --record) pins the state as expect lines; `expect at T request ID
        STATE` checks one request by its number (docs/scenarios.md).
        """

    static let state = """
        show   prints what each simulated device holds: its saved requests (every
               field needed to resend them), the consent decision (on a
               profile with the consent gate: linktrail, or a file with
               `component consent-gate`) and whether the install was created.
               It only reads.
        reset  moves a device's database aside (renamed with a .reset-<time>
               suffix, then -2, -3, ... if that name is taken; never deleted and
               never over an earlier backup) so the device starts empty. It
               refuses while another process uses the device.

        DIR defaults to $XDG_STATE_HOME/outbox, else ~/.local/state/outbox; each
        profile has its own database, <profile>.sqlite. See docs/storage.md.
        """

    static let profiles = """
        Prints each profile's rules (ID and one line), its settings with their
        defaults, and the assumptions Outbox makes where the SDK documents are
        silent, marked as such: the built-ins (linktrail, ios, android,
        flutter), then the profiles in the user folder
        ($XDG_CONFIG_HOME/outbox/profiles, else ~/.config/outbox/profiles).
        NAME picks one of those; PATH.profile reads a profile file.

        --source prints a profile's file exactly: a built-in's is where to start
        writing your own (`outbox profiles --source ios > acme.profile`).
        --explain prints it with, under each statement, the Swift file of
        Sources/OutboxCore/ that implements it (`base` lines: a copy of the base).
        The profile language: docs/profiles.md. A bad profile file exits 2
        with FILE:LINE: what was expected.
        """

    static let bench = """
        Measures, each beside a baseline run in the same process:
          transitions  model transitions/s with 10^3, 10^5, 10^6 live requests,
                       beside a bare binary-heap event loop (medians of 5)
          batched      the same with 10^5 live requests sent in batches of 50
                       (a batching profile), beside the bare loop
          frame        building a 200x60 frame with 10^6 requests, beside 10^3
          bytes        bytes sent to the terminal per frame at 80x24 (idle, a clock
                       tick, one row changed, a scroll), beside a full redraw
          start        start to first frame on a pseudo-terminal, empty device and
                       10^5 saved, beside `outbox --version`
          keys         key press to updated screen during a 600x fast-forward
          memory       bytes per live request at 10^6 (model + in-memory device)
          store        device store writes/s, beside raw sqlite3 inserts
          chaos        24 h at 50 requests/s with ~20% failures, headless, and
                       the same input in the live screen's steps at 600x, 60x and
                       10x (and 1x for 1 h or less): the final state must match
          lines        scenario files of 10^6 lines in five shapes: reading and
                       parsing one beside reading it and splitting it into lines,
                       and `outbox run -q` on it in a child (time, peak memory)
          compare-frame  the live compare with three columns: frame cost (tick and
                       build, 80x24 and 160x45) and key latency, beside one column
          compare      `outbox compare` of a 10^5-line story on three profiles,
                       beside the three `outbox run`s back to back (text, jsonl)
        Build in release: swift run -c release outbox bench. docs/performance.md
        has the targets and the last figures.
        """

    static let fleet = """
        Runs a fleet file (docs/fleet.md): N devices, each a model of its profile
        playing the file's lines, tracking events at random (Poisson) times of
        its own, and sending to one backend that serves at most `capacity R/s`
        and answers the rest 503 (or as the capacity line says). Each device
        draws from its own seeded stream: device 17 lives the same life in any
        run, alone or in a shard. The report gives, per second of virtual time,
        the attempts the backend saw, requests made, delivered, answered over
        capacity, failed otherwise, dropped and still queued; then the summary:
        amplification (attempts per event), the peak after the last outage and
        when, the time to drain the backlog, drops by reason, requests counted
        twice, and delivery delay p50/p99.

        `--device N` writes device N's life as a scenario file instead, with the
        backend's over-capacity answers to it as `server 503 on sends ...`:
        `outbox run` plays it to the same transitions. `--shard I/N` runs the
        devices whose number is I modulo N against 1/N of the capacity;
        `outbox fleet merge` sums the shards' JSONL reports into one.

        `--format svg` draws the load curves (attempts, delivered, over capacity,
        failed, a second each; at most 1000 points a curve, each the most in one
        second of its stretch), the capacity, the outages shaded and the backlog
        on its own axis, with the summary beside; `--format html` is that picture
        and the summary as a table. `--profiles A,B` runs the same fleet under
        each profile instead of the file's own and shows the runs side by side: a
        column per profile, a "profile" field on each JSONL object, a panel per
        profile on the same scales (not with --shard or --device).

        `--live` runs the fleet on the virtual clock in the terminal instead of
        writing a report: the load (attempts a second, stacked ok, over
        capacity, failed), the capacity, the backlog and the outages drawn a
        column a second, the summary so far; space, +, -, . and > move the clock
        (from 60x), o takes the backend down (server timeout always) and up
        again on every device, :server ANSWER ... plays a server line on every
        device; ? lists the keys. On q the lines played are printed as `at`
        lines: added to the file they give the same numbers.

        exit status: 0 done; 1 merge of an incomplete set of shards (the report
        is written, the missing shards named); 2 bad input (the file, a report,
        an option), with the line and what was expected.
        """

    static let compare = """
        Plays each scenario file once per profile, on the virtual clock, and shows
        the runs side by side: one row per request (matched by name and creation
        order), one column per profile with its final state or drop reason,
        attempts, saved flag and, on a profile with completion handlers (ios, or
        a file with `report completion`), the completion. Rows where the
        profiles end differently are marked `!`, with the first moment they part
        and the transition and rule each profile made there.

        Each profile's run is exactly `outbox run` of the file rewritten for that
        profile: a line the profile lacks (getinstance off Android, consent off
        LinkTrail, ping on LinkTrail, a setting it has not) is skipped there and
        reported once. A plain `expect` checks the file's own profile; `expect on
        P[,P...] at ...` checks those named.

        exit status: as `outbox run`: 0 every check holds on every profile, 1 a
        check failed (named with its file, line and profile), 2 bad input (an
        unknown profile in --profiles, `compare` or `expect on` included; nothing
        runs), a bad option, or a run stopped at a limit.

        Devices live in memory. See docs/scenarios.md, "Compare".
        """
}
