/// The wait before a retry (`set retry.attempts`, `retry.delays`, `retry.jitter`;
/// the `backoff` statement; the shared BACKOFF and JITTER): a formula (the ladder
/// of delays, its last repeating; exponential; linear), an optional cap, a jitter
/// drawn from the seed, the request and the attempt, and the stopping rules (a
/// number of attempts or none, a total time, a cool-off, a reset at the cap). The
/// settings themselves are read by `Settings.set`; what a retry is for is
/// `Answers.swift`'s.
///
/// The wait before retry n (n = 1 for the retry after the first failed attempt):
/// d = min(cap, formula(n)); then the jitter; then min(cap, ·) again. A profile
/// that uses none of the new forms takes `wait(afterAttempt:request:)`, the
/// ladder as it always was.

extension Settings {
    /// The formula of the delay before retry n (`backoff FORM`): a small value, read on every retry.
    public enum Backoff: Equatable, Sendable {
        /// `retryDelays[n − 1]`, the last repeating (`set retry.delays`, `backoff ladder`).
        case ladder
        /// `base × factor^(n − 1)` (`backoff exponential BASE xFACTOR`).
        case exponential(base: Millis, factor: Double)
        /// `n × step` (`backoff linear STEP`).
        case linear(step: Millis)
    }

    /// `backoff cool off WAIT after N`: after N retries of a cycle the next wait is
    /// `wait`, and the formula starts over at n = 1.
    public struct CoolOff: Equatable, Sendable {
        public let wait: Millis
        public let after: Int
    }

    /// Whether a retry needs what the request's earlier retries did (the side table `backoffStates`).
    @inline(__always)
    var backoffKeepsState: Bool {
        if case .decorrelated = retryJitter { return true }
        return resetAtCap || coolOff != nil || giveUpAfter >= 0
    }

    /// Whether the wait is today's ladder: no formula, cap, new jitter or stopping
    /// rule (pattern matches and compares only: read on every retry).
    @inline(__always)
    var plainLadder: Bool {
        guard case .ladder = backoff, retryCap < 0, giveUpAfter < 0, coolOff == nil, !resetAtCap else { return false }
        switch retryJitter {
        case .none, .full, .equal: return true
        default: return false
        }
    }

    /// The wait before the retry that follows the `n`-th attempt of a budget of
    /// request `id` (n ≥ 1), jitter applied: the ladder without a cap.
    @inline(__always)
    func wait(afterAttempt n: Int, request id: Int32) -> Millis {
        let d = delay(afterAttempt: n)
        guard retryJitter != .none, d > 0 else { return d }
        let u = jitterDraw(attempt: n, request: id)
        let span = retryJitter == .full ? d : d - d / 2
        let r = Millis(u % UInt64(span + 1))
        return retryJitter == .full ? r : d / 2 + r
    }

    /// The draw of a jittered wait (JITTER): from the seed, the request and the attempt that failed.
    @inline(__always)
    func jitterDraw(attempt n: Int, request id: Int32) -> UInt64 {
        var g = SplitMix64(seed: seed &* 0xD6E8_FEB8_6659_FD93 ^ UInt64(UInt32(bitPattern: id)) ^ (UInt64(n) << 32))
        return g.next()
    }

    /// The delay before the retry that follows the `n`-th attempt of a budget (n ≥ 1).
    public func delay(afterAttempt n: Int) -> Millis {
        guard !retryDelays.isEmpty else { return 0 }
        return retryDelays[max(0, min(n - 1, retryDelays.count - 1))]
    }

    /// The most a wait can be: the cap, else the longest time a profile writes.
    @inline(__always)
    var waitCeiling: Millis { retryCap >= 0 ? retryCap : VirtualTime.maxInput }

    /// The formula's delay before retry `n` of a cycle (n ≥ 1), capped.
    @inline(__always)
    func formulaDelay(_ n: Int) -> Millis {
        let ceiling = waitCeiling
        switch backoff {
        case .ladder:
            return min(delay(afterAttempt: n), ceiling)
        case .linear(let step):
            let (d, over) = step.multipliedReportingOverflow(by: Millis(max(1, n)))
            return over ? ceiling : min(d, ceiling)
        case .exponential(let base, let factor):
            // base × factor^(n − 1) by squaring, stopping once past the ceiling
            // (factor ≥ 1: it only grows), so a long run of retries costs log n.
            let top = Double(ceiling)
            var x = Double(base), f = factor, k = max(1, n) - 1
            while k > 0 && x < top {
                if k & 1 == 1 { x *= f }
                f *= f
                k >>= 1
            }
            return x >= top ? ceiling : Millis(x)
        }
    }

