import OutboxCore
import OutboxServe

/// The live screen of `outbox serve` as a function of the model and the
/// session (read where it is, not copied): a header, a row per event and per
/// unrecognised request, the selected row's detail, the log, the status bar;
/// the held request's box, the chooser or the help on top.
public enum ServeView {
    /// The rows of each pane, from the screen's height and the focus.
    struct Panes {
        var top: Int, list: Int, detail: Int, log: Int
        func height(of p: Pane) -> Int {
            switch p {
            case .list: return list
            case .detail: return detail
            case .log: return log
            }
        }
    }

    /// Header (1 row), list (its column titles, rows), detail, log, each under a
    /// separator, and the status bar.
    static func panes(_ m: ServeModel) -> Panes {
        let free = max(3, m.height - 1 - 1 - 3 - 1)  // header, status, three separators, column titles
        var list = free * 4 / 10, detail = free * 4 / 10
        switch m.focus {
        case .list: break
        case .detail:
            detail = free * 6 / 10
            list = free * 2 / 10
        case .log:
            list = free * 3 / 10
            detail = free * 3 / 10
        }
        list = max(1, list)
        detail = max(1, detail)
        return Panes(top: 1, list: list, detail: detail, log: max(1, free - list - detail))
    }

    public static func render(
        _ m: ServeModel, _ s: ServeSession, width: Int, height: Int, glyphs g: Glyphs = .unicode
    ) -> ScreenBuffer {
        let d = AppView.drawnSize(width: width, height: height)
        var buf = AppView.screen(width: width, height: height, glyphs: g)
        guard d.width >= AppView.minWidth, d.height >= AppView.minHeight else {
            AppView.tooSmall(&buf, "outbox serve", width: width, height: height, then: "The server goes on; q quits.")
            return buf
        }
        var m = m
        m.setScreen(width: d.width, height: d.height)
        let p = panes(m)
        header(&buf, m, s, g: g)
        var y = 1
        let rows = ServeModel.rows(s)
        let unrecognised = rows.count - s.events.count
        AppView.separator(
            &buf, y: y, width: d.width,
            title:
                "Events \(s.events.count) \(g.sep) requests \(s.requests.count) \(g.sep) unrecognised \(unrecognised) ",
            focused: m.focus == .list, rightTitle: nil, rightX: d.width, g: g)
        y += 1
        list(&buf, m, s, rows: rows, rect: Rect(x: 0, y: y, width: d.width, height: p.list + 1), g: g)
        y += p.list + 1
        AppView.separator(
            &buf, y: y, width: d.width, title: detailTitle(m, s) + " ", focused: m.focus == .detail, rightTitle: nil,
            rightX: d.width, g: g)
        y += 1
        let doc = detailLines(m, s, width: d.width)
        let top = min(m.detailScroll, max(0, doc.count - p.detail))
        for (i, line) in doc.dropFirst(top).prefix(p.detail).enumerated() {
            buf.put(AppView.glyphText(line.0, g), x: 1, y: y + i, role: line.1, limit: d.width - 2)
        }
        y += p.detail
        let logTitle = m.logScroll > 0 ? "Log (\(m.logScroll) up; End: the newest) " : "Log "
        AppView.separator(
            &buf, y: y, width: d.width, title: logTitle, focused: m.focus == .log, rightTitle: nil, rightX: d.width,
            g: g)
        y += 1
        for (i, line) in logLines(s, last: p.log, skip: m.logScroll).enumerated() {
            buf.put(line.0, x: 1, y: y + i, role: line.1, limit: d.width - 2)
        }
        status(&buf, m, s, y: d.height - 1, g: g)
        switch m.mode {
        case .help(let scroll):
            AppView.helpBox(&buf, rows: AppView.helpRows(ServeKeys.helpLines(ascii: g.isASCII)), scroll: scroll, g: g)
        case .chooseAnswer(let c): AppView.chooser(&buf, chosen: c, g: g)
        default:
            if let h = s.held.first { heldBox(&buf, m, s, h, g: g) }
        }
        return buf
    }

    // MARK: Header

