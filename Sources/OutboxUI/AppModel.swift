import OutboxCore

/// Which requests the list shows.
public enum StateTab: Int, CaseIterable, Sendable {
    case all, pending, inFlight, retrying, queued, delivered, dropped

    public var state: RequestState? {
        switch self {
        case .all: return nil
        case .pending: return .pending
        case .inFlight: return .inFlight
        case .retrying: return .retrying
        case .queued: return .queued
        case .delivered: return .delivered
        case .dropped: return .dropped
        }
    }

    public var word: String { state?.word ?? "all" }
}

public enum Pane: Int, CaseIterable, Sendable { case list, detail, log }

/// The last filtered list and what it was computed for.
final class FilterMemo {
    struct Key: Equatable {
        var tab: StateTab, name: String, sort: ListSort, transitions: Int, requests: Int, journal: Int
    }
    var key: Key?
    var ids: [Int32] = []
    /// With a filter: per state, the requests (rows) it keeps.
    var counts: [Int] = []
    var total = 0
    /// With a filter and an empty list: why, once worked out.
    var why: String??
}

/// What the keyboard is talking to.
public enum Mode: Equatable, Sendable {
    case normal
    /// The help screen, scrolled by this many rows.
    case help(Int)
    /// The `:` command line, with what is typed so far.
    case command(String)
    /// The `/` name filter, with what is typed so far.
    case filter(String)
    /// The `/` log search (the log focused), with what is typed so far.
    case logSearch(String)
    /// The backend chooser: first the answer, then how often; for whom.
    case chooseAnswer(AnswerChoice)
    /// The network flap chooser (`F`).
    case chooseFlap
    /// The latency jitter chooser (`J`).
    case chooseJitter
    /// The breakpoint chooser (`b`).
    case chooseBreak
    /// `e`: where to export, with what is typed so far (the default at first).
    case exportPath(String)
    /// The export's file exists: `y` replaces it, any other key keeps it.
    case confirmReplace(String)
}

/// The backend chooser's choices so far (`x`): the answer once picked, the
/// requests it is for, and the percent typed after `%` (nil before it).
public struct AnswerChoice: Equatable, Sendable {
    public var answer: Answer?
    public var target: ServerTarget = .all
    public var percent: String?

    public init(answer: Answer? = nil, target: ServerTarget = .all, percent: String? = nil) {
        self.answer = answer
        self.target = target
        self.percent = percent
    }
}

/// What the interactive loop must do after a key: things outside the model. A
/// key returns one, or nil for none; the loop acts on it and never guesses from
/// the model what a key did. (Every key draws a frame and appends the recording.)
public enum UIEffect: Equatable, Sendable {
    case quit
    /// Write the timeline so far as JSONL to `path` (relative to where Outbox
    /// started); a file there is replaced only with `replace`.
    case export(path: String, replace: Bool)
    case switchProfile(Profile)
    case nextTheme
    /// `:compare P,P,...`: start a fresh compare on these profiles (the loop makes
    /// their devices, in memory, as for `--compare`).
    case startCompare([Profile])
    /// `:play FILE`: load a scenario file and play it on this screen (the loop
    /// reads and parses it).
    case play(String)
    /// `:compare off` left the compare: the first column goes on alone and the
    /// recording keeps only what it took, so the recording goes on in a new part
    /// (the loop no longer guesses it from the columns' count).
    case leftCompare
}

