/// The result of one `expect` line.
public struct CheckResult: Sendable {
    public let line: Int
    public let time: Millis
    public let text: String
    public let ok: Bool
    /// What was found instead, when it failed.
    public let found: String
}

/// Plays a scenario on the virtual clock, jumping from one due moment to the next.
public struct ScenarioRunner {
    public let scenario: Scenario
    public private(set) var sim: Simulation
    /// Every check's result; only the failed ones unless the journal is `kept`.
    public private(set) var results: [CheckResult] = []
    /// How many checks were evaluated, passed or failed.
    public private(set) var checkCount = 0
    public let journalUse: JournalUse
    private var printed = 0
    private var next = 0
    /// The most transitions one run may make before it is stopped (docs/reliability.md).
    public static let defaultMaxTransitions = 10_000_000
    public let maxTransitions: Int
    /// Why the run was stopped before its end (a limit), or nil.
    public private(set) var stopped: String?
    /// `expect log` texts no log line has contained yet, and those one has
    /// (when the journal is not kept, log checks are answered from these).
    private var logTextsPending: [String] = []
    private var logTextsSeen: Set<String> = []

    /// What the simulation's journal is kept for. A headless run of a big file
    /// makes millions of entries; kept, they were most of its memory.
    public enum JournalUse: Sendable {
        /// Kept whole in `sim` (`history(of:)`, the UI, tests).
        case kept
        /// Each entry goes to `emit` as it happens and is then forgotten.
        case streamed
        /// Not emitted: made only when an `expect log` line needs log lines,
        /// looked at as they come, then forgotten.
        case checksOnly
        /// Each transition goes to `emit` as it happens and is then forgotten; log
        /// lines are made only when an `expect log` line needs them, and are not
        /// emitted (`outbox compare`'s table, which records transitions only).
        case transitionsOnly
    }

    public init(
        _ scenario: Scenario, store: any DeviceStore = InMemoryDeviceStore(),
        maxTransitions: Int = ScenarioRunner.defaultMaxTransitions, journal: JournalUse = .kept
    ) {
        self.scenario = scenario
        // The file's starting contents go on the device before the first line (DeviceStart).
        if !scenario.device.isEmpty { scenario.device.seed(store) }
        self.sim = Simulation(profile: scenario.profile, settings: scenario.settings, store: store)
        self.maxTransitions = maxTransitions
        self.journalUse = journal
        if journal != .kept {
            logTextsPending = scenario.steps.logTexts
            // Without log checks nothing reads the journal: log text is not even built.
            if journal == .checksOnly && logTextsPending.isEmpty { sim.keepsJournal = false }
            if journal == .transitionsOnly && logTextsPending.isEmpty { sim.keepsLogLines = false }
        }
    }

    public var failures: [CheckResult] { results.filter { !$0.ok } }

    /// Runs to the end: every line played and no timer left. `emit` gets each
    /// journal entry and check result as it happens, in time order.
    public mutating func run(emit: (TimelineItem, Simulation) -> Void = { _, _ in }) {
        run(until: { false }, emit: emit)
    }

    /// Like `run(emit:)`; `cancelled` is asked after each instant (a reader that went away ends the run).
    public mutating func run(until cancelled: () -> Bool, emit: (TimelineItem, Simulation) -> Void) {
        // A store that cannot write stops the run: the model must not go on as if saved.
        // So does a limit: a run that would go on for ever or fill the memory.
        while sim.store.failure == nil && stopped == nil && !cancelled() && step(emit: emit) {}
    }

    /// Plays the next instant that has something to do; false when nothing is left.
    public mutating func step(emit: (TimelineItem, Simulation) -> Void) -> Bool {
        let steps = scenario.steps
        let lineTime = next < steps.count ? steps.time(at: next) : nil
        let timerTime = sim.nextDueTime()
        var t: Millis
        switch (lineTime, timerTime) {
        case (nil, nil): return false
        case (let a?, nil): t = a
        case (nil, let b?): t = b
        case (let a?, let b?): t = min(a, b)
        }
        // A flap's toggle before then is an instant of its own, so the limit below sees it (FLAP).
        if let f = sim.nextFlapTime, f < t { t = f }
        guard t < VirtualTime.maxClock else {
            stopped =
                "the clock reached its limit (\(VirtualTime.maxClock / 31_557_600_000) years) with timers still set"
            return false
        }
        // ORDER: timers due at t fire first, then the lines at t in file order,
        // then whatever those set for t; checks see the instant settled.
        sim.advance(to: t)
        var checks: [Scenario.Step] = []
        while next < steps.count && steps.time(at: next) == t {
            let s = steps[next]
            next += 1
            switch s.content {
            case .action(let a):
                if let why = sim.apply(a) {
                    // Validation runs before; reaching this is a model bug worth seeing.
                    sim.log(.outbox, .refused(line: Int32(clamping: s.line)), "line \(s.line) refused: \(why)")
                }
            case .check:
                checks.append(s)
            }
        }
        sim.settle()
        flush(emit)
        for c in checks {
            guard case .check(let check) = c.content else { continue }
            let (ok, evaluated) = evaluate(check)
            var found = evaluated
            // A check that could only fail says why, as found before the run.
            if !ok, let why = scenario.unmatchable[c.line] { found = why }
            let r = CheckResult(line: c.line, time: t, text: c.text, ok: ok, found: found)
            checkCount += 1
            if journalUse == .kept || !ok { results.append(r) }
            emit(.check(r), sim)
        }
        // Network changes count too: a flap makes them without a transition (FLAP).
        if sim.transitionCount + sim.networkChanges.count > maxTransitions {
            stopped = "it passed the limit of \(maxTransitions) transitions (set by --max-transitions)"
            return false
        }
        return true
    }

