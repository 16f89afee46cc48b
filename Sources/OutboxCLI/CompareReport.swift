import OutboxCore

/// What `outbox compare` prints for one file once its profiles have run: the
/// table of matched requests (text) or the skipped and diverged objects (JSONL),
/// and a summary line per profile.
struct CompareReport {
    let story: CompareCommand.Story
    let played: [CompareCommand.Played]
    let sims: [Simulation]
    let match: RequestMatch
    /// Per row of `match`: whether the profiles end it differently, and where they part.
    let differs: [Bool]
    let divergences: [Int: Divergence]

    /// `rows`: match the requests and find where they part (false: only the summaries are wanted).
    init(story: CompareCommand.Story, played: [CompareCommand.Played], rows: Bool = true) {
        self.story = story
        self.played = played
        let sims = played.map(\.runner.sim)
        var match = RequestMatch(runs: sims.count)
        if rows { match.update(sims) }
        let differs = match.rows.map { $0.differs(in: sims) }
        self.sims = sims
        self.match = match
        self.differs = differs
        // The transitions of the differing rows only, read back from each profile's log.
        var steps: [[Int32: [CompareStep]]] = []
        for (run, p) in played.enumerated() {
            var ids = Set<Int32>()
            for (k, row) in match.rows.enumerated() where differs[k] {
                if let id = row.ids[run] { ids.insert(id) }
            }
            steps.append(p.log.steps(of: ids))
        }
        var divergences: [Int: Divergence] = [:]
        for (k, row) in match.rows.enumerated() where differs[k] {
            let seqs = row.ids.enumerated().map { run, id in id.map { steps[run][$0] ?? [] } }
            if let d = Divergence.find(seqs) { divergences[k] = d }
        }
        self.divergences = divergences
    }

    var profiles: [Profile] { story.profiles }

    // MARK: Text

    /// How much room a cell's words take: `full` on wide terminals, `short` (with
    /// a legend) when three profiles must fit 80 columns.
    enum Level { case short, full }

    /// Under a short table: what each field and `-` mean (two lines, each within
    /// 80 columns). The completion field is named as the first profile with
    /// completion handlers says (`say legend.completion`), and left out when none has.
    static func legend(_ profiles: [Profile]) -> String {
        guard let p = profiles.first(where: \.hasCompletions) else {
            return "cells: state or drop reason, attempts, S saved;\n" + "       - where it is not saved"
        }
        return "cells: state or drop reason, attempts, S saved, \(p.text(.legendCompletion)) T true F false;\n"
            + "       - where it is not saved, or no completion was called"
    }

    /// A profile's cell of one row, as fields laid out in columns.
    func fields(_ row: RequestMatch.Row, _ run: Int, _ level: Level) -> [String] {
        guard let id = row.ids[run] else { return ["(not made)"] }
        let r = sims[run].request(id)
        var f: [String] = []
        switch level {
        case .full:
            f.append(r.state == .dropped ? "dropped: " + (r.reason?.word ?? "?") : r.state.word)
            f.append(r.attempts == 1 ? "1 attempt" : "\(r.attempts) attempts")
            f.append(r.saved ? "saved" : "")
            if profiles[run].hasCompletions { f.append("completion " + r.completion.word) }
        case .short:
            f.append(r.state == .dropped ? (r.reason?.word ?? "dropped") : r.state.word)
            f.append(String(r.attempts))
            f.append(r.saved ? "S" : "-")
            if profiles[run].hasCompletions {
                switch r.completion {
                case .success: f.append("T")
                case .failure: f.append("F")
                default: f.append("-")
                }
            }
        }
        return f
    }

    /// The rows' name column: the name, escaped, and `(2)` for a second request of that name.
    func rowName(_ row: RequestMatch.Row) -> String {
        SafeText.escaped(row.name, max: 60) + (row.occurrence > 1 ? " (\(row.occurrence))" : "")
    }

