import OutboxCore

/// A scenario file played on the live screen (`outbox --play FILE`, `:play FILE`).
///
/// The file's lines are applied by its `ScenarioRunner`, one instant at a time,
/// on the screen's own simulation (`ScenarioRunner.step(on:emit:)`): the same
/// code as `outbox run FILE`, so a play left alone ends in exactly the state
/// `outbox run FILE` ends in. The user's keys act on that simulation between
/// instants, as in any session.
public struct Player {
    /// One runner per column: the file as parsed for that column's profile.
    public internal(set) var runners: [ScenarioRunner]
    /// The first column's runner.
    public var runner: ScenarioRunner { runners[0] }
    /// The file as given.
    public let file: String
    /// Every `expect` line reached so far, in order (all columns).
    public internal(set) var results: [CheckResult] = []
    /// The column of each result.
    public internal(set) var resultColumns: [Int] = []
    public internal(set) var passed = 0, failed = 0
    /// Every line played and no timer left (or the run stopped at a limit).
    public internal(set) var finished = false
    /// How many lines the file has.
    public var lineCount: Int { runner.scenario.steps.count }
}

extension AppModel {
    /// A screen playing `scenario` from its start: its profile and settings, a
    /// device in memory (as `outbox run FILE`), paused at 0 so that breakpoints
    /// and a speed can be chosen first.
    public init(playing scenario: Scenario, store: any DeviceStore = InMemoryDeviceStore()) {
        self.init(playing: [scenario], stores: [store])
    }

    /// A compare playing a file with a `compare` line: one column per profile,
    /// each the file as parsed for it (`Scenario.parse(_:file:playing:)`, what
    /// `outbox compare FILE` plays), on devices in memory. With one scenario,
    /// one column (`init(playing:store:)`).
    public init(playing scenarios: [Scenario], stores: [any DeviceStore]? = nil) {
        precondition(!scenarios.isEmpty, "a play needs a scenario")
        let runners = scenarios.enumerated().map { i, sc in
            ScenarioRunner(sc, store: stores.map { $0[i] } ?? InMemoryDeviceStore())
        }
        if runners.count == 1 {
            self.init(sim: runners[0].sim)
        } else {
            self.init(compare: runners.map(\.sim))
        }
        let first = scenarios[0]
        player = Player(runners: runners, file: first.file)
        paused = true
        pauseWhy = "play ready"
        var note = ""
        if scenarios.count > 1 {
            var skips: [String] = []
            for sc in scenarios where !sc.skipped.isEmpty {
                skips.append(
                    "\(sc.profile.rawValue) skips \(sc.skipped.count) line" + (sc.skipped.count == 1 ? "" : "s"))
            }
            note = "; as outbox compare plays it" + (skips.isEmpty ? "" : " (" + skips.joined(separator: ", ") + ")")
        } else if let ps = first.compareProfiles {
            note =
                "; its compare line (" + ps.map(\.rawValue).joined(separator: ",")
                + ") is for outbox compare: played on \(first.profile.rawValue) only"
        }
        message = (
            "space plays, . steps: \(SafeText.escaped(first.file, max: 200)), \(first.steps.count) lines"
                + note, false
        )
    }

    /// Whether a scenario is playing and has lines or timers left.
    public var isPlaying: Bool { player.map { !$0.finished } ?? false }

    /// The next instant of the play's column `c`: its next line or timer.
    mutating func playNext(_ c: Int) -> Millis? {
        var t = c == 0 ? sim.nextDueTime() : others[c - 1].nextDueTime()
        if let l = player?.runners[c].nextLineTime { t = min(t ?? l, l) }
        return t
    }

    /// Plays the instant `t` on every column: a column with something at `t`
    /// has its runner play it (lines and timers, by ORDER); the others' clocks
    /// move to `t`. Then reports the `expect` lines reached and whether the play ended.
    mutating func playStep(_ t: Millis) {
        guard player != nil, !player!.finished else { return }
        var reached: [(Int, CheckResult)] = []
        for c in player!.runners.indices {
            guard playNext(c) == t else {
                if c == 0 { sim.advance(to: t) } else { others[c - 1].advance(to: t) }
                continue
            }
            if c == 0 {
                _ = player!.runners[0].step(on: &sim) { item, _ in
                    if case .check(let r) = item { reached.append((0, r)) }
                }
            } else {
                _ = player!.runners[c].step(on: &others[c - 1]) { item, _ in
                    if case .check(let r) = item { reached.append((c, r)) }
                }
            }
        }
        for (c, r) in reached {
            player!.results.append(r)
            player!.resultColumns.append(c)
            if r.ok { player!.passed += 1 } else { player!.failed += 1 }
        }
        if let (c, r) = reached.first(where: { !$0.1.ok }) ?? reached.last {
            let who = isComparing ? profiles[c].rawValue + " " : ""
            message = (who + "line \(r.line): " + r.text + (r.ok ? ": ok" : ": FAILED, found " + r.found), !r.ok)
        }
        let p = player!
        if let why = p.runners.compactMap(\.stopped).first {
            player!.finished = true
            stopPlay("the play stopped at \(VirtualTime.clock(sim.now)): \(why)", isError: true)
        } else if p.runners.indices.allSatisfy({ playNext($0) == nil }) {
            player!.finished = true
            let like = isComparing ? "outbox compare" : "outbox run"
            stopPlay(
                "played to the end: \(p.passed) passed, \(p.failed) failed, as \(like) ends; space goes on live",
                isError: p.failed > 0)
        }
    }

    /// The end of a play: the clock pauses there; space goes on as a live session.
    mutating func stopPlay(_ text: String, isError: Bool) {
        paused = true
        wallCarry = 0
        pauseWhy = "end of play"
        message = (text, isError)
    }

    /// The played file's checks as the status bar counts them: `play 3 ok 1 failed`, or nil.
    public var playStatus: String? {
        guard let p = player else { return nil }
        var s = "play \(p.passed) ok"
        if p.failed > 0 { s += " \(p.failed) FAILED" }
        if p.finished { s += " (end)" }
        return s
    }
}