    /// The wait before retry `n` of a cycle, after attempt `attempt` of request
    /// `id` failed; `previous` is the cycle's last wait, or -1 (decorrelated
    /// jitter draws from it). Also whether it reached the cap.
    func formulaWait(_ n: Int, attempt: Int32, request id: Int32, previous: Millis) -> (wait: Millis, atCap: Bool) {
        let ceiling = waitCeiling
        let d = formulaDelay(n)
        var w: Millis
        if retryJitter == .none || (d == 0 && retryJitter != .decorrelated) {
            w = d
        } else {
            let u = jitterDraw(attempt: Int(attempt), request: id)
            switch retryJitter {
            case .none: w = d
            case .full: w = Millis(u % UInt64(d + 1))
            case .equal: w = d / 2 + Millis(u % UInt64(d - d / 2 + 1))
            case .plusMinus(let p):
                let s = d / 100 * Millis(p) + d % 100 * Millis(p) / 100
                w = d - s + Millis(u % UInt64(2 * s + 1))
            case .plus(let p):
                let s = d / 100 * Millis(p) + d % 100 * Millis(p) / 100
                w = d + Millis(u % UInt64(s + 1))
            case .decorrelated:
                // AWS's: min(cap, U[base, 3 × previous]), the first from the base.
                let base = formulaDelay(1)
                let prev = previous < 0 ? base : previous
                let high = max(base, prev > VirtualTime.maxInput / 3 ? VirtualTime.maxInput : prev * 3)
                w = base + Millis(u % UInt64(high - base + 1))
            }
        }
        w = min(w, ceiling)
        return (w, retryCap >= 0 && w >= retryCap)
    }

    /// The `backoff` lines that give these settings, as a profile writes them (none for today's ladder).
    public var backoffLines: [String] {
        var out: [String] = []
        let cap = retryCap >= 0 ? " cap " + VirtualTime.duration(retryCap) : ""
        switch backoff {
        case .ladder:
            if retryCap >= 0 {
                out.append("backoff ladder " + retryDelays.map(VirtualTime.duration).joined(separator: ",") + cap)
            }
        case .exponential(let base, let factor):
            out.append("backoff exponential \(VirtualTime.duration(base)) x\(Settings.factorText(factor))" + cap)
        case .linear(let step):
            out.append("backoff linear \(VirtualTime.duration(step))" + cap)
        }
        if giveUpAfter >= 0 { out.append("backoff give up after " + VirtualTime.duration(giveUpAfter)) }
        if let c = coolOff { out.append("backoff cool off \(VirtualTime.duration(c.wait)) after \(c.after)") }
        if resetAtCap { out.append("backoff reset at cap") }
        return out
    }

    /// A factor as `backoff exponential` writes it: `2`, `1.5`.
    static func factorText(_ f: Double) -> String {
        let hundredths = Int((f * 100).rounded())
        if hundredths % 100 == 0 { return String(hundredths / 100) }
        let frac = hundredths % 100
        return "\(hundredths / 100)." + (frac % 10 == 0 ? String(frac / 10) : (frac < 10 ? "0" : "") + String(frac))
    }

    /// The most retries `backoff cool off D after N` may count.
    static let maxCoolOffAfter = 1000
}

extension Settings.Jitter {
    /// The words `retry.jitter` takes besides `±P%` and `+P%`.
    public static let words = ["none", "full", "equal", "decorrelated"]

    /// Reads `none`, `full`, `equal`, `decorrelated`, `±P%` (or `+-P%`, P from 1
    /// to 100) or `+P%` (P from 1 to 1000), P a whole number.
    public init?(word: String) {
        switch word {
        case "none": self = .none
        case "full": self = .full
        case "equal": self = .equal
        case "decorrelated": self = .decorrelated
        default:
            guard word.hasSuffix("%") else { return nil }
            let body = word.dropLast()
            if body.hasPrefix("±") || body.hasPrefix("+-") {
                let digits = body.hasPrefix("±") ? body.dropFirst() : body.dropFirst(2)
                guard let p = Settings.Jitter.percent(digits), p <= 100 else { return nil }
                self = .plusMinus(p)
            } else if body.hasPrefix("+") {
                guard let p = Settings.Jitter.percent(body.dropFirst()), p <= 1000 else { return nil }
                self = .plus(p)
            } else {
                return nil
            }
        }
    }

