/// Requests sent together (`batch up to N [when M waiting|new] [every D]
/// [head-of-line] rule ID`, `batch split STATUS rule ID`, `batch exhausted drops
/// queue rule ID`): a new request waits `pending` in the SDK's queue until a
/// flush takes it; a flush sends what waits, oldest first, in batches of at most
/// N; one answer applies to the whole batch, and its attempts count for every
/// request in it. A flush starts when M requests wait, every D from the launch,
/// and when a resend would send the queue (launch, network back). A batch keeps
/// its members through its retries (one backoff for all, drawn for its oldest
/// request); an answer that queues them puts them back for the next flush, in a
/// new batch. Head-of-line: one batch on the wire or waiting to retry at a time,
/// the pipeline waits on it (Rudder's new SDKs, Mixpanel); without it, batches go
/// side by side (docs/DECISIONS.md D303).
///
/// Optional: a profile without it pays a nil check per request made and one
/// comparison per `advance(to:)` (the interval's next flush, `Millis.max`).

/// The `batch` lines of a profile.
public struct BatchRule: Equatable, Sendable {
    /// At most this many requests an attempt.
    public let most: Int
    /// `and B`: at most this many bytes an attempt (a request's size is
    /// `Simulation.size(of:)`); nil for no cap. A request bigger than the cap goes alone.
    public var bytes: Int?
    /// `batch names STATUS rule R`: a batch answered STATUS names the requests at
    /// fault (those whose own plan answered it): they are dropped `rejected`, and
    /// the rest go back to the queue (Amplitude's 400). A STATUS naming none gets
    /// what the answer table says, for the whole batch.
    public var names: (status: Int, rule: RuleID)?
    /// A flush starts when this many wait (or, `whenNew`, have come in since the last flush).
    public let when: Int
    /// `when M new`: count the requests made since the last flush (Segment's and
    /// Amplitude's counters), not the queue's depth (`when M waiting`, PostHog's).
    public var whenNew = false
    /// A flush starts every this long from the launch, or nil.
    public let every: Millis?
    /// One batch at a time; the pipeline waits on a failing one.
    public let headOfLine: Bool
    public let rule: RuleID
    /// `batch split STATUS rule R`: a batch of two or more answered STATUS is
    /// halved and both halves go out at once, the attempt not counted against the budget.
    public var split: (status: Int, rule: RuleID)?
    /// `batch exhausted drops queue rule R`: when a batch's budget ends, every
    /// request waiting is dropped too (PostHog's `dropAllQueuedRecords`).
    public var dropsQueue: RuleID?

    public static func == (a: BatchRule, b: BatchRule) -> Bool {
        a.most == b.most && a.bytes == b.bytes && a.when == b.when && a.whenNew == b.whenNew && a.every == b.every
            && a.headOfLine == b.headOfLine
            && a.rule == b.rule && a.split?.status == b.split?.status && a.split?.rule == b.split?.rule
            && a.dropsQueue == b.dropsQueue && a.names?.status == b.names?.status && a.names?.rule == b.names?.rule
    }
}

/// One batch: the requests that went together, and its attempt on the wire.
struct Batch: Sendable {
    enum Phase: UInt8, Sendable { case inFlight, retrying, stalled, over }
    var members: [Int32]
    var phase: Phase = .inFlight
    /// Changes whenever its attempt or timer is cancelled (as `Request.generation`).
    var generation: UInt32 = 0
    var answer: Answer = .ok
    var outlastsTimeout = false
    /// The members its answer names at fault (`batch names STATUS`), oldest first.
    var named: [Int32] = []
}

enum Batching {
    /// The largest batch: ten times the largest real SDK's (PostHog's server SDKs' 1000).
    static let maxBatch = 10_000

    static let forms = [
        "batch up to N [and SIZE] [when M waiting|new] [every DURATION] [head-of-line] rule ID",
        "batch split STATUS rule ID", "batch exhausted drops queue rule ID", "batch names STATUS rule ID",
        "batch none",
    ]

    /// The largest byte cap: 100 MB.
    static let maxBytes = 100_000_000

