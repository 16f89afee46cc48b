/// The flush of the offline queue (`component flush start ID more ID stop ID
/// send ID`, LinkTrail's LT-8 to LT-11): a state machine of its own. A launch,
/// consent granted and a success outside a flush start one; one runs at a
/// time (a trigger during it asks for one more pass); it sends the saved
/// requests oldest first, one attempt each, and ends at the first failure, an
/// empty queue, a closed gate, the network held off or the app closing.

/// The rules the flush cites (LT-8 to LT-11 in the built-in).
public struct FlushRules: Equatable, Sendable {
    public let start: RuleID, more: RuleID, stop: RuleID, send: RuleID
}

/// What starts a flush (LinkTrail's LT-8, LT-9).
public enum FlushTrigger: Equatable, Sendable {
    case launch, consentGranted, deferred
    case success(Int32)
}

public struct FlushState: Equatable, Sendable {
    public internal(set) var active = false
    /// What started the flush under way (`Simulation.flushTriggerText`).
    public internal(set) var trigger: FlushTrigger = .launch
    /// A trigger came during the flush: one more pass when it ends (LT-9).
    public internal(set) var morePass = false
    public internal(set) var sent = 0
}

enum Flush {
    static let component = Component(
        name: "flush", roles: ["start", "more", "stop", "send"], file: "Policy/Flush.swift",
        set: { d, r in d.flush = FlushRules(start: r[0], more: r[1], stop: r[2], send: r[3]) },
        remove: { d in d.flush = nil })
}

extension Simulation {

    mutating func startFlush(trigger: FlushTrigger) {
        guard let f = spec.policy.flush else { return }
        if flush.active {
            if !flush.morePass {
                log(.sdk, .flushMorePass(trigger), request: -1, rule: f.more) {
                    let t = $0.text(of: trigger)
                    return $0.say(.flushMore) { _ in t }
                }
            }
            flush.morePass = true
            return
        }
        if count(.queued) == 0 && gateOpen {
            // Nothing saved to send: the flush starts and ends at once; one line says so.
            log(.sdk, .flushNothingQueued(trigger), request: -1, rule: f.start) {
                let t = $0.text(of: trigger)
                return $0.say(.flushEmpty) { _ in t }
            }
            return
        }
        flush.active = true
        flush.trigger = trigger
        flush.sent = 0
        let queued = Int32(clamping: count(.queued))
        log(.sdk, .flushStarted(trigger, queued: queued), request: -1, rule: f.start) {
            let t = $0.flushTriggerText
            return $0.say(.flushStarted) { s in s == .trigger ? t : String(queued) }
        }
        continueFlush()
    }

    mutating func continueFlush() {
        guard let f = spec.policy.flush, flush.active else { return }
        guard gateOpen else {
            endFlush(.gateClosed(consent), rule: f.stop)
            return
        }
        if let hold = heldNow {
            // A profile that holds requests offline (or marked offline) sends nothing: the flush stops there.
            endFlush(.offline, rule: hold)
            return
        }
        guard let id = popOldestQueued() else {
            endFlush(.queueEmpty, rule: f.send)
            return
        }
        flush.sent += 1
        requests[Int(id) - 1].inFlush = true
        send(id, rule: f.send)
    }

    /// Ends the flush under way; `end` is only turned into text for the journal.
    mutating func endFlush(_ end: FlushEnd, rule: RuleID, allowMorePass: Bool = true) {
        flush.active = false
        let (sent, left) = (Int32(clamping: flush.sent), Int32(clamping: count(.queued)))
        log(.sdk, .flushEnded(end, sent: sent, left: left), request: -1, rule: rule) {
            let e = $0.text(of: end), id = $0.profile.rule(rule).id
            return $0.say(.flushEnded) { s in
                switch s {
                case .rule: return id
                case .end: return e
                case .sent: return String(sent)
                default: return String(left)
                }
            }
        }
        if flush.morePass && allowMorePass {
            flush.morePass = false
            startFlush(trigger: .deferred)
        }
    }
}

extension Simulation {
    /// An attempt the flush sent ended: one attempt each, so a failure leaves
    /// the request queued and ends the flush; a delivery or a drop goes on.
    mutating func flushAnswered(_ id: Int32, _ outcome: Outcome, _ resp: Response, _ r: Request, flush f: FlushRules) {
        switch resp.action {
        case .deliver:
            move(id, to: .delivered, rule: f.send, outcome: outcome)
            if hasCompletions {
                complete(id, .success, .completionDelivered, rule: f.send, outcome: outcome, attempts: r.budgetUsed)
            }
            continueFlush()
        case .retry, .queue, .stall:
            // `stall` needs `batch`, which the flush cannot be combined with.
            let rule = resp.action == .retry ? f.send : resp.rule
            move(id, to: .queued, rule: rule, outcome: outcome)
            endFlush(.failed(outcome, request: id), rule: rule)
        case .drop(let reason):
            drop(id, reason: reason, rule: resp.rule, outcome: outcome, attempts: r.budgetUsed, key: .completionDropped)
            continueFlush()
        }
    }
}

extension Simulation {
    func text(of trigger: FlushTrigger) -> String {
        switch trigger {
        case .launch: return "launch"
        case .consentGranted: return "consent granted"
        case .deferred: return "deferred trigger (" + (spec.policy.flush.map { profile.rule($0.more).id } ?? "") + ")"
        case .success(let id): return "successful send of \(label(id))"
        }
    }

    func text(of end: FlushEnd) -> String {
        switch end {
        case .failed(let outcome, let id): return "\(outcome.word) on \(label(id))"
        case .queueEmpty: return "queue empty"
        case .gateClosed(let consent): return "consent \(consent.word)"
        case .consentWithdrawn: return "consent withdrawn"
        case .appClosed: return "the app closed"
        case .offline: return "offline, requests are held"
        }
    }
}