    static func percent(_ s: Substring) -> Int? {
        guard !s.isEmpty, s.count <= 4, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let p = Int(s), p >= 1 else {
            return nil
        }
        return p
    }

    /// As `set retry.jitter` writes it.
    public var word: String {
        switch self {
        case .none: return "none"
        case .full: return "full"
        case .equal: return "equal"
        case .decorrelated: return "decorrelated"
        case .plusMinus(let p): return "±\(p)%"
        case .plus(let p): return "+\(p)%"
        }
    }
}

/// What a request's earlier retries in this run left for the next (only for a
/// profile whose backoff keeps state: decorrelated jitter, a reset at the cap,
/// a cool-off, a total time).
struct BackoffState: Sendable {
    /// The launch it belongs to: a launch gives every request a fresh budget, so
    /// a state of an earlier one is read as none.
    var launch = -1
    /// `budgetUsed` when the current cycle began (n = budgetUsed − cycleStart).
    var cycleStart: Int32 = 0
    /// When the budget's first attempt failed (`backoff give up after`).
    var firstFailAt: Millis = 0
    /// The cycle's last wait, or -1 (decorrelated jitter).
    var previous: Millis = -1
}

extension Simulation {
    /// A failed attempt waits its backoff, then `retryDue` (Offline.swift) sends it
    /// again; false (nothing done) when `backoff give up after` ends its budget.
    mutating func retryLater(_ id: Int32, rule: RuleID, outcome: Outcome, wait fixed: Millis = -1) -> Bool {
        guard var wait = fixed >= 0 ? fixed : retryWait(id) else { return false }
        var rule = rule
        if spec.policy.retryAfter != nil { (wait, rule) = retryAfterAdjusted(id, outcome, wait: wait, rule: rule) }
        let at = VirtualTime.later(now, by: wait)
        move(id, to: .retrying, rule: rule, outcome: outcome)
        requests[Int(id) - 1].nextAttemptAt = at
        schedule(.retry, id, at: at)
        return true
    }

    /// The wait before request `id`'s next attempt (a batch's: its oldest
    /// request's), or nil when `backoff give up after` ends its budget.
    @inline(__always)
    mutating func retryWait(_ id: Int32) -> Millis? {
        let r = request(id)
        if settings.plainLadder { return settings.wait(afterAttempt: Int(r.budgetUsed), request: id) }
        if !settings.backoffKeepsState {
            return settings.formulaWait(Int(r.budgetUsed), attempt: r.budgetUsed, request: id, previous: -1).wait
        }
        return statefulWait(id, r)
    }

    /// The wait of a backoff that keeps state (its cycle, its last wait, its
    /// first failure), or nil when the budget's time is up.
    mutating func statefulWait(_ id: Int32, _ r: Request) -> Millis? {
        let i = Int(id) - 1
        if backoffStates.count <= i {
            backoffStates.append(contentsOf: repeatElement(BackoffState(), count: i + 1 - backoffStates.count))
        }
        var st = backoffStates[i]
        if st.launch != launches { st = BackoffState(launch: launches, cycleStart: 0, firstFailAt: now, previous: -1) }
        defer { backoffStates[i] = st }
        if settings.giveUpAfter >= 0 && now - st.firstFailAt >= settings.giveUpAfter { return nil }
        let n = Int(r.budgetUsed - st.cycleStart)
        if let c = settings.coolOff, n > c.after {
            st.cycleStart = r.budgetUsed
            st.previous = -1
            return c.wait
        }
        let (w, atCap) = settings.formulaWait(n, attempt: r.budgetUsed, request: id, previous: st.previous)
        st.previous = w
        if settings.resetAtCap && atCap {
            st.cycleStart = r.budgetUsed
            st.previous = -1
        }
        return w
    }
}

/// The `backoff` statement: the formula and its cap, and the stopping rules.
enum BackoffPolicy {
    static let forms = [
        "backoff ladder D[,D...] [cap D]", "backoff exponential D xF [cap D]", "backoff linear D [cap D]",
        "backoff give up after D|never", "backoff cool off D after N|never", "backoff reset at cap|never",
    ]