    /// A size in bytes: `500`, `500B`, `475KB`, `1MB` (KB is 1000 bytes, as the
    /// SDKs write their limits: Segment's 475000 "max 500k"), from 1 to `maxBytes`.
    static func size(_ w: String) -> Int? {
        var digits = Substring(w), unit = 1
        for (suffix, u) in [("KB", 1000), ("kB", 1000), ("MB", 1_000_000), ("B", 1)] where w.hasSuffix(suffix) {
            digits = w.dropLast(suffix.count)
            unit = u
            break
        }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), digits.count <= 9,
            let n = Int(digits), n >= 1, n * unit <= maxBytes
        else { return nil }
        return n * unit
    }

    /// `475KB`, `1200B`: a size as the profile's words write it.
    static func sizeText(_ n: Int) -> String {
        if n % 1_000_000 == 0 { return "\(n / 1_000_000)MB" }
        if n % 1000 == 0 { return "\(n / 1000)KB" }
        return "\(n)B"
    }

    static let statement: Statement = Statement(
        keyword: "batch", forms: forms, file: "Policy/Batching.swift", doc: doc
    ) { p, n, w in read(&p, n, w) }

    static func read(_ p: inout ProfileParser, _ n: Int, _ w: [String]) {
        let form = statement.expected
        if w.count == 2 && w[1] == "none" {
            p.d.batch = nil
            return
        }
        guard w.count >= 2 else { return p.fail(n, "bad batch line, " + form) }
        switch w[1] {
        case "split":
            guard let (s, r) = statusRule(&p, n, w, form: forms[1], example: "413") else { return }
            p.d.batch?.split = (s, r)
        case "exhausted":
            guard p.d.batch != nil else {
                return p.fail(n, "`batch exhausted` needs a `batch up to N` line before it")
            }
            guard w.count == 6, w[2] == "drops", w[3] == "queue", w[4] == "rule" else {
                return p.fail(n, "bad batch exhausted line, expected `\(forms[2])`")
            }
            guard let r = p.cite(n, w[5]) else { return }
            p.d.batch?.dropsQueue = r
        case "names":
            guard let (s, r) = statusRule(&p, n, w, form: forms[3], example: "400") else { return }
            p.d.batch?.names = (s, r)
        case "up":
            readBatch(&p, n, w)
        default:
            p.fail(
                n,
                "bad batch line \(ProfileParser.q(w[1])), " + form
                    + Suggest.hint(w[1], among: ["up", "split", "exhausted", "names", "none"]))
        }
    }

    /// `batch split|names STATUS rule ID`: the failure status and the rule, or nil (the failure said).
    static func statusRule(_ p: inout ProfileParser, _ n: Int, _ w: [String], form: String, example: String) -> (
        Int, RuleID
    )? {
        let what = w[1]
        guard p.d.batch != nil else {
            p.fail(n, "`batch \(what)` needs a `batch up to N` line before it")
            return nil
        }
        guard w.count == 5, w[3] == "rule" else {
            p.fail(n, "bad batch \(what) line, expected `\(form)`")
            return nil
        }
        guard AnswerClass.isStatus(w[2]), let s = Int(w[2]), !(200...299).contains(s) else {
            p.fail(n, "bad batch \(what) status \(ProfileParser.q(w[2])), expected a failure status (\(example))")
            return nil
        }
        guard let r = p.cite(n, w[4]) else { return nil }
        return (s, r)
    }

    static func readBatch(_ p: inout ProfileParser, _ n: Int, _ w: [String]) {
        let form = "expected `\(forms[0])`"
        guard w.count >= 5, w[2] == "to" else { return p.fail(n, "bad batch line, " + form) }
        guard let most = Int(w[3]), (1...maxBatch).contains(most) else {
            return p.fail(
                n, "bad batch size \(ProfileParser.q(w[3])), expected a whole number from 1 to \(maxBatch)")
        }
        var when = most
        var whenNew = false
        var bytes: Int?
        var every: Millis?
        var headOfLine = false
        var i = 4
        while i < w.count {
            switch w[i] {
            case "when":
                guard i + 2 < w.count, w[i + 2] == "waiting" || w[i + 2] == "new" else {
                    return p.fail(
                        n, "`when` needs a count and `waiting` or `new` after it (`when 20 waiting`), " + form)
                }
                whenNew = w[i + 2] == "new"
                guard let m = Int(w[i + 1]), (1...maxBatch).contains(m) else {
                    return p.fail(
                        n,
                        "bad batch count \(ProfileParser.q(w[i + 1])), expected a whole number from 1 to \(maxBatch)")
                }
                when = m
                i += 3
            case "every":
                guard i + 1 < w.count else { return p.fail(n, "`every` needs a duration after it, " + form) }
                switch VirtualTime.parseLimited(w[i + 1]) {
                case .failure(let problem):
                    return p.fail(n, "bad batch interval \(ProfileParser.q(w[i + 1])), " + problem.message)
                case .success(let t):
                    guard t > 0 else {
                        return p.fail(
                            n, "bad batch interval `0`, expected a duration above 0 (leave `every` out for none)")
                    }
                    every = t
                }
                i += 2
            case "head-of-line":
                headOfLine = true
                i += 1
            case "and":
                guard i + 1 < w.count else { return p.fail(n, "`and` needs a size after it (`and 475KB`), " + form) }
                guard let b = size(w[i + 1]) else {
                    return p.fail(
                        n,
                        "bad batch size \(ProfileParser.q(w[i + 1])), expected bytes from 1 to 100MB (`500`, `500B`, `475KB`, `1MB`; KB is 1000 bytes)"
                    )
                }
                bytes = b
                i += 2
            case "rule":
                guard i + 2 == w.count else {
                    return p.fail(
                        n,
                        i + 1 == w.count
                            ? "`rule` needs a rule ID after it, " + form
                            : "unexpected "
                                + ProfileParser.q(w[i + 2]) + " after the rule, " + form)
                }
                guard let r = p.cite(n, w[i + 1]) else { return }
                p.d.batch = BatchRule(most: most, when: when, every: every, headOfLine: headOfLine, rule: r)
                p.d.batch?.whenNew = whenNew
                p.d.batch?.bytes = bytes
                return
            default:
                return p.fail(
                    n,
                    "unexpected \(ProfileParser.q(w[i])), " + form
                        + Suggest.hint(w[i], among: ["and", "when", "every", "head-of-line", "rule"]))
            }
        }
        p.fail(n, "the batch line cites no rule, " + form)
    }

    /// At the end of the file: what batching cannot be combined with.
    static func finish(_ p: inout ProfileParser, end: Int) {
        if p.d.batch == nil {
            for (c, e) in p.d.on.sorted(by: { $0.value.line < $1.value.line }) where e.action == .stall {
                p.fail(e.line, "`on \(c.word) stall` needs batches (`batch up to N ...`): only a batch's upload stalls")
            }
            return
        }
        if p.d.flush != nil {
            p.fail(end, "`batch` and `component flush` both send the queue: a profile has one or the other")
        }
        if p.d.gate != nil {
            p.fail(end, "`batch` cannot be combined with `component consent-gate` (not modelled yet)")
        }
        if let nm = p.d.batch?.names {
            if p.d.batch?.split?.status == nm.status {
                p.fail(
                    end, "`batch names \(nm.status)` and `batch split \(nm.status)` name the same status, expected two")
            }
        }
    }
}

