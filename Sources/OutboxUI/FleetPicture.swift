import OutboxCore

/// A fleet's load drawn (issue 26, docs/fleet.md "Pictures"): `outbox fleet
/// --format svg|html`. One panel per profile (`--profiles`), stacked, every panel
/// on the same scales: the attempts the backend saw each second, those
/// delivered, answered over capacity and failed otherwise, the capacity as a
/// dashed line, the outages shaded and named, the backlog (queued) on an axis of
/// its own below, and the summary's figures beside.
///
/// Pure, like `TimelinePicture` (whose colours and marks it uses): it reads
/// results and returns text, byte for byte the same for the same results, with
/// nothing outside itself. A long run is drawn with at most `maxPoints` points a
/// curve: each point is the most in one second of its bucket of seconds, so a
/// one-second spike is never lost (D356).
public struct FleetPicture {
    /// One run: a profile's (or the file's mix's) result.
    public struct Panel {
        /// The panel's heading: the profile, or the file's mix.
        public let label: String
        public let result: FleetResult
        public let summary: FleetSummary

        public init(label: String, result: FleetResult, summary: FleetSummary) {
            self.label = label
            self.result = result
            self.summary = summary
        }
    }

    /// What is drawn: the panels of one fleet file, and the summary's figures.
    public struct Chart {
        /// The picture's heading (`fleet FILE: 1000 devices, 1h, capacity 50/s`).
        public let title: String
        public let capacity: Int?
        public let outages: [FleetFile.Outage]
        public let panels: [Panel]
        /// The summary, a row a figure: its name, then its value for each panel.
        public let figures: [(name: String, values: [String])]

        public init(
            title: String, capacity: Int?, outages: [FleetFile.Outage], panels: [Panel],
            figures: [(name: String, values: [String])]
        ) {
            self.title = title
            self.capacity = capacity
            self.outages = outages
            self.panels = panels
            self.figures = figures
        }

        var seconds: Int { panels.first?.result.seconds ?? 0 }
    }

    /// The timeline picture's colours, marks and escaping.
    let marks: TimelinePicture

    public init(theme: Theme = Theme.builtin("default")!) {
        marks = TimelinePicture(theme: theme)
    }

    // MARK: Layout (pixels)

    /// The most points a curve is drawn with.
    public static let maxPoints = 1000
    static let width = 1200.0, left = 70.0, plotWidth = 800.0, top = 46.0
    static let loadHeight = 200.0, backlogGap = 18.0, backlogHeight = 70.0, axisRoom = 22.0
    static let headerHeight = 22.0, panelGap = 18.0, figureLine = 15.0
    /// The rows the outages' names take turns in when they would overlap.
    static let outageRows = 3
    /// The figures' column: names from here, values ending at the picture's right less 10.
    static var figuresLeft: Double { left + plotWidth + 24 }

    /// How many seconds each point of a curve stands for: 1 up to `maxPoints` seconds.
    public static func bucket(seconds: Int) -> Int { max(1, (seconds + maxPoints - 1) / maxPoints) }

    /// The most of `values` in each bucket of `b` seconds.
    static func peaks(_ values: [Int64], bucket b: Int) -> [Int64] {
        stride(from: 0, to: values.count, by: b).map { values[$0..<min(values.count, $0 + b)].max() ?? 0 }
    }

    // MARK: SVG

