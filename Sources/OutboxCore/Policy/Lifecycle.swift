/// The app's lifecycle: the app goes to the background and comes back
/// (`background`, `foreground` scenario actions and the live screen's key),
/// for a profile that declares it (`background rule ID`, `on background flush
/// rule ID`, `background limit DURATION rule ID`): what is queued is sent when
/// the app goes to the background (Segment's `enterBackground() → flush()`,
/// PostHog, Mixpanel's `flushOnBackground`), and a time after it went there
/// the attempts still on the wire are cancelled and the app is suspended
/// until the foreground (iOS's `beginBackgroundTask` expiry). A launch starts
/// in the foreground. docs/DECISIONS.md D323.
///
/// Hooks for other mechanisms: `inBackground` (a flush interval is suspended
/// while it is true), `backgroundFlush()` (what the background sends), and
/// `attemptStartedInBackground(_:)`, which `send` calls for every attempt put
/// on the wire while in the background.

/// What a profile says of the app's lifecycle; nil on a profile without it.
public struct LifecycleRules: Equatable, Sendable {
    /// The rule the `background` and `foreground` log lines cite: the first
    /// lifecycle line's.
    public var rule: RuleID
    /// `on background flush rule R`: the queued requests go out when the app goes to the background.
    public var flush: RuleID?
    /// `background limit D rule R`: `D` after the app went to the background
    /// the attempts on the wire are cancelled and it is suspended, citing `R`.
    public var limit: BackgroundLimit?
}

/// `background limit D rule R`.
public struct BackgroundLimit: Equatable, Sendable {
    public let after: Millis
    public let rule: RuleID
}

/// Where the app is in its lifecycle (the foreground unless a `background` line moved it).
public struct AppLifecycleState: Equatable, Sendable {
    public internal(set) var inBackground = false
    /// When it last went to the background.
    public internal(set) var since: Millis = 0
}

enum Lifecycle {
    static let statement: Statement = Statement(
        keyword: "background",
        forms: ["background rule ID", "background limit DURATION rule ID", "background none"],
        file: "Policy/Lifecycle.swift", doc: doc
    ) { p, n, w in
        if w.count == 2 && w[1] == "none" {
            p.d.lifecycle = nil
            return
        }
        if w.count == 3 && w[1] == "rule" {
            guard let r = p.cite(n, w[2]) else { return }
            declare(&p.d, r)
            return
        }
        guard w.count == 5, w[1] == "limit", w[3] == "rule" else {
            return p.fail(
                n,
                "bad background line, " + statement.expected + " (or `on background flush rule ID`)"
                    + (w.count > 1 ? Suggest.hint(w[1], among: ["rule", "limit", "none"]) : ""))
        }
        let after: Millis
        switch VirtualTime.parseLimited(w[2]) {
        case .failure(let problem):
            return p.fail(n, "bad background limit \(ProfileParser.q(w[2])), " + problem.message)
        case .success(let t): after = t
        }
        guard after > 0 else {
            return p.fail(
                n, "bad background limit `0`, expected a duration above 0 (the time the app has in the background)")
        }
        guard let r = p.cite(n, w[4]) else { return }
        declare(&p.d, r)
        p.d.lifecycle!.limit = BackgroundLimit(after: after, rule: r)
    }

    /// `on background flush rule ID` (an `on` line whose class is `background`, read here).
    static func readOn(_ p: inout ProfileParser, _ n: Int, _ w: [String]) {
        guard w.count == 5, w[2] == "flush", w[3] == "rule" else {
            return p.fail(n, "bad on background line, expected `on background flush rule ID`")
        }
        guard let r = p.cite(n, w[4]) else { return }
        declare(&p.d, r)
        p.d.lifecycle!.flush = r
    }

    /// The profile has the lifecycle; the first line's rule is the one its log lines cite.
    static func declare(_ d: inout ProfilePolicy, _ r: RuleID) {
        if d.lifecycle == nil { d.lifecycle = LifecycleRules(rule: r) }
    }

    /// At the end of the file: a `call background` (a lifecycle event of the
    /// vocabulary, which only logs) would shadow the engine's word.
    static func finish(_ p: inout ProfileParser, end: Int) {
        guard p.d.lifecycle != nil else { return }
        for word in ["background", "foreground"] where p.d.vocabulary.call(word) != nil {
            p.fail(
                end,
                "a `call \(word)` line and the app lifecycle: `\(word)` is then the engine's action, expected no `call \(word)` line"
            )
        }
    }
}