extension Simulation {
    /// How many requests wait for a flush: the pending (never sent) and queued ones.
    var waitingCount: Int { count(.pending) + count(.queued) }

    /// A request is made and waits for a flush (the last stage of `created`).
    mutating func createdInBatch(_ id: Int32, _ b: BatchRule) {
        enter(id, .pending, rule: spec.policy.createdRule)
        if spec.policy.save == .atCreate { setSaved(id, true) }
        queuedHeap.push(id)
        batchNewCount += 1
        if (b.whenNew ? batchNewCount : waitingCount) >= b.when { flushBatches(rule: b.rule) }
    }

    /// Sends what waits, oldest first, in batches (a flush): all of it side by
    /// side, or under head-of-line one batch now and the next when it is over.
    /// Nothing goes while the network is held off (`offline hold`), nor while a
    /// head-of-line batch is under way (the flush goes on after it).
    mutating func flushBatches(rule: RuleID) {
        guard let b = spec.policy.batch, !batchStalled else { return }
        // `when M new` counts from here (Segment's CountBasedFlushPolicy resets on every flush).
        batchNewCount = 0
        // Held (offline, marked offline, suspended in the background: Offline.swift), nothing goes.
        if heldNow != nil { return }
        if b.headOfLine {
            batchFlushing = true
            batchFlushRule = rule
            guard batchBlocking == 0 else { return }
        }
        var ids = takeWaiting()
        guard !ids.isEmpty else {
            batchFlushing = false
            return
        }
        if b.headOfLine {
            let end = batchEnd(ids, from: 0, b)
            let rest = Array(ids[end...])
            ids.removeLast(rest.count)
            for id in rest { queuedHeap.push(id) }
            sendBatch(ids, rule: rule)
            return
        }
        var i = 0
        while i < ids.count {
            let end = batchEnd(ids, from: i, b)
            sendBatch(Array(ids[i..<end]), rule: rule)
            i = end
        }
    }

