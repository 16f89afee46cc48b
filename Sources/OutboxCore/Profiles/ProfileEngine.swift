/// The profile's behaviour, read from its file: what a new request does, what an
/// answer does, what a launch, a quit, the network returning and getInstance()
/// resend. One interpreter for every profile; the rules it cites are the
/// profile's (`ProfileSpec`). Components with a state machine of their own live
/// beside it (`ConsentGate.swift`: the consent gate and the flush).
extension Simulation {
    /// A text of the profile's with its slots filled.
    func say(_ key: TextKey, _ value: (Slot) -> String) -> String {
        spec.texts[key]?.render(value) ?? ""
    }

    /// The slots about one request: its name, label, the outcome, attempts, a reason.
    /// The strings are read first: a closure capturing `self` would copy the whole model.
    func requestSlots(_ id: Int32, _ outcome: Outcome, attempts: Int32, reason: DropReason?) -> (Slot) -> String {
        let (name, label) = (name(of: id), label(id))
        return { s in
            switch s {
            case .name: return name
            case .label: return label
            case .outcome: return outcome.word
            case .attempts: return String(attempts)
            case .reason: return reason?.word ?? ""
            default: return ""
            }
        }
    }

    @inline(__always)
    func isDirect(_ kind: RequestKind) -> Bool { spec.directKinds & (1 << kind.rawValue) != 0 }

    var holdsOffline: RuleID? {
        if case .hold(let r) = spec.offline { return r }
        return nil
    }

    // MARK: A request is made

    mutating func created(_ id: Int32) {
        if let g = spec.gate, !gateOpen {
            // The gate is closed: not sent, not saved.
            enter(id, .dropped, rule: g.drop, reason: .consent)
            let consent = self.consent
            log(.sdk, .consentDrop(consent), request: id, rule: g.drop) {
                let (name, label) = ($0.name(of: id), $0.label(id))
                return $0.say(.consentDropped) { s in s == .consent ? consent.word : (s == .label ? label : name) }
            }
            return
        }
        if isDirect(request(id).kind), let rule = spec.directRule {
            // Outside the queue, never saved; held offline, it is not attempted at all.
            if holdsOffline != nil && !online {
                enter(id, .dropped, rule: rule, reason: .notSaved)
                return
            }
            enter(id, .pending, rule: rule)
            send(id, rule: rule)
            return
        }
        if let rule = holdsOffline, !online {
            // Made offline, it waits queued (and saved).
            enter(id, .queued, rule: rule)
            setSaved(id, true)
            return
        }
        enter(id, .pending, rule: spec.createdRule)
        if spec.save == .atCreate { setSaved(id, true) }
        send(id, rule: spec.sendRule)
    }

    // MARK: An attempt ends

    mutating func finishAttempt(_ id: Int32, _ outcome: Outcome) {
        requests[Int(id) - 1].lastOutcome = outcome
        let r = request(id)
        if isDirect(r.kind), let rule = spec.directRule {
            if outcome.isSuccess {
                move(id, to: .delivered, rule: rule, outcome: outcome)
            } else {
                move(id, to: .dropped, rule: rule, outcome: outcome, reason: .notSaved)
            }
            return
        }
        let resp = spec.response(outcome, planned: r.plannedAnswer)
        let byFlush = r.inFlush
        switch resp.action {
        case .deliver:
            let rule = byFlush ? spec.flush!.send : (r.saved ? resp.whenSaved ?? resp.rule : resp.rule)
            move(id, to: .delivered, rule: rule, outcome: outcome)
            if hasCompletions {
                complete(id, .success, .completionDelivered, rule: rule, outcome: outcome, attempts: r.budgetUsed)
            }
            if spec.flush != nil {
                if byFlush { continueFlush() } else { startFlush(trigger: .success(id)) }
            }
        case .retry, .queue:
            if byFlush {
                // A flush sends one attempt each: a failure leaves it queued and ends the flush.
                let rule = resp.action == .retry ? spec.flush!.send : resp.rule
                move(id, to: .queued, rule: rule, outcome: outcome)
                endFlush(.failed(outcome, request: id), rule: rule)
            } else if resp.action == .queue {
                queue(id, rule: resp.rule, outcome: outcome, attempts: r.budgetUsed)
            } else if Int(r.budgetUsed) < settings.retryAttempts {
                retryLater(id, rule: resp.rule, outcome: outcome)
            } else {
                exhausted(id, outcome: outcome, attempts: r.budgetUsed, answerRule: resp.rule)
            }
        case .drop(let reason):
            drop(id, reason: reason, rule: resp.rule, outcome: outcome, attempts: r.budgetUsed, key: .completionDropped)
            if byFlush { continueFlush() }
        }
    }

    /// The last attempt of a budget failed (`on exhausted`).
    mutating func exhausted(_ id: Int32, outcome: Outcome, attempts: Int32, answerRule: RuleID) {
        guard let e = spec.exhausted else { return }
        let rule = spec.exhaustedCitesAnswer ? answerRule : e.rule
        switch e.action {
        case .drop(let reason):
            drop(id, reason: reason, rule: rule, outcome: outcome, attempts: attempts, key: .completionExhausted)
        default:
            if spec.report == .onError {
                log(.onError, .onError(attempts: attempts, outcome: outcome, kept: true), request: id, rule: rule) {
                    $0.say(.onErrorKept, $0.requestSlots(id, outcome, attempts: attempts, reason: nil))
                }
            }
            queue(id, rule: rule, outcome: outcome, attempts: attempts)
        }
    }

