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

/// Everything a profile file says, while it is read (a `base` starts from a copy).
struct ProfileDraft {
    var name = ""
    var title = ""
    var book: [RuleInfo?] = Rules.sharedInfo.map { $0 }
    var ownRules: [RuleID] = []
    var kinds: UInt16 = 1 << RequestKind.event.rawValue
    var directKinds: UInt16 = 0
    var directRule: RuleID?
    var gate: GateRules?
    var flush: FlushRules?
    var keysRule: RuleID?
    var defaults = Settings()
    var save: SaveMode?
    var createdRule: RuleID?
    var sendRule: RuleID?
    var offline: OfflineMode = .fail
    var survivesRule: RuleID?
    /// `on` lines by class word, with the rule possibly left to inherit (nil).
    var on: [String: (action: Response.Action, rule: RuleID?, whenSaved: RuleID?, line: Int)] = [:]
    var exhausted: (action: Response.Action, rule: RuleID?, line: Int)?
    var resendLaunch: Resend?
    var resendNetwork: Resend?
    var resendGetInstance: Resend?
    var report: Reporting = .none
    var texts: [TextKey: Template] = [:]
    /// Settings a line set, with the line (checked against capabilities at the end).
    var setLines: [(key: String, line: Int)] = []
    /// Rules a line cited, with the line (checked to exist at the end).
    var cited: [(id: String, line: Int)] = []
    /// Rules this file defines, with their lines (a second `rule` line for one is an error).
    var ownDefined: [(id: String, line: Int)] = []
    /// `say warning.dropped ""`: the base's warning is removed.
    var noWarning = false
}

extension ProfileSpec {
    /// The draft this spec was read from: a `base` line starts from it.
    var draft: ProfileDraft {
        var d = ProfileDraft()
        d.name = name
        d.title = title
        d.book = book
        d.ownRules = ownRules
        d.kinds = kinds
        d.directKinds = directKinds
        d.directRule = directRule
        d.gate = gate
        d.flush = flush
        d.keysRule = keysRule
        d.defaults = defaults
        d.save = save
        d.createdRule = createdRule
        d.sendRule = sendRule
        d.offline = offline
        d.survivesRule = survivesRule
        d.on = onLines
        if let e = exhausted { d.exhausted = (e.action, exhaustedCitesAnswer ? nil : e.rule, 0) }
        d.resendLaunch = resendLaunch
        d.resendNetwork = resendNetwork
        d.resendGetInstance = resendGetInstance
        d.report = report
        d.texts = texts
        return d
    }
}

/// The answer classes of `on CLASS`, most specific first where they nest.
enum AnswerClass {
    static let words = ["1xx", "2xx", "3xx", "4xx", "5xx", "timeout", "lost", "partial", "offline", "transport"]

    /// The class a class word falls back to when it has no `on` line, or nil.
    /// A status falls back to its hundred; 1xx and 3xx to 4xx (RETRYABLE);
    /// lost to timeout; timeout and offline to transport; partial to 2xx.
    static func parent(_ w: String) -> String? {
        switch w {
        case "1xx", "3xx": return "4xx"
        case "lost": return "timeout"
        case "timeout", "offline": return "transport"
        case "partial": return "2xx"
        case "2xx", "4xx", "5xx", "transport": return nil
        default:
            guard let n = Int(w) else { return nil }
            return String(n / 100) + "xx"
        }
    }

    static func isStatus(_ w: String) -> Bool {
        w.utf8.count == 3 && w.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && (100...599).contains(Int(w) ?? 0)
    }
}

