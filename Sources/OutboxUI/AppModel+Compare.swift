import OutboxCore

/// What the compare screen counts over all rows, kept up to date from the
/// columns' journals: only rows whose requests moved since the last update are
/// looked at again, so a frame costs what changed, not the number of rows.
/// A value, updated by the model's mutating paths, so a copy of the model
/// (a test's branch) keeps its own.
public struct CompareCounts: Equatable, Sendable {
    /// Per row: a bit per state some column is in (by `RequestState.rawValue`),
    /// and bit 7 when the row differs.
    var rowBits: [UInt8] = []
    /// Rows in each state in at least one column.
    public private(set) var inState = [Int](repeating: 0, count: RequestState.allCases.count)
    /// Rows whose columns differ (`RequestMatch.Row.differs`: state, drop reason,
    /// attempts, saved flag or, among profiles with completion handlers, completion,
    /// as `outbox compare` marks them).
    public private(set) var differ = 0
    /// Per column, the journal position (counting forgotten entries) read up to.
    var cursors: [Int] = []

    /// Counts every row again, as if nothing were known.
    public static func counted(_ sims: [Simulation], _ match: RequestMatch) -> CompareCounts {
        var c = CompareCounts()
        c.update(sims, match)
        return c
    }

    /// Brings the counts up to date with the columns and their matched rows.
    mutating func update(_ sims: [Simulation], _ match: RequestMatch) {
        let rows = match.rows
        // From scratch when the journals cannot say what moved (the first update,
        // a journal turned off, or forgotten past what was read).
        let fresh =
            cursors.count != sims.count || rowBits.count > rows.count
            || sims.indices.contains {
                !sims[$0].keepsJournal || cursors[$0] < sims[$0].journalStart
                    || cursors[$0] > sims[$0].journalStart + sims[$0].journal.count
            }
        if fresh {
            self = CompareCounts()
            for (r, row) in rows.enumerated() { recount(r, row, sims) }
        } else {
            let known = rowBits.count
            for (c, s) in sims.enumerated() {
                for j in (cursors[c] - s.journalStart)..<s.journal.count {
                    guard case .transition(let t) = s.journal[j], let r = match.row(ofRun: c, id: t.request), r < known
                    else { continue }
                    recount(r, rows[r], sims)
                }
            }
            for r in known..<rows.count { recount(r, rows[r], sims) }
        }
        cursors = sims.map { $0.journalStart + $0.journal.count }
    }

    /// Recounts one row: takes its old bits out and its new ones in.
    mutating func recount(_ r: Int, _ row: RequestMatch.Row, _ sims: [Simulation]) {
        var bits: UInt8 = 0
        for (c, id) in row.ids.enumerated() {
            guard let id else { continue }
            bits |= 1 << sims[c].request(id).state.rawValue
        }
        if row.differs(in: sims) { bits |= 0x80 }
        let old = r < rowBits.count ? rowBits[r] : 0
        for k in inState.indices {
            let was = old & (1 << k) != 0, now = bits & (1 << k) != 0
            if was != now { inState[k] += now ? 1 : -1 }
        }
        if (old & 0x80 != 0) != (bits & 0x80 != 0) { differ += bits & 0x80 != 0 ? 1 : -1 }
        if r < rowBits.count { rowBits[r] = bits } else { rowBits.append(bits) }
    }
}

extension AppModel {
    /// Starts a compare: one column per simulation, the first becoming `sim`.
    /// Each should be a fresh simulation of its profile, on the same clock.
    public init(compare sims: [Simulation]) {
        precondition(!sims.isEmpty, "a compare needs a column")
        self.init(sim: sims[0])
        others = Array(sims.dropFirst())
        match = RequestMatch(runs: sims.count)
        columnsChanged()
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
        compareCounts = CompareCounts()
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
            purgeBanner(sim, from: journalBefore)
        }
        for i in others.indices where !skip[i + 1] {
            let journalBefore = others[i].journal.count
            others[i].apply(action)
            others[i].settle()
            purgeBanner(others[i], from: journalBefore)
        }
        if let note = skipNote { message = (note, false) }
        record(action, onFirst: !skip[0])
        columnsChanged()
        if match.rows.count != before { followNewest(from: before) }
        actionChecked()
        return true
    }

    /// Why a `set` does nothing on a profile that has no such setting, or nil.
    func settingMissing(_ action: Action, _ p: Profile) -> String? {
        guard case .settingChanged(let change) = action, !change.setting.key.exists(on: p) else { return nil }
        return Settings.lackedReason(change.setting.key)
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

    /// After the columns changed (a tick, an action): the rows and their counts.
    mutating func columnsChanged() {
        guard isComparing else { return }
        let sims = columns
        match.update(sims)
        compareCounts.update(sims, match)
    }
}