    /// Keeps a failed request saved and queued, when its kind is saved (`save on failure KINDS`).
    mutating func queue(_ id: Int32, rule: RuleID, outcome: Outcome, attempts: Int32) {
        if case .onFailure(let kinds, let saveRule) = spec.save, kinds & (1 << request(id).kind.rawValue) == 0 {
            drop(id, reason: .notSaved, rule: saveRule, outcome: outcome, attempts: attempts, key: .completionDropped)
            return
        }
        move(id, to: .queued, rule: rule, outcome: outcome)
        setSaved(id, true)
    }

    /// Drops a request after an answer, telling the app's code as the profile does.
    mutating func drop(
        _ id: Int32, reason: DropReason, rule: RuleID, outcome: Outcome, attempts: Int32, key: TextKey
    ) {
        switch spec.report {
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
        guard case .completion(let lostRule) = spec.report else { return }
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

    // MARK: Timers and triggers

    /// A backoff ended: the request goes out again, citing the rule it waited under.
    mutating func retryDue(_ id: Int32) {
        if let rule = holdsOffline, !online {
            move(id, to: .queued, rule: rule)
            return
        }
        send(id, rule: requests[Int(id) - 1].rule)
    }

    /// What resends when saved requests are not sent at once: the flush, getInstance() or a launch.
    var waitsFor: (trigger: ResendTrigger, rule: RuleID) {
        if let f = spec.flush { return (.flush, f.start) }
        if let g = spec.resendGetInstance { return (.getInstance, g.rule) }
        if let l = spec.resendLaunch { return (.launch, l.rule) }
        return (.launch, .net)
    }

    mutating func networkReturned() {
        // Held offline, an install the gate let through waited for the network too.
        if holdsOffline != nil && spec.gate != nil && gateOpen { sendHeldInstall() }
        if let rs = spec.resendNetwork {
            let ids = takeQueued()
            if !ids.isEmpty {
                let n = Int32(clamping: ids.count)
                log(.sdk, .resend(count: n, trigger: .networkBack), request: -1, rule: rs.rule) {
                    $0.say(.resendNetwork) { _ in String(n) }
                }
            }
            for id in ids { send(id, rule: rs.rule) }
            return
        }
        let queued = Int32(clamping: count(.queued))
        let w = waitsFor
        log(.outbox, .resendWaits(count: queued, for: w.trigger), request: -1, rule: w.rule) {
            $0.say(.waitsNetwork) { _ in String(queued) }
        }
    }

    /// The app started; saved requests are already back as `queued`.
    mutating func launched() {
        // Every saved request gets a fresh budget; a completion handler does not survive the process.
        let lose = hasCompletions
        for id in liveSets[Int(RequestState.queued.rawValue)] {
            requests[Int(id) - 1].budgetUsed = 0
            if lose { requests[Int(id) - 1].completionLost = true }
        }
        if spec.gate != nil { gateLaunched() }
        if let rs = spec.resendLaunch {
            if rs.viaGetInstance {
                getInstance(at: .launch)
            } else if let hold = holdsOffline, !online {
                let queued = Int32(clamping: count(.queued))
                if queued > 0 {
                    log(.sdk, .resendWaits(count: queued, for: .networkBack), request: -1, rule: hold) {
                        $0.say(.waitsLaunch) { _ in String(queued) }
                    }
                }
            } else {
                let ids = takeQueued()
                if !ids.isEmpty {
                    let n = Int32(clamping: ids.count)
                    log(.sdk, .resend(count: n, trigger: .launch), request: -1, rule: rs.rule) {
                        $0.say(.resendLaunch) { _ in String(n) }
                    }
                }
                for id in ids { send(id, rule: rs.rule) }
            }
        }
        if spec.flush != nil { startFlush(trigger: .launch) }
    }

    /// getInstance(): every saved request not on the wire goes out again; it says so even with none.
    mutating func getInstance(at trigger: ResendTrigger = .getInstance) {
        let rule = (trigger == .launch ? spec.resendLaunch?.rule : nil) ?? spec.resendGetInstance?.rule ?? .net
        if let hold = holdsOffline, !online {
            // Held offline: nothing is sent; the saved requests wait for the network.
            let queued = Int32(clamping: count(.queued))
            log(.sdk, .resendWaits(count: queued, for: .networkBack), request: -1, rule: hold) {
                $0.say(.waitsOffline) { _ in String(queued) }
            }
            return
        }
        let ids = takeQueued()
        let n = Int32(clamping: ids.count)
        log(.sdk, .resend(count: n, trigger: trigger), request: -1, rule: rule) {
            $0.say(trigger == .launch ? .resendLaunch : .resendGetInstance) { _ in String(n) }
        }
        for id in ids { send(id, rule: rule) }
    }

    /// The app closes: what a live request becomes (its attempt, if any, is already cancelled).
    mutating func closing(_ id: Int32) {
        let r = request(id)
        if isDirect(r.kind), let rule = spec.directRule {
            move(id, to: .dropped, rule: rule, reason: .notSaved)
        } else if r.state == .pending && r.kind == .install && spec.gate != nil {
            return  // a held install stays pending
        } else if r.saved {
            move(id, to: .queued, rule: spec.survivesRule)
        } else {
            move(id, to: .dropped, rule: spec.survivesRule, reason: .notSaved)
        }
    }
}
