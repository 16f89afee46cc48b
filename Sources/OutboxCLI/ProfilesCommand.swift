import ArgumentParser
import OutboxCore

/// `outbox profiles [NAME]`: rules, settings with defaults, assumptions.
struct ProfilesCommand: OutboxSubcommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "profiles", abstract: "print each profile's rules, settings and assumptions",
            usage: CLI.parserUsage(synopsis), discussion: Help.profiles)
    }
    static var synopsis: String { "outbox profiles [NAME|PATH.profile] | --source|--explain NAME|PATH.profile" }

    @Argument(
        help: ArgumentHelp(
            "a profile: a built-in's name, a user profile's, or a .profile file", valueName: "NAME|PATH.profile"),
        completion: ProfileLoader.completion())
    var names: [String] = []

    @Flag(help: "print the profile's file exactly (a built-in's is where to start your own)")
    var source = false

    @Flag(help: "print the profile's file, each statement with the Swift file that implements it")
    var explain = false

    // What is made from the profile language's declarations (LanguageDocs), for
    // scripts/profiles-doc: not in the help, the man page or completions.
    @Flag(help: ArgumentHelp("print docs/profiles.md's Statements section", visibility: .hidden))
    var statements = false

    @Option(help: ArgumentHelp("print Fuzz/TARGET.dict", valueName: "TARGET", visibility: .hidden))
    var fuzzDict: String?

    // docs/real-sdks.md, for scripts/real-sdks: the stories of DIR on every real SDK.
    @Option(
        help: ArgumentHelp("print docs/real-sdks.md from the stories in DIR", valueName: "DIR", visibility: .hidden))
    var realSdksDoc: String?

    func execute(console: Console) -> Int32 {
        let names = self.names, source = self.source, explain = self.explain
        if let dir = realSdksDoc {
            guard names.isEmpty, !source, !explain, !statements, fuzzDict == nil else {
                console.error("outbox profiles: --real-sdks-doc takes no profile and goes alone")
                return 2
            }
            switch RealSDKsDoc.stories(in: dir) {
            case .failure(let why):
                console.error("outbox profiles --real-sdks-doc: " + why.message)
                return 2
            case .success(let stories):
                console.printExact(RealSDKsDoc.page(stories), terminator: "")
                return 0
            }
        }
        if statements || fuzzDict != nil { return generated(console: console) }
        if source && explain {
            console.error("outbox profiles: --source and --explain do not go together, expected one of them")
            console.error("usage: " + Self.synopsis)
            return 2
        }
        guard names.count <= 1, !(source || explain) || names.count == 1 else {
            console.error(
                source || explain
                    ? "outbox profiles --\(source ? "source" : "explain"): expected one profile name or PATH.profile"
                    : "outbox profiles: expected at most one profile name or PATH.profile")
            console.error("usage: " + Self.synopsis)
            return 2
        }
        var chosen: [Profile] = []
        var bad = false
        if let name = names.first {
            switch ProfileLoader.resolve(name, relativeTo: nil) {
            case .success(let p): chosen = [p]
            case .failure(let why):
                console.error("outbox profiles: " + why.message)
                return 2
            }
        } else {
            chosen = Profile.allCases
            let files = ProfileLoader.userFiles
            for name in files.usable {
                switch ProfileLoader.resolve(name, relativeTo: nil) {
                case .success(let p): chosen.append(p)
                case .failure(let why):
                    console.error("outbox profiles: " + why.message)
                    bad = true
                }
            }
            let dir = ProfileLoader.userFolder ?? ""
            // A file no word can find is named as such, not as an unknown profile.
            for name in files.misnamed {
                console.error(
                    "outbox profiles: \(dir)/\(name).profile: `\(SafeText.escaped(name, max: 60))` is not a profile name, "
                        + "so no word finds the file; expected a file named NAME.profile, NAME being "
                        + Profile.nameForm)
                bad = true
            }
            // A built-in's name always means the built-in: the file is never read.
            for name in files.shadowed {
                console.error(
                    "outbox profiles: note: \(dir)/\(name).profile is not used: `\(name)` is a built-in's name, "
                        + "and a built-in comes first; give the file and its `profile` line another name to use it")
            }
        }
        if source {
            let text = chosen[0].spec.source
            // Exactly the file, byte for byte, to a file or a pipe (`> acme.profile`).
            // A terminal would obey a control byte in a comment: it gets the text
            // escaped, and a note says so (docs/profiles.md).
            guard console.isTerminal else {
                console.printExact(text, terminator: "")
                return 0
            }
            let (shown, escaped) = Self.forTerminal(text)
            console.printExact(shown, terminator: "")
            if escaped > 0 {
                console.error(
                    "outbox profiles --source: \(escaped) control or invisible character\(escaped == 1 ? "" : "s") "
                        + "shown as escapes (\\x1b, \\u{feff}); redirect to a file for the exact bytes")
            }
            return 0
        }
        if explain {
            for line in Self.explained(chosen[0]) { console.print(line) }
            return 0
        }
        var group: Group?
        for (n, p) in chosen.enumerated() {
            if n > 0 { console.print("") }
            // The whole list comes in groups, each under a heading.
            if names.isEmpty, Group(p) != group {
                group = Group(p)
                console.print(group!.heading)
                console.print("")
            }
            for line in Self.describe(p) { console.print(line) }
        }
        return bad ? 2 : 0
    }

    /// The groups `outbox profiles` lists the profiles in.
    enum Group: Equatable {
        case seeds, real, own
        init(_ p: Profile) {
            if p.spec.path != nil {
                self = .own
            } else {
                self = Builtins.isReal(p.name) ? .real : .seeds
            }
        }
        var heading: String {
            switch self {
            case .seeds: return "== the seeds' SDKs (built in: shared/spec/delivery-rules.md) =="
            case .real:
                return
                    "== real SDKs (built in: read from their source, each title with its version; docs/real-sdks.md) =="
            case .own: return "== your own (" + (ProfileLoader.userFolder ?? "the user folder") + ") =="
            }
        }
    }

    /// `--statements`, `--fuzz-dict TARGET`: what scripts/profiles-doc writes into the repository.
    func generated(console: Console) -> Int32 {
        guard names.isEmpty, !source, !explain, !(statements && fuzzDict != nil) else {
            console.error("outbox profiles: --statements and --fuzz-dict take no profile and go alone")
            return 2
        }
        if statements {
            console.printExact(LanguageDocs.statements, terminator: "")
            return 0
        }
        let target = fuzzDict ?? ""
        guard let dict = LanguageDocs.fuzzDictionary(target) else {
            console.error(
                "outbox profiles --fuzz-dict: no dictionary for `\(SafeText.escaped(target, max: 60))`, expected "
                    + LanguageDocs.fuzzTargets.joined(separator: " or "))
            return 2
        }
        console.printExact(dict, terminator: "")
        return 0
    }

    /// `--explain`: the profile's file, a line at a time (printed escaped, as
    /// every line for people is), each statement followed by the file of
    /// Sources/OutboxCore that implements it and the statement's keyword; a
    /// `base` line says it starts from a copy of the base. Comments and blank
    /// lines are shown as they are.
    static func explained(_ p: Profile) -> [String] {
        var out = ["\(p.rawValue): \(p.title)"]
        if let path = p.spec.path { out.append("(from \(SafeText.escaped(path, max: 1000)))") }
        out += ["each statement, then the file of Sources/OutboxCore/ that implements it:", ""]
        for l in p.explained {
            out.append(l.text)
            guard let keyword = l.keyword, let file = l.file else { continue }
            let what = keyword + (l.detail.map { " " + SafeText.escaped($0, max: 60) } ?? "")
            var note = "    → \(file) (\(what))"
            if let b = l.base { note += ": starts from a copy of \(SafeText.escaped(b, max: 60))" }
            out.append(note)
        }
        return out
    }

    /// A profile's text as a terminal may show it: what `SafeText` escapes is
    /// written as its escape, but for the layout a file needs: line feeds, tabs
    /// and the carriage return of a CRLF line end (a bare one would hide the
    /// line before it). Also how many scalars were escaped.
    static func forTerminal(_ text: String) -> (String, Int) {
        var out = String.UnicodeScalarView()
        var count = 0
        let scalars = Array(text.unicodeScalars)
        for (i, u) in scalars.enumerated() {
            let layout = u == "\n" || u == "\t" || (u == "\r" && i + 1 < scalars.count && scalars[i + 1] == "\n")
            if !layout, let e = SafeText.escape(u) {
                out.append(contentsOf: e.unicodeScalars)
                count += 1
            } else {
                out.append(u)
            }
        }
        return (String(out), count)
    }

    static func describe(_ p: Profile) -> [String] {
        var out = ["\(p.rawValue): \(p.title)"]
        if let path = p.spec.path { out.append("(from \(SafeText.escaped(path, max: 1000)))") }
        out += ["", "rules:"]
        let own = p.ownRules.map { p.rule($0) }
        let width = max(7, (own.map(\.id.count).max() ?? 0) + 1)
        for r in own {
            out.append("  " + pad(r.id, width) + (r.isAssumption ? "[assumption] " : "") + r.text)
        }
        out.append("shared rules:")
        for r in Rules.shared.map({ p.rule($0) }) {
            out.append("  " + pad(r.id, 10) + r.text)
        }
        out.append("settings (set <key> <value>):")
        let defaults = Settings(profile: p)
        let valueWidth = max(14, Settings.keys(on: p).map { (defaults.value(of: $0.name) ?? "").count + 2 }.max() ?? 0)
        for k in Settings.keys(on: p) {
            var value = defaults.value(of: k.name) ?? ""
            if k.name == "retry.delays" && defaults.backoff != .ladder { value = "(backoff)" }
            out.append("  " + pad(k.name, 16) + pad(value, valueWidth) + k.help)
        }
        // Only a profile that says more than today's ladder (docs/profiles.md, `backoff`).
        if p.retries && !defaults.backoffLines.isEmpty {
            out.append(
                "backoff (the wait before retry n, n = 1 for the first; the cap bounds it before and after the jitter):"
            )
            for line in defaults.backoffLines { out.append("  " + line) }
        }
        let assumptions = own.filter(\.isAssumption)
        out.append("assumptions (where the documents are silent; see docs/DECISIONS.md):")
        if assumptions.isEmpty { out.append("  none") }
        for r in assumptions { out.append("  \(r.id): \(r.text)") }
        return out
    }

    static func pad(_ s: String, _ w: Int) -> String {
        s.count >= w ? s + " " : s + String(repeating: " ", count: w - s.count)
    }
}
