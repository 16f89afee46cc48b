/// How many requests the SDK keeps and for how long (`keep at most N drop
/// oldest|refuse rule ID`, `expire after DURATION rule ID`): a full queue
/// evicts its oldest waiting request or refuses the new one (`overflow`), and
/// a request older than the limit is dropped when it would next go out or at a
/// launch (`expired`), never sent. Both optional: a profile without them pays
/// one nil check per request made and per retry falling due (docs/DECISIONS.md D295).

/// `keep at most N ...`: the most requests the SDK keeps, and what a full queue does.
public struct CapacityRule: Equatable, Sendable {
    public enum Full: Equatable, Sendable {
        /// The oldest waiting request (queued or retrying) is dropped to make room.
        case dropOldest
        /// The new request is dropped (the Python SDKs' `queue.put` raising `Full`).
        case refuse
    }
    public let most: Int
    public let full: Full
    public let rule: RuleID
}

/// `expire after D rule ID`: a request older than `after` is never sent.
public struct ExpiryRule: Equatable, Sendable {
    public let after: Millis
    public let rule: RuleID
}

enum Capacity {
    /// The largest `keep at most N`: ten times the largest real SDK's (Amplitude
    /// Python's 20 000 buffer), well inside what a run holds.
    static let maxKept = 1_000_000

    static let keepStatement: Statement = Statement(
        keyword: "keep", forms: ["keep at most N drop oldest|refuse rule ID", "keep none"],
        file: "Policy/Capacity.swift", doc: keepDoc
    ) { p, n, w in
        if w.count == 2 && w[1] == "none" {
            p.d.capacity = nil
            return
        }
        let form = keepStatement.expected
        guard w.count >= 4, w[1] == "at", w[2] == "most" else { return p.fail(n, "bad keep line, " + form) }
        guard let most = Int(w[3]), (1...maxKept).contains(most) else {
            return p.fail(
                n, "bad keep count \(ProfileParser.q(w[3])), expected a whole number from 1 to \(maxKept)")
        }
        if w.count >= 6 && w[4] == "drop" && w[5] == "newest" {
            return p.fail(
                n,
                "`drop newest` would drop the request just made, which is `refuse`, expected `keep at most \(most) refuse rule ID`"
            )
        }
        let full: CapacityRule.Full
        if w.count == 8 && w[4] == "drop" && w[5] == "oldest" && w[6] == "rule" {
            full = .dropOldest
        } else if w.count == 7 && w[4] == "refuse" && w[5] == "rule" {
            full = .refuse
        } else {
            return p.fail(n, "bad keep line, " + form)
        }
        guard let r = p.cite(n, w[w.count - 1]) else { return }
        p.d.capacity = CapacityRule(most: most, full: full, rule: r)
    }

    static let expireStatement: Statement = Statement(
        keyword: "expire", forms: ["expire after DURATION rule ID", "expire none"], file: "Policy/Capacity.swift",
        doc: expireDoc
    ) { p, n, w in
        if w.count == 2 && w[1] == "none" {
            p.d.expiry = nil
            return
        }
        guard w.count == 5, w[1] == "after", w[3] == "rule" else {
            return p.fail(n, "bad expire line, " + expireStatement.expected)
        }
        let after: Millis
        switch VirtualTime.parseLimited(w[2]) {
        case .failure(let problem):
            return p.fail(n, "bad expire duration \(ProfileParser.q(w[2])), " + problem.message)
        case .success(let t): after = t
        }
        guard after > 0 else {
            return p.fail(n, "bad expire duration `0`, expected a duration above 0 (`expire none` for no limit)")
        }
        guard let r = p.cite(n, w[4]) else { return }
        p.d.expiry = ExpiryRule(after: after, rule: r)
    }
}

extension Simulation {
    /// A request is made under `keep at most N` (after the consent gate and the
    /// direct kinds, before the offline hold): with N kept already, the oldest
    /// waiting one is dropped, or, under `refuse` or when none waits (every kept
    /// one on the wire or held by the consent gate), the new one. True when the
    /// new one was dropped.
    mutating func createdAtCapacity(_ id: Int32, _ c: CapacityRule) -> Bool {
        guard keptCount >= c.most else { return false }
        if c.full == .dropOldest, let old = oldestWaiting(before: id) {
            move(old, to: .dropped, rule: c.rule, reason: .overflow)
            return false
        }
        enter(id, .dropped, rule: c.rule, reason: .overflow)
        return true
    }