struct ProfileParser {
    /// The `on` classes this file writes itself (not taken from a `base`), and its save line.
    var ownOn: Set<String> = []
    var saveAt: Int?
    let file: String
    /// The raw number the file's first new rule takes.
    let firstOwnRule: Int
    let base: (String) -> Profile?
    var d = ProfileDraft()
    var errors: [ProfileError] = []
    var sawProfile = false
    var sawOther = false

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
        let known = [
            "title", "base", "rule", "requests", "direct", "component", "keys", "set", "save", "created", "send",
            "offline", "quit", "on", "resend", "report", "say",
        ]
        switch w[0] {
        case "profile": fail(n, "a second profile line, expected one profile per file")
        case "base":
            guard !sawOther else {
                return fail(n, "`base` after other statements, expected it right after the profile line")
            }
            guard w.count == 2 else { return fail(n, "bad base line, expected `base NAME` (a built-in profile)") }
            guard let b = base(w[1]) else {
                return fail(
                    n,
                    "unknown base profile \(ProfileParser.q(w[1])), expected one of: "
                        + Builtins.all.map(\.name).joined(separator: ", ")
                        + Suggest.hint(w[1], among: Builtins.all.map(\.name)))
            }
            let (name, title) = (d.name, d.title)
            d = b.spec.draft
            d.name = name
            d.title = title == name ? b.title : title
            d.ownDefined = []
        case "title":
            guard w.count == 2, !w[1].isEmpty else { return fail(n, "bad title line, expected `title \"TEXT\"`") }
            if let why = ProfileParser.badText(w[1]) { return fail(n, why) }
            d.title = w[1]
            return  // a title may come before `base`
        case "rule": ruleLine(n, w)
        case "requests": requestsLine(n, w)
        case "direct": directLine(n, w)
        case "component": componentLine(n, w)
        case "keys":
            if w.count == 2 && w[1] == "none" {
                d.keysRule = nil
                break
            }
            guard w.count == 4, w[1] == "idempotency", w[2] == "rule" else {
                return fail(n, "bad keys line, expected `keys idempotency rule ID` or `keys none`")
            }
            d.keysRule = cite(n, w[3])
        case "set": setLine(n, w)
        case "save": saveLine(n, w)
        case "created", "send":
            guard w.count == 3, w[1] == "rule" else { return fail(n, "bad \(w[0]) line, expected `\(w[0]) rule ID`") }
            if w[0] == "created" { d.createdRule = cite(n, w[2]) } else { d.sendRule = cite(n, w[2]) }
        case "offline":
            if w.count == 2 && w[1] == "fail" {
                d.offline = .fail
            } else if w.count == 4 && w[1] == "hold" && w[2] == "rule" {
                if let r = cite(n, w[3]) { d.offline = .hold(r) }
            } else {
                fail(n, "bad offline line, expected `offline fail` or `offline hold rule ID`")
            }
        case "quit":
            guard w.count == 5, w[1] == "keeps", w[2] == "saved", w[3] == "rule" else {
                return fail(n, "bad quit line, expected `quit keeps saved rule ID`")
            }
            d.survivesRule = cite(n, w[4])
        case "on": onLine(n, w)
        case "resend": resendLine(n, w)
        case "report":
            if w.count == 2 && w[1] == "none" {
                d.report = .none
            } else if w.count == 2 && w[1] == "onerror" {
                d.report = .onError
            } else if w.count == 4 && w[1] == "completion" && w[2] == "rule" {
                if let r = cite(n, w[3]) { d.report = .completion(lost: r) }
            } else {
                fail(n, "bad report line, expected `report none`, `report onerror` or `report completion rule ID`")
            }
        case "say": sayLine(n, w)
        default:
            fail(
                n,
                "unknown statement \(ProfileParser.q(w[0])), expected one of: profile, " + known.joined(separator: ", ")
                    + Suggest.hint(w[0], among: ["profile"] + known))
        }
        sawOther = true
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
        d.cited.append((id, n))
        if let r = ruleIndex(id) { return r }
        // Not defined yet: give it its number now; `rule` fills in the text.
        return newRule(n, id, RuleInfo(id: id, text: "", isAssumption: false, isShared: false))
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
        if let first = d.ownDefined.first(where: { $0.id == id }) {
            return fail(n, "rule \(id) is defined twice (first on line \(first.line)), expected one `rule` line per ID")
        }
        d.ownDefined.append((id, n))
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

    static let requestWords = ["ping", "screen", "product", "notification", "logout"]