    /// What a profile's column holds, gathered in one pass without building its
    /// cells' text: the widths of both levels follow from it.
    struct ColumnSeen {
        var states: [RequestState: Set<DropReason?>] = [:]
        var minAttempts = Int32.max, maxAttempts = Int32.min
        var saved = false
        var completions = Set<UInt8>()
        var made = false
    }

    func seen() -> [ColumnSeen] {
        profiles.indices.map { run in
            var c = ColumnSeen()
            for row in match.rows {
                guard let id = row.ids[run] else { continue }
                let r = sims[run].request(id)
                c.made = true
                c.states[r.state, default: []].insert(r.reason)
                c.minAttempts = min(c.minAttempts, r.attempts)
                c.maxAttempts = max(c.maxAttempts, r.attempts)
                c.saved = c.saved || r.saved
                c.completions.insert(r.completion.rawValue)
            }
            return c
        }
    }

    /// Column widths for each profile's fields at `level`: the widest of what
    /// `fields` makes for the requests seen.
    func widths(_ level: Level, _ seen: [ColumnSeen]) -> [[Int]] {
        profiles.indices.map { run in
            let c = seen[run]
            guard c.made else { return [] }
            var state = 0
            for (s, reasons) in c.states {
                for reason in reasons {
                    let text =
                        s == .dropped
                        ? (level == .full ? "dropped: " : "") + (reason?.word ?? (level == .full ? "?" : "dropped"))
                        : s.word
                    state = max(state, text.count)
                }
            }
            var w: [Int]
            switch level {
            case .full:
                func att(_ n: Int32) -> Int { n == 1 ? "1 attempt".count : "\(n) attempts".count }
                w = [state, max(att(c.minAttempts), att(c.maxAttempts)), c.saved ? "saved".count : 0]
                if profiles[run].hasCompletions {
                    w.append(c.completions.map { "completion ".count + Completion(rawValue: $0)!.word.count }.max()!)
                }
            case .short:
                w = [state, String(c.maxAttempts).count, 1]
                if profiles[run].hasCompletions { w.append(1) }
            }
            return w
        }
    }

    /// Between a cell's fields: two spaces when there is room, one when not.
    func gap(_ level: Level) -> Int { level == .full ? 2 : 1 }

    func cellWidth(_ w: [Int], _ run: Int, _ level: Level) -> Int {
        // A field no row fills (nothing saved, say) takes no room.
        let used = w.filter { $0 > 0 }
        let sum = used.reduce(0, +) + max(0, used.count - 1) * gap(level)
        return max(sum, profiles[run].rawValue.count, "(not made)".count)
    }

    func printText(console: Console, width: Int, quiet: Bool, heading: Bool) {
        if heading {
            console.print(SafeText.line("== \(story.file): " + profiles.map(\.rawValue).joined(separator: ", ")))
        }
        for s in story.skips {
            let head = SafeText.line(
                "skipped \(story.file):\(s.skip.line) `\(s.skip.text)` on "
                    + s.profiles.map(\.rawValue).joined(separator: ", ")
                    + ":")
            // The reason goes under it when both do not fit on one line.
            if head.count + 1 + s.skip.reason.count <= width {
                console.print(head + " " + s.skip.reason)
            } else {
                console.print(head)
                console.print("  " + s.skip.reason)
            }
        }
        if !quiet { printTable(console: console, width: width) }
        for line in summaryLines(width: width) { console.print(line) }
    }

