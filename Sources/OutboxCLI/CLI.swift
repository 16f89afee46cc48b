import Foundation
import OutboxCore
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

    /// A console that writes to the process's stdout and stderr.
    public static func standard() -> Console { Console(capture: false) }
    /// A console that keeps what is written, for tests.
    public static func capturing() -> Console { Console(capture: true) }
    /// A console that writes to these descriptors (tests of failed writes).
    public static func writing(out: Int32, err: Int32) -> Console { Console(capture: false, outFD: out, errFD: err) }

    init(capture: Bool, outFD: Int32 = 1, errFD: Int32 = 2) {
        self.capture = capture
        self.outFD = outFD
        self.errFD = errFD
    }

    /// Whether writing has failed: long commands stop early when it has.
    public var failed: Bool { writeFailure != nil }

    public func print(_ s: String, terminator: String = "\n") {
        out += s + terminator
        if !capture && out.utf8.count > 1 << 16 { flush() }
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
        if let f = Platform.write(errFD, Array((safe + "\n").utf8)) { failed(f, stream: "standard error") }
    }

    public func flush() {
        guard !capture, !out.isEmpty else { return }
        let bytes = Array(out.utf8)
        out = ""
        guard writeFailure == nil else { return }
        if let f = Platform.write(outFD, bytes) { failed(f, stream: "standard output") }
    }

    private func failed(_ f: Platform.WriteFailure, stream: String) {
        switch f {
        case .brokenPipe:
            readerGone = true
            writeFailure = "the reader of \(stream) went away"
        case .other(let why):
            writeFailure = "cannot write to \(stream): \(why)"
            if stream == "standard output" {
                // One line on whatever still works; if stderr fails too, there is nowhere left.
                _ = Platform.write(errFD, Array("outbox: \(writeFailure!)\n".utf8))
            }
        }
    }
}

/// The `outbox` command line.
public enum CLI {
    public static let version = "0.1.0"

    public static let usage = """
        usage: outbox [--profile NAME|PATH.profile] [--theme NAME|PATH] [--speed \(Speed.all.map(\.word).joined(separator: "|"))] [--seed N]
                      [--record FILE [--force]] [--state-dir DIR | --memory] [--compare P,P,... | --play FILE]
               outbox run FILE... [--format text|jsonl] [--quiet] [--state-dir DIR] [--max-transitions N]
               outbox compare FILE... [--profiles P,P,...] [--format text|jsonl] [--width N] [--quiet]
               outbox state show|reset [--profile P] [--state-dir DIR] [--format table|jsonl]
               outbox profiles [NAME|PATH.profile] | --source NAME|PATH.profile
               outbox bench [--quick] [--json] [--only FIGURE[,FIGURE...]] [--hours H]
               outbox keys
               outbox help [COMMAND] | --help | --version
        """

    /// Runs the command line and returns the exit status.
    /// The process's entry point: the real stdout and stderr, broken pipes as errors.
    public static func start(_ args: [String]) -> Int32 {
        Platform.ignoreBrokenPipes()
        return main(args, console: .standard())
    }

    public static func main(_ args: [String], console: Console) -> Int32 {
        let status = dispatch(args, console: console)
        console.flush()
        // Output that could not be written is a failed command, whatever it did.
        return console.failed && status == 0 ? 1 : status
    }

    static func dispatch(_ args: [String], console: Console) -> Int32 {
        guard let command = args.first, !command.hasPrefix("--") || command == "--help" || command == "--version" else {
            return InteractiveCommand.main(args, console: console)
        }
        let rest = Array(args.dropFirst())
        switch command {
        case "run": return RunCommand.main(rest, console: console)
        case "compare": return CompareCommand.main(rest, console: console)
        case "profiles": return ProfilesCommand.main(rest, console: console)
        case "bench": return BenchCommand.main(rest, console: console)
        case "state": return StateCommand.main(rest, console: console)
        case "_store-torture": return TortureCommand.main(rest, console: console)
        case "keys":
            console.print(KeyMap.markdown, terminator: "")
            return 0
        case "help", "--help", "-h":
            if command == "help", let topic = rest.first {
                guard let text = Help.topics[topic] else {
                    console.error(
                        "outbox: no help for `\(topic)`, expected one of: "
                            + Help.topics.keys.sorted().joined(separator: ", "))
                    return 2
                }
                console.print(text)
                return 0
            }
            console.print(Help.overview)
            return 0
        case "--version":
            console.print("outbox \(version)")
            return 0
        default:
            console.error("outbox: unknown command `\(command)`")
            console.error(usage)
            return 2
        }
    }
}

enum Help {
    static let overview = """
        outbox \(CLI.version): watch a mobile SDK's delivery queue at work

        Outbox models how an SDK sends, retries, saves and drops requests, for four
        built-in profiles: linktrail, ios, android, flutter; a profile is a text file
        (docs/profiles.md), so --profile also takes PATH.profile or the name of one
        in ~/.config/outbox/profiles. Every transition names the rule behind it
        (docs/rules.md, or the profile file's own `rule` lines).

        \(CLI.usage)

        With no command, opens the interactive screen (press ? there for its keys).
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
        FILE is kept unless --force.

        commands:
          run       play scenario files headless and check their expect lines
          compare   play scenario files on several profiles and show where they differ
          profiles  print each profile's rules, settings and assumptions
          state     show or reset what the simulated devices saved
          bench     measure speed, cost and scale beside baselines (release build)
          keys      print the key table as markdown (docs/keys.md)
          help      show help for a command

        See docs/scenarios.md for the scenario format, examples/ for demos.
        """

