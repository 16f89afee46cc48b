/// A token-bucket retry budget (`retry-budget P% [bucket N] [rule ID]`, rule
/// BUDGET): the retries a device makes are at most a share of its requests, as
/// Finagle's `RetryBudget`, gRPC's retry throttling and Marc Brooker's 2022
/// retry simulations bound them. A request's first attempt adds P% of a token
/// to the device's bucket (at most N tokens); a retry the answer table asks for
/// takes one token when it is decided; with less than a whole token the retry
/// is not made and the failure stands: the request takes the profile's own
/// `on exhausted` path (dropped `retry-budget`, or queued for a resend), citing
/// the budget's rule. The bucket starts empty and empties at a launch (it is
/// the process's memory), so a device's retries are never more than P% of its
/// first attempts: 1 + P is the load's ceiling however many devices relaunch
/// (docs/DECISIONS.md D360).
///
/// Tokens are counted in whole units of 1/10,000 of a token (P% is P × 100
/// units, two decimals), so the bucket is exact and the same on every
/// platform. A profile without the statement pays one nil check an attempt
/// sent and one a retry decided.

/// A `retry-budget` line other than `none`.
public struct RetryBudgetRule: Equatable, Sendable {
    /// What a request's first attempt adds: the share in basis points (`10%`: 1,000), units of 1/10,000 token.
    public let deposit: Int64
    /// The bucket's size, in tokens.
    public let bucket: Int64
    public let rule: RuleID

    /// One token, in units.
    static let token: Int64 = 10_000
    /// The bucket's size in units.
    var most: Int64 { bucket * RetryBudgetRule.token }

    /// Units as tokens, as the log lines write them (`0.4`, `1`, `2.35`).
    static func tokens(_ units: Int64) -> String {
        let whole = units / token, frac = units % token
        guard frac != 0 else { return String(whole) }
        var f = String(frac)
        while f.count < 4 { f = "0" + f }
        while f.hasSuffix("0") { f.removeLast() }
        return "\(whole).\(f)"
    }
}

enum RetryBudget {
    static let defaultBucket: Int64 = 10
    static let maxBucket: Int64 = 1_000_000

    static let statement: Statement = Statement(
        keyword: "retry-budget", forms: ["retry-budget P% [bucket N] [rule ID]", "retry-budget none"],
        file: "Policy/RetryBudget.swift", doc: doc
    ) { p, n, w in read(&p, n, w) }

    static func read(_ p: inout ProfileParser, _ n: Int, _ w: [String]) {
        let form = statement.expected
        if w.count == 2 && w[1] == "none" {
            p.d.retryBudget = nil
            p.retryBudgetLine = nil
            return
        }
        guard w.count >= 2 else { return p.fail(n, "bad retry-budget line, " + form) }
        guard let bp = ServerRepeat.percent(w[1]), bp > 0 else {
            return p.fail(
                n,
                "bad retry-budget share \(ProfileParser.q(w[1])), expected a share of the requests from 0.01% to 100%"
                    + " with at most two decimals (`retry-budget 10%`)")
        }
        guard
            let o = p.options(
                n, w, from: 2, keys: ["bucket": "a number of tokens", "rule": "a rule ID"], in: "retry-budget",
                form: form)
        else { return }
        var bucket = defaultBucket
        if let word = o["bucket"] {
            guard word.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let b = Int64(word), (1...maxBucket).contains(b)
            else {
                return p.fail(
                    n,
                    "bad retry-budget bucket \(ProfileParser.q(word)), expected a whole number of tokens from 1 to \(maxBucket)"
                )
            }
            bucket = b
        }
        var rule = RuleID.budget
        if let id = o["rule"] {
            guard let r = p.cite(n, id) else { return }
            rule = r
        }
        p.d.retryBudget = RetryBudgetRule(deposit: Int64(bp), bucket: bucket, rule: rule)
        p.retryBudgetLine = n
    }