    /// Where the batch starting at `ids[i]` ends: at most `most` requests, and
    /// under a byte cap (`and B`) as many as fit in B, at least one.
    func batchEnd(_ ids: [Int32], from i: Int, _ b: BatchRule) -> Int {
        let end = min(i + b.most, ids.count)
        guard let cap = b.bytes else { return end }
        var used = size(of: ids[i]), j = i + 1
        while j < end {
            let s = size(of: ids[j])
            if used + s > cap { break }
            used += s
            j += 1
        }
        return j
    }

    /// A request's bytes (the batch's byte cap): `request.size` and, for each
    /// attribute, its key and value with the JSON around them (`"key":"value",`),
    /// and 40 for a value and currency. An assumption: requests have no other size in the model.
    func size(of id: Int32) -> Int {
        var n = settings.requestSize
        if requests[Int(id) - 1].hasValue { n += 40 }
        for a in extras.attributes(id) { n += a.key.utf8.count + a.value.utf8.count + 6 }
        return n
    }

    /// The bytes of a batch's members.
    func bytes(of members: [Int32]) -> Int { members.reduce(0) { $0 + size(of: $1) } }

    /// Every waiting request, oldest first (too old ones dropped, `expire after`).
    mutating func takeWaiting() -> [Int32] {
        var out: [Int32] = []
        while let id = queuedHeap.pop() {
            let s = request(id).state
            if (s == .queued || s == .pending) && out.last != id { out.append(id) }
        }
        guard let e = spec.policy.expiry else { return out }
        return out.filter { !expired($0, e) }
    }

    /// A resend (launch, network, getInstance) of a batching profile: a flush.
    mutating func resendInBatches(_ ids: [Int32], rule: RuleID) {
        for id in ids { queuedHeap.push(id) }
        flushBatches(rule: rule)
    }

    /// One batch goes on the wire: every member's attempt, one answer drawn for
    /// it (its oldest member's, LAT, ANS, TMO, NET). `again`: a retry of batch `again`.
    mutating func sendBatch(_ members: [Int32], rule: RuleID, again: Int32 = 0) {
        // A pause or a mute in force (`retry-after`, Policy/RetryAfter.swift): one comparison otherwise.
        var members = members
        if now < retryAfterState.holdUntil {
            guard let going = batchHeldByRetryAfter(members, rule: rule, again: again) else { return }
            members = going
        }
        let n: Int32
        if again > 0 {
            n = again
            batches[Int(n) - 1].members = members
        } else {
            batches.append(Batch(members: members))
            n = Int32(batches.count)
        }
        batches[Int(n) - 1].generation &+= 1
        batches[Int(n) - 1].phase = .inFlight
        if spec.policy.batch?.headOfLine == true { batchBlocking = n }
        let count = Int32(clamping: members.count)
        log(.sdk, .batchSent(batch: n, count: count), request: members[0], rule: rule) {
            "batch \(n)" + (again > 0 ? " again: " : ": ") + (count == 1 ? "1 request" : "\(count) requests")
                + (count == 1 ? " (\($0.label(members[0])))" : " (#\(members[0]) … #\(members[members.count - 1]))")
                + ($0.spec.policy.batch?.bytes == nil ? "" : ", \($0.bytes(of: members)) bytes")
        }
        for m in members {
            update(m) { r in
                if r.attempts < .max { r.attempts += 1 }
                if r.budgetUsed < .max { r.budgetUsed += 1 }
                r.generation &+= 1
            }
            batchOf[Int(m) - 1] = n
            move(m, to: .inFlight, rule: rule)
            if requests[Int(m) - 1].saved { store.attempted(id: m, attempts: requests[Int(m) - 1].attempts) }
        }
        guard online else {
            // NET: fails at once as a transport error; it was made, so it counts.
            return batchFinished(n, .offline)
        }
        let leader = members[0]
        let attempts = requests[Int(leader) - 1].attempts
        var answer: Answer
        if plans.isPlain {
            answer = plans.all.base.take()
        } else if let names = spec.policy.batch?.names {
            answer = answerNaming(members, status: names.status, batch: n)
        } else {
            answer = takeTargeted(leader, attempt: attempts)
        }
        admission.sends &+= 1
        if admission.active { answer = admitted(answer) }
        let latency = settings.latency(ofAttempt: attempts, request: leader), timeout = settings.timeout
        batches[Int(n) - 1].answer = answer
        batches[Int(n) - 1].outlastsTimeout = timeout < latency
        for m in members {
            update(m) { r in
                r.plannedAnswer = answer
                r.outlastsTimeout = timeout < latency
            }
        }
        if case .retryAfter(_, let header) = answer { for m in members { noteRetryAfter(m, header) } }
        let (half, answerAfter, reaches) = Simulation.timing(answer, latency: latency, timeout: timeout)
        if reaches { scheduleBatch(.batchReach, n, at: VirtualTime.later(now, by: half)) }
        scheduleBatch(.batchAnswer, n, at: VirtualTime.later(now, by: answerAfter))
        // In the background, the batch is cancelled at the limit (Lifecycle.swift).
        if appState.inBackground { attemptStartedInBackground(members[0]) }
    }