    static func header(_ buf: inout ScreenBuffer, _ m: ServeModel, _ s: ServeSession, g: Glyphs) {
        buf.fill(Rect(x: 0, y: 0, width: buf.width, height: 1), role: .header)
        var parts: [(String, Role)] = [
            (" OUTBOX serve", .headerAccent), (m.address, .header),
            s.online ? ("net \(g.dot) online", .online) : ("net \(g.none) offline", .offline),
            ("backend " + s.plans.summary, .header),
        ]
        if s.latency > 0 { parts.append(("latency " + VirtualTime.duration(s.latency), .header)) }
        if let b = s.breakpoint {
            switch b {
            case .next: parts.append(("break: next", .headerAccent))
            case .name(let n): parts.append(("break: " + n, .headerAccent))
            }
        }
        if !s.held.isEmpty { parts.append(("held \(s.held.count)", .banner)) }
        parts.append((m.profile.map { "held to " + $0.0.name } ?? "no profile", .header))
        parts.append((VirtualTime.clock(m.now / 100 * 100), .header))
        var x = 0
        for (i, part) in parts.enumerated() {
            if i > 0 { x = buf.put(" \(g.vLine) ", x: x, y: 0, role: .header) }
            x = buf.put(part.0, x: x, y: 0, role: part.1, limit: max(0, buf.width - x))
        }
    }

    // MARK: The list

    /// The columns: id, name, format, attempts, last answer, last seen; with a
    /// profile its verdict and the next attempt it predicts.
    struct Columns {
        let name: Int
        static let id = 9, format = 9, att = 3, last = 8, seen = 5, verdict = 9, next = 16
        init(width: Int, profile: Bool) {
            let fixed = 1 + Columns.id + 1 + 1 + Columns.format + 1 + Columns.att + 1 + Columns.last + 1 + Columns.seen
            name = max(8, width - fixed - (profile ? 1 + Columns.verdict + 1 + Columns.next : 0) - 1)
        }
    }

    static func cells(_ texts: [(String, Int)]) -> String {
        texts.map { AppView.pad($0.0, $0.1) }.joined(separator: " ")
    }

    static func list(
        _ buf: inout ScreenBuffer, _ m: ServeModel, _ s: ServeSession, rows: [ServeModel.Row], rect: Rect, g: Glyphs
    ) {
        let c = Columns(width: rect.width, profile: m.profile != nil)
        var titles = [
            ("id", Columns.id), ("name", c.name), ("format", Columns.format), ("att", Columns.att),
            ("last", Columns.last), ("ago", Columns.seen),
        ]
        if m.profile != nil { titles += [("verdict", Columns.verdict), ("next", Columns.next)] }
        buf.put(" " + cells(titles), x: 0, y: rect.y, role: .columnHeader, limit: rect.width)
        let n = rect.height - 1
        guard !rows.isEmpty else {
            buf.put(
                " No request yet: point an SDK at \(m.address) (curl -d '{}' \(m.address)/v1/batch)", x: 0,
                y: rect.y + 1, role: .dim, limit: rect.width)
            return
        }
        let sel = m.selectedRow(s)
        let at = sel.flatMap { rows.firstIndex(of: $0) } ?? 0
        let first = max(0, min(at - n / 2, rows.count - n))
        for (k, row) in rows.dropFirst(first).prefix(n).enumerated() {
            let y = rect.y + 1 + k
            let picked = row == sel
            if picked { buf.fill(Rect(x: 0, y: y, width: rect.width, height: 1), role: .rowSelected) }
            let base: Role = picked ? .rowSelected : .normal
            switch row {
            case .event(let i):
                let e = s.events[i]
                let lastR = s.requests[e.attempts.last!]
                var x = buf.put(" ", x: 0, y: y, role: base)
                x = column(&buf, e.id, Columns.id, x: x, y: y, role: base)
                x = column(&buf, e.name, c.name, x: x, y: y, role: base)
                x = column(&buf, e.format.rawValue, Columns.format, x: x, y: y, role: base)
                x = column(&buf, String(e.attemptCount), Columns.att, x: x, y: y, role: base)
                x = column(
                    &buf, lastR.answer.word, Columns.last, x: x, y: y, role: picked ? base : answerRole(lastR.answer))
                x = column(&buf, AppView.shortDuration(m.now - lastR.time), Columns.seen, x: x, y: y, role: base)
                if let (p, st) = m.profile {
                    let v = Conformance.verdict(e, in: s, profile: p, settings: st, endedAt: m.now)
                    x = column(
                        &buf, v.kind.rawValue, Columns.verdict, x: x, y: y, role: picked ? base : verdictRole(v.kind))
                    let pr = Conformance.prediction(after: lastR, attempt: e.attemptCount, profile: p, settings: st)
                    buf.put(nextText(pr, now: m.now, g: g), x: x, y: y, role: base, limit: max(0, rect.width - x))
                }
            case .request(let i):
                let r = s.requests[i]
                var x = buf.put(" ", x: 0, y: y, role: base)
                x = column(&buf, r.method, Columns.id, x: x, y: y, role: base)
                x = column(&buf, r.target, c.name, x: x, y: y, role: base)
                x = column(&buf, "unrecog.", Columns.format, x: x, y: y, role: picked ? base : .logWarning)
                x = column(&buf, "", Columns.att, x: x, y: y, role: base)
                x = column(&buf, r.answer.word, Columns.last, x: x, y: y, role: picked ? base : answerRole(r.answer))
                x = column(&buf, AppView.shortDuration(m.now - r.time), Columns.seen, x: x, y: y, role: base)
                buf.put(firstBytes(r.body, 40), x: x, y: y, role: picked ? base : .dim, limit: max(0, rect.width - x))
            }
        }
    }