    mutating func requestsLine(_ n: Int, _ w: [String]) {
        var kinds: UInt16 = 1 << RequestKind.event.rawValue
        if d.gate != nil { kinds |= 1 << RequestKind.install.rawValue }
        let expected =
            "expected `requests none` or `requests` with some of: " + ProfileParser.requestWords.joined(separator: ", ")
        if w.count == 2 && w[1] == "none" {
            d.kinds = kinds
            return
        }
        guard w.count >= 2 else { return fail(n, "bad requests line, " + expected) }
        for word in w.dropFirst() {
            guard ProfileParser.requestWords.contains(word), let k = RequestKind(word: word) else {
                return fail(
                    n,
                    "unknown request \(ProfileParser.q(word)), " + expected
                        + Suggest.hint(word, among: ProfileParser.requestWords))
            }
            kinds |= 1 << k.rawValue
            if k == .logout {
                kinds |= 1 << RequestKind.tokenRemoval.rawValue | 1 << RequestKind.anonymousPing.rawValue
            }
        }
        d.kinds = kinds
    }

    mutating func kindsList(_ n: Int, _ words: ArraySlice<String>) -> UInt16? {
        var mask: UInt16 = 0
        for word in words {
            guard let k = RequestKind(word: word) else {
                fail(
                    n,
                    "unknown request kind \(ProfileParser.q(word)), expected some of: "
                        + RequestKind.allCases.map(\.word).joined(separator: ", ")
                        + Suggest.hint(word, among: RequestKind.allCases.map(\.word)))
                return nil
            }
            mask |= 1 << k.rawValue
        }
        return mask
    }

    mutating func directLine(_ n: Int, _ w: [String]) {
        if w.count == 2 && w[1] == "none" {
            d.directKinds = 0
            d.directRule = nil
            return
        }
        guard w.count >= 4, w[w.count - 2] == "rule" else {
            return fail(n, "bad direct line, expected `direct KIND... rule ID` or `direct none`")
        }
        guard let mask = kindsList(n, w[1..<(w.count - 2)]) else { return }
        d.directKinds = mask
        d.directRule = cite(n, w[w.count - 1])
    }

    mutating func componentLine(_ n: Int, _ w: [String]) {
        func roles(_ names: [String]) -> [RuleID]? {
            guard w.count == 2 + 2 * names.count else { return nil }
            var out: [RuleID] = []
            for (i, name) in names.enumerated() {
                guard w[2 + 2 * i] == name, let r = cite(n, w[3 + 2 * i]) else { return nil }
                out.append(r)
            }
            return out
        }
        if w.count == 3 && w[2] == "none" && (w[1] == "consent-gate" || w[1] == "flush") {
            if w[1] == "flush" {
                d.flush = nil
            } else {
                d.gate = nil
                d.kinds &= ~(1 << RequestKind.install.rawValue)
            }
            return
        }
        switch w.count > 1 ? w[1] : "" {
        case "consent-gate":
            guard let r = roles(["drop", "purge", "install"]) else {
                return fail(n, "bad component line, expected `component consent-gate drop ID purge ID install ID`")
            }
            d.gate = GateRules(drop: r[0], purge: r[1], install: r[2])
            d.kinds |= 1 << RequestKind.install.rawValue
            d.defaults.requireConsent = true
        case "flush":
            guard let r = roles(["start", "more", "stop", "send"]) else {
                return fail(n, "bad component line, expected `component flush start ID more ID stop ID send ID`")
            }
            d.flush = FlushRules(start: r[0], more: r[1], stop: r[2], send: r[3])
        default:
            let word = w.count > 1 ? w[1] : ""
            fail(
                n,
                "unknown component \(ProfileParser.q(word)), expected consent-gate or flush"
                    + Suggest.hint(word, among: ["consent-gate", "flush"]))
        }
    }

    mutating func setLine(_ n: Int, _ w: [String]) {
        guard w.count == 3 else { return fail(n, "bad set line, expected `set KEY VALUE`") }
        if let why = d.defaults.apply(w[1], w[2]) { return fail(n, why) }
        d.setLines.append((w[1], n))
    }

