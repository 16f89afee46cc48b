import OutboxCore

/// The clock's parts of the screen: the speed or PAUSED and why in the header,
/// breakpoints and a play's checks in the status bar, the breakpoint chooser,
/// a play's `expect` results in the log.
extension AppView {
    /// Text from the model as the glyphs can show it: under ASCII, the arrows,
    /// speeds and marks the model writes become `->`, `0.1x`, `x`, by the one
    /// table `ScreenBuffer.put` folds with (`Glyphs.asciiTable`). Anything else
    /// is left to `put`, which escapes controls (`\u{9b}`) and folds the rest.
    static func glyphText(_ s: String, _ g: Glyphs) -> String {
        guard g.isASCII, s.unicodeScalars.contains(where: { !$0.isASCII }) else { return s }
        return s.unicodeScalars.map { Glyphs.asciiTable[$0.value] ?? String(Character($0)) }.joined()
    }

    /// The header's clock state: `▶ ⅒×` running, `PAUSED ¼× · #3 → retrying (LT-4)` paused.
    static func speedSegment(_ m: AppModel, g: Glyphs) -> (String, Role) {
        let speed = m.clockSpeed.text(ascii: g.isASCII)
        guard m.paused else { return ("\(g.play) \(speed) ", .headerAccent) }
        let why = m.pauseWhy.map { " \(g.sep) " + glyphText($0, g) } ?? ""
        return ("PAUSED \(speed)" + why + " ", .headerAccent)
    }

    /// The status bar's time parts while they matter: the breakpoints set and a
    /// play's checks (`break retrying,LT-2`, `play 3 ok`).
    static func timeStatus(_ m: AppModel) -> [(String, String)] {
        var out: [(String, String)] = []
        if !m.breakpoints.isEmpty { out.append(("b", "break " + m.breakpoints.map(\.text).joined(separator: ","))) }
        if let p = m.playStatus { out.append((".", p)) }
        return out
    }

    /// The breakpoint chooser (`b`): each entry with its letter, set ones marked.
    static func breakChooser(_ buf: inout ScreenBuffer, _ m: AppModel, g: Glyphs) {
        var rows: [(key: String, text: String, set: Bool)] = []
        for c in AppModel.breakStateChoices {
            rows.append((String(Character(c.key)), "becomes " + c.state.word, m.breakpoints.contains(.state(c.state))))
        }
        if let n = m.selected {
            let who = m.isComparing ? "row" : "request"
            rows.append(("s", "\(who) #\(n) changes state", m.breakpoints.contains(.request(n))))
        } else {
            rows.append(("s", "the selected request (none)", false))
        }
        if let r = m.selectedRule {
            rows.append(("l", "cites \(r) (#\(m.selected!)'s last rule)", m.breakpoints.contains(.rule(r))))
        } else {
            rows.append(("l", "cites the selected request's rule", false))
        }
        rows.append(("c", m.breakpoints.isEmpty ? "clear (none set)" : "clear all (\(m.breakpoints.count) set)", false))
        let h = min(buf.height - 2, rows.count + 4)
        let r = Rect(x: max(0, buf.width - 44), y: 1, width: min(42, buf.width), height: h)
        box(&buf, r, title: "Pause the clock when a request", g: g)
        var y = r.y + 1
        for row in rows {
            guard y < r.maxY - 3 else { break }
            buf.put((row.set ? g.check : " ") + row.key, x: r.x + 2, y: y, role: .helpKey)
            buf.put(row.text, x: r.x + 6, y: y, role: .help, limit: r.width - 8)
            y += 1
        }
        buf.put("any rule: :break rule ID", x: r.x + 2, y: r.maxY - 3, role: .dim, limit: r.width - 4)
        buf.put("a letter sets or clears; Esc cancels", x: r.x + 2, y: r.maxY - 2, role: .dim, limit: r.width - 4)
    }

    /// The help screen's extra rows: the breakpoints set now.
    static func breakHelpRows(_ m: AppModel) -> [(String, String, Bool)] {
        guard !m.breakpoints.isEmpty else { return [] }
        var rows: [(String, String, Bool)] = [("breakpoints set now", "", true)]
        for b in m.breakpoints { rows.append((b.text, m.describe(b), false)) }
        return rows
    }

    /// A played file's `expect` results among the log lines, by time (a check
    /// after the lines of its instant): what the log pane shows, newest last.
    /// Each item is (time, text, is a check, passed).
    static func logItems(_ m: AppModel, last n: Int, skip: Int) -> [(
        time: Millis, text: String, line: LogLine?, ok: Bool
    )] {
        let positions = m.sim.logPositions
        let results = m.player?.results ?? []
        var out: [(time: Millis, text: String, line: LogLine?, ok: Bool)] = []
        var i = positions.count - 1, k = results.count - 1
        let want = n + skip
        while out.count < want && (i >= 0 || k >= 0) {
            var takeCheck = k >= 0
            if takeCheck && i >= 0, case .log(let l) = m.sim.journal[Int(positions[i])] {
                takeCheck = results[k].time >= l.time
            }
            if takeCheck {
                let r = results[k]
                out.append(
                    (
                        r.time, "expect line \(r.line): \(r.text): " + (r.ok ? "ok" : "FAILED, found \(r.found)"), nil,
                        r.ok
                    ))
                k -= 1
            } else {
                if case .log(let l) = m.sim.journal[Int(positions[i])] { out.append((l.time, l.text, l, true)) }
                i -= 1
            }
        }
        return Array(out.dropFirst(skip).reversed())
    }
}

extension AppView {
    /// The log pane while a file plays: its log lines and, among them, each
    /// `expect` line reached, passed or failed.
    static func playLog(_ buf: inout ScreenBuffer, _ m: AppModel, rect: Rect, g: Glyphs) {
        for (i, item) in logItems(m, last: rect.height, skip: m.logScroll).enumerated() {
            let role = item.line.map(logRole) ?? (item.ok ? .logCompletion : .logError)
            let x = buf.put(" " + VirtualTime.clock(item.time) + " ", x: rect.x, y: rect.y + i, role: .dim)
            buf.put(item.text, x: x, y: rect.y + i, role: role, limit: rect.maxX - x)
        }
    }
}
