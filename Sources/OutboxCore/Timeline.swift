/// How a timeline is printed.
public enum TimelineFormat: String, CaseIterable, Sendable {
    /// For people: one aligned line per entry.
    case text
    /// One JSON object a line (docs/scenarios.md, "JSONL"; the contract it keeps is
    /// the project's shared spec, shared/spec/scenario-format.md, outside this repository).
    case jsonl
}

/// Turns journal entries and check results into timeline lines.
public struct TimelineWriter {
    public let format: TimelineFormat
    /// JSONL only: a `"profile"` key written second, after `"t"` (`outbox compare`).
    public let profile: String?
    /// JSONL only: a `"file"` key written right after `"t"` (`outbox run` of several files).
    public let file: String?
    /// `"file":"PATH","profile":"NAME"` (either or both), quoted once.
    private let profileField: String?

    public init(format: TimelineFormat, profile: String? = nil, file: String? = nil) {
        self.format = format
        self.profile = profile
        self.file = file
        let fields =
            (file.map { [JSONObject.quote("file") + ":" + JSONObject.quote($0)] } ?? [])
            + (profile.map { [JSONObject.quote("profile") + ":" + JSONObject.quote($0)] } ?? [])
        profileField = fields.isEmpty ? nil : fields.joined(separator: ",")
    }

    public func line(_ entry: JournalEntry, in sim: Simulation) -> String {
        switch entry {
        case .transition(let t): return transition(t, in: sim)
        case .log(let l): return log(l, in: sim)
        }
    }

    public func transition(_ t: Transition, in sim: Simulation) -> String {
        let r = sim.request(t.request)
        let name = sim.names[Int(r.nameID)]
        switch format {
        case .jsonl:
            var o = JSONObject()
            o.number("t", VirtualTime.seconds(t.time))
            if let profileField { o.field(profileField) }
            o.number("id", String(t.request))
            o.string("name", name)
            o.string("kind", sim.word(r.kind))
            o.string("from", t.from?.word ?? "new")
            o.string("to", t.to.word)
            o.number("attempt", String(t.attempt))
            o.string("rule", sim.profile.id(of: t.rule))
            if let s = t.outcome.httpStatus {
                o.number("status", String(s))
            } else if !t.outcome.isNone {
                o.string("status", t.outcome.word)
            }
            // An extension: the answer's Retry-After header, in seconds (`server 429 retry-after 10s`).
            if t.outcome.httpStatus != nil, let h = sim.retryAfterHeader(t.request, attempt: t.attempt) {
                o.number("retry_after", VirtualTime.seconds(h))
            }
            if let reason = t.reason { o.string("reason", reason.word) }
            if t.batch > 0 { o.number("batch", String(t.batch)) }
            return o.text
        case .text:
            // Escaped before padding, so the columns line up after it.
            var s =
                VirtualTime.clock(t.time) + "  " + pad("#\(t.request)", 6) + pad(sim.word(r.kind), 15)
                + pad(SafeText.line(name), 16)
            s += pad((t.from?.word ?? "new") + " → " + t.to.word, 24)
            s += pad(t.attempt > 0 ? "attempt \(t.attempt)" : "", 12)
            var detail = sim.answerText(t)
            if let reason = t.reason { detail += detail.isEmpty ? reason.word : " " + reason.word }
            s += pad(detail, 22) + sim.profile.id(of: t.rule)
            if t.batch > 0 { s += "  batch \(t.batch)" }
            return SafeText.line(s)
        }
    }

    public func log(_ l: LogLine, in sim: Simulation) -> String {
        switch format {
        case .jsonl:
            var o = JSONObject()
            o.number("t", VirtualTime.seconds(l.time))
            if let profileField { o.field(profileField) }
            o.string("log", l.text)
            o.string("source", String(describing: l.source))
            if l.request > 0 { o.number("id", String(l.request)) }
            if let rule = l.rule { o.string("rule", sim.profile.id(of: rule)) }
            return o.text
        case .text:
            return SafeText.line(VirtualTime.clock(l.time) + "  " + pad(tag(l.source), 10) + l.text)
        }
    }

    func tag(_ s: LogSource) -> String {
        switch s {
        case .sdk: return "log"
        case .onError: return "onError"
        case .completion: return "complete"
        case .backend: return "backend"
        case .outbox: return "outbox"
        }
    }

    public func check(_ r: CheckResult) -> String {
        switch format {
        case .jsonl:
            var o = JSONObject()
            o.number("t", VirtualTime.seconds(r.time))
            if let profileField { o.field(profileField) }
            o.string("expect", r.text)
            o.bool("ok", r.ok)
            o.number("line", String(r.line))
            if !r.ok { o.string("found", r.found) }
            return o.text
        case .text:
            let head = VirtualTime.clock(r.time) + "  " + pad("expect", 10) + r.text
            return SafeText.line(r.ok ? head + "  ✓" : head + "  ✗ FAILED: " + r.found)
        }
    }

    func pad(_ s: String, _ w: Int) -> String {
        let n = s.count
        return n >= w ? s + " " : s + String(repeating: " ", count: w - n)
    }
}

/// A tiny JSON object writer with keys in insertion order (byte-for-byte stable).
public struct JSONObject {
    private var parts: [String] = []
    public init() {}

    public mutating func string(_ key: String, _ value: String) {
        parts.append(JSONObject.quote(key) + ":" + JSONObject.quote(value))
    }

    public mutating func number(_ key: String, _ literal: String) {
        parts.append(JSONObject.quote(key) + ":" + literal)
    }

    /// A `"key":value` written already.
    mutating func field(_ written: String) {
        parts.append(written)
    }

    public mutating func bool(_ key: String, _ value: Bool) {
        parts.append(JSONObject.quote(key) + ":" + (value ? "true" : "false"))
    }

    public var text: String { "{" + parts.joined(separator: ",") + "}" }

    public static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                // Controls (C0, DEL, C1) and the scalars SafeText escapes for people
                // (bidi overrides, line separators) as \u escapes: the same string
                // to a JSON reader, and no byte a terminal obeys.
                if u.value < 0x20 || SafeText.needsEscape(u) {
                    // Past U+FFFF (the tags U+E0000...) as a UTF-16 surrogate pair, as JSON has it.
                    for unit in String(u).utf16 {
                        let h = String(unit, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                    }
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}
