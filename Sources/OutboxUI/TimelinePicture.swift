import OutboxCore

/// A played run drawn as a picture (issue 14): one swimlane per request on a
/// shared time axis, as SVG alone (`outbox run --format svg`) or inside one
/// self-contained HTML page with the backend totals, the requests' final states,
/// the checks and the log (`--format html`, the live screen's export to `.html`).
///
/// Pure: it reads simulations whose journal was kept and returns text; nothing
/// here touches a file, the network or a clock. The page references nothing
/// outside itself (no scripts, fonts, stylesheets or links); tooltips are SVG
/// `<title>` elements. The markup is XHTML-compatible, so an XML parser reads it.
///
/// Quiet stretches (no event in any lane for longer than `quietGap`) are drawn as
/// a fixed-width break with their length written in it, so a 210 s retry ladder
/// and a 200 ms attempt are both readable. A short story is stretched to about
/// `fitWidth` (issue 22): the lanes use a 1400-pixel window, not half of it.
///
/// Every text label is placed where it overlaps no other text and no mark (a
/// label with nowhere to go is left out; its mark and tooltip stay), its colour
/// reads at 4.5:1 or more on what is behind it, and every kind of mark drawn has
/// its entry in the legend (issue 22, item 21).
public struct TimelinePicture {
    /// One run to draw: its simulation (journal kept) and its checks so far.
    public struct Run {
        /// The lane group's heading (a profile's name in a compare), or "".
        public let label: String
        public let sim: Simulation
        public let results: [CheckResult]

        public init(label: String = "", sim: Simulation, results: [CheckResult]) {
            self.label = label
            self.sim = sim
            self.results = results
        }
    }

    /// One file: one lane group per run, every group on one axis.
    public struct Story {
        public let file: String
        public let runs: [Run]

        public init(file: String, runs: [Run]) {
            self.file = file
            self.runs = runs
        }
    }

    public let theme: Theme

    /// The default theme's colours: the page is dark, like the terminal that theme is for.
    public init(theme: Theme = Theme.builtin("default")!) {
        self.theme = theme
    }

    // MARK: Layout constants (pixels, milliseconds)

    /// A stretch with no event longer than this is drawn as a break.
    public static let quietGap: Millis = 1000
    /// Pixels per millisecond outside the breaks, before stretching: 200 ms is 30 px, 1 s 150 px.
    static let scale = 0.15
    /// How wide a break is drawn, whatever its length, before stretching.
    static let breakWidth = 76.0
    static let left = 210.0, laneHeight = 32.0, deviceHeight = 36.0, top = 34.0
    /// The width a picture is stretched to when its story is short: a 1400-pixel
    /// window less the page's margins and a scroll bar.
    static let fitWidth = 1340.0
    /// Stretched at most this much: a 200 ms story stays a small picture.
    static let maxStretch = 4.0
    /// The minimum contrast of text on what is behind it (WCAG AA for normal text).
    static let minContrast = 4.5
    /// A character's width in the monospace font, as a fraction of its size
    /// (DejaVu Sans Mono and Menlo: 0.602), rounded up.
    static let charWidth = 0.62

    // MARK: SVG