    /// A cell of `w` columns (cut with the ellipsis) and the space after it; the next x.
    static func column(_ buf: inout ScreenBuffer, _ text: String, _ w: Int, x: Int, y: Int, role: Role) -> Int {
        buf.put(text, x: x, y: y, role: role, limit: w)
        return x + w + 1
    }

    /// When the profile predicts the next attempt, from now: `in 1.2s-2.0s`,
    /// `due (0.4s left)`, `overdue`; or what it ends in, or `kept`.
    static func nextText(_ p: Conformance.Prediction, now: Millis, g: Glyphs) -> String {
        switch p.expectation.next {
        case .kept: return "kept"
        case .end(let what): return "none: " + what
        case .retry:
            guard let w = p.window else { return "" }
            if now < w.from {
                return "in " + AppView.shortDuration(w.from - now) + "-" + AppView.shortDuration(w.to - now)
            }
            if now <= w.to { return "due (" + AppView.shortDuration(w.to - now) + " left)" }
            return "overdue"
        }
    }

    static func answerRole(_ a: Answer) -> Role {
        switch a {
        case .ok, .partial: return .stateDelivered
        case .status(let s), .retryAfter(let s, _):
            return (200...299).contains(s) ? .stateDelivered : (s == 429 || s >= 500) ? .stateRetrying : .stateDropped
        case .timeout, .lost, .reset: return .stateDropped
        }
    }

    static func verdictRole(_ k: Conformance.Verdict.Kind) -> Role {
        switch k {
        case .conforms: return .stateDelivered
        case .diverges: return .stateDropped
        case .undecided: return .stateRetrying
        }
    }

    /// A body's first bytes as text, escaped (a binary body shows its escapes).
    static func firstBytes(_ body: [UInt8], _ n: Int) -> String {
        guard !body.isEmpty else { return "(no body)" }
        return SafeText.escaped(String(decoding: body.prefix(n * 4), as: UTF8.self), max: n)
    }

    // MARK: The detail

    static func detailTitle(_ m: ServeModel, _ s: ServeSession) -> String {
        switch m.selectedRow(s) {
        case .event(let i)?:
            let e = s.events[i]
            return SafeText.escaped(e.name, max: 40) + " " + SafeText.escaped(e.id, max: 40)
        case .request(let i)?: return "request \(i + 1): " + SafeText.escaped(s.requests[i].target, max: 60)
        case nil: return "Detail"
        }
    }

