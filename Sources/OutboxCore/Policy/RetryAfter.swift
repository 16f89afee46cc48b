/// What the SDK does with an answer's Retry-After header (`retry-after ignore`,
/// the default: the header is not read; `retry-after floor|replace|pause|mute
/// [on CLASS...] [default D] [cap D] [limit N] [within D] rule ID`): take it as a floor of the
/// backoff, let it replace the backoff, pause the whole pipeline until it ends
/// without counting the attempt, or mute the request's kind until it ends,
/// dropping what would go out meanwhile (`rate-limited`).
///
/// The scenario side: `server 429 retry-after 10s` plans an `Answer.retryAfter`;
/// `Simulation.send` keeps its header beside the request, by request and attempt
/// (`RetryAfterState.headers`, only for answers that carry one), so `Request`
/// stays 64 bytes and the timelines can show it (`answerText`). A profile
/// without the statement pays one nil check per attempt ended, one per retry
/// waited, and one comparison per attempt sent (`holdUntil`).

/// A `retry-after` line other than `ignore`.
public struct RetryAfterRule: Equatable, Sendable {
    public enum Mode: String, Equatable, Sendable, CaseIterable {
        /// The wait is the larger of the backoff and Retry-After (PostHog iOS, Mixpanel).
        case floor
        /// Retry-After, when above 0, is the wait (PostHog Android's `calculateDelay`).
        case replace
        /// Nothing goes out until Retry-After ends; the attempt is not counted (Segment's smart retry).
        case pause
        /// The request's kind is muted until Retry-After ends; what would go out is dropped (Sentry).
        case mute
    }
    public let mode: Mode
    /// The classes whose header is read; nil: the retried ones (429 for `mute`).
    let classes: [AnswerClass]?
    /// The wait of a 429 that carries no header, or nil (the answer is then as without the statement).
    public let defaultWait: Millis?
    /// The longest Retry-After (or default) taken, or nil.
    public let cap: Millis?
    /// `pause ... limit N`: the Nth pause since the last success drops what it
    /// paused (Segment Swift's rate-limit `maxRetryCount`); 0: none (no optional:
    /// the policy is read on every step, and stays small).
    public var limit: Int32 = 0
    /// `pause ... within D`: a pause that would end more than D after the first
    /// pause of its episode drops what it paused and ends the episode
    /// (segment-python's `max_rate_limit_duration`); 0: none.
    public var within: Millis = 0
    public let rule: RuleID

    /// Whether the statement reads the header of a status `s` whose response is `resp`.
    func reads(_ s: Int, retried: Bool) -> Bool {
        guard let classes else { return mode == .mute ? s == 429 : retried }
        return classes.contains(.status(s)) || classes.contains(.hundred(s / 100))
    }
}

/// What the answers' Retry-After headers left: the headers themselves, the
/// pause and the mutes in force.
struct RetryAfterState: Sendable {
    /// The header of each attempt answered with one, by `key(request, attempt)`;
    /// empty unless a `server` line plans one.
    var headers: [UInt64: Millis] = [:]
    /// No send is held or dropped before this moment: the latest end of the
    /// pause and the mutes (`.min`: none). `send` compares it, nothing more.
    var holdUntil: Millis = .min
    /// The pause's end (`retry-after pause`).
    var pausedUntil: Millis = .min
    /// Each kind's mute's end, by `RequestKind.rawValue` (`retry-after mute`); empty until one.
    var mutedUntil: [Millis] = []
    /// Pauses since the last success (`pause ... limit N`).
    var pauses: Int32 = 0
    /// When the pause episode began (`pause ... within D`): its first pause; `.min`: none.
    var episodeStart: Millis = .min

    @inline(__always)
    static func key(_ id: Int32, _ attempt: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: id)) | UInt64(UInt32(bitPattern: attempt)) << 32
    }
}

enum RetryAfterPolicy {
    static let forms = [
        "retry-after ignore",
        "retry-after floor|replace|pause|mute [on CLASS...] [default D] [cap D] [limit N] [within D] rule ID",
    ]

