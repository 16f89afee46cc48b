import OutboxCore

/// What the compare screen counts over all rows, computed once per change.
final class CompareMemo {
    struct Key: Equatable {
        var transitions: Int, rows: Int
    }
    var key: Key?
    /// Rows in each state in at least one column, by `RequestState.rawValue`; then rows that differ.
    var inState: [Int] = []
    var differ = 0
}

extension AppModel {
    /// Starts a compare: one column per simulation, the first becoming `sim`.
    /// Each should be a fresh simulation of its profile, on the same clock.
    public init(compare sims: [Simulation]) {
        precondition(!sims.isEmpty, "a compare needs a column")
        self.init(sim: sims[0])
        others = Array(sims.dropFirst())
        match = RequestMatch(runs: sims.count)
        match.update(columns)
    }

    /// Whether more than one column is shown.
    public var isComparing: Bool { !others.isEmpty }

    /// Every column's simulation, in order (`sim` first).
    public var columns: [Simulation] { [sim] + others }

    /// The profiles of the columns, in order.
    public var profiles: [Profile] { [sim.profile] + others.map(\.profile) }

    var otherTransitions: Int { others.reduce(0) { $0 + $1.transitionCount } }

    /// Comparing: the row of `match` selected in every column, or nil.
    public var selectedMatchRow: Int? {
        guard isComparing, let s = selected else { return nil }
        return Int(s) - 1
    }

    /// `:compare off`: back to one column, the first, with its clock and requests.
    /// The recording keeps only what that column took, so it replays it with `outbox run`.
    public mutating func leaveCompare() {
        guard isComparing else { return }
        let keep = selectedMatchRow.flatMap { match.rows[$0].ids[0] }
        others = []
        match = RequestMatch(runs: 1)
        recorded = zip(recorded, recordedOnFirst).filter { $0.1 }.map { $0.0 }
        recordedOnFirst = Array(repeating: true, count: recorded.count)
        skipNote = nil
        selected = keep
        top = 0
        settleSelection()
    }

    /// Applies an action to every column. A column whose profile lacks it (or
    /// lacks the setting) skips it, and the message line names those columns.
    mutating func performAll(_ action: Action) -> Bool {
        let before = match.rows.count
        // Checked on every column first, so a refusal changes no column.
        var skip = [Bool](repeating: false, count: others.count + 1)
        var skipped: [(Profile, String)] = []
        for (i, s) in columns.enumerated() {
            guard let why = s.check(action) else { continue }
            if let missing = action.missing(on: s.profile) ?? settingMissing(action, s.profile) {
                skip[i] = true
                skipped.append((s.profile, missing))
            } else {
                skipNote = nil
                message = (why, true)
                return false
            }
        }
        skipNote = nil
        if !skipped.isEmpty {
            let verb = ActionSyntax.text(for: action).split(separator: " ").first.map(String.init) ?? ""
            skipNote = "\(verb) skipped on " + skipped.map(\.0.rawValue).joined(separator: ", ") + ": " + skipped[0].1
        }
        guard skip.contains(false) else {
            message = (skipNote ?? "", true)
            return false
        }
        if !skip[0] {
            let journalBefore = sim.journal.count
            sim.apply(action)
            sim.settle()
            purgeBanner(action, sim, from: journalBefore)
        }
        for i in others.indices where !skip[i + 1] {
            let journalBefore = others[i].journal.count
            others[i].apply(action)
            others[i].settle()
            purgeBanner(action, others[i], from: journalBefore)
        }
        if let note = skipNote { message = (note, false) }
        record(action, onFirst: !skip[0])
        match.update(columns)
        if match.rows.count != before { followNewest(from: before) }
        return true
    }

    /// Why a `set` does nothing on a profile that has no such setting, or nil.
    func settingMissing(_ action: Action, _ p: Profile) -> String? {
        guard case .settingChanged(let key, _) = action,
            let k = Settings.keys.first(where: { $0.name == key }), !k.profiles.contains(p)
        else { return nil }
        return "setting '\(key)' is only on " + k.profiles.map(\.rawValue).joined(separator: ", ")
    }

    /// A success message, keeping the note of columns that skipped the action.
    mutating func say(_ text: String) {
        message = (skipNote.map { text + "; " + $0 } ?? text, false)
    }

    /// Comparing: the rows the tab and name filter keep, as row + 1.
    func compareFilteredRows() -> [Int32] {
        let want = tab.state
        let needle = nameFilter.lowercased()
        let sims = columns
        var out: [Int32] = []
        for (i, row) in match.rows.enumerated() {
            if !needle.isEmpty && !row.name.lowercased().contains(needle) { continue }
            if let s = want {
                var hit = false
                for (c, id) in row.ids.enumerated() where id != nil && sims[c].request(id!).state == s { hit = true }
                if !hit { continue }
            }
            out.append(Int32(i + 1))
        }
        return out
    }

    /// Comparing: rows in each state in at least one column, and rows that differ.
    public var compareCounts: (inState: [Int], differ: Int) {
        let key = CompareMemo.Key(transitions: sim.transitionCount + otherTransitions, rows: match.rows.count)
        if compareMemo.key == key { return (compareMemo.inState, compareMemo.differ) }
        let sims = columns
        var inState = [Int](repeating: 0, count: RequestState.allCases.count)
        var differ = 0
        var seen = [Bool](repeating: false, count: inState.count)
        for row in match.rows {
            for k in seen.indices { seen[k] = false }
            for (c, id) in row.ids.enumerated() {
                guard let id else { continue }
                seen[Int(sims[c].request(id).state.rawValue)] = true
            }
            for k in seen.indices where seen[k] { inState[k] += 1 }
            if row.stateDiffers(in: sims) { differ += 1 }
        }
        compareMemo.key = key
        compareMemo.inState = inState
        compareMemo.differ = differ
        return (inState, differ)
    }
}
