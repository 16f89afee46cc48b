/// LinkTrail: a consent gate, retries in the run, an offline queue flushed on
/// triggers (LT-1 to LT-13).
enum LinkTrailPolicy: DeliveryPolicy {
    static func gateOpen(_ sim: Simulation) -> Bool {
        sim.consent == .granted || (sim.consent == .undecided && !sim.settings.requireConsent)
    }

    static func created(_ sim: inout Simulation, _ id: Int32) {
        guard gateOpen(sim) else {
            // LT-1: not sent, not saved.
            sim.enter(id, .dropped, rule: .lt1, reason: .consent)
            let consent = sim.consent
            sim.log(.sdk, .consentDrop(consent), request: id, rule: .lt1) { "[LinkTrail] Event '\($0.name(of: id))' dropped: consent \($0.consent.word)" }
            return
        }
        sim.enter(id, .pending, rule: .lt1a)
        sim.setSaved(id, true)
        sim.send(id, rule: .lt4)
    }

    static func launched(_ sim: inout Simulation) {
        let (consent, required) = (sim.consent, sim.settings.requireConsent)
        sim.log(.sdk, .configured(consent: consent, required: required), "[LinkTrail] configure (consent \(sim.consent.word)"
            + (sim.settings.requireConsent ? ", required)" : ", not required)"))
        if !sim.store.installCreated {
            sim.store.installCreated = true
            let id = sim.create(.install, name: "install")
            if sim.consent == .denied {
                sim.enter(id, .dropped, rule: .lt3, reason: .consent)
            } else {
                sim.enter(id, .pending, rule: .lt3)
                sim.setSaved(id, true)
                if gateOpen(sim) { sim.send(id, rule: .lt3) }
            }
        } else if gateOpen(sim) {
            sendHeldInstall(&sim)
        }
        startFlush(&sim, trigger: .launch)
    }

    /// A pending install held by the gate goes out once it opens (LT-3).
    static func sendHeldInstall(_ sim: inout Simulation) {
        for id in sim.live(in: .pending) where sim.request(id).kind == .install {
            sim.send(id, rule: .lt3)
        }
    }

    static func answered(_ sim: inout Simulation, _ id: Int32, _ outcome: Outcome) {
        let r = sim.request(id)
        let byFlush = r.inFlush
        if outcome.isSuccess {
            sim.move(id, to: .delivered, rule: byFlush ? .lt11 : .lt4, outcome: outcome)
            if byFlush {
                continueFlush(&sim)
            } else {
                startFlush(&sim, trigger: .success(id))
            }
        } else if isRetryable(outcome) {
            if byFlush {
                sim.move(id, to: .queued, rule: .lt11, outcome: outcome)
                endFlush(&sim, .failed(outcome, request: id), rule: .lt11)
            } else if Int(r.budgetUsed) < sim.settings.retryAttempts {
                sim.retryLater(id, rule: .lt4, outcome: outcome)
            } else {
                sim.log(.onError, .onError(attempts: r.budgetUsed, outcome: outcome, kept: true), request: id, rule: .lt5) {
                    "onError: '\($0.name(of: id))' failed (\(outcome.word)) after \(r.budgetUsed) attempts; kept in the offline queue"
                }
                sim.move(id, to: .queued, rule: .lt5, outcome: outcome)
            }
        } else {
            sim.log(.onError, .onError(attempts: r.budgetUsed, outcome: outcome, kept: false), request: id, rule: .lt6) { "onError: '\($0.name(of: id))' rejected (\(outcome.word))" }
            sim.log(.sdk, .warning(outcome: outcome), request: id, rule: .lt6) {
                "[LinkTrail] [WARNING] Event '\($0.name(of: id))' rejected (\(outcome.word)) — not retried."
            }
            sim.move(id, to: .dropped, rule: .lt6, outcome: outcome, reason: .rejected)
            if byFlush { continueFlush(&sim) }
        }
    }

    /// LT-5: transport errors, 408, 429 and 5xx.
    static func isRetryable(_ o: Outcome) -> Bool {
        if o.isTransportError || o.is5xx { return true }
        return o.httpStatus == 408 || o.httpStatus == 429
    }

    // MARK: Flush (LT-8 to LT-11)