    /// The swimlanes alone, as one SVG document (with the XML declaration and the
    /// SVG namespace a viewer needs to open the file by itself).
    public func svg(_ story: Story) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + lanes(story, standalone: true)
    }

    /// The `<svg>` element: the axis, a group of lanes per run, the legend.
    func lanes(_ story: Story, standalone: Bool) -> String {
        // Room on the right for the longest final state (monospace 12 px).
        let longest = story.runs.flatMap { run in run.sim.requests.map { finalText($0).count } }.max() ?? 0
        let finalColumn = max(150, Double(longest) * 12 * Self.charWidth + 24)
        let natural = Axis(story.runs)
        let inner = natural.width - 24
        let room = Self.fitWidth - Self.left - finalColumn - 24
        let stretch = inner > 0 ? min(Self.maxStretch, max(1, room / inner)) : 1
        let axis = stretch > 1 ? Axis(story.runs, stretch: stretch) : natural
        let width = Self.left + axis.width + finalColumn
        let canvas = Canvas(self, right: width)
        var body = ""
        var y = Self.top
        let titled = story.runs.count > 1 || !story.runs.allSatisfy { $0.label.isEmpty }
        for run in story.runs {
            body += group(run, axis: axis, y: &y, titled: titled, canvas: canvas)
        }
        let axisBottom = y
        var head = ""
        // Breaks first, behind everything: a band with its length written above it.
        for b in axis.breaks {
            canvas.used("gap")
            head += "<g class=\"gap\" data-legend=\"gap\" data-ms=\"\(b.duration)\">"
            head += rect(
                b.x0, Self.top - 6, b.x1 - b.x0, axisBottom - Self.top + 6, fill: colour(.overlay, bg: true),
                opacity: 0.55)
            head += line(b.x0, Self.top - 6, b.x0, axisBottom, stroke: colour(.timelineAxis), dash: "2 3")
            head += line(b.x1, Self.top - 6, b.x1, axisBottom, stroke: colour(.timelineAxis), dash: "2 3")
            head += canvas.label(
                [.init((b.x0 + b.x1) / 2, Self.top - 9, anchor: "middle")], "≈ " + Self.length(b.duration),
                role: .timelineAxis, size: 10, priority: 0)
            head +=
                "<title>\(xml("a quiet stretch of " + Self.length(b.duration) + " (" + Self.short(b.from) + " to " + Self.short(b.to) + "), drawn shortened"))</title></g>"
        }
        // The time labels along the top, left to right, each two characters clear
        // of the one before it (the rest are left out; their grid lines stay).
        for (t, x) in zip(axis.points, axis.xs) {
            head += line(x, Self.top - 4, x, axisBottom, stroke: colour(.timelineAxis), opacity: 0.25)
            if !axis.breaks.contains(where: { x > $0.x0 + 1 && x < $0.x1 - 1 }) {
                head += canvas.label(
                    [.init(x, 13, anchor: "middle")], Self.short(t), role: .timelineAxis, size: 10, priority: 0,
                    pad: 12)
            }
        }
        y += 10
        let legendY = y
        // The legend wraps within a window's width, even under a picture that scrolls.
        let legend = self.legend(y: &y, width: min(width, Self.fitWidth), canvas: canvas)
        let height = y + 8
        var out = "<svg"
        if standalone { out += " xmlns=\"http://www.w3.org/2000/svg\"" }
        out +=
            " class=\"timeline\" width=\"\(Self.n(width))\" height=\"\(Self.n(height))\" viewBox=\"0 0 \(Self.n(width)) \(Self.n(height))\""
        // On a page, a stretched picture shrinks to a narrower window; a long one scrolls.
        // Its text stays at 80% of its size or more: a narrower window scrolls.
        if !standalone && width <= Self.fitWidth + 1 {
            out += " style=\"max-width: 100%; min-width: \(Self.n((width * 0.8).rounded()))px; height: auto\""
        }
        out += " font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"12\">\n"
        out += "<title>\(xml("outbox timeline: " + story.file))</title>\n"
        out += rect(0, 0, width, height, fill: colour(.normal, bg: true)) + "\n"
        out += head + "\n" + body
        out += line(Self.left, legendY - 10, Self.left + axis.width, legendY - 10, stroke: colour(.timelineAxis)) + "\n"
        out += legend
        out += "</svg>\n"
        return canvas.resolve(out)
    }

    /// One run's lanes: a heading (in a compare), the device row, one lane per request.
    func group(_ run: Run, axis: Axis, y: inout Double, titled: Bool, canvas: Canvas) -> String {
        let sim = run.sim
        var out = "<g class=\"group\" data-profile=\"\(xml(run.label.isEmpty ? sim.profile.rawValue : run.label))\">\n"
        if titled {
            out += canvas.fixed(
                8, y + 14, run.label.isEmpty ? sim.profile.rawValue : run.label, role: .paneTitle, size: 13,
                bold: true)
            y += 22
        }
        // Per request: its transitions and the log lines about it, in journal order.
        var transitions: [[Transition]] = Array(repeating: [], count: sim.requests.count + 1)
        var notes: [[LogLine]] = Array(repeating: [], count: sim.requests.count + 1)
        var device: [LogLine] = []
        for e in sim.keptJournal {
            switch e {
            case .transition(let t):
                if Int(t.request) < transitions.count { transitions[Int(t.request)].append(t) }
            case .log(let l):
                switch l.event {
                case .flushStarted, .flushEnded, .flushNothingQueued, .purged, .appLaunched, .appClosed:
                    device.append(l)
                default:
                    var warning = false
                    if case .warning = l.event { warning = true }
                    if l.request > 0 && Int(l.request) < notes.count
                        && (l.source == .completion || l.source == .onError || warning)
                    {
                        notes[Int(l.request)].append(l)
                    }
                }
            }
        }
        let end = axis.end
        let lanesHeight = Self.deviceHeight + Self.laneHeight * Double(sim.requests.count)
        // The device row: two rows of labels (baselines `upper`, `lower`) with the marks between.
        let upper = y + 11, lower = y + 33
        // Offline stretches behind the lanes.
        var offlineFrom: Millis? = nil
        var stretches: [(Millis, Millis)] = []
        if let first = sim.networkChanges.first, first.online { offlineFrom = 0 }
        for c in sim.networkChanges {
            if c.online, let f = offlineFrom {
                stretches.append((f, c.time))
                offlineFrom = nil
            } else if !c.online && offlineFrom == nil {
                offlineFrom = c.time
            }
        }
        if let f = offlineFrom { stretches.append((f, end)) }
        for (a, b) in stretches {
            let x0 = axis.x(a), x1 = max(axis.x(b), x0 + 2)
            canvas.used("offline")
            out +=
                "<g class=\"offline\" data-legend=\"offline\">"
                + rect(x0, y, x1 - x0, lanesHeight, fill: colour(.timelineOffline, bg: true))
            // Its word where it fits inside the stretch, on either label row.
            let w = canvas.width("offline", size: 10)
            var at: [Canvas.Option] = []
            for row in [upper, lower] {
                var x = x0 + 3
                repeat {
                    at.append(.init(x, row))
                    x += 12
                } while x + w <= x1 - 2 && at.count < 200
            }
            out += canvas.label(at, "offline", role: .timelineFail, size: 10, priority: 3)
            out +=
                "<title>\(xml("offline from " + Self.short(a) + " to " + (b == end && offlineFrom != nil ? "the end" : Self.short(b))))</title></g>\n"
        }
        // The device row: flushes, the purge, launches and closes.
        out += "<g class=\"device\">" + canvas.fixed(8, y + 22, "device", role: .dim)
        out += line(
            Self.left, y + Self.deviceHeight - 0.5, Self.left + axis.width, y + Self.deviceHeight - 0.5,
            stroke: colour(.border), opacity: 0.5)
        var flushStart: LogLine?
        // A close and a launch at one instant share one label, "relaunch".
        for (i, l) in device.enumerated() {
            let x = axis.x(l.time)
            switch l.event {
            case .flushStarted:
                flushStart = l
            case .flushEnded:
                let s = flushStart ?? l
                let x0 = axis.x(s.time)
                canvas.used("flush")
                out +=
                    "<g class=\"flush\" data-legend=\"flush\">"
                    + canvas.mark(
                        rect(x0, y + 17, max(x - x0, 3), 6, fill: colour(.paneTitle), opacity: 0.8), x0, y + 17,
                        max(x - x0, 3), 6)
                out += canvas.label(
                    [.init(x0, upper), .init(x0 - 2, upper, anchor: "end")], "flush", role: .paneTitle, size: 10,
                    priority: 4)
                out +=
                    "<title>\(xml(Self.short(s.time) + " " + s.text + "\n" + Self.short(l.time) + " " + l.text))</title></g>"
                flushStart = nil
            case .flushNothingQueued:
                canvas.used("flush-empty")
                out +=
                    "<g class=\"flush\" data-legend=\"flush-empty\">"
                    + canvas.mark(rect(x - 1, y + 15, 3, 10, fill: colour(.paneTitle)), x - 1, y + 15, 3, 10)
                    + "<title>\(xml(Self.short(l.time) + " " + l.text))</title></g>"
            case .purged:
                canvas.used("purge")
                out +=
                    "<g class=\"purge\" data-legend=\"purge\">"
                    + canvas.mark(
                        line(x, y + 2, x, y + lanesHeight, stroke: colour(.banner, bg: true), width: 3), x - 1.5,
                        y + 2, 3, lanesHeight - 2)
                out += canvas.label(
                    [.init(x + 4, upper), .init(x - 4, upper, anchor: "end"), .init(x + 4, lower)], "purge",
                    role: .timelineFail, size: 10, bold: true, priority: 2)
                out += "<title>\(xml(Self.short(l.time) + " " + l.text))</title></g>"
            default:
                let launch = l.event.kind == "app-launched"
                let relaunch =
                    !launch && i + 1 < device.count && device[i + 1].time == l.time
                    && device[i + 1].event.kind == "app-launched"
                // The launch right after a close at one instant: its word is that close's "relaunch".
                let relaunched =
                    launch && i > 0 && device[i - 1].time == l.time && device[i - 1].event.kind == "app-closed"
                canvas.used("app")
                out +=
                    "<g class=\"app\" data-legend=\"app\">"
                    + canvas.mark(line(x, y + 6, x, y + 28, stroke: colour(.logOutbox), width: 2), x - 1, y + 6, 2, 22)
                if !relaunched {
                    out += canvas.label(
                        [
                            .init(x + 3, lower), .init(x + 3, upper), .init(x - 3, lower, anchor: "end"),
                            .init(x - 3, upper, anchor: "end"),
                        ], relaunch ? "relaunch" : launch ? "launch" : "close", role: .logOutbox, size: 9, priority: 5)
                }
                out += "<title>\(xml(Self.short(l.time) + " " + l.text))</title></g>"
            }
        }
        if let s = flushStart {
            let x0 = axis.x(s.time)
            canvas.used("flush")
            let w = max(axis.x(end) - x0, 3)
            out +=
                "<g class=\"flush\" data-legend=\"flush\">"
                + canvas.mark(rect(x0, y + 17, w, 6, fill: colour(.paneTitle), opacity: 0.8), x0, y + 17, w, 6)
            out += "<title>\(xml(Self.short(s.time) + " " + s.text + " (still under way)"))</title></g>"
        }
        out += "</g>\n"
        y += Self.deviceHeight
        for r in sim.requests {
            out += lane(r, transitions[Int(r.id)], notes[Int(r.id)], sim: sim, axis: axis, y: y, canvas: canvas)
            y += Self.laneHeight
        }
        if titled { out += line(0, y + 3, Self.left + axis.width, y + 3, stroke: colour(.border)) }
        y += titled ? 8 : 0
        return out + "</g>\n"
    }

    /// One request's lane: its attempts, answers, waits and final state.
    func lane(
        _ r: Request, _ ts: [Transition], _ notes: [LogLine], sim: Simulation, axis: Axis, y: Double, canvas: Canvas
    ) -> String {
        let name = sim.names[Int(r.nameID)]
        let cy = y + 17
        var out = "<g class=\"lane\" data-request=\"\(r.id)\" data-name=\"\(xml(name))\">"
        let label = "#\(r.id) " + name
        out += canvas.fixed(8, cy + 4, Self.cut(label, 26), role: .normal)
        out += "<title>\(xml("#\(r.id) " + name + " (" + sim.word(r.kind) + ")"))</title>"
        out += line(
            Self.left, y + Self.laneHeight - 0.5, Self.left + axis.width, y + Self.laneHeight - 0.5,
            stroke: colour(.border), opacity: 0.25)
        // The stretches between transitions, drawn by the state they are in (a
        // state left at the instant it was entered draws nothing but its mark).
        for (k, t) in ts.enumerated() where !t.to.isFinal {
            let until = k + 1 < ts.count ? ts[k + 1].time : axis.end
            if until == t.time && t.to != .inFlight { continue }
            let x0 = axis.x(t.time), x1 = axis.x(until)
            let span = Self.short(t.time) + " to " + (k + 1 < ts.count ? Self.short(until) : "the end")
            let what: String
            switch t.to {
            case .inFlight:
                canvas.used("attempt")
                out +=
                    "<g class=\"attempt\" data-legend=\"attempt\">"
                    + canvas.mark(
                        rect(x0, cy - 6, max(x1 - x0, 2), 12, fill: colour(.timelineAttempt), opacity: 0.85, rx: 2),
                        x0, cy - 6, max(x1 - x0, 2), 12)
                what =
                    "attempt \(t.attempt) in flight" + (t.batch > 0 ? " in batch \(t.batch)" : "") + ", " + span + " ("
                    + Self.length(until - t.time) + ")"
            case .retrying:
                canvas.used("wait")
                out +=
                    "<g class=\"wait\" data-legend=\"wait\">"
                    + line(x0, cy, x1, cy, stroke: colour(.timelineWait), width: 2, dash: "5 3")
                what =
                    "backoff wait, retrying after attempt \(t.attempt): " + span + " (" + Self.length(until - t.time)
                    + ")"
            case .queued:
                canvas.used("queued")
                out +=
                    "<g class=\"queued\" data-legend=\"queued\">"
                    + line(x0, cy, x1, cy, stroke: colour(.stateQueued), width: 2)
                what = "queued, " + span
            default:
                canvas.used("pending")
                out +=
                    "<g class=\"pending\" data-legend=\"pending\">"
                    + line(x0, cy, x1, cy, stroke: colour(.statePending), width: 2)
                what = "pending (saved, waiting), " + span
            }
            out += "<title>\(xml(what))</title></g>"
        }
        // A mark for each transition; answers are bigger, with their status.
        for t in ts {
            let x = axis.x(t.time)
            let info = sim.profile.rule(t.rule)
            var head = Self.short(t.time) + " · #\(r.id) " + name + " · " + (t.from?.word ?? "new") + " → " + t.to.word
            if t.attempt > 0 { head += " · attempt \(t.attempt)" }
            if !t.outcome.isNone { head += " · " + sim.answerText(t) }
            if let why = t.reason { head += " · " + why.word }
            let tip = "<title>\(xml(head + "\n" + info.id + ": " + info.text))</title>"
            if !t.outcome.isNone {
                let ok = t.outcome.isSuccess
                let key = ok ? "answer-ok" : "answer-failed"
                canvas.used(key)
                out +=
                    "<g class=\"answer\" data-legend=\"\(key)\">"
                    + canvas.mark(
                        "<circle cx=\"\(Self.n(x))\" cy=\"\(Self.n(cy))\" r=\"5\" fill=\"\(colour(ok ? .timelineOk : .timelineFail))\" stroke=\"\(colour(.normal, bg: true))\"/>",
                        x - 5, cy - 5, 10, 10)
                // Its status above it, else beside it above, else nowhere (the tooltip says it).
                out += canvas.label(
                    [.init(x, cy - 9, anchor: "middle"), .init(x + 4, cy - 9), .init(x - 4, cy - 9, anchor: "end")],
                    t.outcome.word, role: ok ? .timelineOk : .timelineFail, size: 9, priority: 1)
                out += tip + "</g>"
            } else {
                let role = stateRole(t.to)
                canvas.used("change", colour(role))
                out +=
                    "<g class=\"mark\" data-legend=\"change\">"
                    + canvas.mark(rect(x - 1.5, cy - 7, 3, 14, fill: colour(role)), x - 1.5, cy - 7, 3, 14) + tip
                    + "</g>"
            }
        }
        for l in notes {
            let x = axis.x(l.time)
            let key = l.source == .completion ? "completion" : l.source == .onError ? "onerror" : "warning"
            canvas.used(key)
            out +=
                "<g class=\"note\" data-legend=\"\(key)\">"
                + canvas.mark(diamond(x, cy + 7, fill: colour(noteRole(key))), x - 4, cy + 7, 8, 8)
                + "<title>\(xml(Self.short(l.time) + " " + l.text))</title></g>"
        }
        // The final state, to the right of the axis.
        let end = finalText(r)
        out +=
            "<g class=\"final\">"
            + canvas.fixed(
                Self.left + axis.width + 10, cy + 4, end, role: stateRole(r.state), bold: r.state.isFinal)
        out += "<title>\(xml("#\(r.id) " + name + " at the end: " + end))</title></g>"
        return out + "</g>\n"
    }

    /// The small diamond under a lane: its top corner at (`x`, `y`), 8 pixels tall.
    func diamond(_ x: Double, _ y: Double, fill: String) -> String {
        "<path d=\"M\(Self.n(x)) \(Self.n(y)) l4 4 l-4 4 l-4 -4 z\" fill=\"\(fill)\"/>"
    }

    func noteRole(_ key: String) -> Role {
        key == "completion" ? .logCompletion : key == "onerror" ? .logError : .logWarning
    }

    /// `dropped (exhausted) · 4 attempts`.
    func finalText(_ r: Request) -> String {
        var end = r.state.word
        if let why = r.reason { end += " (" + why.word + ")" }
        return end + (r.attempts == 1 ? " · 1 attempt" : " · \(r.attempts) attempts")
    }

    /// The legend: one entry per kind of mark the picture draws, in this order,
    /// each with a swatch drawn as the mark is (`data-legend` ties the two).
    func legend(y: inout Double, width: Double, canvas: Canvas) -> String {
        let diamond = { (key: String) in self.diamond(11, -4, fill: self.colour(self.noteRole(key))) }
        let changes = canvas.paints["change"] ?? []
        let items: [(String, String, String)] = [
            (
                "attempt", "attempt (in flight)",
                rect(0, -6, 22, 12, fill: colour(.timelineAttempt), opacity: 0.85, rx: 2)
            ),
            ("answer-ok", "answer ok", "<circle cx=\"11\" cy=\"0\" r=\"5\" fill=\"\(colour(.timelineOk))\"/>"),
            (
                "answer-failed", "answer failed",
                "<circle cx=\"11\" cy=\"0\" r=\"5\" fill=\"\(colour(.timelineFail))\"/>"
            ),
            (
                "change", "change of state (its new state's colour)",
                changes.enumerated().map { rect(Double($0.offset) * 5, -7, 3, 14, fill: $0.element) }.joined()
            ),
            ("wait", "backoff wait", line(0, 0, 22, 0, stroke: colour(.timelineWait), width: 2, dash: "5 3")),
            ("queued", "queued", line(0, 0, 22, 0, stroke: colour(.stateQueued), width: 2)),
            ("pending", "pending", line(0, 0, 22, 0, stroke: colour(.statePending), width: 2)),
            ("completion", "completion called", diamond("completion")),
            ("onerror", "onError called", diamond("onerror")),
            ("warning", "SDK warning", diamond("warning")),
            ("offline", "offline", rect(0, -8, 22, 16, fill: colour(.timelineOffline, bg: true))),
            ("flush", "flush", rect(0, -3, 22, 6, fill: colour(.paneTitle), opacity: 0.8)),
            ("flush-empty", "flush, nothing queued", rect(10, -5, 3, 10, fill: colour(.paneTitle))),
            ("purge", "consent purge", line(11, -8, 11, 8, stroke: colour(.banner, bg: true), width: 3)),
            ("app", "app launch or close", line(11, -8, 11, 8, stroke: colour(.logOutbox), width: 2)),
            ("gap", "quiet stretch, shortened", rect(0, -8, 22, 16, fill: colour(.overlay, bg: true), opacity: 0.55)),
        ]
        var out = "<g class=\"legend\">"
        var x = 8.0
        var row = y + 10
        for (key, word, swatch) in items where canvas.paints[key] != nil {
            let w = 30 + canvas.width(word, size: 11) + 24
            if x + w > width - 8 && x > 8 {
                x = 8
                row += 22
            }
            out +=
                "<g class=\"key\" data-legend=\"\(key)\" transform=\"translate(\(Self.n(x)) \(Self.n(row)))\">" + swatch
                + text(30, 4, word, fill: ink(.normal), size: 11) + "</g>"
            x += w
        }
        out += text(
            8, row + 24, "hover a mark for its transition and rule · the right column is each request's final state",
            fill: ink(.dim), size: 11)
        y = row + 30
        return out + "</g>\n"
    }

    // MARK: HTML

    /// One page for several files: a section per file, each with its lanes, the
    /// backend totals, the requests' final states, the checks and the log.
    public func html(_ stories: [Story], title: String) -> String {
        let fg = ink(.normal), bg = colour(.normal, bg: true), dim = ink(.dim)
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
        out += "<title>\(xml(title))</title>\n<style>\n"
        out +=
            "body { background: \(bg); color: \(fg); font-family: DejaVu Sans Mono, Menlo, Consolas, monospace; font-size: 13px; margin: 16px; }\n"
        out +=
            "h1 { font-size: 18px; } h2 { font-size: 16px; color: \(ink(.paneTitle)); border-bottom: 1px solid \(colour(.border)); } h3 { font-size: 14px; color: \(ink(.paneTitle)); }\n"
        out +=
            ".lanes { overflow-x: auto; } table { border-collapse: collapse; } td, th { padding: 2px 10px 2px 0; text-align: left; vertical-align: top; }\n"
        out +=
            "th { color: \(dim); font-weight: normal; text-decoration: underline; } .pass { color: \(ink(.timelineOk)); } .fail { color: \(ink(.timelineFail)); font-weight: bold; }\n"
        out += "pre { white-space: pre; overflow-x: auto; } .dim { color: \(dim); }\n"
        out += "</style>\n</head>\n<body>\n<h1>\(xml(title))</h1>\n"
        for (k, story) in stories.enumerated() {
            out += "<section class=\"story\" id=\"story-\(k + 1)\">\n"
            let passed = story.runs.reduce(0) { $0 + $1.results.filter(\.ok).count }
            let failed = story.runs.reduce(0) { $0 + $1.results.filter { !$0.ok }.count }
            let profiles = story.runs.map { $0.label.isEmpty ? $0.sim.profile.rawValue : $0.label }.joined(
                separator: ", ")
            out += "<h2>\(xml(story.file)) <span class=\"dim\">(\(xml(profiles)))</span></h2>\n"
            out += "<p>\(passed) passed, \(failed) failed"
            if let last = story.runs.map(\.sim.now).max() { out += " · ended at " + VirtualTime.clock(last) }
            out += "</p>\n<div class=\"lanes\">\n" + lanes(story, standalone: false) + "</div>\n"
            for run in story.runs {
                out += details(run, titled: story.runs.count > 1)
            }
            out += "</section>\n"
        }
        return out + "</body>\n</html>\n"
    }

    /// A run's tables: backend, final states, checks, log.
    func details(_ run: Run, titled: Bool) -> String {
        let sim = run.sim
        let suffix = titled ? " · " + xml(run.label.isEmpty ? sim.profile.rawValue : run.label) : ""
        let b = sim.backend
        var out =
            "<h3>Backend\(suffix)</h3>\n<p class=\"backend\">received \(b.received) · counted \(b.counted) · duplicates \(b.duplicates) · rejected \(b.rejected)</p>\n"
        out += "<table class=\"backend\"><tr><th>name</th><th>received</th><th>counted</th></tr>\n"
        for (n, name) in sim.names.enumerated()
        where b.received(nameID: Int32(n)) > 0 || b.counted(nameID: Int32(n)) > 0 {
            out +=
                "<tr><td>\(xml(name))</td><td>\(b.received(nameID: Int32(n)))</td><td>\(b.counted(nameID: Int32(n)))</td></tr>\n"
        }
        out +=
            "</table>\n<h3>Requests at the end\(suffix)</h3>\n<table class=\"requests\"><tr><th>#</th><th>name</th><th>kind</th><th>state</th><th>attempts</th></tr>\n"
        for r in sim.requests {
            var state = r.state.word
            if let why = r.reason { state += " (" + why.word + ")" }
            out += "<tr><td>\(r.id)</td><td>\(xml(sim.names[Int(r.nameID)]))</td><td>\(sim.word(r.kind))</td>"
            out += "<td style=\"color: \(ink(stateRole(r.state)))\">\(xml(state))</td><td>\(r.attempts)</td></tr>\n"
        }
        out += "</table>\n<h3>Checks\(suffix)</h3>\n"
        if run.results.isEmpty {
            out += "<p class=\"dim\">no expect line was reached</p>\n"
        } else {
            out += "<table class=\"checks\"><tr><th>line</th><th>at</th><th>expect</th><th>result</th></tr>\n"
            for c in run.results {
                out +=
                    "<tr class=\"\(c.ok ? "pass" : "fail")\"><td>\(c.line)</td><td>\(VirtualTime.clock(c.time))</td><td>\(xml(c.text))</td>"
                out += c.ok ? "<td>✓ pass</td></tr>\n" : "<td>✗ FAILED: found \(xml(c.found))</td></tr>\n"
            }
            out += "</table>\n"
        }
        out += "<h3>Log\(suffix)</h3>\n<pre class=\"log\">"
        let writer = TimelineWriter(format: .text)
        for e in sim.keptJournal { out += xml(writer.line(e, in: sim)) + "\n" }
        return out + "</pre>\n"
    }

    // MARK: Pieces

    func stateRole(_ s: RequestState) -> Role {
        switch s {
        case .pending: return .statePending
        case .inFlight: return .stateInFlight
        case .retrying: return .stateRetrying
        case .queued: return .stateQueued
        case .delivered: return .stateDelivered
        case .dropped: return .stateDropped
        }
    }

    /// A role's foreground (or background) as a CSS colour; the terminal's own
    /// colours are a light grey on a near-black page.
    func colour(_ role: Role, bg: Bool = false) -> String {
        let s = theme.style(role)
        switch bg ? s.bg : s.fg {
        case .terminalDefault: return bg ? "#1c1c1c" : "#d0d0d0"
        case .indexed(let i): return Self.xterm(i)
        }
    }

    /// A role's foreground as a colour for text in the picture or on the page:
    /// the theme's, made lighter (on a dark page) or darker until it reads at
    /// `minContrast` or more on every background text is drawn on (the page, an
    /// offline stretch, a shortened quiet stretch).
    func ink(_ role: Role) -> String {
        let page = colour(.normal, bg: true)
        return Self.readable(
            colour(role),
            on: [page, colour(.timelineOffline, bg: true), Self.over(colour(.overlay, bg: true), 0.55, page)])
    }

    /// `fg`, or the first mix of it towards white (or black, on light
    /// backgrounds) in steps of 5% that reads at `minContrast` on each of `bgs`.
    static func readable(_ fg: String, on bgs: [String]) -> String {
        if bgs.allSatisfy({ contrast(fg, $0) >= minContrast }) { return fg }
        let dark = bgs.map(luminance).reduce(0, +) / Double(max(bgs.count, 1)) < 0.18
        let target = dark ? "#ffffff" : "#000000"
        for step in 1...20 {
            let c = mix(fg, target, Double(step) / 20)
            if bgs.allSatisfy({ contrast(c, $0) >= minContrast }) { return c }
        }
        return target
    }

    /// `#rrggbb` as three fractions.
    static func rgb(_ hex: String) -> (Double, Double, Double) {
        let v = Int(hex.dropFirst(), radix: 16) ?? 0
        return (Double(v >> 16 & 255) / 255, Double(v >> 8 & 255) / 255, Double(v & 255) / 255)
    }

    static func hex(_ r: Double, _ g: Double, _ b: Double) -> String {
        func two(_ v: Double) -> String {
            let h = String(Int((min(max(v, 0), 1) * 255).rounded()), radix: 16)
            return h.count == 1 ? "0" + h : h
        }
        return "#" + two(r) + two(g) + two(b)
    }

    /// WCAG's relative luminance of an sRGB colour.
    static func luminance(_ hex: String) -> Double {
        func linear(_ c: Double) -> Double { c <= 0.03928 ? c / 12.92 : power24((c + 0.055) / 1.055) }
        let (r, g, b) = rgb(hex)
        return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
    }

    /// `v` to the power 2.4 for `v` in (0, 1], without the C library: v² times
    /// the fifth root of v² (Newton's method).
    static func power24(_ v: Double) -> Double {
        let a = v * v
        var y = v.squareRoot()
        for _ in 0..<30 {
            let y4 = y * y * y * y
            y -= (y4 * y - a) / (5 * y4)
        }
        return a * y
    }

    /// WCAG's contrast ratio of two colours, from 1 to 21.
    static func contrast(_ a: String, _ b: String) -> Double {
        let la = luminance(a), lb = luminance(b)
        return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }

    /// `a` moved `t` of the way to `b`.
    static func mix(_ a: String, _ b: String, _ t: Double) -> String {
        let (r0, g0, b0) = rgb(a), (r1, g1, b1) = rgb(b)
        return hex(r0 + (r1 - r0) * t, g0 + (g1 - g0) * t, b0 + (b1 - b0) * t)
    }

    /// `top` drawn at `opacity` over `bottom`, as one colour.
    static func over(_ top: String, _ opacity: Double, _ bottom: String) -> String {
        mix(bottom, top, opacity)
    }

    /// The xterm 256-colour palette: 16 named colours, a 6×6×6 cube, 24 greys.
    static func xterm(_ i: Int) -> String {
        let named = [
            "#000000", "#cd0000", "#00cd00", "#cdcd00", "#2e6be6", "#cd00cd", "#00cdcd", "#e5e5e5",
            "#7f7f7f", "#ff4040", "#40ff40", "#ffff40", "#6c8cff", "#ff40ff", "#40ffff", "#ffffff",
        ]
        if i < 16 { return named[max(i, 0)] }
        func hex(_ v: Int) -> String {
            let h = String(v, radix: 16)
            return h.count == 1 ? "0" + h : h
        }
        if i < 232 {
            let levels = [0, 95, 135, 175, 215, 255]
            let c = i - 16
            return "#" + hex(levels[c / 36]) + hex(levels[(c / 6) % 6]) + hex(levels[c % 6])
        }
        let g = 8 + 10 * (min(i, 255) - 232)
        return "#" + hex(g) + hex(g) + hex(g)
    }

    func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, fill: String, opacity: Double = 1, rx: Double = 0)
        -> String
    {
        var s =
            "<rect x=\"\(Self.n(x))\" y=\"\(Self.n(y))\" width=\"\(Self.n(w))\" height=\"\(Self.n(h))\" fill=\"\(fill)\""
        if opacity < 1 { s += " fill-opacity=\"\(Self.n(opacity))\"" }
        if rx > 0 { s += " rx=\"\(Self.n(rx))\"" }
        return s + "/>"
    }

    func line(
        _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, stroke: String, width: Double = 1,
        dash: String? = nil, opacity: Double = 1
    ) -> String {
        var s =
            "<line x1=\"\(Self.n(x0))\" y1=\"\(Self.n(y0))\" x2=\"\(Self.n(x1))\" y2=\"\(Self.n(y1))\" stroke=\"\(stroke)\""
        if width != 1 { s += " stroke-width=\"\(Self.n(width))\"" }
        if let dash { s += " stroke-dasharray=\"\(dash)\"" }
        if opacity < 1 { s += " stroke-opacity=\"\(Self.n(opacity))\"" }
        return s + "/>"
    }

    func text(
        _ x: Double, _ y: Double, _ words: String, fill: String, size: Int = 12, anchor: String? = nil,
        bold: Bool = false
    ) -> String {
        var s = "<text x=\"\(Self.n(x))\" y=\"\(Self.n(y))\" fill=\"\(fill)\""
        if size != 12 { s += " font-size=\"\(size)\"" }
        if let anchor { s += " text-anchor=\"\(anchor)\"" }
        if bold { s += " font-weight=\"bold\"" }
        return s + ">" + xml(words) + "</text>"
    }

    /// Text made safe for XML and HTML (`SafeText.xml`), line ends kept.
    func xml(_ s: String) -> String { SafeText.xml(s, keepingNewlines: true) }

    /// At most `n` characters, a cut one ending in `…`.
    static func cut(_ s: String, _ n: Int) -> String {
        s.count <= n ? s : String(s.prefix(n - 1)) + "…"
    }

    /// A length for people: `200ms`, `30s`, `3m30.6s`, `2h0m5s`.
    static func length(_ ms: Millis) -> String {
        ms < 1000 ? "\(ms)ms" : short(ms)
    }

    /// A moment for people: `0`, `0.2s`, `30.2s`, `3m30.6s`, `2h0m5s`.
    static func short(_ ms: Millis) -> String {
        if ms == 0 { return "0" }
        if ms < 60_000 { return VirtualTime.seconds(ms) + "s" }
        if ms < 3_600_000 { return "\(ms / 60_000)m" + VirtualTime.seconds(ms % 60_000) + "s" }
        return "\(ms / 3_600_000)h\((ms / 60_000) % 60)m" + VirtualTime.seconds(ms % 60_000) + "s"
    }

    /// A coordinate with at most one decimal.
    static func n(_ v: Double) -> String {
        let tenths = (v * 10).rounded()
        let i = Int(tenths)
        return i % 10 == 0 ? String(i / 10) : String(format1: i)
    }
}

