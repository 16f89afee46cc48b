import OutboxCore

/// The log lines shown (all, or one request's), worked out once per change of
/// the log rather than per frame.
final class LogMemo {
    struct Key: Equatable { var count: Int, start: Int, request: Int32? }
    var key: Key?
    var positions: [Int32] = []
}

/// What the detail and log panes show besides the selection (issue 12, part 4).
public struct PaneState {
    /// Rows the detail's history is scrolled up (+) or down (-) from where it
    /// starts for a newly selected request, and which request that was for.
    public internal(set) var detailScroll = 0
    var detailFor: Int32?
    /// The focus before Enter made the detail full-screen.
    var focusBeforeFull: Pane = .list
    /// The log search (empty: none) and the current match, an index into `logLines`.
    public internal(set) var logSearch = ""
    public internal(set) var logMatch: Int?
    /// The log shows only this request's lines, or all when nil.
    public internal(set) var logRequest: Int32?
    let logMemo = LogMemo()
    /// The view's cache of the detail's lines (AppView+Panes.swift).
    let detailMemo = AppView.DetailMemo()
    /// The view's cache of the list's timeline window (AppView+Timeline.swift).
    let timelineMemo = AppView.TimelineMemo()
}

extension AppModel {
    /// Tells the model the screen's size (the loop: at the start and on a resize).
    /// The next frame's layout (`laidOut`) is made for it.
    public mutating func setScreen(width: Int, height: Int) {
        screen = ScreenSize(width: width, height: height)
    }

    /// Keeps a frame's layout (`AppView.layout(for:)`, made once a frame by the
    /// loop) for the keys and clicks until the next: the list's page, how far
    /// the detail and log scroll, what is under the mouse. The selection stays in view.
    public mutating func laidOut(_ l: AppView.Layout) {
        layout = l
        if let row = selectedRow { select(row: row) }
    }

    // MARK: Keys for the panes

    /// Moving keys while the detail or log has the focus (or the detail is
    /// full-screen) scroll that pane; Esc, `<`, `>` and `l`. True when handled.
    mutating func paneCommand(_ command: Command) -> Bool {
        switch command {
        case .back:
            if detailExpanded {
                toggleFullDetail()
            } else if !panes.logSearch.isEmpty {
                panes.logSearch = ""
                panes.logMatch = nil
                message = ("log search cleared", false)
            }
            return true
        case .nextMatch, .previousMatch:
            stepMatch(command == .nextMatch ? 1 : -1)
            return true
        case .logRequest:
            if isComparing {
                message = ("a compare shows no log; :compare off shows the first column's", true)
            } else if panes.logRequest != nil {
                setLogRequest(nil)
            } else if let id = selectedRequestID {
                setLogRequest(id)
            } else {
                message = ("select a request first; :log request N names one", true)
            }
            return true
        default: break
        }
        guard !isComparing else { return false }
        let pane: Pane = detailExpanded ? .detail : focus
        guard pane != .list else { return false }
        let page = max(1, paneRows(pane) - 1)
        let delta: Int
        switch command {
        case .down: delta = 1
        case .up: delta = -1
        case .pageDown: delta = page
        case .pageUp: delta = -page
        case .top: delta = Int.min / 2
        case .bottom: delta = Int.max / 2
        default: return false
        }
        if pane == .detail { scrollDetail(by: delta) } else { scrollLog(by: delta) }
        return true
    }

    /// The request the selection stands for (one column).
    var selectedRequestID: Int32? { isComparing ? nil : selected }

    /// Enter: the detail full-screen, focused; again (or Esc) back as it was.
    mutating func toggleFullDetail() {
        if detailExpanded {
            detailExpanded = false
            focus = panes.focusBeforeFull
        } else {
            detailExpanded = true
            if !isComparing {
                panes.focusBeforeFull = focus
                focus = .detail
            } else {
                // Taller, the compare's detail shows more of each column's history; when
                // it showed everything already, say so rather than add blank rows unexplained.
                // (The frame's layout measured the full-screen detail: `Layout.compareExpandedRows`.)
                if layout.compareDetailNeeds <= layout.compareExpandedRows
                    || selectedMatchRow == nil
                {
                    detailExpanded = false
                    message = ("the detail shows every column's whole story already", false)
                }
            }
        }
    }

    /// Rows a pane shows, as the last frame laid it out.
    func paneRows(_ pane: Pane) -> Int {
        pane == .detail ? layout.detailHistory.height : layout.panes.log.height
    }

    // MARK: The detail

    mutating func scrollDetail(by delta: Int) {
        guard let id = selected else { return }
        if panes.detailFor != id {
            panes.detailFor = id
            panes.detailScroll = 0
        }
        // The history's length and first line as the last frame laid them out;
        // a request selected since (keys in one batch) scrolls from the next frame.
        guard let doc = layout.detailDoc, doc.id == id else { return }
        let start = doc.start
        let maxTop = max(0, doc.lines - layout.detailHistory.height)
        // top = start - scroll, kept within 0...maxTop.
        let top = min(max(0, start - panes.detailScroll), maxTop)
        let newTop = min(max(0, top.addingReportingOverflow(delta).partialValue), maxTop)
        panes.detailScroll = start - newTop
    }

    // MARK: The log

    /// The journal positions of the log lines shown, oldest first.
    public var logLines: [Int32] {
        guard let id = panes.logRequest else { return sim.logPositions }
        let key = LogMemo.Key(count: sim.logPositions.count, start: sim.journalStart, request: id)
        let memo = panes.logMemo
        if memo.key == key { return memo.positions }
        // The log only grows (until forgotten): look at the new lines only.
        var from = 0
        if let k = memo.key, k.request == id, k.start == key.start, k.count <= key.count {
            from = k.count
        } else {
            memo.positions = []
        }
        for p in sim.logPositions[from...] {
            if case .log(let l) = sim.journal[Int(p)], AppModel.logLine(l, isAbout: id) { memo.positions.append(p) }
        }
        memo.key = key
        return memo.positions
    }

