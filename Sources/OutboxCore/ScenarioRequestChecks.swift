/// `expect at T request ID ...`: checks of one request by its number (an
/// extension, docs/scenarios.md). The contract's checks name requests by name
/// and hold for every request of that name; a session pinned with `E` whose
/// requests of one name differ needs to say which one.
///
/// The id is the request's number in the run: 1 for the first request made,
/// then one more for each (the #ID the live screen and the text timeline show).
/// A device's saved requests (`saved` lines, a device on disk) get theirs at
/// the first launch, in the order they were saved.
extension ScenarioParser {
    static let requestForm =
        "`request <id> <state>`, `request <id> dropped <reason>` or `request <id> attempts <n>` (the id without `#`, which starts a comment)"

    mutating func requestCheck(_ n: Int, _ w: [String]) -> Check? {
        guard w.count == 3 || w.count == 4 else {
            fail(n, "bad `request` check, expected " + ScenarioParser.requestForm)
            return nil
        }
        guard let id = Int32(w[1]), id >= 1 else {
            fail(
                n,
                "bad request id `\(SafeText.escaped(w[1], max: 40))`, expected a whole number ≥ 1 (the #ID the live screen and the timeline show)"
            )
            return nil
        }
        if w.count == 3 {
            if w[2] == "attempts" {
                fail(n, "bad `request` check, expected `request <id> attempts <n>`")
                return nil
            }
            guard let s = stateWord(n, w[2], also: ["attempts"]) else { return nil }
            return .requestState(id, s)
        }
        switch w[2] {
        case "dropped":
            guard let r = dropReason(n, w[3]) else { return nil }
            return .requestDropped(id, r)
        case "attempts":
            guard let v = Int(w[3]), v >= 0 else {
                fail(n, "bad count `\(w[3])`, expected a whole number ≥ 0")
                return nil
            }
            return .requestAttempts(id, v)
        default:
            fail(
                n,
                "bad `request` check: `\(SafeText.escaped(w[2], max: 40))` then a word, expected "
                    + ScenarioParser.requestForm + Suggest.hint(w[2], among: ["dropped", "attempts"]))
            return nil
        }
    }

    /// A state's word, or a failure listing them (with `also`, other words the
    /// place takes, offered by "did you mean" too).
    mutating func stateWord(_ n: Int, _ word: String, also: [String] = []) -> RequestState? {
        if let s = RequestState(word: word) { return s }
        let words = RequestState.allCases.map(\.word)
        fail(
            n,
            "unknown state `\(word)`, expected one of: " + words.joined(separator: ", ")
                + Suggest.hint(word, among: words + also))
        return nil
    }

    /// A drop reason's word, or a failure listing them.
    mutating func dropReason(_ n: Int, _ word: String) -> DropReason? {
        if let r = DropReason(word: word) { return r }
        let words = DropReason.allCases.map(\.word)
        fail(
            n,
            "unknown drop reason `\(word)`, expected one of: " + words.joined(separator: ", ")
                + Suggest.hint(word, among: words))
        return nil
    }

    /// How many requests an action makes at most (`Simulation.apply`).
    func creates(_ action: Action) -> Int {
        switch action {
        case .eventTracked: return 1
        case .call(let word, _): return vocabulary.call(word)?.makes.count ?? 0
        default: return 0
        }
    }

    /// Keeps a request id a check played names, to compare with what the lines can make.
    mutating func noteCheckedID(_ n: Int, _ c: Check) {
        guard !savedDevice else { return }
        switch c {
        case .requestState(let id, _), .requestDropped(let id, _), .requestAttempts(let id, _):
            if checkedIDSeen.insert(id).inserted { checkedIDs.append((n, id)) }
        default: break
        }
    }

    /// A `request ID` check beyond the most requests the lines played can make
    /// could only fail: found before anything runs and kept in `unmatchable`,
    /// as a name no line creates is.
    mutating func checkRequestIDs(_ profile: Profile) {
        // The consent gate's install is made at the first launch.
        let most = creatable + (launches && profile.hasConsentGate ? 1 : 0)
        for c in checkedIDs where Int(c.id) > most {
            let expected =
                most == 0
                ? "the lines of the file make no request, expected a line that makes it before"
                : "the lines of the file make at most \(most) request\(most == 1 ? "" : "s"), expected an id from 1 to \(most)"
            unmatchable.append((c.line, "no request #\(c.id) can exist: " + expected))
        }
    }
}

extension Simulation {
    /// Whether a `request ID` check holds now, and what was found when it does not.
    func evaluate(request id: Int32, _ holds: (Request) -> Bool, _ describe: (Request) -> String) -> (Bool, String) {
        guard id >= 1, Int(id) <= requests.count else {
            return (
                false,
                requests.isEmpty
                    ? "no request #\(id): no request was made" : "no request #\(id): \(requests.count) made"
            )
        }
        let r = request(id)
        return holds(r) ? (true, "") : (false, "#\(id) " + describe(r))
    }
}
