import OutboxCore

/// The detail's history with wrapped rule texts, the full-screen detail, and
/// the log with its filter and search (issue 12, part 4).
extension AppView {
    /// A request's history as lines of the detail: each transition on a line,
    /// its rule's whole text wrapped under it; transitions in a row citing the
    /// same rule share one text, under the last of them.
    struct DetailDoc {
        var lines: [[(String, Role)]] = []
        /// Per group of transitions, its last transition's line.
        var anchors: [Int] = []
    }

    /// The selected request's detail lines, built (wrapped) once per change of
    /// the model or the pane's width, not once per frame. Kept on the model
    /// (`PaneState`) for the view: one per set of glyphs, as the frame's layout
    /// measures with Unicode's (`layout(for:)`) and an ASCII screen draws with its own.
    final class DetailMemo {
        struct Key: Equatable {
            var profile: Profile, id: Int32, transitions: Int, requests: Int, width: Int, ascii: Bool
        }
        var memos: [(key: Key, doc: DetailDoc)] = []

        func doc(_ s: Simulation, _ id: Int32, width: Int, g: Glyphs) -> DetailDoc {
            let k = Key(
                profile: s.profile, id: id, transitions: s.transitionCount, requests: s.requests.count, width: width,
                ascii: g.arrow != "→")
            if let i = memos.firstIndex(where: { $0.key.ascii == k.ascii }) {
                if memos[i].key == k { return memos[i].doc }
                memos.remove(at: i)
            }
            let doc = AppView.detailHistory(s, id, width: width, g: g)
            memos.append((k, doc))
            return doc
        }
    }

    /// Columns the rule text is indented under its transition.
    static let ruleIndent = 4

    static func detailHistory(_ s: Simulation, _ id: Int32, width: Int, g: Glyphs) -> DetailDoc {
        var doc = DetailDoc()
        let hist = s.history(of: id)
        let pad = String(repeating: " ", count: ruleIndent)
        for (i, t) in hist.enumerated() {
            // The rule's ID right after the time: a narrow pane cuts the line's end, never the why.
            var line: [(String, Role)] = [(" " + VirtualTime.clock(t.time) + " ", .dim)]
            line.append((s.profile.rule(t.rule).id, .helpKey))
            line.append((" " + (t.from?.word ?? "new") + " " + g.arrow + " ", .normal))
            line.append((t.to.word, stateRole(t.to)))
            var extra = ""
            if t.attempt > 0 && t.to == .inFlight { extra += "  attempt \(t.attempt)" }
            if t.batch > 0 && t.to == .inFlight { extra += "  batch \(t.batch)" }
            if !t.outcome.isNone { extra += "  " + s.answerText(t) }
            if let reason = t.reason { extra += "  " + reason.word }
            if !extra.isEmpty { line.append((extra, .normal)) }
            doc.lines.append(line)
            if i + 1 < hist.count && hist[i + 1].rule == t.rule { continue }
            doc.anchors.append(doc.lines.count - 1)
            for l in wrap(s.profile.rule(t.rule).text, width: width - ruleIndent - 1) {
                doc.lines.append([(pad + l, .normal)])
            }
        }
        return doc
    }

    /// Words of `text` in lines of at most `width` characters, broken at spaces;
    /// a word longer than a line is cut into pieces.
    public static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var out: [String] = []
        var line = ""
        for piece in text.split(separator: " ") {
            var word = Substring(piece)
            while word.count > width {
                if !line.isEmpty {
                    out.append(line)
                    line = ""
                }
                out.append(String(word.prefix(width)))
                word = word.dropFirst(width)
            }
            if word.isEmpty { continue }
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                out.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { out.append(line) }
        return out
    }

    /// The first line shown: unscrolled, the end, or the newest transition's
    /// line when its rule text does not fit below it; `scroll` rows up from there.
    static func detailTop(_ doc: DetailDoc, rows: Int, scroll: Int) -> Int {
        let n = doc.lines.count
        let maxTop = max(0, n - rows)
        let start = min(doc.anchors.last ?? 0, maxTop)
        return min(max(0, start - scroll), maxTop)
    }

    /// Where the detail's history goes: below the two rows of facts, in the
    /// detail pane or the full-screen detail.
    static func detailHistoryRect(_ m: AppModel, width: Int, height: Int) -> Rect {
        let rows = headerLines(m, width: width, g: .unicode).count
        return detailHistoryRect(
            m, width: width, height: height, headerRows: rows,
            panes: paneRects(m, width: width, height: height, headerRows: rows))
    }

    /// `detailHistoryRect` from a header's rows and the panes already worked out.
    static func detailHistoryRect(_ m: AppModel, width: Int, height: Int, headerRows: Int, panes: PaneRects) -> Rect {
        let r = detailExpandedRect(m, width: width, height: height, headerRows: headerRows) ?? panes.detail
        return Rect(x: r.x, y: r.y + 2, width: r.width, height: max(0, r.height - 2))
    }

    /// The full-screen detail's rect (below its title row), or nil when not full-screen.
    static func detailExpandedRect(_ m: AppModel, width: Int, height: Int, headerRows: Int) -> Rect? {
        guard m.detailExpanded, !m.isComparing else { return nil }
        let y = headerRows + 2  // header, tabs, title
        return Rect(x: 0, y: y, width: width, height: max(0, height - 1 - y))
    }

