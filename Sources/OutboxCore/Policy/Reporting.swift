/// What the app's code hears about a request's end (`report none|onerror|
/// completion rule ID`): LinkTrail's `onError` lines, iOS's completion
/// handlers (which do not survive a quit), or nothing.

/// What the app's code hears about a request's end.
public enum Reporting: Equatable, Sendable {
    case none
    /// `onError` for a failure that ends retrying (kept) or drops it, then a warning if given.
    case onError
    /// A completion handler per queued request; `lost`: cited when it did not survive a quit.
    case completion(lost: RuleID)
}

enum ReportingPolicy {
    static let statement: Statement = Statement(
        keyword: "report", forms: ["report none", "report onerror", "report completion rule ID"],
        file: "Policy/Reporting.swift", doc: doc
    ) { p, n, w in
        if w.count == 2 && w[1] == "none" {
            p.d.report = .none
        } else if w.count == 2 && w[1] == "onerror" {
            p.d.report = .onError
        } else if w.count == 4 && w[1] == "completion" && w[2] == "rule" {
            if let r = p.cite(n, w[3]) { p.d.report = .completion(lost: r) }
        } else {
            p.fail(n, "bad report line, " + statement.expected)
        }
    }
}

extension Simulation {
    /// Whether the app's code gets completion handlers on this profile.
    var hasCompletions: Bool { profile.hasCompletions }

    /// Drops a request after an answer, telling the app's code as the profile does.
    mutating func drop(
        _ id: Int32, reason: DropReason, rule: RuleID, outcome: Outcome, attempts: Int32, key: TextKey
    ) {
        switch spec.policy.report {
        case .onError:
            log(.onError, .onError(attempts: attempts, outcome: outcome, kept: false), request: id, rule: rule) {
                $0.say(.onErrorDropped, $0.requestSlots(id, outcome, attempts: attempts, reason: reason))
            }
            if spec.texts[.warningDropped] != nil {
                log(.sdk, .warning(outcome: outcome), request: id, rule: rule) {
                    $0.say(.warningDropped, $0.requestSlots(id, outcome, attempts: attempts, reason: reason))
                }
            }
            move(id, to: .dropped, rule: rule, outcome: outcome, reason: reason)
        case .completion:
            move(id, to: .dropped, rule: rule, outcome: outcome, reason: reason)
            complete(id, .failure, key, rule: rule, outcome: outcome, attempts: attempts)
        case .none:
            move(id, to: .dropped, rule: rule, outcome: outcome, reason: reason)
        }
    }

    /// Calls the request's completion handler, unless it was lost with a quit.
    mutating func complete(
        _ id: Int32, _ result: Completion, _ key: TextKey, rule: RuleID, outcome: Outcome, attempts: Int32
    ) {
        guard case .completion(let lostRule) = spec.policy.report else { return }
        let reason = request(id).reason
        if request(id).completionLost {
            log(.completion, .completionLost, request: id, rule: lostRule) {
                $0.say(.completionLost, $0.requestSlots(id, outcome, attempts: attempts, reason: reason))
            }
            return
        }
        requests[Int(id) - 1].completion = result
        log(.completion, .completion(result), request: id, rule: rule) {
            $0.say(key, $0.requestSlots(id, outcome, attempts: attempts, reason: reason))
        }
    }
}

extension ReportingPolicy {
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let doc: [StatementDoc] = [
        StatementDoc(
            headings: ["`report none|onerror|completion rule R`"],
            text: """
                What the app's code hears about a request's end. Default `none`.

                - `onerror`: LinkTrail's `onError`: a line when the budget runs out and the
                  request is kept (`onerror.kept`), and when an answer drops a request
                  (`onerror.dropped`, then `warning.dropped` if the profile says one).
                - `completion rule R`: iOS's completion handlers: `completion(...): true` on
                  delivery, `false` on a drop. A handler does not survive a quit: a request
                  that ends after one cites `R` and says so (`completion.lost`).
                """)
    ]
}