    /// The selected row's detail, a line each (scrolled by the model): each
    /// attempt's time, method, path, answer, notable headers and the gap to the
    /// one before beside the profile's window; then the latest payload.
    static func detailLines(_ m: ServeModel, _ s: ServeSession, width: Int) -> [(String, Role)] {
        var out: [(String, Role)] = []
        let wrapW = max(20, width - 4)
        func add(_ text: String, _ role: Role = .normal, indent: String = "") {
            for (k, l) in AppView.wrap(text, width: wrapW - indent.count).enumerated() {
                out.append(((k == 0 ? "" : "  ") + indent + l, role))
            }
        }
        func headers(_ r: ServeSession.Request) {
            let hs = s.headers(of: r)
            guard !hs.isEmpty else { return }
            add(
                hs.map { $0.name + ": " + SafeText.escaped($0.value, max: 80) }.joined(separator: " · "), .dim,
                indent: "   ")
        }
        switch m.selectedRow(s) {
        case nil:
            out.append(("Nothing yet: each event the SDK sends gets a row above.", .dim))
        case .request(let i)?:
            let r = s.requests[i]
            add("\(VirtualTime.clock(r.time))  \(r.method) \(SafeText.escaped(r.target, max: 200))  → \(r.answer.word)")
            add("unrecognised: " + (r.problem ?? "no events"), .logWarning, indent: "   ")
            headers(r)
            payload(r, into: &out)
        case .event(let i)?:
            let e = s.events[i]
            add(
                "\(e.format.rawValue) \(e.kind) · \(e.attemptCount) attempt\(e.attemptCount == 1 ? "" : "s") · "
                    + (e.delivered ? "answered 2xx" : "never answered 2xx"))
            if let (p, st) = m.profile {
                let v = Conformance.verdict(e, in: s, profile: p, settings: st, endedAt: m.now)
                add(v.kind.rawValue + (v.why.isEmpty ? "" : ": " + v.why), verdictRole(v.kind))
            }
            let rs = e.attempts.map { s.requests[$0] }
            for (k, r) in rs.enumerated() {
                let ra = r.answer.retryAfter.map { " (Retry-After \((($0 + 999) / 1000))s)" } ?? ""
                add(
                    "#\(k + 1) \(VirtualTime.clock(r.time))  \(r.method) \(SafeText.escaped(r.target, max: 120))  → "
                        + r.answer.withoutRetryAfter.word + ra, k + 1 == rs.count ? .normal : .normal)
                if k > 0 { add(gapText(m, rs[k - 1], attempt: k, r), .dim, indent: "   ") }
                headers(r)
            }
            if let (p, st) = m.profile, let last = rs.last {
                let pr = Conformance.prediction(after: last, attempt: rs.count, profile: p, settings: st)
                add(
                    "next: " + predictionText(pr, p, after: rs.count) + " · " + nextText(pr, now: m.now, g: .unicode),
                    .dim)
            }
            if let last = rs.last { payload(last, into: &out, attempt: rs.count) }
        }
        return out
    }

    /// `gap 2.2s after #1's answer; posthog-python predicts 2s ± 300ms (rule PHP-5)`.
    static func gapText(_ m: ServeModel, _ prev: ServeSession.Request, attempt n: Int, _ r: ServeSession.Request)
        -> String
    {
        guard let (p, st) = m.profile else {
            return "gap " + VirtualTime.duration(max(0, r.time - (prev.time + prev.delay))) + " after #\(n)'s answer"
        }
        let pr = Conformance.prediction(after: prev, attempt: n, profile: p, settings: st)
        return "gap " + VirtualTime.duration(max(0, r.time - pr.answeredAt)) + " after #\(n)'s answer; "
            + predictionText(pr, p, after: n)
    }

    /// What the profile predicts after attempt n, with its rule.
    static func predictionText(_ pr: Conformance.Prediction, _ p: Profile, after n: Int) -> String {
        let rule = "(rule " + p.rule(pr.expectation.rule).id + ")"
        switch pr.expectation.next {
        case .retry(let low, let high): return "\(p.name) predicts " + Conformance.window(low, high) + " " + rule
        case .kept: return "\(p.name) keeps it for a later send: any time " + rule
        case .end(let what): return "\(p.name) ends there: " + what + " " + rule
        }
    }

    /// The payload, pretty-printed when it is JSON, escaped, a line each (at most 2,000).
    static func payload(_ r: ServeSession.Request, into out: inout [(String, Role)], attempt: Int? = nil) {
        let whose = attempt.map { "attempt \($0)'s payload" } ?? "payload"
        guard !r.body.isEmpty else {
            out.append((r.bodyBytes > 0 ? whose + ": \(r.bodyBytes) bytes, not kept" : whose + ": none", .dim))
            return
        }
        out.append((whose + " (\(r.bodyBytes) bytes as sent):", .paneTitle))
        let text = JSONValue.parse(r.body)?.pretty() ?? String(decoding: r.body, as: UTF8.self)
        for l in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(2000) {
            out.append(("  " + SafeText.escaped(String(l), max: 400), .normal))
        }
    }

