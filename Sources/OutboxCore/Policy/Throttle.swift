/// Client-side adaptive throttling (`throttle k K [window D] [rule ID]`, rule
/// THROTTLE), as the Google SRE book's "Handling Overload" gives it: the device
/// counts, over a trailing window of D (default 2 minutes), its `requests` (the
/// attempts it was about to send online, those it rejected itself included)
/// and its `accepts` (those the backend answered without refusing them: any
/// HTTP answer but a 5xx or a 429), and before each attempt rejects it on the
/// device with probability
///
///     max(0, (requests − K × accepts) / (requests + 1))
///
/// drawn from the run's seed, the request and the attempt (`Draw`), so the same
/// seed gives the same timeline byte for byte. A rejected attempt never leaves
/// the device (the backend, and a fleet's gate, never see it): it ends at once
/// `throttled`, answered as an attempt made offline is (the `offline` class,
/// else `transport`), citing the throttle's rule, so a profile that retries
/// transport failures waits its backoff and tries again. The window is counted
/// in virtual time and empties at a launch (it is the process's memory).
///
/// A profile without the statement pays one nil check an attempt sent and one
/// an attempt ended.

/// A `throttle` line other than `none`.
public struct ThrottleRule: Equatable, Sendable {
    /// K in hundredths (`k 2`: 200, `k 1.1`: 110).
    public let k100: Int64
    /// The trailing window the counts are over.
    public let window: Millis
    public let rule: RuleID

    /// The probability of a local rejection with these counts: the SRE book's formula.
    public func rejection(requests: Int, accepts: Int) -> Double {
        let num = max(0, Int64(requests) * 100 - k100 * Int64(accepts))
        return Double(num) / Double((Int64(requests) + 1) * 100)
    }

    /// K as written (`2`, `1.1`, `1.25`).
    var kText: String {
        let whole = k100 / 100, frac = k100 % 100
        if frac == 0 { return String(whole) }
        return "\(whole)." + (frac % 10 == 0 ? "\(frac / 10)" : (frac < 10 ? "0\(frac)" : "\(frac)"))
    }
}

/// The trailing window's requests and accepts: their times, oldest first
/// (`head` the first still in the window).
struct ThrottleState: Sendable {
    var requests: [Millis] = []
    var accepts: [Millis] = []
    var requestsHead = 0
    var acceptsHead = 0

    /// Drops the times at or before `now − window` (the window is (now − D, now]).
    mutating func prune(now: Millis, window: Millis) {
        let edge = now - window
        while requestsHead < requests.count && requests[requestsHead] <= edge { requestsHead += 1 }
        while acceptsHead < accepts.count && accepts[acceptsHead] <= edge { acceptsHead += 1 }
        // What is out of the window goes once it is most of the array.
        if requestsHead > 64 && requestsHead * 2 > requests.count {
            requests.removeFirst(requestsHead)
            requestsHead = 0
        }
        if acceptsHead > 64 && acceptsHead * 2 > accepts.count {
            accepts.removeFirst(acceptsHead)
            acceptsHead = 0
        }
    }

    var requestCount: Int { requests.count - requestsHead }
    var acceptCount: Int { accepts.count - acceptsHead }
}

enum Throttle {
    static let defaultWindow: Millis = 120_000

    static let statement: Statement = Statement(
        keyword: "throttle", forms: ["throttle k K [window D] [rule ID]", "throttle none"],
        file: "Policy/Throttle.swift", doc: doc
    ) { p, n, w in read(&p, n, w) }

    static func read(_ p: inout ProfileParser, _ n: Int, _ w: [String]) {
        let form = statement.expected
        if w.count == 2 && w[1] == "none" {
            p.d.throttle = nil
            p.throttleLine = nil
            return
        }
        guard w.count >= 3, w[1] == "k" else {
            return p.fail(n, "bad throttle line, " + form + " (`throttle k 2`, the SRE book's K)")
        }
        guard let k = hundredths(w[2]), (100...10_000).contains(k) else {
            return p.fail(
                n,
                "bad throttle K \(ProfileParser.q(w[2])), expected a number from 1 to 100 with at most two decimals"
                    + " (`k 2`; `k 1.1` rejects sooner)")
        }
        guard
            let o = p.options(
                n, w, from: 3, keys: ["window": "a time", "rule": "a rule ID"], in: "throttle", form: form)
        else { return }
        var window = defaultWindow
        if let word = o["window"] {
            switch VirtualTime.parseLimited(word) {
            case .failure(let why):
                return p.fail(n, "bad throttle window \(ProfileParser.q(word)), " + why.message)
            case .success(let t):
                guard t >= 1000 else {
                    return p.fail(n, "bad throttle window \(ProfileParser.q(word)), expected a time of at least 1s")
                }
                window = t
            }
        }
        var rule = RuleID.throttle
        if let id = o["rule"] {
            guard let r = p.cite(n, id) else { return }
            rule = r
        }
        p.d.throttle = ThrottleRule(k100: k, window: window, rule: rule)
        p.throttleLine = n
    }

    /// `2`, `1.1`, `1.25` in hundredths; nil for anything else.
    static func hundredths(_ word: String) -> Int64? {
        let parts = word.split(separator: ".", omittingEmptySubsequences: false)
        func digits(_ s: Substring) -> Bool {
            !s.isEmpty && s.count <= 4 && s.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        }
        guard (1...2).contains(parts.count), digits(parts[0]), let whole = Int64(parts[0]) else { return nil }
        guard parts.count == 2 else { return whole * 100 }
        guard digits(parts[1]), parts[1].count <= 2, let f = Int64(parts[1]) else { return nil }
        return whole * 100 + (parts[1].count == 1 ? f * 10 : f)
    }

