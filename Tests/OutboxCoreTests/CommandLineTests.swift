import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// The command line as declared with swift-argument-parser (issue 14): every
/// command refuses what it does not know the same way, takes `--opt=value` and
/// `--opt value`, has `--help`, completions for three shells and a man page
/// that matches the declarations.
final class CommandLineTests: XCTestCase {
    /// Each command's name as typed (the live screen is the default: no name).
    private let commands: [(words: [String], type: any OutboxSubcommand.Type)] = [
        ([], InteractiveCommand.self), (["run"], RunCommand.self), (["compare"], CompareCommand.self),
        (["state", "show"], StateCommand.self), (["profiles"], ProfilesCommand.self), (["bench"], BenchCommand.self),
        (["keys"], KeysCommand.self),
    ]

    // MARK: Unknown options

    func testUnknownOptionsExitTwoNamingTheOptionForEveryCommand() {
        for (words, type) in commands {
            let name = type.configuration.commandName!
            for bad in ["--zzzz-nope", "-Z", "--zzzz-nope=3"] {
                let (status, out, err) = cli(words + [bad])
                XCTAssertEqual(status, 2, "\(words) \(bad)")
                XCTAssertEqual(out, "", "\(words) \(bad)")
                let shown = bad.hasPrefix("--") ? "--zzzz-nope" : bad
                XCTAssertEqual(
                    err,
                    "\(type.prefix): unknown option `\(shown)`\nusage: \(type.synopsis)\n(`outbox help \(name)` says more)\n",
                    "\(words) \(bad)")
            }
        }
    }

    /// The parser's other complaints, in Outbox's words.
    func testUsageErrorsAreInOutboxWords() {
        let cases: [([String], String)] = [
            (["run", "--max-transitions"], "outbox run: --max-transitions needs a value"),
            (["compare", "x.outbox", "--width"], "outbox compare: --width needs a value"),
            (["--seed"], "outbox: --seed needs a value"),
            (["state", "show", "--format"], "outbox state: --format needs a value"),
            (["keys", "extra"], "outbox keys: unexpected argument `extra`"),
            (["bench", "--quick", "now"], "outbox bench: unexpected argument `now`"),
            (["--memroy"], "outbox: unknown option `--memroy`; did you mean `--memory`?"),
            // A number option takes a value that looks like an option, and refuses it by name.
            (
                ["run", "x.outbox", "--max-transitions", "-5"],
                "outbox run: --max-transitions needs a whole number ≥ 1 (default 10000000)"
            ),
            (["--seed", "-1"], "outbox: bad --seed `-1`, expected a whole number from 0 to 18446744073709551615"),
            (
                ["compare", "x.outbox", "--width=-3"],
                "outbox compare: --width needs a number of columns from 20 to 10000"
            ),
        ]
        for (args, first) in cases {
            let (status, out, err) = cli(args)
            XCTAssertEqual(status, 2, "\(args)")
            XCTAssertEqual(out, "", "\(args)")
            XCTAssertEqual(err.split(separator: "\n").first.map(String.init), first, "\(args)")
        }
        XCTAssertEqual(CLI.usageError("Something else went wrong"), "something else went wrong")
    }

    // MARK: --opt=value and --opt value