extension String {
    /// `i` tenths as `12.3` (`-0.5` for -5).
    fileprivate init(format1 i: Int) {
        let a = i.magnitude
        self = (i < 0 ? "-" : "") + String(a / 10) + "." + String(a % 10)
    }
}

/// The shared time axis: every moment something happened in any run, placed
/// left to right; a stretch longer than `quietGap` with nothing in it becomes a
/// break of fixed width.
struct Axis {
    /// The moments something was drawn at (and 0 and the end), sorted, each once.
    let points: [Millis]
    /// Where each moment is drawn.
    let xs: [Double]
    let breaks: [(x0: Double, x1: Double, from: Millis, to: Millis, duration: Millis)]
    /// The last moment: the latest run's clock.
    let end: Millis
    let width: Double

    /// `stretch` widens every stretch and break alike (a short story fills the width).
    init(_ runs: [TimelinePicture.Run], stretch: Double = 1) {
        var times: Set<Millis> = [0]
        for run in runs {
            times.insert(run.sim.now)
            for e in run.sim.keptJournal { times.insert(e.time) }
            for c in run.sim.networkChanges { times.insert(c.time) }
            // Checks draw nothing on the lanes: their moments do not split a quiet stretch.
        }
        let points = times.sorted()
        var xs: [Double] = []
        var breaks: [(x0: Double, x1: Double, from: Millis, to: Millis, duration: Millis)] = []
        var x = TimelinePicture.left + 12
        for (k, t) in points.enumerated() {
            if k > 0 {
                let gap = t - points[k - 1]
                if gap > TimelinePicture.quietGap {
                    breaks.append((x, x + TimelinePicture.breakWidth * stretch, points[k - 1], t, gap))
                    x += TimelinePicture.breakWidth * stretch
                } else {
                    x += Double(gap) * TimelinePicture.scale * stretch
                }
            }
            xs.append(x)
        }
        self.points = points
        self.xs = xs
        self.breaks = breaks
        self.end = points.last ?? 0
        self.width = x + 12 - TimelinePicture.left
    }

