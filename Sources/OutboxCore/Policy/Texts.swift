/// The words of the log lines a profile writes (`say KEY "TEXT"`), with
/// `{slot}`s filled in when the line is written. Rewording one changes only the
/// words: what the screen shows (banners, colours) comes from the line's `LogEvent`.

enum Texts {
    static let statement: Statement = Statement(
        keyword: "say", forms: ["say KEY \"TEXT\""], file: "Policy/Texts.swift", doc: doc
    ) {
        p, n, w in
        guard w.count == 3 else { return p.fail(n, "bad say line, " + statement.expected) }
        guard let key = TextKey(rawValue: w[1]) else {
            return p.fail(
                n,
                "unknown text \(ProfileParser.q(w[1])), expected one of: "
                    + TextKey.allCases.map(\.rawValue).joined(separator: ", ")
                    + Suggest.hint(w[1], among: TextKey.allCases.map(\.rawValue)))
        }
        if w[2].isEmpty {
            // Only the warning is optional: every other line says what happened.
            guard key == .warningDropped else {
                return p.fail(
                    n,
                    "an empty text for \(key.rawValue), expected words (only warning.dropped may be \"\", to say nothing)"
                )
            }
            p.d.texts[key] = nil
            p.d.noWarning = true
            return
        }
        if let why = ProfileParser.badText(w[2]) { return p.fail(n, why) }
        if key == .warningDropped { p.d.noWarning = false }
        switch Template.parse(w[2], allowed: key.slots) {
        case .failure(let problem): p.fail(n, problem.message)
        case .success(let t): p.d.texts[key] = t
        }
    }

    /// Every text of a profile: the file's (and its base's), the standard ones for the rest.
    static func all(_ d: ProfilePolicy) -> [TextKey: Template] {
        var texts: [TextKey: Template] = [:]
        for key in TextKey.allCases {
            if key == .warningDropped && d.noWarning { continue }
            if let t = d.texts[key] {
                texts[key] = t
            } else if let s = key.standard, case .success(let t) = Template.parse(s, allowed: key.slots) {
                texts[key] = t
            }
        }
        return texts
    }
}

/// A log text a profile says.
public enum TextKey: String, CaseIterable, Sendable {
    case onErrorKept = "onerror.kept"
    case onErrorDropped = "onerror.dropped"
    case warningDropped = "warning.dropped"
    case completionDelivered = "completion.delivered"
    case completionDropped = "completion.dropped"
    case completionExhausted = "completion.exhausted"
    case completionLost = "completion.lost"
    case consentDropped = "consent.dropped"
    case consentSet = "consent.set"
    case configure = "configure"
    case resendLaunch = "resend.launch"
    case resendNetwork = "resend.network"
    case resendGetInstance = "resend.getinstance"
    case waitsNetwork = "waits.network"
    case waitsLaunch = "waits.launch"
    case waitsOffline = "waits.offline"
    case flushStarted = "flush.started"
    case flushEmpty = "flush.empty"
    case flushMore = "flush.more"
    case flushEnded = "flush.ended"
    case purged = "purged"
    /// Not a log line: the name of the completion field in `outbox compare`'s legend.
    case legendCompletion = "legend.completion"

    /// The slots the text may use.
    var slots: [Slot] {
        switch self {
        case .onErrorKept, .onErrorDropped, .warningDropped, .completionDelivered, .completionDropped,
            .completionExhausted, .completionLost:
            return [.name, .label, .outcome, .attempts, .reason]
        case .consentDropped: return [.name, .label, .consent]
        case .consentSet: return [.granted, .consent]
        case .configure: return [.consent, .required]
        case .resendLaunch, .resendNetwork, .resendGetInstance, .waitsNetwork, .waitsLaunch, .waitsOffline:
            return [.count]
        case .flushStarted: return [.trigger, .count]
        case .flushEmpty, .flushMore: return [.trigger]
        case .flushEnded: return [.rule, .end, .sent, .count]
        case .purged: return [.saved, .inflight, .retrying]
        case .legendCompletion: return []
        }
    }

