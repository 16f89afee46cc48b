import OutboxCore

/// The screen as a function of the model and its size.
public enum AppView {
    public static let minWidth = 60
    public static let minHeight = 15
    /// The most the screen draws (issue 22): a bigger terminal (tmux allows
    /// 10000×10000) gets its top-left 1000×500, the last row of it saying so,
    /// and the rest stays blank. A frame's cost is bounded by this, whatever the size.
    public static let maxWidth = 1000
    public static let maxHeight = 500

    /// The part of a terminal of this size that is drawn.
    public static func drawnSize(width: Int, height: Int) -> (width: Int, height: Int) {
        (min(width, maxWidth), min(height, maxHeight))
    }

    /// The line under the drawn area of a terminal bigger than it, or nil.
    public static func bigNotice(width: Int, height: Int) -> String? {
        guard width > maxWidth || height > maxHeight else { return nil }
        let d = drawnSize(width: width, height: height)
        return
            "This terminal is \(width)×\(height); Outbox draws its top-left \(d.width)×\(d.height) and leaves the rest blank."
    }

    /// Draws the whole screen: at most `maxWidth` × `maxHeight` cells, however big
    /// the terminal (the buffer is that size: the terminal draws no more).
    public static func render(_ m: AppModel, width: Int, height: Int, glyphs g: Glyphs = .unicode) -> ScreenBuffer {
        guard let notice = bigNotice(width: width, height: height) else {
            return renderScreen(m, width: width, height: height, glyphs: g)
        }
        let d = drawnSize(width: width, height: height)
        var buf = renderScreen(m, width: d.width, height: d.height - 1, glyphs: g)
        buf.grow(toHeight: d.height)
        buf.put(notice, x: 0, y: d.height - 1, role: .notice, limit: d.width)
        return buf
    }

    static func renderScreen(_ m: AppModel, width: Int, height: Int, glyphs g: Glyphs) -> ScreenBuffer {
        var buf = ScreenBuffer(width: width, height: height)
        buf.cutMark = g.ellipsis.unicodeScalars.first!
        buf.ascii = g.isASCII
        guard width >= minWidth, height >= minHeight else {
            tooSmall(&buf)
            return buf
        }
        if m.isComparing {
            renderCompare(m, &buf, width: width, height: height, g: g)
            return buf
        }
        let head = headerLines(m, width: width, g: g)
        let L = paneRects(m, width: width, height: height, headerRows: head.count)
        let y = drawHeader(&buf, head, width: width)
        tabs(&buf, m, y: y, width: width, g: g)
        list(&buf, m, rect: L.list, g: g)
        separator(
            &buf, y: L.detail.y - 1, width: width, title: detailTitle(m), focused: m.focus == .detail,
            rightTitle: "Backend", rightX: L.backend.x - 1, g: g)
        // The line under the list says which rows it shows; with the detail focused,
        // which of the detail's lines show instead (detailHistoryDraw).
        if m.focus != .detail {
            listPosition(&buf, m, rows: L.list.height - 1, y: L.detail.y - 1, rightX: L.backend.x - 1)
        }
        detail(&buf, m, rect: L.detail, g: g)
        backend(&buf, m, rect: L.backend, g: g)
        separator(
            &buf, y: L.log.y - 1, width: width, title: logTitle(m), focused: m.focus == .log, rightTitle: nil,
            rightX: L.backend.x - 1, g: g, joinUp: true)
        // A played file's log interleaves its `expect` results (AppView+Time); otherwise the
        // log pane with its focus, scroll, search and one-request filter (AppView+Panes).
        if m.player != nil { playLog(&buf, m, rect: L.log, g: g) } else { logPane(&buf, m, rect: L.log) }
        if m.detailExpanded { fullDetail(&buf, m, width: width, height: height, headerRows: head.count, g: g) }
        status(&buf, m, y: height - 1, width: width, g: g)
        switch m.mode {
        case .help(let scroll): help(&buf, scroll: scroll, g: g, extra: breakHelpRows(m), profiles: m.profiles)
        case .chooseAnswer(let a): chooser(&buf, chosen: a, g: g)
        case .chooseBreak: breakChooser(&buf, m, g: g)
        default: break
        }
        return buf
    }

    /// Where the panes of one column's screen go.
    struct PaneRects: Equatable, Sendable {
        var list: Rect, detail: Rect, backend: Rect, log: Rect
    }

    /// The rows given to each pane: the list gets the most, the panes below share the rest.
    static func paneRects(_ m: AppModel, width: Int, height: Int, headerRows: Int) -> PaneRects {
        let top = headerRows + 1  // header, tabs
        let free = height - top - 1 - 2  // status bar, two separators
        var logH = max(2, free / 5)
        var detailH = max(4, free * 3 / 10)
        if m.detailExpanded || m.focus == .detail {
            detailH = max(4, free * 6 / 10)
            logH = 2
        } else if m.focus == .log {
            logH = max(2, free * 45 / 100)
            detailH = 4
        }
        let listH = max(3, free - logH - detailH)
        let list = Rect(x: 0, y: top, width: width, height: listH)
        let backendW = width >= 100 ? 34 : 26
        let detail = Rect(x: 0, y: list.maxY + 1, width: width - backendW - 1, height: detailH)
        let backend = Rect(x: width - backendW, y: detail.y, width: backendW, height: detailH)
        let log = Rect(x: 0, y: detail.maxY + 1, width: width, height: height - 1 - (detail.maxY + 1))
        return PaneRects(list: list, detail: detail, backend: backend, log: log)
    }