    static let statement: Statement = Statement(
        keyword: "backoff", forms: forms, file: "Policy/Backoff.swift", doc: doc
    ) { p, n, w in
        p.backoffLines.append((w.count > 1 ? w[1] : "", n))
        func time(_ what: String, _ s: String, _ form: String) -> Millis? {
            switch VirtualTime.parseLimited(s) {
            case .success(let t): return t
            case .failure(let why):
                p.fail(n, "bad \(what) \(ProfileParser.q(s)) for `\(form)`, " + why.message)
                return nil
            }
        }
        /// `[cap D]` after `at` words: -1 without one, nil when bad.
        func cap(_ at: Int, _ form: String) -> Millis? {
            if w.count == at { return -1 }
            guard w.count == at + 2, w[at] == "cap" else {
                p.fail(n, "bad backoff line, expected `\(form)`")
                return nil
            }
            return time("cap", w[at + 1], form)
        }
        let word = w.count > 1 ? w[1] : ""
        switch word {
        case "ladder":
            let form = forms[0]
            guard w.count >= 3 else { return p.fail(n, "bad backoff line, expected `\(form)`") }
            guard let c = cap(3, form) else { return }
            switch Settings.read("retry.delays", w[2]) {
            case .failure(let why): return p.fail(n, why.message)
            case .success(let s): p.d.defaults.apply(s)
            }
            p.d.defaults.retryCap = c
        case "exponential":
            let form = forms[1]
            guard w.count >= 4 else { return p.fail(n, "bad backoff line, expected `\(form)`") }
            guard let base = time("base", w[2], form), let c = cap(4, form) else { return }
            guard let f = factor(w[3]) else {
                return p.fail(
                    n,
                    "bad factor \(ProfileParser.q(w[3])) for `\(form)`, expected x and a number from 1 to 10 with at most"
                        + " 2 decimals, e.g. x2 or x1.5")
            }
            p.d.defaults.backoff = .exponential(base: base, factor: f)
            p.d.defaults.retryCap = c
        case "linear":
            let form = forms[2]
            guard w.count >= 3 else { return p.fail(n, "bad backoff line, expected `\(form)`") }
            guard let step = time("step", w[2], form), let c = cap(3, form) else { return }
            p.d.defaults.backoff = .linear(step: step)
            p.d.defaults.retryCap = c
        case "give":
            if w.count == 4 && w[2] == "up" && w[3] == "never" { return p.d.defaults.giveUpAfter = -1 }
            guard w.count == 5, w[2] == "up", w[3] == "after" else {
                return p.fail(n, "bad backoff line, expected `\(forms[3])`")
            }
            guard let t = time("time", w[4], forms[3]) else { return }
            p.d.defaults.giveUpAfter = t
        case "cool":
            if w.count == 4 && w[2] == "off" && w[3] == "never" { return p.d.defaults.coolOff = nil }
            guard w.count == 6, w[2] == "off", w[4] == "after" else {
                return p.fail(n, "bad backoff line, expected `\(forms[4])`")
            }
            guard let t = time("time", w[3], forms[4]) else { return }
            guard let k = Int(w[5]), k >= 1, k <= Settings.maxCoolOffAfter,
                w[5].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            else {
                return p.fail(
                    n,
                    "bad count \(ProfileParser.q(w[5])) for `\(forms[4])`, expected a whole number from 1 to"
                        + " \(Settings.maxCoolOffAfter)")
            }
            p.d.defaults.coolOff = Settings.CoolOff(wait: t, after: k)
        case "reset":
            if w.count == 3 && w[2] == "never" { return p.d.defaults.resetAtCap = false }
            guard w.count == 4, w[2] == "at", w[3] == "cap" else {
                return p.fail(n, "bad backoff line, expected `\(forms[5])`")
            }
            p.d.defaults.resetAtCap = true
        default:
            let words = ["ladder", "exponential", "linear", "give", "cool", "reset"]
            p.fail(n, "bad backoff line, " + statement.expected + Suggest.hint(word, among: words))
        }
    }

    /// `xF`: F from 1 to 10, at most two decimals.
    static func factor(_ s: String) -> Double? {
        guard s.hasPrefix("x") else { return nil }
        let body = s.dropFirst()
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 2,
            whole.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { return nil }
        var hundredths = Int(whole)! * 100
        if parts.count == 2 {
            let frac = parts[1]
            guard !frac.isEmpty, frac.count <= 2, frac.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            hundredths += Int(frac)! * (frac.count == 1 ? 10 : 1)
        }
        guard hundredths >= 100, hundredths <= 1000 else { return nil }
        return Double(hundredths) / 100
    }