    /// The text a profile says when its file gives none.
    var standard: String? {
        switch self {
        case .onErrorKept: return "onError: '{name}' failed ({outcome}) after {attempts} attempts; kept"
        case .onErrorDropped: return "onError: '{name}' {reason} ({outcome})"
        case .warningDropped: return nil
        case .completionDelivered: return "completion({label}): true"
        case .completionDropped: return "completion({label}): false ({reason} {outcome})"
        case .completionExhausted: return "completion({label}): false ({outcome} on the last of {attempts} attempts)"
        case .completionLost: return "{label}: no completion handler to call (it survived a quit)"
        case .consentDropped: return "event '{name}' dropped: consent {consent}"
        case .consentSet: return "setConsent({granted})"
        case .configure: return "configure (consent {consent}, {required})"
        case .resendLaunch: return "launch: {count} saved go out"
        case .resendNetwork: return "network back: {count} queued go out"
        case .resendGetInstance: return "getInstance(): resending {count} saved"
        case .waitsNetwork: return "the network returning resends nothing"
        case .waitsLaunch: return "offline at launch: {count} saved wait"
        case .waitsOffline: return "getInstance() offline: {count} saved wait for the network"
        case .flushStarted: return "flush started ({trigger}) · {count} queued"
        case .flushEmpty: return "flush ({trigger}): nothing queued"
        case .flushMore: return "flush under way: {trigger} asks for one more pass"
        case .flushEnded: return "flush ended ({rule}: {end}) · sent {sent} · {count} left"
        case .purged:
            return "consent denied: purged {saved} from the queue · {inflight} in flight · {retrying} retrying"
        case .legendCompletion: return "completion"
        }
    }
}

/// A `{slot}` of a profile's text.
public enum Slot: String, CaseIterable, Sendable {
    case name, label, outcome, attempts, reason, consent, granted, required, count, trigger, end, rule, sent,
        saved, inflight, retrying
}

/// A text with its slots found once, when the profile is read.
public struct Template: Equatable, Sendable {
    enum Part: Equatable, Sendable {
        case text(String)
        case slot(Slot)
    }
    let parts: [Part]
    /// The text as written.
    public let source: String

    /// Reads `{slot}`s; `{{` and `}}` stand for braces. The failure says what was wrong.
    static func parse(_ text: String, allowed: [Slot]) -> Result<Template, Problem> {
        var parts: [Part] = []
        var lit = ""
        var chars = Substring(text)
        while let c = chars.first {
            chars.removeFirst()
            if c == "{" {
                if chars.first == "{" {
                    chars.removeFirst()
                    lit.append("{")
                    continue
                }
                guard let close = chars.firstIndex(of: "}") else {
                    return .failure(Problem("an unclosed `{` in the text, expected `{slot}` or `{{` for a brace"))
                }
                let word = String(chars[..<close])
                chars = chars[chars.index(after: close)...]
                guard let slot = Slot(rawValue: word), allowed.contains(slot) else {
                    return .failure(
                        Problem(
                            "unknown slot `{\(SafeText.escaped(word, max: 40))}`, expected one of: "
                                + allowed.map { "{" + $0.rawValue + "}" }.joined(separator: ", ")))
                }
                if !lit.isEmpty { parts.append(.text(lit)) }
                lit = ""
                parts.append(.slot(slot))
            } else if c == "}" {
                if chars.first == "}" { chars.removeFirst() }
                lit.append("}")
            } else {
                lit.append(c)
            }
        }
        if !lit.isEmpty { parts.append(.text(lit)) }
        return .success(Template(parts: parts, source: text))
    }

    func render(_ value: (Slot) -> String) -> String {
        var s = ""
        for p in parts {
            switch p {
            case .text(let t): s += t
            case .slot(let k): s += value(k)
            }
        }
        return s
    }
}

extension Profile {
    /// A text of the profile's that has no slots (`legend.completion`), as written.
    public func text(_ key: TextKey) -> String { spec.texts[key]?.source ?? "" }
}

extension Simulation {
    /// A text of the profile's with its slots filled.
    func say(_ key: TextKey, _ value: (Slot) -> String) -> String {
        spec.texts[key]?.render(value) ?? ""
    }

    /// The slots about one request: its name, label, the outcome, attempts, a reason.
    /// The strings are read first: a closure capturing `self` would copy the whole model.
    func requestSlots(_ id: Int32, _ outcome: Outcome, attempts: Int32, reason: DropReason?) -> (Slot) -> String {
        let (name, label) = (name(of: id), label(id))
        return { s in
            switch s {
            case .name: return name
            case .label: return label
            case .outcome: return outcome.word
            case .attempts: return String(attempts)
            case .reason: return reason?.word ?? ""
            default: return ""
            }
        }
    }
}

extension Texts {
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let doc: [StatementDoc] = [
        StatementDoc(
            text: """
                Rewords one of the log lines the profile writes; `{slot}`s are filled in when
                the line is written. `say warning.dropped ""` removes a base's warning (the one
                line that is optional); every other text must have words. See [Texts](#texts-say). Only the words change: what the
                screen shows in colour and banners comes from what the line reports, not from
                its words.
                """)
    ]
}