    static func tooSmall(_ buf: inout ScreenBuffer) {
        let lines = [
            "Outbox needs at least \(minWidth)×\(minHeight);", "this terminal is \(buf.width)×\(buf.height).",
            "Make it larger, or press q to quit.", "The clock is paused until it is larger.",
        ]
        let top = max(0, buf.height / 2 - 1)
        for (i, l) in lines.enumerated() {
            let x = max(0, (buf.width - l.count) / 2)
            buf.put(l, x: x, y: top + i, role: .notice)
        }
    }

    // MARK: Header

    /// Draws the header's rows (as `headerLines` made them); returns the row after them.
    static func drawHeader(_ buf: inout ScreenBuffer, _ head: [[(String, Role)]], width: Int) -> Int {
        for (y, line) in head.enumerated() {
            buf.fill(Rect(x: 0, y: y, width: width, height: 1), role: .header)
            var x = 0
            for (text, role) in line { x = buf.put(text, x: x, y: y, role: role) }
        }
        return head.count
    }

    /// The header's segments in one or two rows, whole; `short` words when the
    /// full ones would run past the second row's end (80 columns, a flush under way).
    static func headerLines(_ m: AppModel, width: Int, g: Glyphs, short: Bool = false) -> [[(String, Role)]] {
        let s = m.sim
        var clock: [(String, Role)] = [(" " + VirtualTime.clock(s.now).dropLast(2) + " ", .header)]
        clock.append(speedSegment(m, g: g))
        var segs: [[(String, Role)]] = [
            [(" OUTBOX ", .headerAccent), ((m.isComparing ? "compare" : s.profile.rawValue) + " ", .header)]
        ]
        // A recording that stopped stays said, first after the name, so no row cut hides it.
        if let stopped = stoppedText(m) { segs.append([(" " + stopped + " ", .error)]) }
        segs += [
            clock,
            [
                (
                    " net " + g.dot + " " + (s.online ? "online " : "offline ") + flapText(s)
                        + (s.markedOffline ? "(SDK offline) " : ""),
                    s.online && !s.markedOffline ? .online : .offline
                )
            ],
        ]
        if m.isComparing {
            segs += compareHeader(m, g: g)
        } else if s.profile.hasConsentGate {
            let role: Role =
                s.consent == .granted ? .consentGranted : (s.consent == .denied ? .consentDenied : .consentUndecided)
            let req = short ? " " : (s.settings.requireConsent ? " (required) " : " (not required) ")
            segs.append([(" consent " + consentMark(s.consent, g) + s.consent.word + req, role)])
        }
        if !m.isComparing {
            let plans = s.plans.headerText(short: short)
            segs.append([(" backend " + plans + " ", plans == "ok" ? .header : .headerAccent)])
            if s.settings.latencyJitter > 0 { segs.append([(jitterText(s), .headerAccent)]) }
        }
        if !m.isComparing && s.profile.hasFlush {
            let why = short ? "" : " (\(s.flushTriggerText))"
            let f =
                s.flush.active
                ? "flush running\(why) \(g.sep) sent \(s.flush.sent) \(g.sep) \(s.count(.queued)) left"
                : "flush idle"
            segs.append([(" " + f + " ", s.flush.active ? .headerAccent : .header)])
        }
        if !m.isComparing {
            // In the background (Policy/Lifecycle.swift) the app is said to be there.
            let app = !s.appRunning ? " app closed " : (s.inBackground ? " app in background " : " app running ")
            segs.append([(app, s.appRunning && !s.inBackground ? .header : .headerAccent)])
        }
        // Fill one or two rows, in order, keeping whole segments.
        var rows: [[(String, Role)]] = [[]]
        var used = 0
        let maxRows = 2
        for seg in segs {
            // A separator between segments only: a row may end at the screen's edge.
            let w = seg.reduce(0) { $0 + $1.0.count } + (used > 0 ? 1 : 0)
            if used + w > width && rows.count < maxRows && used > 0 {
                rows.append([])
                used = 0
            }
            if used > 0 { rows[rows.count - 1].append((g.vLine, .header)) }
            rows[rows.count - 1] += seg
            used += w
        }
        if !short && used > width { return headerLines(m, width: width, g: g, short: true) }
        return rows
    }

    /// `recording stopped`, `cast stopped` or both (`--record`, `--cast` on a full disk), or nil.
    static func stoppedText(_ m: AppModel) -> String? {
        switch (m.recordingStopped, m.castStopped) {
        case (true, true): return "recording and cast stopped"
        case (true, false): return "recording stopped"
        case (false, true): return "cast stopped"
        case (false, false): return nil
        }
    }

    /// `flap 5s/2s ` while the network flaps (FLAP), else "".
    static func flapText(_ s: Simulation) -> String {
        guard let f = s.flap else { return "" }
        return "flap \(VirtualTime.duration(f.up))/\(VirtualTime.duration(f.down)) "
    }

