/// What an attempt's outcome does, by answer class (`on CLASS deliver|retry|
/// queue|drop REASON [rule ID] [when-saved ID]`, `on exhausted ...`): the
/// answer table, built once per profile, and what each action does.

/// What an answer class does (`on CLASS ACTION`).
public struct Response: Equatable, Sendable {
    public enum Action: Equatable, Sendable {
        case deliver, retry, queue
        /// The SDK waits for good on this attempt (`on CLASS stall`, batched
        /// profiles only, Policy/Batching.swift): nothing more goes until the app closes.
        case stall
        case drop(DropReason)
    }
    public let action: Action
    public let rule: RuleID
    /// `deliver ... when-saved R`: the rule cited when the request was saved (a resend).
    public let whenSaved: RuleID?
    /// `retry wait D`: this class waits D before its retry, whatever the backoff; -1 for the backoff.
    public var wait: Millis = -1
}

/// An `on CLASS` line as written: its rule may be left to the broader class.
struct OnLine: Sendable {
    let action: Response.Action
    let rule: RuleID?
    let whenSaved: RuleID?
    /// `retry wait D`, or -1.
    var wait: Millis = -1
    /// Its line (in the file that wrote it: a `base`'s lines keep theirs).
    let line: Int
}

/// The `on exhausted` line as written: without a rule it cites the answer's.
struct ExhaustedLine: Sendable {
    let action: Response.Action
    let rule: RuleID?
}

/// An answer class of `on CLASS`: one status, a hundred of them, or an outcome
/// that is no status. Read from its word once (`init?(word:)`); the answer table
/// is built from these, never from the words.
enum AnswerClass: Hashable, Sendable {
    /// One HTTP status, 100 to 599 (`on 404`).
    case status(Int)
    /// A hundred of statuses, 1 to 5 (`on 4xx`).
    case hundred(Int)
    case timeout, lost, partial, offline, transport, reset

    /// The class words that are not a status, as the messages list them.
    static let words = [
        "1xx", "2xx", "3xx", "4xx", "5xx", "timeout", "lost", "reset", "partial", "offline", "transport",
    ]

    /// `404`, `4xx`, `timeout`, ...; nil for any other word.
    init?(word w: String) {
        switch w {
        case "timeout": self = .timeout
        case "lost": self = .lost
        case "reset": self = .reset
        case "partial": self = .partial
        case "offline": self = .offline
        case "transport": self = .transport
        case "1xx", "2xx", "3xx", "4xx", "5xx": self = .hundred(Int(w.prefix(1))!)
        default:
            guard AnswerClass.isStatus(w) else { return nil }
            self = .status(Int(w)!)
        }
    }

    /// The class's word, as a profile writes it.
    var word: String {
        switch self {
        case .status(let n): return String(n)
        case .hundred(let h): return String(h) + "xx"
        case .timeout: return "timeout"
        case .lost: return "lost"
        case .reset: return "reset"
        case .partial: return "partial"
        case .offline: return "offline"
        case .transport: return "transport"
        }
    }

    /// The class this one falls back to when it has no `on` line, or nil.
    /// A status falls back to its hundred; 1xx and 3xx to 4xx (RETRYABLE);
    /// reset to lost (the answer never came: `server reset`); lost to timeout;
    /// timeout and offline to transport; partial to 2xx.
    var parent: AnswerClass? {
        switch self {
        case .hundred(1), .hundred(3): return .hundred(4)
        case .reset: return .lost
        case .lost: return .timeout
        case .timeout, .offline: return .transport
        case .partial: return .hundred(2)
        case .hundred, .transport: return nil
        case .status(let n): return .hundred(n / 100)
        }
    }

    /// A success: 2xx, one of its statuses, or partial (only these are delivered).
    var isSuccess: Bool {
        switch self {
        case .hundred(2), .partial: return true
        case .status(let n): return n / 100 == 2
        default: return false
        }
    }

    static func isStatus(_ w: String) -> Bool {
        w.utf8.count == 3 && w.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && (100...599).contains(Int(w) ?? 0)
    }
}

enum Answers {
    static let statement: Statement = Statement(
        keyword: "on", forms: ["on CLASS deliver|retry [wait DURATION]|queue|stall|drop REASON [rule ID]"],
        file: "Policy/Answers.swift",
        doc: doc, fileOf: { w in w.count > 1 && w[1] == "background" ? Lifecycle.statement.file : nil }
    ) { p, n, w in read(&p, n, w) }

