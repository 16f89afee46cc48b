/// What a request does while the device is offline (`offline fail`, the
/// default: attempts fail at once as `offline`, NET; `offline hold rule ID`:
/// nothing is sent, requests wait queued and saved until a resend), and an SDK
/// that marks itself offline after failures (`offline self after N failures
/// [or transport] rule ID`, Amplitude-Swift) until the network returns or the
/// app launches again (docs/DECISIONS.md D321).

/// What a request does while the network is off.
public enum OfflineMode: Equatable, Sendable {
    /// Attempts are made and fail at once as `offline` (NET).
    case fail
    /// Nothing is sent: requests wait queued and go out when a resend says so.
    case hold(RuleID)
}

/// `offline self after N failures [or transport] rule ID`: the SDK marks
/// itself offline after `failures` failed attempts in a row (any request's;
/// a success starts the count again), or at once on a transport failure
/// (`orTransport`), and then sends nothing until the network returns or the
/// app launches again.
public struct SelfOfflineRule: Equatable, Sendable {
    public let failures: Int32
    public let orTransport: Bool
    public let rule: RuleID
}

/// What a run knows of `offline self`: the failed attempts in a row and whether it is marked.
public struct SelfOfflineState: Equatable, Sendable {
    /// Failed attempts since the last success (or launch, or the mark clearing).
    public internal(set) var failures: Int32 = 0
    /// The SDK holds everything as if offline.
    public internal(set) var marked = false
}

enum Offline {
    /// The most failures `offline self after N failures` counts to.
    static let maxFailures = 1_000_000

    static let selfForm = "offline self after N failures [or transport] rule ID"

    static let statement: Statement = Statement(
        keyword: "offline", forms: ["offline fail", "offline hold rule ID", selfForm, "offline self none"],
        file: "Policy/Offline.swift", doc: doc
    ) { p, n, w in
        if w.count >= 2 && w[1] == "self" { return readSelf(&p, n, w) }
        if w.count == 2 && w[1] == "fail" {
            p.d.offline = .fail
        } else if w.count == 4 && w[1] == "hold" && w[2] == "rule" {
            if let r = p.cite(n, w[3]) { p.d.offline = .hold(r) }
        } else {
            p.fail(n, "bad offline line, expected `offline fail` or `offline hold rule ID` (or `\(selfForm)`)")
        }
    }

    /// `offline self after N failures [or transport] rule ID`, `offline self none`.
    static func readSelf(_ p: inout ProfileParser, _ n: Int, _ w: [String]) {
        if w.count == 3 && w[2] == "none" {
            p.d.selfOffline = nil
            return
        }
        let form = "expected `\(selfForm)` or `offline self none`"
        guard w.count == 7 || w.count == 9, w[2] == "after", w[4] == "failures" || w[4] == "failure",
            w[w.count - 2] == "rule"
        else { return p.fail(n, "bad offline self line, " + form) }
        guard let count = Int(w[3]), (1...maxFailures).contains(count) else {
            return p.fail(
                n,
                "bad failure count \(ProfileParser.q(w[3])), expected a whole number from 1 to \(maxFailures)")
        }
        let transport = w.count == 9
        if transport && !(w[5] == "or" && w[6] == "transport") {
            return p.fail(
                n,
                "bad offline self line: \(ProfileParser.q(w[5] + " " + w[6])), " + form
                    + Suggest.hint(w[6], among: ["transport"]))
        }
        guard let r = p.cite(n, w[w.count - 1]) else { return }
        p.d.selfOffline = SelfOfflineRule(failures: Int32(count), orTransport: transport, rule: r)
    }
}

extension Simulation {
    /// The rule requests wait under while held offline (`offline hold`), or nil.
    var holdsOffline: RuleID? {
        if case .hold(let r) = spec.policy.offline { return r }
        return nil
    }

    /// The rule requests wait under now, or nil when they may go out: held
    /// offline with the network off (`offline hold`), marked offline by the
    /// SDK itself (`offline self`), or suspended in the background once its
    /// time is up (`background limit`, Lifecycle.swift).
    @inline(__always)
    var heldNow: RuleID? {
        if !online, let r = holdsOffline { return r }
        if offlineSelf.marked { return spec.policy.selfOffline?.rule }
        if appState.inBackground { return suspendedRule }
        return nil
    }

    /// Whether the SDK has marked itself offline (`offline self`).
    public var markedOffline: Bool { offlineSelf.marked }

    /// Held, a request made now waits queued (and saved, unless `save never`): true when it did.
    mutating func createdOffline(_ id: Int32) -> Bool {
        guard let rule = heldNow else { return false }
        enter(id, .queued, rule: rule)
        if !savesNothing { setSaved(id, true) }
        return true
    }

    /// A backoff ended: the request goes out again, citing the rule it waited
    /// under; held (offline, or marked offline), it waits queued instead.
    mutating func retryDue(_ id: Int32) {
        if let rule = heldNow {
            move(id, to: .queued, rule: rule)
            return
        }
        send(id, rule: requests[Int(id) - 1].rule)
    }