    func printTable(console: Console, width: Int) {
        guard !match.rows.isEmpty else {
            console.print("  no requests on any profile")
            return
        }
        let names = match.rows.map(rowName)
        let longest = max(names.map(\.count).max() ?? 0, "request".count)
        func total(_ level: Level, _ w: [[Int]]) -> Int {
            profiles.indices.reduce(2) { $0 + 2 + cellWidth(w[$1], $1, level) }
        }
        let seen = self.seen()
        var level = Level.full
        var w = widths(.full, seen)
        if total(.full, w) + min(longest, 12) > width {
            level = .short
            w = widths(.short, seen)
        }
        let nameWidth = max(min(longest, width - total(level, w)), min(longest, 8))
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
        func fit(_ s: String, _ n: Int) -> String { s.count <= n ? pad(s, n) : String(s.prefix(n - 1)) + "…" }
        func trimmed(_ s: String) -> String {
            var s = Substring(s)
            while s.last == " " { s.removeLast() }
            return String(s)
        }
        var header = "  " + pad("request", nameWidth)
        for (run, p) in profiles.enumerated() { header += "  " + pad(p.rawValue, cellWidth(w[run], run, level)) }
        console.print(trimmed(header))
        for (k, row) in match.rows.enumerated() {
            // A cut name keeps its `(2)`: the rows of one name stay told apart.
            let suffix = row.occurrence > 1 ? " (\(row.occurrence))" : ""
            let name =
                names[k].count <= nameWidth
                ? pad(names[k], nameWidth)
                : fit(String(names[k].dropLast(suffix.count)), max(1, nameWidth - suffix.count)) + suffix
            var line = (differs[k] ? "! " : "  ") + name
            for run in profiles.indices {
                let f = fields(row, run, level)
                var cell = ""
                if f.count == 1 {
                    cell = f[0]
                } else {
                    for (j, s) in f.enumerated() where w[run][j] > 0 {
                        if !cell.isEmpty { cell += String(repeating: " ", count: gap(level)) }
                        // Attempts line up on the right; words on the left.
                        cell += level == .short && j == 1 ? lpad(s, w[run][j]) : pad(s, w[run][j])
                    }
                }
                line += "  " + pad(cell, cellWidth(w[run], run, level))
            }
            console.print(trimmed(line))
            if differs[k] { for l in divergenceLines(k) { console.print(l) } }
        }
        if level == .short { console.print(CompareReport.legend(profiles)) }
    }