    static func read(_ p: inout ProfileParser, _ n: Int, _ w: [String]) {
        // `on background flush rule ID` is the lifecycle's (Lifecycle.swift).
        if w.count >= 2 && w[1] == "background" { return Lifecycle.readOn(&p, n, w) }
        let form = statement.expected
        guard w.count >= 3 else { return p.fail(n, "bad on line, " + form) }
        let cls = w[1]
        var i = 2
        let action: Response.Action
        switch w[i] {
        case "deliver": action = .deliver
        case "retry": action = .retry
        case "queue": action = .queue
        case "stall": action = .stall
        case "drop":
            guard w.count > 3, let reason = DropReason(word: w[3]), DropReason.answerReasons.contains(reason) else {
                let word = w.count > 3 ? w[3] : ""
                return p.fail(
                    n,
                    "bad drop reason \(ProfileParser.q(word)), expected rejected, exhausted or not-saved"
                        + Suggest.hint(word, among: ["rejected", "exhausted", "not-saved"]))
            }
            action = .drop(reason)
            i += 1
        default:
            return p.fail(
                n,
                "unknown answer action \(ProfileParser.q(w[i])), " + form
                    + Suggest.hint(w[i], among: ["deliver", "retry", "queue", "stall", "drop"]))
        }
        i += 1
        var rule: RuleID?
        var whenSaved: RuleID?
        var wait: Millis = -1
        while i < w.count {
            if w[i] == "wait" && action == .retry && wait < 0 {
                guard i + 1 < w.count else {
                    return p.fail(n, "`wait` needs a duration after it (`wait 30s`), " + form)
                }
                switch VirtualTime.parseLimited(w[i + 1]) {
                case .failure(let problem):
                    return p.fail(n, "bad wait \(ProfileParser.q(w[i + 1])), " + problem.message)
                case .success(let t): wait = t
                }
            } else if w[i] == "rule" && i + 1 < w.count {
                rule = p.cite(n, w[i + 1])
                if rule == nil { return }
            } else if w[i] == "when-saved" && i + 1 < w.count && action == .deliver {
                whenSaved = p.cite(n, w[i + 1])
                if whenSaved == nil { return }
            } else if (w[i] == "rule" || w[i] == "when-saved") && i + 1 == w.count {
                return p.fail(n, "`\(w[i])` needs a rule ID after it, " + form)
            } else {
                return p.fail(
                    n,
                    "unexpected \(ProfileParser.q(w[i])), " + form + (action == .deliver ? " [when-saved ID]" : "")
                        + (w[i] == "wait" && action != .retry ? " (`wait` goes with `retry`)" : ""))
            }
            i += 2
        }
        if cls == "exhausted" {
            switch action {
            case .queue, .drop: p.d.exhausted = ExhaustedLine(action: action, rule: rule)
            default: p.fail(n, "bad on exhausted line, expected `on exhausted queue|drop REASON [rule ID]`")
            }
            return
        }
        guard let c = AnswerClass(word: cls) else {
            return p.fail(
                n,
                "unknown answer class \(ProfileParser.q(cls)), expected a status (403), "
                    + AnswerClass.words.joined(separator: ", ") + " or exhausted"
                    + (Suggest.status(cls).map { "; did you mean `\($0)`?" }
                        ?? Suggest.hint(cls, among: AnswerClass.words + ["exhausted"])))
        }
        if action == .deliver && !c.isSuccess {
            return p.fail(n, "`deliver` for \(cls): only a 2xx or partial answer is delivered")
        }
        if c.isSuccess && action != .deliver {
            return p.fail(n, "\(cls) is a success, expected `on \(cls) deliver`")
        }
        p.d.on[c] = OnLine(action: action, rule: rule, whenSaved: whenSaved, wait: wait, line: n)
        p.ownOn.insert(c)
    }

    /// Whether any answer is retried.
    static func retries(_ d: ProfilePolicy) -> Bool { d.on.values.contains { $0.action == .retry } }

    /// At the end of the file: the classes every profile answers, and what
    /// retrying needs (an `on exhausted` line, the retry settings).
    static func finishRequired(_ p: inout ProfileParser, end: Int) {
        for c in [AnswerClass.hundred(2), .hundred(4), .hundred(5), .transport] where p.d.on[c] == nil {
            let cls = c.word
            p.fail(
                end,
                "no `on \(cls)` line, expected what a \(cls) answer does (every profile answers 2xx, 4xx, 5xx and transport)"
            )
        }
        guard retries(p.d) else { return }
        if p.d.exhausted == nil {
            p.fail(
                end,
                "answers are retried but there is no `on exhausted` line, expected `on exhausted queue|drop exhausted`"
            )
        }
        let attempts = p.d.defaults.retryAttempts >= 1 || p.d.defaults.retryUnlimited
        if !attempts || (p.d.defaults.backoff == .ladder && p.d.defaults.retryDelays.isEmpty) {
            p.fail(end, "answers are retried, expected `set retry.attempts N` and `set retry.delays D[,D...]`")
        }
    }