    /// At the end of the file: a budget needs retries to budget, and one request an attempt.
    static func finish(_ p: inout ProfileParser, end: Int) {
        guard p.d.retryBudget != nil else { return }
        let n = p.retryBudgetLine ?? end
        if !Answers.retries(p.d) {
            p.fail(n, "`retry-budget` needs retries to budget, expected an `on CLASS retry` line in the profile")
        }
        if p.d.batch != nil {
            p.fail(
                n,
                "`retry-budget` does not go with `batch` (a batch's retries are not budgeted yet), expected one or the other"
            )
        }
    }
}

extension Simulation {
    /// The tokens in the retry budget's bucket now, or nil without `retry-budget`.
    public var retryBudgetTokens: Double? {
        spec.policy.retryBudget == nil ? nil : Double(retryBudgetUnits) / Double(RetryBudgetRule.token)
    }

    /// A request's first attempt goes out (`send`): it adds its share to the bucket, up to the bucket's size.
    mutating func depositRetryBudget(_ b: RetryBudgetRule) {
        retryBudgetUnits = min(b.most, retryBudgetUnits + b.deposit)
    }

    /// The answer table asks for a retry of `id` (`answered`): with a whole
    /// token, nil (the retry is made, and `spendRetryToken` takes it); without,
    /// the retry is not made: a log line says why, and the failure stands as the
    /// profile's `on exhausted` line says, citing the budget's rule (dropped
    /// `retry-budget`, or queued). Returns true when it was refused.
    mutating func refusedByRetryBudget(_ id: Int32, _ outcome: Outcome, _ r: Request, _ b: RetryBudgetRule) -> Bool {
        guard retryBudgetUnits < RetryBudgetRule.token else { return false }
        let have = RetryBudgetRule.tokens(retryBudgetUnits)
        let share = ServerRepeat.percentText(Int(b.deposit))
        log(.outbox, .note, request: id, rule: b.rule) {
            "retry budget empty: \($0.label(id)) is not retried after \(outcome.word) (\(have) of the 1 token a retry takes; \(share) of first attempts, at most \(b.bucket))"
        }
        exhausted(id, outcome: outcome, attempts: r.budgetUsed, answerRule: b.rule, refusedBy: b.rule)
        return true
    }

    /// A retry was decided: it takes its token.
    mutating func spendRetryToken() {
        retryBudgetUnits -= RetryBudgetRule.token
    }
}

extension RetryBudget {
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let doc: [StatementDoc] = [
        StatementDoc(
            headings: ["`retry-budget P% [bucket N] [rule R]` · `retry-budget none`"],
            text: """
                A token-bucket retry budget (the shared rule BUDGET; Finagle's `RetryBudget`,
                gRPC's retry throttling, Marc Brooker's 2022 retry posts): the device's
                retries are at most P% of its requests, so an outage cannot multiply the
                load by more than about 1 + P.

                - Each request's first attempt adds P% of a token to the device's bucket
                  (`10%`: a tenth), up to `bucket N` tokens (default 10). A resend of a
                  saved request is not a first attempt and adds nothing.
                - A retry the answer table asks for (`on CLASS retry`) takes one token
                  when it is decided, before its wait. With less than a whole token the
                  retry is not made and the failure stands: a log line citing `R` says so
                  (`retry budget empty: #3 'buy' is not retried after 503 (0.4 of the 1
                  token a retry takes; 10% of first attempts, at most 10)`), and the
                  request takes the profile's `on exhausted` path citing `R`: `drop` drops
                  it `retry-budget` (the reason says why, whatever `on exhausted` names),
                  `queue` saves it for the next resend. onError and completion handlers
                  hear it as an exhausted request.
                - The bucket starts empty and empties at each launch: it is the process's
                  memory, and an app relaunched after an outage gets no free retries.
                - The kinds `direct` sends are outside the queue: they neither add nor take.
                - `rule R` is what the refusals cite; without it, BUDGET.

                It needs an `on CLASS retry` line, and does not go with `batch` yet.
                `retry-budget none` removes a base's.
                """,
            example: """
                profile ios-retry-budget
                base ios
                title "iOS with a 10% retry budget (what-if)"
                rule IOSB-1 "A retry takes a token; a request's first attempt adds a tenth; none left: dropped (retry-budget)."
                retry-budget 10% bucket 5 rule IOSB-1
                """)
    ]
}