    /// The time of the next line not yet played, or nil when every line has been.
    public var nextLineTime: Millis? { next < scenario.steps.count ? scenario.steps.time(at: next) : nil }

    /// Plays the next instant, exactly as `step(emit:)`, on `live` instead of the
    /// runner's own simulation: the live screen's (`outbox --play`), which the
    /// user may also act on between instants. The two are swapped, not copied.
    public mutating func step(on live: inout Simulation, emit: (TimelineItem, Simulation) -> Void) -> Bool {
        swap(&sim, &live)
        defer { swap(&sim, &live) }
        return step(emit: emit)
    }

    private mutating func flush(_ emit: (TimelineItem, Simulation) -> Void) {
        while printed < sim.journal.count {
            let e = sim.journal[printed]
            switch journalUse {
            case .kept, .streamed: emit(.entry(e), sim)
            case .transitionsOnly: if case .transition = e { emit(.entry(e), sim) }
            case .checksOnly: break
            }
            if journalUse != .kept && !logTextsPending.isEmpty, case .log(let l) = e {
                logTextsPending.removeAll { text in
                    // The same test as `Simulation.evaluate`'s.
                    guard l.text.contains(text) else { return false }
                    logTextsSeen.insert(text)
                    return true
                }
            }
            printed += 1
        }
        if journalUse != .kept {
            sim.forgetJournal()
            printed = 0
        }
    }

    /// Whether a check holds now, and what was found when it does not.
    public func evaluate(_ check: Check) -> (Bool, String) {
        if journalUse != .kept, case .log(let text) = check {
            return logTextsSeen.contains(text) ? (true, "") : (false, Simulation.noLogLine(text))
        }
        return sim.evaluate(check)
    }
}

extension Simulation {
    /// What a failed `expect log` found.
    static func noLogLine(_ text: String) -> String { "no log line contains \"\(text)\"" }
}

/// One line of a timeline.
public enum TimelineItem {
    case entry(JournalEntry)
    case check(CheckResult)
}

extension Simulation {
    /// Whether a check holds now, and what was found when it does not.
    public func evaluate(_ check: Check) -> (Bool, String) {
        func each(_ name: String, _ holds: (Request) -> Bool, _ describe: (Request) -> String) -> (Bool, String) {
            let ids = requests(named: name)
            guard !ids.isEmpty else { return (false, "no request is named '\(name)'") }
            let bad = ids.filter { !holds(request($0)) }
            if bad.isEmpty { return (true, "") }
            let shown = bad.prefix(5).map { "#\($0) " + describe(request($0)) }
            return (false, shown.joined(separator: ", ") + (bad.count > 5 ? " (and \(bad.count - 5) more)" : ""))
        }
        func stateText(_ r: Request) -> String {
            r.state == .dropped ? "dropped (\(r.reason?.word ?? "?"))" : r.state.word
        }
        switch check {
        case .state(let name, let s):
            return each(name, { $0.state == s }, { "is " + stateText($0) })
        case .dropped(let name, let reason):
            return each(name, { $0.state == .dropped && $0.reason == reason }, { "is " + stateText($0) })
        case .attempts(let name, let n):
            return each(name, { Int($0.attempts) == n }, { "has \($0.attempts) attempts" })
        case .saved(let n):
            return (savedCount == n, "\(savedCount) saved")
        case .received(let name, let n):
            let got = nameID(name).map { backend.received(nameID: $0) } ?? 0
            return (got == n, "received \(got)")
        case .counted(let name, let n):
            let got = nameID(name).map { backend.counted(nameID: $0) } ?? 0
            return (got == n, "counted \(got)")
        case .log(let text):
            for e in journal {
                if case .log(let l) = e, l.text.contains(text) { return (true, "") }
            }
            return (false, Simulation.noLogLine(text))
        case .completion(let name, let c):
            return each(name, { $0.completion == c }, { "completion " + $0.completion.word })
        case .revenue(let currency, let amount):
            let got = nameID(currency).flatMap { backend.revenue[$0] } ?? AmountSum()
            return (got == amount, "revenue \(got.text) \(currency)")
        case .requestState(let id, let s):
            return evaluate(request: id, { $0.state == s }, { "is " + stateText($0) })
        case .requestDropped(let id, let reason):
            return evaluate(request: id, { $0.state == .dropped && $0.reason == reason }, { "is " + stateText($0) })
        case .requestAttempts(let id, let n):
            return evaluate(request: id, { Int($0.attempts) == n }, { "has \($0.attempts) attempts" })
        }
    }
}