    /// Where `t` is drawn: between two moments, in proportion.
    func x(_ t: Millis) -> Double {
        var lo = 0, hi = points.count - 1
        if t <= points[0] { return xs[0] }
        if t >= points[hi] { return xs[hi] }
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if points[mid] <= t { lo = mid } else { hi = mid }
        }
        let f = Double(t - points[lo]) / Double(points[hi] - points[lo])
        return xs[lo] + f * (xs[hi] - xs[lo])
    }
}

/// What one picture has drawn so far, for placing its labels and writing its
/// legend: the boxes of the texts and marks drawn, the labels still to place
/// (each with where it may go, best first), and the kinds of mark used.
final class Canvas {
    struct Option {
        let x: Double, y: Double
        let anchor: String?
        init(_ x: Double, _ y: Double, anchor: String? = nil) {
            self.x = x
            self.y = y
            self.anchor = anchor
        }
    }

    struct Box {
        let x0: Double, y0: Double, x1: Double, y1: Double
        func overlaps(_ o: Box) -> Bool { x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1 }
    }

    struct Ask {
        let options: [Option]
        let words: String, fill: String
        let size: Int, bold: Bool
        let priority: Int, pad: Double
    }

    let picture: TimelinePicture
    /// The picture's width: no label goes past it.
    let right: Double
    var asks: [Ask] = []
    /// The boxes taken, by 64-pixel column.
    var taken: [Int: [Box]] = [:]
    /// Each kind of mark drawn (its `data-legend` key), with the colours it was drawn in where they vary.
    var paints: [String: [String]] = [:]