    /// ` lat ±50ms ` (LATJITTER).
    static func jitterText(_ s: Simulation) -> String {
        " lat ±" + VirtualTime.duration(s.settings.latencyJitter) + " "
    }

    // MARK: Tabs

    static func tabs(_ buf: inout ScreenBuffer, _ m: AppModel, y: Int, width: Int, g: Glyphs) {
        if let b = m.banner {
            buf.fill(Rect(x: 0, y: y, width: width, height: 1), role: .banner)
            // The banner takes the tabs' row: the device's saved count (what the
            // purge left) stays at its right end, where the tabs show it.
            let saved = " saved \(m.sim.savedCount) "
            let room = width - saved.count
            let x = buf.put(" " + b.text, x: 0, y: y, role: .banner, limit: max(0, room - 1))
            if x < room { buf.put(saved, x: room, y: y, role: .banner) }
            return
        }
        var x = buf.put(width < 100 ? "" : " Requests ", x: 0, y: y, role: .paneTitle)
        // Where each tab goes comes from `tabSpans`, which the mouse's hit-test reads too.
        for span in tabSpans(m, width: width) {
            let role: Role = span.tab == m.tab ? .tabActive : (span.tab.state.map(stateRole) ?? .tab)
            x = buf.put(span.text, x: span.x, y: y, role: role)
        }
        if !m.nameFilter.isEmpty || { if case .filter = m.mode { return true } else { return false } }() {
            x = buf.put(" /" + m.nameFilter, x: x + 1, y: y, role: .notice)
        }
        x = buf.put(" saved \(m.sim.savedCount)", x: x + 1, y: y, role: .dim)
    }

    /// The mark before the consent's word and its space: `✓ `, `✗ `, `? `; none
    /// in ASCII, where `v granted` read as a word (the word and its colour say it).
    static func consentMark(_ c: Consent, _ g: Glyphs) -> String {
        if g.isASCII { return "" }
        return (c == .granted ? g.check : (c == .denied ? g.cross2 : "?")) + " "
    }

    public static func stateRole(_ s: RequestState) -> Role {
        switch s {
        case .pending: return .statePending
        case .inFlight: return .stateInFlight
        case .retrying: return .stateRetrying
        case .queued: return .stateQueued
        case .delivered: return .stateDelivered
        case .dropped: return .stateDropped
        }
    }

    // MARK: The request list and its timeline

    struct Columns {
        var id = 0, kind = 0, name = 0, state = 0, att = 0, next = 0, last = 0, rule = 0, timeline = 0
        var nameW = 10, timelineW = 0
        /// Narrow: one column says when the next attempt goes (retrying) or what the last answer was.
        var nextInLast = false
    }

    static func columns(width: Int) -> Columns {
        var c = Columns()
        c.nextInLast = width < 100
        let fixed = 6 + 9 + 10 + 6 + (c.nextInLast ? 0 : 8) + 10 + 7
        c.nameW = width >= 140 ? 18 : (width >= 100 ? 14 : 10)
        c.id = 0
        c.kind = 6
        c.name = c.kind + 9
        c.state = c.name + c.nameW
        c.att = c.state + 10
        c.next = c.att + 6
        c.last = c.nextInLast ? c.next : c.next + 8
        c.rule = c.last + 10
        c.timeline = c.rule + 7 + 1
        c.timelineW = max(0, width - (fixed + c.nameW) - 1)
        return c
    }

    /// Milliseconds a compare's timeline column stands for: the zoom, or by speed.
    static func msPerColumn(_ m: AppModel) -> Millis {
        if let z = m.timelineZoom { return TimelineAxis.ladder[z] }
        // By the speed's value (virtual ms a wall second), not its index: the list of speeds may grow.
        let rate = m.clockSpeed.msPerSecond
        return rate <= 1000 ? 1000 : (rate <= 10_000 ? 5000 : (rate <= 60_000 ? 30_000 : 300_000))
    }

    /// The retry budget in the detail: what of it this run used, and the attempts
    /// it does not account for (a flush's sends, earlier runs) said as such.
    static func budgetText(_ r: Request, _ s: Simulation) -> String {
        let budget = s.settings.retryAttempts
        let inBudget = min(Int(r.budgetUsed), budget)
        let beyond = Int(r.attempts) - inBudget
        guard beyond > 0 else { return "budget \(inBudget)/\(budget)" }
        let why: String
        if let send = s.profile.flushSendRule {
            why = "by flushes (\(s.profile.rule(send).id))"
        } else if let rule = s.profile.launchResendRule {
            why = "after relaunches (\(s.profile.rule(rule).id))"
        } else {
            why = "after relaunches"
        }
        return "budget \(inBudget)/\(budget), +\(beyond) \(why)"
    }

    /// What the att column shows: attempts out of the retry budget while the
    /// budget accounts for every attempt; past that (a flush, a later launch sent
    /// it again), the plain count, so it never reads `4/3` (the detail says why).
    static func attemptsText(_ r: Request, budget: Int) -> String {
        guard budget > 0, r.attempts == r.budgetUsed, Int(r.attempts) <= budget else { return "\(r.attempts)" }
        return "\(r.attempts)/\(budget)"
    }

