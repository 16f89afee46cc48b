/// The words of an action, shared by scenario lines and the UI's `:` command line.
public enum ActionSyntax {
    /// nil never; a failure names what was wrong and what was expected.
    /// `alsoKnown`: words the caller reads besides actions (the live screen's
    /// `:` commands), offered too when a mistyped verb is close to one.
    /// `vocabulary`: the app calls and kinds the words may name (the profile's).
    /// `settingsOn`: the profile whose settings a `set` may name, its value read
    /// here (`SettingChange.read`); nil: any profile's.
    public static func parse(
        _ w: [String], vocabulary: Vocabulary = .builtin, alsoKnown: [String] = [], settingsOn: Profile? = nil
    ) -> Result<Action, Problem>? {
        guard let verb = w.first else {
            return .failure(Problem("missing action, expected one of: " + verbs(vocabulary)))
        }
        let args = Array(w.dropFirst())
        func none(_ a: Action) -> Result<Action, Problem> {
            args.isEmpty
                ? .success(a)
                : .failure(Problem("`\(verb)` takes no arguments, found `\(args.joined(separator: " "))`"))
        }
        func named(_ make: (String) -> Action) -> Result<Action, Problem> {
            args.count == 1 ? .success(make(args[0])) : .failure(Problem("bad `\(verb)`, expected `\(verb) <name>`"))
        }
        switch verb {
        case "launch": return none(.appLaunched)
        case "quit": return none(.appQuit)
        case "getinstance": return none(.getInstanceCalled)
        // A profile's own `call background` (a lifecycle event that only logs) keeps its meaning.
        case "background" where vocabulary.call(verb) == nil: return none(.appBackgrounded)
        case "foreground" where vocabulary.call(verb) == nil: return none(.appForegrounded)
        case "consent":
            guard args.count == 1, args[0] == "grant" || args[0] == "deny" else {
                return .failure(
                    Problem(
                        "bad consent\(quoted(args)), expected `consent grant` or `consent deny`"
                            + hint(args, ["grant", "deny"])))
            }
            return .success(args[0] == "grant" ? .consentGranted : .consentDenied)
        case "network":
            if args.first == "flap" { return flap(Array(args.dropFirst())) }
            guard args.count == 1, args[0] == "online" || args[0] == "offline" else {
                return .failure(
                    Problem(
                        "bad network\(quoted(args)), expected `network online`, `network offline` or `network flap <up> <down>`"
                            + hint(args, ["online", "offline", "flap"])))
            }
            return .success(args[0] == "online" ? .networkWentOnline : .networkWentOffline)
        case "track": return track(args)
        case "server": return server(args, vocabulary)
        case "set":
            guard args.count == 2 else { return .failure(Problem("bad set, expected `set <key> <value>`")) }
            return SettingChange.read(args[0], args[1], on: settingsOn).map { .settingChanged($0) }
        default:
            if let c = vocabulary.call(verb) {
                return c.takesName ? named { .call(c.word, $0) } : none(.call(c.word, nil))
            }
            return .failure(
                Problem(
                    "unknown action `\(verb)`, expected one of: " + verbs(vocabulary)
                        + Suggest.hint(verb, among: verbWords(vocabulary) + alsoKnown)))
        }
    }

    /// The words of `verbs`, for "did you mean".
    public static func verbWords(_ v: Vocabulary = .builtin) -> [String] {
        ["launch", "quit", "getinstance", "consent", "track"] + v.callWords + [
            "background", "foreground", "network", "server", "set",
        ]
    }

    /// ` `word`` for the one word after a verb that was wrong, "" for none or several.
    static func quoted(_ args: [String]) -> String { args.count == 1 ? " `\(args[0])`" : "" }

    /// "did you mean" for the one word after a verb.
    static func hint(_ args: [String], _ known: [String]) -> String {
        args.count == 1 ? Suggest.hint(args[0], among: known) : ""
    }