    static let statement: Statement = Statement(
        keyword: "retry-after", forms: forms, file: "Policy/RetryAfter.swift", doc: doc
    ) { p, n, w in read(&p, n, w) }

    static func read(_ p: inout ProfileParser, _ n: Int, _ w: [String]) {
        let form = "expected `\(forms[1])` or `\(forms[0])`"
        if w.count == 2 && w[1] == "ignore" {
            p.d.retryAfter = nil
            p.retryAfterLine = nil
            return
        }
        let modeWord = w.count > 1 ? w[1] : ""
        guard let mode = RetryAfterRule.Mode(rawValue: modeWord) else {
            return p.fail(
                n,
                "bad retry-after line, " + form
                    + Suggest.hint(modeWord, among: RetryAfterRule.Mode.allCases.map(\.rawValue) + ["ignore"]))
        }
        var classes: [AnswerClass]?
        var defaultWait: Millis?, cap: Millis?
        var i = 2
        func time(_ what: String) -> Millis? {
            guard i + 1 < w.count else {
                p.fail(n, "`\(what)` needs a time after it, " + form)
                return nil
            }
            switch VirtualTime.parseLimited(w[i + 1]) {
            case .failure(let why):
                p.fail(n, "bad retry-after \(what) \(ProfileParser.q(w[i + 1])), " + why.message)
                return nil
            case .success(let t):
                guard t > 0 else {
                    p.fail(n, "bad retry-after \(what) `0`, expected a time above 0")
                    return nil
                }
                return t
            }
        }
        var limit: Int32 = 0, within: Millis = 0
        let keywords: Set<String> = ["on", "default", "cap", "limit", "within", "rule"]
        var seen: Set<String> = []
        while i < w.count && w[i] != "rule" {
            let k = w[i]
            guard keywords.contains(k) else {
                return p.fail(
                    n,
                    "unexpected \(ProfileParser.q(k)) in a retry-after line, " + form
                        + Suggest.hint(k, among: Array(keywords)))
            }
            guard !seen.contains(k) else { return p.fail(n, "`\(k)` twice in a retry-after line, " + form) }
            seen.insert(k)
            switch k {
            case "on":
                var list: [AnswerClass] = []
                i += 1
                while i < w.count && !keywords.contains(w[i]) {
                    guard let c = AnswerClass(word: w[i]) else {
                        return p.fail(
                            n,
                            "unknown answer class \(ProfileParser.q(w[i])) in a retry-after line, expected statuses (429) or hundreds (5xx)"
                                + (Suggest.status(w[i]).map { "; did you mean `\($0)`?" } ?? ""))
                    }
                    switch c {
                    case .status, .hundred:
                        guard !c.isSuccess else {
                            return p.fail(
                                n,
                                "`on \(w[i])` in a retry-after line: a success waits for nothing, expected failure statuses (429) or hundreds (5xx)"
                            )
                        }
                    default:
                        return p.fail(
                            n,
                            "`on \(w[i])` in a retry-after line: only a status answer carries Retry-After, expected statuses (429) or hundreds (5xx)"
                        )
                    }
                    if !list.contains(c) { list.append(c) }
                    i += 1
                }
                guard !list.isEmpty else { return p.fail(n, "`on` needs answer classes after it, " + form) }
                classes = list
            case "default":
                guard let t = time("default") else { return }
                defaultWait = t
                i += 2
            case "limit", "within":
                guard mode == .pause else {
                    return p.fail(
                        n,
                        "`\(k)` in a retry-after \(mode.rawValue) line: it bounds pauses, expected `retry-after pause ... \(k) \(k == "limit" ? "N" : "D")`"
                    )
                }
                if k == "within" {
                    guard let t = time("within") else { return }
                    within = t
                } else {
                    guard i + 1 < w.count, let v = Int32(w[i + 1]), v >= 1 else {
                        return p.fail(
                            n,
                            "bad retry-after limit \(i + 1 < w.count ? ProfileParser.q(w[i + 1]) : "(nothing)"), expected a whole number of pauses from 1 (limit 100)"
                        )
                    }
                    limit = v
                }
                i += 2
            default:
                guard let t = time("cap") else { return }
                cap = t
                i += 2
            }
        }
        guard i == w.count - 2 else {
            return p.fail(
                n, i == w.count - 1 ? "`rule` needs a rule ID after it, " + form : "bad retry-after line, " + form)
        }
        guard let r = p.cite(n, w[i + 1]) else { return }
        p.d.retryAfter = RetryAfterRule(
            mode: mode, classes: classes, defaultWait: defaultWait, cap: cap, limit: limit, within: within, rule: r)
        p.retryAfterLine = n
    }

