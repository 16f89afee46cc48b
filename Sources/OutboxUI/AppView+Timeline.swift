import OutboxCore

extension AppView {
    /// The window the list's timeline shows, with the histories of the rows it
    /// was built for (in the order of the ids asked for). When some row's life
    /// goes on past an edge of the window, that edge gets a column of its own
    /// for the `‹`/`›` of those rows (`leftEdge`, `rightEdge`), and the axis is
    /// the columns between.
    struct TimelineWindow {
        var axis: TimelineAxis
        var histories: [[Transition]]
        var leftEdge = false
        var rightEdge = false
    }

    /// The moments that get a column of their own: every transition of the rows
    /// shown and the network changes (`base`), and the answers that ended a
    /// request (`ends`): the column after one is kept too, for its `■` beside the `✗`.
    /// A send is a moment only where it draws its `◌` (`sends`, with how long it
    /// flew): otherwise its answer stands for the attempt, and the send may fall
    /// in a cut, so where a send and its answer fall never adds a column.
    static func timelineMoments(_ sim: Simulation, _ histories: [[Transition]])
        -> (base: [Millis], ends: [Millis], sends: [(time: Millis, flight: Millis)])
    {
        var base: [Millis] = [], ends: [Millis] = []
        var sends: [(time: Millis, flight: Millis)] = []
        for h in histories {
            for (i, t) in h.enumerated() {
                if t.to == .inFlight && t.from != nil {
                    sends.append((t.time, i + 1 < h.count ? h[i + 1].time - t.time : Millis.max))
                } else {
                    base.append(t.time)
                }
                if t.to.isFinal && t.from == .inFlight && !t.outcome.isNone { ends.append(t.time) }
            }
        }
        for c in sim.networkChanges { base.append(c.time) }
        base.sort()
        ends.sort()
        sends.sort { $0.time < $1.time }
        return (base, ends, sends)
    }

    /// The moments a row draws a mark at (`timeline(_:_:axis:g:)`): each answer,
    /// an end not caused by an answer, a save to the queue, and an attempt still
    /// in flight. One mark per attempt, whatever the columns its send and answer
    /// fall in.
    static func markMoments(_ hist: [Transition], step: Millis) -> [Millis] {
        var out: [Millis] = []
        for (i, tr) in hist.enumerated() {
            let answered = tr.from == .inFlight && tr.to != .inFlight
            let mark =
                answered || (tr.to == .inFlight && showsSend(hist, i, step: step))
                || (tr.to.isFinal && tr.from != .inFlight) || (tr.to == .queued && tr.from != nil)
            if mark && out.last != tr.time { out.append(tr.time) }
        }
        return out
    }

    /// Whether the send at `hist[i]` draws its `◌`: while no answer has come, or
    /// when the flight took two columns' time or more (a zoomed row shows how
    /// long it flew). Otherwise the answer alone stands for the attempt.
    static func showsSend(_ hist: [Transition], _ i: Int, step: Millis) -> Bool {
        guard i + 1 < hist.count else { return true }
        return hist[i + 1].time - hist[i].time >= 2 * step
    }

    /// The moments that need a column each at `step` (sorted): a row's marks
    /// that would share an ordinary column with another of its own marks.
    static func splitMoments(_ histories: [[Transition]], step: Millis) -> [Millis] {
        var out: [Millis] = []
        func colOf(_ t: Millis) -> Millis { t >= 0 ? t / step : (t - step + 1) / step }
        for h in histories {
            let marks = markMoments(h, step: step)
            var i = 0
            while i < marks.count {
                var j = i
                while j + 1 < marks.count && colOf(marks[j + 1]) == colOf(marks[i]) { j += 1 }
                if j > i { out += marks[i...j] }
                i = j + 1
            }
        }
        out.sort()
        return out
    }

    /// The selected request's life: from its first transition to its end, or to now.
    static func life(_ sim: Simulation, _ hist: [Transition]) -> (from: Millis, to: Millis, final: Bool)? {
        guard let first = hist.first, let last = hist.last else { return nil }
        return last.to.isFinal ? (first.time, last.time, true) : (first.time, sim.now, false)
    }

    /// The narrowest timeline that stretches a short life to its width; a
    /// narrower one keeps the cut, labelled form (`✗+30s✗`), which says each
    /// wait's length in the few columns it has.
    static let stretchColumns = 40

