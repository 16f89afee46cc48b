/// Bad input in a profile file (the one `Diagnostic` type of every reader).
public typealias ProfileError = Diagnostic

/// Every problem found in one profile file (at most `ProfileParser.maxErrors`).
public struct ProfileErrors: Error, Sendable {
    public let errors: [ProfileError]
}

extension Profile {
    /// Whether a word is a profile's name as a `profile` line may give it.
    public static func isName(_ s: String) -> Bool { ProfileParser.badName(s) == nil }

    /// What a profile's name may be, as messages say it.
    public static var nameForm: String {
        "1 to \(ProfileParser.maxNameLength) of a-z, 0-9, - and _ (starting with a letter or digit)"
    }

    /// Reads a profile file. `base` resolves a `base NAME` line (built-ins by
    /// default); `path` is where it was read from (nil for a built-in).
    public static func parse(
        _ text: String, file: String, path: String? = nil,
        base: @escaping (String) -> Profile? = { Builtins.named($0) }
    ) -> Result<Profile, ProfileErrors> {
        var p = ProfileParser(file: file, firstOwnRule: Builtins.ruleCount, base: base)
        return p.parse(text, path: path).map { Profile(spec: $0) }
    }
}

/// Reads a profile file into one `ProfilePolicy`: the lines the profile itself
/// states (`profile`, `title`, `base`, `rule`, `requests`, `component`, `set`)
/// here, every other statement by the mechanism that declares it (Policy/).
struct ProfileParser {
    /// The `on` classes this file writes itself (not taken from a `base`), and its save line.
    var ownOn: Set<AnswerClass> = []
    var saveAt: Int?
    let file: String
    /// The raw number the file's first new rule takes.
    let firstOwnRule: Int
    let base: (String) -> Profile?
    /// What the file says so far.
    var d = ProfilePolicy()
    /// The statements every profile needs that have been given (a base gives them all).
    var given: Set<String> = []
    /// Settings a line set, with the line (checked against capabilities at the end).
    var setLines: [(key: Settings.Key, line: Int)] = []
    /// `backoff` lines: their second word and line (checked at the end, Policy/Backoff.swift).
    var backoffLines: [(word: String, line: Int)] = []
    /// The `retry-after` line in force, if this file wrote one (Policy/RetryAfter.swift).
    var retryAfterLine: Int?
    /// The `retry-budget` and `throttle` lines in force, if this file wrote them (Policy/RetryBudget.swift, Policy/Throttle.swift).
    var retryBudgetLine: Int?
    var throttleLine: Int?
    /// Rules a line cited, with the line (checked to exist at the end).
    var cited: [(id: String, line: Int)] = []
    /// Rules this file defines, with their lines (a second `rule` line for one is an error).
    var ownDefined: [(id: String, line: Int)] = []
    var errors: [ProfileError] = []
    var sawProfile = false
    var sawOther = false
    /// Set by a statement refused by its form that does not count as one before `base`.
    var uncounted = false

    static let maxErrors = 50
    /// The most rules a book may hold (`RuleID` is one byte).
    static let maxRules = 255
    static let maxTextLength = 400
    static let maxNameLength = 32

    init(file: String, firstOwnRule: Int, base: @escaping (String) -> Profile?) {
        self.file = file
        self.firstOwnRule = firstOwnRule
        self.base = base
    }

    mutating func fail(_ line: Int, _ message: String) {
        if errors.count < ProfileParser.maxErrors {
            errors.append(ProfileError(file: file, line: line, message: message))
        }
    }

    static func q(_ s: String) -> String { "`" + SafeText.escaped(s, max: 60) + "`" }