extension Simulation {
    /// Whether the app is in the background (false while it is not running).
    /// A batch interval is suspended while this is true.
    public var inBackground: Bool { appRunning && appState.inBackground }

    /// `background`: the app goes to the background. Already there, a line says so and nothing changes.
    mutating func wentToBackground() {
        guard let l = spec.policy.lifecycle else { return }
        if appState.inBackground {
            log(.outbox, .lifecycleUnchanged(background: true), "app already in the background", rule: l.rule)
            return
        }
        appState.inBackground = true
        appState.since = now
        log(.outbox, .lifecycle(background: true), "app went to the background", rule: l.rule)
        if l.limit != nil {
            for id in liveSets[Int(RequestState.inFlight.rawValue)].sorted() { attemptStartedInBackground(id) }
        }
        if l.flush != nil { backgroundFlush() }
    }

    /// `foreground`: the app comes back. Already there, a line says so and nothing changes.
    mutating func wentToForeground() {
        guard let l = spec.policy.lifecycle else { return }
        guard appState.inBackground else {
            log(.outbox, .lifecycleUnchanged(background: false), "app already in the foreground", rule: l.rule)
            return
        }
        let suspended = suspendedRule
        appState.inBackground = false
        log(.outbox, .lifecycle(background: false), "app came to the foreground", rule: l.rule)
        // Suspended, the SDK's timers resume: what waited goes out now.
        guard let rule = suspended, heldNow == nil else { return }
        if spec.policy.batch != nil {
            // Batched: what waits goes in batches (Batching.swift).
            let n = Int32(clamping: waitingCount)
            if n > 0 {
                log(.sdk, .resend(count: n, trigger: .foreground), request: -1, rule: rule) { _ in
                    "back from suspension: sending \(n) waiting"
                }
            }
            return flushBatches(rule: rule)
        }
        let ids = takeQueued()
        let n = Int32(clamping: ids.count)
        if n > 0 {
            log(.sdk, .resend(count: n, trigger: .foreground), request: -1, rule: rule) { _ in
                "back from suspension: sending \(n) queued"
            }
        }
        for id in ids { send(id, rule: rule) }
    }

    /// The rule of `background limit` once the background time is used up (the
    /// app is suspended: nothing is sent until the foreground), else nil.
    @inline(__always)
    var suspendedRule: RuleID? {
        guard appState.inBackground, let lim = spec.policy.lifecycle?.limit,
            now >= VirtualTime.later(appState.since, by: lim.after)
        else { return nil }
        return lim.rule
    }

    /// `on background flush`: every queued request goes out now, oldest first,
    /// citing the flush rule; held (offline, or marked offline) a line says they
    /// wait. (Batching sends its batches from here.)
    mutating func backgroundFlush() {
        guard let rule = spec.policy.lifecycle?.flush else { return }
        if let hold = heldNow {
            let queued = Int32(clamping: count(.queued))
            if queued > 0 {
                log(.sdk, .resendWaits(count: queued, for: .networkBack), request: -1, rule: hold) { _ in
                    "on background: \(queued) queued wait (the SDK is offline)"
                }
            }
            return
        }
        if spec.policy.batch != nil {
            // Batched: a flush of what waits, in batches (Batching.swift).
            let n = Int32(clamping: waitingCount)
            log(.sdk, .backgroundFlush(count: n), request: -1, rule: rule) { _ in
                "on background: flush, sending \(n) waiting"
            }
            return flushBatches(rule: rule)
        }
        let ids = takeQueued()
        let n = Int32(clamping: ids.count)
        log(.sdk, .backgroundFlush(count: n), request: -1, rule: rule) { _ in
            "on background: flush, sending \(n) queued"
        }
        for id in ids { send(id, rule: rule) }
    }

    /// An attempt is on the wire while the app is in the background (`background
    /// limit`): it is cancelled at the limit (none starts past it: the app is suspended).
    mutating func attemptStartedInBackground(_ id: Int32) {
        guard let lim = spec.policy.lifecycle?.limit, requests[Int(id) - 1].state == .inFlight else { return }
        schedule(.cancel, id, at: max(now, VirtualTime.later(appState.since, by: lim.after)))
    }