    func testEveryOptionTakesItsValueEitherWay() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-cl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.outbox").path
        try "profile ios\nat 0 launch\nat 1s ping\nexpect at 2s state ping delivered\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let pairs: [([String], [String])] = [
            (
                ["run", path, "--format", "jsonl", "--max-transitions", "100"],
                ["run", path, "--format=jsonl", "--max-transitions=100"]
            ),
            (
                ["compare", path, "--profiles", "ios,android", "--width", "100", "--format", "jsonl"],
                ["compare", path, "--profiles=ios,android", "--width=100", "--format=jsonl"]
            ),
            (
                ["state", "show", "--state-dir", dir.path, "--format", "jsonl", "--profile", "ios"],
                ["state", "show", "--state-dir=\(dir.path)", "--format=jsonl", "--profile=ios"]
            ),
        ]
        for (spaced, joined) in pairs {
            let a = cli(spaced), b = cli(joined)
            XCTAssertEqual(a.0, 0, "\(spaced): \(a.2)")
            XCTAssertFalse(a.1.isEmpty, "\(spaced)")
            XCTAssertEqual(a.0, b.0, "\(joined)")
            XCTAssertEqual(a.1, b.1, "\(joined)")
            XCTAssertEqual(a.2, b.2, "\(joined)")
        }
        // The live screen's options, up to the terminal (none here).
        let o = InteractiveCommand.parse(
            ["--speed=10", "--seed=7", "--theme=light", "--cast=demo.cast"], console: .capturing())
        XCTAssertEqual(o?.speed.msPerSecond, 10_000)
        XCTAssertEqual(o?.seed, 7)
        XCTAssertEqual(o?.theme, "light")
        XCTAssertEqual(o?.cast, "demo.cast")
    }

    /// Each command takes its own formats and refuses the others by name: `junit`
    /// is `run`'s, a word no command knows is refused by both.
    func testFormatsAreCheckedPerCommand() {
        let (status, out, err) = cli(["compare", "x.outbox", "--format", "junit"])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertEqual(err, "outbox compare: --format needs text, jsonl, html or svg, not `junit`\n")
        for (command, expected) in [
            ("run", "text, jsonl, junit, html or svg"), ("compare", "text, jsonl, html or svg"),
        ] {
            let (status, _, err) = cli([command, "x.outbox", "--format=xml"])
            XCTAssertEqual(status, 2)
            XCTAssertEqual(err, "outbox \(command): --format needs \(expected), not `xml`\n")
        }
    }

    // MARK: Help

    func testEveryCommandHasHelpTheSameBothWays() {
        for (words, type) in commands {
            let name = type.configuration.commandName!
            let (status, out, err) = cli(["help", name])
            XCTAssertEqual(status, 0, name)
            XCTAssertEqual(err, "", name)
            XCTAssertTrue(out.hasPrefix("OVERVIEW: \(type.configuration.abstract)\n"), out)
            XCTAssertTrue(out.contains("\nUSAGE: " + type.synopsis + "\n"), out)
            XCTAssertTrue(out.contains("-h, --help"), out)
            let asked = cli([name, "--help"])
            XCTAssertEqual(asked.0, 0, name)
            XCTAssertEqual(asked.1, out, name)
        }
        let (status, out, err) = cli(["help", "run", "compare"])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertTrue(err.hasPrefix("outbox: no help for `run compare`, expected one of: live, run, compare,"), err)
    }

    // MARK: Completions

    func testCompletionScriptsForThreeShellsNameEveryCommandAndOption() {
        let options = [
            "format", "quiet", "state-dir", "max-transitions", "profiles", "width", "profile", "source", "explain",
            "quick",
            "only", "hours", "theme", "speed", "seed", "record", "force", "memory", "compare", "play", "cast",
        ]
        for shell in ["bash", "zsh", "fish"] {
            let (status, script, err) = cli(["--generate-completion-script", shell])
            XCTAssertEqual(status, 0, "\(shell): \(err)")
            XCTAssertEqual(err, "", shell)
            XCTAssertGreaterThan(script.split(separator: "\n").count, 50, shell)
            for word in ["live", "run", "compare", "state", "profiles", "bench", "keys", "help"] {
                XCTAssertTrue(script.contains(word), "\(shell): no `\(word)`")
            }
            for o in options {
                XCTAssertTrue(script.contains(o), "\(shell): no --\(o)")
            }
            // The choices a user tabs through (profiles are asked of outbox when Tab is pressed).
            for word in ["jsonl", "---completion -- --profile", "3600", "show", "reset", "compare-frame"] {
                XCTAssertTrue(script.contains(word), "\(shell): no `\(word)`")
            }
            XCTAssertFalse(script.contains("store-torture"), "\(shell): the hidden command is offered")
            XCTAssertEqual(cli(["--generate-completion-script=\(shell)"]).1, script, shell)
        }
        // bash can read its script.
        let bash = Process()
        bash.executableURL = URL(fileURLWithPath: "/bin/bash")
        bash.arguments = ["-n", "-c", cli(["--generate-completion-script", "bash"]).1]
        XCTAssertNoThrow(try bash.run())
        bash.waitUntilExit()
        XCTAssertEqual(bash.terminationStatus, 0, "bash -n on the bash completion script")

        let (status, out, err) = cli(["--generate-completion-script", "tcsh"])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertTrue(err.contains("tcsh"), err)
    }

    /// The live screen is the default command, so its options are typed at the
    /// top level (`outbox --profile ios`, as the README writes it): each shell's
    /// script offers them there, with their values (issue 22, newcomer 2.5).
    /// Profiles are the built-ins and the user folder's, asked of outbox when
    /// Tab is pressed (issue 22 item 19): a misnamed file (`BAD.profile`) and one
    /// named like a built-in (`ios.profile`) are not offered again.
    func testCompletionScriptsOfferTheLiveScreensOptionsAtTheTopLevel() throws {
        let profiles = (Builtins.all.map(\.name) + ["acme", "zeta"]).joined(separator: " ")
        let config =
            NSTemporaryDirectory() + "outbox-completion-config-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: config) }
        try FileManager.default.createDirectory(atPath: config + "/outbox/profiles", withIntermediateDirectories: true)
        for name in ["acme", "zeta", "BAD", "ios"] {
            try "profile \(name)\nbase ios\n".write(
                toFile: config + "/outbox/profiles/\(name).profile", atomically: true, encoding: .utf8)
        }
        let binary = try builtOutbox()
        let bash = cli(["--generate-completion-script", "bash"]).1
        let root = bash.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "_outbox() {" }
            .prefix { $0 != "}" }.joined(separator: "\n")
        XCTAssertTrue(
            root.contains(
                "local -a non_repeating_options=(--profile --theme --speed --seed --record --state-dir --compare --play --cast)"
            ),
            root)
        XCTAssertTrue(root.contains("local -a non_repeating_flags=(--force --memory --no-mouse -h --help)"), root)
        XCTAssertTrue(
            root.contains(
                "    '--profile')\n        __outbox_add_completions -W \"$(__outbox_custom_complete ---completion -- --profile \"${COMP_CWORD}\" \"$(__outbox_cursor_index_in_current_word)\")\""
            ),
            root)
        XCTAssertTrue(
            root.contains("        # Offer subcommand completions\n        compopt +o filenames 2>/dev/null\n"), root)
        // zsh: the root's `_outbox` declares the options and their values.
        let zsh = cli(["--generate-completion-script", "zsh"]).1
        let zshRoot = zsh.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "_outbox() {" }
            .prefix { $0 != "}" }.joined(separator: "\n")
        for option in ["profile", "compare"] {
            XCTAssertTrue(
                zshRoot.contains(
                    ":{__outbox_custom_complete ---completion -- --\(option) \"${current_word_index}\" \"$(__outbox_cursor_index_in_current_word)\"}'"
                ), option)
        }
        for option in ["theme"] {
            XCTAssertTrue(zshRoot.contains("'--\(option)["), option)
            XCTAssertTrue(zshRoot.contains("{__outbox_complete \"${___\(option)[@]}\"}'"), option)
        }
        for option in ["memory", "play", "record", "cast", "no-mouse"] {
            XCTAssertTrue(zshRoot.contains("'--\(option)["), option)
        }
        // fish: the root's word list names them, and each is offered for `outbox` itself.
        let fish = cli(["--generate-completion-script", "fish"]).1
        XCTAssertTrue(
            fish.contains(
                "    case 'outbox'\n        __outbox_parse_subcommand 0 'profile=' 'theme=' 'speed=' 'seed=' 'record=' 'force' 'state-dir=' 'memory' 'compare=' 'play=' 'cast=' 'no-mouse' 'h/help'\n"
            ), fish)
        for option in ["profile", "compare"] {
            XCTAssertTrue(
                fish.contains(
                    "complete -c 'outbox' -n '__outbox_should_offer_completions_for_flags_or_options \"outbox\" \(option)' -l '\(option)' "
                ),
                option)
        }
        XCTAssertTrue(
            fish.contains(
                "-l 'profile' -d 'the SDK profile: linktrail (default), ios, android, flutter, a real SDK\\'s (outbox profiles), a user profile\\'s name, or PATH.profile' -rfka '(__outbox_custom_completion ---completion -- --profile (count (__outbox_tokens -pc)) (__outbox_tokens -tC))'\n"
            ), fish)

        // What bash offers, through the script's own function (no bash-completion needed).
        let script = NSTemporaryDirectory() + "outbox-completion-\(getpid()).bash"
        FileManager.default.createFile(atPath: script, contents: Data(bash.utf8))
        defer { try? FileManager.default.removeItem(atPath: script) }
        // The real SDKs' built-ins come after the seeds', in registry order.
        let real = Builtins.all.map(\.name).filter(Builtins.isReal)
        let cases: [(String, String)] = [
            (
                "outbox --",
                "--force --memory --no-mouse --help --profile --theme --speed --seed --record --state-dir --compare --play --cast"
            ),
            ("outbox --profile ", profiles),
            ("outbox --profile a", "android " + real.filter { $0.hasPrefix("a") }.joined(separator: " ") + " acme"),
            ("outbox --memory --compare ", profiles),
            (
                "outbox --memory --compare ios,",
                "ios,linktrail ios,android ios,flutter " + real.map { "ios," + $0 }.joined(separator: " ")
                    + " ios,acme ios,zeta"
            ),
            ("outbox --compare ios,acme,z", "ios,acme,zeta"),
            ("outbox --theme ", "default light high-contrast monochrome"),
            ("outbox --speed 6", "60 600"),
            ("outbox prof", "profiles"),
            ("outbox live --profile ", profiles),
            (
                "outbox compare --profiles android,",
                "android,linktrail android,ios android,flutter " + real.map { "android," + $0 }.joined(separator: " ")
                    + " android,acme android,zeta"
            ),
            ("outbox profiles ", profiles),
            ("outbox state show --profile z", "zeta"),
            ("outbox run --format ", "text jsonl junit html svg"),
            ("outbox state s", "show"),
        ]
        var program = "source \(script)\n"
        program += """
            offered() {
              COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
              read -ra COMP_WORDS <<<"$1"
              COMP_WORDS[0]="$OUTBOX"  # the program the script asks, as a shell runs the one typed
              [[ "$1" == *" " ]] && COMP_WORDS+=("")
              COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
              COMPREPLY=()
              _outbox outbox "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
              echo "${COMPREPLY[*]}"
            }

            """
        for (line, _) in cases { program += "offered '\(line)'\n" }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", program]
        var env = ProcessInfo.processInfo.environment
        env["OUTBOX"] = binary
        env["XDG_CONFIG_HOME"] = config
        p.environment = env
        let out = Pipe()
        p.standardOutput = out
        XCTAssertNoThrow(try p.run())
        let got = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(got, cases.map { $0.1 + "\n" }.joined())
    }

    /// The answer to a Tab on a profile, as the scripts ask it: one word a
    /// line; what cannot be answered is exit 1 and no output at all (a Tab
    /// never prints over the line being typed).
    func testCustomCompletion_answersOneWordALine_andNothingForWhatItCannot() throws {
        // A user folder of this test's own: one profile, `andy`.
        let config = NSTemporaryDirectory() + "outbox-completion-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: config + "/outbox/profiles", withIntermediateDirectories: true)
        try "profile andy\nbase ios\n".write(
            toFile: config + "/outbox/profiles/andy.profile", atomically: true, encoding: .utf8)
        let saved = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"]
        setenv("XDG_CONFIG_HOME", config, 1)
        defer {
            if let saved { setenv("XDG_CONFIG_HOME", saved, 1) } else { unsetenv("XDG_CONFIG_HOME") }
            try? FileManager.default.removeItem(atPath: config)
        }
        /// `status out err`, the streams as written.
        func asked(_ words: String) -> String {
            let (status, out, err) = cli(["---completion"] + words.split(separator: " ").map(String.init))
            return "\(status) \(out.debugDescription) \(err.debugDescription)"
        }
        XCTAssertEqual(asked("-- --profile 1 2 outbox --profile an"), #"0 "android\nandy\n" """#)
        XCTAssertEqual(asked("compare -- --profiles 2 8 outbox compare --profiles ios,flut"), #"0 "ios,flutter\n" """#)
        XCTAssertEqual(asked("-- --profile 1 2 outbox --profile zz"), #"0 "" """#)
        XCTAssertEqual(asked("run -- --profile 1 0 outbox run x"), #"1 "" """#)
        XCTAssertEqual(asked(""), #"1 "" """#)
        XCTAssertEqual(ProfileLoader.completions(for: "ios,ios"), [])
        XCTAssertEqual(
            ProfileLoader.completions(for: "ios,", list: true),
            ["ios,linktrail", "ios,android", "ios,flutter"]
                + Builtins.all.filter { Builtins.isReal($0.name) }.map { "ios," + $0.name } + ["ios,andy"])
    }

    // MARK: The man page

    /// docs/outbox.1 is what `outbox help --man` prints now: change an option
    /// and the page must be made again (`swift run outbox help --man > docs/outbox.1`).
    func testManPageIsCurrent() throws {
        let checkedIn = try String(contentsOfFile: packageRoot + "/docs/outbox.1", encoding: .utf8)
        let (status, page, err) = cli(["help", "--man"])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(page, Manual.page())
        if checkedIn != page {
            let a = checkedIn.split(separator: "\n", omittingEmptySubsequences: false)
            let b = page.split(separator: "\n", omittingEmptySubsequences: false)
            let at = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
            XCTFail(
                "docs/outbox.1 is out of date; remake it with `swift run outbox help --man > docs/outbox.1`. "
                    + "First difference at line \(at + 1):\n- \(at < a.count ? a[at] : "(end)")\n+ \(at < b.count ? b[at] : "(end)")"
            )
        }
    }

    /// The page has a section per command with each of its options, in roff.
    func testManPageDescribesEveryCommandAndOption() {
        let page = Manual.page()
        XCTAssertTrue(page.hasPrefix(".\\\" Made by `outbox help --man`"), page)
        XCTAssertTrue(page.contains("\n.TH OUTBOX 1 \"\" \"outbox \(CLI.version)\" \"User Commands\"\n"), page)
        for name in ["run", "compare", "state", "profiles", "bench", "keys"] {
            XCTAssertTrue(page.contains("\n.SS \"outbox \(name)\"\n"), name)
        }
        XCTAssertTrue(page.contains("\n.SS \"outbox, outbox live\"\n"))
        for option in [
            "\\fB\\-\\-format\\fR \\fItext|jsonl|junit|html|svg\\fR", "\\fB\\-\\-quiet\\fR, \\fB\\-q\\fR",
            "\\fB\\-\\-max\\-transitions\\fR \\fIN\\fR", "\\fB\\-\\-only\\fR \\fIFIGURE[,FIGURE...]\\fR ...",
            "\\fB\\-\\-cast\\fR \\fIFILE\\fR", "\\fB\\-\\-source\\fR", "\\fIshow|reset\\fR",
        ] {
            XCTAssertTrue(page.contains("\n.TP\n" + option + "\n"), option)
        }
        XCTAssertFalse(
            page.contains("store-torture") || page.contains("store\\-torture"), "the hidden command is listed")
        // No line starts with a dot or quote that roff would take for a request.
        for line in page.split(separator: "\n") where line.hasPrefix(".") {
            let request = line.dropFirst().prefix { $0 != " " }
            XCTAssertTrue(["\\\"", "TH", "SH", "SS", "PP", "TP", "nf", "fi"].contains(String(request)), String(line))
        }
    }

    /// `man outbox` at MANWIDTH=80 stays within 80 columns: the lines roff keeps
    /// as written (the synopsis, tables) are at most 73 characters, the page's
    /// text being indented 7; and SEE ALSO says where the docs are installed
    /// (issue 22, newcomer 2.14: the synopsis ran to about 120).
    func testManPageFitsEightyColumnsAndPointsAtTheInstalledDocs() throws {
        let page = Manual.page()
        var kept = false
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == ".nf" {
                kept = true
            } else if line == ".fi" {
                kept = false
            } else if kept {
                let text = line.replacingOccurrences(of: "\\-", with: "-")
                    .replacingOccurrences(of: "\\e", with: "\\").replacingOccurrences(of: "\\&", with: "")
                XCTAssertLessThanOrEqual(text.count, Manual.keptWidth, String(text))
            }
        }
        XCTAssertTrue(
            page.contains(
                "\n.SH SYNOPSIS\n.nf\noutbox [\\-\\-profile NAME|PATH.profile] [\\-\\-theme NAME|PATH]\n"
                    + "       [\\-\\-speed 0.1|0.25|1|10|60|600|3600] [\\-\\-seed N] [\\-\\-no\\-mouse]\n"), page)
        XCTAssertTrue(
            page.contains(
                "profiles.md, keys.md and rules.md in \\fI/usr/share/doc/outbox/docs/\\fR, where the Debian package\n"))
        XCTAssertFalse(page.contains("in the Outbox sources"))
        // Rendered as man does at MANWIDTH=80, where groff is installed.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") else {
            throw XCTSkip("groff is not installed")
        }
        let groff = Process()
        groff.executableURL = URL(fileURLWithPath: "/usr/bin/groff")
        groff.arguments = ["-man", "-Tutf8", "-rLL=80n", "-rLT=80n", "-P-cbou", packageRoot + "/docs/outbox.1"]
        let out = Pipe()
        groff.standardOutput = out
        groff.standardError = Pipe()
        try groff.run()
        let shown = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        groff.waitUntilExit()
        let wide = shown.split(separator: "\n").filter { $0.count > 80 }.map(String.init)
        XCTAssertEqual(wide, [], wide.joined(separator: "\n"))
        XCTAssertGreaterThan(shown.split(separator: "\n").count, 300)
    }

    /// groff reads the page without a warning, where groff is installed.
    func testManPageFormatsWithoutWarnings() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") else {
            throw XCTSkip("groff is not installed")
        }
        let groff = Process()
        groff.executableURL = URL(fileURLWithPath: "/usr/bin/groff")
        groff.arguments = ["-man", "-Tutf8", "-ww", "-z", packageRoot + "/docs/outbox.1"]
        let err = Pipe()
        groff.standardError = err
        try groff.run()
        let warnings = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        groff.waitUntilExit()
        XCTAssertEqual(groff.terminationStatus, 0)
        XCTAssertEqual(warnings, "")
    }
}