    /// The requests the SDK keeps: every live one (pending, in flight, retrying,
    /// queued, saved or not) but the direct kinds', which are outside the queue.
    var keptCount: Int {
        var n = liveCount
        if spec.policy.directKinds != 0 {
            for s in [RequestState.pending, .inFlight] {
                for id in liveSets[Int(s.rawValue)] where isDirect(request(id).kind) { n -= 1 }
            }
        }
        return n
    }

    /// The oldest (lowest id) queued or retrying request older than `id` (and,
    /// batched, pending: waiting for a flush), or nil.
    /// `capacityFrom` skips for good the ids below it, all final (a final request
    /// never lives again: a restored one gets a new id).
    mutating func oldestWaiting(before id: Int32) -> Int32? {
        var i = Int(capacityFrom)
        let end = Int(id) - 1
        while i < end && requests[i].state.isFinal { i += 1 }
        capacityFrom = Int32(i)
        while i < end {
            let s = requests[i].state
            if s == .queued || s == .retrying || (s == .pending && spec.policy.batch != nil) { return requests[i].id }
            i += 1
        }
        return nil
    }

    /// Drops `id` when it is older than `expire after` allows: true when it did.
    @inline(__always)
    mutating func expired(_ id: Int32, _ e: ExpiryRule) -> Bool {
        guard now - requests[Int(id) - 1].createdAt > e.after else { return false }
        move(id, to: .dropped, rule: e.rule, reason: .expired)
        return true
    }

    /// At a launch, before anything resends: every queued request older than the
    /// limit is dropped, oldest first.
    mutating func expireAtLaunch(_ e: ExpiryRule) {
        for id in liveSets[Int(RequestState.queued.rawValue)].sorted() { _ = expired(id, e) }
    }
}

extension Capacity {
    /// What docs/profiles.md says of `keep` (its "Statements" section is made from it).
    static let keepDoc: [StatementDoc] = [
        StatementDoc(
            headings: ["`keep at most N drop oldest|refuse rule R` · `keep none`"],
            text: """
                The most requests the SDK keeps (`N`, 1 to 1000000), counted when a request is
                made: every live request (pending, in flight, retrying or queued, saved or not)
                but those of `direct` kinds, which are outside the queue. With `N` kept already:

                - `drop oldest`: the oldest waiting request (the lowest id among the queued and
                  retrying ones) is dropped (`overflow`) citing `R`, and the new one goes on as
                  usual (PostHog's "Queue is full, dropping oldest record", Rudder v1's
                  `dbCountThreshold`). One on the wire is never evicted, nor an install the
                  consent gate holds: when nothing else waits, the new request is dropped instead.
                - `refuse`: the new request is dropped (`overflow`) citing `R` at once, never
                  sent or saved: the Python SDKs' `queue.put` raising `Full`, which their docs
                  call dropping the newest. `drop newest` is refused with that hint.

                The check runs after the consent gate and the direct kinds and before the
                offline hold: a request the gate drops, or a direct one, is not counted and
                evicts nothing. An evicted request is gone from the device too; what a quit
                keeps comes back at the next launch and counts again. The app's code hears
                nothing of it (no `onError` line, no completion handler call). The launch
                trims nothing: a store holding more than `N` keeps them until requests are
                made. `keep none` (the default) removes a base's limit.
                """,
            example: """
                profile capped
                base ios
                rule CAP-1 "At most 1000 requests are kept; when full the oldest waiting one is dropped."
                keep at most 1000 drop oldest rule CAP-1
                """)
    ]

    /// What docs/profiles.md says of `expire` (its "Statements" section is made from it).
    static let expireDoc: [StatementDoc] = [
        StatementDoc(
            headings: ["`expire after DURATION rule R` · `expire none`"],
            text: """
                A request older than `DURATION` (from when it was made; a restored one keeps its
                time) is never sent: it is dropped (`expired`) citing `R`, oldest first, when
                it would next go out: its retry falling due, a resend (launch, network,
                getInstance) or the flush reaching it. At a launch every queued request older
                than the limit is dropped before anything resends, also when the launch sends
                nothing (offline with `offline hold`). It is not dropped on a timer of its own:
                one that waits queued with nothing to resend it stays until then (Firebase's
                "data older than 72 hours is ignored"). A request made now is never expired on
                its first attempt, and an install the consent gate holds is not checked.
                `DURATION` is above 0 and at most 100000h. `expire none` (the default) removes
                a base's limit.
                """,
            example: """
                profile ageing
                base android
                rule AGE-1 "A request older than 72 hours is not sent."
                expire after 72h rule AGE-1
                """)
    ]
}