    /// The background limit passed with the attempt still on the wire: it is
    /// cancelled, a lost attempt (its answer never comes; if it reached the
    /// backend it was counted there), and the request goes on as after a
    /// transport failure (the `transport` class's action), citing the limit's rule.
    mutating func backgroundTimeUp(_ id: Int32) {
        guard let rule = suspendedRule, let lim = spec.policy.lifecycle?.limit else { return }
        let d = VirtualTime.duration(lim.after)
        if !batchOf.isEmpty && batchOf[Int(id) - 1] != 0 {
            // A batch is cancelled as one: every member does what a transport failure does (Batching.swift).
            let n = batchOf[Int(id) - 1]
            // A stalled batch (`on CLASS stall`) never ends: only a quit does.
            guard batches[Int(n) - 1].phase == .inFlight else { return }
            log(.sdk, .backgroundCancelled, request: id, rule: rule) { _ in
                "background time is up (\(d)): batch \(n) cancelled on the wire"
            }
            return batchMemberFinished(id, .networkLost)
        }
        requests[Int(id) - 1].generation &+= 1
        log(.sdk, .backgroundCancelled, request: id, rule: rule) {
            "background time is up (\(d)): \($0.label(id)) cancelled on the wire"
        }
        let r = request(id)
        if directRule(r.kind) != nil || r.inFlush { return finishAttempt(id, .networkLost) }
        requests[Int(id) - 1].lastOutcome = .networkLost
        let base = spec.response(.networkLost, planned: r.plannedAnswer)
        answered(id, .networkLost, Response(action: base.action, rule: rule, whenSaved: nil), request(id))
        if let s = spec.policy.selfOffline { countedForSelfOffline(.networkLost, s) }
    }

    /// A launch starts in the foreground.
    mutating func lifecycleLaunched() {
        appState = AppLifecycleState()
    }
}

extension Lifecycle {
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let doc: [StatementDoc] = [
        StatementDoc(
            headings: [
                "`background rule R` · `on background flush rule R` · `background limit DURATION rule R` · `background none`"
            ],
            text: """
                The app goes to the background and comes back: any of these lines gives the
                profile the scenario actions `background` and `foreground` (and the live
                screen's `B` key); the first one's `R` is what their log lines cite. A profile
                without them refuses a `background` line, as any action it lacks. A launch
                starts in the foreground; a quit in the background is a quit; `background` in
                the background (or `foreground` in the foreground) writes a line and changes
                nothing.

                - `background rule R`: the app has the lifecycle, and nothing else happens
                  when it moves (a batch interval, where there is one, is suspended while in
                  the background).
                - `on background flush rule R`: when the app goes to the background every
                  queued request goes out at once, oldest first, citing `R` (Segment's
                  `enterBackground() → flush()`, PostHog's flush on `didEnterBackground`,
                  Mixpanel's `flushOnBackground`). Held (offline under `offline hold`, or marked
                  offline by `offline self`), a line says they wait. Requests waiting out a
                  backoff keep waiting.
                - `background limit DURATION rule R`: `DURATION` after the app went to the
                  background its background time is up (iOS ends the `beginBackgroundTask`: the
                  top cause of loss in the complaints). Every attempt still on the wire then,
                  whenever it started, is cancelled: a log line citing `R`, and the request does
                  what the `transport` class says (a retry, the queue, a drop), its transition
                  citing `R` and its outcome `network-lost`. It counts as an attempt; if it had
                  reached the backend, the backend counted it (a retry is then a duplicate).
                  Then the app is suspended until it comes to the foreground: nothing is sent,
                  as under `offline hold` with the network off (a request made waits `queued`, a
                  retry falling due waits `queued`, resends send nothing, each citing `R`).
                  Coming to the foreground after the limit sends every queued request, oldest
                  first, citing `R` (the SDK's timers resume); before it, nothing is cancelled.
                  `DURATION` is above 0 and at most 100000h.
                - `background none` removes a base's lifecycle.

                With `batch` (above):
                the background's flush (and the foreground's after a suspension) is a flush of
                what waits, in batches; the `every D` interval is suspended while the app is in
                the background; a batch on the wire at the limit is cancelled as one, its
                members doing what the `transport` class says and citing its rule.
                """,
            example: """
                profile flushes-on-background
                base ios
                rule BG-1 "When the app goes to the background, the queued requests are sent at once."
                rule BG-2 "An upload still running 30 s after the app went to the background is cancelled."
                on background flush rule BG-1
                background limit 30s rule BG-2
                """)
    ]
}