    /// At the end of the file: every `on` line cites a rule, its own or a
    /// broader class's, and `when-saved` means something.
    static func finishRules(_ p: inout ProfileParser, end: Int) {
        let lines = p.d.on.sorted { $0.value.line < $1.value.line }
        for (c, e) in lines where resolvedRule(p.d, c) == nil {
            p.fail(e.line, "`on \(c.word)` cites no rule and no broader class gives one, expected `rule ID` at its end")
        }
        // `when-saved` tells a resend's delivery from a first one: under `save at
        // create` every request is saved when made, so it would be cited on every
        // delivery. Refused (docs/profiles.md, `on CLASS ACTION`).
        guard p.given.contains("save"), p.d.save == .atCreate else { return }
        for (c, e) in lines where e.whenSaved != nil {
            // An `on` line taken from a `base` is named at this file's save line.
            p.fail(
                p.ownOn.contains(c) ? e.line : (p.saveAt ?? end),
                "`on \(c.word)` has `when-saved` under `save at create`: every request is saved when made, so it"
                    + " would be cited on every delivery, expected `save on failure ...` or no `when-saved`")
        }
    }

    /// The rule an `on` line cites, inheriting from its parent class when it names none.
    static func resolvedRule(_ d: ProfilePolicy, _ cls: AnswerClass) -> RuleID? {
        var c: AnswerClass? = cls
        while let k = c {
            if let e = d.on[k], let r = e.rule { return r }
            c = k.parent
        }
        return nil
    }

    /// Slots of the answer table: HTTP statuses 100...599 at 0..<500, then these.
    static let timeoutSlot = 500, lostSlot = 501, offlineSlot = 502, networkLostSlot = 503, partialSlot = 504
    static let resetSlot = 505
    static let tableSize = 506

    /// The answer table of a whole profile: each class's response, and for each
    /// slot the index of the response it takes (its own class's or a broader one's).
    static func table(_ d: ProfilePolicy) -> (responses: [Response], table: [UInt8]) {
        var responses: [Response] = []
        var index: [AnswerClass: UInt8] = [:]
        func slot(_ cls: AnswerClass) -> UInt8 {
            var c: AnswerClass? = cls
            while let k = c {
                if let i = index[k] { return i }
                if let e = d.on[k] {
                    let rule = resolvedRule(d, k) ?? d.createdRule
                    responses.append(Response(action: e.action, rule: rule, whenSaved: e.whenSaved, wait: e.wait))
                    index[k] = UInt8(responses.count - 1)
                    return index[k]!
                }
                c = k.parent
            }
            return 0
        }
        var table = [UInt8](repeating: 0, count: tableSize)
        for s in 100...599 { table[s - 100] = slot(.status(s)) }
        table[timeoutSlot] = slot(.timeout)
        table[lostSlot] = slot(.lost)
        table[offlineSlot] = slot(.offline)
        table[networkLostSlot] = slot(.transport)
        table[partialSlot] = slot(.partial)
        table[resetSlot] = slot(.reset)
        return (responses, table)
    }
}

extension ProfileSpec {
    /// What the profile does with an attempt that ended with `outcome` (`planned`
    /// tells a lost answer from a timeout).
    @inline(__always)
    func response(_ outcome: Outcome, planned: Answer) -> Response {
        let slot: Int
        switch outcome.code {
        case -1: slot = planned == .lost ? Answers.lostSlot : Answers.timeoutSlot
        // Throttled on the device (`throttle`): never sent, as an attempt made offline.
        case -2, -6: slot = Answers.offlineSlot
        case -3: slot = Answers.networkLostSlot
        case -4: slot = Answers.partialSlot
        case -5: slot = Answers.resetSlot
        default: slot = min(max(Int(outcome.code), 100), 599) - 100
        }
        return responses[Int(table[slot])]
    }
}