    mutating func saveLine(_ n: Int, _ w: [String]) {
        saveAt = n
        if w.count == 3 && w[1] == "at" && w[2] == "create" {
            d.save = .atCreate
            return
        }
        guard w.count >= 5, w[1] == "on", w[2] == "failure", w[w.count - 2] == "rule" else {
            return fail(n, "bad save line, expected `save at create` or `save on failure [KIND...] rule ID`")
        }
        let list = w[3..<(w.count - 2)]
        guard let mask = list.isEmpty ? UInt16.max : kindsList(n, list), let r = cite(n, w[w.count - 1]) else { return }
        d.save = .onFailure(kinds: mask, rule: r)
    }

    mutating func onLine(_ n: Int, _ w: [String]) {
        let form = "expected `on CLASS deliver|retry|queue|drop REASON [rule ID]`"
        guard w.count >= 3 else { return fail(n, "bad on line, " + form) }
        let cls = w[1]
        var i = 2
        let action: Response.Action
        switch w[i] {
        case "deliver": action = .deliver
        case "retry": action = .retry
        case "queue": action = .queue
        case "drop":
            guard w.count > 3, let reason = DropReason(word: w[3]), reason != .consent else {
                let word = w.count > 3 ? w[3] : ""
                return fail(
                    n,
                    "bad drop reason \(ProfileParser.q(word)), expected rejected, exhausted or not-saved"
                        + Suggest.hint(word, among: ["rejected", "exhausted", "not-saved"]))
            }
            action = .drop(reason)
            i += 1
        default:
            return fail(
                n,
                "unknown answer action \(ProfileParser.q(w[i])), " + form
                    + Suggest.hint(w[i], among: ["deliver", "retry", "queue", "drop"]))
        }
        i += 1
        var rule: RuleID?
        var whenSaved: RuleID?
        while i < w.count {
            if w[i] == "rule" && i + 1 < w.count {
                rule = cite(n, w[i + 1])
                if rule == nil { return }
            } else if w[i] == "when-saved" && i + 1 < w.count && action == .deliver {
                whenSaved = cite(n, w[i + 1])
                if whenSaved == nil { return }
            } else if (w[i] == "rule" || w[i] == "when-saved") && i + 1 == w.count {
                return fail(n, "`\(w[i])` needs a rule ID after it, " + form)
            } else {
                return fail(
                    n, "unexpected \(ProfileParser.q(w[i])), " + form + (action == .deliver ? " [when-saved ID]" : ""))
            }
            i += 2
        }
        if cls == "exhausted" {
            switch action {
            case .queue, .drop: d.exhausted = (action, rule, n)
            default: fail(n, "bad on exhausted line, expected `on exhausted queue|drop REASON [rule ID]`")
            }
            return
        }
        guard AnswerClass.words.contains(cls) || AnswerClass.isStatus(cls) else {
            return fail(
                n,
                "unknown answer class \(ProfileParser.q(cls)), expected a status (403), "
                    + AnswerClass.words.joined(separator: ", ") + " or exhausted"
                    + (Suggest.status(cls).map { "; did you mean `\($0)`?" }
                        ?? Suggest.hint(cls, among: AnswerClass.words + ["exhausted"])))
        }
        if action == .deliver && !(cls == "2xx" || cls == "partial" || cls.hasPrefix("2")) {
            return fail(n, "`deliver` for \(cls): only a 2xx or partial answer is delivered")
        }
        if (cls == "2xx" || cls == "partial" || (AnswerClass.isStatus(cls) && cls.hasPrefix("2"))) && action != .deliver
        {
            return fail(n, "\(cls) is a success, expected `on \(cls) deliver`")
        }
        d.on[cls] = (action, rule, whenSaved, n)
        ownOn.insert(cls)
    }