    /// At the end of the file: one request an attempt.
    static func finish(_ p: inout ProfileParser, end: Int) {
        guard p.d.throttle != nil, p.d.batch != nil else { return }
        p.fail(
            p.throttleLine ?? end,
            "`throttle` does not go with `batch` (a batch's sends are not throttled yet), expected one or the other")
    }

    /// Whether an answer counts as accepted: the backend took it (any HTTP answer but a 5xx or a 429).
    @inline(__always)
    static func accepts(_ outcome: Outcome) -> Bool {
        outcome.isSuccess || (outcome.code > 0 && outcome.code != 429 && !outcome.is5xx)
    }
}

extension Simulation {
    /// The throttle's counts over its window now and the chance the next
    /// attempt is rejected, or nil without `throttle`.
    public var throttleWindow: (requests: Int, accepts: Int, rejection: Double)? {
        guard let t = spec.policy.throttle else { return nil }
        let edge = now - t.window
        let req = throttleState.requests.dropFirst(throttleState.requestsHead).count(where: { $0 > edge })
        let acc = throttleState.accepts.dropFirst(throttleState.acceptsHead).count(where: { $0 > edge })
        return (req, acc, t.rejection(requests: req, accepts: acc))
    }

    /// An attempt of `id` is about to go out online (`send`, after its attempt
    /// is counted): it is one more request of the window; drawn against the
    /// formula, it is rejected on the device and answered `throttled` at once.
    /// True when it was rejected (it did not go out).
    mutating func throttledOnDevice(_ id: Int32, _ t: ThrottleRule) -> Bool {
        throttleState.prune(now: now, window: t.window)
        let req = throttleState.requestCount, acc = throttleState.acceptCount
        throttleState.requests.append(now)
        let p = t.rejection(requests: req, accepts: acc)
        guard p > 0 else { return false }
        let attempt = requests[Int(id) - 1].attempts
        let u = Draw.value(seed: settings.seed, request: id, attempt: attempt, salt: Draw.throttleSalt)
        guard Double(u >> 11) * 0x1p-53 < p else { return false }
        log(.outbox, .note, request: id, rule: t.rule) {
            "throttled: \($0.label(id)) not sent, rejected on the device with probability \(Throttle.chance(p)) (\(req) request\(req == 1 ? "" : "s"), \(acc) accept\(acc == 1 ? "" : "s") in the last \(VirtualTime.duration(t.window)); K \(t.kText))"
        }
        requests[Int(id) - 1].generation &+= 1
        requests[Int(id) - 1].lastOutcome = .throttled
        let r = request(id)
        let base = spec.response(.throttled, planned: r.plannedAnswer)
        let resp = Response(action: base.action, rule: t.rule, whenSaved: nil, wait: base.wait)
        if r.inFlush, let f = spec.policy.flush {
            flushAnswered(id, .throttled, resp, r, flush: f)
        } else {
            answered(id, .throttled, resp, r)
        }
        return true
    }

    /// An attempt sent online ended (`finishAttempt`): an answer the backend
    /// did not refuse is one more accept of the window.
    @inline(__always)
    mutating func throttleHeard(_ outcome: Outcome) {
        if Throttle.accepts(outcome) { throttleState.accepts.append(now) }
    }
}

extension Throttle {
    /// A probability as the log lines write it: three decimals.
    static func chance(_ p: Double) -> String {
        let m = Int((p * 1000).rounded())
        let frac = m % 1000
        return "\(m / 1000)." + (frac < 10 ? "00" : frac < 100 ? "0" : "") + "\(frac)"
    }

    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let doc: [StatementDoc] = [
        StatementDoc(
            headings: ["`throttle k K [window D] [rule R]` · `throttle none`"],
            text: """
                Client-side adaptive throttling, as the Google SRE book's "Handling Overload"
                gives it (the shared rule THROTTLE). The device counts, over the last `window
                D` of virtual time (default `2m`, the book's), its requests (each attempt it
                is about to send online, those it rejected itself included) and its accepts
                (attempts the backend answered without refusing them: any HTTP answer but a
                5xx or a 429). Before each attempt it rejects it on the device with
                probability

                    max(0, (requests − K × accepts) / (requests + 1))

                from the counts before it, drawn from `seed`, the request and the attempt (the
                same every run). `K` is 1 to 100 with at most two decimals: the book's 2
                lets twice as many requests through as are accepted; 1.1 rejects sooner.

                A rejected attempt never leaves the device: the backend (and a fleet's
                backend) never sees it. It counts as an attempt against `retry.attempts`,
                ends at once with the outcome `throttled`, and is answered as an attempt
                made offline is (the `offline` class's line, else `transport`'s), citing
                `R`: a profile that retries transport failures waits its backoff and tries
                again (a last attempt rejected so ends as `on exhausted` says, citing its
                rule as always). A log line citing `R` says so (`throttled: #7 'buy' not sent,
                rejected on the device with probability 0.615 (12 requests, 2 accepts in
                the last 2m; K 2)`). An attempt made offline fails as always (NET) and is
                not counted; the kinds `direct` sends are outside the queue: never counted
                or throttled. The counts are the process's memory: a launch starts them
                over. `rule R` is what the rejections cite; without it, THROTTLE.

                It does not go with `batch` yet. `throttle none` removes a base's.
                """,
            example: """
                profile ios-throttle
                base ios
                title "iOS with client-side adaptive throttling (what-if)"
                rule IOST-1 "Before a send: rejected on the device with chance max(0, (requests - 2 accepts)/(requests + 1)) over 2 min."
                throttle k 2 window 2m rule IOST-1
                """)
    ]
}