    /// At the end of the file: floor and replace change a retry's wait, so they
    /// need retries, as `pause` does without `on`; `pause` and `mute` hold what
    /// the flush sends, so they do not go with it.
    static func finish(_ p: inout ProfileParser, end: Int) {
        guard let ra = p.d.retryAfter else { return }
        let n = p.retryAfterLine ?? end
        let needsRetries = ra.mode == .floor || ra.mode == .replace || (ra.mode == .pause && ra.classes == nil)
        if needsRetries && !Answers.retries(p.d) {
            p.fail(
                n,
                "`retry-after \(ra.mode.rawValue)`\(ra.classes == nil ? "" : " ...") reads the retried answers' header, expected an `on CLASS retry` line in the profile"
            )
        }
        if (ra.mode == .pause || ra.mode == .mute) && p.d.flush != nil {
            p.fail(
                n,
                "`retry-after \(ra.mode.rawValue)` holds what goes out, and the flush sends one request at a time itself, expected `retry-after floor|replace` or no `component flush`"
            )
        }
    }
}

extension Simulation {
    /// The Retry-After header the answer to a request's attempt carried, or nil.
    public func retryAfterHeader(_ id: Int32, attempt: Int32) -> Millis? {
        retryAfterState.headers.isEmpty ? nil : retryAfterState.headers[RetryAfterState.key(id, attempt)]
    }

    /// An outcome as the timelines show it: `429`, or `429 (retry-after 10s)`
    /// when the answer carried the header.
    public func answerText(_ t: Transition) -> String {
        let w = t.outcome.word
        guard t.outcome.httpStatus != nil, let h = retryAfterHeader(t.request, attempt: t.attempt) else { return w }
        return w + " (retry-after " + VirtualTime.duration(h) + ")"
    }

    /// `send` took an answer with a Retry-After header for attempt `attempt`
    /// (`sendBatch`: for each member, its own attempt).
    mutating func noteRetryAfter(_ id: Int32, attempt: Int32, _ header: Millis) {
        retryAfterState.headers[RetryAfterState.key(id, attempt)] = header
    }

    /// The header of the attempt on the wire of `id`.
    mutating func noteRetryAfter(_ id: Int32, _ header: Millis) {
        noteRetryAfter(id, attempt: requests[Int(id) - 1].attempts, header)
    }

    /// The wait the statement takes from the answer that ended `id`'s last
    /// attempt (its header, or the default for a 429 without one, capped), or nil
    /// when it reads nothing there. 0 is nil: a header of 0 changes nothing.
    func retryAfterWait(_ id: Int32, _ outcome: Outcome, _ ra: RetryAfterRule, retried: Bool) -> Millis? {
        guard let s = outcome.httpStatus, ra.reads(s, retried: retried) else { return nil }
        guard var t = retryAfterHeader(id, attempt: requests[Int(id) - 1].attempts) ?? (s == 429 ? ra.defaultWait : nil)
        else { return nil }
        if let c = ra.cap { t = min(t, c) }
        return t > 0 ? t : nil
    }

