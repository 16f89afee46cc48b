import OutboxCore
import OutboxFoundation
import OutboxServe

/// `outbox serve --format html`: one self-contained page. A lane per event on
/// the run's time axis: each attempt a mark coloured by its answer, and under
/// `--profile` the window the profile predicted for the next attempt shaded
/// behind it (observed and predicted side by side, as the live compare puts
/// them); the plan's changes as lines across the lanes; then the events, the
/// checks and the unrecognised requests as tables.
extension ServeReport {
    /// The most event lanes drawn (the table lists every event up to `tableRows`).
    static let maxLanes = 300
    static let tableRows = 5000

    /// The answer's class, for its colour and legend.
    static func answerClass(_ a: Answer) -> String {
        switch a {
        case .ok, .partial: return "ok"
        case .status(let s), .retryAfter(let s, _):
            if (200...299).contains(s) { return "ok" }
            if s == 429 || s >= 500 { return "retry" }
            return "reject"
        case .timeout, .lost, .reset: return "held"
        }
    }

    var html: String {
        let s = session, x = { SafeText.xml($0) }
        let title = "outbox serve" + (file.isEmpty ? "" : " · " + file) + (profile.map { " · held to " + $0 } ?? "")
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
        out += "<title>\(x(title))</title>\n<style>\n"
        out +=
            "body { background: #ffffff; color: #1b1b1b; font-family: DejaVu Sans Mono, Menlo, Consolas, monospace; font-size: 13px; margin: 16px; }\n"
        out += "h1 { font-size: 18px; } h2 { font-size: 15px; border-bottom: 1px solid #bbb; }\n"
        out +=
            "table { border-collapse: collapse; } td, th { padding: 2px 10px 2px 0; text-align: left; vertical-align: top; }\n"
        out += "th { color: #555; font-weight: normal; text-decoration: underline; } .dim { color: #666; }\n"
        out +=
            ".conforms, .pass { color: #17692e; } .diverges, .fail { color: #b3141b; font-weight: bold; } .undecided { color: #7a5a00; }\n"
        out += ".lanes { overflow-x: auto; }\n</style>\n</head>\n<body>\n<h1>\(x(title))</h1>\n"
        out += "<p class=\"summary\">" + x(summaryLine) + "</p>\n"
        out += "<div class=\"lanes\">\n" + lanesSVG() + "</div>\n"
        out += "<h2>Events</h2>\n"
        if s.events.isEmpty {
            out += "<p class=\"dim\">no event arrived</p>\n"
        } else {
            out +=
                "<table class=\"events\"><tr><th>name</th><th>id</th><th>format</th><th>attempts</th><th>answers</th><th>verdict</th></tr>\n"
            for (i, e) in s.events.prefix(Self.tableRows).enumerated() {
                let answers = e.attempts.map {
                    VirtualTime.clock(s.requests[$0].time) + " " + s.requests[$0].answer.word
                }
                let v = verdicts?[i]
                let verdict = v.map { $0.kind.rawValue + ($0.why.isEmpty ? "" : ": " + $0.why) } ?? "observed"
                out += "<tr><td>\(x(e.name))</td><td>\(x(e.id))</td><td>\(e.format.rawValue)</td>"
                out += "<td>\(e.attemptCount)</td><td>\(x(answers.joined(separator: " · ")))</td>"
                out += "<td class=\"\(v?.kind.rawValue ?? "dim")\">\(x(verdict))</td></tr>\n"
            }
            out += "</table>\n"
            if s.events.count > Self.tableRows {
                out +=
                    "<p class=\"dim\">and \(s.events.count - Self.tableRows) more events (JSONL lists every one)</p>\n"
            }
        }
        out += "<h2>Checks</h2>\n"
        if results.isEmpty {
            out += "<p class=\"dim\">the script has no expect line</p>\n"
        } else {
            out += "<table class=\"checks\"><tr><th>line</th><th>expect</th><th>result</th></tr>\n"
            for r in results {
                out += "<tr class=\"\(r.ok ? "pass" : "fail")\"><td>\(r.line)</td><td>\(x(r.text))</td>"
                out += r.ok ? "<td>✓ pass</td></tr>\n" : "<td>✗ FAILED: found \(x(r.found))</td></tr>\n"
            }
            out += "</table>\n"
        }
        let unread = s.requests.enumerated().filter { $0.element.format == nil }
        if !unread.isEmpty {
            out += "<h2>Unrecognised requests</h2>\n<table class=\"unrecognised\">"
            out += "<tr><th>#</th><th>at</th><th>request</th><th>why</th><th>answer</th></tr>\n"
            for (n, r) in unread.prefix(Self.tableRows) {
                out += "<tr><td>\(n + 1)</td><td>\(VirtualTime.clock(r.time))</td>"
                out +=
                    "<td>\(x(r.method + " " + r.target))</td><td>\(x(r.problem ?? ""))</td><td>\(x(r.answer.word))</td></tr>\n"
            }
            out += "</table>\n"
        }
        if !s.log.isEmpty {
            out += "<h2>Log</h2>\n<pre class=\"log\">"
            for l in s.log { out += x(VirtualTime.clock(l.time) + "  " + l.text) + "\n" }
            out += "</pre>\n"
        }
        return out + "</body>\n</html>\n"
    }

