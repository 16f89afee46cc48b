import OutboxCore

/// The compare screen (`--compare`, `:compare`): one header for what the columns
/// share, the matched rows with one column per profile, and the selected row's
/// detail side by side.
extension AppView {
    struct CompareLayout: Equatable, Sendable {
        var list: Rect, detail: Rect
    }

    /// `expanded`: as with the detail full-screen (Enter), or not; by default as the model is.
    static func compareLayout(_ m: AppModel, width: Int, height: Int, headerRows: Int, expanded: Bool? = nil)
        -> CompareLayout
    {
        let top = headerRows + 1  // header, tabs
        let free = height - top - 1 - 1  // status bar, the detail's separator
        let detailH = (expanded ?? m.detailExpanded) ? max(4, free * 6 / 10) : max(4, free * 35 / 100)
        let listH = max(3, free - detailH)
        let list = Rect(x: 0, y: top, width: width, height: listH)
        let detail = Rect(x: 0, y: list.maxY + 1, width: width, height: height - 1 - (list.maxY + 1))
        return CompareLayout(list: list, detail: detail)
    }

    /// Where each part of a row goes: the mark, the shared name, then per column
    /// (x of its first cell) the state, attempts, countdown, rule and timeline.
    struct CompareColumns {
        var nameW = 10, colW = 21, xs: [Int] = []
        var stateW = 9, short = false
        var att = 0, next = 0, rule = -1, timeline = -1, timelineW = 0
    }

    static func compareColumns(width: Int, count n: Int) -> CompareColumns {
        var c = CompareColumns()
        c.nameW = width >= 140 ? 16 : (width >= 100 ? 12 : 10)
        let rest = width - 3 - c.nameW
        c.colW = max(8, (rest - n) / n)
        c.xs = (0..<n).map { 3 + c.nameW + $0 * (c.colW + 1) + 1 }
        c.short = c.colW < 21
        c.stateW = c.short ? 5 : (c.colW >= 40 ? 10 : 9)
        c.att = c.stateW + 1
        c.next = c.att + 6
        var used = c.next + (c.colW >= 40 ? 8 : 5)
        if c.colW >= 44 {
            c.rule = used
            used += 7
        }
        if c.colW - used >= 10 {
            c.timeline = used + 1
            c.timelineW = c.colW - used - 1
        }
        return c
    }

    /// "last 13s" when it fits, else "13s".
    static func timelineLabel(_ span: Millis, room: Int) -> String {
        let d = VirtualTime.duration(span)
        return d.count + 5 <= room ? "last " + d : d
    }

    static let shortStates = ["pend", "fly", "retry", "queue", "deliv", "drop"]

    static func stateWord(_ s: RequestState, short: Bool) -> String {
        short ? shortStates[Int(s.rawValue)] : s.word
    }

    static func renderCompare(_ m: AppModel, _ buf: inout ScreenBuffer, width: Int, height: Int, g: Glyphs) {
        let head = headerLines(m, width: width, g: g)
        let L = compareLayout(m, width: width, height: height, headerRows: head.count)
        let y = drawHeader(&buf, head, width: width)
        compareTabs(&buf, m, y: y, width: width)
        compareList(&buf, m, rect: L.list, g: g)
        compareDetail(&buf, m, rect: L.detail, g: g)
        // The list's position on the separator under it, right of the last profile's title.
        let cols = m.columns.count
        let colW = max(8, (width - (cols - 1)) / cols)
        let lastTitleEnd = (cols - 1) * (colW + 1) + 1 + m.columns[cols - 1].profile.rawValue.count + 2
        let info = " \(m.top + 1)-\(min(m.rowCount, m.top + L.list.height - 1)) of \(m.rowCount) "
        if width - 1 - info.count > lastTitleEnd {
            listPosition(&buf, m, rows: L.list.height - 1, y: L.detail.y - 1, rightX: width)
        }
        status(&buf, m, y: height - 1, width: width, g: g)
        switch m.mode {
        case .help(let scroll): help(&buf, scroll: scroll, g: g, extra: breakHelpRows(m), profiles: m.profiles)
        case .chooseAnswer(let a): chooser(&buf, chosen: a, g: g)
        case .chooseBreak: breakChooser(&buf, m, g: g)
        default: break
        }
    }