    /// Chooses the axis: at the zoomed scale, or (fitting, the default) the finest
    /// scale from 1 s up that holds the selected request's whole life. The window
    /// ends at now when the life fits before it; otherwise it starts where the
    /// life starts; a life too long for the scale shows its latest part. On a
    /// wide timeline (`stretchColumns`), a fitted life that would use less than
    /// half the columns is stretched instead: drawn to scale, uncut, at the
    /// finest scale it fits at (a wide screen uses its width). A row's marks
    /// close together get a column each (`TimelineAxis.build`'s `split`).
    static func timelineWindow(_ m: AppModel, ids: [Int32], cols: Int) -> TimelineWindow {
        let s = m.sim
        let key = TimelineMemo.Key(
            profile: s.profile, transitions: s.transitionCount, requests: s.requests.count,
            network: s.networkChanges.count, lastNetwork: s.networkChanges.last?.time, now: s.now, selected: m.selected,
            zoom: m.timelineZoom, ids: ids, cols: cols)
        let memo = m.panes.timelineMemo
        if memo.key == key, let w = memo.window { return w }
        let w = buildTimelineWindow(m, ids: ids, cols: cols)
        memo.key = key
        memo.window = w
        return w
    }

    /// The last window built and what for: a frame's layout (the scale `z`
    /// steps from, `timelineScaleIndex`) and the list drawn after it ask for the
    /// same window, which is built once. Kept on the model (`PaneState`).
    final class TimelineMemo {
        struct Key: Equatable {
            var profile: Profile, transitions: Int, requests: Int, network: Int, lastNetwork: Millis?, now: Millis
            var selected: Int32?, zoom: Int?, ids: [Int32], cols: Int
        }
        var key: Key?
        var window: TimelineWindow?
    }

    /// `timelineWindow`, built afresh.
    static func buildTimelineWindow(_ m: AppModel, ids: [Int32], cols: Int) -> TimelineWindow {
        let sim = m.sim
        var histories = ids.map { sim.history(of: $0) }
        if let sel = m.selected, !ids.contains(sel), Int(sel) <= sim.requests.count {
            histories.append(sim.history(of: sel))
        }
        let (base0, ends, sends) = timelineMoments(sim, histories)
        var life: (from: Millis, to: Millis, final: Bool)? = nil
        var lifeHistory: [Transition] = []
        if let sel = m.selected {
            let i = ids.firstIndex(of: sel) ?? (histories.count > ids.count ? ids.count : -1)
            if i >= 0 {
                life = AppView.life(sim, histories[i])
                lifeHistory = histories[i]
            }
        }
        let shown = Array(histories.prefix(ids.count))
        func axis(_ step: Millis, cols: Int, keep: Bool = false) -> (TimelineAxis, fits: Bool) {
            let now = sim.now
            // The sends that show at this scale join the other moments.
            var base = base0
            let shownSends = sends.filter { $0.flight >= 2 * step }
            if !shownSends.isEmpty {
                base += shownSends.map(\.time)
                base.sort()
            }
            // The two sorted lists merged, the ends a step later.
            var moments: [Millis] = []
            moments.reserveCapacity(base.count + ends.count)
            var j = 0
            for t in base {
                while j < ends.count && ends[j] + step < t {
                    moments.append(ends[j] + step)
                    j += 1
                }
                moments.append(t)
            }
            while j < ends.count {
                moments.append(ends[j] + step)
                j += 1
            }
            let split = splitMoments(histories, step: step)
            let kept = keep ? life.map { $0.from..<($0.to + step) } : nil
            func build(_ anchor: Millis, backwards: Bool) -> TimelineAxis {
                TimelineAxis.build(
                    moments: moments, step: step, anchor: anchor, now: now, cols: cols, backwards: backwards,
                    split: split, keep: kept)
            }
            // A request that ended this very column: one more, for its end mark.
            var end = now
            if let l = life, l.final, l.to / step >= now / step { end = l.to + step }
            let right = build(end, backwards: true)
            guard let l = life else { return (right, true) }
            if right.column(of: l.from) >= 0 { return (right, true) }
            let left = build(l.from, backwards: false)
            let lastMark = l.final ? l.to + step : l.to
            if left.column(of: lastMark) < left.count { return (left, true) }
            return (build(lastMark, backwards: true), false)
        }
        /// The axis at `step` with a column kept at each edge some row's life goes past.
        func window(_ step: Millis, keep: Bool = false) -> TimelineWindow {
            var w = TimelineWindow(axis: axis(step, cols: cols, keep: keep).0, histories: histories)
            for _ in 0..<2 {
                let (l, r) = edges(w.axis, shown, now: sim.now)
                if l == w.leftEdge && r == w.rightEdge { break }
                w.leftEdge = w.leftEdge || l
                w.rightEdge = w.rightEdge || r
                let n = cols - (w.leftEdge ? 1 : 0) - (w.rightEdge ? 1 : 0)
                w.axis = axis(step, cols: max(1, n), keep: keep).0
            }
            return w
        }
        if let z = m.timelineZoom { return window(TimelineAxis.ladder[z]) }
        var i = TimelineAxis.fitFloor
        var best = axis(TimelineAxis.ladder[i], cols: cols)
        while !best.fits && i + 1 < TimelineAxis.ladder.count {
            i += 1
            best = axis(TimelineAxis.ladder[i], cols: cols)
        }
        // Stretched to the width: on a wide timeline, a life the fit draws in less
        // than half the columns is drawn to scale, uncut, at the finest scale it
        // fits at, from 1 s up (a finer scale is there to zoom into: `z`).
        if let l = life, best.fits, cols >= stretchColumns {
            let step0 = best.0.step
            let used = best.0.column(of: l.final ? l.to + step0 : l.to) - best.0.column(of: l.from) + 1
            if used * 2 < cols {
                var k = TimelineAxis.fitFloor
                while k < TimelineAxis.ladder.count {
                    let s = TimelineAxis.ladder[k]
                    // Its columns, with one for each mark a split adds.
                    let span = (l.final ? l.to + s : l.to) / s - l.from / s + 1
                    let extra = splitMoments([lifeHistory], step: s).count
                    if span + Millis(extra) <= Millis(cols) { break }
                    k += 1
                }
                if k < TimelineAxis.ladder.count {
                    let s = TimelineAxis.ladder[k]
                    if axis(s, cols: cols, keep: true).fits { return window(s, keep: true) }
                }
            }
        }
        return window(best.0.step)
    }

