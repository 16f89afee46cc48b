import OutboxCore

/// A speed of the virtual clock, kept exact as virtual milliseconds per wall
/// second: ⅒× is 100, so 2 s of wall time move the clock exactly 200 ms.
public struct Speed: Equatable, Hashable, Sendable {
    public let msPerSecond: Int64

    public init(msPerSecond: Int64) { self.msPerSecond = msPerSecond }

    public static let normal = Speed(msPerSecond: 1000)

    /// ⅒×, ¼×, 1×, 10×, 60×, 600×, 3600×: the one list of speeds. `-`/`+`, `--speed`,
    /// its error and the usage and help texts are all built from it.
    public static let all: [Speed] = [100, 250, 1000, 10_000, 60_000, 600_000, 3_600_000].map {
        Speed(msPerSecond: $0)
    }

    /// How `--speed` writes it: `0.1`, `0.25`, `1`, `10`, ...
    public var word: String {
        switch msPerSecond {
        case 100: return "0.1"
        case 250: return "0.25"
        default: return String(msPerSecond / 1000)
        }
    }

    /// How the header shows it: `⅒×`, `¼×`, `10×`; `0.1x`, `0.25x`, `10x` in ASCII.
    public func text(ascii: Bool) -> String {
        if ascii { return word + "x" }
        switch msPerSecond {
        case 100: return "⅒×"
        case 250: return "¼×"
        default: return word + "×"
        }
    }

    /// A speed as `--speed` takes it, or nil.
    public static func parse(_ s: String) -> Speed? { all.first { $0.word == s } }

    /// What `--speed` accepts, for its error.
    public static var expected: String {
        let words = all.map(\.word)
        return words.dropLast().joined(separator: ", ") + " or " + words.last!
    }
}

/// What the clock's moving asks of the loop (`wallTimePassed`).
public enum ClockEffect: Equatable, Sendable {
    case none
    /// The clock paused itself (a breakpoint hit, a play ended): draw the frame.
    case stoppedItself
}

extension AppModel {
    /// The most wall time one frame turns into virtual time: a longer gap
    /// between frames is a stall (the process stopped by kill -STOP, a machine
    /// asleep, a slow frame), not time the user watched, so the clock loses the
    /// rest instead of playing hours of it in one tick (at 3600×, 250 ms is 15
    /// virtual minutes).
    public static let maxWallStepMs: Int64 = 250

    /// The loop's clock: `ms` of wall time passed since the last frame. Moves
    /// virtual time by `ms × speed` (at most `maxWallStepMs` of wall time),
    /// carrying what is under a millisecond to the next call, so that at ⅒×
    /// 2000 ms of wall time in 33 ms frames move it exactly 200 ms. Paused, or
    /// under the "too small" notice (`heldBySize`), nothing moves and nothing is
    /// carried. `stopped`: the process was stopped and continued during the gap
    /// (Ctrl-Z then `fg`): none of it counts. Returns `.stoppedItself` when the
    /// clock paused itself (a breakpoint, the end of a play): the loop draws that
    /// frame, as no timer frame follows a pause.
    @discardableResult
    public mutating func wallTimePassed(ms: Int64, stopped: Bool = false) -> ClockEffect {
        guard !paused, !heldBySize, !stopped, ms > 0 else {
            wallCarry = 0
            return .none
        }
        wallCarry += min(ms, AppModel.maxWallStepMs) * clockSpeed.msPerSecond
        let whole = wallCarry / 1000
        guard whole > 0 else { return .none }
        wallCarry -= whole * 1000
        tick(to: sim.now + whole)
        return paused ? .stoppedItself : .none
    }

    /// The next instant anything happens: a timer of any column, or the next
    /// line of the scenario being played.
    mutating func nextInstant() -> Millis? {
        var t = nextDueTime()
        if isPlaying {
            for r in player!.runners {
                if let l = r.nextLineTime { t = min(t ?? l, l) }
            }
        }
        return t
    }

