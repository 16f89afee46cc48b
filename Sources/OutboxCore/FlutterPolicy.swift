/// Positive User on Flutter: sent at once, network errors saved and resent at
/// the next launch, server answers final (FL-1 to FL-5).
enum FlutterPolicy: DeliveryPolicy {
    static func created(_ sim: inout Simulation, _ id: Int32) {
        sim.enter(id, .pending, rule: .fl1)
        sim.send(id, rule: .fl1)
    }

    static func answered(_ sim: inout Simulation, _ id: Int32, _ outcome: Outcome) {
        let r = sim.request(id)
        if outcome.isSuccess {
            sim.move(id, to: .delivered, rule: r.saved ? .fl4 : .fl1, outcome: outcome)
        } else if outcome.isTransportError {
            sim.move(id, to: .queued, rule: .fl2, outcome: outcome)
            sim.setSaved(id, true)
        } else if outcome.is5xx {
            sim.move(id, to: .dropped, rule: .fl3, outcome: outcome, reason: .notSaved)
        } else {
            sim.move(id, to: .dropped, rule: .fl3, outcome: outcome, reason: .rejected)
        }
    }

    static func launched(_ sim: inout Simulation) {
        let ids = sim.takeQueued()
        if !ids.isEmpty { sim.log(.sdk, .resend(count: Int32(ids.count), trigger: .launch), "launch: resending \(ids.count) saved (FL-4)", rule: .fl4) }
        for id in ids { sim.send(id, rule: .fl4) }
    }
}