/// The whole state of the interactive screen: the simulation plus what the user
/// is looking at. `handle(_:)` is the only place it changes for keys; `tick` for time.
///
/// Comparing (`--compare`, `:compare`), `sim` is the first column and `others`
/// the rest: every action and every tick goes to all of them (one clock, one
/// network, one backend plan), and the list shows the rows of `match`.
public struct AppModel {
    public internal(set) var sim: Simulation
    /// The other columns of a compare, in order; empty with one column.
    public internal(set) var others: [Simulation] = []
    /// The requests of the columns matched into rows (a compare's list).
    public internal(set) var match = RequestMatch(runs: 1)
    /// The clock's speeds, slowest first (`Speed`); `-`/`+` step through them.
    public static let speeds = Speed.all
    /// The speed in `speeds`; 1× to start.
    public var speedIndex = Speed.all.firstIndex(of: .normal)!
    public internal(set) var paused = false
    // Time (AppModel+Time.swift, AppModel+Breakpoints.swift, AppModel+Play.swift).
    /// Why the clock paused, for the header (a breakpoint's hit, a step, the end
    /// of a play); nil when paused by the user or running.
    public internal(set) var pauseWhy: String?
    /// Wall time not yet turned into virtual time, in virtual µs (`wallTimePassed`).
    var wallCarry: Int64 = 0
    /// The screen is too small to show anything (`setScreen`): the clock waits.
    public var heldBySize: Bool { screen.width < AppView.minWidth || screen.height < AppView.minHeight }
    /// The breakpoints set, in the order set.
    public internal(set) var breakpoints: [Breakpoint] = []
    /// Per column, the journal position (counting forgotten entries) checked for breakpoints.
    var breakCursors: [Int] = []
    /// The column and request of the last hit, until it is selected.
    var breakSelection: (column: Int, id: Int32)?
    /// The scenario being played on this screen (`--play`, `:play`), or nil.
    public internal(set) var player: Player?
    public internal(set) var tab: StateTab = .all
    public internal(set) var nameFilter = ""
    /// The list's order (`S`, a click on a column's title).
    public internal(set) var sort: ListSort = .id
    /// The `:` line's history and Tab completion (AppModel+Keys.swift).
    public internal(set) var commandLine = CommandLineState()
    /// The selected request, or nil when the list is empty. Comparing, the
    /// selected row of `match` plus one (`selectedMatchRow`), the same in every column.
    public internal(set) var selected: Int32?
    /// The first row shown, as an index into the filtered list.
    public internal(set) var top = 0
    public internal(set) var focus: Pane = .list
    public internal(set) var detailExpanded = false
    public internal(set) var mode: Mode = .normal
    /// A short line for the user: what happened, or why a key did nothing.
    public var message: (text: String, isError: Bool)?
    /// The purge banner and when it goes away (virtual time).
    public internal(set) var banner: (text: String, until: Millis)?
    /// Lines up from the newest in the log pane.
    public internal(set) var logScroll = 0
    /// The detail's and the log's scroll, the log's search and filter (AppModel+Panes.swift).
    public internal(set) var panes = PaneState()
    /// What the user did, as scenario lines (for --record).
    public internal(set) var recorded: [String] = []
    /// Per recorded line, whether the first column took it (the rest were taken
    /// by other columns only): `:compare off` keeps only those.
    var recordedOnFirst: [Bool] = []
    /// What the device held before the first action (a device on disk may hold
    /// saved requests): the recording starts with it, so it replays without the device.
    public var startingDevice = DeviceStart()
    /// Whether `recorded` goes to a file (`--record`): `E` pins only then.
    public var isRecording = false
    /// Set by the command line when `--record`'s or `--cast`'s file could not be
    /// written and the recording stopped: the header says so for the rest of the
    /// session (the message that said why goes with the next key).
    public var recordingStopped = false
    public var castStopped = false
    /// The folder the recording is written in, as an absolute path (set by the
    /// command line): a profile file inside it is named relative to it (`profile
    /// ./acme.profile`), so the folder can move with both and still replay.
    public var recordingFolder: String?
    /// The instant `E` last pinned, or nil (AppModel+Pin.swift).
    var pinnedAt: Millis?
    /// Finds the profiles `:profile` and `:compare` name: built-ins, and (set by
    /// the command line, which reads files) user profiles by path or name.
    public var profileResolver = ProfileResolver.builtins
    /// The user's profiles' names, for Tab after `:profile` and `:compare` (set by the command line).
    public var profileNames: [String] = []
    /// Comparing: which columns skipped the last action, and why (the message line says so).
    public internal(set) var skipNote: String?
    /// Comparing: rows in each state in any column, and rows that differ.
    public internal(set) var compareCounts = CompareCounts()
    /// The screen's size: the only place it is kept (the loop sets it, `setScreen`).
    public internal(set) var screen = ScreenSize(width: 80, height: 24)
    /// The last frame's layout (`laidOut`): what the keys and clicks until the next frame go by.
    public internal(set) var layout = AppView.Layout()
    /// Rows of list a page moves by, as the last frame showed them.
    public var listHeight: Int { layout.listRows }
    /// The timeline's scale as an index of `TimelineAxis.ladder` (`z`/`Z`), or nil
    /// to fit the selected request's life (`f`, the default).
    public internal(set) var timelineZoom: Int?
    /// The commands used so far: the hint bar leaves them out for the next ones.
    public internal(set) var usedCommands: Set<Command> = []
    let memo = FilterMemo()
    /// How much of the journals a session keeps (AppModel+Bounds.swift).
    public var journalLimits = JournalLimits()