    /// A batch's answer under `batch names STATUS`: each member's own plan (its
    /// name's, its kind's) is asked; those answering STATUS are named at fault and
    /// the batch is answered STATUS. With none named, the oldest member's answer
    /// (its own plan's, or the plan for every request's). Members' own answers
    /// other than STATUS are used up and not heard: one answer per batch.
    mutating func answerNaming(_ members: [Int32], status: Int, batch n: Int32) -> Answer {
        var named: [Int32] = [], first: Answer?, lead: Answer?
        for (k, m) in members.enumerated() {
            let own = takeOwnTargeted(m, attempt: requests[Int(m) - 1].attempts)
            if let a = own, a.withoutRetryAfter == .status(status) {
                named.append(m)
                if first == nil { first = a }
            }
            if k == 0 { lead = own }
        }
        batches[Int(n) - 1].named = named
        if let first { return first }
        return lead ?? takeAllTargeted(members[0], attempt: requests[Int(members[0]) - 1].attempts)
    }

    mutating func scheduleBatch(_ kind: DueTimer.Kind, _ n: Int32, at time: Millis) {
        timerSeq &+= 1
        timers.push(
            DueTimer(time: time, seq: timerSeq, kind: kind, request: n, generation: batches[Int(n) - 1].generation))
    }

    @inline(__always)
    func batchTimerIsCurrent(_ t: DueTimer) -> Bool {
        let b = batches[Int(t.request) - 1]
        guard b.generation == t.generation else { return false }
        return t.kind == .batchRetry ? b.phase == .retrying : b.phase == .inFlight
    }

    /// The members of batch `n` still in `state` (a purge, a quit or an eviction may have taken some).
    func members(of n: Int32, in state: RequestState) -> [Int32] {
        batches[Int(n) - 1].members.filter { request($0).state == state && batchOf[Int($0) - 1] == n }
    }

    /// A batch's attempt reached the backend: every member is received.
    mutating func batchReached(_ n: Int32) {
        backend.countBatch()
        for m in members(of: n, in: .inFlight) { reachBackend(m) }
    }

    /// A batch's answer arrived (or its attempt timed out).
    mutating func batchAnswered(_ n: Int32) {
        let b = batches[Int(n) - 1]
        let outcome: Outcome
        switch b.answer {
        case .timeout, .lost: outcome = .timeout
        case _ where b.outlastsTimeout: outcome = .timeout
        case .ok: outcome = .http(200)
        case .status(let s), .retryAfter(let s, _): outcome = .http(s)
        case .partial: outcome = .partial
        case .reset: outcome = .reset
        }
        batchFinished(n, outcome)
    }

    /// A batched request's attempt ended on its own (the network went off, `goOffline`): its whole batch's did.
    mutating func batchMemberFinished(_ id: Int32, _ outcome: Outcome) {
        let n = batchOf[Int(id) - 1]
        guard n > 0, batches[Int(n) - 1].phase == .inFlight else { return }
        batchFinished(n, outcome)
    }