    /// The history part of the detail, scrolled; the rows shown and of how many
    /// go in the title row above the pane when it does not all fit.
    static func detailHistoryDraw(
        _ buf: inout ScreenBuffer, _ m: AppModel, _ id: Int32, rect: Rect, titleY: Int, g: Glyphs
    ) {
        guard rect.height > 0 else { return }
        let doc = m.panes.detailMemo.doc(m.sim, id, width: rect.width, g: g)
        let scroll = m.panes.detailFor == id ? m.panes.detailScroll : 0
        let top = detailTop(doc, rows: rect.height, scroll: scroll)
        for (i, line) in doc.lines[top..<min(doc.lines.count, top + rect.height)].enumerated() {
            var x = rect.x
            for (text, role) in line { x = buf.put(text, x: x, y: rect.y + i, role: role, limit: rect.maxX - x) }
        }
        if top + rect.height < doc.lines.count {
            // More below: the last row says so.
            buf.put(g.ellipsis, x: rect.maxX - 1, y: rect.maxY - 1, role: .dim)
        }
        if doc.lines.count > rect.height && (m.focus == .detail || m.detailExpanded) {
            let info = " lines \(top + 1)-\(min(doc.lines.count, top + rect.height)) of \(doc.lines.count) "
            buf.put(info, x: max(0, rect.maxX - info.count - 1), y: titleY, role: .dim)
        }
    }

    /// Enter: the detail over the list, detail and log panes, up to the status bar.
    static func fullDetail(
        _ buf: inout ScreenBuffer, _ m: AppModel, width: Int, height: Int, headerRows: Int, g: Glyphs
    ) {
        guard let r = detailExpandedRect(m, width: width, height: height, headerRows: headerRows) else { return }
        let titleY = r.y - 1
        buf.fill(Rect(x: 0, y: titleY, width: width, height: height - 1 - titleY), role: .normal)
        buf.fill(Rect(x: 0, y: titleY, width: width, height: 1), g.hLine.unicodeScalars.first!, role: .border)
        let x = buf.put(g.hLine + " ", x: 0, y: titleY, role: .border)
        let title = g.play + " " + detailTitle(m) + " " + g.sep + " Enter or Esc closes "
        buf.put(title, x: x, y: titleY, role: .paneTitleFocused, limit: width - x - 22)
        detail(&buf, m, rect: r, g: g)
    }

    // MARK: The log

    /// The log pane's title: what it shows, and the search.
    static func logTitle(_ m: AppModel) -> String {
        var t = "Log"
        if let id = m.panes.logRequest { t += " #\(id) only (l: all)" }
        if !m.panes.logSearch.isEmpty { t += " /" + SafeText.escaped(m.panes.logSearch, max: 30) }
        if m.logScroll > 0 { t += " (\(m.logScroll) up)" }
        return t
    }

    static func logPane(_ buf: inout ScreenBuffer, _ m: AppModel, rect: Rect) {
        let lines = m.logLines
        if lines.isEmpty, let id = m.panes.logRequest {
            buf.put(
                " no log line names #\(id) yet; l shows every line", x: rect.x, y: rect.y, role: .dim, limit: rect.width
            )
            return
        }
        let end = max(0, lines.count - m.logScroll)
        var first = max(0, end - rect.height), top = rect.y
        // Scrolled up to the oldest line kept: the first row says what went before it.
        if first == 0, rect.height > 1, m.panes.logRequest == nil, let note = m.forgottenLogNote {
            buf.put(" " + note, x: rect.x, y: rect.y, role: .dim, limit: rect.width)
            top += 1
            first = max(0, end - rect.height + 1)
        }
        let needle = m.panes.logSearch.lowercased()
        for (i, k) in (first..<end).enumerated() {
            guard case .log(let l) = m.sim.journal[Int(lines[k])] else { continue }
            let y = top + i
            let current = k == m.panes.logMatch
            let role = logRole(l)
            if current { buf.fill(Rect(x: rect.x, y: y, width: rect.width, height: 1), role: .rowSelected) }
            let x = buf.put(" " + VirtualTime.clock(l.time) + " ", x: rect.x, y: y, role: current ? .rowSelected : .dim)
            buf.put(l.text, x: x, y: y, role: current ? .rowSelected : role, limit: rect.maxX - x)
            // Every occurrence of the search text stands out.
            guard !needle.isEmpty, !current else { continue }
            let text = Array(l.text.lowercased()), shown = Array(l.text)
            let want = Array(needle)
            guard text.count == shown.count else { continue }
            var j = 0
            while j + want.count <= text.count {
                if Array(text[j..<j + want.count]) == want {
                    let sx = x + j
                    if sx < rect.maxX {
                        buf.put(String(shown[j..<j + want.count]), x: sx, y: y, role: .tabActive, limit: rect.maxX - sx)
                    }
                    j += want.count
                } else {
                    j += 1
                }
            }
        }
    }
}

extension AppView {
    /// A log line's colour, from what it reports (its event and source), never
    /// from its words: a warning and a purge stand out, the rest by source.
    static func logRole(_ l: LogLine) -> Role {
        switch l.event {
        case .warning, .purged: return .logWarning
        default: break
        }
        switch l.source {
        case .sdk: return .logSDK
        case .onError: return .logError
        case .completion: return .logCompletion
        case .backend: return .logBackend
        case .outbox: return .logOutbox
        }
    }
}