    /// The scenario words for an action: what `parse` reads back to the same action.
    public static func text(for action: Action) -> String {
        func q(_ s: String) -> String { word(s) }
        switch action {
        case .appLaunched: return "launch"
        case .appQuit: return "quit"
        case .appBackgrounded: return "background"
        case .appForegrounded: return "foreground"
        case .getInstanceCalled: return "getinstance"
        case .consentGranted: return "consent grant"
        case .consentDenied: return "consent deny"
        case .eventTracked(let e):
            var w = ["track", q(e.name)]
            if let v = e.value { w.append("value=" + v.text) }
            if let c = e.currency { w.append("currency=" + c) }
            for a in e.attributes { w.append(q(a.key + "=" + a.value)) }
            return w.joined(separator: " ")
        case .call(let word, let name): return name.map { word + " " + q($0) } ?? word
        case .networkWentOnline: return "network online"
        case .networkWentOffline: return "network offline"
        case .networkFlapping(let up, let down):
            return "network flap \(VirtualTime.duration(up)) \(VirtualTime.duration(down))"
        case .serverPlanned(let a, let r, let target):
            switch r {
            case .always: return "server \(a.word) always" + target.words
            case .times(let n): return "server \(a.word) x\(n)" + target.words
            case .chance(let bp): return "server \(a.word) " + ServerRepeat.percentText(bp) + target.words
            }
        case .settingChanged(let c): return "set \(c.key) \(c.written)"
        case .sendsAnswered(let a, let numbers): return "server \(a.word) on sends " + sendList(numbers)
        }
    }

    /// `3,7,12-15`: send numbers, ascending, runs of three or more as ranges.
    public static func sendList(_ numbers: [Int32]) -> String {
        var parts: [String] = []
        var i = 0
        while i < numbers.count {
            var j = i
            while j + 1 < numbers.count && numbers[j + 1] == numbers[j] + 1 { j += 1 }
            if j - i >= 2 {
                parts.append("\(numbers[i])-\(numbers[j])")
            } else {
                for k in i...j { parts.append(String(numbers[k])) }
            }
            i = j + 1
        }
        return parts.joined(separator: ",")
    }