    /// Batch `n`'s attempt ended with `outcome`: what the answer table says, for
    /// every member at once. A retry keeps the batch together; anything else ends it.
    mutating func batchFinished(_ n: Int32, _ outcome: Outcome) {
        // `offline self` counts the batch's attempt once, after its answer was acted on (Offline.swift).
        defer { if let s = spec.policy.selfOffline { countedForSelfOffline(outcome, s) } }
        let ms = members(of: n, in: .inFlight)
        batches[Int(n) - 1].generation &+= 1
        guard let lead = ms.first, let rule = spec.policy.batch else {
            endBatch(n)
            return
        }
        for m in ms { requests[Int(m) - 1].lastOutcome = outcome }
        let r = request(lead)
        let resp = spec.response(outcome, planned: r.plannedAnswer)
        if let s = rule.split, ms.count > 1, outcome.httpStatus == s.status {
            return splitBatch(n, ms, outcome, rule: s.rule)
        }
        if let nm = rule.names, outcome.httpStatus == nm.status {
            let named = batches[Int(n) - 1].named.filter { batchOf[Int($0) - 1] == n && request($0).state == .inFlight }
            if !named.isEmpty { return namedInBatch(n, ms, named, outcome, nm.rule) }
        }
        if let ra = spec.policy.retryAfter, batchAnsweredWithRetryAfter(n, ms, outcome, resp, ra) { return }
        switch resp.action {
        case .stall:
            // The upload waits for good: its members stay on the wire, nothing else goes.
            batches[Int(n) - 1].phase = .stalled
            batchStalled = true
            log(.sdk, .batchStalled(batch: n), request: lead, rule: resp.rule) { _ in
                "batch \(n) stalled after \(outcome.word): no answer will come, uploads stop until the app closes"
            }
            return
        case .retry:
            if Int(r.budgetUsed) < settings.retryAttempts || settings.retryUnlimited,
                var wait = resp.wait >= 0 ? resp.wait : retryWait(lead)
            {
                // `retry-after floor|replace`: the lead's answer's header (Policy/RetryAfter.swift).
                var waitRule = resp.rule
                if spec.policy.retryAfter != nil {
                    (wait, waitRule) = retryAfterAdjusted(lead, outcome, wait: wait, rule: waitRule)
                }
                let at = VirtualTime.later(now, by: wait)
                for m in ms {
                    move(m, to: .retrying, rule: waitRule, outcome: outcome)
                    requests[Int(m) - 1].nextAttemptAt = at
                }
                batches[Int(n) - 1].phase = .retrying
                scheduleBatch(.batchRetry, n, at: at)
                return
            }
            for m in ms { exhausted(m, outcome: outcome, attempts: request(m).budgetUsed, answerRule: resp.rule) }
            if let dq = rule.dropsQueue { dropQueue(rule: dq, outcome: outcome) }
        default:
            for m in ms { answered(m, outcome, resp, request(m)) }
        }
        endBatch(n, stopsFlush: resp.action == .queue || resp.action == .retry)
    }

    /// A 413 (`batch split`): the members go back and out again at once in two
    /// halves, new batches; the attempt is not counted against their budget.
    mutating func splitBatch(_ n: Int32, _ ms: [Int32], _ outcome: Outcome, rule: RuleID) {
        for m in ms {
            update(m) { r in if r.budgetUsed > 0 { r.budgetUsed -= 1 } }
            move(m, to: .pending, rule: rule, outcome: outcome)
            batchOf[Int(m) - 1] = 0
        }
        batches[Int(n) - 1].phase = .over
        if batchBlocking == n { batchBlocking = 0 }
        let half = (ms.count + 1) / 2
        log(.sdk, .batchSplit(batch: n), request: ms[0], rule: rule) { _ in
            "batch \(n) split in two (\(half) + \(ms.count - half) requests) after \(outcome.word)"
        }
        let first = Array(ms[..<half]), second = Array(ms[half...])
        if spec.policy.batch?.headOfLine == true {
            // One at a time: the second half waits its turn at the front of the queue.
            for m in second { queuedHeap.push(m) }
            batchFlushing = true
            batchFlushRule = rule
            sendBatch(first, rule: rule)
        } else {
            sendBatch(first, rule: rule)
            sendBatch(second, rule: rule)
        }
    }

    /// `batch names STATUS`: the answer named some members at fault. Those are
    /// dropped `rejected`; the others go back to the queue for the next flush, the
    /// attempt not counted against their budget (Amplitude's 400 re-queues them).
    mutating func namedInBatch(
        _ n: Int32, _ ms: [Int32], _ named: [Int32], _ outcome: Outcome, _ rule: RuleID
    ) {
        let rest = ms.filter { !named.contains($0) }
        let (nc, rc) = (Int32(clamping: named.count), Int32(clamping: rest.count))
        log(.sdk, .batchNamed(batch: n, count: nc), request: named[0], rule: rule) { s in
            "batch \(n): the \(outcome.word) names "
                + (nc == 1
                    ? s.label(named[0])
                    : "\(nc) requests (" + named.prefix(3).map { "#\($0)" }.joined(separator: ", ")
                        + (nc > 3 ? ", …)" : ")"))
                + " at fault"
                + (rc == 0
                    ? ""
                    : rc == 1 ? "; the other one goes back to the queue" : "; the other \(rc) go back to the queue")
        }
        for m in named {
            drop(
                m, reason: .rejected, rule: rule, outcome: outcome, attempts: request(m).budgetUsed,
                key: .completionDropped)
        }
        for m in rest {
            update(m) { r in if r.budgetUsed > 0 { r.budgetUsed -= 1 } }
            move(m, to: .queued, rule: rule, outcome: outcome)
            queuedHeap.push(m)
        }
        endBatch(n, stopsFlush: true)
    }

