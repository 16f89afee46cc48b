import OutboxCore

/// What stops the clock: a request entering a state, a transition citing a
/// rule, or any transition of one request (`b`, `:break`).
public enum Breakpoint: Equatable, Sendable {
    case state(RequestState)
    /// A rule by its ID as the profiles write it (`LT-4`): each column matches it in its own profile's rules.
    case rule(String)
    /// A request by number; comparing, a row of the list (its number in every column).
    case request(Int32)

    /// How the status bar, the help and `:break` write it.
    public var text: String {
        switch self {
        case .state(let s): return s.word
        case .rule(let r): return r
        case .request(let n): return "#\(n)"
        }
    }

    /// Whether a transition of `column` matches.
    func matches(_ t: Transition, row: Int32?, profile: Profile) -> Bool {
        switch self {
        case .state(let s): return t.to == s
        case .rule(let r): return profile.rule(t.rule).id == r
        case .request(let n): return row == n
        }
    }
}

extension AppModel {
    /// The breakpoint chooser's entries (`b`): a letter, what it sets.
    public static let breakStateChoices: [(key: Unicode.Scalar, state: RequestState)] = [
        ("p", .pending), ("f", .inFlight), ("r", .retrying), ("q", .queued), ("d", .delivered), ("x", .dropped),
    ]

    /// What `:break` expects, for its errors.
    static let breakUsage =
        "expected :break pending|in-flight|retrying|queued|delivered|dropped, :break rule ID (e.g. LT-2), :break request N or :break clear"

    /// Sets a breakpoint (or says it was already set). The clock stops at the
    /// next transition that matches; transitions made before do not count.
    mutating func addBreakpoint(_ b: Breakpoint) {
        if breakpoints.contains(b) {
            message = ("breakpoint \(b.text) is already set; :break clear clears all", false)
            return
        }
        if breakpoints.isEmpty { breakCursors = journalEnds }
        breakpoints.append(b)
        message = ("breakpoint set: the clock pauses when " + describe(b) + "; space resumes", false)
    }

    /// Sets these breakpoints, as they were on the screen a play replaces; the message stays.
    public mutating func setBreakpoints(_ bs: [Breakpoint]) {
        breakpoints = bs
        breakCursors = journalEnds
    }

    /// Takes a breakpoint away, or sets it when it was not set (the chooser's letters).
    mutating func toggleBreakpoint(_ b: Breakpoint) {
        if let i = breakpoints.firstIndex(of: b) {
            breakpoints.remove(at: i)
            message = ("breakpoint \(b.text) cleared" + (breakpoints.isEmpty ? "" : "; set: " + breakList), false)
        } else {
            addBreakpoint(b)
        }
    }

    mutating func clearBreakpoints() {
        let n = breakpoints.count
        breakpoints = []
        message = (n == 0 ? "no breakpoints were set" : "breakpoints cleared (\(n))", false)
    }

    /// The breakpoints, as the status bar writes them: `retrying, LT-2, #3`.
    public var breakList: String { breakpoints.map(\.text).joined(separator: ", ") }

    func describe(_ b: Breakpoint) -> String {
        switch b {
        case .state(let s): return "a request becomes \(s.word)"
        case .rule(let r): return "a transition cites \(r)"
        case .request(let n): return (isComparing ? "row #\(n)" : "request #\(n)") + " changes state"
        }
    }

    /// Each column's journal end, counting forgotten entries.
    var journalEnds: [Int] { columns.map { $0.journalStart + $0.journal.count } }

    /// Looks at the transitions made since the last look; on the first that
    /// matches a breakpoint, pauses and says why. True on a hit.
    mutating func breakHit() -> Bool {
        guard !breakpoints.isEmpty else { return false }
        // Comparing, a request made at this instant needs its row (`:break request N`).
        if isComparing { columnsChanged() }
        let sims = columns
        if breakCursors.count != sims.count { breakCursors = journalEnds }
        var hit: (column: Int, t: Transition)?
        for (c, s) in sims.enumerated() {
            let from = max(0, breakCursors[c] - s.journalStart)
            breakCursors[c] = s.journalStart + s.journal.count
            guard hit == nil, from < s.journal.count else { continue }
            for e in s.journal[from...] {
                guard case .transition(let t) = e else { continue }
                let row = isComparing ? match.row(ofRun: c, id: t.request).map { Int32($0 + 1) } : t.request
                if breakpoints.contains(where: { $0.matches(t, row: row, profile: s.profile) }) {
                    hit = (c, t)
                    break
                }
            }
        }
        guard let (c, t) = hit else { return false }
        paused = true
        wallCarry = 0
        pauseWhy = transitionText(t, column: c)
        breakSelection = (c, t.request)
        return true
    }