    mutating func resendLine(_ n: Int, _ w: [String]) {
        let form =
            "expected `resend on launch|network|getinstance [via getinstance] rule ID` or `resend on TRIGGER none`"
        if w.count == 4 && w[1] == "on" && w[3] == "none" {
            switch w[2] {
            case "launch": d.resendLaunch = nil
            case "network": d.resendNetwork = nil
            case "getinstance": d.resendGetInstance = nil
            default:
                fail(
                    n,
                    "unknown resend trigger \(ProfileParser.q(w[2])), " + form
                        + Suggest.hint(w[2], among: ["launch", "network", "getinstance"]))
            }
            return
        }
        guard w.count >= 5, w[1] == "on", w[w.count - 2] == "rule" else { return fail(n, "bad resend line, " + form) }
        let via = w.count == 7 && w[3] == "via" && w[4] == "getinstance"
        guard w.count == 5 || (via && w[2] == "launch") else { return fail(n, "bad resend line, " + form) }
        guard let r = cite(n, w[w.count - 1]) else { return }
        let resend = Resend(rule: r, viaGetInstance: via)
        switch w[2] {
        case "launch": d.resendLaunch = resend
        case "network": d.resendNetwork = resend
        case "getinstance": d.resendGetInstance = resend
        default:
            fail(
                n,
                "unknown resend trigger \(ProfileParser.q(w[2])), " + form
                    + Suggest.hint(w[2], among: ["launch", "network", "getinstance"]))
        }
    }

    mutating func sayLine(_ n: Int, _ w: [String]) {
        guard w.count == 3 else { return fail(n, "bad say line, expected `say KEY \"TEXT\"`") }
        guard let key = TextKey(rawValue: w[1]) else {
            return fail(
                n,
                "unknown text \(ProfileParser.q(w[1])), expected one of: "
                    + TextKey.allCases.map(\.rawValue).joined(separator: ", ")
                    + Suggest.hint(w[1], among: TextKey.allCases.map(\.rawValue)))
        }
        if w[2].isEmpty {
            // Only the warning is optional: every other line says what happened.
            guard key == .warningDropped else {
                return fail(
                    n,
                    "an empty text for \(key.rawValue), expected words (only warning.dropped may be \"\", to say nothing)"
                )
            }
            d.texts[key] = nil
            d.noWarning = true
            return
        }
        if let why = ProfileParser.badText(w[2]) { return fail(n, why) }
        if key == .warningDropped { d.noWarning = false }
        switch Template.parse(w[2], allowed: key.slots) {
        case .failure(let p): fail(n, p.message)
        case .success(let t): d.texts[key] = t
        }
    }

    // MARK: The whole file

    mutating func finish(lastLine: Int) {
        guard sawProfile else { return }
        for (id, n) in d.cited {
            if let r = ruleIndex(id), d.book[Int(r.rawValue)]!.text.isEmpty {
                fail(n, "rule \(id) is cited but not defined, expected a line `rule \(id) \"what it does\"`")
            }
        }
        let end = lastLine
        if d.save == nil { fail(end, "no save line, expected `save at create` or `save on failure [KIND...] rule ID`") }
        if d.createdRule == nil {
            fail(end, "no created line, expected `created rule ID` (the rule a new request cites)")
        }
        if d.sendRule == nil { fail(end, "no send line, expected `send rule ID` (the rule its first attempt cites)") }
        if d.survivesRule == nil { fail(end, "no quit line, expected `quit keeps saved rule ID`") }
        for cls in ["2xx", "4xx", "5xx", "transport"] where d.on[cls] == nil {
            fail(
                end,
                "no `on \(cls)` line, expected what a \(cls) answer does (every profile answers 2xx, 4xx, 5xx and transport)"
            )
        }
        let retries = d.on.values.contains { $0.action == .retry }
        if retries {
            if d.exhausted == nil {
                fail(
                    end,
                    "answers are retried but there is no `on exhausted` line, expected `on exhausted queue|drop exhausted`"
                )
            }
            if d.defaults.retryAttempts < 1 || d.defaults.retryDelays.isEmpty {
                fail(end, "answers are retried, expected `set retry.attempts N` and `set retry.delays D[,D...]`")
            }
        }
        for (key, n) in d.setLines {
            if let k = Settings.keys.first(where: { $0.name == key }) {
                if k.needs == .retry && !retries {
                    fail(n, "setting \(key) needs retries, expected an `on CLASS retry` line in the profile")
                } else if k.needs == .consentGate && d.gate == nil {
                    fail(n, "setting \(key) needs the consent gate, expected `component consent-gate ...`")
                }
            }
        }
        for (cls, e) in d.on.sorted(by: { $0.value.line < $1.value.line }) where resolvedRule(cls) == nil {
            fail(e.line, "`on \(cls)` cites no rule and no broader class gives one, expected `rule ID` at its end")
        }
        // `when-saved` tells a resend's delivery from a first one: under `save at
        // create` every request is saved when made, so it would be cited on every
        // delivery. Refused (docs/profiles.md, `on CLASS ACTION`).
        if d.save == .atCreate {
            for (cls, e) in d.on.sorted(by: { $0.value.line < $1.value.line }) where e.whenSaved != nil {
                // An `on` line taken from a `base` is named at this file's save line.
                fail(
                    ownOn.contains(cls) ? e.line : (saveAt ?? end),
                    "`on \(cls)` has `when-saved` under `save at create`: every request is saved when made, so it"
                        + " would be cited on every delivery, expected `save on failure ...` or no `when-saved`")
            }
        }
        if d.resendGetInstance == nil, d.resendLaunch?.viaGetInstance == true {
            fail(end, "`resend on launch via getinstance` needs `resend on getinstance rule ID`")
        }
        if d.directKinds & ~d.kinds != 0 {
            fail(end, "a direct kind the app does not make, expected it in the `requests` line too")
        }
    }