    /// `retry-after floor|replace`: the wait of a retry, and the rule it cites,
    /// after the backoff said `wait` citing `rule` (Backoff.swift's `retryLater`).
    func retryAfterAdjusted(_ id: Int32, _ outcome: Outcome, wait: Millis, rule: RuleID) -> (Millis, RuleID) {
        guard let ra = spec.policy.retryAfter, ra.mode == .floor || ra.mode == .replace,
            let h = retryAfterWait(id, outcome, ra, retried: true)
        else { return (wait, rule) }
        switch ra.mode {
        case .floor: return h > wait ? (h, ra.rule) : (wait, rule)
        default: return (h, ra.rule)
        }
    }

    /// An attempt ended (Dispatch.swift's `finishAttempt`, before the answer
    /// table): `pause` holds the pipeline and the request waits for the pause's
    /// end, its attempt not counted (true: the answer table is not consulted);
    /// `mute` mutes the request's kind and the answer table goes on.
    mutating func answeredWithRetryAfter(_ id: Int32, _ outcome: Outcome, _ resp: Response, _ ra: RetryAfterRule)
        -> Bool
    {
        guard ra.mode == .pause || ra.mode == .mute else { return false }
        guard let h = retryAfterWait(id, outcome, ra, retried: resp.action == .retry) else {
            if ra.mode == .pause { answeredWithoutPause(outcome) }
            return false
        }
        let until = VirtualTime.later(now, by: h)
        if ra.mode == .pause, let why = pauseSpendsBudget(ra, until: until) {
            log(.outbox, .note, request: id, rule: ra.rule) {
                "rate-limit budget spent: \(why); \($0.label(id)) is dropped after \(outcome.word)"
            }
            drop(
                id, reason: .exhausted, rule: ra.rule, outcome: outcome, attempts: request(id).budgetUsed,
                key: .completionExhausted)
            return true
        }
        retryAfterState.holdUntil = max(retryAfterState.holdUntil, until)
        if ra.mode == .mute {
            let k = Int(requests[Int(id) - 1].kind.rawValue)
            if retryAfterState.mutedUntil.count <= k {
                retryAfterState.mutedUntil += [Millis](
                    repeating: .min, count: k + 1 - retryAfterState.mutedUntil.count)
            }
            retryAfterState.mutedUntil[k] = max(retryAfterState.mutedUntil[k], until)
            let (kindWord, end) = (word(requests[Int(id) - 1].kind), retryAfterState.mutedUntil[k])
            log(.outbox, .note, request: id, rule: ra.rule) {
                "rate limited: \(kindWord) requests muted for \(VirtualTime.duration(h)) (until \(VirtualTime.clock(end))) after \(outcome.word) on \($0.label(id))"
            }
            return false
        }
        retryAfterState.pausedUntil = max(retryAfterState.pausedUntil, until)
        let end = retryAfterState.pausedUntil
        log(.outbox, .note, request: id, rule: ra.rule) {
            "paused for \(VirtualTime.duration(h)) (until \(VirtualTime.clock(end))) after \(outcome.word) on \($0.label(id)); the attempt is not counted"
        }
        update(id) { r in if r.budgetUsed > 0 { r.budgetUsed -= 1 } }
        move(id, to: .retrying, rule: ra.rule, outcome: outcome)
        requests[Int(id) - 1].nextAttemptAt = end
        schedule(.retry, id, at: end)
        return true
    }

    /// An attempt is about to go out while a pause or a mute may be in force
    /// (`send`, only before `holdUntil`): paused, the request waits `retrying`
    /// for the pause's end; muted, it is dropped `rate-limited`. True when it did
    /// not go out. The direct kinds are outside the queue: never held.
    mutating func heldByRetryAfter(_ id: Int32) -> Bool {
        guard let ra = spec.policy.retryAfter else { return false }
        let kind = requests[Int(id) - 1].kind
        if isDirect(kind) { return false }
        switch ra.mode {
        case .pause where now < retryAfterState.pausedUntil:
            let end = retryAfterState.pausedUntil
            move(id, to: .retrying, rule: ra.rule)
            requests[Int(id) - 1].nextAttemptAt = end
            schedule(.retry, id, at: end)
            return true
        case .mute:
            let k = Int(kind.rawValue)
            guard k < retryAfterState.mutedUntil.count, now < retryAfterState.mutedUntil[k] else { return false }
            move(id, to: .dropped, rule: ra.rule, reason: .rateLimited)
            return true
        default:
            return false
        }
    }