    mutating func parse(_ text: String, path: String?) -> Result<ProfileSpec, ProfileErrors> {
        var n = 0
        // Split on the newline scalar: "\r\n" is one Character, and a file saved
        // with Windows line ends must read the same (the lexer takes `\r` as a space).
        // A byte-order mark before the first line is not part of it (TextInput); `source` keeps it.
        let lines = TextInput.droppingBOM(text).unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        // The last line that exists: a final newline ends a line, it does not start one.
        let lastLine = max(1, lines.count - (text.unicodeScalars.last == "\n" ? 1 : 0))
        for line in lines {
            n += 1
            if errors.count >= ProfileParser.maxErrors { break }
            switch LineLexer.words(String(String.UnicodeScalarView(line))) {
            case .failure(let p): fail(n, p.message)
            case .success(let (w, _)):
                if w.isEmpty { continue }
                statement(n, w)
                if !sawProfile { return .failure(ProfileErrors(errors: errors)) }
            }
        }
        if !sawProfile && errors.isEmpty { fail(lastLine, "an empty profile, expected `profile NAME` first") }
        finish(lastLine: lastLine)
        guard errors.isEmpty else {
            // In line order, as a scenario's errors are (a missing statement is found at the end).
            let sorted = errors.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }
            return .failure(ProfileErrors(errors: sorted.map(\.element)))
        }
        return .success(freeze(source: text, path: path))
    }

    // MARK: Statements

    mutating func statement(_ n: Int, _ w: [String]) {
        if !sawProfile {
            guard w[0] == "profile" else {
                fail(
                    n,
                    "\(ProfileParser.q(w[0])) before the profile's name, expected `profile NAME` first"
                        + Suggest.hint(w[0], among: ["profile"]))
                return
            }
            guard w.count == 2 else { return fail(n, "bad profile line, expected `profile NAME`") }
            guard let why = ProfileParser.badName(w[1]) else {
                sawProfile = true
                d.name = w[1]
                d.title = w[1]
                return
            }
            return fail(n, why)
        }
        if w[0] == "profile" {
            ProfileParser.profileStatement.read(&self, n, w)
        } else if let st = Policy.byKeyword[w[0]] {
            st.read(&self, n, w)
        } else {
            let known = Policy.statements.map(\.keyword)
            fail(
                n,
                "unknown statement \(ProfileParser.q(w[0])), expected one of: profile, " + known.joined(separator: ", ")
                    + Suggest.hint(w[0], among: ["profile"] + known))
        }
        // A title may come before `base`, and so may a line refused before it
        // said anything (`uncounted`: a bad base, keys, created, send or quit form).
        if w[0] != "title" && !uncounted { sawOther = true }
        uncounted = false
    }

    static func badName(_ s: String) -> String? {
        let ok =
            !s.isEmpty && s.utf8.count <= maxNameLength
            && s.utf8.allSatisfy {
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F
            }
            && s.utf8.first.map { $0 != 0x2D && $0 != 0x5F } == true
        guard ok else {
            return
                "bad profile name \(q(s)), expected " + Profile.nameForm
        }
        return nil
    }

    static func badRuleID(_ s: String) -> Bool {
        s.isEmpty || s.utf8.count > 16
            || !s.utf8.allSatisfy {
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D
                    || $0 == 0x2E || $0 == 0x5F
            }
    }

    static func badText(_ s: String) -> String? {
        if s.unicodeScalars.count > maxTextLength {
            return "a text of \(s.unicodeScalars.count) characters, expected at most \(maxTextLength)"
        }
        if let c = s.unicodeScalars.first(where: { SafeText.needsEscape($0) }) {
            // The bidi controls are default-ignorable too, but they are controls first.
            let v = c.value
            let control =
                v < 0xAD || v == 0x061C || v == 0x200E || v == 0x200F || v == 0x2028 || v == 0x2029
                || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
            return
                "\(control ? "a control" : "an invisible") character (U+\(String(v, radix: 16, uppercase: true))) in a text, expected printable characters"
        }
        return nil
    }

    /// A rule a line cites: checked to exist once the file is read (a rule line may come later).
    mutating func cite(_ n: Int, _ id: String) -> RuleID? {
        guard !ProfileParser.badRuleID(id) else {
            fail(n, "bad rule ID \(ProfileParser.q(id)), expected up to 16 of A-Z, a-z, 0-9, -, . and _")
            return nil
        }
        cited.append((id, n))
        if let r = ruleIndex(id) { return r }
        // Not defined yet: give it its number now; `rule` fills in the text.
        return newRule(n, id, RuleInfo(id: id, text: "", isAssumption: false, isShared: false))
    }

    /// The `KEY VALUE` pairs after a statement's fixed words (`w[from...]`), in
    /// any order, each key one of `keys` (with what its value is, `a rule ID`)
    /// at most once; nil, the line failed, when they are not (`retry-budget`, `throttle`).
    mutating func options(
        _ n: Int, _ w: [String], from: Int, keys: KeyValuePairs<String, String>, in statement: String, form: String
    ) -> [String: String]? {
        var out: [String: String] = [:]
        var i = from
        while i < w.count {
            let k = w[i]
            guard let what = keys.first(where: { $0.key == k })?.value else {
                fail(
                    n,
                    "unexpected \(ProfileParser.q(k)) in a \(statement) line, " + form
                        + Suggest.hint(k, among: keys.map(\.key)))
                return nil
            }
            guard out[k] == nil else {
                fail(n, "`\(k)` twice in a \(statement) line, " + form)
                return nil
            }
            guard i + 1 < w.count else {
                fail(n, "`\(k)` needs \(what) after it, " + form)
                return nil
            }
            out[k] = w[i + 1]
            i += 2
        }
        return out
    }

    func ruleIndex(_ id: String) -> RuleID? {
        d.book.firstIndex { $0?.id == id }.map { RuleID(rawValue: UInt8($0)) }
    }

    mutating func newRule(_ n: Int, _ id: String, _ info: RuleInfo) -> RuleID? {
        let raw = max(d.book.count, firstOwnRule)
        guard raw < ProfileParser.maxRules else {
            fail(n, "too many rules, expected at most \(ProfileParser.maxRules - firstOwnRule) of a profile's own")
            return nil
        }
        while d.book.count < raw { d.book.append(nil) }
        d.book.append(info)
        let r = RuleID(rawValue: UInt8(raw))
        d.ownRules.append(r)
        return r
    }

    mutating func ruleLine(_ n: Int, _ w: [String]) {
        let assumption = w.count == 4 && w[2] == "assumption"
        guard w.count == 3 || assumption else {
            return fail(n, "bad rule line, expected `rule ID [assumption] \"TEXT\"`")
        }
        let id = w[1], text = w[w.count - 1]
        guard !ProfileParser.badRuleID(id) else {
            return fail(n, "bad rule ID \(ProfileParser.q(id)), expected up to 16 of A-Z, a-z, 0-9, -, . and _")
        }
        if text.isEmpty { return fail(n, "rule \(id) has no text, expected `rule ID \"what it does\"`") }
        if let why = ProfileParser.badText(text) { return fail(n, why) }
        let info = RuleInfo(id: id, text: text, isAssumption: assumption, isShared: false)
        if let first = ownDefined.first(where: { $0.id == id }) {
            return fail(n, "rule \(id) is defined twice (first on line \(first.line)), expected one `rule` line per ID")
        }
        ownDefined.append((id, n))
        if let r = ruleIndex(id) {
            guard !(d.book[Int(r.rawValue)]!.isShared) else {
                return fail(n, "rule \(id) is a shared rule, expected an ID of the profile's own")
            }
            d.book[Int(r.rawValue)] = info
            if !d.ownRules.contains(r) { d.ownRules.append(r) }
        } else {
            _ = newRule(n, id, info)
        }
    }

    /// `requests CALL...` or `requests none`: the built-in calls the app has
    /// (Vocabulary.swift), besides its own `call` lines.
    mutating func requestsLine(_ n: Int, _ w: [String]) {
        let words = d.vocabulary.callWords
        let expected = "expected `requests none` or `requests` with some of: " + words.joined(separator: ", ")
        var calls = d.ownCalls
        if !(w.count == 2 && w[1] == "none") {
            guard w.count >= 2 else { return fail(n, "bad requests line, " + expected) }
            for word in w.dropFirst() {
                guard let c = d.vocabulary.call(word) else {
                    return fail(
                        n, "unknown request \(ProfileParser.q(word)), " + expected + Suggest.hint(word, among: words))
                }
                calls |= 1 << UInt64(c.index)
            }
        }
        var kinds = RequestKind.event.bit | d.vocabulary.kindMask(ofCalls: calls)
        if d.gate != nil { kinds |= RequestKind.install.bit }
        d.calls = calls
        d.kinds = kinds
    }

    mutating func kindsList(_ n: Int, _ words: ArraySlice<String>) -> UInt64? {
        var mask: UInt64 = 0
        for word in words {
            guard let k = d.vocabulary.kind(word) else {
                let all = d.vocabulary.kinds
                fail(
                    n,
                    "unknown request kind \(ProfileParser.q(word)), expected some of: " + all.joined(separator: ", ")
                        + Suggest.hint(word, among: all))
                return nil
            }
            mask |= k.bit
        }
        return mask
    }

    // MARK: The whole file

    mutating func finish(lastLine: Int) {
        guard sawProfile else { return }
        for (id, n) in cited {
            if let r = ruleIndex(id), d.book[Int(r.rawValue)]!.text.isEmpty {
                fail(n, "rule \(id) is cited but not defined, expected a line `rule \(id) \"what it does\"`")
            }
        }
        // Each mechanism's checks, in this order (a missing statement is found at the last line).
        let end = lastLine
        Saving.finish(&self, end: end)
        Answers.finishRequired(&self, end: end)
        let retries = Answers.retries(d)
        for (k, n) in setLines {
            if k.needs == .retry && !retries {
                fail(n, "setting \(k.name) needs retries, expected an `on CLASS retry` line in the profile")
            } else if k.needs == .consentGate && d.gate == nil {
                fail(n, "setting \(k.name) needs the consent gate, expected `component consent-gate ...`")
            } else if k.needs == .batchBytes && d.batch?.bytes == nil {
                fail(
                    n, "setting \(k.name) needs a batch byte cap, expected `batch up to N and SIZE ...` before the end")
            }
        }
        BackoffPolicy.finish(&self, end: end)
        RetryAfterPolicy.finish(&self, end: end)
        RetryBudget.finish(&self, end: end)
        Throttle.finish(&self, end: end)
        Answers.finishRules(&self, end: end)
        ResendPolicy.finish(&self, end: end)
        Direct.finish(&self, end: end)
        Batching.finish(&self, end: end)
        Lifecycle.finish(&self, end: end)
    }

    func freeze(source: String, path: String?) -> ProfileSpec {
        ProfileSpec(policy: d, source: source, path: path)
    }
}

