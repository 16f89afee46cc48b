/// What a request does while the device is offline (`offline fail`, the
/// default: attempts fail at once as `offline`, NET; `offline hold rule ID`:
/// nothing is sent, requests wait queued and saved until a resend).

/// What a request does while the network is off.
public enum OfflineMode: Equatable, Sendable {
    /// Attempts are made and fail at once as `offline` (NET).
    case fail
    /// Nothing is sent: requests wait queued and go out when a resend says so.
    case hold(RuleID)
}

enum Offline {
    static let statement: Statement = Statement(
        keyword: "offline", forms: ["offline fail", "offline hold rule ID"], file: "Policy/Offline.swift", doc: doc
    ) { p, n, w in
        if w.count == 2 && w[1] == "fail" {
            p.d.offline = .fail
        } else if w.count == 4 && w[1] == "hold" && w[2] == "rule" {
            if let r = p.cite(n, w[3]) { p.d.offline = .hold(r) }
        } else {
            p.fail(n, "bad offline line, " + statement.expected)
        }
    }
}

extension Simulation {
    /// The rule requests wait under while held offline (`offline hold`), or nil.
    var holdsOffline: RuleID? {
        if case .hold(let r) = spec.policy.offline { return r }
        return nil
    }

    /// Held offline, a request made now waits queued (and saved): true when it did.
    mutating func createdOffline(_ id: Int32) -> Bool {
        guard let rule = holdsOffline, !online else { return false }
        enter(id, .queued, rule: rule)
        setSaved(id, true)
        return true
    }

    /// A backoff ended: the request goes out again, citing the rule it waited
    /// under; held offline, it waits queued instead.
    mutating func retryDue(_ id: Int32) {
        if let rule = holdsOffline, !online {
            move(id, to: .queued, rule: rule)
            return
        }
        send(id, rule: requests[Int(id) - 1].rule)
    }
}

extension Offline {
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let doc: [StatementDoc] = [
        StatementDoc(
            text: """
                What a request does while the device is offline.

                - `offline fail` (the default): an attempt is made and fails at once with the
                  outcome `offline` (NET), which the [`offline` class](#answer-classes) answers.
                - `offline hold rule R`: nothing is sent and nothing counts as an attempt. A
                  request made offline, or whose retry falls due offline, waits `queued` (saved)
                  citing `R`, until a resend sends it (`resend on network` to send it when the
                  network returns).
                """)
    ]
}