    static func list(_ buf: inout ScreenBuffer, _ m: AppModel, rect: Rect, g: Glyphs) {
        let c = columns(width: rect.width)
        let y0 = rect.y
        buf.fill(Rect(x: 0, y: y0, width: rect.width, height: 1), role: .columnHeader)
        for (x, t) in [
            (c.id, "    #"), (c.kind, "kind"), (c.name, "name"), (c.state, "state"), (c.att, "att"),
            (c.next, c.nextInLast ? "next/last" : "next"), (c.last, "last"), (c.rule, "rule"),
        ]
        where !(c.nextInLast && x == c.last && t == "last") {
            buf.put(t, x: x, y: y0, role: .columnHeader)
        }
        // The sorted column's title is marked just before it (the column before ends in a space).
        if m.sort != .id {
            let x = [
                ListSort.id: c.id + 3, .name: c.name - 1, .state: c.state - 1, .attempts: c.att - 1, .next: c.next - 1,
            ][m.sort]!
            buf.put(sortMark(g), x: x, y: y0, role: .columnHeader)
        }
        let rows = rect.height - 1
        let n = m.rowCount
        if n == 0 {
            let hint = m.emptyListHint
            if let why = m.emptyFilterReason {
                for (i, l) in wrap(why, width: rect.width - 4).prefix(max(1, rect.height - 1)).enumerated() {
                    buf.put("  " + l, x: 0, y: y0 + 1 + i, role: .notice, limit: rect.width - 2)
                }
            } else {
                buf.put("  " + hint, x: 0, y: y0 + 1, role: .dim)
            }
        }
        let ids = visibleIDs(m, rows: rows)
        let window = c.timelineW > 8 ? timelineWindow(m, ids: ids, cols: c.timelineW) : nil
        if let w = window {
            buf.put(g.vLine, x: c.timeline - 1, y: y0, role: .border)
            timelineHeading(&buf, axis: w.axis, x: c.timeline, y: y0, width: c.timelineW, zoomed: m.timelineZoom != nil)
        }
        for (i, id) in ids.enumerated() {
            let y = y0 + 1 + i
            let r = m.sim.request(id)
            let sel = id == m.selected
            let base: Role = sel ? .rowSelected : .normal
            if sel { buf.fill(Rect(x: 0, y: y, width: c.timeline - 1, height: 1), role: .rowSelected) }
            buf.put(pad("\(id)", 5, right: true), x: c.id, y: y, role: base)
            buf.put(m.sim.word(r.kind), x: c.kind, y: y, role: base, limit: 8)
            buf.put(m.sim.names[Int(r.nameID)], x: c.name, y: y, role: base, limit: c.nameW - 1)
            buf.put(r.state.word, x: c.state, y: y, role: sel ? .rowSelected : stateRole(r.state), limit: 9)
            buf.put(attemptsText(r, budget: m.sim.settings.retryAttempts), x: c.att, y: y, role: base, limit: 5)
            let waiting = r.state == .retrying && r.nextAttemptAt >= 0
            if waiting {
                buf.put("in " + shortDuration(r.nextAttemptAt - m.sim.now), x: c.next, y: y, role: base, limit: 7)
            }
            if !(waiting && c.nextInLast) {
                let last =
                    r.state == .dropped
                    ? (r.reason?.word ?? "") : (r.state == .inFlight ? g.ellipsis : r.lastOutcome.word)
                buf.put(
                    last, x: c.last, y: y, role: r.state == .dropped ? (sel ? base : .stateDropped) : base, limit: 9)
            }
            buf.put(m.sim.profile.rule(r.rule).id, x: c.rule, y: y, role: base, limit: 6)
            if let w = window {
                buf.put(g.vLine, x: c.timeline - 1, y: y, role: .border)
                let x0 = c.timeline + (w.leftEdge ? 1 : 0)
                let cells = timeline(m.sim, w.histories[i], axis: w.axis, g: g)
                for (k, cell) in cells.enumerated() { buf[x0 + k, y] = cell }
                // Where the row's life goes on past an edge, the edge says so.
                let (left, right) = beyond(w.axis, w.histories[i], now: m.sim.now)
                if w.leftEdge && left { buf.put(g.tlMoreLeft, x: c.timeline, y: y, role: .dim) }
                if w.rightEdge && right { buf.put(g.tlMoreRight, x: x0 + w.axis.count, y: y, role: .dim) }
            }
        }
    }

    /// The ids of the rows the list shows.
    static func visibleIDs(_ m: AppModel, rows: Int) -> [Int32] {
        let n = m.rowCount
        if m.listIsPlain { return (m.top..<min(n, m.top + rows)).map { Int32($0 + 1) } }
        let all = m.filteredIDs
        return Array(all[min(m.top, all.count)..<min(all.count, m.top + rows)])
    }

    /// Which rows of how many the list shows, on the line under it (never over a row).
    static func listPosition(_ buf: inout ScreenBuffer, _ m: AppModel, rows: Int, y: Int, rightX: Int) {
        let n = m.rowCount
        guard n > rows else { return }
        let info = " \(m.top + 1)-\(min(n, m.top + rows)) of \(n) "
        buf.put(info, x: max(0, rightX - 1 - info.count), y: y, role: .dim)
    }