extension ProfileParser {
    /// `profile NAME`: read by `statement` itself, which must see it first; a second one is refused here.
    static let profileStatement: Statement = Statement(
        keyword: "profile", forms: ["profile NAME"], file: "Profiles/ProfileParser.swift", doc: profileDoc
    ) { p, n, _ in p.fail(n, "a second profile line, expected one profile per file") }

    static let titleStatement: Statement = Statement(
        keyword: "title", forms: ["title \"TEXT\""], file: "Profiles/ProfileParser.swift", doc: titleDoc
    ) {
        p, n, w in
        guard w.count == 2, !w[1].isEmpty else { return p.fail(n, "bad title line, " + titleStatement.expected) }
        if let why = ProfileParser.badText(w[1]) { return p.fail(n, why) }
        p.d.title = w[1]
    }

    static let baseStatement: Statement = Statement(
        keyword: "base", forms: ["base NAME"], file: "Profiles/ProfileParser.swift", doc: baseDoc
    ) {
        p, n, w in
        p.uncounted = true
        guard !p.sawOther else {
            return p.fail(n, "`base` after other statements, expected it right after the profile line")
        }
        guard w.count == 2 else { return p.fail(n, "bad base line, expected `base NAME` (a built-in profile)") }
        guard let b = p.base(w[1]) else {
            return p.fail(
                n,
                "unknown base profile \(ProfileParser.q(w[1])), expected "
                    + ProfileResolver.builtinNames(", ", last: " or ")
                    + Suggest.hint(w[1], among: Builtins.all.map(\.name)))
        }
        p.uncounted = false
        // One copy: everything the base says, but its name and title.
        let (name, title) = (p.d.name, p.d.title)
        p.d = b.spec.policy
        p.d.name = name
        p.d.title = title == name ? b.title : title
        p.given = ["save", "created", "send", "quit"]
        p.ownDefined = []
    }

