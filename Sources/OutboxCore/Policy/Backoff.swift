/// The wait before a retry (`set retry.attempts`, `retry.delays`, `retry.jitter`;
/// the shared BACKOFF and JITTER): the ladder of delays, its last repeating, and
/// a jitter drawn from the seed, the request and the attempt. The settings
/// themselves are read by `Settings.set`; what a retry is for is `Answers.swift`'s.

extension Settings {
    /// The wait before the retry that follows the `n`-th attempt of a budget of
    /// request `id` (n ≥ 1), jitter applied.
    @inline(__always)
    func wait(afterAttempt n: Int, request id: Int32) -> Millis {
        let d = delay(afterAttempt: n)
        guard retryJitter != .none, d > 0 else { return d }
        var g = SplitMix64(seed: seed &* 0xD6E8_FEB8_6659_FD93 ^ UInt64(UInt32(bitPattern: id)) ^ (UInt64(n) << 32))
        let span = retryJitter == .full ? d : d - d / 2
        let r = Millis(g.next() % UInt64(span + 1))
        return retryJitter == .full ? r : d / 2 + r
    }

    /// The delay before the retry that follows the `n`-th attempt of a budget (n ≥ 1).
    public func delay(afterAttempt n: Int) -> Millis {
        guard !retryDelays.isEmpty else { return 0 }
        return retryDelays[max(0, min(n - 1, retryDelays.count - 1))]
    }
}

extension Simulation {
    /// A failed attempt waits its backoff, then `retryDue` (Offline.swift) sends it again.
    mutating func retryLater(_ id: Int32, rule: RuleID, outcome: Outcome) {
        let r = request(id)
        let at = VirtualTime.later(now, by: settings.wait(afterAttempt: Int(r.budgetUsed), request: id))
        move(id, to: .retrying, rule: rule, outcome: outcome)
        requests[Int(id) - 1].nextAttemptAt = at
        schedule(.retry, id, at: at)
    }
}