    /// The compare's header segments after the clock and the network.
    static func compareHeader(_ m: AppModel, g: Glyphs) -> [[(String, Role)]] {
        var segs: [[(String, Role)]] = []
        if let lt = m.columns.first(where: { $0.profile.hasConsentGate }) {
            let role: Role =
                lt.consent == .granted ? .consentGranted : (lt.consent == .denied ? .consentDenied : .consentUndecided)
            segs.append([
                (" consent " + consentMark(lt.consent, g) + "\(lt.consent.word) (\(lt.profile.rawValue)) ", role)
            ])
        }
        // One plan set for all; a plan of N answers is used up at each column's pace.
        var plans: [String] = []
        for s in m.columns where !plans.contains(s.plans.headerText()) { plans.append(s.plans.headerText()) }
        let plan = plans.count == 1 ? plans[0] : m.columns.map { $0.plans.headerText() }.joined(separator: " / ")
        segs.append([(" backend " + plan + " ", plan == "ok" ? .header : .headerAccent)])
        if m.sim.settings.latencyJitter > 0 { segs.append([(jitterText(m.sim), .headerAccent)]) }
        let differ = m.compareCounts.differ
        segs.append([(" \(differ) differ ", differ > 0 ? .headerAccent : .header)])
        segs.append([(m.sim.appRunning ? " app running " : " app closed ", m.sim.appRunning ? .header : .headerAccent)])
        segs.append([(" devices in memory ", .header)])
        return segs
    }

    static func compareTabs(_ buf: inout ScreenBuffer, _ m: AppModel, y: Int, width: Int) {
        if let b = m.banner {
            buf.fill(Rect(x: 0, y: y, width: width, height: 1), role: .banner)
            buf.put(" " + b.text, x: 0, y: y, role: .banner)
            return
        }
        var x = buf.put(width < 100 ? "" : " Rows ", x: 0, y: y, role: .paneTitle)
        // A row counts in every tab of a state any column has (so the tabs may add up
        // to more than `all`); the help's compare section says so.
        for span in tabSpans(m, width: width) {
            let role: Role = span.tab == m.tab ? .tabActive : (span.tab.state.map(stateRole) ?? .tab)
            x = buf.put(span.text, x: span.x, y: y, role: role)
        }
        if !m.nameFilter.isEmpty || { if case .filter = m.mode { return true } else { return false } }() {
            x = buf.put(" /" + m.nameFilter, x: x + 1, y: y, role: .notice)
        }
        buf.put(compareSavedText(m, room: width - x - 1), x: x + 1, y: y, role: .dim)
    }

    /// The devices' saved counts, each named by its profile when there is room
    /// (` saved ios 0 · android 1 · flutter 0`), else in column order (` saved 0/1/0`,
    /// which the help's compare section explains).
    static func compareSavedText(_ m: AppModel, room: Int) -> String {
        let named = " saved " + m.columns.map { "\($0.profile.rawValue) \($0.savedCount)" }.joined(separator: " · ")
        if named.count <= room { return named }
        return " saved " + m.columns.map { String($0.savedCount) }.joined(separator: "/")
    }

    /// The rows the compare's detail needs to show every column's whole story:
    /// its two lines of facts, every transition and the whole text of the last one's rule.
    static func compareDetailNeeds(_ m: AppModel, width: Int) -> Int {
        guard let row = m.selectedMatchRow.map({ m.match.rows[$0] }) else { return 0 }
        let n = m.columns.count
        let colW = max(8, (width - (n - 1)) / n) - 1
        var need = 0
        for (i, s) in m.columns.enumerated() {
            guard let id = row.ids[i] else { continue }
            let hist = s.history(of: id)
            let why = hist.last.map { wrap(s.profile.rule($0.rule).text, width: colW - 2).count } ?? 0
            need = max(need, 2 + hist.count + why)
        }
        return need
    }