    static let run = """
        usage: outbox run FILE... [--format text|jsonl] [--quiet] [--state-dir DIR] [--max-transitions N]

        Plays each scenario on the virtual clock, as fast as the machine allows,
        prints the timeline (one line per transition, log line and check, in time
        order) and checks the expect lines.

        options:
          --format text|jsonl   text for people (default), jsonl one JSON object a line
                                (also --format=jsonl)
          --quiet, -q           print only failed checks and the summary
          --state-dir DIR       use the saved device in DIR (one SQLite database per
                                profile) instead of one in memory; what the run saves
                                stays there for the next run or the live screen
          --max-transitions N   stop a run that makes more than N transitions
                                (default 10000000, about 0.5 GB of timeline)
          --help, -h            this help

        exit status:
          0  every check holds
          1  a check failed (each failure names its file, line and what was found),
             or the output could not be written (a full disk, a closed stdout)
          2  bad input (unreadable file, unknown word, bad time, a number past its
             limit, an action the profile lacks): the message names the file and
             line, nothing runs; or a run stopped at a limit (--max-transitions,
             the clock's range)

        Limits on numbers and files: docs/reliability.md.

        Without --state-dir the device of a run lives in memory and is gone when
        the run ends.
        """

    static let state = """
        usage: outbox state show [--profile P] [--state-dir DIR] [--format table|jsonl]
               outbox state reset [--profile P] [--state-dir DIR]

        show   prints what each simulated device holds: its saved requests (every
               field needed to resend them), LinkTrail's consent decision and
               whether the install was created. It only reads.
        reset  moves a device's database aside (renamed with a .reset-<time>
               suffix, then -2, -3, ... if that name is taken; never deleted and
               never over an earlier backup) so the device starts empty. It
               refuses while another process uses the device.

        DIR defaults to $XDG_STATE_HOME/outbox, else ~/.local/state/outbox; each
        profile has its own database, <profile>.sqlite. See docs/storage.md.
        """

    static let profiles = """
        usage: outbox profiles [NAME | PATH.profile]
               outbox profiles --source NAME | PATH.profile

        Prints each profile's rules (ID and one line), its settings with their
        defaults, and the assumptions Outbox makes where the SDK documents are
        silent, marked as such: the built-ins (linktrail, ios, android,
        flutter), then the profiles in the user folder
        ($XDG_CONFIG_HOME/outbox/profiles, else ~/.config/outbox/profiles).
        NAME picks one of those; PATH.profile reads a profile file.

        --source prints a profile's file exactly: a built-in's is where to start
        writing your own (`outbox profiles --source ios > acme.profile`).
        The profile language: docs/profiles.md. A bad profile file exits 2
        with FILE:LINE: what was expected.
        """

    static let bench = """
        usage: outbox bench [--quick] [--json] [--only FIGURE[,FIGURE...]] [--hours H]

        Measures, each beside a baseline run in the same process:
          transitions  model transitions/s with 10^3, 10^5, 10^6 live requests,
                       beside a bare binary-heap event loop (medians of 5)
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

          --quick  small sizes, for a smoke test (timings not asserted)
          --json   one JSON object per figure
          --only   these figures only (comma-separated), in the order above
          --hours H  virtual hours for the chaos run (default 24; 0.05 with
                     --quick), e.g. to profile a shorter one
        """

    static let compare = """
        usage: outbox compare FILE... [--profiles P,P,...] [--format text|jsonl] [--width N] [--quiet]
                                      [--max-transitions N]

        Plays each scenario file once per profile, on the virtual clock, and shows
        the runs side by side: one row per request (matched by name and creation
        order), one column per profile with its final state or drop reason,
        attempts, saved flag and (iOS) completion. Rows where the profiles end
        differently are marked `!`, with the first moment they part and the
        transition and rule each profile made there.

        Each profile's run is exactly `outbox run` of the file rewritten for that
        profile: a line the profile lacks (getinstance off Android, consent off
        LinkTrail, ping on LinkTrail, a setting it has not) is skipped there and
        reported once. A plain `expect` checks the file's own profile; `expect on
        P[,P...] at ...` checks those named.

        options:
          --profiles P,P,...    the profiles, in this order (any of linktrail, ios,
                                android, flutter); default the file's `compare`
                                line, else ios,android,flutter
          --format text|jsonl   text: a table per file (default); jsonl: every line
                                of `outbox run --format jsonl` with "profile" added,
                                {"skipped": ...} and {"diverged": ...} objects
          --width N             lay the table out for N columns (default: the
                                terminal's width, else $COLUMNS, else 80)
          --quiet               text: no table, only skips, failed checks and
                                summaries; jsonl: only failed checks, diverged
          --max-transitions N   stop a run past N transitions, as `outbox run`

        exit status: as `outbox run`: 0 every check holds on every profile, 1 a
        check failed (named with its file, line and profile), 2 bad input (an
        unknown profile in --profiles, `compare` or `expect on` included; nothing
        runs) or a run stopped at a limit.

        Devices live in memory. See docs/scenarios.md, "Compare".
        """

    static let topics = ["run": run, "compare": compare, "profiles": profiles, "bench": bench, "state": state]
}