    // MARK: Batches (Policy/Batching.swift)

    /// A batch is about to go out (`sendBatch`, only before `holdUntil`):
    /// paused, the whole batch waits `retrying` for the pause's end (a new one
    /// gets its number now, so its members go together then; under head-of-line
    /// the pipeline waits on it); muted, its members of a muted kind are dropped
    /// `rate-limited`. Returns the members that go now, or nil: none.
    mutating func batchHeldByRetryAfter(_ members: [Int32], rule: RuleID, again: Int32) -> [Int32]? {
        guard let ra = spec.policy.retryAfter else { return members }
        switch ra.mode {
        case .pause where now < retryAfterState.pausedUntil:
            let n: Int32
            if again > 0 {
                n = again
                batches[Int(n) - 1].members = members
            } else {
                batches.append(Batch(members: members))
                n = Int32(batches.count)
            }
            if spec.policy.batch?.headOfLine == true { batchBlocking = n }
            holdBatch(n, members, rule: ra.rule)
            return nil
        case .mute:
            var going: [Int32] = []
            for m in members {
                let k = Int(requests[Int(m) - 1].kind.rawValue)
                if k < retryAfterState.mutedUntil.count, now < retryAfterState.mutedUntil[k] {
                    move(m, to: .dropped, rule: ra.rule, reason: .rateLimited)
                    if batchOf[Int(m) - 1] == again { batchOf[Int(m) - 1] = 0 }
                } else {
                    going.append(m)
                }
            }
            if going.isEmpty {
                if again > 0 { endBatch(again) }
                return nil
            }
            return going
        default:
            return members
        }
    }

    /// Batch `n`'s members wait `retrying` citing `rule` until the pause ends,
    /// then go out together again (`batchRetryDue`).
    mutating func holdBatch(_ n: Int32, _ members: [Int32], rule: RuleID, outcome: Outcome = .none) {
        let end = retryAfterState.pausedUntil
        for m in members {
            batchOf[Int(m) - 1] = n
            move(m, to: .retrying, rule: rule, outcome: outcome)
            requests[Int(m) - 1].nextAttemptAt = end
        }
        batches[Int(n) - 1].generation &+= 1
        batches[Int(n) - 1].phase = .retrying
        scheduleBatch(.batchRetry, n, at: end)
    }