    /// Whether some row's life goes on before the axis's first column, and after its last.
    static func edges(_ axis: TimelineAxis, _ histories: [[Transition]], now: Millis) -> (left: Bool, right: Bool) {
        var l = false, r = false
        for h in histories {
            let (a, b) = beyond(axis, h, now: now)
            l = l || a
            r = r || b
        }
        return (l, r)
    }

    /// Whether this row's life goes on before the axis's first column, and after
    /// its last (a request not over lives on to now).
    static func beyond(_ axis: TimelineAxis, _ h: [Transition], now: Millis) -> (left: Bool, right: Bool) {
        guard let first = h.first, let last = h.last else { return (false, false) }
        let end = last.to.isFinal ? last.time : now
        return (axis.column(of: first.time) < 0, axis.column(of: end) >= axis.count)
    }

    /// The scale a fit chose, or the zoom: the ladder index (for `z`/`Z` to step from).
    /// `rows`: the list's rows on screen (`Layout.listRows`).
    static func timelineScaleIndex(_ m: AppModel, width: Int, rows: Int) -> Int {
        if let z = m.timelineZoom { return z }
        // The compare's timelines are drawn to the speed's scale, not fitted.
        if m.isComparing { return TimelineAxis.ladder.firstIndex(of: msPerColumn(m)) ?? TimelineAxis.fitFloor }
        let c = columns(width: width)
        // The rows on screen, as the list draws them: the same moments, the same fit.
        let step = timelineWindow(m, ids: visibleIDs(m, rows: rows), cols: c.timelineW).axis.step
        return TimelineAxis.ladder.firstIndex(of: step) ?? TimelineAxis.fitFloor
    }

    /// The timeline's heading: the scale on the left, `now` on the right when the window ends there.
    static func timelineHeading(_ buf: inout ScreenBuffer, axis: TimelineAxis, x: Int, y: Int, width: Int, zoomed: Bool)
    {
        let room = axis.endsAtNow ? width - 4 : width
        var scale = TimelineAxis.scaleText(axis.step)
        // Zoomed by hand, it says so when there is room (`f` fits again).
        if zoomed && scale.count + 4 <= room { scale += " (z)" }
        buf.put(scale, x: x, y: y, role: .columnHeader, limit: room)
        if axis.endsAtNow { buf.put("now", x: x + width - 3, y: y, role: .columnHeader) }
    }