    /// At the end of the file: a backoff line needs retries, and a reset at the cap a cap.
    static func finish(_ p: inout ProfileParser, end: Int) {
        let retries = Answers.retries(p.d)
        for (_, n) in p.backoffLines where !retries {
            p.fail(n, "a backoff line needs retries, expected an `on CLASS retry` line in the profile")
        }
        guard retries else { return }
        if p.d.defaults.resetAtCap && p.d.defaults.retryCap < 0,
            let n = p.backoffLines.last(where: { $0.word == "reset" })?.line
        {
            p.fail(n, "`backoff reset at cap` needs a cap, expected `cap D` on the profile's backoff formula line")
        }
    }
}

extension BackoffPolicy {
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let doc: [StatementDoc] = [
        StatementDoc(
            headings: [
                "`backoff ladder D[,D...] [cap D]` · `backoff exponential D xF [cap D]` · `backoff linear D [cap D]`"
            ],
            text: """
                The formula of the delay before retry n, where n is 1 for the retry after the
                first failed attempt of a budget, 2 for the next, and so on:

                | form | delay before retry n | for example |
                |---|---|---|
                | `backoff ladder D1,D2,...` | Dn, the last repeating: the same as `set retry.delays D1,D2,...` | Amplitude-Kotlin `1s,8s,32s,128s,300s` |
                | `backoff exponential B xF` | B × F^(n−1), in whole milliseconds rounded down: B is the first delay; F from `x1` to `x10`, at most two decimals (`x1.5`) | PostHog Android `1s x2 cap 30s` |
                | `backoff linear S` | n × S | PostHog iOS `1s cap 30s` |

                `cap D` bounds the delay before the jitter, and the wait after it: the wait is
                min(cap, jitter(min(cap, delay))). Without `cap`, a delay and a wait are held to
                100000h, the longest time Outbox takes. The jitter is `set retry.jitter` (the
                [set](#set-key-value) table): the draws come from `seed`, the request and the
                attempt that failed (the shared rule JITTER), so a run repeats exactly.

                | `retry.jitter` | the wait, for a delay d |
                |---|---|
                | `none` | d |
                | `full` | uniform from 0 to d |
                | `equal` | ⌊d/2⌋ plus uniform from 0 to d − ⌊d/2⌋ |
                | `±P%` (or `+-P%`), P from 1 to 100 | uniform from d − p to d + p, p = ⌊d × P / 100⌋ (Amplitude-Kotlin's ±50%) |
                | `+P%`, P from 1 to 1000 | uniform from d to d + p (Segment's +10%, Rudder v1's +100%) |
                | `decorrelated` | AWS's: uniform from b to 3 × the last wait (the first: from b to 3 × b), b the delay before retry 1; the formula gives only b and its growth is the draws' |

                Every draw is uniform over whole milliseconds, both ends included. A later
                formula line replaces an earlier one and its cap; `set retry.delays` (in the
                profile or a scenario) makes the formula the ladder and keeps the cap and the
                stopping rules.
                """,
            example: """
                profile ios-exp
                base ios
                title "iOS with exponential backoff and full jitter (what-if)"
                backoff exponential 1s x2 cap 5m
                set retry.jitter full
                """),
        StatementDoc(
            headings: [
                "`backoff give up after D|never` · `backoff cool off D after N|never` · `backoff reset at cap|never`"
            ],
            text: """
                When retrying stops, besides `set retry.attempts N` (a budget of N attempts;
                `set retry.attempts unlimited`: none, and only these rules or the run's limits
                end it):

                - `backoff give up after D`: an attempt that fails D or more after the budget's
                  first failed attempt ends the budget, whatever is left of it (`on exhausted`
                  says what happens). Segment's smart retry: `12h`.
                - `backoff cool off D after N`: after N retries of a cycle, the next wait is D
                  (no jitter, no cap), and the formula starts over at n = 1. Rudder's new SDKs:
                  `30m after 5`.
                - `backoff reset at cap`: a wait that reaches the cap starts the formula over:
                  the next retry is n = 1 again (Rudder v1's sawtooth). It needs a `cap`.

                `never` removes the rule (a base's). A launch gives every request a fresh
                budget, and so a fresh cycle and a fresh first failure. A `backoff` line needs
                retries (an `on CLASS retry` line).
                """,
            example: """
                profile rudder-like
                base ios
                title "Rudder's new SDKs' backoff on iOS (what-if)"
                set retry.attempts unlimited
                backoff exponential 3s x2
                set retry.jitter +100%
                backoff cool off 30m after 5
                """),
    ]
}