    /// The clock's speed.
    public var clockSpeed: Speed { AppModel.speeds[speedIndex] }

    public init(sim: Simulation) {
        self.sim = sim
    }

    // MARK: The list

    /// How many rows the list has under the current tab and filter.
    public var rowCount: Int {
        if listIsPlain { return isComparing ? match.rows.count : sim.requests.count }
        return filteredIDs.count
    }

    /// The id shown at a row of the list.
    public func id(atRow i: Int) -> Int32 {
        if listIsPlain { return Int32(i + 1) }
        return filteredIDs[i]
    }

    /// The filtered ids, in the order of `sort` (oldest first by default). For
    /// `all` with no name filter in id order no list is built (`listIsPlain`).
    /// Memoized: computed once per change of the model, not per use in a frame.
    /// Comparing, the list holds rows of `match`: row r is "id" r + 1.
    public var filteredIDs: [Int32] {
        let key = FilterMemo.Key(
            tab: tab, name: nameFilter, sort: sort, transitions: sim.transitionCount + otherTransitions,
            requests: sim.requests.count + match.rows.count, journal: sim.journal.count)
        if memo.key == key { return memo.ids }
        memo.why = nil
        var ids: [Int32]
        if nameFilter.isEmpty && tab == .all {
            // Only sorted: every request (row), as the plain list has them.
            ids = (0..<Int32(listSize)).map { $0 + 1 }
        } else if nameFilter.isEmpty {
            ids = computeFilteredIDs()
        } else {
            (ids, memo.counts, memo.total) = filtered(listFilter)
        }
        ids = sorted(ids)
        memo.key = key
        memo.ids = ids
        return ids
    }

    func computeFilteredIDs() -> [Int32] {
        if isComparing { return compareFilteredRows() }
        // Without a filter (`filtered(_:)` does the filter): the tab alone.
        let want = tab.state
        if let s = want, !s.isFinal { return sim.live(in: s) }
        var out: [Int32] = []
        for r in sim.requests where r.nameID != 0 || r.state != .dropped {
            if let s = want, r.state != s { continue }
            out.append(r.id)
        }
        return out
    }

    /// The selected row's index, or nil.
    public var selectedRow: Int? {
        guard let sel = selected else { return nil }
        if listIsPlain { return Int(sel) - 1 }
        return filteredIDs.firstIndex(of: sel)
    }

    mutating func select(row: Int) {
        let n = rowCount
        guard n > 0 else {
            selected = nil
            return
        }
        let r = min(max(0, row), n - 1)
        if id(atRow: r) != selected { panes.detailScroll = 0 }  // another request's detail starts afresh
        selected = id(atRow: r)
        if r < top { top = r }
        if r >= top + listHeight { top = r - listHeight + 1 }
    }

    /// Keeps the selection valid after the list changed (a tab, a filter, new requests).
    mutating func settleSelection() {
        let n = rowCount
        if n == 0 {
            selected = nil
            top = 0
            return
        }
        if let row = selectedRow {
            select(row: row)
        } else {
            select(row: n - 1)
        }
        top = min(top, max(0, n - listHeight))
    }

    // MARK: Time