    /// Batch `n`'s attempt ended (`batchFinished`, before the answer table):
    /// read from its oldest member's answer, `pause` holds the pipeline and the
    /// whole batch waits for the pause's end, its attempt counted for none
    /// (true: the answer table is not consulted); `mute` mutes every member's
    /// kind and the answer table goes on.
    mutating func batchAnsweredWithRetryAfter(
        _ n: Int32, _ ms: [Int32], _ outcome: Outcome, _ resp: Response, _ ra: RetryAfterRule
    ) -> Bool {
        guard ra.mode == .pause || ra.mode == .mute, let lead = ms.first else { return false }
        guard let h = retryAfterWait(lead, outcome, ra, retried: resp.action == .retry) else {
            if ra.mode == .pause { answeredWithoutPause(outcome) }
            return false
        }
        let until = VirtualTime.later(now, by: h)
        if ra.mode == .pause, let why = pauseSpendsBudget(ra, until: until) {
            log(.outbox, .note, request: lead, rule: ra.rule) {
                "rate-limit budget spent: \(why); batch \(n) (\($0.label(lead)) …) is dropped after \(outcome.word)"
            }
            for m in ms {
                drop(
                    m, reason: .exhausted, rule: ra.rule, outcome: outcome, attempts: request(m).budgetUsed,
                    key: .completionExhausted)
            }
            endBatch(n)
            return true
        }
        retryAfterState.holdUntil = max(retryAfterState.holdUntil, until)
        if ra.mode == .mute {
            for m in ms {
                let k = Int(requests[Int(m) - 1].kind.rawValue)
                if retryAfterState.mutedUntil.count <= k {
                    retryAfterState.mutedUntil += [Millis](
                        repeating: .min, count: k + 1 - retryAfterState.mutedUntil.count)
                }
                retryAfterState.mutedUntil[k] = max(retryAfterState.mutedUntil[k], until)
            }
            var words: [String] = []
            for m in ms where !words.contains(word(requests[Int(m) - 1].kind)) {
                words.append(word(requests[Int(m) - 1].kind))
            }
            let (kinds, end) = (words.joined(separator: ", "), until)
            log(.outbox, .note, request: lead, rule: ra.rule) {
                "rate limited: \(kinds) requests muted for \(VirtualTime.duration(h)) (until \(VirtualTime.clock(end))) after \(outcome.word) on batch \(n) (\($0.label(lead)) …)"
            }
            return false
        }
        retryAfterState.pausedUntil = max(retryAfterState.pausedUntil, until)
        let end = retryAfterState.pausedUntil
        log(.outbox, .note, request: lead, rule: ra.rule) {
            "paused for \(VirtualTime.duration(h)) (until \(VirtualTime.clock(end))) after \(outcome.word) on batch \(n) (\($0.label(lead)) …); the attempt is not counted"
        }
        for m in ms { update(m) { r in if r.budgetUsed > 0 { r.budgetUsed -= 1 } } }
        holdBatch(n, ms, rule: ra.rule, outcome: outcome)
        return true
    }

    /// A launch: the pause and the mutes were the process's, and end with it.
    mutating func retryAfterLaunched() {
        retryAfterState.holdUntil = .min
        retryAfterState.pausedUntil = .min
        retryAfterState.mutedUntil = []
        retryAfterState.pauses = 0
        retryAfterState.episodeStart = .min
    }

    /// `pause ... limit N|within D`: counts a pause that would end at `until`
    /// and starts its episode; says why when it spends the rate-limit budget
    /// (the caller drops what it paused), nil when it pauses.
    ///
    /// `limit N` (Segment Swift's `globalRetryCount >= maxRetryCount`): the Nth
    /// pause since the last success drops, and the count starts over; the pause
    /// itself stays (the SDK drops the batch at the upload after it: D338).
    /// `within D` (segment-python's `wait_time > remaining`): a pause ending past
    /// the episode's first pause + D drops, and ends the episode and the pause,
    /// as the SDK's `clear_rate_limit_state` does.
    mutating func pauseSpendsBudget(_ ra: RetryAfterRule, until: Millis) -> String? {
        if ra.limit > 0 {
            let l = ra.limit
            retryAfterState.pauses += 1
            if retryAfterState.pauses >= l {
                retryAfterState.pauses = 0
                return "\(l) pause\(l == 1 ? "" : "s") since the last success (limit \(l))"
            }
        }
        if ra.within > 0 {
            let d = ra.within
            if retryAfterState.episodeStart == .min { retryAfterState.episodeStart = now }
            let start = retryAfterState.episodeStart
            if until > VirtualTime.later(start, by: d) {
                retryAfterState.episodeStart = .min
                retryAfterState.pausedUntil = .min
                retryAfterState.holdUntil = .min
                return
                    "the pause would end at \(VirtualTime.clock(until)), past the \(VirtualTime.duration(d)) begun by the pause at \(VirtualTime.clock(start)) (within \(VirtualTime.duration(d)))"
            }
        }
        return nil
    }