    /// One request's life on a time axis: attempts, answers, backoff waits, queued
    /// time, offline stretches, the end.
    public static func timeline(_ sim: Simulation, _ id: Int32, start: Millis, msPerCol: Millis, cols: Int, g: Glyphs)
        -> [Cell]
    {
        var cells = [Cell](repeating: Cell(" ", .timelineAxis), count: cols)
        guard cols > 0 else { return cells }
        func col(_ t: Millis) -> Int { Int((t - start) / msPerCol) }
        func set(_ c: Int, _ s: String, _ role: Role) {
            guard c >= 0, c < cols, let u = s.unicodeScalars.first else { return }
            cells[c] = Cell(u, role)
        }
        let hist = sim.history(of: id)
        // Whether the device was online, asked for moments that only grow: one walk
        // over the network changes per row, not one per cell.
        let changes = sim.networkChanges
        var next = 0, online = true
        func onlineAt(_ t: Millis) -> Bool {
            while next < changes.count && changes[next].time <= t {
                online = changes[next].online
                next += 1
            }
            return online
        }
        // Segments: how the request waited between transitions.
        for (i, tr) in hist.enumerated() where !tr.to.isFinal {
            let end = i + 1 < hist.count ? hist[i + 1].time : sim.now
            if end == tr.time && i + 1 < hist.count { continue }
            let (a, b) = (max(0, col(tr.time)), min(cols - 1, col(end)))
            guard a <= b else { continue }
            for c in a...b {
                let t = start + Millis(c) * msPerCol
                let offline = !onlineAt(max(t, tr.time))
                switch tr.to {
                case .retrying: set(c, offline ? g.tlOffline : g.tlWait, offline ? .timelineOffline : .timelineWait)
                case .queued, .pending:
                    set(c, offline ? g.tlOffline : g.tlPending, offline ? .timelineOffline : .timelineAxis)
                default: break
                }
            }
        }
        // Marks, later ones on top.
        for (i, tr) in hist.enumerated() {
            let c = col(tr.time)
            // As in the list: one mark per attempt (`showsSend`).
            if tr.to == .inFlight && showsSend(hist, i, step: msPerCol) { set(c, g.tlAttempt, .timelineAttempt) }
            if tr.from == .inFlight && tr.to != .inFlight {
                if tr.to == .delivered {
                    set(c, g.tlOk, .timelineOk)
                } else if tr.outcome.isNone {
                    set(
                        c, tr.to == .dropped ? g.tlDropped : g.tlQueued,
                        tr.to == .dropped ? .timelineFinal : .stateQueued)
                } else {
                    set(c, g.tlFail, .timelineFail)
                }
            }
            if tr.to == .dropped && (tr.from != .inFlight || tr.outcome.isNone) { set(c, g.tlDropped, .timelineFinal) }
            if tr.to == .delivered && tr.from != .inFlight { set(c, g.tlOk, .timelineOk) }
            if tr.to == .queued && tr.from != .inFlight && tr.from != nil { set(c, g.tlQueued, .stateQueued) }
        }
        return cells
    }

    // MARK: Detail, backend, log

    static func detailTitle(_ m: AppModel) -> String {
        guard let id = m.selected else { return "Detail" }
        return "#\(id) \(m.sim.name(of: id))"
    }