    init(_ picture: TimelinePicture, right: Double) {
        self.picture = picture
        self.right = right
    }

    func used(_ key: String, _ paint: String? = nil) {
        var p = paints[key] ?? []
        if let paint, !p.contains(paint) { p.append(paint) }
        paints[key] = p
    }

    /// A text's width in the monospace font, estimated from its characters.
    func width(_ words: String, size: Int) -> Double {
        Double(words.count) * Double(size) * TimelinePicture.charWidth
    }

    /// Where a text drawn at `o` lies: its advance wide, from its ascent above the baseline to its descent below.
    func box(_ o: Option, _ words: String, size: Int) -> Box {
        let w = width(words, size: size)
        let x0 = o.anchor == "middle" ? o.x - w / 2 : o.anchor == "end" ? o.x - w : o.x
        return Box(x0: x0, y0: o.y - 0.8 * Double(size), x1: x0 + w, y1: o.y + 0.25 * Double(size))
    }

    func take(_ b: Box) {
        for c in Int((b.x0 / 64).rounded(.down))...Int((b.x1 / 64).rounded(.down)) { taken[c, default: []].append(b) }
    }

    func free(_ b: Box) -> Bool {
        for c in Int((b.x0 / 64).rounded(.down))...Int((b.x1 / 64).rounded(.down)) {
            if let boxes = taken[c], boxes.contains(where: { $0.overlaps(b) }) { return false }
        }
        return true
    }