    /// Moves the virtual clock to `t` (the loop computes it from wall time × speed,
    /// `wallTimePassed`). Paused, the clock does not move. With breakpoints set or
    /// a scenario playing, it goes instant by instant and stops at the instant a
    /// breakpoint matched (`AppModel+Time.swift`).
    public mutating func tick(to t: Millis) {
        guard t > sim.now, !paused else { return }
        let before = listSize
        if breakpoints.isEmpty && player == nil {
            sim.advance(to: t)
            for i in others.indices { others[i].advance(to: t) }
        } else {
            runInstants(to: t)
        }
        columnsChanged()
        if let b = banner, b.until <= sim.now { banner = nil }
        if listSize != before { followNewest(from: before) }
        selectBreakHit()
        compactJournals()
    }

    /// Requests (one column) or matched rows (a compare): what the unfiltered list holds.
    var listSize: Int { isComparing ? match.rows.count : sim.requests.count }

    /// Follows new requests when the selection was on the newest (the last row,
    /// unsorted; sorted, wherever the newest is listed).
    mutating func followNewest(from before: Int) {
        guard selected == nil || selected == Int32(before) else { return }
        settleSelection()
        let newest = sort == .id ? nil : filteredIDs.lastIndex(of: Int32(listSize))
        select(row: newest ?? rowCount - 1)
    }

    // MARK: Actions

    /// Applies a model action as the user's, to every column; records it; says
    /// why when refused. A column whose profile lacks the action skips it, with a
    /// note; the action counts as done when any column took it.
    @discardableResult
    public mutating func perform(_ action: Action) -> Bool {
        stepPastPin()
        guard isComparing else {
            skipNote = nil
            return performOne(action)
        }
        return performAll(action)
    }

    mutating func performOne(_ action: Action) -> Bool {
        let before = sim.requests.count
        let journalBefore = sim.journal.count
        if let why = sim.apply(action) {
            message = (action.missing(on: sim.profile) ?? why, true)
            return false
        }
        sim.settle()
        record(action, onFirst: true)
        purgeBanner(sim, from: journalBefore)
        if sim.requests.count != before { followNewest(from: before) }
        actionChecked()
        return true
    }

    mutating func record(_ action: Action, onFirst: Bool) {
        recorded.append("at \(VirtualTime.duration(sim.now)) \(ActionSyntax.text(for: action))")
        recordedOnFirst.append(onFirst)
    }

    /// A purge (a consent denial under the consent gate, LinkTrail's LT-2) shows its log line in a banner for a
    /// moment. Chosen by the line's event, never its words.
    mutating func purgeBanner(_ s: Simulation, from journalBefore: Int) {
        for e in s.journal[journalBefore...] {
            if case .log(let l) = e, case .purged = l.event {
                // Five seconds of wall time at the clock's speed (500 ms virtual at ⅒×).
                banner = (l.text, s.now + 5 * clockSpeed.msPerSecond)
            }
        }
    }

    /// What `--record` writes: a scenario file of the user's actions so far, that
    /// `outbox run` replays (or `outbox compare`, for a compare: its `compare` line
    /// names the columns).
    public func recording(seed: UInt64, version: String, path: String) -> String {
        // The path is escaped: a newline in it must not end the comment.
        var text =
            "# recorded by outbox \(version)\n# replay: outbox \(isComparing ? "compare" : "run") \(SafeText.escaped(path, max: 1000))\n"
        text += "profile \(ActionSyntax.word(recordedReference(sim.profile)))\n"
        if isComparing {
            text += "compare " + ActionSyntax.word(profiles.map(recordedReference).joined(separator: ",")) + "\n"
        }
        if seed != 1 { text += "set seed \(seed)\n" }
        for line in startingDevice.lines(profile: sim.profile) { text += line + "\n" }
        return text + recorded.joined(separator: "\n") + "\n"
    }

    /// How a recording names a profile: a built-in by name; a profile file by
    /// `./PATH` when it lies inside `recordingFolder` (a scenario's relative
    /// paths are read from its own folder), else by its absolute path.
    public func recordedReference(_ p: Profile) -> String {
        let ref = p.reference
        guard ref.hasPrefix("/"), var folder = recordingFolder, folder.hasPrefix("/") else { return ref }
        if !folder.hasSuffix("/") { folder += "/" }
        guard ref.hasPrefix(folder), ref.count > folder.count else { return ref }
        return "./" + ref.dropFirst(folder.count)
    }
}