    /// Whether a log line is about a request: made for it, or naming it. Its facts
    /// say so first (`LogLine.request`, `LogEvent.otherRequest`: a flush started by
    /// the request's success, ended by its failure); then, as the `/` search does,
    /// its words (`#4 'purchase'`, `completion(#4 ...`; `#4` followed by a digit is
    /// another request), for a line whose facts name none.
    static func logLine(_ l: LogLine, isAbout id: Int32) -> Bool {
        if l.request == id || l.event.otherRequest == id { return true }
        let mark = Array("#\(id)".utf8), text = Array(l.text.utf8)
        guard text.count >= mark.count else { return false }
        for i in 0...(text.count - mark.count) where text[i] == mark[0] {
            guard Array(text[i..<i + mark.count]) == mark else { continue }
            let after = i + mark.count
            if after == text.count || !(48...57).contains(text[after]) { return true }
        }
        return false
    }

    mutating func scrollLog(by delta: Int) {
        let n = logLines.count
        let most = max(0, n - paneRows(.log))  // the oldest page at most
        logScroll = max(0, min(logScroll.subtractingReportingOverflow(delta).partialValue, most))
    }

    mutating func setLogRequest(_ id: Int32?) {
        panes.logRequest = id
        panes.logMatch = nil
        logScroll = 0
        if let id {
            let n = logLines.count
            message = ("log: only #\(id)'s \(n) line\(n == 1 ? "" : "s"); l or :log all shows every line", false)
        } else {
            message = ("log: every line", false)
        }
    }

    /// `:log request [N]` and `:log all`.
    mutating func logCommand(_ args: [String]) {
        if args == ["all"] {
            setLogRequest(nil)
            return
        }
        if args.first == "request" && args.count <= 2 {
            if args.count == 1 {
                guard let id = selectedRequestID else {
                    message = ("select a request, or :log request N", true)
                    return
                }
                setLogRequest(id)
                return
            }
            if let n = Int32(args[1]), n >= 1, Int(n) <= sim.requests.count, !isComparing {
                setLogRequest(n)
                return
            }
            message = (
                "no request #\(SafeText.escaped(args[1], max: 20)): expected 1 to \(sim.requests.count)"
                    + (isComparing ? " (comparing, the log is not shown)" : ""), true
            )
            return
        }
        message = ("expected :log request N, :log request (the selected one) or :log all", true)
    }

    /// Whether the `/` prompt is the log's search.
    public var logSearching: Bool { if case .logSearch = mode { return true } else { return false } }

    mutating func logSearchKey(_ text: String, _ key: Key) {
        switch editLine(text, key) {
        case .editing(let t): mode = .logSearch(t)
        case .cancelled: mode = .normal
        case .done(let t):
            mode = .normal
            panes.logSearch = t
            panes.logMatch = nil
            guard !t.isEmpty else {
                message = ("log search cleared", false)
                return
            }
            // The first match is the latest line that holds the text: the log reads
            // upwards from the newest, so `<` goes on to earlier ones.
            if let i = findMatch(from: logLines.count - 1, step: -1) {
                showMatch(i)
            } else {
                message = ("no log line contains \"\(SafeText.escaped(t, max: 40))\"", true)
            }
        }
    }

    /// Index of the first log line from `from` (inclusive) stepping by `step`
    /// that contains the search text, ignoring case.
    func findMatch(from: Int, step: Int) -> Int? {
        let needle = panes.logSearch.lowercased()
        guard !needle.isEmpty else { return nil }
        var i = from
        let lines = logLines
        while i >= 0 && i < lines.count {
            if case .log(let l) = sim.journal[Int(lines[i])], l.text.lowercased().contains(needle) { return i }
            i += step
        }
        return nil
    }

    mutating func showMatch(_ i: Int) {
        panes.logMatch = i
        let n = logLines.count
        let rows = max(1, paneRows(.log))
        // Scrolled so the match is in view, a few lines from the bottom edge when it can be.
        let end = n - logScroll  // one past the last line shown
        if i >= end || i < end - rows { logScroll = max(0, min(max(0, n - rows), n - 1 - i - rows / 2)) }
        let count = countMatches()
        message = (
            "log: match \(count.before + 1) of \(count.all) for \"\(SafeText.escaped(panes.logSearch, max: 40))\"; < earlier, > later, Esc clears",
            false
        )
    }

    func countMatches() -> (before: Int, all: Int) {
        let needle = panes.logSearch.lowercased()
        var before = 0, all = 0
        for (k, p) in logLines.enumerated() {
            guard case .log(let l) = sim.journal[Int(p)], l.text.lowercased().contains(needle) else { continue }
            all += 1
            if let m = panes.logMatch, k < m { before += 1 }
        }
        return (before, all)
    }

    /// `>` (later) and `<` (earlier) from the current match.
    mutating func stepMatch(_ step: Int) {
        guard !panes.logSearch.isEmpty else {
            message = ("no log search: focus the log (Tab) and press / to search it", true)
            return
        }
        let n = logLines.count
        let from = panes.logMatch.map { $0 + step } ?? (step < 0 ? n - 1 : 0)
        if let i = findMatch(from: from, step: step) {
            showMatch(i)
        } else {
            message = (
                step > 0 ? "no later match; < goes to earlier ones" : "no earlier match; > goes to later ones", true
            )
        }
    }
}