    /// Reads `3,7,12-15` (`sendList`'s form, any order): each a send number from
    /// 1 to 2^31 − 1, none twice.
    static func sendNumbers(_ word: String) -> Result<[Int32], Problem> {
        let form = "expected send numbers from 1, comma-separated, with ranges N-M (e.g. `4,9,12-15`)"
        var out: [Int32] = []
        for part in word.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(ends.count), let a = Int32(ends[0]), a >= 1,
                let b = ends.count == 2 ? Int32(ends[1]) : a, b >= a
            else {
                return .failure(Problem("bad send number `\(SafeText.escaped(String(part), max: 40))`, " + form))
            }
            guard Int(b) - Int(a) < 10_000_000 else {
                return .failure(Problem("the range `\(part)` is too long (at most 10,000,000 sends), " + form))
            }
            out.append(contentsOf: a...b)
        }
        out.sort()
        for k in out.indices.dropFirst() where out[k] == out[k - 1] {
            return .failure(Problem("send \(out[k]) named twice, " + form))
        }
        return .success(out)
    }

    /// One word of a scenario line: as it is, or quoted with the escapes `LineLexer` reads back.
    public static func word(_ s: String) -> String {
        // Quoted when it holds a space, a quote, `#`, a backslash or anything
        // `SafeText` escapes (controls, bidi overrides): those are written as
        // the escapes `QuotedEscape` reads back, so a recording stays one line
        // per action and holds no control byte.
        let plain =
            !s.isEmpty
            && !s.unicodeScalars.contains(where: {
                $0 == " " || $0 == "\"" || $0 == "#" || $0 == "\\" || SafeText.needsEscape($0) || fuses($0)
            })
        if plain { return s }
        var out = "\""
        for u in s.unicodeScalars {
            if u == "\"" || u == "\\" {
                out.append("\\")
                out.unicodeScalars.append(u)
            } else if let e = SafeText.escape(u) {
                out += e
            } else if fuses(u) {
                out += "\\u{" + String(u.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    /// Whether a scalar joins the character before or after it into one
    /// Character (a combining mark, a joiner, a prepended mark). `LineLexer`
    /// reads Characters, so written beside the line's own `"`, a space or an
    /// escape's last digit (`\x00` then U+0742) it would change what the line
    /// says: such a scalar is written as `\u{H}` (found by the fuzzer).
    static func fuses(_ u: Unicode.Scalar) -> Bool {
        guard !u.isASCII else { return false }
        var before = "\"", after = String(Character(u))
        before.unicodeScalars.append(u)
        after += "\""
        return before.count == 1 || after.count == 1
    }

    /// Every action, as the messages list them.
    public static func verbs(_ v: Vocabulary = .builtin) -> String {
        (["launch", "quit", "getinstance", "consent grant|deny", "track"] + v.callWords
            + ["network online|offline|flap", "server"]).joined(separator: ", ")
    }

    static func track(_ args: [String]) -> Result<Action, Problem> {
        // `=` is looked for among scalars, not Characters: `=` then a combining
        // mark is one Character, and must still split a key from its value.
        guard let name = args.first, !name.unicodeScalars.contains("=") else {
            return .failure(
                Problem("bad track, expected `track <name> [value=<n>] [currency=<ABC>] [<key>=<value> ...]`"))
        }
        var e = TrackedEvent(name: name)
        for a in args.dropFirst() {
            let scalars = a.unicodeScalars
            guard let eq = scalars.firstIndex(of: "="), eq != scalars.startIndex else {
                return .failure(Problem("bad event attribute `\(a)`, expected `<key>=<value>`"))
            }
            let key = String(scalars[..<eq]), value = String(scalars[scalars.index(after: eq)...])
            switch key {
            case "value":
                guard let v = Amount.parse(value) else {
                    return .failure(Problem("bad value `\(value)`, expected a decimal number like 49.99"))
                }
                e.value = v
            case "currency":
                guard value.count == 3, value.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                    return .failure(Problem("bad currency `\(value)`, expected three capital letters like USD"))
                }
                e.currency = value
            default:
                e.attributes.append(Attribute(key: key, value: value))
            }
        }
        return .success(.eventTracked(e))
    }

    /// `network flap <up> <down>` (FLAP): two times, each > 0.
    /// The shortest stretch of a flap, up or down.
    public static let minFlap: Millis = 100
    static let minFlapText = "100ms"

    static func flap(_ args: [String]) -> Result<Action, Problem> {
        let form =
            "expected `network flap <up> <down>` with two times of at least \(minFlapText), e.g. `network flap 5s 2s`"
        guard args.count == 2 else {
            return .failure(
                Problem(
                    (args.count < 2
                        ? "bad network flap: missing the \(args.isEmpty ? "up and down times" : "down time"), "
                        : "bad network flap: too many words, ") + form))
        }
        var times: [Millis] = []
        for (word, what) in zip(args, ["up", "down"]) {
            switch VirtualTime.parseLimited(word) {
            case .failure(let why): return .failure(Problem("bad flap \(what) time `\(word)`, " + why.message))
            case .success(let t):
                // A floor keeps a fast clock from drowning the live screen in
                // toggles (at 3600×, 1 ms would be 1.8 million a second).
                guard t >= minFlap else {
                    return .failure(
                        Problem("bad flap \(what) time `\(word)`, expected a time of at least \(minFlapText), e.g. 2s"))
                }
                times.append(t)
            }
        }
        return .success(.networkFlapping(up: times[0], down: times[1]))
    }

    /// The `for` words of a `server` line (TARGET): `for NAME`, `for kind:KIND`,
    /// or `for name:NAME` (a name that starts `kind:`).
    static func target(_ word: String, _ vocabulary: Vocabulary) -> Result<ServerTarget, Problem> {
        if word.hasPrefix("name:") { return .success(.name(String(word.dropFirst(5)))) }
        guard word.hasPrefix("kind:") else { return .success(.name(word)) }
        let k = String(word.dropFirst(5))
        guard vocabulary.kind(k) != nil else {
            let kinds = vocabulary.kinds
            return .failure(
                Problem(
                    "unknown request kind `\(k)` in `for \(word)`, expected one of: " + kinds.joined(separator: ", ")
                        + Suggest.hint(k, among: kinds)))
        }
        return .success(.kind(k))
    }

    static func server(_ args: [String], _ vocabulary: Vocabulary) -> Result<Action, Problem> {
        let form =
            "`server <answer> [x<N> | always | <N>%] [for <name> | for kind:<kind>]` with ok, a status 100-599, timeout, lost or partial"
        var args = args
        var target = ServerTarget.all
        if let f = args.firstIndex(of: "for"), f >= 1 {
            guard f == args.count - 2 else {
                return .failure(
                    Problem("bad server line: `for` takes one word (a name, or kind:<kind>), expected " + form))
            }
            switch ActionSyntax.target(args[f + 1], vocabulary) {
            case .failure(let p): return .failure(p)
            case .success(let t): target = t
            }
            args.removeLast(2)
        }
        // `on sends N,...` (SENDS): numbered sends, whatever the plan; no repeat, no target.
        var sends: [Int32]?
        if let k = args.firstIndex(of: "on"), k >= 1 {
            guard k + 3 == args.count, args[k + 1] == "sends" else {
                return .failure(
                    Problem(
                        "bad server line: `on` goes last, as `server <answer> [retry-after <time>] on sends N,...` (e.g. `server 503 on sends 4,9`)"
                    ))
            }
            guard target == .all else {
                return .failure(Problem("bad server line: `on sends` answers every request's sends, not `for` one"))
            }
            switch sendNumbers(args[k + 2]) {
            case .failure(let p): return .failure(p)
            case .success(let n): sends = n
            }
            args.removeLast(3)
            guard args.count == 1 || (args.count == 3 && args[1] == "retry-after") else {
                return .failure(
                    Problem(
                        "bad server line: `on sends` takes no repeat, expected `server <answer> [retry-after <time>] on sends N,...`"
                    ))
            }
        }
        // `retry-after D` right after the answer: the header its answers carry.
        var retryAfter: Millis?
        if let k = args.firstIndex(of: "retry-after") {
            switch retryAfterWords(args, at: k) {
            case .failure(let p): return .failure(p)
            case .success(let t): retryAfter = t
            }
            args.removeSubrange(k...(k + 1))
        }
        guard (1...2).contains(args.count) else {
            // `server 503 30% four purchase`: a misspelled `for` is the likely cause.
            let hint = args.dropFirst().lazy.map { Suggest.hint($0, among: ["for"]) }.first { !$0.isEmpty } ?? ""
            return .failure(Problem("bad server line, expected " + form + hint))
        }
        guard let answer = Answer(word: args[0]) else {
            let hint =
                Suggest.status(args[0]).map { "; did you mean `\($0)`?" }
                ?? Suggest.hint(args[0], among: ["ok", "timeout", "lost", "partial"])
            return .failure(Problem("bad server line: unknown answer `\(args[0])`, expected " + form + hint))
        }
        var rep = ServerRepeat.times(1)
        if args.count == 2 {
            if args[1] == "always" {
                rep = .always
            } else if args[1].hasPrefix("x"), let n = Int(args[1].dropFirst()), n >= 1 {
                rep = .times(n)
            } else if args[1].hasSuffix("%") {
                guard let bp = ServerRepeat.percent(args[1]) else {
                    return .failure(
                        Problem(
                            "bad chance `\(args[1])`, expected a percent from 0% to 100% with at most two decimals, e.g. 30% or 0.5%"
                        ))
                }
                rep = .chance(bp)
            } else if args[1].count > 1, args[1].hasPrefix("x"), Int(args[1].dropFirst()) == nil,
                args[1].dropFirst().allSatisfy({ $0 >= "0" && $0 <= "9" })
            {
                return .failure(
                    Problem(
                        "bad repeat `\(SafeText.escaped(args[1], max: 40))`: N is past the largest, \(Int.max); expected x<N> with N from 1 to \(Int.max), or always"
                    ))
            } else {
                return .failure(
                    Problem(
                        "bad repeat `\(args[1])`, expected x<N> (N ≥ 1), always or a chance <N>% (e.g. 30%)"
                            + Suggest.hint(args[1], among: ["always", "for"])))
            }
        }
        var planned = answer
        if let t = retryAfter {
            guard case .status(let status) = answer else {
                return .failure(
                    Problem(
                        "bad server line: `retry-after` goes with a status answer (100-599), not `\(answer.word)`; expected e.g. `server 429 retry-after 10s`"
                    ))
            }
            planned = .retryAfter(status, t)
        }
        if let sends { return .success(.sendsAnswered(planned, sends)) }
        if target == .all { return .success(.serverPlanned(planned, rep)) }
        return .success(.serverPlanned(planned, rep, for: target))
    }

    /// `retry-after D` at `args[k]` of a `server` line: right after the answer,
    /// a duration (0 allowed: the header may say 0).
    static func retryAfterWords(_ args: [String], at k: Int) -> Result<Millis, Problem> {
        let form =
            "expected `server <status> retry-after <time> [x<N> | always | <N>%] [for ...]`, e.g. `server 429 retry-after 10s`"
        guard k == 1 else {
            return .failure(
                Problem(
                    k == 0
                        ? "bad server line: the answer comes before `retry-after`, " + form
                        : "bad server line: `retry-after` goes right after the answer, " + form))
        }
        guard k + 1 < args.count else {
            return .failure(Problem("bad server line: `retry-after` needs a time after it, " + form))
        }
        switch VirtualTime.parseLimited(args[k + 1]) {
        case .failure(let why):
            return .failure(Problem("bad retry-after time `\(SafeText.escaped(args[k + 1], max: 40))`, " + why.message))
        case .success(let t): return .success(t)
        }
    }
}