extension Simulation {
    /// A queued request's attempt ended (not a flush's, not a direct one): what
    /// its answer class says.
    mutating func answered(_ id: Int32, _ outcome: Outcome, _ resp: Response, _ r: Request) {
        switch resp.action {
        case .deliver:
            let rule = r.saved ? resp.whenSaved ?? resp.rule : resp.rule
            move(id, to: .delivered, rule: rule, outcome: outcome)
            if hasCompletions {
                complete(id, .success, .completionDelivered, rule: rule, outcome: outcome, attempts: r.budgetUsed)
            }
            if spec.policy.flush != nil { startFlush(trigger: .success(id)) }
        case .queue:
            queue(id, rule: resp.rule, outcome: outcome, attempts: r.budgetUsed)
        case .retry:
            if Int(r.budgetUsed) < settings.retryAttempts || settings.retryUnlimited {
                // A retry budget without a token (Policy/RetryBudget.swift): the failure stands.
                if let b = spec.policy.retryBudget, refusedByRetryBudget(id, outcome, r, b) { return }
                if retryLater(id, rule: resp.rule, outcome: outcome, wait: resp.wait) {
                    if spec.policy.retryBudget != nil { spendRetryToken() }
                    return
                }
            }
            exhausted(id, outcome: outcome, attempts: r.budgetUsed, answerRule: resp.rule)
        case .drop(let reason):
            drop(id, reason: reason, rule: resp.rule, outcome: outcome, attempts: r.budgetUsed, key: .completionDropped)
        case .stall:
            // Only a batch stalls (`Batching.finish` refuses it elsewhere): its members stay on the wire.
            break
        }
    }

    /// The last attempt of a budget failed (`on exhausted`), or the retry
    /// budget refused a retry (`refusedBy`: its rule, cited instead, and a drop
    /// is `retry-budget`, Policy/RetryBudget.swift).
    mutating func exhausted(
        _ id: Int32, outcome: Outcome, attempts: Int32, answerRule: RuleID, refusedBy: RuleID? = nil
    ) {
        guard let e = spec.exhausted else { return }
        let rule = refusedBy ?? (spec.policy.exhausted?.rule == nil ? answerRule : e.rule)
        switch e.action {
        case .drop(let reason):
            drop(
                id, reason: refusedBy == nil ? reason : .retryBudget, rule: rule, outcome: outcome, attempts: attempts,
                key: refusedBy == nil ? .completionExhausted : .completionDropped)
        default:
            if spec.policy.report == .onError {
                log(.onError, .onError(attempts: attempts, outcome: outcome, kept: true), request: id, rule: rule) {
                    $0.say(.onErrorKept, $0.requestSlots(id, outcome, attempts: attempts, reason: nil))
                }
            }
            queue(id, rule: rule, outcome: outcome, attempts: attempts)
        }
    }
}

extension Answers {
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let doc: [StatementDoc] = [
        StatementDoc(
            headings: ["`on CLASS ACTION [rule R] [when-saved R]`"],
            text: """
                What an attempt's outcome does, by [answer class](#answer-classes). `ACTION` is
                one of:

                | action | the request | for |
                |---|---|---|
                | `deliver` | is delivered | 2xx classes and `partial` only, which must deliver |
                | `retry [wait D]` | waits `retry.delays` (or the `backoff`; with `wait D`, D whatever the backoff: Amplitude's 30 s after a 429, Rudder v1's 1 s after a 400) and goes out again, while its budget of `retry.attempts` lasts; when the last attempt fails, `on exhausted` says what happens | any failure |
                | `queue` | is saved and waits `queued` for a resend (or is dropped `not-saved` when `save on failure` leaves out its kind) | any failure |
                | `drop REASON` | is dropped: `REASON` is `rejected`, `exhausted` or `not-saved` | any failure |
                | `stall` | stays on the wire for good: the SDK waits for an answer that never comes, and sends nothing more until the app closes (a quit keeps it as any request on the wire) | any failure, on a profile with `batch` |

                `rule R` is what the transition cites; without it the line cites the rule of
                the nearest broader class that has one (`on 429 retry` under `on 4xx drop
                rejected rule FL-3` cites FL-3), and a line with no broader rule to take is an
                error. `when-saved R` (on `deliver` only) is cited instead when the delivered
                request had been saved: a resend (Flutter's FL-4). It needs `save on failure`:
                under `save at create` every request is saved when it is made, so the rule would
                be cited on every delivery, and the profile is refused (`` `on 2xx` has
                `when-saved` under `save at create` ``, at the `on` line, or at the save line
                when the `on` line comes from a `base`).

                A request sent by the [flush](#components) gets one attempt: `deliver` cites the
                flush's `send` rule, `retry` or `queue` leaves it queued and ends the flush.
                """),
        StatementDoc(
            headings: ["`on exhausted queue|drop REASON [rule R]`"],
            text: """
                What happens when the last attempt of a budget fails: `queue` (LinkTrail's
                offline queue, LT-5) or `drop exhausted` (iOS, IOS-4). Without `rule`, it cites
                the rule of the answer that ended the budget (after `on 5xx retry rule ACME-2`,
                a 5xx on the last attempt cites ACME-2). Required when anything retries.
                """),
    ]
}
