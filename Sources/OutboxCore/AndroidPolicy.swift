/// Positive User on Android: sent at once, saved on failure, resent on every
/// getInstance() with no limit, 4xx never dropped (AND-1 to AND-6).
enum AndroidPolicy: DeliveryPolicy {
    /// AND-2: which kinds are saved when they fail.
    static func isSavedOnFailure(_ kind: RequestKind) -> Bool {
        switch kind {
        case .event, .screen, .product, .notification, .logout: return true
        default: return false
        }
    }

    static func created(_ sim: inout Simulation, _ id: Int32) {
        sim.enter(id, .pending, rule: .and1)
        sim.send(id, rule: .and1)
    }

    static func answered(_ sim: inout Simulation, _ id: Int32, _ outcome: Outcome) {
        let r = sim.request(id)
        if outcome.isSuccess {
            sim.move(id, to: .delivered, rule: r.saved ? .and3 : .and1, outcome: outcome)
            return
        }
        guard isSavedOnFailure(r.kind) else {
            sim.move(id, to: .dropped, rule: .and2, outcome: outcome, reason: .notSaved)
            return
        }
        let rule: RuleID
        if outcome == .offline {
            rule = .and5
        } else if outcome.isTransportError || outcome.is5xx {
            rule = .and2
        } else {
            rule = .and4  // a rejection is kept and resent, never dropped
        }
        sim.move(id, to: .queued, rule: rule, outcome: outcome)
        sim.setSaved(id, true)
    }

    static func launched(_ sim: inout Simulation) {
        getInstance(&sim, at: .launch)
    }

    /// `trigger`: `.launch` when the launch calls it, else `.getInstance` (the app calls it).
    static func getInstance(_ sim: inout Simulation, at trigger: ResendTrigger = .getInstance) {
        let why = trigger == .launch ? "launch" : "call"
        let ids = sim.takeQueued()
        sim.log(.sdk, .resend(count: Int32(ids.count), trigger: trigger), "UserCom.getInstance() (\(why)): resending \(ids.count) saved", rule: .and3)
        for id in ids { sim.send(id, rule: .and3) }
    }
}