    static func startFlush(_ sim: inout Simulation, trigger: FlushTrigger) {
        if sim.flush.active {
            if !sim.flush.morePass {
                sim.log(.sdk, .flushMorePass(trigger), rule: .lt9) { "flush under way: \($0.text(of: trigger)) asks for one more pass (LT-9)" }
            }
            sim.flush.morePass = true
            return
        }
        if sim.count(.queued) == 0 && gateOpen(sim) {
            // Nothing saved to send: the flush starts and ends at once; one line says so.
            sim.log(.sdk, .flushNothingQueued(trigger), rule: .lt8) { "flush (LT-8: \($0.text(of: trigger))): nothing queued" }
            return
        }
        sim.flush.active = true
        sim.flush.trigger = trigger
        sim.flush.sent = 0
        let queued = Int32(clamping: sim.count(.queued))
        sim.log(.sdk, .flushStarted(trigger, queued: queued), rule: .lt8) { "flush started (LT-8: \($0.flushTriggerText)) · \($0.count(.queued)) queued" }
        continueFlush(&sim)
    }

    static func continueFlush(_ sim: inout Simulation) {
        guard sim.flush.active else { return }
        guard gateOpen(sim) else {
            endFlush(&sim, .gateClosed(sim.consent), rule: .lt10)
            return
        }
        guard let id = sim.popOldestQueued() else {
            endFlush(&sim, .queueEmpty, rule: .lt11)
            return
        }
        sim.flush.sent += 1
        sim.requests[Int(id) - 1].inFlush = true
        sim.send(id, rule: .lt11)
    }

    /// Ends the flush under way; `end` is only turned into text for the journal.
    static func endFlush(_ sim: inout Simulation, _ end: FlushEnd, rule: RuleID, allowMorePass: Bool = true) {
        sim.flush.active = false
        let (sent, left) = (Int32(clamping: sim.flush.sent), Int32(clamping: sim.count(.queued)))
        sim.log(.sdk, .flushEnded(end, sent: sent, left: left), rule: rule) {
            "flush ended (\(rule.id): \($0.text(of: end))) · sent \($0.flush.sent) · \($0.count(.queued)) left"
        }
        if sim.flush.morePass && allowMorePass {
            sim.flush.morePass = false
            startFlush(&sim, trigger: .deferred)
        }
    }

    // MARK: Consent (LT-1, LT-2, LT-3, LT-8, LT-10)

    static func grant(_ sim: inout Simulation) {
        sim.consent = .granted
        sim.store.consent = .granted
        sim.log(.sdk, .consentSet(.granted), "[LinkTrail] setConsent(true)", rule: .lt1)
        sendHeldInstall(&sim)
        startFlush(&sim, trigger: .consentGranted)
    }

    static func deny(_ sim: inout Simulation) {
        sim.consent = .denied
        sim.store.consent = .denied
        sim.log(.sdk, .consentSet(.denied), "[LinkTrail] setConsent(false)", rule: .lt1)
        var ids: [Int32] = []
        for s in [RequestState.pending, .inFlight, .retrying, .queued] { ids += sim.liveSets[Int(s.rawValue)] }
        ids.sort()
        var saved = 0, inFlight = 0, retrying = 0
        for id in ids {
            let r = sim.request(id)
            switch r.state {
            case .inFlight: inFlight += 1
            case .retrying: retrying += 1
            default: saved += 1
            }
            sim.requests[Int(id) - 1].generation &+= 1
            let rule: RuleID = (r.kind == .install && r.state == .pending) ? .lt3 : .lt2
            sim.move(id, to: .dropped, rule: rule, reason: .consent)
        }
        if sim.flush.active {
            sim.flush.morePass = false
            endFlush(&sim, .consentWithdrawn, rule: .lt10, allowMorePass: false)
        }
        sim.log(.outbox, .purged(saved: Int32(saved), inFlight: Int32(inFlight), retrying: Int32(retrying)), "consent denied: purged \(saved) saved · \(inFlight) in flight · \(retrying) retrying (LT-2)", rule: .lt2)
    }

    // MARK: Closing (LT-12)

    static func closing(_ sim: inout Simulation, _ id: Int32) {
        let r = sim.request(id)
        switch r.state {
        case .inFlight, .retrying:
            sim.move(id, to: .queued, rule: .lt12)
        default:
            break  // a held install stays pending (LT-12)
        }
    }
}
