/// What a part of a timeline line is, so a terminal can colour it (the command
/// line maps these to a theme's roles).
public enum TimelineStyle: Sendable, Equatable {
    case plain
    case time
    /// The state a transition goes to.
    case state(RequestState)
    /// A drop reason and the outcome beside it.
    case dropped
    case rule
    case source(LogSource)
    case ok
    case failed
}

/// A run of text in one style.
public struct TimelineSpan: Sendable, Equatable {
    public let text: String
    public let style: TimelineStyle

    public init(_ text: String, _ style: TimelineStyle = .plain) {
        self.text = text
        self.style = style
    }
}

/// The text timeline on a terminal (`outbox run` when stdout is one): the line
/// as `TimelineWriter` writes it when it fits the width, else a shorter layout
/// of the same fields, abbreviated with `…` and never wrapped. Files and pipes
/// keep the full lines (docs/scenarios.md, "The text timeline").
extension TimelineWriter {
    /// The columns of a transition line: the full ones and the short ones.
    private struct Columns {
        let gap: String, id: Int, kind: Int, name: Int?, arrow: String, move: Int, attempt: Int, detail: Int
        let attemptWord: String
        static let full = Columns(
            gap: "  ", id: 6, kind: 15, name: 16, arrow: " → ", move: 24, attempt: 12, detail: 22,
            attemptWord: "attempt ")
        /// At 80 columns: the name takes what is left.
        static let short = Columns(
            gap: " ", id: 5, kind: 8, name: nil, arrow: "→", move: 20, attempt: 6, detail: 12, attemptWord: "att ")
    }

    /// The narrowest terminal that gets the full columns (a transition with a
    /// rule ID of up to 6 characters); narrower ones get the short layout, every
    /// line of a run the same.
    public static let fullWidth = 12 + 2 + 6 + 15 + 16 + 24 + 12 + 22 + 6

    public func spans(_ entry: JournalEntry, in sim: Simulation, width: Int) -> [TimelineSpan] {
        let full = width >= TimelineWriter.fullWidth
        switch entry {
        case .transition(let t):
            return TimelineWriter.clip(transitionSpans(t, in: sim, full ? .full : .short, width: width), width)
        case .log(let l):
            return TimelineWriter.clip(
                [
                    TimelineSpan(VirtualTime.clock(l.time) + (full ? "  " : " "), .time),
                    TimelineSpan(pad(tag(l.source), full ? 10 : 9), .source(l.source)),
                    TimelineSpan(SafeText.line(l.text)),
                ], width)
        }
    }

    public func spans(_ r: CheckResult, width: Int) -> [TimelineSpan] {
        let text = SafeText.line(r.text)
        if width >= TimelineWriter.fullWidth {
            let mark = r.ok ? TimelineSpan("  ✓", .ok) : TimelineSpan("  ✗ FAILED: " + SafeText.line(r.found), .failed)
            return TimelineWriter.clip(
                [
                    TimelineSpan(VirtualTime.clock(r.time) + "  ", .time), TimelineSpan(pad("expect", 10)),
                    TimelineSpan(text), mark,
                ],
                width)
        }
        // The line as written gives way first, so the verdict and what was found stay in view.
        let head = [TimelineSpan(VirtualTime.clock(r.time) + " ", .time), TimelineSpan(pad("expect", 9))]
        let shortMark = r.ok ? TimelineSpan(" ✓", .ok) : TimelineSpan(" ✗ " + SafeText.line(r.found), .failed)
        let room = max(12, width - TimelineWriter.columns(head) - SafeText.columns(of: shortMark.text))
        return TimelineWriter.clip(head + [TimelineSpan(TimelineWriter.cut(text, room)), shortMark], width)
    }

    /// A line of its own (a heading, a summary) cut to the width.
    public static func fit(_ line: String, width: Int) -> String {
        clip([TimelineSpan(line)], width).map(\.text).joined()
    }