    /// The rule an `on` line cites, inheriting from its parent class when it names none.
    func resolvedRule(_ cls: String) -> RuleID? {
        var c: String? = cls
        while let k = c {
            if let e = d.on[k], let r = e.rule { return r }
            c = AnswerClass.parent(k)
        }
        return nil
    }

    mutating func freeze(source: String, path: String?) -> ProfileSpec {
        var responses: [Response] = []
        var index: [String: UInt8] = [:]
        func slot(_ cls: String) -> UInt8 {
            var c: String? = cls
            while let k = c {
                if let i = index[k] { return i }
                if let e = d.on[k] {
                    let rule = resolvedRule(k) ?? d.createdRule!
                    responses.append(Response(action: e.action, rule: rule, whenSaved: e.whenSaved))
                    index[k] = UInt8(responses.count - 1)
                    return index[k]!
                }
                c = AnswerClass.parent(k)
            }
            return 0
        }
        var table = [UInt8](repeating: 0, count: ProfileSpec.tableSize)
        for s in 100...599 { table[s - 100] = slot(String(s)) }
        table[ProfileSpec.timeoutSlot] = slot("timeout")
        table[ProfileSpec.lostSlot] = slot("lost")
        table[ProfileSpec.offlineSlot] = slot("offline")
        table[ProfileSpec.networkLostSlot] = slot("transport")
        table[ProfileSpec.partialSlot] = slot("partial")
        var exhausted: Response?
        if let e = d.exhausted {
            // Without a rule of its own it cites the rule of the answer that ended the budget.
            exhausted = Response(action: e.action, rule: e.rule ?? d.createdRule!, whenSaved: nil)
        }
        var texts: [TextKey: Template] = [:]
        for key in TextKey.allCases {
            if key == .warningDropped && d.noWarning { continue }
            if let t = d.texts[key] {
                texts[key] = t
            } else if let s = key.standard, case .success(let t) = Template.parse(s, allowed: key.slots) {
                texts[key] = t
            }
        }
        return ProfileSpec(
            name: d.name, title: d.title, source: source, path: path, book: d.book, ownRules: d.ownRules,
            kinds: d.kinds, directKinds: d.directKinds, directRule: d.directRule, gate: d.gate, flush: d.flush,
            keysRule: d.keysRule, defaults: d.defaults, save: d.save!, createdRule: d.createdRule!,
            sendRule: d.sendRule!, offline: d.offline, survivesRule: d.survivesRule!, responses: responses,
            table: table, exhausted: exhausted, resendLaunch: d.resendLaunch, resendNetwork: d.resendNetwork,
            resendGetInstance: d.resendGetInstance, report: d.report, texts: texts, onLines: d.on,
            exhaustedCitesAnswer: d.exhausted?.rule == nil)
    }
}
