/// What a profile expects of a request after one of its attempts ended with an
/// answer: another attempt within a window of time, or none (delivered,
/// dropped, kept for a later resend). `outbox serve --profile P` holds a real
/// SDK's attempts to it (issue 25). Read from the same answer table, budget,
/// backoff and Retry-After statement the simulation acts on; what the
/// simulation keeps as state across retries (a cool-off's cycle, a reset at the
/// cap, decorrelated jitter's last wait, a total time) is taken from the
/// attempt's number alone, an approximation the caller's verdict says.
public struct Expectation: Equatable, Sendable {
    public enum Next: Equatable, Sendable {
        /// Another attempt, from `low` to `high` after this one's answer.
        case retry(low: Millis, high: Millis)
        /// Kept for a later send (`queue`, `on exhausted queue`): a flush, a
        /// launch or the network's return sends it; no time is predicted.
        case kept
        /// No more attempts: delivered, dropped (with its reason) or stalled.
        case end(String)
    }

    public let next: Next
    /// The rule the expectation comes from.
    public let rule: RuleID
}

extension Settings {
    /// The shortest and longest wait before retry `n` (n ≥ 1: the retry after
    /// the first failed attempt), jitter and cap applied.
    public func waitWindow(retry n: Int) -> (low: Millis, high: Millis) {
        if let c = coolOff, n > c.after { return (c.wait, c.wait) }
        let d = plainLadder ? delay(afterAttempt: n) : formulaDelay(n)
        let ceiling = waitCeiling
        var low = d, high = d
        switch retryJitter {
        case .none: break
        case .full: low = 0
        case .equal: low = d / 2
        case .plusMinus(let p):
            let s = d / 100 * Millis(p) + d % 100 * Millis(p) / 100
            (low, high) = (d - s, d + s)
        case .plus(let p):
            high = VirtualTime.later(d, by: d / 100 * Millis(p) + d % 100 * Millis(p) / 100)
        case .decorrelated:
            // AWS's: from the first delay to three times the last wait.
            (low, high) = (formulaDelay(1), VirtualTime.later(d, by: 2 * d))
        }
        return (max(0, min(low, ceiling)), max(0, min(high, ceiling)))
    }
}

extension Profile {
    /// What the profile expects after attempt `n` (1-based, counted in the
    /// request's budget) was answered `answer`, under `settings` (the profile's
    /// defaults, or a scenario's).
    public func expectation(afterAttempt n: Int, answer: Answer, settings: Settings) -> Expectation {
        let outcome: Outcome
        switch answer {
        case .ok: outcome = .http(200)
        case .status(let s), .retryAfter(let s, _): outcome = .http(s)
        case .timeout, .lost: outcome = .timeout
        case .partial: outcome = .partial
        case .reset: outcome = .reset
        }
        let resp = spec.response(outcome, planned: answer)
        switch resp.action {
        case .deliver: return Expectation(next: .end("delivered"), rule: resp.rule)
        case .drop(let reason): return Expectation(next: .end("dropped " + reason.word), rule: resp.rule)
        case .stall: return Expectation(next: .end("stalled"), rule: resp.rule)
        case .queue: return Expectation(next: .kept, rule: resp.rule)
        case .retry: break
        }
        // Retry-After first: a pause or a replacing header sets the wait; a mute drops.
        if let ra = spec.policy.retryAfter, let header = answer.retryAfter, let s = outcome.httpStatus,
            ra.reads(s, retried: true)
        {
            let h = ra.cap.map { min(header, $0) } ?? header
            if h > 0 {
                switch ra.mode {
                case .pause, .replace: return Expectation(next: .retry(low: h, high: h), rule: ra.rule)
                case .mute: return Expectation(next: .end("dropped rate-limited"), rule: ra.rule)
                case .floor: break
                }
            }
        }
        if !settings.retryUnlimited && n >= settings.retryAttempts {
            let rule = spec.policy.exhausted?.rule ?? resp.rule
            switch spec.exhausted?.action {
            case .drop(let reason)?: return Expectation(next: .end("dropped " + reason.word), rule: rule)
            default: return Expectation(next: .kept, rule: rule)
            }
        }
        var (low, high) = resp.wait >= 0 ? (resp.wait, resp.wait) : settings.waitWindow(retry: n)
        var rule = resp.rule
        if let ra = spec.policy.retryAfter, ra.mode == .floor, let header = answer.retryAfter,
            let s = outcome.httpStatus, ra.reads(s, retried: true)
        {
            let h = ra.cap.map { min(header, $0) } ?? header
            if h > high { rule = ra.rule }
            (low, high) = (max(low, h), max(high, h))
        }
        return Expectation(next: .retry(low: low, high: high), rule: rule)
    }
}