    static func compareList(_ buf: inout ScreenBuffer, _ m: AppModel, rect: Rect, g: Glyphs) {
        let sims = m.columns
        let c = compareColumns(width: rect.width, count: sims.count)
        let y0 = rect.y
        buf.fill(Rect(x: 0, y: y0, width: rect.width, height: 1), role: .columnHeader)
        buf.put("name", x: 3, y: y0, role: .columnHeader)
        let step = msPerColumn(m)
        let span = step * Millis(max(1, c.timelineW))
        for (i, s) in sims.enumerated() {
            let x = c.xs[i]
            buf.put(g.vLine, x: x - 1, y: y0, role: .border)
            // Narrow columns: the profile's name over all of it, the cells speak for themselves.
            buf.put(s.profile.rawValue, x: x, y: y0, role: .paneTitle, limit: c.short ? c.colW : c.att - 1)
            if !c.short {
                buf.put("att", x: x + c.att, y: y0, role: .columnHeader)
                buf.put("next", x: x + c.next, y: y0, role: .columnHeader, limit: c.colW - c.next)
            }
            if c.rule >= 0 { buf.put("rule", x: x + c.rule, y: y0, role: .columnHeader) }
            // Sorted, the first column's title is marked (the rows sort by the first column that has the request).
            if i == 0 && m.sort != .id {
                // After the profile's name for the state (a narrow column: for any of its values).
                let afterName = x + min(s.profile.rawValue.count, c.short ? c.colW - 1 : c.att - 2)
                let mx: Int
                switch m.sort {
                case .name: mx = 2
                case .attempts where !c.short: mx = x + c.att - 1
                case .next where !c.short: mx = x + c.next - 1
                default: mx = afterName
                }
                buf.put(sortMark(g), x: mx, y: y0, role: .columnHeader)
            }
            if c.timeline >= 0 {
                buf.put(
                    timelineLabel(span, room: c.timelineW - 4), x: x + c.timeline, y: y0,
                    role: .columnHeader,
                    limit: c.timelineW - 4)
                buf.put("now", x: x + c.colW - 3, y: y0, role: .columnHeader)
            }
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
        let items: [Int32]
        if m.listIsPlain {
            items = (m.top..<min(n, m.top + rows)).map { Int32($0 + 1) }
        } else {
            let all = m.filteredIDs
            items = Array(all[min(m.top, all.count)..<min(all.count, m.top + rows)])
        }
        let start = (m.sim.now / step + 1) * step - span
        for (k, item) in items.enumerated() {
            let y = y0 + 1 + k
            let row = m.match.rows[Int(item) - 1]
            let sel = item == m.selected
            let base: Role = sel ? .rowSelected : .normal
            if sel { buf.fill(Rect(x: 0, y: y, width: rect.width, height: 1), role: .rowSelected) }
            if row.differs(in: sims) {
                buf.put(g.hLine == "-" ? "!=" : "≠", x: 0, y: y, role: .logWarning)
            }
            buf.put(row.name, x: 3, y: y, role: base, limit: c.nameW - 1)
            for (i, s) in sims.enumerated() {
                let x = c.xs[i]
                buf.put(g.vLine, x: x - 1, y: y, role: .border)
                guard let id = row.ids[i] else {
                    buf.put(g.none, x: x, y: y, role: sel ? base : .dim)
                    continue
                }
                let r = s.request(id)
                buf.put(
                    stateWord(r.state, short: c.short), x: x, y: y, role: sel ? base : stateRole(r.state),
                    limit: c.stateW)
                let budget = s.settings.retryAttempts
                buf.put(
                    attemptsText(r, budget: budget), x: x + c.att, y: y, role: base,
                    limit: min(c.next - c.att - 1, c.colW - c.att))
                if r.state == .retrying && r.nextAttemptAt >= 0 {
                    buf.put(
                        shortDuration(r.nextAttemptAt - s.now), x: x + c.next, y: y, role: base,
                        limit: c.colW - c.next)
                }
                if c.rule >= 0 { buf.put(s.profile.rule(r.rule).id, x: x + c.rule, y: y, role: base, limit: 6) }
                if c.timeline >= 0 {
                    let cells = timeline(s, id, start: start, msPerCol: step, cols: c.timelineW, g: g)
                    for (j, cell) in cells.enumerated() { buf[x + c.timeline + j, y] = cell }
                }
            }
        }
    }

    /// The selected row in every column, side by side: where it is and why.
    static func compareDetail(_ buf: inout ScreenBuffer, _ m: AppModel, rect: Rect, g: Glyphs) {
        let sims = m.columns
        let n = sims.count
        let colW = max(8, (rect.width - (n - 1)) / n)
        let sepY = rect.y - 1
        let row = m.selectedMatchRow.map { m.match.rows[$0] }
        buf.fill(Rect(x: 0, y: sepY, width: rect.width, height: 1), g.hLine.unicodeScalars.first!, role: .border)
        // The row's name when it fits beside the first profile's.
        var title = row.map { $0.name + ($0.occurrence > 1 ? " (\($0.occurrence))" : "") } ?? "Detail"
        if title.count + sims[0].profile.rawValue.count + 6 > colW { title = "" }
        var tx =
            title.isEmpty
            ? 0 : buf.put(" " + title + " ", x: 1, y: sepY, role: m.focus == .detail ? .paneTitleFocused : .paneTitle)
        for i in 0..<n {
            let x = i * (colW + 1)
            if i > 0 {
                buf.put(g.teeDown, x: x - 1, y: sepY, role: .border)
                tx = x + 1
            } else {
                tx += 1
            }
            buf.put(" " + sims[i].profile.rawValue + " ", x: tx, y: sepY, role: .paneTitle, limit: x + colW - tx)
            for yy in rect.y..<rect.maxY where i > 0 { buf.put(g.vLine, x: x - 1, y: yy, role: .border) }
        }
        guard let row else {
            buf.put(" select a request (j/k) to see each profile's why", x: 0, y: rect.y, role: .dim, limit: rect.width)
            return
        }
        let sep = " " + g.sep + " "
        for (i, s) in sims.enumerated() {
            let x = i * (colW + 1) + 1
            let colW = colW - 1
            var y = rect.y
            guard let id = row.ids[i] else {
                buf.put(g.none + " not made on \(s.profile.rawValue)", x: x, y: y, role: .dim, limit: colW)
                continue
            }
            let r = s.request(id)
            var cx = buf.put(r.state.word, x: x, y: y, role: stateRole(r.state), limit: colW)
            var facts = r.reason.map { " (\($0.word))" } ?? ""
            let budget = s.settings.retryAttempts
            facts += " att \(r.attempts)" + (budget > 0 ? "/\(budget)" : "")
            cx = buf.put(facts, x: cx, y: y, role: .normal, limit: x + colW - cx)
            y += 1
            var facts2 = "#\(id)"
            if r.state == .retrying { facts2 += sep + "next in " + shortDuration(r.nextAttemptAt - s.now) }
            facts2 += r.saved ? sep + "saved" : sep + "not saved"
            if s.profile.completes(r.kind) { facts2 += sep + "completion " + r.completion.word }
            buf.put(facts2, x: x, y: y, role: .dim, limit: colW)
            y += 1
            let hist = s.history(of: id)
            let room = rect.maxY - y
            guard room > 0, let last = hist.last else { continue }
            // The newest transitions, one line each, then the whole text of the rule
            // behind the last one, wrapped to the column: why it is where it is now.
            // Short of room, the text keeps at least the last transition above it.
            let why = wrap(s.profile.rule(last.rule).text, width: colW - 2)
            let shownWhy = Array(why.prefix(max(0, room - 1)))
            let steps = Array(hist.suffix(max(1, room - shownWhy.count)))
            for (k, t) in steps.enumerated() {
                // Narrow (four columns at 80): the state and the rule matter more than the time.
                let clock = colW >= 24 ? Self.detailClock(t.time) + " " : ""
                var lx = buf.put(clock, x: x, y: y + k, role: .dim, limit: colW)
                lx = buf.put(t.to.word, x: lx, y: y + k, role: stateRole(t.to), limit: x + colW - lx)
                lx = buf.put(" " + s.profile.rule(t.rule).id, x: lx, y: y + k, role: .helpKey, limit: x + colW - lx)
                var extra = ""
                if !t.outcome.isNone { extra += " " + t.outcome.word }
                if let reason = t.reason { extra += " " + reason.word }
                buf.put(extra, x: lx, y: y + k, role: .normal, limit: x + colW - lx)
            }
            y += steps.count
            for (k, l) in shownWhy.enumerated() {
                // The last line shown runs on into the next one, so `put` cuts it with its mark.
                let more = k == shownWhy.count - 1 && shownWhy.count < why.count ? " " + why[k + 1] : ""
                buf.put("  " + l + more, x: x, y: y + k, role: .dim, limit: colW)
            }
        }
    }
}

extension AppView {
    /// A transition's time in the compare's detail: minutes, seconds and tenths
    /// (`01:02.5`) in the first hour; past it the hours too (`01:00:02.5`), so a
    /// time an hour or more in is never shown as its minutes alone.
    static func detailClock(_ ms: Millis) -> String {
        let full = VirtualTime.clock(ms)
        return String((ms >= 3_600_000 ? Substring(full) : full.dropFirst(3)).dropLast(2))
    }
}
