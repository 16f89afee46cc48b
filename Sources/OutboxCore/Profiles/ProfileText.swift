/// A log text a profile says (`say KEY "TEXT"`), with `{slot}`s filled in when
/// the line is written. Rewording one changes only the words: what the screen
/// shows (banners, colours) comes from the line's `LogEvent`.
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
        case .purged: return "consent denied: purged {saved} from the queue · {inflight} in flight · {retrying} retrying"
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