    static func cut(_ s: String, _ n: Int) -> String { s.count <= n ? s : String(s.prefix(n - 1)) + "…" }

    /// The text report's last line.
    var summaryLine: String {
        text.split(separator: "\n").last.map { String($0) } ?? ""
    }

    /// The lanes: an axis over the run, a lane per event.
    func lanesSVG() -> String {
        let s = session, x = { SafeText.xml($0) }
        let colours = ["ok": "#2e9e4f", "retry": "#d9822b", "reject": "#c8323a", "held": "#7d7d7d"]
        let label = 230.0, plot = 760.0, laneH = 20.0, top = 40.0
        let lanes = s.events.prefix(Self.maxLanes)
        let end = max(endedAt, s.requests.last?.time ?? 0, 1)
        func px(_ t: Millis) -> Double { label + plot * Double(min(max(t, 0), end)) / Double(end) }
        func n(_ v: Double) -> String { Decimals.fixed(v, 1) }
        let height = top + laneH * Double(max(lanes.count, 1)) + 50
        var out =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(label + plot + 30))\" height=\"\(n(height))\" font-family=\"DejaVu Sans Mono, Menlo, monospace\" font-size=\"11\">\n"
        out += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
        // The axis: ticks at a round step, about eight of them.
        let steps: [Millis] = [
            100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000,
            3_600_000,
        ]
        let step = steps.first { end / $0 <= 8 } ?? 3_600_000
        let bottom = top + laneH * Double(max(lanes.count, 1))
        var t: Millis = 0
        while t <= end {
            out +=
                "<line x1=\"\(n(px(t)))\" y1=\"\(n(top - 6))\" x2=\"\(n(px(t)))\" y2=\"\(n(bottom))\" stroke=\"#e4e4e4\"/>\n"
            out +=
                "<text x=\"\(n(px(t)))\" y=\"\(n(top - 10))\" text-anchor=\"middle\" fill=\"#555\">\(VirtualTime.duration(t))</text>\n"
            t += step
        }
        // Where the plan or the network changed.
        for l in s.log {
            out +=
                "<line class=\"plan\" x1=\"\(n(px(l.time)))\" y1=\"\(n(top - 4))\" x2=\"\(n(px(l.time)))\" y2=\"\(n(bottom))\" stroke=\"#5b6bbf\" stroke-dasharray=\"3,3\"><title>\(x(VirtualTime.clock(l.time) + " " + l.text))</title></line>\n"
        }
        for (i, e) in lanes.enumerated() {
            let y = top + laneH * Double(i) + laneH / 2
            if i % 2 == 1 {
                out +=
                    "<rect x=\"0\" y=\"\(n(y - laneH / 2))\" width=\"\(n(label + plot + 30))\" height=\"\(n(laneH))\" fill=\"#f6f6f6\"/>\n"
            }
            out +=
                "<text x=\"4\" y=\"\(n(y + 4))\" fill=\"#1b1b1b\">\(x(Self.cut(e.name, 16) + " " + Self.cut(e.id, 10)))</text>\n"
            let rs = e.attempts.map { s.requests[$0] }
            // The profile's windows first, behind the marks.
            if let (p, st) = held {
                for (k, r) in rs.enumerated() {
                    let pr = Conformance.prediction(after: r, attempt: k + 1, profile: p, settings: st)
                    guard let w = pr.window else { continue }
                    let x0 = px(w.from), x1 = max(px(w.to), x0 + 2)
                    out +=
                        "<rect class=\"window\" x=\"\(n(x0))\" y=\"\(n(y - 6))\" width=\"\(n(x1 - x0))\" height=\"12\" fill=\"#5b6bbf\" opacity=\"0.22\"><title>\(x("attempt \(k + 2) predicted " + VirtualTime.clock(w.from) + " to " + VirtualTime.clock(w.to)))</title></rect>\n"
                }
            }
            for (k, r) in rs.enumerated() {
                if k > 0 {
                    out +=
                        "<line x1=\"\(n(px(rs[k - 1].time)))\" y1=\"\(n(y))\" x2=\"\(n(px(r.time)))\" y2=\"\(n(y))\" stroke=\"#999\"/>\n"
                }
            }
            for (k, r) in rs.enumerated() {
                let c = colours[Self.answerClass(r.answer)] ?? "#000"
                out +=
                    "<circle class=\"attempt\" cx=\"\(n(px(r.time)))\" cy=\"\(n(y))\" r=\"5\" fill=\"\(c)\"><title>\(x("attempt \(k + 1) at " + VirtualTime.clock(r.time) + ": " + r.answer.word))</title></circle>\n"
            }
            if let v = verdicts?[i] {
                let mark = v.kind == .conforms ? "✓" : v.kind == .diverges ? "✗" : "?"
                let c = v.kind == .conforms ? "#17692e" : v.kind == .diverges ? "#b3141b" : "#7a5a00"
                out +=
                    "<text x=\"\(n(label + plot + 8))\" y=\"\(n(y + 4))\" fill=\"\(c)\" font-weight=\"bold\">\(mark)<title>\(x(v.kind.rawValue + (v.why.isEmpty ? "" : ": " + v.why)))</title></text>\n"
            }
        }
        if s.events.isEmpty {
            out += "<text x=\"\(n(label))\" y=\"\(n(top + 14))\" fill=\"#666\">no event arrived</text>\n"
        }
        // The legend.
        var lx = label, ly = bottom + 28
        let legend =
            [("ok", "2xx"), ("retry", "429, 5xx"), ("reject", "other 4xx"), ("held", "timeout, lost")]
        for (k, words) in legend {
            out += "<circle cx=\"\(n(lx))\" cy=\"\(n(ly - 4))\" r=\"5\" fill=\"\(colours[k]!)\"/>\n"
            out += "<text x=\"\(n(lx + 9))\" y=\"\(n(ly))\" fill=\"#333\">\(words)</text>\n"
            lx += 120
        }
        if held != nil {
            out +=
                "<rect x=\"\(n(lx - 5))\" y=\"\(n(ly - 10))\" width=\"14\" height=\"12\" fill=\"#5b6bbf\" opacity=\"0.22\"/>\n"
            out += "<text x=\"\(n(lx + 13))\" y=\"\(n(ly))\" fill=\"#333\">predicted next attempt</text>\n"
        }
        if s.events.count > lanes.count {
            ly += 16
            out +=
                "<text x=\"\(n(label))\" y=\"\(n(ly))\" fill=\"#666\">the first \(lanes.count) of \(s.events.count) events are drawn</text>\n"
        }
        return out + "</svg>\n"
    }
}