    /// A text always drawn where it is (a lane's name, a final state, a heading).
    func fixed(
        _ x: Double, _ y: Double, _ words: String, role: Role, size: Int = 12, anchor: String? = nil, bold: Bool = false
    ) -> String {
        take(box(Option(x, y, anchor: anchor), words, size: size))
        return picture.text(x, y, words, fill: picture.ink(role), size: size, anchor: anchor, bold: bold)
    }

    /// A mark's markup, its box (`x`, `y`, `w`, `h`) kept clear of labels.
    func mark(_ markup: String, _ x: Double, _ y: Double, _ w: Double, _ h: Double) -> String {
        take(Box(x0: x, y0: y, x1: x + w, y1: y + h))
        return markup
    }

    /// A label placed later (`resolve`): at the first of `options` where it
    /// overlaps nothing (with `pad` pixels clear either side), or left out.
    /// Lower `priority` labels are placed first.
    func label(
        _ options: [Option], _ words: String, role: Role, size: Int, bold: Bool = false, priority: Int,
        pad: Double = 2
    ) -> String {
        asks.append(
            Ask(
                options: options, words: words, fill: picture.ink(role), size: size, bold: bold, priority: priority,
                pad: pad))
        return "\u{1}\(asks.count - 1)\u{1}"
    }

    /// `markup` with each label's place holder replaced by its text, or by nothing.
    func resolve(_ markup: String) -> String {
        var drawn = Array(repeating: "", count: asks.count)
        let order = asks.indices.sorted { (asks[$0].priority, $0) < (asks[$1].priority, $1) }
        for i in order {
            let a = asks[i]
            for o in a.options {
                let b = box(o, a.words, size: a.size)
                let padded = Box(x0: b.x0 - a.pad, y0: b.y0, x1: b.x1 + a.pad, y1: b.y1)
                guard b.x0 >= 0 && b.x1 <= right, free(padded) else { continue }
                take(b)
                drawn[i] = picture.text(o.x, o.y, a.words, fill: a.fill, size: a.size, anchor: o.anchor, bold: a.bold)
                break
            }
        }
        var out = ""
        out.reserveCapacity(markup.utf8.count)
        for (k, part) in markup.split(separator: "\u{1}", omittingEmptySubsequences: false).enumerated() {
            out += k % 2 == 0 ? String(part) : drawn[Int(part) ?? 0]
        }
        return out
    }
}