    static let ruleStatement: Statement = Statement(
        keyword: "rule", forms: ["rule ID [assumption] \"TEXT\""], file: "Profiles/ProfileParser.swift",
        doc: ruleDoc
    ) { p, n, w in p.ruleLine(n, w) }

    static let requestsStatement: Statement = Statement(
        keyword: "requests", forms: ["requests KIND...", "requests none"], file: "Profiles/ProfileParser.swift",
        doc: requestsDoc
    ) { p, n, w in p.requestsLine(n, w) }

    static let setStatement: Statement = Statement(
        keyword: "set", forms: ["set KEY VALUE"], file: "Profiles/ProfileParser.swift", doc: setDoc,
        fileOf: { w in
            // A setting is read here and used by the mechanism it is for.
            switch Settings.keys.first(where: { w.count > 1 && $0.name == w[1] })?.needs {
            case .retry: return "Policy/Backoff.swift"
            case .consentGate: return "Policy/ConsentGate.swift"
            case .batchBytes: return "Policy/Batching.swift"
            case .always: return "Settings.swift"
            case nil: return nil
            }
        }
    ) {
        p, n, w in
        guard w.count == 3 else { return p.fail(n, "bad set line, " + setStatement.expected) }
        switch Settings.read(w[1], w[2]) {
        case .failure(let why): return p.fail(n, why.message)
        case .success(let s):
            p.d.defaults.apply(s)
            p.setLines.append((s.key, n))
        }
    }