    /// Plays the instants up to `t` one at a time, stopping at the first whose
    /// transitions match a breakpoint (the clock stays there, paused), or when a
    /// play ends. Otherwise the clock ends at `t`.
    mutating func runInstants(to t: Millis) {
        while let next = nextInstant(), next <= t {
            playInstant(next)
            if breakHit() || paused { return }
        }
        sim.advance(to: t)
        for i in others.indices { others[i].advance(to: t) }
    }

    /// Processes one instant on every column: timers due then, the played
    /// scenario's lines at it (through its `ScenarioRunner`), what they set for it.
    mutating func playInstant(_ t: Millis) {
        if isPlaying {
            // Each column's runner plays the instant on that column's simulation.
            playStep(t)
            return
        }
        sim.advance(to: t)
        for i in others.indices { others[i].advance(to: t) }
    }

    /// `.`: plays the next instant (a timer, or the played file's next line) and
    /// pauses there, saying what happened. Paused or not, breakpoints or not.
    mutating func stepNext() {
        guard let t = nextStepInstant() else {
            message = (player == nil ? "nothing is scheduled" : "nothing is scheduled and the play has ended", false)
            return
        }
        let before = listSize
        let journals = columns.map { $0.journalStart + $0.journal.count }
        let receivedBefore = columns.map(\.backend.received)
        message = nil
        playInstant(t)
        // A play's `expect` lines reached here, or its end, say so instead.
        let played = message
        columnsChanged()
        if let b = banner, b.until <= sim.now { banner = nil }
        if listSize != before { followNewest(from: before) }
        let hit = breakHit()
        paused = true
        wallCarry = 0
        defer { compactJournals() }
        if hit {
            selectBreakHit()
            return
        }
        if player?.finished == true { return }
        pauseWhy = "step"
        if played != nil { return }
        var what = firstTransition(since: journals)
        if what == nil {
            // No transition: an attempt reached the backend (LAT: at half the latency).
            let got = zip(columns, receivedBefore).map { $0.0.backend.received - $0.1 }.max() ?? 0
            if got > 0 { what = got == 1 ? "the backend received a request" : "the backend received \(got) requests" }
        }
        message = ("stepped to \(VirtualTime.clock(t))" + (what.map { ": " + $0 } ?? "") + "; space resumes", false)
    }

    /// The first transition made since these journal positions, as the header
    /// writes a breakpoint's (`#3 → retrying (LT-4)`), or nil.
    func firstTransition(since positions: [Int]) -> String? {
        for (c, s) in columns.enumerated() where c < positions.count {
            let from = max(0, positions[c] - s.journalStart)
            for e in s.journal[min(from, s.journal.count)...] {
                if case .transition(let tr) = e { return transitionText(tr, column: c) }
            }
        }
        return nil
    }

    /// A transition in a few words: `#3 → retrying (LT-4)`, with the column's
    /// profile first when comparing. The arrow is written `->` in ASCII by the view.
    func transitionText(_ t: Transition, column: Int) -> String {
        let who = isComparing ? profiles[column].rawValue + " " : ""
        return who + "#\(t.request) → \(t.to.word) (\(columns[column].profile.rule(t.rule).id))"
    }

    /// Space: pauses, or resumes from a pause (a breakpoint's included; the
    /// transition that stopped the clock has been seen and does not stop it again).
    mutating func togglePause() {
        paused.toggle()
        pauseWhy = nil
        wallCarry = 0
    }

    /// `+`: the next faster speed.
    mutating func faster() {
        speedIndex = min(speedIndex + 1, AppModel.speeds.count - 1)
        wallCarry = 0
        say("speed " + clockSpeed.text(ascii: false))
    }

    /// `-`: the next slower speed (from 1×: ¼×, then ⅒×).
    mutating func slower() {
        speedIndex = max(speedIndex - 1, 0)
        wallCarry = 0
        say("speed " + clockSpeed.text(ascii: false))
    }
}
