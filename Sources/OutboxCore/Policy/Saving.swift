/// What is saved on the device and when, what a new request cites, and what a
/// quit does to the requests still alive (`save`, `created`, `send`, `quit`).
/// `save never rule ID`: a memory-only SDK (the Python SDKs' in-memory
/// queues), nothing saved, the device store never written (docs/DECISIONS.md D322).

/// When a request is saved on the device.
public enum SaveMode: Equatable, Sendable {
    /// As soon as it is accepted.
    case atCreate
    /// When an attempt fails and the answer says `queue`; only the kinds in
    /// `kinds` (a bit per `RequestKind`); others are dropped (not-saved) citing `rule`.
    case onFailure(kinds: UInt64, rule: RuleID)
    /// Never: the queue lives in memory, a quit drops every live request
    /// (not-saved) citing `rule`, and the device store is never written.
    case never(rule: RuleID)
}

enum Saving {
    static let saveStatement: Statement = Statement(
        keyword: "save", forms: ["save at create", "save on failure [KIND...] rule ID", "save never rule ID"],
        file: "Policy/Saving.swift", doc: saveDoc
    ) { p, n, w in
        p.saveAt = n
        if w.count == 3 && w[1] == "at" && w[2] == "create" {
            p.d.save = .atCreate
            p.given.insert("save")
            return
        }
        if w.count >= 2 && w[1] == "never" {
            guard w.count == 4, w[2] == "rule" else {
                return p.fail(n, "bad save never line, expected `save never rule ID`")
            }
            guard let r = p.cite(n, w[3]) else { return }
            p.d.save = .never(rule: r)
            p.given.insert("save")
            return
        }
        guard w.count >= 5, w[1] == "on", w[2] == "failure", w[w.count - 2] == "rule" else {
            return p.fail(n, "bad save line, " + saveStatement.expected)
        }
        let list = w[3..<(w.count - 2)]
        guard let mask = list.isEmpty ? UInt64.max : p.kindsList(n, list), let r = p.cite(n, w[w.count - 1]) else {
            return
        }
        p.d.save = .onFailure(kinds: mask, rule: r)
        p.given.insert("save")
    }

    static let createdStatement = ruleStatement("created", createdDoc) { $0.createdRule = $1 }
    static let sendStatement = ruleStatement("send", sendDoc) { $0.sendRule = $1 }

    /// `created rule ID`, `send rule ID`.
    static func ruleStatement(
        _ word: String, _ doc: [StatementDoc], _ set: @escaping @Sendable (inout ProfilePolicy, RuleID) -> Void
    )
        -> Statement
    {
        Statement(keyword: word, forms: ["\(word) rule ID"], file: "Policy/Saving.swift", doc: doc) { p, n, w in
            guard w.count == 3, w[1] == "rule" else {
                p.uncounted = true
                return p.fail(n, "bad \(w[0]) line, expected `\(w[0]) rule ID`")
            }
            // A rule that cannot be cited unsets the statement (a base's too).
            guard let r = p.cite(n, w[2]) else { return _ = p.given.remove(word) }
            set(&p.d, r)
            p.given.insert(word)
        }
    }

    static let quitStatement: Statement = Statement(
        keyword: "quit", forms: ["quit keeps saved rule ID"], file: "Policy/Saving.swift", doc: quitDoc
    ) { p, n, w in
        guard w.count == 5, w[1] == "keeps", w[2] == "saved", w[3] == "rule" else {
            p.uncounted = true
            return p.fail(n, "bad quit line, " + quitStatement.expected)
        }
        guard let r = p.cite(n, w[4]) else { return _ = p.given.remove("quit") }
        p.d.survivesRule = r
        p.given.insert("quit")
    }