    /// `component NAME ROLE ID ...` and `component NAME none`, for each of `Policy.components`.
    static let componentStatement: Statement = Statement(
        keyword: "component", forms: Policy.components.map(\.form) + ["component NAME none"],
        file: "Policy/Policy.swift",
        doc: componentDoc, fileOf: { w in Policy.components.first { w.count > 1 && $0.name == w[1] }?.file }
    ) { p, n, w in
        let word = w.count > 1 ? w[1] : ""
        guard let c = Policy.components.first(where: { $0.name == word }) else {
            let names = Policy.components.map(\.name)
            return p.fail(
                n,
                "unknown component \(ProfileParser.q(word)), expected " + Statement.alternatives(names)
                    + Suggest.hint(word, among: names))
        }
        if w.count == 3 && w[2] == "none" { return c.remove(&p.d) }
        var rules: [RuleID] = []
        var ok = w.count == 2 + 2 * c.roles.count
        for (i, role) in c.roles.enumerated() where ok {
            guard w[2 + 2 * i] == role, let r = p.cite(n, w[3 + 2 * i]) else {
                ok = false
                break
            }
            rules.append(r)
        }
        guard ok else { return p.fail(n, "bad component line, expected `\(c.form)`") }
        c.set(&p.d, rules)
    }
}