    /// An attempt ended (`offline self`): a success starts the count again; a
    /// failure counts, and the Nth in a row (or a transport failure, with `or
    /// transport`) marks the SDK offline. Called after the answer was acted on.
    mutating func countedForSelfOffline(_ outcome: Outcome, _ s: SelfOfflineRule) {
        if outcome.isSuccess {
            offlineSelf.failures = 0
            return
        }
        if offlineSelf.failures < .max { offlineSelf.failures += 1 }
        guard !offlineSelf.marked else { return }
        let transport = s.orTransport && outcome.isTransportError
        guard transport || offlineSelf.failures >= s.failures else { return }
        offlineSelf.marked = true
        let n = offlineSelf.failures
        log(.sdk, .selfOffline(marked: true), request: -1, rule: s.rule) { _ in
            "SDK marks itself offline: "
                + (transport
                    ? "a transport failure (\(outcome.word))" : "\(n) failed attempt\(n == 1 ? "" : "s") in a row")
                + "; nothing is sent until the network returns or the app launches again"
        }
    }

    /// The network came back (an offline → online change): the mark clears and
    /// every queued request goes out, oldest first, citing the rule (Amplitude's
    /// connectivity plugin clearing `offline` and flushing). True when it was marked.
    mutating func clearSelfOfflineOnNetwork() -> Bool {
        guard offlineSelf.marked, let s = spec.policy.selfOffline else { return false }
        offlineSelf = SelfOfflineState()
        // Suspended in the background, what is queued waits for the foreground (Lifecycle.swift).
        if spec.policy.batch != nil {
            // Batched: what waits goes in batches (Batching.swift).
            let n = waitingCount
            log(.sdk, .selfOffline(marked: false), request: -1, rule: s.rule) { _ in
                "SDK no longer offline: the network returned; sending \(n) waiting"
            }
            if heldNow == nil { flushBatches(rule: s.rule) }
            return true
        }
        let ids = heldNow == nil ? takeQueued() : []
        let n = ids.count
        log(.sdk, .selfOffline(marked: false), request: -1, rule: s.rule) { _ in
            "SDK no longer offline: the network returned; sending \(n) queued"
        }
        for id in ids { send(id, rule: s.rule) }
        return true
    }

    /// A launch: a new process starts unmarked, with no failures counted.
    mutating func clearSelfOfflineAtLaunch() {
        guard let s = spec.policy.selfOffline else { return }
        let was = offlineSelf.marked
        offlineSelf = SelfOfflineState()
        if was {
            log(.sdk, .selfOffline(marked: false), request: -1, rule: s.rule) { _ in
                "SDK no longer offline: the app launched again"
            }
        }
    }
}

extension Offline {
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let doc: [StatementDoc] = [
        StatementDoc(
            headings: ["`offline fail` · `offline hold rule R`"],
            text: """
                What a request does while the device is offline.

                - `offline fail` (the default): an attempt is made and fails at once with the
                  outcome `offline` (NET), which the [`offline` class](#answer-classes) answers.
                - `offline hold rule R`: nothing is sent and nothing counts as an attempt. A
                  request made offline, or whose retry falls due offline, waits `queued` (saved)
                  citing `R`, until a resend sends it (`resend on network` to send it when the
                  network returns).
                """),
        StatementDoc(
            headings: ["`offline self after N failures [or transport] rule R` · `offline self none`"],
            text: """
                The SDK marks itself offline (Amplitude-Swift: more than `flushMaxRetries`
                failures set `configuration.offline`, and so does a connection error). A failure
                is an attempt of any request that ends other than 2xx or `partial` (an answer,
                a timeout, a lost answer, the network off or lost); a success starts the count
                again. The `N`th failure in a row (1 to 1000000), or with `or transport` any
                failure with no answer (timeout, lost, offline), marks it, once the answer has
                been acted on, with a log line citing `R`.

                While marked, the SDK sends nothing, as under `offline hold` with the network
                off: a request made waits `queued` citing `R` (saved unless `save never`), a
                retry falling due waits `queued` citing `R`, a resend or flush sends nothing, a
                direct request is dropped (`not-saved`). Attempts already on the wire finish.
                The mark clears when the network returns (an offline → online change: every
                queued request then goes out, oldest first, citing `R`, as Amplitude's
                connectivity plugin flushes) or at the next launch (a new process; the launch's
                own resend then runs), each with a log line citing `R`. A quit keeps what
                `save` kept, as always. `offline self none` (the default) removes a base's.
                """,
            example: """
                profile amp-like
                base ios
                rule AMP-OFF "After 7 failed uploads in a row, or a connection error, the SDK marks itself offline until the network returns."
                offline self after 7 failures or transport rule AMP-OFF
                """),
    ]
}
