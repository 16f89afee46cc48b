/// The two components a profile file names rather than spells, because each is a
/// state machine of its own: the consent gate (`component consent-gate drop R
/// purge R install R`) and the flush of the offline queue (`component flush
/// start R more R stop R send R`). LinkTrail's file names both; their rules and
/// texts come from the file.

/// The consent gate's state: the decision, saved on the device.
public struct ConsentGateState: Equatable, Sendable {
    public internal(set) var consent: Consent = .undecided
}

extension Simulation {
    /// The gate lets requests through: consent granted, or undecided without `requireConsent`.
    var gateOpen: Bool {
        guard gateState != nil else { return true }
        return consent == .granted || (consent == .undecided && !settings.requireConsent)
    }

    // MARK: Consent gate

    /// At launch: says how it is configured, makes the install on the first launch
    /// (held pending while the gate is closed, dropped if consent is denied), or
    /// sends a held one if the gate is open now.
    mutating func gateLaunched() {
        guard let g = spec.gate else { return }
        let (consent, required) = (self.consent, settings.requireConsent)
        log(.sdk, .configured(consent: consent, required: required), request: -1, rule: nil) {
            $0.say(.configure) { s in s == .consent ? consent.word : (required ? "required" : "not required") }
        }
        if !store.installCreated {
            store.installCreated = true
            let id = create(.install, name: "install")
            if consent == .denied {
                enter(id, .dropped, rule: g.install, reason: .consent)
            } else {
                enter(id, .pending, rule: g.install)
                setSaved(id, true)
                if gateOpen && !(holdsOffline != nil && !online) { send(id, rule: g.install) }
            }
        } else if gateOpen {
            sendHeldInstall()
        }
    }

    /// A pending install held by the gate goes out once it opens.
    mutating func sendHeldInstall() {
        guard let g = spec.gate else { return }
        // Held offline, the install waits like every request (it goes at the next trigger online).
        if holdsOffline != nil && !online { return }
        for id in live(in: .pending) where request(id).kind == .install {
            send(id, rule: g.install)
        }
    }

    mutating func setConsent(_ granted: Bool) {
        guard let g = spec.gate else { return }
        let c: Consent = granted ? .granted : .denied
        gateState!.consent = c
        store.consent = c
        log(.sdk, .consentSet(c), request: -1, rule: g.drop) {
            $0.say(.consentSet) { s in s == .granted ? (granted ? "true" : "false") : c.word }
        }
        if granted {
            sendHeldInstall()
            if spec.flush != nil { startFlush(trigger: .consentGranted) }
            return
        }
        // A denial purges: the saved queue, everything in flight or waiting for a retry.
        var ids: [Int32] = []
        for s in [RequestState.pending, .inFlight, .retrying, .queued] { ids += liveSets[Int(s.rawValue)] }
        ids.sort()
        var saved = 0, inFlight = 0, retrying = 0
        for id in ids {
            let r = request(id)
            switch r.state {
            case .inFlight: inFlight += 1
            case .retrying: retrying += 1
            default: saved += 1
            }
            requests[Int(id) - 1].generation &+= 1
            let rule = (r.kind == .install && r.state == .pending) ? g.install : g.purge
            move(id, to: .dropped, rule: rule, reason: .consent)
        }
        if let f = spec.flush, flush.active {
            flushState!.morePass = false
            endFlush(.consentWithdrawn, rule: f.stop, allowMorePass: false)
        }
        let (s, i, r) = (Int32(saved), Int32(inFlight), Int32(retrying))
        log(.outbox, .purged(saved: s, inFlight: i, retrying: r), request: -1, rule: g.purge) {
            $0.say(.purged) { k in String(k == .saved ? s : (k == .inflight ? i : r)) }
        }
    }

    // MARK: Flush

    mutating func startFlush(trigger: FlushTrigger) {
        guard let f = spec.flush else { return }
        if flush.active {
            if !flush.morePass {
                log(.sdk, .flushMorePass(trigger), request: -1, rule: f.more) {
                    let t = $0.text(of: trigger)
                    return $0.say(.flushMore) { _ in t }
                }
            }
            flushState!.morePass = true
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
        flushState!.active = true
        flushState!.trigger = trigger
        flushState!.sent = 0
        let queued = Int32(clamping: count(.queued))
        log(.sdk, .flushStarted(trigger, queued: queued), request: -1, rule: f.start) {
            let t = $0.flushTriggerText
            return $0.say(.flushStarted) { s in s == .trigger ? t : String(queued) }
        }
        continueFlush()
    }

    mutating func continueFlush() {
        guard let f = spec.flush, flush.active else { return }
        guard gateOpen else {
            endFlush(.gateClosed(consent), rule: f.stop)
            return
        }
        if let hold = holdsOffline, !online {
            // A profile that holds requests offline sends nothing: the flush stops there.
            endFlush(.offline, rule: hold)
            return
        }
        guard let id = popOldestQueued() else {
            endFlush(.queueEmpty, rule: f.send)
            return
        }
        flushState!.sent += 1
        requests[Int(id) - 1].inFlush = true
        send(id, rule: f.send)
    }

    /// Ends the flush under way; `end` is only turned into text for the journal.
    mutating func endFlush(_ end: FlushEnd, rule: RuleID, allowMorePass: Bool = true) {
        flushState!.active = false
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
            flushState!.morePass = false
            startFlush(trigger: .deferred)
        }
    }
}