    /// A batch is over (delivered, dropped, queued or exhausted): under
    /// head-of-line the flush goes on with what waits, unless the batch failed.
    mutating func endBatch(_ n: Int32, stopsFlush: Bool = false) {
        batches[Int(n) - 1].phase = .over
        for m in batches[Int(n) - 1].members where batchOf[Int(m) - 1] == n { batchOf[Int(m) - 1] = 0 }
        guard batchBlocking == n else { return }
        batchBlocking = 0
        if stopsFlush { batchFlushing = false }
        if batchFlushing { flushBatches(rule: batchFlushRule) }
    }

    /// A batch's backoff ended: its members still waiting go out again together
    /// (held offline, they wait queued instead; too old ones are dropped).
    mutating func batchRetryDue(_ n: Int32) {
        var ms = members(of: n, in: .retrying)
        for m in ms { requests[Int(m) - 1].nextAttemptAt = -1 }
        if let e = spec.policy.expiry { ms = ms.filter { !expired($0, e) } }
        guard !ms.isEmpty else { return endBatch(n) }
        if let hold = heldNow {
            for m in ms { move(m, to: .queued, rule: hold) }
            return endBatch(n, stopsFlush: true)
        }
        sendBatch(ms, rule: requests[Int(ms[0]) - 1].rule, again: n)
    }

    /// `batch exhausted drops queue`: every request waiting (pending, queued,
    /// retrying) is dropped `exhausted` too.
    mutating func dropQueue(rule: RuleID, outcome: Outcome) {
        var ids: [Int32] = []
        for s in [RequestState.pending, .queued, .retrying] { ids += liveSets[Int(s.rawValue)] }
        ids.sort()
        guard !ids.isEmpty else { return }
        let count = Int32(clamping: ids.count)
        log(.sdk, .queueDropped(count: count), request: -1, rule: rule) { _ in
            "queue dropped: \(count == 1 ? "1 request" : "\(count) requests") waiting, after a batch ran out of attempts"
        }
        for id in ids {
            drop(
                id, reason: .exhausted, rule: rule, outcome: .none, attempts: request(id).budgetUsed,
                key: .completionExhausted)
        }
        for i in batches.indices where batches[i].phase == .retrying {
            batches[i].phase = .over
            batches[i].generation &+= 1
        }
    }

    /// The app closes: every batch under way is over (its members learn their fate one by one).
    mutating func closeBatches() {
        for i in batches.indices where batches[i].phase != .over {
            batches[i].phase = .over
            batches[i].generation &+= 1
        }
        batchBlocking = 0
        batchFlushing = false
        batchStalled = false
        batchNewCount = 0
        batchTickAt = .max
    }

    /// The interval's flushes start at a launch.
    mutating func batchLaunched() {
        guard let every = spec.policy.batch?.every else { return }
        batchTickAt = VirtualTime.later(now, by: every)
    }

    /// The interval's flush is due (the clock is there): what waits goes. An
    /// interval with nothing waiting skips to the last one before `limit`.
    mutating func batchTick(through limit: Millis) {
        guard let b = spec.policy.batch, let every = b.every else {
            batchTickAt = .max
            return
        }
        // The interval is suspended while the app is in the background (Lifecycle.swift).
        if waitingCount > 0 && batchBlocking == 0 && !batchStalled && heldNow == nil && !appState.inBackground {
            log(.sdk, .batchInterval, request: -1, rule: b.rule) { s in
                "interval flush (every \(VirtualTime.duration(every))): \(s.waitingCount) waiting"
            }
            flushBatches(rule: b.rule)
            batchTickAt = VirtualTime.later(now, by: every)
            return
        }
        // Nothing can go, and only a timer, a flap or a line can change that: the flushes until then do nothing.
        let until = min(limit, timers.first?.time ?? limit, flapNext)
        let skip = until > now ? (until - now) / every : 0
        batchTickAt = VirtualTime.later(now, by: every * max(1, skip))
        if batchTickAt <= now { batchTickAt = VirtualTime.later(now, by: every) }
    }
}

