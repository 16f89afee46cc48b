import OutboxCore

/// A scenario file played on the live screen (`outbox --play FILE`, `:play FILE`).
///
/// The file's lines are applied by its `ScenarioRunner`, one instant at a time,
/// on the screen's own simulation (`ScenarioRunner.step(on:emit:)`): the same
/// code as `outbox run FILE`, so a play left alone ends in exactly the state
/// `outbox run FILE` ends in. The user's keys act on that simulation between
/// instants, as in any session.
public struct Player {
    public internal(set) var runner: ScenarioRunner
    /// The file as given.
    public let file: String
    /// Every `expect` line reached so far, in order.
    public internal(set) var results: [CheckResult] = []
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
        let runner = ScenarioRunner(scenario, store: store)
        self.init(sim: runner.sim)
        player = Player(runner: runner, file: scenario.file)
        paused = true
        pauseWhy = "play ready"
        var note = ""
        if let ps = scenario.compareProfiles {
            note = "; its compare line (" + ps.map(\.rawValue).joined(separator: ",")
                + ") is for outbox compare: played on \(scenario.profile.rawValue) only"
        }
        message = ("space plays, . steps: \(SafeText.escaped(scenario.file, max: 200)), \(scenario.steps.count) lines"
            + note, false)
    }

    /// Whether a scenario is playing and has lines or timers left.
    public var isPlaying: Bool { player.map { !$0.finished } ?? false }

    /// Plays the played file's next instant on the screen's simulation, then
    /// reports the `expect` lines it reached and whether the play ended.
    mutating func playStep() {
        guard player != nil, !player!.finished else { return }
        var reached: [CheckResult] = []
        _ = player!.runner.step(on: &sim) { item, _ in
            if case .check(let r) = item { reached.append(r) }
        }
        for r in reached {
            player!.results.append(r)
            if r.ok { player!.passed += 1 } else { player!.failed += 1 }
        }
        if let r = reached.first(where: { !$0.ok }) ?? reached.last {
            message = ("line \(r.line): " + r.text + (r.ok ? ": ok" : ": FAILED, found " + r.found), !r.ok)
        }
        let p = player!
        if let why = p.runner.stopped {
            player!.finished = true
            stopPlay("the play stopped at \(VirtualTime.clock(sim.now)): \(why)", isError: true)
        } else if p.runner.nextLineTime == nil && sim.nextDueTime() == nil {
            player!.finished = true
            stopPlay(
                "played to the end: \(p.passed) passed, \(p.failed) failed; the screen holds what outbox run ends with",
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
