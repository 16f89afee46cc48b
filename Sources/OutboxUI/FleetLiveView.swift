import OutboxCore

/// The fleet's live screen (docs/fleet.md, "Live"), a function of the model:
/// the header, the load chart (attempts a second, stacked by what came of
/// them, the capacity as a dashed line, outages shaded), the backlog chart,
/// the summary so far and the status bar; the help over it on `?`. A chart
/// column is a second of virtual time, the newest at the right: as many of the
/// last seconds as fit the width.
public enum FleetLiveView {
    /// The chart's glyphs: a full cell of each part of the load, a part of a
    /// cell in eighths (Unicode) or by halves (ASCII), the shade of an outage.
    struct ChartGlyphs {
        var ok, over, failed, queued, shade, capacity, delivered: String
        var eighths: [String]
        static let unicode = ChartGlyphs(
            ok: "█", over: "▓", failed: "▒", queued: "█", shade: "░", capacity: "┄", delivered: "•",
            eighths: ["", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"])
        static let ascii = ChartGlyphs(
            ok: "#", over: "=", failed: "x", queued: "#", shade: ":", capacity: "-", delivered: "*",
            eighths: [])
    }

    /// The width of the charts' counts on the left.
    static let axisWidth = 7

    public static func render(_ m: FleetLiveModel, width: Int, height: Int, glyphs g: Glyphs = .unicode)
        -> ScreenBuffer
    {
        let d = AppView.drawnSize(width: width, height: height)
        var buf = AppView.screen(width: width, height: height, glyphs: g)
        guard d.width >= AppView.minWidth, d.height >= AppView.minHeight else {
            AppView.tooSmall(&buf, "outbox fleet --live", width: width, height: height, then: "q quits.")
            return buf
        }
        let cg = g.isASCII ? ChartGlyphs.ascii : ChartGlyphs.unicode
        header(&buf, m, g: g)
        let free = d.height - 9
        let loadRows = max(3, free * 2 / 3), backlogRows = max(1, free - loadRows)
        var y = 1
        let cap = m.fleet.capacity.map { " \(cg.capacity) capacity \($0)/s" } ?? ""
        AppView.separator(
            &buf, y: y, width: d.width,
            title:
                "Load, attempts/s: \(cg.ok) ok \(cg.over) over capacity \(cg.failed) failed \(cg.delivered) delivered\(cap) \(cg.shade) outage ",
            focused: false, rightTitle: nil, rightX: d.width, g: g)
        y += 1
        let window = visible(m, columns: d.width - axisWidth - 1)
        load(&buf, m, window, rect: Rect(x: axisWidth, y: y, width: d.width - axisWidth - 1, height: loadRows), cg)
        y += loadRows
        timeAxis(&buf, window, x: axisWidth, y: y, width: d.width - axisWidth - 1, g: g)
        y += 1
        AppView.separator(
            &buf, y: y, width: d.width, title: "Backlog, requests queued on the devices ", focused: false,
            rightTitle: nil, rightX: d.width, g: g)
        y += 1
        backlog(
            &buf, m, window, rect: Rect(x: axisWidth, y: y, width: d.width - axisWidth - 1, height: backlogRows), cg)
        y += backlogRows
        AppView.separator(
            &buf, y: y, width: d.width, title: "So far ", focused: false, rightTitle: nil, rightX: d.width, g: g)
        y += 1
        for (i, line) in summaryLines(m, g: g).prefix(3).enumerated() {
            buf.put(AppView.glyphText(line, g), x: 1, y: y + i, role: .normal, limit: d.width - 2)
        }
        status(&buf, m, y: d.height - 1, g: g)
        if case .help(let scroll) = m.mode {
            AppView.helpBox(&buf, rows: AppView.helpRows(FleetKeys.helpLines(ascii: g.isASCII)), scroll: scroll, g: g)
        }
        return buf
    }

    // MARK: Header

    static func header(_ buf: inout ScreenBuffer, _ m: FleetLiveModel, g: Glyphs) {
        buf.fill(Rect(x: 0, y: 0, width: buf.width, height: 1), role: .header)
        let f = m.fleet
        let profiles = f.mix.map(\.profile.name).joined(separator: "+")
        var parts: [(String, Role)] = [
            (" OUTBOX fleet", .headerAccent), (hms(m.now) + " / " + hms(f.duration), .header),
        ]
        if m.ended {
            parts.append(("end", .headerAccent))
        } else if m.paused {
            parts.append(("paused", .headerAccent))
        } else {
            parts.append((m.fastForward ? "ffwd" : m.speed.text(ascii: g.isASCII), .header))
        }
        if m.lag >= 2000 { parts.append(("lagging " + VirtualTime.duration(m.lag / 1000 * 1000), .banner)) }
        if let o = m.outageNow {
            parts.append(("backend \(g.none) down: " + o.what, .offline))
        } else {
            parts.append(("backend \(g.dot) up", .online))
        }
        parts.append(("\(f.devices) devices \(profiles)", .header))
        parts.append((SafeText.escaped(f.file, max: 60), .header))
        var x = 0
        for (i, part) in parts.enumerated() {
            if i > 0 { x = buf.put(" \(g.vLine) ", x: x, y: 0, role: .header) }
            x = buf.put(part.0, x: x, y: 0, role: part.1, limit: max(0, buf.width - x))
        }
    }

    // MARK: Charts

    /// The seconds the charts show: the last `columns` stepped, the first at column 0.
    static func visible(_ m: FleetLiveModel, columns: Int) -> Range<Int> {
        let n = max(1, columns)
        return max(0, m.second - n)..<m.second
    }

    /// A round number at least `v`: 1, 2 or 5 times a power of ten.
    static func niceCeiling(_ v: Int64) -> Int64 {
        var p: Int64 = 1
        while true {
            for k: Int64 in [1, 2, 5] where k * p >= v { return k * p }
            p *= 10
        }
    }

    /// Whether second `s` is in one of the outages.
    static func inOutage(_ s: Int, _ outages: [FleetFile.Outage], now: Millis) -> FleetFile.Outage? {
        let t = Millis(s) * 1000
        return outages.first { $0.from <= t && t < ($0.to ?? Millis.max) }
    }

    /// A count's height in eighths of a row on a chart of `rows` rows topped at `top`: at least one eighth if not 0.
    static func eighths(_ v: Int64, top: Int64, rows: Int) -> Int {
        guard v > 0, top > 0 else { return 0 }
        return max(1, min(rows * 8, Int((v * Int64(rows * 8) + top / 2) / top)))
    }

    /// A cell of a bar `h` eighths high, in row `r` from the bottom: nil when empty, else the glyph.
    static func barCell(_ h: Int, row r: Int, full: String, _ cg: ChartGlyphs) -> String? {
        let part = h - r * 8
        if part >= 8 { return full }
        if part <= 0 { return nil }
        if cg.eighths.isEmpty { return part >= 4 ? full : "." }
        return full == cg.ok || full == cg.queued ? cg.eighths[part] : full
    }

    static func load(
        _ buf: inout ScreenBuffer, _ m: FleetLiveModel, _ window: Range<Int>, rect: Rect, _ cg: ChartGlyphs
    ) {
        var most: Int64 = 1
        for s in window { most = max(most, m.counts[s].attempts, m.counts[s].delivered) }
        if let c = m.fleet.capacity { most = max(most, Int64(c) + Int64(c) / 10 + 1) }
        let top = niceCeiling(most)
        let rows = rect.height
        axisLabels(&buf, top: top, rect: rect)
        let capRow = m.fleet.capacity.map { min(rows - 1, eighths(Int64($0), top: top, rows: rows) / 8) }
        if let c = m.fleet.capacity, let r = capRow, r > 0 && r < rows - 1 {
            buf.put(pad(String(c), axisWidth - 1), x: 0, y: rect.maxY - 1 - r, role: .dim)
        }
        var labels: [(x: Int, outage: FleetFile.Outage)] = []
        for (c, s) in window.enumerated() {
            let x = rect.x + c
            let n = m.counts[s]
            let outage = inOutage(s, m.outages, now: m.now)
            let okH = eighths(n.attempts - n.over - n.failed, top: top, rows: rows)
            let overH = eighths(n.attempts - n.failed, top: top, rows: rows)
            let allH = eighths(n.attempts, top: top, rows: rows)
            let deliveredRow =
                n.delivered > 0 ? min(rows - 1, (eighths(n.delivered, top: top, rows: rows) - 1) / 8) : -1
            for r in 0..<rows {
                let y = rect.maxY - 1 - r
                // The part of the load at the cell's middle (a part-filled cell: at its top).
                let at = allH - r * 8 >= 8 ? r * 8 + 4 : allH - 1
                let part: (String, Role) =
                    at < okH
                    ? (cg.ok, .stateDelivered) : at < overH ? (cg.over, .stateRetrying) : (cg.failed, .stateDropped)
                if let glyph = barCell(allH, row: r, full: part.0, cg) {
                    buf.put(glyph, x: x, y: y, role: part.1)
                } else if r == deliveredRow {
                    buf.put(cg.delivered, x: x, y: y, role: .normal)
                } else if r == capRow {
                    buf.put(cg.capacity, x: x, y: y, role: outage == nil ? .dim : .timelineOffline)
                } else if outage != nil {
                    buf.put(cg.shade, x: x, y: y, role: .timelineOffline)
                }
            }
            if let o = outage, s == Int(o.from / 1000) || c == 0 { labels.append((x, o)) }
        }
        // An outage is named over its first column on screen, over the shading.
        for (x, o) in labels {
            buf.put("outage " + o.what, x: x, y: rect.y, role: .offline, limit: max(0, rect.maxX - x))
        }
    }

    static func backlog(
        _ buf: inout ScreenBuffer, _ m: FleetLiveModel, _ window: Range<Int>, rect: Rect, _ cg: ChartGlyphs
    ) {
        var most: Int64 = 1
        for s in window { most = max(most, m.queued[s]) }
        let top = niceCeiling(most)
        axisLabels(&buf, top: top, rect: rect)
        for (c, s) in window.enumerated() {
            let h = eighths(m.queued[s], top: top, rows: rect.height)
            let outage = inOutage(s, m.outages, now: m.now) != nil
            for r in 0..<rect.height {
                let y = rect.maxY - 1 - r
                if let glyph = barCell(h, row: r, full: cg.queued, cg) {
                    buf.put(glyph, x: rect.x + c, y: y, role: .stateQueued)
                } else if outage {
                    buf.put(cg.shade, x: rect.x + c, y: y, role: .timelineOffline)
                }
            }
        }
    }

    /// `HH:MM:SS`: the chart's seconds are whole.
    static func hms(_ t: Millis) -> String { String(VirtualTime.clock(t).dropLast(4)) }

    static func pad(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - s.count)) + s }