    /// An answer that pauses nothing (`pause`): the episode `within` bounds is
    /// over (the SDK clears its rate-limit state on any answer without one); a
    /// success starts `limit`'s count over.
    mutating func answeredWithoutPause(_ outcome: Outcome) {
        retryAfterState.episodeStart = .min
        if outcome.isSuccess { retryAfterState.pauses = 0 }
    }
}

extension RetryAfterPolicy {
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let doc: [StatementDoc] = [
        StatementDoc(
            headings: [
                "`retry-after ignore` · `retry-after floor|replace|pause|mute [on CLASS...] [default D] [cap D] [limit N] [within D] rule R`"
            ],
            text: """
                What the SDK does with the Retry-After header of an answer (a scenario's `server
                429 retry-after 10s`). Without the statement, or with `retry-after ignore`, the
                header is not read (Rudder's new SDKs: no `Retry-After` anywhere in their
                source). Otherwise, for an answer of the statement's classes:

                | mode | what the header does | for |
                |---|---|---|
                | `floor` | a retry waits the larger of its backoff and the header, citing `R` when the header is larger | PostHog iOS (`max(delay, retryAfter)`), Mixpanel Swift |
                | `replace` | a retry waits the header instead of its backoff, citing `R` | PostHog Android (`calculateDelay`) |
                | `pause` | nothing goes out until the header's time is up: the request waits `retrying` citing `R` and its attempt is not counted against `retry.attempts`; a request that would go out meanwhile (made, resent, its retry due) waits `retrying` citing `R` too; then what waited goes, oldest wait first | Segment's smart retry (`retry-after pause default 300s cap 300s`) |
                | `mute` | the request's kind is muted until the header's time is up (a log line citing `R` says so); the answer itself does what its `on` line says; a request of that kind that would go out meanwhile is dropped `rate-limited` citing `R`, never sent | Sentry (`retry-after mute default 60s`) |

                - `on CLASS...`: the classes read, statuses (`429`) and hundreds (`5xx`) of
                  failures only (only a status answer carries the header). Without it: the
                  classes the profile retries (`on CLASS retry`); for `mute`, 429.
                - `default D`: the wait of a 429 (Too Many Requests) of those classes that
                  carries no header (Sentry's 60 s, Segment's 300 s). Without it, an answer
                  without the header is as without the statement. A header of 0 changes nothing
                  (PostHog Android reads it only when above 0); a `default` is above 0.
                - `cap D`: the longest header (or default) taken (Segment's 300 s clamp,
                  posthog-python's 30 s).
                - `limit N` (`pause` only): the Nth pause since the last success spends
                  the rate-limit budget: what it paused is dropped `exhausted` citing `R`
                  (a log line says why), the pause stays, and the count starts over
                  (Segment Swift's 100 rate-limit retries). A launch starts it over too.
                - `within D` (`pause` only): a pause episode, from its first pause to the
                  next answer that pauses nothing, lasts at most D: a pause that would end
                  later drops what it paused `exhausted` citing `R` and ends the episode
                  and the pause (segment-python's 1800 s `max_rate_limit_duration`).

                With `batch`, a batch's answer is its oldest request's: `floor` and `replace`
                read its header for the batch's wait, a pause holds whole batches (they go
                together at its end) and a mute mutes the kinds of all the batch's requests.
                A pause and a mute end with the process: a launch starts without them. A
                later pause or mute that ends later extends it. The kinds `direct` sends
                are outside the queue: never paused or muted. `floor` and `replace` change
                a retry's wait, so they need an `on CLASS retry` line, as `pause` does
                without `on`; `pause` and `mute` do not go with `component flush`, which
                sends the queue itself. Every form's later line replaces an earlier one (a
                base's too).
                """,
            example: """
                profile ios-retry-after
                base ios
                title "iOS, a Retry-After replacing its backoff (what-if)"
                rule RA-1 "A Retry-After above 0 replaces the backoff, at most 30s."
                retry-after replace cap 30s rule RA-1
                """)
    ]
}
