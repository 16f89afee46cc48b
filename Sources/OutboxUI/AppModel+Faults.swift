import OutboxCore

/// The faults' keys (issue 15): the backend chooser (`x`) with chances and
/// targets, the flap chooser (`F`) and the latency jitter chooser (`J`). Each
/// performs a scenario action, so it is recorded and replays headless.
extension AppModel {
    /// The flap chooser's presets: (key, online, offline).
    public static let flapChoices: [(key: Unicode.Scalar, up: Millis, down: Millis)] = [
        ("1", 5000, 2000), ("2", 10_000, 5000), ("3", 30_000, 10_000), ("4", 2000, 1000),
    ]
    /// The jitter chooser's presets: (key, jitter).
    public static let jitterChoices: [(key: Unicode.Scalar, jitter: Millis)] = [
        ("0", 0), ("1", 20), ("2", 50), ("3", 100), ("4", 500),
    ]
    /// The Retry-After headers `R` steps through in the backend chooser, then none.
    public static let retryAfterChoices: [Millis] = [1000, 10_000, 60_000]
    /// The percents Tab offers in the backend chooser's chance prompt.
    public static let percentChoices = ["10", "25", "50", "75"]

    /// What `.` steps to: the next instant (`nextInstant`), or a flap's toggle
    /// before it (a run does not wait for toggles; a person stepping sees them).
    mutating func nextStepInstant() -> Millis? {
        let flaps = columns.compactMap(\.nextFlapTime)
        return (flaps + [nextInstant()].compactMap { $0 }).min()
    }

    /// The selected request's name and kind (comparing: the first column that has it).
    var selectedNameAndKind: (name: String, kind: String)? {
        guard let n = selected else { return nil }
        if isComparing {
            guard let r = selectedMatchRow, let c = match.rows[r].ids.firstIndex(where: { $0 != nil }),
                let id = match.rows[r].ids[c]
            else { return nil }
            return (columns[c].name(of: id), columns[c].word(columns[c].request(id).kind))
        }
        return (sim.name(of: n), sim.word(sim.request(n).kind))
    }

    /// A key in the backend chooser (`AnswerChoice.step`): the plan it makes is performed.
    mutating func chooser(_ chosen: AnswerChoice, _ key: Key) -> UIEffect? {
        switch chosen.step(key, selected: selectedNameAndKind) {
        case .unchanged: break
        case .choosing(let c):
            message = nil
            mode = .chooseAnswer(c)
        case .cancelled: mode = .normal
        case .hint(let text): message = (text, true)
        case .plan(let answer, let rep, let target):
            mode = .normal
            planServer(answer, rep, for: target)
        }
        return nil
    }

    /// Plans the backend's answers and says what it will answer.
    mutating func planServer(_ answer: Answer, _ rep: ServerRepeat, for target: ServerTarget) {
        if perform(.serverPlanned(answer, rep, for: target)) {
            say("backend will answer " + sim.plans.text(for: target))
        }
    }

    /// A key in the flap chooser (`F`).
    mutating func flapChooser(_ key: Key) {
        if key == .escape || key == .char("q") || key == .char("F") {
            mode = .normal
            return
        }
        guard case .char(let c) = key else { return }
        if c == "s" {
            mode = .normal
            guard sim.flap != nil else {
                message = ("the network is not flapping", false)
                return
            }
            if perform(.networkWentOnline) { say("network flap stopped: online") }
            return
        }
        guard let pick = AppModel.flapChoices.first(where: { $0.key == c }) else {
            message = ("1 to 4 flap the network, s stops it; Esc cancels", true)
            return
        }
        mode = .normal
        if perform(.networkFlapping(up: pick.up, down: pick.down)) {
            say("network flap: online \(VirtualTime.duration(pick.up)), offline \(VirtualTime.duration(pick.down))")
        }
    }

    /// A key in the latency jitter chooser (`J`).
    mutating func jitterChooser(_ key: Key) {
        if key == .escape || key == .char("q") || key == .char("J") {
            mode = .normal
            return
        }
        guard case .char(let c) = key, let pick = AppModel.jitterChoices.first(where: { $0.key == c }) else {
            message = ("0 to 4 choose the jitter; Esc cancels", true)
            return
        }
        mode = .normal
        let value = VirtualTime.duration(pick.jitter)
        if perform(.settingChanged(SettingChange(.latencyJitter(pick.jitter), written: value))) {
            say(pick.jitter == 0 ? "latency jitter off" : "latency jitter ±\(value): each attempt's latency drawn")
        }
    }
}