    /// The picture alone, as one SVG document.
    public func svg(_ chart: Chart) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + picture(chart)
    }

    /// The `<svg>` element: the heading, a panel per run, the legend; the
    /// summary's figures beside each panel unless `figures` is false (the HTML
    /// page, whose table below gives them once).
    func picture(_ chart: Chart, figures: Bool = true) -> String {
        let seconds = max(1, chart.seconds)
        let b = Self.bucket(seconds: seconds)
        // One scale for every panel: the busiest second of any curve, or the capacity.
        var loadMost = Int64(chart.capacity ?? 0)
        var queuedMost: Int64 = 0
        for p in chart.panels {
            let r = p.result
            for curve in [r.attempts, r.delivered, r.over, r.failed] { loadMost = max(loadMost, curve.max() ?? 0) }
            queuedMost = max(queuedMost, r.queued.max() ?? 0)
        }
        let load = Scale(most: loadMost), backlog = Scale(most: queuedMost, ticks: 2)
        let axis = TimeAxis(seconds: seconds)
        var body = ""
        var y = Self.top
        for (k, p) in chart.panels.enumerated() {
            body += panel(
                p, values: figures ? chart.figures.map { ($0.name, $0.values[k]) } : [], chart: chart, at: &y,
                scales: (load, backlog), axis: axis, bucket: b)
        }
        let legendY = y + 4
        let legend = self.legend(chart, y: legendY, bucket: b, seconds: seconds)
        let height = legendY + 62
        let w = Self.width
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"fleet\""
        out += " width=\"\(n(w))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(w)) \(n(height))\""
        out += " font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"12\">\n"
        out += "<title>\(marks.xml("outbox " + chart.title))</title>\n"
        out += marks.rect(0, 0, w, height, fill: marks.colour(.normal, bg: true)) + "\n"
        out += marks.text(8, 22, chart.title, fill: marks.ink(.normal), size: 13, bold: true) + "\n"
        if chart.panels.count > 1 {
            out +=
                marks.text(
                    8, 38, "\(chart.panels.count) runs of the same fleet, one profile each, on the same scales",
                    fill: marks.ink(.dim), size: 11) + "\n"
        }
        return out + body + legend + "</svg>\n"
    }

    /// One run's panel: its heading, the load chart, the backlog chart, the time labels, its figures.
    func panel(
        _ p: Panel, values: [(String, String)], chart: Chart, at y: inout Double,
        scales: (load: Scale, backlog: Scale), axis: TimeAxis, bucket b: Int
    ) -> String {
        let r = p.result
        let x0 = Self.left, x1 = Self.left + Self.plotWidth
        let loadTop = y + Self.headerHeight, loadBottom = loadTop + Self.loadHeight
        let backTop = loadBottom + Self.backlogGap, backBottom = backTop + Self.backlogHeight
        let axisColour = marks.colour(.timelineAxis), dim = marks.ink(.dim)
        func xAt(_ second: Double) -> Double { x0 + second / Double(axis.seconds) * Self.plotWidth }
        func yLoad(_ v: Int64) -> Double { loadBottom - Double(v) / Double(scales.load.top) * Self.loadHeight }
        func yBack(_ v: Int64) -> Double { backBottom - Double(v) / Double(scales.backlog.top) * Self.backlogHeight }

        var out = "<g class=\"panel\" data-profile=\"\(marks.xml(p.label))\">\n"
        out += marks.text(x0, y + 15, p.label, fill: marks.ink(.paneTitle), size: 13, bold: true) + "\n"
        // Behind everything: the outages, over both charts; their names after
        // all of them, so that no shading hides the name of the one before.
        var labelEnd = -Double.infinity, row = 0
        var names = ""
        var nameBoxes: [(x0: Double, x1: Double, y: Double)] = []
        for o in chart.outages {
            let from = Double(o.from) / 1000, to = Double(o.to ?? Millis(axis.seconds) * 1000) / 1000
            let a = xAt(from), w = max(1, xAt(to) - a)
            let words =
                "outage " + TimeAxis.label(Int(from)) + "–" + (o.to.map { TimeAxis.label(Int($0 / 1000)) } ?? "end")
                + ": " + o.what
            let key =
                "data-from=\"\(VirtualTime.seconds(o.from))\" data-to=\"\(o.to.map(VirtualTime.seconds) ?? "end")\""
            out += "<g class=\"outage\" \(key)>"
            out += marks.rect(a, loadTop, w, backBottom - loadTop, fill: marks.colour(.timelineOffline, bg: true))
            out += "<title>\(marks.xml(words))</title></g>\n"
            // A name that would run into the one before it goes a row lower (three rows).
            row = a < labelEnd ? (row + 1) % Self.outageRows : 0
            labelEnd = a + 4 + Double(words.count) * 10 * TimelinePicture.charWidth + 8
            let ny = loadTop + 12 + Double(row) * 13
            nameBoxes.append((a + 4, labelEnd - 8, ny))
            names += "<g class=\"outage-name\" \(key)>"
            names += marks.text(a + 4, ny, words, fill: dim, size: 10) + "</g>\n"
        }
        out += names
        // The grid: time ticks through both charts, count ticks across each.
        for t in axis.ticks {
            let x = xAt(Double(t))
            out += "<g class=\"tick\" data-t=\"\(t)\">"
            out += marks.line(x, loadTop, x, backBottom, stroke: axisColour, opacity: 0.35)
            out += marks.text(x, backBottom + 15, TimeAxis.label(t), fill: dim, size: 10, anchor: "middle")
            out += "</g>\n"
        }
        let axes = [
            ("load", scales.load, yLoad, loadTop, loadBottom), ("queued", scales.backlog, yBack, backTop, backBottom),
        ]
        for (name, scale, yAt, top, bottom) in axes {
            for v in scale.ticks {
                let ty = yAt(v)
                out += "<g class=\"count\" data-axis=\"\(name)\" data-v=\"\(v)\">"
                out += marks.line(x0, ty, x1, ty, stroke: axisColour, opacity: v == 0 ? 1 : 0.35)
                out += marks.text(x0 - 6, ty + 4, Scale.label(v), fill: dim, size: 10, anchor: "end") + "</g>"
            }
            out += marks.line(x0, top, x0, bottom, stroke: axisColour) + "\n"
        }
        out += sideways(18, (loadTop + loadBottom) / 2, "per second", fill: dim)
        out += sideways(18, (backTop + backBottom) / 2, "queued", fill: dim) + "\n"
        // The curves, a point per bucket at its middle.
        func points(_ values: [Int64], _ yAt: (Int64) -> Double) -> [(Double, Double)] {
            Self.peaks(values, bucket: b).enumerated().map { k, v in
                let first = k * b, count = min(b, values.count - first)
                return (xAt(Double(first) + Double(count) / 2), yAt(v))
            }
        }
        func text(_ pts: [(Double, Double)]) -> String { pts.map { n($0.0) + "," + n($0.1) }.joined(separator: " ") }
        let queued = points(r.queued, yBack)
        if let first = queued.first, let last = queued.last {
            out +=
                "<polygon class=\"curve\" data-curve=\"queued\" points=\"\(n(first.0)),\(n(backBottom)) \(text(queued)) \(n(last.0)),\(n(backBottom))\""
            out +=
                " fill=\"\(marks.colour(.stateQueued))\" fill-opacity=\"0.6\" stroke=\"\(marks.colour(.stateQueued))\"/>\n"
        }
        for (key, values, role, width) in Self.curves(r) {
            out += "<polyline class=\"curve\" data-curve=\"\(key)\" points=\"\(text(points(values, yLoad)))\""
            out +=
                " fill=\"none\" stroke=\"\(marks.colour(role))\" stroke-width=\"\(n(width))\" stroke-linejoin=\"round\"/>\n"
        }
        // The capacity over the curves, its name on a patch of the page so it reads.
        if let c = chart.capacity {
            let cy = yLoad(Int64(c))
            out += "<g class=\"capacity\" data-capacity=\"\(c)\">"
            out += marks.line(x0, cy, x1, cy, stroke: marks.colour(.normal), width: 1.5, dash: "6 4")
            let words = "capacity \(c)/s"
            let wide = Double(words.count) * 10 * TimelinePicture.charWidth
            out += marks.rect(x1 - 8 - wide, cy - 14, wide + 6, 12, fill: marks.colour(.normal, bg: true), opacity: 0.8)
            out += marks.text(x1 - 4, cy - 4, words, fill: marks.ink(.normal), size: 10, anchor: "end")
            out += "</g>\n"
        }
        // The peak after the recovery (of the whole run without an outage).
        let peak = p.summary.peak
        if peak.attempts > 0 {
            let px = xAt(Double(peak.second) + 0.5), py = yLoad(peak.attempts)
            let words = "peak \(peak.attempts)/s at " + TimeAxis.label(peak.second)
            out += "<g class=\"peak\" data-t=\"\(peak.second)\" data-attempts=\"\(peak.attempts)\">"
            out +=
                "<circle cx=\"\(n(px))\" cy=\"\(n(py))\" r=\"4\" fill=\"none\" stroke=\"\(marks.ink(.normal))\" stroke-width=\"1.5\"/>"
            let wide = Double(words.count) * 10 * TimelinePicture.charWidth
            let right = px + 8 + wide > x1
            let lx0 = right ? px - 8 - wide : px + 8
            // Beside the marker, lower while it would run into an outage's name.
            var ly = max(loadTop + 10, py - 2)
            while ly < loadBottom - 4,
                nameBoxes.contains(where: { abs($0.y - ly) < 12 && $0.x0 < lx0 + wide && lx0 < $0.x1 })
            {
                ly += 13
            }
            out += marks.text(
                right ? px - 8 : px + 8, ly, words, fill: marks.ink(.normal), size: 10,
                anchor: right ? "end" : nil)
            out += "<title>\(marks.xml(words))</title></g>\n"
        }
        // The figures, beside the charts.
        var fy = loadTop + 10
        if !values.isEmpty {
            out += "<g class=\"figures\">"
            for (name, value) in values {
                out += marks.text(Self.figuresLeft, fy, name, fill: dim, size: 11)
                out += marks.text(Self.width - 10, fy, value, fill: marks.ink(.normal), size: 11, anchor: "end")
                fy += Self.figureLine
            }
            out += "</g>\n"
        }
        out += "</g>\n"
        y = max(backBottom + Self.axisRoom, fy) + Self.panelGap
        return out
    }

    /// The load curves, drawn in this order: the attempts first and widest, so
    /// what came of them shows on top (delivered counts requests, a batch's
    /// many, where an attempt is a batch).
    static func curves(_ r: FleetResult) -> [(key: String, values: [Int64], role: Role, width: Double)] {
        [
            ("attempts", r.attempts, .timelineAttempt, 3), ("delivered", r.delivered, .stateDelivered, 1.2),
            ("over", r.over, .timelineWait, 1.2), ("failed", r.failed, .timelineFail, 1.2),
        ]
    }

    /// A swatch for each kind of mark, and how a point stands for its seconds.
    func legend(_ chart: Chart, y: Double, bucket b: Int, seconds: Int) -> String {
        var items: [(String, String, String)] = [
            ("attempts", "attempts", marks.line(0, 0, 22, 0, stroke: marks.colour(.timelineAttempt), width: 3)),
            ("delivered", "delivered", marks.line(0, 0, 22, 0, stroke: marks.colour(.stateDelivered), width: 2)),
            ("over", "answered over capacity", marks.line(0, 0, 22, 0, stroke: marks.colour(.timelineWait), width: 2)),
            ("failed", "failed otherwise", marks.line(0, 0, 22, 0, stroke: marks.colour(.timelineFail), width: 2)),
            ("queued", "queued (own axis)", marks.rect(0, -6, 22, 12, fill: marks.colour(.stateQueued), opacity: 0.6)),
        ]
        if chart.capacity != nil {
            items.append(
                (
                    "capacity", "capacity",
                    marks.line(0, 0, 22, 0, stroke: marks.colour(.normal), width: 1.5, dash: "6 4")
                ))
        }
        if !chart.outages.isEmpty {
            items.append(
                ("outage", "outage", marks.rect(0, -8, 22, 16, fill: marks.colour(.timelineOffline, bg: true))))
        }
        // As the summary names it: after the recovery when the last outage ended, of the whole run otherwise.
        let peak = chart.outages.last?.to != nil ? "peak after the recovery" : "peak"
        items.append(
            (
                "peak", peak,
                "<circle cx=\"11\" cy=\"0\" r=\"4\" fill=\"none\" stroke=\"\(marks.ink(.normal))\" stroke-width=\"1.5\"/>"
            ))
        var out = "<g class=\"legend\">"
        var x = 8.0
        for (key, word, swatch) in items {
            out += "<g class=\"key\" data-legend=\"\(key)\" transform=\"translate(\(n(x)) \(n(y + 10)))\">" + swatch
            out += marks.text(30, 4, word, fill: marks.ink(.normal), size: 11) + "</g>"
            x += 30 + Double(word.count) * 11 * TimelinePicture.charWidth + 20
        }
        let how =
            b == 1
            ? "one point per second of virtual time (\(seconds) points a curve)"
            : "each point is the most in one second of its \(b) s (\(seconds) s drawn as \((seconds + b - 1) / b) points a curve), so no spike is lost"
        out += marks.text(8, y + 36, how, fill: marks.ink(.dim), size: 11)
        out += marks.text(
            8, y + 52, "counts per second on the left; time in minutes of virtual time", fill: marks.ink(.dim), size: 11
        )
        return out + "</g>\n"
    }

    func n(_ v: Double) -> String { TimelinePicture.n(v) }

    /// An axis's name, written upwards, centred on (`x`, `y`).
    func sideways(_ x: Double, _ y: Double, _ words: String, fill: String) -> String {
        "<text x=\"\(n(x))\" y=\"\(n(y))\" fill=\"\(fill)\" font-size=\"10\" text-anchor=\"middle\" transform=\"rotate(-90 \(n(x)) \(n(y)))\">"
            + marks.xml(words) + "</text>"
    }

    // MARK: HTML

    /// One page: the picture (without the figures beside its panels), then the
    /// summary as a table, a column per panel: the figures once, as text.
    public func html(_ chart: Chart, title: String) -> String {
        let fg = marks.ink(.normal), bg = marks.colour(.normal, bg: true), dim = marks.ink(.dim)
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
        out += "<title>\(marks.xml(title))</title>\n<style>\n"
        out +=
            "body { background: \(bg); color: \(fg); font-family: DejaVu Sans Mono, Menlo, Consolas, monospace; font-size: 13px; margin: 16px; }\n"
        out += "h1 { font-size: 18px; } h2 { font-size: 16px; color: \(marks.ink(.paneTitle)); }\n"
        out +=
            ".chart { overflow-x: auto; } .chart svg { max-width: 100%; height: auto; } table { border-collapse: collapse; } td, th { padding: 2px 14px 2px 0; text-align: right; }\n"
        out +=
            "th { color: \(dim); font-weight: normal; text-decoration: underline; } td:first-child, th:first-child { text-align: left; color: \(dim); }\n"
        out += "</style>\n</head>\n<body>\n<h1>\(marks.xml(title))</h1>\n"
        out +=
            "<div class=\"chart\">\n" + picture(chart, figures: false)
            + "</div>\n<h2>Summary</h2>\n<table class=\"summary\">\n<tr><th></th>"
        for p in chart.panels { out += "<th>\(marks.xml(p.label))</th>" }
        out += "</tr>\n"
        for row in chart.figures {
            out +=
                "<tr><td>\(marks.xml(row.name))</td>" + row.values.map { "<td>\(marks.xml($0))</td>" }.joined()
                + "</tr>\n"
        }
        out += "</table>\n"
        if !chart.outages.isEmpty {
            out += "<h2>Outages</h2>\n<ul class=\"outages\">\n"
            for o in chart.outages {
                out +=
                    "<li>\(VirtualTime.clock(o.from).dropLast(4))–\(o.to.map { String(VirtualTime.clock($0).dropLast(4)) } ?? "end"): \(marks.xml(o.what))</li>\n"
            }
            out += "</ul>\n"
        }
        return out + "</body>\n</html>\n"
    }
}