    // MARK: The log

    /// The log's last `n` lines, `skip` lines up from the end: the session's
    /// log (plans, network, breakpoints) and a line per request, by time.
    static func logLines(_ s: ServeSession, last n: Int, skip: Int) -> [(String, Role)] {
        var out: [(String, Role)] = []
        var i = s.log.count - 1, j = s.requests.count - 1, skipped = 0
        while out.count < n && (i >= 0 || j >= 0) {
            let takeLog = i >= 0 && (j < 0 || s.log[i].time > s.requests[j].time)
            let line: (String, Role)
            if takeLog {
                line = (VirtualTime.clock(s.log[i].time) + "  " + s.log[i].text, .logOutbox)
                i -= 1
            } else {
                line = (requestLine(s, s.requests[j]), s.requests[j].format == nil ? .logWarning : .logBackend)
                j -= 1
            }
            if skipped < skip {
                skipped += 1
            } else {
                out.append(line)
            }
        }
        return out.reversed()
    }

    static func requestLine(_ s: ServeSession, _ r: ServeSession.Request) -> String {
        let what: String
        if r.format != nil {
            let names = r.carried.prefix(3).map { c in
                SafeText.escaped(s.events[Int(c.event)].name, max: 30) + (c.attempt > 1 ? " #\(c.attempt)" : "")
            }
            what =
                (r.format?.rawValue ?? "") + " "
                + (names.isEmpty ? "no events" : names.joined(separator: ", "))
                + (r.carried.count > 3 ? ", +\(r.carried.count - 3)" : "")
        } else {
            what = "unrecognised"
        }
        return VirtualTime.clock(r.time) + "  " + r.method + " " + SafeText.escaped(r.target, max: 60) + "  " + what
            + "  → " + r.answer.word
    }

    // MARK: The status bar and the held request

    static func status(_ buf: inout ScreenBuffer, _ m: ServeModel, _ s: ServeSession, y: Int, g: Glyphs) {
        let w = buf.width
        var typed: String?
        if case .command(let t) = m.mode { typed = t }
        if AppView.statusLine(&buf, typing: typed, message: m.message, y: y, g: g) { return }
        if case .chooseAnswer(let c) = m.mode {
            buf.put(" " + AppView.chooserPrompt(c), x: 0, y: y, role: .statusBar)
            return
        }
        if !s.held.isEmpty, m.mode == .normal {
            buf.put(
                " held: a letter picks its answer, R a Retry-After, Enter answers (none picked: the plan's)", x: 0,
                y: y, role: .statusBar)
            return
        }
        var x = 0
        for b in ServeKeys.bindings {
            guard var label = b.status else { continue }
            if b.action == .toggleNetwork { label = s.online ? "offline" : "online" }
            if b.action == .breakpoint {
                switch s.breakpoint {
                case nil: label = "break"
                case .next?: label = m.selectedNameAndKind(s) == nil ? "break off" : "break by name"
                case .name?: label = "break off"
                }
            }
            if b.action == .detail && m.focus == .detail { label = "list" }
            let key = b.keys[0].label(ascii: g.isASCII)
            guard x + key.count + label.count + 2 <= w else { break }
            x = buf.put(" " + key, x: x, y: y, role: .statusKey)
            x = buf.put(" " + label, x: x, y: y, role: .statusBar)
        }
    }