    /// After a hit: selects the request that stopped the clock (its row when
    /// comparing), showing every request if the list's tab or filter hid it.
    mutating func selectBreakHit() {
        guard let (c, id) = breakSelection else { return }
        breakSelection = nil
        let target: Int32
        if isComparing {
            columnsChanged()
            guard let r = match.row(ofRun: c, id: id) else { return }
            target = Int32(r + 1)
        } else {
            target = id
        }
        if !listIsPlain && !filteredIDs.contains(target) {
            tab = .all
            nameFilter = ""
        }
        settleSelection()
        let row = listIsPlain ? Int(target) - 1 : (filteredIDs.firstIndex(of: target) ?? 0)
        select(row: row)
        message = ("breakpoint: " + (pauseWhy ?? "") + " at \(VirtualTime.clock(sim.now)); space resumes", false)
    }

    /// After a user's action: the transitions it made are checked too (tracking
    /// a request with a breakpoint on in-flight stops the clock at once).
    mutating func actionChecked() {
        guard !breakpoints.isEmpty else { return }
        let text = message
        if breakHit() {
            selectBreakHit()
            if let t = text, !t.isError { message = (t.text + "; " + (message?.text ?? ""), false) }
        }
    }

    /// `:break ...`: sets, lists or clears breakpoints.
    mutating func breakCommand(_ args: [String]) {
        guard let first = args.first else {
            message =
                breakpoints.isEmpty
                ? ("no breakpoints set; " + AppModel.breakUsage, false)
                : ("breakpoints: " + breakList + "; :break clear clears them", false)
            return
        }
        switch first {
        case "clear" where args.count == 1:
            clearBreakpoints()
        case "rule":
            guard args.count == 2 else {
                message = ("expected :break rule ID, e.g. :break rule LT-2 (the IDs are in docs/rules.md)", true)
                return
            }
            let found = [args[1], args[1].uppercased()].first { id in profiles.contains { $0.rule(id: id) != nil } }
            guard let id = found else {
                let other = Builtins.all.first { $0.rule(id: args[1].uppercased()) != nil && !profiles.contains($0) }
                if let other {
                    message = (
                        "rule \(args[1].uppercased()) is \(other.rawValue)'s and this screen shows "
                            + profiles.map(\.rawValue).joined(separator: ", ") + "; expected one of " + ruleExamples,
                        true
                    )
                } else {
                    message = (
                        "unknown rule `\(SafeText.escaped(args[1], max: 40))`, expected a rule ID such as "
                            + ruleExamples + " (docs/rules.md)", true
                    )
                }
                return
            }
            addBreakpoint(.rule(id))
        case "request":
            let what = isComparing ? "a row number" : "a request number"
            guard args.count == 2, let n = Int32(args[1]), n >= 1 else {
                let found = args.count > 1 ? ", found `\(SafeText.escaped(args[1], max: 40))`" : ""
                message = ("expected :break request N, N \(what) (e.g. 3)" + found, true)
                return
            }
            addBreakpoint(.request(n))
        default:
            guard args.count == 1, let s = RequestState(word: first) else {
                message = (
                    "unknown breakpoint `\(SafeText.escaped(args.joined(separator: " "), max: 60))`; "
                        + AppModel.breakUsage, true
                )
                return
            }
            addBreakpoint(.state(s))
        }
    }

    /// A few rule IDs the screen's profiles make, for messages.
    var ruleExamples: String {
        var ids: [String] = []
        for p in profiles { for r in p.ownRules where !ids.contains(p.rule(r).id) { ids.append(p.rule(r).id) } }
        return ids.prefix(4).joined(separator: ", ") + ", ..., NET, BACKOFF"
    }

    /// The chooser (`b`): a state's letter toggles it, `s` the selected request,
    /// `l` the rule of its last transition, `c` clears; Esc or `q` closes.
    mutating func breakChooser(_ key: Key) {
        if key == .escape || key == .char("q") || key == .char("b") {
            mode = .normal
            return
        }
        guard case .char(let c) = key else { return }
        if let pick = AppModel.breakStateChoices.first(where: { $0.key == c }) {
            mode = .normal
            toggleBreakpoint(.state(pick.state))
            return
        }
        switch c {
        case "s":
            guard let n = selected else {
                message = ("no request is selected: j/k selects one; Esc cancels", true)
                return
            }
            mode = .normal
            toggleBreakpoint(.request(n))
        case "l":
            guard let r = selectedRule else {
                message = ("no request is selected: j/k selects one; Esc cancels", true)
                return
            }
            mode = .normal
            toggleBreakpoint(.rule(r))
        case "c":
            mode = .normal
            clearBreakpoints()
        default:
            message = (
                "no breakpoint on `\(SafeText.escaped(String(Character(c)), max: 8))`: p f r q d x, s, l or c; Esc cancels",
                true
            )
        }
    }

    /// The rule of the selected request's last transition (first column when comparing).
    public var selectedRule: String? {
        guard let n = selected else { return nil }
        if isComparing {
            guard let r = selectedMatchRow, let id = match.rows[r].ids.compactMap({ $0 }).first,
                let c = match.rows[r].ids.firstIndex(where: { $0 != nil })
            else { return nil }
            return columns[c].profile.rule(columns[c].request(id).rule).id
        }
        return sim.profile.rule(sim.request(n).rule).id
    }
}