/// The counts axis: ticks at a round step (1, 2 or 5 times a power of ten), the
/// top one at or above the most drawn.
struct Scale {
    let ticks: [Int64]
    var top: Int64 { max(1, ticks.last ?? 1) }

    init(most: Int64, ticks wanted: Int64 = 4) {
        var step: Int64 = 1
        var k: Int64 = 1
        outer: while true {
            for m: Int64 in [1, 2, 5] where (most + m * k - 1) / (m * k) <= wanted {
                step = m * k
                break outer
            }
            k *= 10
        }
        let count = max(1, (most + step - 1) / step)
        ticks = (0...count).map { $0 * step }
    }

    /// A count for an axis: `950`, `12k`, `1.5M`.
    static func label(_ v: Int64) -> String {
        func short(_ x: Int64, _ unit: Int64, _ suffix: String) -> String {
            let tenths = x * 10 / unit
            return (tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(tenths % 10)") + suffix
        }
        if v >= 1_000_000 { return short(v, 1_000_000, "M") }
        if v >= 10_000 { return short(v, 1000, "k") }
        return String(v)
    }
}

/// The time axis: seconds of virtual time, ticks at a round step, labelled in minutes.
struct TimeAxis {
    let seconds: Int
    let ticks: [Int]

    static let steps = [
        1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
    ]

    init(seconds: Int) {
        self.seconds = seconds
        let step = Self.steps.first { seconds / $0 <= 12 } ?? 86400
        ticks = Array(stride(from: 0, through: seconds, by: step))
    }

    /// `0`, `45s`, `10m`, `1m30s`; hours from 3 hours on (`4h`, `4h30m`).
    static func label(_ t: Int) -> String {
        if t == 0 { return "0" }
        if t < 60 { return "\(t)s" }
        if t >= 3 * 3600 && t % 60 == 0 { return "\(t / 3600)h" + (t % 3600 == 0 ? "" : "\(t % 3600 / 60)m") }
        return "\(t / 60)m" + (t % 60 == 0 ? "" : "\(t % 60)s")
    }
}
