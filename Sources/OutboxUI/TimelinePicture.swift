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
/// and a 200 ms attempt are both readable.
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
    /// Pixels per millisecond outside the breaks: 200 ms is 30 px, 1 s 150 px.
    static let scale = 0.15
    /// How wide a break is drawn, whatever its length.
    static let breakWidth = 76.0
    static let left = 210.0, laneHeight = 30.0, top = 34.0

    // MARK: SVG

    /// The swimlanes alone, as one SVG document (with the XML declaration and the
    /// SVG namespace a viewer needs to open the file by itself).
    public func svg(_ story: Story) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + lanes(story, standalone: true)
    }

    /// The `<svg>` element: the axis, a group of lanes per run, the legend.
    func lanes(_ story: Story, standalone: Bool) -> String {
        let axis = Axis(story.runs)
        // Room on the right for the longest final state (monospace, about 7.3 px a character).
        let longest = story.runs.flatMap { run in run.sim.requests.map { finalText($0).count } }.max() ?? 0
        let width = Self.left + axis.width + max(150, Double(longest) * 7.3 + 24)
        var body = ""
        var y = Self.top
        let titled = story.runs.count > 1 || !story.runs.allSatisfy { $0.label.isEmpty }
        for run in story.runs {
            body += group(run, axis: axis, y: &y, titled: titled)
        }
        let axisBottom = y
        var head = ""
        // Breaks first, behind everything: a band with its length written in it.
        for b in axis.breaks {
            head += "<g class=\"gap\" data-ms=\"\(b.duration)\">"
            head += rect(
                b.x0, Self.top - 6, b.x1 - b.x0, axisBottom - Self.top + 6, fill: colour(.overlay, bg: true),
                opacity: 0.55)
            head += line(b.x0, Self.top - 6, b.x0, axisBottom, stroke: colour(.timelineAxis), dash: "2 3")
            head += line(b.x1, Self.top - 6, b.x1, axisBottom, stroke: colour(.timelineAxis), dash: "2 3")
            head += text(
                (b.x0 + b.x1) / 2, Self.top - 10, "≈ " + Self.length(b.duration), fill: colour(.timelineAxis), size: 10,
                anchor: "middle")
            head +=
                "<title>\(xml("a quiet stretch of " + Self.length(b.duration) + " (" + Self.short(b.from) + " to " + Self.short(b.to) + "), drawn shortened"))</title></g>"
        }
        // The time labels along the top, skipping those that would overlap.
        var lastLabel = -1000.0
        for (t, x) in zip(axis.points, axis.xs) {
            head += line(x, Self.top - 4, x, axisBottom, stroke: colour(.timelineAxis), opacity: 0.25)
            if x - lastLabel >= 58 && !axis.breaks.contains(where: { x > $0.x0 + 1 && x < $0.x1 - 1 }) {
                head += text(x, 14, Self.short(t), fill: colour(.timelineAxis), size: 10, anchor: "middle")
                lastLabel = x
            }
        }
        y += 10
        let legendY = y
        let legend = self.legend(y: &y, width: width)
        let height = y + 8
        var out = "<svg"
        if standalone { out += " xmlns=\"http://www.w3.org/2000/svg\"" }
        out +=
            " class=\"timeline\" width=\"\(Self.n(width))\" height=\"\(Self.n(height))\" viewBox=\"0 0 \(Self.n(width)) \(Self.n(height))\""
        out += " font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"12\">\n"
        out += "<title>\(xml("outbox timeline: " + story.file))</title>\n"
        out += rect(0, 0, width, height, fill: colour(.normal, bg: true)) + "\n"
        out += head + "\n" + body
        out += line(Self.left, legendY - 10, Self.left + axis.width, legendY - 10, stroke: colour(.timelineAxis)) + "\n"
        out += legend
        out += "</svg>\n"
        return out
    }

    /// One run's lanes: a heading (in a compare), the device row, one lane per request.
    func group(_ run: Run, axis: Axis, y: inout Double, titled: Bool) -> String {
        let sim = run.sim
        var out = "<g class=\"group\" data-profile=\"\(xml(run.label.isEmpty ? sim.profile.rawValue : run.label))\">\n"
        let groupTop = y
        if titled {
            out += text(
                8, y + 14, run.label.isEmpty ? sim.profile.rawValue : run.label, fill: colour(.paneTitle), size: 13,
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
        let lanesHeight = Self.laneHeight * Double(sim.requests.count + 1)
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
            out += "<g class=\"offline\">" + rect(x0, y, x1 - x0, lanesHeight, fill: colour(.timelineOffline, bg: true))
            out += text(x0 + 3, y + 11, "offline", fill: colour(.offline, bg: true), size: 10)
            out +=
                "<title>\(xml("offline from " + Self.short(a) + " to " + (b == end && offlineFrom != nil ? "the end" : Self.short(b))))</title></g>\n"
        }
        // The device row: flushes, the purge, launches and closes.
        out += "<g class=\"device\">" + text(8, y + 19, "device", fill: colour(.dim))
        out += line(
            Self.left, y + Self.laneHeight - 0.5, Self.left + axis.width, y + Self.laneHeight - 0.5,
            stroke: colour(.border), opacity: 0.5)
        var flushStart: LogLine?
        // Labels on one baseline never overlap: one that would start inside the
        // previous is left out (its mark and tooltip stay), and a close and a
        // launch at one instant share one label, "relaunch".
        var labelEnds: [Double: Double] = [:]
        func label(_ x: Double, _ baseline: Double, _ word: String, fill: String, size: Int, bold: Bool = false)
            -> String
        {
            if let end = labelEnds[baseline], x < end { return "" }
            labelEnds[baseline] = x + Double(word.count * size) * 0.62 + 3
            return text(x, baseline, word, fill: fill, size: size, bold: bold)
        }
        for (i, l) in device.enumerated() {
            let x = axis.x(l.time)
            switch l.event {
            case .flushStarted:
                flushStart = l
            case .flushEnded:
                let s = flushStart ?? l
                let x0 = axis.x(s.time)
                out +=
                    "<g class=\"flush\">" + rect(x0, y + 18, max(x - x0, 3), 6, fill: colour(.paneTitle), opacity: 0.8)
                out += label(x0, y + 14, "flush", fill: colour(.paneTitle), size: 10)
                out +=
                    "<title>\(xml(Self.short(s.time) + " " + s.text + "\n" + Self.short(l.time) + " " + l.text))</title></g>"
                flushStart = nil
            case .flushNothingQueued:
                out +=
                    "<g class=\"flush\">" + rect(x - 1, y + 16, 3, 10, fill: colour(.paneTitle))
                    + "<title>\(xml(Self.short(l.time) + " " + l.text))</title></g>"
            case .purged:
                out +=
                    "<g class=\"purge\">"
                    + line(x, y + 2, x, y + lanesHeight, stroke: colour(.banner, bg: true), width: 3)
                out += label(x + 4, y + 11, "purge", fill: colour(.timelineFail), size: 10, bold: true)
                out += "<title>\(xml(Self.short(l.time) + " " + l.text))</title></g>"
            default:
                let launch = l.event.kind == "app-launched"
                let relaunch =
                    !launch && i + 1 < device.count && device[i + 1].time == l.time
                    && device[i + 1].event.kind == "app-launched"
                out += "<g class=\"app\">" + line(x, y + 6, x, y + 26, stroke: colour(.logOutbox), width: 2)
                out += label(
                    x + 3, y + 28, relaunch ? "relaunch" : launch ? "launch" : "close", fill: colour(.logOutbox),
                    size: 9)
                out += "<title>\(xml(Self.short(l.time) + " " + l.text))</title></g>"
            }
        }
        if let s = flushStart {
            let x0 = axis.x(s.time)
            out +=
                "<g class=\"flush\">"
                + rect(x0, y + 18, max(axis.x(end) - x0, 3), 6, fill: colour(.paneTitle), opacity: 0.8)
            out += "<title>\(xml(Self.short(s.time) + " " + s.text + " (still under way)"))</title></g>"
        }
        out += "</g>\n"
        y += Self.laneHeight
        for r in sim.requests {
            out += lane(r, transitions[Int(r.id)], notes[Int(r.id)], sim: sim, axis: axis, y: y)
            y += Self.laneHeight
        }
        if titled { out += line(0, y + 3, Self.left + axis.width, y + 3, stroke: colour(.border)) }
        y += titled ? 8 : 0
        _ = groupTop
        return out + "</g>\n"
    }

    /// One request's lane: its attempts, answers, waits and final state.
    func lane(_ r: Request, _ ts: [Transition], _ notes: [LogLine], sim: Simulation, axis: Axis, y: Double) -> String {
        let name = sim.names[Int(r.nameID)]
        let cy = y + Self.laneHeight / 2
        var out = "<g class=\"lane\" data-request=\"\(r.id)\" data-name=\"\(xml(name))\">"
        let label = "#\(r.id) " + name
        out += text(8, cy + 4, Self.cut(label, 26), fill: colour(.normal))
        out += "<title>\(xml("#\(r.id) " + name + " (" + r.kind.word + ")"))</title>"
        out += line(
            Self.left, y + Self.laneHeight - 0.5, Self.left + axis.width, y + Self.laneHeight - 0.5,
            stroke: colour(.border), opacity: 0.25)
        // The stretches between transitions, drawn by the state they are in.
        for (k, t) in ts.enumerated() where !t.to.isFinal {
            let until = k + 1 < ts.count ? ts[k + 1].time : axis.end
            let x0 = axis.x(t.time), x1 = axis.x(until)
            let span = Self.short(t.time) + " to " + (k + 1 < ts.count ? Self.short(until) : "the end")
            let what: String
            switch t.to {
            case .inFlight:
                out +=
                    "<g class=\"attempt\">"
                    + rect(x0, cy - 6, max(x1 - x0, 2), 12, fill: colour(.timelineAttempt), opacity: 0.85, rx: 2)
                what = "attempt \(t.attempt) in flight, " + span + " (" + Self.length(until - t.time) + ")"
            case .retrying:
                out += "<g class=\"wait\">" + line(x0, cy, x1, cy, stroke: colour(.timelineWait), width: 2, dash: "5 3")
                what =
                    "backoff wait, retrying after attempt \(t.attempt): " + span + " (" + Self.length(until - t.time)
                    + ")"
            case .queued:
                out += "<g class=\"queued\">" + line(x0, cy, x1, cy, stroke: colour(.stateQueued), width: 2)
                what = "queued, " + span
            default:
                out += "<g class=\"pending\">" + line(x0, cy, x1, cy, stroke: colour(.statePending), width: 2)
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
            if !t.outcome.isNone { head += " · " + t.outcome.word }
            if let why = t.reason { head += " · " + why.word }
            let tip = "<title>\(xml(head + "\n" + info.id + ": " + info.text))</title>"
            if !t.outcome.isNone {
                let c = t.outcome.isSuccess ? colour(.timelineOk) : colour(.timelineFail)
                out +=
                    "<g class=\"answer\">"
                    + "<circle cx=\"\(Self.n(x))\" cy=\"\(Self.n(cy))\" r=\"5\" fill=\"\(c)\" stroke=\"\(colour(.normal, bg: true))\"/>"
                out += text(x, cy - 10, t.outcome.word, fill: c, size: 9, anchor: "middle") + tip + "</g>"
            } else {
                out += "<g class=\"mark\">" + rect(x - 1.5, cy - 8, 3, 16, fill: colour(stateRole(t.to))) + tip + "</g>"
            }
        }
        for l in notes {
            let x = axis.x(l.time)
            let role: Role = l.source == .completion ? .logCompletion : l.source == .onError ? .logError : .logWarning
            let d = "M\(Self.n(x)) \(Self.n(cy + 7)) l4 4 l-4 4 l-4 -4 z"
            out +=
                "<g class=\"note\"><path d=\"\(d)\" fill=\"\(colour(role))\"/><title>\(xml(Self.short(l.time) + " " + l.text))</title></g>"
        }
        // The final state, to the right of the axis.
        let end = finalText(r)
        out +=
            "<g class=\"final\">"
            + text(Self.left + axis.width + 10, cy + 4, end, fill: colour(stateRole(r.state)), bold: r.state.isFinal)
        out += "<title>\(xml("#\(r.id) " + name + " at the end: " + end))</title></g>"
        return out + "</g>\n"
    }

    /// `dropped (exhausted) · 4 attempts`.
    func finalText(_ r: Request) -> String {
        var end = r.state.word
        if let why = r.reason { end += " (" + why.word + ")" }
        return end + (r.attempts == 1 ? " · 1 attempt" : " · \(r.attempts) attempts")
    }

    /// The legend: one swatch per kind of mark.
    func legend(y: inout Double, width: Double) -> String {
        let items: [(String, String)] = [
            ("attempt (in flight)", rect(0, -6, 22, 12, fill: colour(.timelineAttempt), opacity: 0.85, rx: 2)),
            ("answer ok", "<circle cx=\"11\" cy=\"0\" r=\"5\" fill=\"\(colour(.timelineOk))\"/>"),
            ("answer failed", "<circle cx=\"11\" cy=\"0\" r=\"5\" fill=\"\(colour(.timelineFail))\"/>"),
            ("backoff wait", line(0, 0, 22, 0, stroke: colour(.timelineWait), width: 2, dash: "5 3")),
            ("queued", line(0, 0, 22, 0, stroke: colour(.stateQueued), width: 2)),
            ("pending", line(0, 0, 22, 0, stroke: colour(.statePending), width: 2)),
            ("offline", rect(0, -8, 22, 16, fill: colour(.timelineOffline, bg: true))),
            ("flush", rect(0, -3, 22, 6, fill: colour(.paneTitle), opacity: 0.8)),
            ("purge", line(11, -8, 11, 8, stroke: colour(.banner, bg: true), width: 3)),
            ("quiet stretch, shortened", rect(0, -8, 22, 16, fill: colour(.overlay, bg: true), opacity: 0.55)),
        ]
        var out = "<g class=\"legend\">"
        var x = 8.0
        var row = y + 10
        for (word, swatch) in items {
            let w = 32 + Double(word.count) * 7.3 + 18
            if x + w > width - 8 { x = 8; row += 22 }
            out +=
                "<g transform=\"translate(\(Self.n(x)) \(Self.n(row)))\">" + swatch
                + text(30, 4, word, fill: colour(.normal), size: 11) + "</g>"
            x += w
        }
        out += text(
            8, row + 24, "hover a mark for its transition and rule · the right column is each request's final state",
            fill: colour(.dim), size: 11)
        y = row + 30
        return out + "</g>\n"
    }

    // MARK: HTML

    /// One page for several files: a section per file, each with its lanes, the
    /// backend totals, the requests' final states, the checks and the log.
    public func html(_ stories: [Story], title: String) -> String {
        let fg = colour(.normal), bg = colour(.normal, bg: true), dim = colour(.dim)
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
        out += "<title>\(xml(title))</title>\n<style>\n"
        out +=
            "body { background: \(bg); color: \(fg); font-family: DejaVu Sans Mono, Menlo, Consolas, monospace; font-size: 13px; margin: 16px; }\n"
        out +=
            "h1 { font-size: 18px; } h2 { font-size: 16px; color: \(colour(.paneTitle)); border-bottom: 1px solid \(colour(.border)); } h3 { font-size: 14px; color: \(colour(.paneTitle)); }\n"
        out +=
            ".lanes { overflow-x: auto; } table { border-collapse: collapse; } td, th { padding: 2px 10px 2px 0; text-align: left; vertical-align: top; }\n"
        out +=
            "th { color: \(dim); font-weight: normal; text-decoration: underline; } .pass { color: \(colour(.timelineOk)); } .fail { color: \(colour(.timelineFail)); font-weight: bold; }\n"
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
            out += "<tr><td>\(r.id)</td><td>\(xml(sim.names[Int(r.nameID)]))</td><td>\(r.kind.word)</td>"
            out += "<td style=\"color: \(colour(stateRole(r.state)))\">\(xml(state))</td><td>\(r.attempts)</td></tr>\n"
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

    init(_ runs: [TimelinePicture.Run]) {
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
                    breaks.append((x, x + TimelinePicture.breakWidth, points[k - 1], t, gap))
                    x += TimelinePicture.breakWidth
                } else {
                    x += Double(gap) * TimelinePicture.scale
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