extension ProfileParser {
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let profileDoc: [StatementDoc] = [
        StatementDoc(
            text: """
                The profile's name: 1 to 32 of `a-z`, `0-9`, `-` and `_`, starting with a
                letter or a digit. Required, first. Scenario files, `--profile`, the device
                store and compare columns use it.
                """)
    ]
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let titleDoc: [StatementDoc] = [
        StatementDoc(
            text: """
                The one-line title `outbox profiles` and the screen's header show. Default:
                the base's title with a `base` line (so give your variant its own), else the
                name.
                """,
            example: """
                profile flutter-slow
                title "Flutter on a slow network (what-if)"
                base flutter
                set latency 3s
                set timeout 2s
                """)
    ]
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let baseDoc: [StatementDoc] = [
        StatementDoc(
            text: """
                Starts from a copy of the built-in `NAME`: its rules, requests, components,
                settings, answers, resends and texts, everything but its name and title. The
                lines after it change what they name and leave the rest. Optional; right after
                the `profile` line, or after a `title` that follows it.
                """)
    ]
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let ruleDoc: [StatementDoc] = [
        StatementDoc(
            text: """
                Defines one of the profile's rules: its ID, what it says, and, with
                `assumption`, that it is a choice made where the SDK's documents are silent
                (`outbox profiles` lists the assumptions apart). Writing an ID the base has
                rewords that rule; a shared rule (`NET`, `LAT`, ...) cannot be redefined. Every
                rule a line cites must be defined, in the file or its base. A rule nothing
                cites is allowed (it documents). One ID is defined once a file.
                """)
    ]
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let requestsDoc: [StatementDoc] = [
        StatementDoc(
            headings: ["`requests KIND... | none`"],
            text: """
                What the app can make besides `track` (an event, always there): some of `ping`,
                `screen`, `product`, `notification`, `logout` (which also makes the
                `token-removal` and `anonymous-ping` that logout sends). `requests none`: only
                events. Default: only events. A profile with the consent gate also makes
                LinkTrail's `install`. A scenario line asking for a request the profile does not
                make is bad input (skipped by `outbox compare`).

                These words are not Swift's: they are the app calls declared in
                `profiles/usercom.calls` (built in; every profile knows them), one `call` line
                each (below). `requests` names the built-in calls a profile has; its own `call`
                lines it has at once, and a `requests` line keeps them.
                """)
    ]
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let componentDoc: [StatementDoc] = [
        StatementDoc(
            headings: Policy.components.map { "`" + Statement.docForm($0.form) + "`" },
            text: """
                The two state machines a profile names rather than spells: see
                [Components](#components). `component consent-gate none` and `component flush
                none` remove a base's.
                """)
    ]
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let setDoc: [StatementDoc] = [
        StatementDoc(
            text: """
                A setting's default for this profile; a scenario's own `set` lines change it
                for that run. The keys and values are those of scenario files
                ([docs/scenarios.md](scenarios.md#settings)):

                | key | value | needs |
                |---|---|---|
                | `requireConsent` | `true` / `false` | the consent gate (which sets it `true`) |
                | `retry.attempts` | a whole number from 1 to 1000, or `unlimited` | an `on CLASS retry` line |
                | `retry.delays` | comma-separated times (at most 1000), the last repeating: the ladder (it replaces a `backoff` formula) | an `on CLASS retry` line |
                | `retry.jitter` | `none`, `full` (a wait is drawn from 0 to the delay), `equal` (from half the delay to all of it), `decorrelated`, `±P%` or `+P%` (the `backoff` table) | an `on CLASS retry` line |
                | `latency` | a time (`200ms`) | |
                | `latency.jitter` | a time: each attempt's latency is drawn from `latency` ± it, never below 0 (LATJITTER) | |
                | `timeout` | a time (`10s`) | |
                | `seed` | a whole number | |
                | `request.size` | bytes (`1KB`, `500`): a request's size before its attributes, for the batch's byte cap | `batch up to N and SIZE` |

                Jittered waits are drawn from the `seed`, the request and the attempt, so a run
                repeats exactly; a different `seed` draws other waits (the shared rule JITTER).
                A setting the profile lacks is bad input: `retry.*` on a profile that never
                retries, `requireConsent` without the consent gate, `request.size` without a
                batch byte cap.
                """)
    ]
}
