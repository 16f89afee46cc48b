/// The consent gate (`component consent-gate drop ID purge ID install ID`,
/// LinkTrail's LT-1 to LT-3): a state machine of its own. While consent is
/// denied, or undecided under `requireConsent`, a new request is dropped
/// (consent); the first launch makes the install, held pending until consent
/// is granted; a denial purges the saved queue and everything in flight or
/// waiting for a retry. The decision is saved on the device.

/// The rules the consent gate cites (LT-1, LT-2, LT-3 in the built-in).
public struct GateRules: Equatable, Sendable {
    public let drop: RuleID, purge: RuleID, install: RuleID
}

/// The consent gate's state: the decision, saved on the device.
public struct ConsentGateState: Equatable, Sendable {
    public internal(set) var consent: Consent = .undecided
}

enum ConsentGate {
    static let component = Component(
        name: "consent-gate", roles: ["drop", "purge", "install"], file: "Policy/ConsentGate.swift",
        set: { d, r in
            d.gate = GateRules(drop: r[0], purge: r[1], install: r[2])
            d.kinds |= RequestKind.install.bit
            d.defaults.requireConsent = true
        },
        remove: { d in
            d.gate = nil
            d.kinds &= ~RequestKind.install.bit
        })
}

extension Simulation {
    /// The gate lets requests through: consent granted, or undecided without `requireConsent`.
    var gateOpen: Bool {
        guard spec.policy.gate != nil else { return true }
        return consent == .granted || (consent == .undecided && !settings.requireConsent)
    }

    // MARK: Consent gate

    /// At launch: says how it is configured, makes the install on the first launch
    /// (held pending while the gate is closed, dropped if consent is denied), or
    /// sends a held one if the gate is open now.
    mutating func gateLaunched() {
        guard let g = spec.policy.gate else { return }
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
                if gateOpen && heldNow == nil { send(id, rule: g.install) }
            }
        } else if gateOpen {
            sendHeldInstall()
        }
    }

    /// A pending install held by the gate goes out once it opens.
    mutating func sendHeldInstall() {
        guard let g = spec.policy.gate else { return }
        // Held offline, the install waits like every request (it goes at the next trigger online).
        if heldNow != nil { return }
        for id in live(in: .pending) where request(id).kind == .install {
            send(id, rule: g.install)
        }
    }

    mutating func setConsent(_ granted: Bool) {
        guard let g = spec.policy.gate else { return }
        let c: Consent = granted ? .granted : .denied
        gateState.consent = c
        store.consent = c
        log(.sdk, .consentSet(c), request: -1, rule: g.drop) {
            $0.say(.consentSet) { s in s == .granted ? (granted ? "true" : "false") : c.word }
        }
        if granted {
            sendHeldInstall()
            if spec.policy.flush != nil { startFlush(trigger: .consentGranted) }
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
        if let f = spec.policy.flush, flush.active {
            flush.morePass = false
            endFlush(.consentWithdrawn, rule: f.stop, allowMorePass: false)
        }
        let (s, i, r) = (Int32(saved), Int32(inFlight), Int32(retrying))
        log(.outbox, .purged(saved: s, inFlight: i, retrying: r), request: -1, rule: g.purge) {
            $0.say(.purged) { k in String(k == .saved ? s : (k == .inflight ? i : r)) }
        }
    }
}

extension Simulation {
    /// A request is made while the gate is closed: not sent, not saved (the
    /// first stage of `created`). True when it was dropped.
    mutating func createdAtGate(_ id: Int32) -> Bool {
        guard let g = spec.policy.gate, !gateOpen else { return false }
        enter(id, .dropped, rule: g.drop, reason: .consent)
        let consent = self.consent
        log(.sdk, .consentDrop(consent), request: id, rule: g.drop) {
            let (name, label) = ($0.name(of: id), $0.label(id))
            return $0.say(.consentDropped) { s in s == .consent ? consent.word : (s == .label ? label : name) }
        }
        return true
    }
}