    /// The request held at the breakpoint: its method, path, events and payload,
    /// and the answers a key gives it.
    static func heldBox(
        _ buf: inout ScreenBuffer, _ m: ServeModel, _ s: ServeSession, _ h: ServeSession.Held, g: Glyphs
    ) {
        let w = min(buf.width - 4, 76)
        let hgt = min(buf.height - 4, 16)
        let r = Rect(x: (buf.width - w) / 2, y: 2, width: w, height: hgt)
        let more = s.held.count > 1 ? " (1 of \(s.held.count))" : ""
        AppView.box(&buf, r, title: "Held at the breakpoint" + more, g: g)
        var lines: [(String, Role)] = []
        let inner = w - 4
        lines.append(
            (
                "\(h.request.method) \(SafeText.escaped(h.request.target, max: 120))  "
                    + (h.reading.format?.rawValue ?? "unrecognised") + "  came \(VirtualTime.clock(h.time)), held "
                    + VirtualTime.duration(max(0, m.now - h.time)), .normal
            ))
        let names = h.reading.events.prefix(4).map {
            SafeText.escaped($0.name, max: 30) + " (" + SafeText.escaped($0.id, max: 24) + ")"
        }
        lines.append(
            (
                "events: " + (names.isEmpty ? (h.reading.problem ?? "none") : names.joined(separator: ", "))
                    + (h.reading.events.count > 4 ? ", +\(h.reading.events.count - 4)" : ""), .normal
            ))
        let picks = AppModel.answerChoices.map { "\(Character($0.key)) \($0.answer.word)" }.joined(separator: "  ")
        let answerRows = AppView.wrap(picks, width: inner)
        let picked =
            "answer: " + (m.heldAnswer.map { $0.word } ?? "the plan's (pick a letter)")
            + "  · Enter sends it · R retry-after · Esc unpicks"
        let bodyRoom = max(0, hgt - 2 - lines.count - answerRows.count - 2)
        let text =
            JSONValue.parse(h.reading.body)?.pretty() ?? String(decoding: h.reading.body.prefix(4096), as: UTF8.self)
        for l in text.split(separator: "\n").prefix(bodyRoom) {
            lines.append(("  " + SafeText.escaped(String(l), max: 200), .dim))
        }
        var y = r.y + 1
        for l in lines where y < r.maxY - 1 {
            buf.put(AppView.glyphText(l.0, g), x: r.x + 2, y: y, role: l.1, limit: inner)
            y += 1
        }
        y = r.maxY - 2 - answerRows.count
        for a in answerRows {
            buf.put(a, x: r.x + 2, y: y, role: .helpKey, limit: inner)
            y += 1
        }
        buf.put(AppView.glyphText(picked, g), x: r.x + 2, y: r.maxY - 2, role: .help, limit: inner)
    }
}

extension AppView {
    /// A screen's buffer at the size curses draws (`drawnSize`), with the glyphs' cut mark and ASCII.
    static func screen(width: Int, height: Int, glyphs g: Glyphs) -> ScreenBuffer {
        let d = drawnSize(width: width, height: height)
        var buf = ScreenBuffer(width: d.width, height: d.height)
        buf.cutMark = g.ellipsis.unicodeScalars.first!
        buf.ascii = g.isASCII
        return buf
    }

    /// The notice of a terminal smaller than `minWidth` × `minHeight`, centred, and what goes on meanwhile.
    static func tooSmall(_ buf: inout ScreenBuffer, _ command: String, width: Int, height: Int, then: String) {
        let lines = [
            "\(command) needs at least \(minWidth)×\(minHeight);", "this terminal is \(width)×\(height).", then,
        ]
        for (i, l) in lines.enumerated() {
            buf.put(l, x: max(0, (buf.width - l.count) / 2), y: max(0, buf.height / 2 - 1) + i, role: .notice)
        }
    }
}

extension AppView {
    /// The status bar of serve's and the fleet's screens while a `:` line is
    /// typed (its end, if long) or a message shows; false: the bar is the keys'.
    static func statusLine(
        _ buf: inout ScreenBuffer, typing: String?, message: (text: String, isError: Bool)?, y: Int, g: Glyphs
    ) -> Bool {
        let w = buf.width
        buf.fill(Rect(x: 0, y: y, width: w, height: 1), role: .statusBar)
        if let t = typing {
            buf.fill(Rect(x: 0, y: y, width: w, height: 1), role: .commandLine)
            let room = max(1, w - 2)
            let shown = t.unicodeScalars.count > room ? g.ellipsis + String(t.unicodeScalars.suffix(room - 1)) : t
            buf.put(":" + shown + "_", x: 0, y: y, role: .commandLine)
            return true
        }
        if let msg = message {
            buf.fill(Rect(x: 0, y: y, width: w, height: 1), role: msg.isError ? .error : .notice)
            buf.put(" " + glyphText(msg.text, g), x: 0, y: y, role: msg.isError ? .error : .notice)
            return true
        }
        return false
    }
}
