import OutboxCore

extension AppView {
    /// The window the list's timeline shows, with the histories of the rows it
    /// was built for (in the order of the ids asked for).
    struct TimelineWindow {
        var axis: TimelineAxis
        var histories: [[Transition]]
    }

    /// The moments that get a column of their own: every transition of the rows
    /// shown and the network changes (`base`), and the answers that ended a
    /// request (`ends`): the column after one is kept too, for its `■` beside the `✗`.
    static func timelineMoments(_ sim: Simulation, _ histories: [[Transition]]) -> (base: [Millis], ends: [Millis]) {
        var base: [Millis] = [], ends: [Millis] = []
        for h in histories {
            for t in h {
                base.append(t.time)
                if t.to.isFinal && t.from == .inFlight && !t.outcome.isNone { ends.append(t.time) }
            }
        }
        for c in sim.networkChanges { base.append(c.time) }
        base.sort()
        ends.sort()
        return (base, ends)
    }

    /// The selected request's life: from its first transition to its end, or to now.
    static func life(_ sim: Simulation, _ hist: [Transition]) -> (from: Millis, to: Millis, final: Bool)? {
        guard let first = hist.first, let last = hist.last else { return nil }
        return last.to.isFinal ? (first.time, last.time, true) : (first.time, sim.now, false)
    }

    /// Chooses the axis: at the zoomed scale, or (fitting, the default) the finest
    /// scale from 1 s up that holds the selected request's whole life. The window
    /// ends at now when the life fits before it; otherwise it starts where the
    /// life starts; a life too long for the scale shows its latest part.
    static func timelineWindow(_ m: AppModel, ids: [Int32], cols: Int) -> TimelineWindow {
        let sim = m.sim
        var histories = ids.map { sim.history(of: $0) }
        if let sel = m.selected, !ids.contains(sel), Int(sel) <= sim.requests.count {
            histories.append(sim.history(of: sel))
        }
        let (base, ends) = timelineMoments(sim, histories)
        var life: (from: Millis, to: Millis, final: Bool)? = nil
        if let sel = m.selected {
            if let i = ids.firstIndex(of: sel) {
                life = AppView.life(sim, histories[i])
            } else if histories.count > ids.count {
                life = AppView.life(sim, histories[ids.count])
            }
        }
        func axis(_ step: Millis) -> (TimelineAxis, fits: Bool) {
            let now = sim.now
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
            // A request that ended this very column: one more, for its end mark.
            var end = now
            if let l = life, l.final, l.to / step >= now / step { end = l.to + step }
            let right = TimelineAxis.build(
                moments: moments, step: step, anchor: end, now: now, cols: cols, backwards: true)
            guard let l = life else { return (right, true) }
            if right.column(of: l.from) >= 0 { return (right, true) }
            let left = TimelineAxis.build(
                moments: moments, step: step, anchor: l.from, now: now, cols: cols, backwards: false)
            let lastMark = l.final ? l.to + step : l.to
            if left.column(of: lastMark) < left.count { return (left, true) }
            let tail = TimelineAxis.build(
                moments: moments, step: step, anchor: lastMark, now: now, cols: cols, backwards: true)
            return (tail, false)
        }
        if let z = m.timelineZoom {
            return TimelineWindow(axis: axis(TimelineAxis.ladder[z]).0, histories: histories)
        }
        var best = axis(TimelineAxis.ladder[TimelineAxis.fitFloor])
        var i = TimelineAxis.fitFloor
        while !best.fits && i + 1 < TimelineAxis.ladder.count {
            i += 1
            best = axis(TimelineAxis.ladder[i])
        }
        return TimelineWindow(axis: best.0, histories: histories)
    }

    /// The scale a fit chose, or the zoom: the ladder index (for `z`/`Z` to step from).
    static func timelineScaleIndex(_ m: AppModel, width: Int) -> Int {
        if let z = m.timelineZoom { return z }
        // The compare's timelines are drawn to the speed's scale, not fitted.
        if m.isComparing { return TimelineAxis.ladder.firstIndex(of: msPerColumn(m)) ?? TimelineAxis.fitFloor }
        let c = columns(width: width)
        // The rows on screen, as the list draws them: the same moments, the same fit.
        let step = timelineWindow(m, ids: visibleIDs(m, rows: m.listHeight), cols: c.timelineW).axis.step
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
        for tr in hist {
            let c = axis.column(of: tr.time)
            if tr.to == .inFlight { set(c, g.tlAttempt, .timelineAttempt) }
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
            (g.tlAttempt, "an attempt goes out"), (g.tlFail, "a failed answer (or none: timeout, offline)"),
            (g.tlOk, "delivered"), (g.tlDropped, "dropped"), (g.tlWait, "a backoff wait before the next attempt"),
            (g.tlPending, "waiting in the queue"), (g.tlOffline, "waiting while the device was offline"),
            (g.tlQueued, "saved to the offline queue"),
            ("+30s", "a quiet stretch cut short: 30 s with no mark in any row shown"),
        ]
    }
}