    /// Under a differing row: the first moment the profiles part, and what each did there.
    func divergenceLines(_ k: Int) -> [String] {
        guard let d = divergences[k] else {
            return ["    the same transitions on every profile; they differ in what is saved"]
        }
        func pad(_ s: String, _ n: Int) -> String {
            s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count)
        }
        let nameWidth = profiles.map(\.rawValue.count).max()! + 2
        var out = ["    first differs at \(VirtualTime.clock(d.time)):"]
        for (run, p) in profiles.enumerated() {
            var s = "      " + pad(p.rawValue, nameWidth)
            if let step = d.steps[run] {
                s += pad((step.from?.word ?? "new") + " → " + step.to.word, 24)
                s += pad(step.attempt > 0 ? "attempt \(step.attempt)" : "", 11)
                var detail = step.outcome.word
                // The answer's Retry-After header, as the timelines show it (`429 (retry-after 5s)`).
                if step.outcome.httpStatus != nil, let id = match.rows[k].ids[run],
                    let h = sims[run].retryAfterHeader(id, attempt: step.attempt)
                {
                    detail += " (retry-after " + VirtualTime.duration(h) + ")"
                }
                if let r = step.reason { detail += detail.isEmpty ? r.word : " " + r.word }
                s += pad(detail, 19) + p.rule(step.rule).id
                if step.time != d.time { s += " at " + VirtualTime.clock(step.time) }
            } else if let id = match.rows[k].ids[run] {
                s += "nothing more: it ended " + stateText(sims[run].request(id))
            } else {
                s += "never made this request"
            }
            out.append(s)
        }
        return out
    }

    func stateText(_ r: Request) -> String {
        r.state == .dropped ? "dropped (\(r.reason?.word ?? "?"))" : r.state.word
    }

    /// One line per profile: its requests by final state, attempts, what the
    /// backend received and counted, its checks and when it ended.
    func summaryLines(width: Int) -> [String] {
        let nameWidth = profiles.map(\.rawValue.count).max()! + 2
        // Three forms of each line; all lines take the fullest form that fits
        // every one of them, so they read alike.
        let forms: [[String]] = zip(profiles, played).map { p, run in
            let sim = run.runner.sim
            let counted = RequestState.allCases.compactMap { s -> (Int, RequestState)? in
                let n = sim.count(s)
                return n == 0 ? nil : (n, s)
            }
            let attempts = sim.requests.reduce(0) { $0 + Int($1.attempts) }
            let checks = run.runner.checkCount, bad = run.runner.failures.count
            let name = p.rawValue + String(repeating: " ", count: nameWidth - p.rawValue.count)
            let full =
                name + plural(sim.requests.count, "request")
                + (counted.isEmpty ? "" : ": " + counted.map { "\($0.0) \($0.1.word)" }.joined(separator: ", "))
                + " · \(plural(attempts, "attempt")) · \(sim.backend.received) received, \(sim.backend.counted) counted"
                + " · checks: \(checks - bad) passed, \(bad) failed · ended at \(VirtualTime.clock(sim.now))"
            let rest =
                " · \(attempts) att · \(sim.backend.received) rcvd \(sim.backend.counted) cntd"
                + " · \(checks - bad)/\(checks) checks · end \(VirtualTime.clock(sim.now))"
            let short =
                name + (counted.isEmpty ? "0 requests" : counted.map { "\($0.0) \($0.1.word)" }.joined(separator: " "))
                + rest
            // Narrower still: the states' words cut short.
            let tiny =
                name
                + (counted.isEmpty
                    ? "0 requests" : counted.map { "\($0.0) \(CompareReport.tinyWord($0.1))" }.joined(separator: " "))
                + rest
            return [full, short, tiny]
        }
        for form in 0..<2 where forms.allSatisfy({ $0[form].count <= width }) {
            return forms.map { $0[form] }
        }
        return forms.map { $0[2] }
    }

    func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)" + (n == 1 ? "" : "s") }

    static func tinyWord(_ s: RequestState) -> String {
        switch s {
        case .pending: return "pend"
        case .inFlight: return "fly"
        case .retrying: return "retry"
        case .queued: return "queue"
        case .delivered: return "deliv"
        case .dropped: return "drop"
        }
    }

    // MARK: JSONL

    static func skipJSON(_ s: Scenario.SkippedLine, _ profiles: [Profile], file: String) -> String {
        var o = JSONObject()
        o.string("file", file)
        o.number("line", String(s.line))
        o.string("text", s.text)
        o.number("profiles", "[" + profiles.map { JSONObject.quote($0.rawValue) }.joined(separator: ",") + "]")
        o.string("reason", s.reason)
        var outer = JSONObject()
        outer.number("skipped", o.text)
        return outer.text
    }

    /// One `{"diverged": ...}` object per differing row, in row order.
    func divergedLines() -> [String] {
        var out: [String] = []
        for (k, row) in match.rows.enumerated() where differs[k] {
            let d = divergences[k]
            var o = JSONObject()
            o.string("file", story.file)
            o.string("name", row.name)
            o.number("occurrence", String(row.occurrence))
            o.number("at", d.map { VirtualTime.seconds($0.time) } ?? "null")
            for (run, p) in profiles.enumerated() {
                guard let id = row.ids[run] else {
                    o.number(p.rawValue, "null")
                    continue
                }
                let r = sims[run].request(id)
                var c = JSONObject()
                c.number("id", String(id))
                c.string("state", r.state.word)
                if let reason = r.reason { c.string("reason", reason.word) }
                c.number("attempts", String(r.attempts))
                c.bool("saved", r.saved)
                if p.hasCompletions { c.string("completion", r.completion.word) }
                if let step = d?.steps[run] { c.string("rule", p.rule(step.rule).id) }
                o.number(p.rawValue, c.text)
            }
            var outer = JSONObject()
            outer.number("diverged", o.text)
            out.append(outer.text)
        }
        return out
    }

    func printJSONL(console: Console) {
        for l in divergedLines() { console.print(l) }
    }
}
