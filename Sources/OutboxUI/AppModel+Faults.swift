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

    /// A key in the backend chooser: an answer's letter, then how often (`1`,
    /// `3`, `5`, `a`, or `%` and a typed percent); `r` / `k` for the selected
    /// request's name / kind only.
    mutating func chooser(_ chosen: AnswerChoice, _ key: Key) -> UIEffect? {
        var choice = chosen
        if key == .escape || (key == .char("q") && choice.percent == nil) {
            mode = .normal
            return nil
        }
        if let typed = choice.percent, let answer = choice.answer {
            switch key {
            case .enter:
                guard let bp = ServerRepeat.percent(typed + "%") else {
                    message = ("type a percent from 0 to 100 (at most two decimals), then Enter; Esc cancels", true)
                    return nil
                }
                mode = .normal
                planServer(answer, .chance(bp), for: choice.target)
                return nil
            case .backspace, .delete: choice.percent = String(typed.dropLast())
            case .tab:
                let i = AppModel.percentChoices.firstIndex(of: typed).map { $0 + 1 } ?? 0
                choice.percent = AppModel.percentChoices[i % AppModel.percentChoices.count]
            case .char(let c) where (c.properties.numericType != nil && c.isASCII) || c == ".":
                if typed.count < 6 { choice.percent = typed + String(Character(c)) }
            default:
                message = ("a percent: digits and `.`, Tab for 10/25/50/75, Enter; Esc cancels", true)
                return nil
            }
            message = nil
            mode = .chooseAnswer(choice)
            return nil
        }
        guard case .char(let c) = key else { return nil }
        if c == "r" || c == "k" {
            guard let facts = selectedNameAndKind else {
                message = ("no request is selected: j/k selects one; Esc cancels", true)
                return nil
            }
            let t: ServerTarget = c == "r" ? .name(facts.name) : .kind(facts.kind)
            choice.target = choice.target == t ? .all : t
            message = nil
            mode = .chooseAnswer(choice)
            return nil
        }
        guard let answer = choice.answer else {
            if let pick = AppModel.answerChoices.first(where: { $0.key == c }) {
                if pick.answer == .ok {
                    mode = .normal
                    planServer(.ok, .times(1), for: choice.target)
                } else {
                    choice.answer = pick.answer
                    message = nil
                    mode = .chooseAnswer(choice)
                }
            } else {
                message = ("no answer on `\(c)`; r or k: for the selected request; Esc cancels", true)
            }
            return nil
        }
        if c == "R" {
            // A status answer's Retry-After header: 1s, 10s, 60s, then none.
            guard case .status(let s) = answer.withoutRetryAfter else {
                message = ("retry-after goes with a status answer (100-599), not \(answer.word)", true)
                return nil
            }
            let all = AppModel.retryAfterChoices
            let next = answer.retryAfter.flatMap { all.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
            choice.answer = next < all.count ? .retryAfter(s, all[next]) : .status(s)
            message = nil
            mode = .chooseAnswer(choice)
            return nil
        }
        let rep: ServerRepeat
        switch c {
        case "1": rep = .times(1)
        case "3": rep = .times(3)
        case "5": rep = .times(5)
        case "a": rep = .always
        case "%":
            choice.percent = ""
            message = nil
            mode = .chooseAnswer(choice)
            return nil
        default:
            message = (
                "1, 3, 5 times, a(lways) or % a chance; R: a Retry-After; r or k: for the selected request; Esc cancels",
                true
            )
            return nil
        }
        mode = .normal
        planServer(answer, rep, for: choice.target)
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