    /// The chart's top count at its top row, 0 at its bottom.
    static func axisLabels(_ buf: inout ScreenBuffer, top: Int64, rect: Rect) {
        buf.put(pad(String(top), axisWidth - 1), x: 0, y: rect.y, role: .timelineAxis)
        if rect.height > 1 { buf.put(pad("0", axisWidth - 1), x: 0, y: rect.maxY - 1, role: .timelineAxis) }
    }

    /// Ticks under the load chart at round seconds, each with its virtual time.
    static func timeAxis(_ buf: inout ScreenBuffer, _ window: Range<Int>, x: Int, y: Int, width: Int, g: Glyphs) {
        buf.put(String(repeating: g.hLine, count: width), x: x, y: y, role: .timelineAxis)
        // A column is a second: a label (a tee and HH:MM:SS) every 15 columns leaves room between.
        let step = 15
        for (c, s) in window.enumerated() where s % step == 0 && c + 9 <= width {
            buf.put(g.teeUp + hms(Millis(s) * 1000), x: x + c, y: y, role: .timelineAxis)
        }
    }

    // MARK: The summary so far

    static func fixed3(_ v: Double) -> String {
        let k = Int((v * 1000).rounded())
        let frac = String(k % 1000)
        return "\(k / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }

    static func summaryLines(_ m: FleetLiveModel, g: Glyphs) -> [String] {
        let t = m.totals, sep = " \(g.sep) "
        let amp = t.new == 0 ? "0.000" : fixed3(Double(t.attempts) / Double(t.new))
        let peak = m.peak
        var one = "events \(t.new)" + sep + "attempts \(t.attempts) (\(amp) per event)"
        one += sep + "peak \(peak.attempts)/s at \(hms(Millis(peak.second) * 1000))"
        if m.outages.contains(where: { $0.to.map { $0 <= m.now } ?? false }) { one += " (after the recovery)" }
        let dropped = m.dropped
        var two = "delivered \(t.delivered)" + sep + "dropped \(t.dropped)"
        if !dropped.isEmpty { two += " (" + dropped.map { "\($0.reason) \($0.count)" }.joined(separator: ", ") + ")" }
        two += sep + "queued \(m.queued.last ?? 0)" + sep + "over capacity \(t.over)" + sep + "failed \(t.failed)"
        let outs = m.outages.map { o in
            hms(o.from) + (g.isASCII ? "-" : "–") + (o.to.map(hms) ?? "") + " " + o.what
        }
        var three = outs.isEmpty ? "no outage" : "outages " + outs.joined(separator: ", ")
        if let last = m.counts.last {
            three +=
                sep
                + "last second \(last.attempts) attempts, \(last.delivered) delivered, \(last.over) over, \(last.failed) failed"
        }
        return [one, two, three]
    }

    // MARK: The status bar

    static func status(_ buf: inout ScreenBuffer, _ m: FleetLiveModel, y: Int, g: Glyphs) {
        let w = buf.width
        var typed: String?
        if case .command(let t) = m.mode { typed = t }
        if AppView.statusLine(&buf, typing: typed, message: m.message, y: y, g: g) { return }
        var x = 0
        for b in FleetKeys.bindings {
            guard var label = b.status else { continue }
            if b.action == .toggleBackend { label = m.outageNow == nil ? "down" : "up" }
            if b.action == .pause && m.paused { label = "play" }
            let key = b.keys[0].label(ascii: g.isASCII)
            guard x + key.count + label.count + 2 <= w else { break }
            x = buf.put(" " + key, x: x, y: y, role: .statusKey)
            x = buf.put(" " + label, x: x, y: y, role: .statusBar)
        }
    }
}
