import OutboxCore

/// How much of its journals the live screen keeps (issue 22, item 8): a session
/// runs for hours, and a network flap at 3600× makes tens of thousands of log
/// lines a second. Transitions are all kept (every request's history stays
/// whole for the detail pane, the timeline and exports); the log keeps its
/// newest lines, the network its newest changes (`Simulation.compactJournal`).
public struct JournalLimits: Equatable, Sendable {
    /// Log lines kept at least; at twice this many the oldest go.
    public var logLines: Int
    /// Network changes kept at least (the timeline's offline stretches); likewise.
    public var networkChanges: Int

    public init(logLines: Int = 20_000, networkChanges: Int = 20_000) {
        self.logLines = logLines
        self.networkChanges = networkChanges
    }
}

extension AppModel {
    /// After time moved: every column's journal within `journalLimits`. The log
    /// pane keeps its place (lines up from the newest) and its search match.
    mutating func compactJournals() {
        let logBefore = sim.logPositions.count
        let l = journalLimits
        sim.compactJournal(logLines: l.logLines, networkChanges: l.networkChanges)
        for i in others.indices { others[i].compactJournal(logLines: l.logLines, networkChanges: l.networkChanges) }
        let dropped = logBefore - sim.logPositions.count
        guard dropped > 0 else { return }
        if let m = panes.logMatch { panes.logMatch = m >= dropped ? m - dropped : nil }
        logScroll = min(logScroll, max(0, sim.logPositions.count - 1))
    }

    /// What the log pane's first line says when older lines were forgotten, or nil.
    public var forgottenLogNote: String? {
        let n = sim.forgottenLogLines
        guard n > 0 else { return nil }
        return
            "… \(n) older log line\(n == 1 ? "" : "s") forgotten (the live screen keeps the newest \(journalLimits.logLines)+)"
    }
}
