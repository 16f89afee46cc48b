extension ScenarioParser {
    // MARK: Request names in expect lines

    /// A request name a line creates; `skipped`: a line left out on the profile played.
    mutating func noteCreated(_ name: String, skipped: Bool = false) {
        if skipped {
            skippedNames.insert(name)
        } else if createdNames.insert(name).inserted {
            createdOrder.append(name)
        }
    }

    /// The names an action creates (`Simulation.apply`); the consent gate's
    /// install is made at the first launch.
    mutating func noteCreated(by action: Action, skipped: Bool = false) {
        switch action {
        case .eventTracked(let e): noteCreated(e.name, skipped: skipped)
        case .call(let word, let name):
            guard let c = vocabulary.call(word) else { break }
            if c.takesName, let name { noteCreated(name, skipped: skipped) }
            if !c.takesName { for w in c.madeWords { noteCreated(w, skipped: skipped) } }
        case .appLaunched: launches = true
        default: break
        }
        if !skipped { creatable += creates(action) }
    }

    /// The request a check looks at by name when it can only hold if such a
    /// request exists: `received` and `counted` of 0 hold for a name never
    /// made (docs/scenarios.md), so they name none.
    static func requestName(_ c: Check) -> String? {
        switch c {
        case .state(let name, _), .dropped(let name, _), .attempts(let name, _), .completion(let name, _):
            return name
        case .received(let name, let n), .counted(let name, let n):
            return n > 0 ? name : nil
        case .saved, .log, .revenue, .requestState, .requestDropped, .requestAttempts: return nil
        }
    }

    /// Keeps a request name a check played needs, to look for once every line
    /// is read (kept once, at its first line).
    mutating func noteChecked(_ n: Int, _ c: Check) {
        noteCheckedID(n, c)
        guard !savedDevice, let name = ScenarioParser.requestName(c) else { return }
        if checkedSeen.insert(name).inserted { checkedNames.append((n, name)) }
    }

    /// A check played that needs a request no line played can create could
    /// only fail: found before anything runs and kept in `unmatchable`, with
    /// why (a failed check, not bad input). The lines played are those of the
    /// profile played (`outbox compare` leaves some out), so a file rewritten
    /// without its skipped lines reads the same.
    /// The lines that create requests, as a message lists them: `track`, the
    /// calls that take a name, those that do not, then `saved`.
    func creatingWords(_ profile: Profile) -> [String] {
        let calls = profile.vocabulary.calls.filter { !$0.makes.isEmpty }
        return ["track"] + calls.filter(\.takesName).map(\.word) + calls.filter { !$0.takesName }.map(\.word) + [
            "saved"
        ]
    }

    mutating func checkRequestNames(_ profile: Profile) {
        if launches && profile.hasConsentGate { noteCreated("install") }
        for c in checkedNames where !createdNames.contains(c.name) {
            let hint = Suggest.hint(c.name, among: createdOrder)
            let shown = createdOrder.prefix(8).map { "`" + SafeText.escaped($0, max: 60) + "`" }
            // With a suggestion the list is left out: the suggestion is the line to read.
            let expected =
                createdOrder.isEmpty || !hint.isEmpty
                ? "expected a name a " + Statement.alternatives(creatingWords(profile)) + " line creates"
                : "expected one of: " + shown.joined(separator: ", ")
                    + (createdOrder.count > 8 ? " (and \(createdOrder.count - 8) more)" : "")
            var what = "no line of the file creates a request named `\(SafeText.escaped(c.name, max: 60))`"
            if skippedNames.contains(c.name) {
                what += " on profile \(profile.rawValue) (the lines that do are left out: it lacks what they do)"
            } else if c.name == "install" && launches {
                what += " (an install comes with the consent gate; profile \(profile.rawValue) has none)"
            }
            unmatchable.append((c.line, what + ", " + expected + hint))
        }
        checkRequestIDs(profile)
    }

    mutating func check(_ n: Int, _ w: [String]) -> Check? {
        func count(_ word: String) -> Int? {
            guard let v = Int(word), v >= 0 else {
                fail(n, "bad count `\(word)`, expected a whole number ≥ 0")
                return nil
            }
            return v
        }
        func arity(_ k: Int, _ form: String) -> Bool {
            if w.count != k {
                fail(n, "bad `\(w[0])` check, expected `\(form)`")
                return false
            }
            return true
        }
        switch w[0] {
        case "state":
            guard arity(3, "state <name> <state>") else { return nil }
            guard let s = stateWord(n, w[2]) else { return nil }
            return .state(w[1], s)
        case "dropped":
            guard arity(3, "dropped <name> <reason>") else { return nil }
            guard let r = dropReason(n, w[2]) else { return nil }
            return .dropped(w[1], r)
        case "attempts":
            guard arity(3, "attempts <name> <n>"), let c = count(w[2]) else { return nil }
            return .attempts(w[1], c)
        case "saved":
            guard arity(2, "saved <n>"), let c = count(w[1]) else { return nil }
            return .saved(c)
        case "received":
            guard arity(3, "received <name> <n>"), let c = count(w[2]) else { return nil }
            return .received(w[1], c)
        case "counted":
            guard arity(3, "counted <name> <n>"), let c = count(w[2]) else { return nil }
            return .counted(w[1], c)
        case "log":
            guard arity(2, "log \"<text>\"") else { return nil }
            return .log(w[1])
        case "completion":
            guard arity(3, "completion <name> true|false|none") else { return nil }
            let c: Completion
            switch w[2] {
            case "true": c = .success
            case "false": c = .failure
            case "none": c = .none
            default:
                fail(
                    n,
                    "bad completion `\(w[2])`, expected true, false or none"
                        + Suggest.hint(w[2], among: ["true", "false", "none"]))
                return nil
            }
            return .completion(w[1], c)
        case "revenue":
            guard arity(3, "revenue <CUR> <amount>") else { return nil }
            guard let a = AmountSum.parse(w[2]) else {
                fail(
                    n,
                    "bad amount `\(w[2])`, expected a decimal number like 49.99 (at most 30 digits before the point, 6 after)"
                )
                return nil
            }
            return .revenue(w[1], a)
        case "request":
            return requestCheck(n, w)
        default:
            fail(
                n,
                "unknown check `\(w[0])`, expected state, dropped, attempts, saved, received, counted, log, completion, revenue or request"
                    + Suggest.hint(w[0], among: ScenarioParser.checkWords))
            return nil
        }
    }
}
