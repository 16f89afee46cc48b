/// Positive User on iOS: one saved queue, no head-of-line blocking, a retry
/// ladder, nothing sent offline, completion handlers (IOS-1 to IOS-7).
enum IOSPolicy: DeliveryPolicy {
    static func created(_ sim: inout Simulation, _ id: Int32) {
        if sim.request(id).kind.isLogoutRequest {
            // IOS-7: outside the queue, never saved; offline means not attempted at all.
            guard sim.online else {
                sim.enter(id, .dropped, rule: .ios7, reason: .notSaved)
                return
            }
            sim.enter(id, .pending, rule: .ios7)
            sim.send(id, rule: .ios7)
            return
        }
        guard sim.online else {
            // IOS-5: made offline, it waits as queued (saved, IOS-1).
            sim.enter(id, .queued, rule: .ios5)
            sim.setSaved(id, true)
            return
        }
        sim.enter(id, .pending, rule: .ios1)
        sim.setSaved(id, true)
        sim.send(id, rule: .ios2)
    }

    static func answered(_ sim: inout Simulation, _ id: Int32, _ outcome: Outcome) {
        let r = sim.request(id)
        if r.kind.isLogoutRequest {
            if outcome.isSuccess {
                sim.move(id, to: .delivered, rule: .ios7, outcome: outcome)
            } else {
                sim.move(id, to: .dropped, rule: .ios7, outcome: outcome, reason: .notSaved)
            }
            return
        }
        if outcome.isSuccess {
            sim.move(id, to: .delivered, rule: .ios3, outcome: outcome)
            complete(&sim, id, .success, "true")
        } else if outcome.isTransportError || outcome.is5xx {
            if Int(r.budgetUsed) < sim.settings.retryAttempts {
                sim.retryLater(id, rule: .ios4, outcome: outcome)
            } else {
                sim.move(id, to: .dropped, rule: .ios4, outcome: outcome, reason: .exhausted)
                complete(&sim, id, .failure, "false (\(outcome.word) on the last of \(r.budgetUsed) attempts)")
            }
        } else {
            // IOS-3, with 1xx and 3xx treated like 4xx (RETRYABLE).
            sim.move(id, to: .dropped, rule: .ios3, outcome: outcome, reason: .rejected)
            complete(&sim, id, .failure, "false (rejected \(outcome.word))")
        }
    }

    /// Calls the request's completion handler, unless it was lost with a quit (IOS-6).
    static func complete(_ sim: inout Simulation, _ id: Int32, _ result: Completion, _ text: String) {
        if sim.request(id).completionLost {
            sim.log(.completion, .completionLost, "\(sim.label(id)): no completion handler to call (it survived a quit, IOS-6)",
                    request: id, rule: .ios6)
            return
        }
        sim.requests[Int(id) - 1].completion = result
        sim.log(.completion, .completion(result), "completion(\(sim.label(id))): " + text, request: id,
                rule: result == .success ? .ios3 : (sim.request(id).reason == .exhausted ? .ios4 : .ios3))
    }

    static func retryDue(_ sim: inout Simulation, _ id: Int32) {
        if sim.online {
            sim.send(id, rule: .ios4)
        } else {
            sim.move(id, to: .queued, rule: .ios5)
        }
    }

    static func networkReturned(_ sim: inout Simulation) {
        let ids = sim.takeQueued()
        if !ids.isEmpty { sim.log(.sdk, .resend(count: Int32(ids.count), trigger: .networkBack), "queue restarts: \(ids.count) queued go out (IOS-5)", rule: .ios5) }
        for id in ids { sim.send(id, rule: .ios5) }
    }

    static func launched(_ sim: inout Simulation) {
        // IOS-6: every saved request gets a fresh budget and loses its completion handler.
        for id in sim.liveSets[Int(RequestState.queued.rawValue)] {
            sim.requests[Int(id) - 1].budgetUsed = 0
            sim.requests[Int(id) - 1].completionLost = true
        }
        guard sim.online else {
            if sim.count(.queued) > 0 {
                let queued = Int32(clamping: sim.count(.queued))
                sim.log(.sdk, .resendWaits(count: queued, for: .networkBack), "offline at launch: \(sim.count(.queued)) saved wait (IOS-5)", rule: .ios5)
            }
            return
        }
        let ids = sim.takeQueued()
        if !ids.isEmpty { sim.log(.sdk, .resend(count: Int32(ids.count), trigger: .launch), "launch: \(ids.count) saved go out (IOS-6)", rule: .ios6) }
        for id in ids { sim.send(id, rule: .ios6) }
    }

    static func closing(_ sim: inout Simulation, _ id: Int32) {
        let r = sim.request(id)
        if r.kind.isLogoutRequest {
            sim.move(id, to: .dropped, rule: .ios7, reason: .notSaved)
        } else if r.state == .inFlight || r.state == .retrying {
            sim.move(id, to: .queued, rule: .ios6)
        }
    }
}