    /// At the end of the file: the statements every profile has.
    static func finish(_ p: inout ProfileParser, end: Int) {
        if !p.given.contains("save") { p.fail(end, "no save line, " + saveStatement.expected) }
        if !p.given.contains("created") {
            p.fail(end, "no created line, expected `created rule ID` (the rule a new request cites)")
        }
        if !p.given.contains("send") {
            p.fail(end, "no send line, expected `send rule ID` (the rule its first attempt cites)")
        }
        if case .never(let r) = p.d.save {
            // Nothing is saved: a quit drops every live request citing the save line's rule.
            p.d.survivesRule = r
            if p.d.gate != nil {
                p.fail(
                    p.saveAt ?? end,
                    "`save never` with the consent gate, which keeps its decision on the device (LT-1), expected `save at create` or `save on failure ...`"
                )
            }
        } else if !p.given.contains("quit") {
            p.fail(end, "no quit line, " + quitStatement.expected)
        }
    }
}

extension Simulation {
    /// A request is made and goes into the queue: saved now under `save at
    /// create`, and sent (the last stage of `created`, Dispatch.swift).
    mutating func createdInQueue(_ id: Int32) {
        enter(id, .pending, rule: spec.policy.createdRule)
        if spec.policy.save == .atCreate { setSaved(id, true) }
        send(id, rule: spec.policy.sendRule)
    }

    /// Keeps a failed request saved and queued, when its kind is saved (`save on failure KINDS`).
    mutating func queue(_ id: Int32, rule: RuleID, outcome: Outcome, attempts: Int32) {
        switch spec.policy.save {
        case .onFailure(let kinds, let saveRule) where kinds & request(id).kind.bit == 0:
            drop(id, reason: .notSaved, rule: saveRule, outcome: outcome, attempts: attempts, key: .completionDropped)
        case .never:
            // Memory only: it waits queued, in memory.
            move(id, to: .queued, rule: rule, outcome: outcome)
        default:
            move(id, to: .queued, rule: rule, outcome: outcome)
            setSaved(id, true)
        }
    }

    /// Whether the profile saves nothing (`save never`): the device store is never written.
    var savesNothing: Bool {
        if case .never = spec.policy.save { return true }
        return false
    }

    /// The app closes (`quit keeps saved`): a saved request alive turns queued,
    /// one not saved is dropped (its attempt, if any, is already cancelled).
    mutating func closingInQueue(_ id: Int32) {
        if request(id).saved {
            move(id, to: .queued, rule: spec.policy.survivesRule)
        } else {
            move(id, to: .dropped, rule: spec.policy.survivesRule, reason: .notSaved)
        }
    }
}

extension Saving {
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let saveDoc: [StatementDoc] = [
        StatementDoc(
            text: """
                When a request is saved on the device (and so survives a quit). Required.

                - `save at create`: as soon as it is made (LinkTrail, iOS).
                - `save on failure`: only when an answer says `queue`. With kinds listed, only
                  those kinds are saved; a request of another kind that an answer would queue is
                  dropped (`not-saved`) citing `R` (Android's pings, AND-2). Without kinds,
                  every kind.
                - `save never rule R`: nothing is ever saved (the Python server-side SDKs, whose
                  queues live in memory). An answer that says `queue` keeps the request `queued`
                  in memory; at a quit every live request is dropped (`not-saved`) citing `R`
                  (no `quit` line is needed; a base's is replaced), so nothing comes back at
                  the next launch. The device store is never written: `outbox run --state-dir`
                  and the live screen keep such a device in memory, and a scenario's `saved`
                  lines are refused. It does not go with the consent gate, which keeps its
                  decision on the device.
                """,
            example: """
                profile server-side
                base android
                rule MEM-1 "The queue lives in memory: nothing survives a quit."
                save never rule MEM-1
                """)
    ]
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let createdDoc: [StatementDoc] = [
        StatementDoc(
            text: """
                The rule a new request cites (`new → pending`). Required.
                """)
    ]
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let sendDoc: [StatementDoc] = [
        StatementDoc(
            text: """
                The rule its first attempt cites (`pending → in-flight`). Required.
                """)
    ]
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let quitDoc: [StatementDoc] = [
        StatementDoc(
            text: """
                At a quit, a saved request still alive becomes `queued` and one not saved is
                dropped (`not-saved`), both citing `R` (a request on the wire has its attempt
                cancelled first). Required. At the next launch every saved request comes back
                `queued` with a fresh attempt budget.
                """)
    ]
}
