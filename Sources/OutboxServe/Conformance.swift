import OutboxCore

/// `outbox serve --profile P`: each observed event held to what the profile
/// expects after each of its attempts (`Profile.expectation`): the next attempt
/// within the backoff's window (its jitter, its cap, a per-answer wait,
/// Retry-After as the profile reads it) give or take an allowance for the
/// network and the SDK's timers, or no next attempt when the profile delivers,
/// drops or keeps the request. The first difference is the verdict's reason.
public enum Conformance {
    public struct Verdict: Equatable, Sendable {
        public enum Kind: String, Sendable {
            /// Every attempt came as the profile predicts.
            case conforms
            /// An attempt came outside its window, after the profile would have
            /// stopped, or did not come when the profile predicts one.
            case diverges
            /// The run ended before the next predicted attempt was due.
            case undecided

            public static let allKinds: [Kind] = [.conforms, .diverges, .undecided]
        }
        public let kind: Kind
        /// The first difference (diverges), or what was left open (undecided); empty when it conforms.
        public let why: String
    }

    /// The allowance around a predicted window: 300 ms, or a tenth of its end
    /// when longer (the network's time, the SDK's timers and thread wake-ups).
    public static func allowance(_ high: Millis) -> Millis { max(300, high / 10) }

    /// `1s`, or `1s to 2s`, with its allowance: `4s ± 400ms`, `0 to 2s (± 300ms)`.
    public static func window(_ low: Millis, _ high: Millis) -> String {
        let a = VirtualTime.duration(allowance(high))
        if low == high { return VirtualTime.duration(low) + " ± " + a }
        return VirtualTime.duration(low) + " to " + VirtualTime.duration(high) + " (± " + a + ")"
    }

    /// What a profile predicts after one attempt: when its answer reached the
    /// SDK, what comes next, and the next attempt's window (times since the
    /// start, the allowance included), when it predicts one.
    public struct Prediction: Equatable, Sendable {
        public let answeredAt: Millis
        public let expectation: Expectation
        /// Added on both sides of the window: a held answer's end is known to the profile's timeout only.
        public let slack: Millis
        public var window: (from: Millis, to: Millis)? {
            guard case .retry(let low, let high) = expectation.next else { return nil }
            let a = allowance(high) + slack
            return (max(answeredAt, answeredAt + low - a), VirtualTime.later(answeredAt, by: high + a))
        }
    }

    /// The prediction after request `r`, attempt `n` of an event.
    public static func prediction(
        after r: ServeSession.Request, attempt n: Int, profile: Profile, settings: Settings
    ) -> Prediction {
        // A held answer ends when the SDK gives up on it: its timeout, which the
        // profile's `timeout` stands for; the others after the answer's delay.
        let held = r.answer == .timeout
        return Prediction(
            answeredAt: r.time + (held ? settings.timeout : r.delay),
            expectation: profile.expectation(afterAttempt: n, answer: r.answer, settings: settings),
            slack: held ? settings.timeout : 0)
    }

    /// The verdict on event `e` of session `s`, the run having ended at `end`.
    public static func verdict(
        _ e: ServeSession.Event, in s: ServeSession, profile: Profile, settings: Settings, endedAt end: Millis
    ) -> Verdict {
        let rs = e.attempts.map { s.requests[$0] }
        let name = profile.name
        for (k, r) in rs.enumerated() {
            let n = k + 1
            let p = prediction(after: r, attempt: n, profile: profile, settings: settings)
            let exp = p.expectation, answeredAt = p.answeredAt, slack = p.slack
            let rule = "rule " + profile.rule(exp.rule).id
            let answer = r.answer.word
            if k + 1 < rs.count {
                let gap = rs[k + 1].time - answeredAt
                switch exp.next {
                case .retry(let low, let high):
                    let a = allowance(high) + slack
                    if gap < low - a || gap > high + a {
                        return Verdict(
                            kind: .diverges,
                            why:
                                "attempt \(n + 1) came \(VirtualTime.duration(max(0, gap))) after attempt \(n)'s \(answer); \(name) predicts \(window(low, high)) (\(rule))"
                        )
                    }
                case .kept:
                    continue
                case .end(let what):
                    return Verdict(
                        kind: .diverges,
                        why: "attempt \(n + 1) came after a \(answer), which \(name) ends: \(what) (\(rule))")
                }
            } else if case .retry(let low, let high) = exp.next {
                let due = VirtualTime.later(answeredAt, by: high + allowance(high) + slack)
                if end >= due {
                    return Verdict(
                        kind: .diverges,
                        why:
                            "no attempt \(n + 1) by \(VirtualTime.clock(end)), \(VirtualTime.duration(max(0, end - answeredAt))) after attempt \(n)'s \(answer); \(name) predicts one \(window(low, high)) after it (\(rule))"
                    )
                }
                return Verdict(
                    kind: .undecided,
                    why:
                        "the run ended before attempt \(n + 1) was due (\(window(low, high)) after attempt \(n)'s \(answer))"
                )
            }
        }
        return Verdict(kind: .conforms, why: "")
    }
}