    /// A line that names a file (`FILE: 24 passed, 0 failed · 24 transitions · …`,
    /// `== FILE (ios)`) in at most `width` columns. The tail gives way first, cut
    /// at its end down to ` …`; then the path, in its middle
    /// (`/tmp/c…/examples/offline.outbox`: where it starts and its file name stay).
    /// `lead` and `verdict` are never cut, unless the width is narrower than they
    /// are alone (then the line is cut at its end, as `fit` does).
    public static func fit(lead: String = "", path: String, verdict: String, tail: String = "", width: Int) -> String {
        let fixed = SafeText.columns(of: lead) + SafeText.columns(of: verdict)
        let p = SafeText.columns(of: path), t = SafeText.columns(of: tail)
        if fixed + p + t <= width { return lead + path + verdict + tail }
        // What is left of a cut tail: ` …`, so the line shows that more was there.
        let least = min(t, 2)
        if fixed + p + least <= width { return lead + path + verdict + cut(tail, width - fixed - p) }
        if fixed + least < width { return lead + middle(path, width - fixed - least) + verdict + cut(tail, least) }
        return fit(lead + middle(path, 1) + verdict, width: width)
    }

    /// `s` in at most `w` columns: its start and its end with `…` between them
    /// (a quarter of the room for the start, the rest for the end, where a
    /// path's file name is).
    public static func middle(_ s: String, _ w: Int) -> String {
        guard SafeText.columns(of: s) > w else { return s }
        guard w > 1 else { return w == 1 ? "…" : "" }
        let start = SafeText.prefix(s, columns: (w - 1) / 4)
        return start + "…" + SafeText.suffix(s, columns: w - 1 - SafeText.columns(of: start))
    }

    private func transitionSpans(_ t: Transition, in sim: Simulation, _ c: Columns, width: Int) -> [TimelineSpan] {
        let r = sim.request(t.request)
        let name = SafeText.line(sim.names[Int(r.nameID)])
        let rule = sim.profile.id(of: t.rule)
        var detail = sim.answerText(t)
        if let reason = t.reason { detail += detail.isEmpty ? reason.word : " " + reason.word }
        let short = c.name == nil
        // The rule keeps 6 columns (most IDs: LT-1a, IOS-4), so the columns line up.
        let fixed = 12 + c.gap.count + c.id + c.kind + c.move + c.attempt + c.detail + max(6, rule.count)
        let nameWidth = c.name ?? max(6, width - fixed)
        func field(_ s: String, _ w: Int, _ style: TimelineStyle = .plain) -> [TimelineSpan] {
            if short {
                let shown = TimelineWriter.cut(s, w - 1)
                return [
                    TimelineSpan(shown, style),
                    TimelineSpan(String(repeating: " ", count: max(0, w - SafeText.columns(of: shown)))),
                ]
            }
            let n = SafeText.columns(of: s)
            return [TimelineSpan(s, style), TimelineSpan(String(repeating: " ", count: n >= w ? 1 : w - n))]
        }
        var out = [TimelineSpan(VirtualTime.clock(t.time) + c.gap, .time)]
        out += field("#\(t.request)", c.id) + field(sim.word(r.kind), c.kind) + field(name, nameWidth)
        let from = (t.from?.word ?? "new") + c.arrow
        out.append(TimelineSpan(from))
        out += field(t.to.word, c.move - from.count, .state(t.to))
        out += field(t.attempt > 0 ? c.attemptWord + String(t.attempt) : "", c.attempt)
        out += field(detail, c.detail, t.reason == nil ? .plain : .dropped)
        out.append(TimelineSpan(rule, .rule))
        return out.filter { !$0.text.isEmpty }
    }

    /// `s` in at most `w` terminal columns (a wide character takes two): cut
    /// with `…` when longer.
    static func cut(_ s: String, _ w: Int) -> String {
        guard SafeText.columns(of: s) > w else { return s }
        guard w > 1 else { return w == 1 ? "…" : "" }
        return SafeText.prefix(s, columns: w - 1) + "…"
    }

    static func columns(_ spans: [TimelineSpan]) -> Int { spans.reduce(0) { $0 + SafeText.columns(of: $1.text) } }

    /// The spans cut to `width` characters, the last shown one ending in `…`
    /// when anything was left out.
    static func clip(_ spans: [TimelineSpan], _ width: Int) -> [TimelineSpan] {
        guard columns(spans) > width else { return spans }
        var out: [TimelineSpan] = []
        var used = 0
        for s in spans {
            let n = SafeText.columns(of: s.text)
            if used + n < width {
                out.append(s)
                used += n
                continue
            }
            out.append(TimelineSpan(cut(s.text + "…", width - used), s.style))
            break
        }
        return out
    }
}
