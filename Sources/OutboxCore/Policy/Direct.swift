/// Kinds sent outside the queue (`direct KIND... rule ID`, iOS's IOS-7): sent
/// at once, never saved, never retried; a 2xx delivers them, anything else
/// drops them (not-saved), and so does a quit or being made while held offline.

enum Direct {
    static let statement: Statement = Statement(
        keyword: "direct", forms: ["direct KIND... rule ID", "direct none"], file: "Policy/Direct.swift", doc: doc
    ) { p, n, w in
        if w.count == 2 && w[1] == "none" {
            p.d.directKinds = 0
            p.d.directRule = nil
            return
        }
        guard w.count >= 4, w[w.count - 2] == "rule" else { return p.fail(n, "bad direct line, " + statement.expected) }
        guard let mask = p.kindsList(n, w[1..<(w.count - 2)]) else { return }
        p.d.directKinds = mask
        p.d.directRule = p.cite(n, w[w.count - 1])
    }

    static func finish(_ p: inout ProfileParser, end: Int) {
        if p.d.directKinds & ~p.d.kinds != 0 {
            p.fail(end, "a direct kind the app does not make, expected it in the `requests` line too")
        }
    }
}

extension Simulation {
    @inline(__always)
    func isDirect(_ kind: RequestKind) -> Bool { spec.policy.directKinds & kind.bit != 0 }

    /// The rule of a direct request of `kind`, or nil when the kind goes into the queue.
    @inline(__always)
    func directRule(_ kind: RequestKind) -> RuleID? { isDirect(kind) ? spec.policy.directRule : nil }

    /// A direct request is made: sent at once; held offline, it is not attempted at all.
    mutating func createdDirect(_ id: Int32, rule: RuleID) {
        if heldNow != nil {
            enter(id, .dropped, rule: rule, reason: .notSaved)
            return
        }
        enter(id, .pending, rule: rule)
        send(id, rule: rule)
    }

    /// A direct request's attempt ended: delivered on success, else dropped.
    mutating func finishedDirect(_ id: Int32, _ outcome: Outcome, rule: RuleID) {
        if outcome.isSuccess {
            move(id, to: .delivered, rule: rule, outcome: outcome)
        } else {
            move(id, to: .dropped, rule: rule, outcome: outcome, reason: .notSaved)
        }
    }
}

extension Direct {
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let doc: [StatementDoc] = [
        StatementDoc(
            text: """
                Those kinds go outside the queue (iOS's logout, IOS-7): sent at once, never
                saved, never retried. A 2xx delivers them; any other outcome drops them
                (`not-saved`); made while the profile holds requests offline, or alive at a
                quit, they are dropped (`not-saved`). Every transition of theirs cites `R`. The
                kinds must be ones the profile makes. `direct none` removes a base's (say, an
                iOS variant whose `requests` line leaves out `logout`).
                """)
    ]
}