    /// One request's life on the axis: attempts, answers, backoff waits, queued
    /// time, offline stretches, the end; a cut shows its length.
    static func timeline(_ sim: Simulation, _ hist: [Transition], axis: TimelineAxis, g: Glyphs) -> [Cell] {
        let cols = axis.count
        var cells = [Cell](repeating: Cell(" ", .timelineAxis), count: cols)
        guard cols > 0 else { return cells }
        func set(_ c: Int, _ s: String, _ role: Role) {
            guard c >= 0, c < cols, axis.cut[c] == nil, let u = s.unicodeScalars.first else { return }
            cells[c] = Cell(u, role)
        }
        // Whether the device was online, asked for moments that only grow.
        let changes = sim.networkChanges
        var next = 0, online = true
        func onlineAt(_ t: Millis) -> Bool {
            while next < changes.count && changes[next].time <= t {
                online = changes[next].online
                next += 1
            }
            return online
        }
        // A cut reads dim where the request did not exist or was over.
        for c in 0..<cols { if let s = axis.cut[c] { cells[c] = Cell(s, .dim) } }
        // Segments: how the request waited between transitions.
        for (i, tr) in hist.enumerated() where !tr.to.isFinal {
            let end = i + 1 < hist.count ? hist[i + 1].time : sim.now
            // A state that lasted no time (made and sent at once) has no stretch to draw.
            if end == tr.time && i + 1 < hist.count { continue }
            let (a, b) = (max(0, axis.column(of: tr.time)), min(cols - 1, axis.column(of: end)))
            guard a <= b else { continue }
            for c in a...b {
                let t = axis.times[c]
                let offline = !onlineAt(max(t, tr.time))
                let glyph: String, role: Role
                switch tr.to {
                case .retrying: (glyph, role) = offline ? (g.tlOffline, .timelineOffline) : (g.tlWait, .timelineWait)
                case .queued, .pending:
                    (glyph, role) = offline ? (g.tlOffline, .timelineOffline) : (g.tlPending, .timelineAxis)
                default: continue
                }
                if let s = axis.cut[c] {
                    // Inside a cut the request waited the whole stretch: its label in the wait's role.
                    if t >= tr.time && t < end { cells[c] = Cell(s, role) }
                } else {
                    cells[c] = Cell(glyph.unicodeScalars.first!, role)
                }
            }
        }
        // Marks, later ones on top.
        for (i, tr) in hist.enumerated() {
            let c = axis.column(of: tr.time)
            // One mark per attempt: its answer; its send only while in flight, or when the flight was long.
            if tr.to == .inFlight && showsSend(hist, i, step: axis.step) { set(c, g.tlAttempt, .timelineAttempt) }
            if tr.from == .inFlight && tr.to != .inFlight {
                if tr.to == .delivered {
                    set(c, g.tlOk, .timelineOk)
                } else if tr.outcome.isNone {
                    set(
                        c, tr.to == .dropped ? g.tlDropped : g.tlQueued,
                        tr.to == .dropped ? .timelineFinal : .stateQueued)
                } else {
                    set(c, g.tlFail, .timelineFail)
                    // An answer that ended the request: its end beside the failed answer.
                    if tr.to == .dropped { set(c + 1, g.tlDropped, .timelineFinal) }
                }
            }
            if tr.to == .dropped && (tr.from != .inFlight || tr.outcome.isNone) { set(c, g.tlDropped, .timelineFinal) }
            if tr.to == .delivered && tr.from != .inFlight { set(c, g.tlOk, .timelineOk) }
            if tr.to == .queued && tr.from != .inFlight && tr.from != nil { set(c, g.tlQueued, .stateQueued) }
        }
        return cells
    }

    /// The glyph legend, for the help screen: each glyph in the form this terminal shows.
    static func timelineLegend(_ g: Glyphs) -> [(String, String)] {
        [
            (g.tlAttempt, "an attempt in flight (once answered, only where its flight took 2 columns or more)"),
            (g.tlFail, "a failed answer (or none: timeout, offline); each attempt's answer has a column of its own"),
            (g.tlOk, "delivered"), (g.tlDropped, "dropped"), (g.tlWait, "a backoff wait before the next attempt"),
            (g.tlPending, "waiting in the queue"), (g.tlOffline, "waiting while the device was offline"),
            (g.tlQueued, "saved to the offline queue"),
            ("+30s", "a quiet stretch cut short: 30 s with no mark in any row shown"),
            (g.tlMoreLeft + " " + g.tlMoreRight, "more of the row's life lies off the left or right edge"),
        ]
    }
}
