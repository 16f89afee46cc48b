/// The one dispatch: for each event of the engine, the profile's stages in one
/// fixed order. Components first (the consent gate before anything else sees a
/// request, the flush before the answer table sees its attempt), as The
/// Composable Architecture runs a child reducer before its parent; then the
/// kinds sent outside the queue; then what the network being held does; then
/// the queue's own mechanisms. A stage that handles the event ends it. Every
/// stage is a concrete optional of `ProfilePolicy` (nil: the profile lacks it),
/// read directly: no existentials on the hot path.
///
/// | event | stages, in order |
/// |---|---|
/// | a request is made (`created`) | ConsentGate → Direct → Capacity (keep) → Offline → Batching (wait) → Saving (save at create, send) |
/// | an attempt ends (`finishAttempt`) | Batching (its whole batch, → RetryAfter) → Direct → Flush (its attempts) → RetryAfter (pause, mute) → Answers (→ RetryBudget (a token, or the failure stands) → Backoff (→ RetryAfter: floor, replace), Saving, Reporting, Flush) → Offline (self: count) → Throttle (accepts) |
/// | an attempt goes out (`send`, `sendBatch`) | RetryAfter (held by a pause, dropped by a mute: only before `holdUntil`) → RetryBudget (a first attempt adds its share) → Offline (NET) → Throttle (rejected on the device: answered `throttled`) |
/// | a retry falls due (`retryFellDue`) | Capacity (expire) → Offline (held: queued) → send |
/// | the app launched (`launched`) | Lifecycle (foreground), Offline (self: cleared) → fresh budgets, Reporting (handlers lost) → RetryAfter (no pause, no mute) → RetryBudget, Throttle (emptied) → Capacity (expire) → ConsentGate → Batching (the interval) → Resend (batched: a flush) → Flush |
/// | the app closes, per live request (`closing`) | Direct → ConsentGate (a held install) → Saving |
/// | the network returns (`networkReturned`) | Offline (self: cleared, queued sent) → Lifecycle (suspended: nothing) → ConsentGate (a held install) → Resend |
/// | the app goes to the background / foreground | Lifecycle (limit, flush) |
extension Simulation {
    /// A request was made.
    mutating func created(_ id: Int32) {
        if createdAtGate(id) { return }
        if let rule = directRule(request(id).kind) { return createdDirect(id, rule: rule) }
        if let c = spec.policy.capacity, createdAtCapacity(id, c) { return }
        if createdOffline(id) { return }
        if let b = spec.policy.batch { return createdInBatch(id, b) }
        createdInQueue(id)
    }

    /// An attempt ended with `outcome`.
    mutating func finishAttempt(_ id: Int32, _ outcome: Outcome) {
        if !batchOf.isEmpty && batchOf[Int(id) - 1] != 0 { return batchMemberFinished(id, outcome) }
        requests[Int(id) - 1].lastOutcome = outcome
        let r = request(id)
        if let rule = directRule(r.kind) {
            finishedDirect(id, outcome, rule: rule)
        } else {
            let resp = spec.response(outcome, planned: r.plannedAnswer)
            if r.inFlush, let f = spec.policy.flush {
                flushAnswered(id, outcome, resp, r, flush: f)
            } else if let ra = spec.policy.retryAfter, answeredWithRetryAfter(id, outcome, resp, ra) {
                // Paused (`retry-after pause`): the request waits for the pause's end, the answer table is not read.
            } else {
                answered(id, outcome, resp, r)
            }
        }
        if let s = spec.policy.selfOffline { countedForSelfOffline(outcome, s) }
        // An answer the backend did not refuse is an accept of the throttle's window (Policy/Throttle.swift).
        if spec.policy.throttle != nil && directRule(r.kind) == nil { throttleHeard(outcome) }
    }

    /// A backoff ended: too old, the request is dropped; else it goes out again (or waits, held offline).
    mutating func retryFellDue(_ id: Int32) {
        if let e = spec.policy.expiry, expired(id, e) { return }
        retryDue(id)
    }

    /// The app started; saved requests are already back as `queued`.
    mutating func launched() {
        if spec.policy.lifecycle != nil { lifecycleLaunched() }
        if spec.policy.selfOffline != nil { clearSelfOfflineAtLaunch() }
        // Every saved request gets a fresh budget; a completion handler does not survive the process.
        let lose = hasCompletions
        for id in liveSets[Int(RequestState.queued.rawValue)] {
            requests[Int(id) - 1].budgetUsed = 0
            if lose { requests[Int(id) - 1].completionLost = true }
        }
        if spec.policy.retryAfter != nil { retryAfterLaunched() }
        // The retry budget's bucket and the throttle's window were the process's memory.
        retryBudgetUnits = 0
        if spec.policy.throttle != nil { throttleState = ThrottleState() }
        if let e = spec.policy.expiry { expireAtLaunch(e) }
        if spec.policy.gate != nil { gateLaunched() }
        if spec.policy.batch != nil { batchLaunched() }
        resendOnLaunch()
        if spec.policy.flush != nil { startFlush(trigger: .launch) }
    }

    /// The app closes: what a live request becomes (its attempt, if any, is already cancelled).
    mutating func closing(_ id: Int32) {
        let r = request(id)
        if let rule = directRule(r.kind) { return move(id, to: .dropped, rule: rule, reason: .notSaved) }
        // A held install stays pending.
        if r.state == .pending && r.kind == .install && spec.policy.gate != nil { return }
        closingInQueue(id)
    }

    /// The network came back while the app runs.
    mutating func networkReturned() {
        // Marked offline by the SDK itself: the mark clears and what was queued goes (Offline.swift).
        if spec.policy.selfOffline != nil && clearSelfOfflineOnNetwork() { return }
        // Suspended in the background: nothing goes until the foreground (Lifecycle.swift).
        if appState.inBackground && suspendedRule != nil { return }
        // Held offline, an install the gate let through waited for the network too.
        if holdsOffline != nil && spec.policy.gate != nil && gateOpen { sendHeldInstall() }
        resendOnNetwork()
    }
}
