/// Issue 11's compare: one story played on several profiles. The parts of it
/// that are the model's: why a profile lacks a line, and the compact record of
/// each request's transitions that finds where the profiles part ways.

extension Settings {
    /// Why a profile without setting `key` skips a line setting it.
    public static func lackedReason(_ key: Key) -> String {
        switch key.needs {
        case .always: return "setting '\(key.name)' exists on every profile"
        case .retry: return "setting '\(key.name)' exists only on profiles that retry"
        case .consentGate: return "setting '\(key.name)' exists only on profiles with the consent gate"
        case .batchBytes: return "setting '\(key.name)' exists only on profiles whose batches have a byte cap"
        }
    }
}

/// One transition as a compare sees it: everything but the request's id.
public struct CompareStep: Sendable {
    public let time: Millis
    /// nil when the request was created.
    public let from: RequestState?
    public let to: RequestState
    public let attempt: Int32
    public let outcome: Outcome
    public let reason: DropReason?
    /// Not compared: rule IDs differ by profile for the same behaviour.
    public let rule: RuleID

    /// Whether two profiles did the same thing here: time, from, to, attempt,
    /// outcome and reason (never the rule).
    public func sameAs(_ o: CompareStep) -> Bool {
        time == o.time && from == o.from && to == o.to && attempt == o.attempt && outcome == o.outcome
            && reason == o.reason
    }

    /// The step as the compare report says it, with the rule as `profile` writes it.
    public func text(on profile: Profile) -> String {
        var s = (from?.word ?? "new") + " → " + to.word
        if attempt > 0 { s += " attempt \(attempt)" }
        if !outcome.isNone { s += " " + outcome.word }
        if let reason { s += " " + reason.word }
        return s + " " + profile.rule(rule).id
    }
}

/// Every transition of one run, a few bytes each, in the order they happened
/// (`outbox compare` keeps one per profile instead of the journal, which a
/// streamed run forgets). Each is the request's id, the time since the one
/// before, the states and reason packed (3, 3 and 4 bits), the attempt, the outcome and the rule,
/// as LEB128 numbers: about 7 bytes, against 40 for a `Transition`.
public struct TransitionLog: Sendable {
    private var bytes: [UInt8] = []
    private var lastTime: Millis = 0
    public private(set) var count = 0

    public init() {}

    /// Bytes held.
    public var byteCount: Int { bytes.count }

    public mutating func append(_ t: Transition) {
        put(UInt64(UInt32(bitPattern: t.request)))
        put(zigzag(t.time - lastTime))
        lastTime = t.time
        let from = t.from.map { UInt64($0.rawValue) + 1 } ?? 0
        let reason = t.reason.map { UInt64($0.rawValue) + 1 } ?? 0
        put(from | UInt64(t.to.rawValue) << 3 | reason << 6)
        put(UInt64(UInt32(bitPattern: t.attempt)))
        put(zigzag(Int64(t.outcome.code)))
        bytes.append(t.rule.rawValue)
        count += 1
    }

    /// The transitions of the requests in `ids`, each request's in order.
    public func steps(of ids: Set<Int32>) -> [Int32: [CompareStep]] {
        var out: [Int32: [CompareStep]] = [:]
        guard !ids.isEmpty else { return out }
        var i = 0
        var time: Millis = 0
        func get() -> UInt64 {
            var v: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let b = bytes[i]
                i += 1
                v |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return v }
                shift += 7
            }
        }
        func unzig(_ v: UInt64) -> Int64 { Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1) }
        while i < bytes.count {
            let id = Int32(bitPattern: UInt32(truncatingIfNeeded: get()))
            time += unzig(get())
            let packed = get()
            let attempt = Int32(bitPattern: UInt32(truncatingIfNeeded: get()))
            let outcome = Int16(truncatingIfNeeded: unzig(get()))
            let rule = bytes[i]
            i += 1
            guard ids.contains(id) else { continue }
            let from = packed & 7, reason = packed >> 6 & 15
            out[id, default: []].append(
                CompareStep(
                    time: time, from: from == 0 ? nil : RequestState(rawValue: UInt8(from - 1)),
                    to: RequestState(rawValue: UInt8(packed >> 3 & 7))!, attempt: attempt,
                    outcome: Outcome(code: outcome),
                    reason: reason == 0 ? nil : DropReason(rawValue: UInt8(reason - 1)), rule: RuleID(rawValue: rule)))
        }
        return out
    }

    private func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }

    private mutating func put(_ v: UInt64) {
        var v = v
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }
}

/// Where the profiles' stories of one request part: the first transition, by
/// place in each profile's sequence, that is not the same on all of them.
public struct Divergence: Sendable {
    /// Its place in the sequences (0: the creation).
    public let index: Int
    /// The earliest time among the profiles' transitions at that place.
    public let time: Millis
    /// Per profile: its transition there; nil when it made no such request or
    /// its story had ended.
    public let steps: [CompareStep?]

    /// The first place the sequences differ; nil when they are all made and the same.
    /// `sequences[p]` is nil when profile `p` made no such request.
    public static func find(_ sequences: [[CompareStep]?]) -> Divergence? {
        let longest = sequences.map { $0?.count ?? 0 }.max() ?? 0
        for k in 0..<longest {
            let here = sequences.map { s -> CompareStep? in
                guard let s, k < s.count else { return nil }
                return s[k]
            }
            let first = here.first!
            let same = here.allSatisfy { h in
                guard let h, let first else { return false }
                return h.sameAs(first)
            }
            if !same {
                return Divergence(index: k, time: here.compactMap { $0?.time }.min() ?? 0, steps: here)
            }
        }
        return nil
    }
}

extension RequestMatch.Row {
    /// Whether the runs differ on this request: its state, drop reason,
    /// attempts or saved flag, or some run never made it. Completion is compared
    /// only among the runs whose profile has completion handlers
    /// (`Profile.hasCompletions`: `report completion`, as the built-in ios and
    /// a profile file based on it have); the others call none.
    ///
    /// The one meaning of "differs" (issue 22): `outbox compare` marks such a
    /// row `!` at the end of the runs, and the live compare marks it `≠` and
    /// counts it in `N differ` at the moment shown (docs/scenarios.md, "Compare").
    public func differs(in sims: [Simulation]) -> Bool {
        var first: Request?
        var firstWithCompletion: Request?
        for (run, id) in ids.enumerated() {
            guard let id else { return true }
            let r = sims[run].request(id)
            if let f = first {
                if f.state != r.state || f.reason != r.reason || f.attempts != r.attempts || f.saved != r.saved {
                    return true
                }
            } else {
                first = r
            }
            if sims[run].profile.hasCompletions {
                if let f = firstWithCompletion, f.completion != r.completion { return true }
                firstWithCompletion = firstWithCompletion ?? r
            }
        }
        return false
    }
}