    static func detail(_ buf: inout ScreenBuffer, _ m: AppModel, rect: Rect, g: Glyphs) {
        guard let id = m.selected else {
            buf.put(
                " select a request (j/k) to see why it did what it did", x: rect.x, y: rect.y, role: .dim,
                limit: rect.width)
            return
        }
        let s = m.sim
        let r = s.request(id)
        var y = rect.y
        var x = buf.put(" \(s.word(r.kind)) ", x: rect.x, y: y, role: .normal, limit: rect.width)
        x = buf.put(r.state.word, x: x, y: y, role: stateRole(r.state), limit: rect.maxX - x)
        var facts = ""
        if let reason = r.reason { facts += " (\(reason.word))" }
        let sep = " " + g.sep + " "
        facts += "  attempts \(r.attempts)"
        if s.settings.retryAttempts > 0 { facts += sep + budgetText(r, s) }
        if r.state == .retrying { facts += sep + "next in " + shortDuration(r.nextAttemptAt - s.now) }
        facts += r.saved ? sep + "saved" : sep + "not saved"
        if s.profile.completes(r.kind) { facts += sep + "completion " + r.completion.word }
        buf.put(facts, x: x, y: y, role: .normal, limit: rect.maxX - x)
        y += 1
        var facts2 = " created " + VirtualTime.clock(r.createdAt) + (r.restored ? " in an earlier run" : "")
        if let key = s.idempotencyKey(of: id) { facts2 += sep + "key " + key }
        if let v = s.value(of: id) { facts2 += sep + "value " + v.amount.text + " " + v.currency }
        let attrs = s.attributes(of: id)
        if !attrs.isEmpty { facts2 += sep + attrs.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
        buf.put(facts2, x: rect.x, y: y, role: .dim, limit: rect.width)
        y += 1
        detailHistoryDraw(
            &buf, m, id, rect: Rect(x: rect.x, y: y, width: rect.width, height: rect.maxY - y),
            titleY: rect.y - 1, g: g)
    }

    static func backend(_ buf: inout ScreenBuffer, _ m: AppModel, rect: Rect, g: Glyphs) {
        for yy in rect.y..<rect.maxY { buf.put(g.vLine, x: rect.x - 1, y: yy, role: .border) }
        let b = m.sim.backend
        var lines = [
            "received \(b.received)  counted \(b.counted)",
            "duplicates \(b.duplicates)  rejected \(b.rejected)",
        ]
        // A batching profile (Policy/Batching.swift): how many batches brought them.
        if m.sim.isBatching { lines.insert("in \(b.batches) batch\(b.batches == 1 ? "" : "es")", at: 1) }
        let revenue = b.revenue.sorted { m.sim.names[Int($0.key)] < m.sim.names[Int($1.key)] }
        if revenue.isEmpty {
            lines.append("revenue " + g.none)
        } else {
            for (cur, amount) in revenue { lines.append("revenue \(amount.text) \(m.sim.names[Int(cur)])") }
        }
        lines.append("next answer: " + m.sim.plans.all.text)
        for t in m.sim.plans.targeted(first: max(0, rect.height - lines.count)) {
            lines.append(t.target.label + ": " + t.plan.text)
        }
        for (i, l) in lines.prefix(rect.height).enumerated() {
            buf.put(" " + l, x: rect.x, y: rect.y + i, role: .normal, limit: rect.width)
        }
    }

    static func separator(
        _ buf: inout ScreenBuffer, y: Int, width: Int, title: String, focused: Bool, rightTitle: String?,
        rightX: Int, g: Glyphs, joinUp: Bool = false
    ) {
        buf.fill(Rect(x: 0, y: y, width: width, height: 1), g.hLine.unicodeScalars.first!, role: .border)
        buf.put(g.hLine + " ", x: 0, y: y, role: .border)
        // The focused pane's title is marked (not only coloured): `▶ Log` / `> Log`.
        buf.put(
            focused ? g.play + " " + title : title, x: 2, y: y, role: focused ? .paneTitleFocused : .paneTitle,
            limit: max(0, rightX - 4))
        buf.put(joinUp ? g.teeUp : g.teeDown, x: rightX, y: y, role: .border)
        if let r = rightTitle { buf.put(" " + r + " ", x: rightX + 2, y: y, role: .paneTitle) }
    }

    // MARK: Status bar, overlays

    static func status(_ buf: inout ScreenBuffer, _ m: AppModel, y: Int, width: Int, g: Glyphs = .unicode) {
        buf.fill(Rect(x: 0, y: y, width: width, height: 1), role: .statusBar)
        switch m.mode {
        case .command(let t):
            buf.fill(Rect(x: 0, y: y, width: width, height: 1), role: .commandLine)
            // A line longer than the bar (a paste) shows its end, where the typing goes.
            let room = max(1, width - 2)
            let shownText = t.unicodeScalars.count > room ? g.ellipsis + String(t.unicodeScalars.suffix(room - 1)) : t
            let x = buf.put(":" + shownText + "_", x: 0, y: y, role: .commandLine)
            // What Tab found when it could not finish the word.
            if let hint = m.commandLine.hint { buf.put("  " + hint, x: x, y: y, role: .commandLine) }
            return
        case .filter(let t):
            buf.fill(Rect(x: 0, y: y, width: width, height: 1), role: .commandLine)
            buf.put(
                "/" + t + "_  (Enter keeps, Esc clears; rule: kind: state: status: name:)", x: 0, y: y,
                role: .commandLine)
            return
        case .logSearch(let t):
            buf.fill(Rect(x: 0, y: y, width: width, height: 1), role: .commandLine)
            buf.put("/" + t + "_  (search the log: Enter finds, Esc cancels)", x: 0, y: y, role: .commandLine)
            return
        case .chooseAnswer(let c) where m.message?.isError != true:
            buf.put(" " + chooserPrompt(c), x: 0, y: y, role: .statusBar)
            return
        case .chooseFlap where m.message?.isError != true:
            let presets = AppModel.flapChoices.map {
                "\(Character($0.key)) \(VirtualTime.duration($0.up))/\(VirtualTime.duration($0.down))"
            }
            buf.put(" network flap: " + presets.joined(separator: "  ") + "  s stop; Esc", x: 0, y: y, role: .statusBar)
            return
        case .chooseJitter where m.message?.isError != true:
            let presets = AppModel.jitterChoices.map {
                "\(Character($0.key)) " + ($0.jitter == 0 ? "none" : "±" + VirtualTime.duration($0.jitter))
            }
            buf.put(
                " latency \(VirtualTime.duration(m.sim.settings.latency)) jitter: " + presets.joined(separator: "  ")
                    + "; Esc", x: 0, y: y, role: .statusBar)
            return
        case .chooseBreak where m.message?.isError != true:
            buf.put(" breakpoint: press a letter to set or clear it; Esc cancels", x: 0, y: y, role: .statusBar)
            return
        case .exportPath, .confirmReplace:
            exportLine(&buf, m, y: y, width: width)
            return
        default: break
        }
        if let msg = m.message {
            buf.fill(Rect(x: 0, y: y, width: width, height: 1), role: msg.isError ? .error : .notice)
            // One row: a "did you mean" goes before a long list of what was expected, so it is seen.
            let text = msg.isError ? AppModel.suggestionFirst(msg.text) : msg.text
            buf.put(" " + glyphText(text, g), x: 0, y: y, role: msg.isError ? .error : .notice)
            return
        }
        // The keys a newcomer needs next, in the table's order, as many as fit;
        // help and quit always; breakpoints and a play's checks first.
        let keys = timeStatus(m) + statusKeys(m)
        let tail = keys.filter { $0.0 == "?" || $0.0 == "q" }
        var room = width - tail.reduce(0) { $0 + $1.0.count + $1.1.count + 2 }
        var shown: [(String, String)] = []
        for k in keys where k.0 != "?" && k.0 != "q" {
            let w = k.0.count + k.1.count + 2
            if w > room { continue }
            room -= w
            shown.append(k)
        }
        var x = 0
        for (key, label) in shown + tail {
            x = buf.put(" " + key, x: x, y: y, role: .statusKey)
            x = buf.put(" " + label, x: x, y: y, role: .statusBar)
        }
    }

    /// The status bar's keys, in order: a key already used drops out (its
    /// place goes to the next one), except the toggles, whose label says what
    /// they do now; Enter and Tab only once there is a request to look at.
    static func statusKeys(_ m: AppModel) -> [(String, String)] {
        var out: [(Int, String, String)] = []
        for b in KeyMap.bindings {
            guard let st = b.status else { continue }
            if !b.applies(to: m.profiles) { continue }
            // (Enter is a toggle while the detail is enlarged: its label says it goes back.)
            let toggle =
                [Command.toggleNetwork, .pause, .help, .quit].contains(b.command)
                || (b.command == .detail && m.detailExpanded)
            if !toggle && m.usedCommands.contains(b.command) { continue }
            if (b.command == .detail || b.command == .nextPane) && m.selected == nil { continue }
            var label = st.label
            if b.command == .toggleNetwork { label = m.sim.online ? "offline" : "online" }
            if b.command == .pause { label = m.paused ? "resume" : "pause" }
            if b.command == .detail && m.detailExpanded { label = "back" }
            if b.command == .relaunch && !m.sim.appRunning { label = "launch" }
            out.append((st.order, b.keys[0].label, label))
        }
        // Two keys only some profiles have, offered where they apply (the table's `needs`).
        // The getInstance() key, and the first app call the profiles have (its word).
        let calls = KeyMap.calls(of: m.profiles)
        var offered: [(Int, Command, String)] = [(1, .getInstance, "getInstance")]
        if let c = calls.first(where: { c in c.key != nil && m.profiles.contains { KeyNeed.call(c).has($0) } }) {
            offered.append((0, .call(c.word), c.word))
        }
        for (order, c, label) in offered {
            // A call whose key a fixed key holds has none (`KeyMap.bindings(calls:)`): not offered here.
            guard let b = KeyMap.binding(c, calls: calls), let key = b.keys.first, b.applies(to: m.profiles),
                !m.usedCommands.contains(c)
            else { continue }
            out.append((order, key.label, label))
        }
        return out.sorted { $0.0 < $1.0 }.map { ($0.1, $0.2) }
    }

    static func box(_ buf: inout ScreenBuffer, _ r: Rect, title: String, g: Glyphs) {
        buf.fill(r, role: .overlay)
        for x in r.x..<r.maxX {
            buf.put(g.hLine, x: x, y: r.y, role: .border)
            buf.put(g.hLine, x: x, y: r.maxY - 1, role: .border)
        }
        for y in r.y..<r.maxY {
            buf.put(g.vLine, x: r.x, y: y, role: .border)
            buf.put(g.vLine, x: r.maxX - 1, y: y, role: .border)
        }
        buf.put(g.topLeft, x: r.x, y: r.y, role: .border)
        buf.put(g.topRight, x: r.maxX - 1, y: r.y, role: .border)
        buf.put(g.bottomLeft, x: r.x, y: r.maxY - 1, role: .border)
        buf.put(g.bottomRight, x: r.maxX - 1, y: r.maxY - 1, role: .border)
        buf.put(" " + title + " ", x: r.x + 2, y: r.y, role: .paneTitle)
    }

    /// The help screen: every key of the key table, by section, in one or two
    /// columns; j/k scroll when it does not fit.
    static func help(
        _ buf: inout ScreenBuffer, scroll: Int, g: Glyphs, extra: [(String, String, Bool)] = [],
        profiles: [Profile]? = nil
    ) {
        var rows = helpRows(KeyMap.helpLines(ascii: g.isASCII, profiles: profiles))
        rows += extra
        rows.append(("timeline glyphs", "", true))
        for (glyph, meaning) in timelineLegend(g) { rows.append((glyph, meaning, false)) }
        helpBox(&buf, rows: rows, scroll: scroll, g: g)
    }

    /// Help lines as the help box's rows: each section's title before its keys.
    static func helpRows(_ lines: [(keys: String, help: String, section: String)]) -> [(String, String, Bool)] {
        var rows: [(String, String, Bool)] = []
        var section = ""
        for l in lines {
            if l.section != section {
                section = l.section
                rows.append((section, "", true))
            }
            rows.append((l.keys, l.help, false))
        }
        return rows
    }

    /// The help screen's box: rows of a key and what it does, or a section's
    /// title (`true`), in one or two columns; j/k scroll when they do not fit.
    static func helpBox(_ buf: inout ScreenBuffer, rows: [(String, String, Bool)], scroll: Int, g: Glyphs) {
        var rows = rows
        let r = Rect(x: 1, y: 1, width: buf.width - 2, height: buf.height - 2)
        let inner = r.height - 2
        let twoColumns = r.width >= 150 || (rows.count > inner && r.width >= 120)
        let colW = twoColumns ? (r.width - 4) / 2 : r.width - 4
        // A long entry goes on over the next rows, indented under its text, never cut.
        rows = rows.flatMap { row -> [(String, String, Bool)] in
            if row.2 || row.1.isEmpty { return [row] }
            let parts = wrap(glyphText(row.1, g), width: max(8, colW - 13))
            return parts.enumerated().map { ($0.offset == 0 ? row.0 : "", $0.element, false) }
        }
        let perCol = twoColumns ? (rows.count + 1) / 2 : rows.count
        let maxScroll = max(0, perCol - inner)
        let top = min(scroll, maxScroll)
        let more = maxScroll > 0 ? " (j/k scroll, \(top + 1)-\(min(perCol, top + inner)) of \(perCol))" : ""
        box(&buf, r, title: "Keys \(g.none) Esc or any other key closes" + more, g: g)
        for (i, row) in rows.enumerated() {
            let col = twoColumns ? i / perCol : 0
            let line = (twoColumns ? i % perCol : i) - top
            guard line >= 0, line < inner else { continue }
            let x = r.x + 2 + col * colW
            let y = r.y + 1 + line
            if row.2 {
                buf.put(row.0, x: x, y: y, role: .paneTitle, limit: colW)
            } else {
                buf.put(pad(row.0, 10), x: x + 1, y: y, role: .helpKey, limit: 11)
                buf.put(row.1, x: x + 12, y: y, role: .help, limit: colW - 13)
            }
        }
    }

    /// The status bar's words while the backend chooser is open.
    static func chooserPrompt(_ c: AnswerChoice) -> String {
        let whom = c.target == .all ? "" : " for " + c.target.label
        guard let a = c.answer else {
            return "backend answers next\(whom): a letter; r, k: for the selected request; Esc cancels"
        }
        if let typed = c.percent {
            return "\(a.word)\(whom): a chance of \(typed)_% (Tab: 10, 25, 50, 75), Enter; Esc cancels"
        }
        return "\(a.word)\(whom): 1, 3 or 5 times, a(lways) or % a chance? Esc cancels"
    }

    static func chooser(_ buf: inout ScreenBuffer, chosen c: AnswerChoice, g: Glyphs) {
        let chosen = c.answer
        let h = min(buf.height - 2, AppModel.answerChoices.count + 3)
        let r = Rect(x: max(0, buf.width - 40), y: 1, width: min(38, buf.width), height: h)
        box(&buf, r, title: "Backend answers next", g: g)
        var y = r.y + 1
        for c in AppModel.answerChoices {
            guard y < r.maxY - 1 else { break }
            let picked = chosen?.withoutRetryAfter == c.answer
            buf.put((picked ? ">" : " ") + String(Character(c.key)), x: r.x + 2, y: y, role: .helpKey)
            // The picked one with its Retry-After (`R`), if any.
            buf.put(describe(picked ? chosen! : c.answer), x: r.x + 6, y: y, role: .help, limit: r.width - 8)
            y += 1
        }
        if y < r.maxY - 1 {
            let whom = c.target == .all ? "r/k: for the selected" : "for " + c.target.label
            buf.put(whom, x: r.x + 2, y: y, role: c.target == .all ? .dim : .help, limit: r.width - 4)
        }
        buf.put(
            chosen == nil ? "letter, then 1/3/5/a or %" : "1, 3, 5 times, a(lways), % chance", x: r.x + 2,
            y: r.maxY - 1, role: .dim)
    }

    static func describe(_ a: Answer) -> String {
        switch a {
        case .ok: return "ok (200)"
        case .timeout: return "timeout (never recorded)"
        case .lost: return "lost (recorded, answer lost)"
        case .reset: return "reset (recorded, connection reset)"
        case .partial: return "partial accept (2xx)"
        case .status(let s): return "\(s)"
        case .retryAfter(let s, let t): return "\(s) (retry-after \(VirtualTime.duration(t)))"
        }
    }

    // MARK: Text helpers

    static func pad(_ s: String, _ w: Int, right: Bool = false) -> String {
        let n = s.count
        guard n < w else { return s }
        return right ? String(repeating: " ", count: w - n) + s : s + String(repeating: " ", count: w - n)
    }

    static func shortDuration(_ ms: Millis) -> String {
        let m = max(0, ms)
        if m < 10_000 { return String(m / 1000) + "." + String((m % 1000) / 100) + "s" }
        if m < 120_000 { return String(m / 1000) + "s" }
        if m < 7_200_000 { return String(m / 60_000) + "m" }
        return String(m / 3_600_000) + "h"
    }
}