extension Batching {
    /// What docs/profiles.md says of `batch` (its "Statements" section is made from it).
    static let doc: [StatementDoc] = [
        StatementDoc(
            headings: [
                "`batch up to N [and SIZE] [when M waiting|new] [every D] [head-of-line] rule R` · `batch split STATUS rule R` · `batch exhausted drops queue rule R` · `batch names STATUS rule R` · `batch none`"
            ],
            text: """
                Requests go out together. A new request waits `pending` in the SDK's queue
                (saved now under `save at create`) until a **flush** takes it; a flush sends what
                waits (the pending and queued requests), oldest first, in batches of at most `N`
                (1 to 10000), each batch one attempt, citing `R`. A flush starts:

                - when `M` requests wait (`when M waiting`, the queue's depth: PostHog's
                  `flushAt`), or when `M` requests have been made since the last flush (`when M
                  new`: Segment's and Amplitude's counters, which every flush resets); without
                  `when`, `N` waiting;
                - every `D` from the launch (`every D`), when anything waits: `flushInterval`;
                - when a resend would send the queue: `resend on launch`, `resend on network`,
                  `getinstance`, citing the resend's rule.

                - `and SIZE`: a batch also holds at most `SIZE` bytes (`475KB`, `500000`, `1MB`;
                  KB is 1000 bytes, as the SDKs write their limits): it takes requests oldest
                  first while they fit, and a request bigger than `SIZE` goes alone. A request's
                  size is the setting `request.size` (default `1KB`, the bytes of an event
                  without attributes; it exists on profiles with a byte cap) plus, for each
                  attribute, its key and value and 6 for the JSON around them, plus 40 for a
                  `value=` and its currency. Requests have no other size in the model: an
                  assumption. The batch's log line says its bytes.

                One answer applies to the whole batch (the one its oldest request would get:
                a `server ... for NAME` plan counts when that request leads the batch), and its
                attempt counts for every request in it. The answer table says what it does to
                each: delivered, dropped, queued (back in the queue for the next flush, in a new
                batch: Segment's "kept and retried at the next flush") or retried: the batch
                keeps its members and waits one backoff, drawn for its oldest request, then goes
                out again whole. When its budget ends, `on exhausted` applies to each member.

                - `head-of-line`: one batch at a time. While a batch is on the wire or waits to
                  retry nothing else goes; when it is delivered or dropped the flush goes on with
                  what waits; when it is queued or exhausted the flush stops until the next
                  trigger (Rudder's new SDKs, Mixpanel). Without it, a flush sends all its
                  batches side by side.
                - `batch split STATUS rule R`: a batch of two or more answered `STATUS` (413) is
                  split in two halves (`in-flight → pending` citing `R`), sent again at once as
                  new batches; that attempt is not counted against their budget (PostHog halves
                  the batch, Amplitude splits the file). A batch of one answered `STATUS` gets
                  what the answer table says.
                - `batch names STATUS rule R`: an answer `STATUS` (400) can name the requests at
                  fault, as Amplitude's names invalid events: each member's own plan (`server
                  400 for NAME`, `server 400 for kind:KIND`) is asked when the batch goes out,
                  and if any answers `STATUS` the batch is answered `STATUS` naming them. Those
                  are dropped `rejected` and the others go back to the queue (`in-flight →
                  queued`), for the next flush, that attempt not counted against their budget;
                  both cite `R`. A `STATUS` naming none (`server 400` for every request: a bad
                  key) gets what the answer table says, for the whole batch. A member's own
                  answer other than `STATUS` is used up and not heard: one answer per batch.
                - `batch exhausted drops queue rule R`: when a batch's budget ends, every request
                  waiting (pending, queued, retrying) is dropped `exhausted` too, citing `R`
                  (PostHog's `dropAllQueuedRecords`).
                - `on CLASS stall`: the answer table's action for an upload that never
                  returns (Rudder v1's upload thread waiting for ever offline; Rudder's new SDKs
                  stopping at a 401): the batch stays on the wire, and nothing more goes
                  (no flush, no retry) until the app closes, when its members become what a quit
                  makes of a request on the wire.
                - `batch none` removes a base's batching.

                Every transition of a request while it is in a batch carries the batch's number:
                the text timeline ends the line with `batch N`, JSONL has `"batch": N`, and a log
                line says each batch sent (`batch 3: 20 requests sent (#41 … #60)`). The backend
                counts batches as well as requests. The interval's flushes keep a run going only
                while something waits and the network is on. `batch` cannot be combined with the
                flush or consent-gate components.
                """,
            example: """
                profile batched
                base ios
                rule B-1 "Events go out in batches of at most 50, when 20 wait or every 30 seconds."
                batch up to 50 when 20 waiting every 30s rule B-1
                """)
    ]
}
