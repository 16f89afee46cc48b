/// A chance layer of a plan (CHANCE): each attempt gets `answer` with this chance.
public struct ChanceLayer: Equatable, Sendable {
    public let answer: Answer
    /// 0 to 10,000 (`ServerRepeat.chance`).
    public let basisPoints: Int

    /// `503 30%`.
    public var text: String { answer.word + " " + ServerRepeat.percentText(basisPoints) }
}

/// The plan of one target (every request, a name or a kind): a base plan (the
/// contract's `xN` / `always`) and chance layers over it, newest on top.
public struct TargetPlan: Equatable, Sendable {
    public internal(set) var base = ServerPlan()
    /// Oldest first; at most one per answer (a new line for an answer replaces its
    /// layer, whatever its Retry-After).
    public internal(set) var chances: [ChanceLayer] = []
    /// `server ok always for NAME`: an ok base that holds (an ok base of the
    /// plan for every request is no plan: it answers ok anyway).
    var holdsOK = false

    /// Nothing of its own: attempts fall through to the plans beneath.
    var isEmpty: Bool { chances.isEmpty && !baseHolds }

    /// The base answers the next attempt (it is not used up).
    var baseHolds: Bool { holdsOK || base.text != "ok" }

    /// `503 30%, else 500 ×2`; `503 ×2`; `ok`.
    public var text: String {
        guard !chances.isEmpty else { return holdsOK ? "ok always" : base.text }
        let layers = chances.reversed().map(\.text).joined(separator: ", ")
        return baseHolds ? layers + ", else " + (holdsOK ? "ok always" : base.text) : layers
    }

    /// Applies a `server` line to this target. A chance line lays (or replaces,
    /// or with 0% removes) its answer's layer; any other line replaces the whole plan.
    mutating func plan(_ answer: Answer, _ rep: ServerRepeat) {
        switch rep {
        case .chance(let bp):
            // One layer per answer, its Retry-After aside: `503 retry-after 2s 30%`
            // replaces `503 30%` (and draws as it did: the salt is the status).
            chances.removeAll { $0.answer.code == answer.code }
            if bp > 0 { chances.append(ChanceLayer(answer: answer, basisPoints: bp)) }
        case .always where answer == .ok:
            self = TargetPlan()
            holdsOK = true
        default:
            self = TargetPlan()
            base = ServerPlan(answer, rep)
        }
    }

    /// The answer for one attempt, or nil to fall through: the layers draw,
    /// newest first, each its own draw (`draw(salt)`); then the base, used up
    /// only when it answers.
    mutating func take(level: UInt64, draw: (UInt64) -> UInt64) -> Answer? {
        for layer in chances.reversed() {
            let salt = level << 40 ^ UInt64(UInt16(bitPattern: Int16(layer.answer.code)))
            if Int(draw(salt) % 10_000) < layer.basisPoints { return layer.answer }
        }
        if holdsOK { return .ok }
        guard base.text != "ok" else { return nil }
        return base.take()
    }
}

/// Everything the backend is planned to answer: the plan for every request (the
/// contract's), and plans for names and kinds (TARGET), each with its chance
/// layers (CHANCE). An attempt takes its answer from its name's plan, then its
/// kind's, then the plan for every request; a plan used up falls through.
public struct ServerPlans: Equatable, Sendable {
    public internal(set) var all = TargetPlan()
    /// By request kind (`RequestKind.rawValue`); empty until a kind is planned.
    var kinds: [TargetPlan] = []
    /// The kinds' words (the profile's vocabulary), set when a kind is first planned.
    var kindWords: [String] = []
    /// By request name, in the order first planned. A plan that empties stays
    /// (empty) in its place: `nameIndex` finds a name in O(1), so a file of
    /// 10^5 `for` lines plans in linear time, and an attempt looks up its name once.
    var names: [(name: String, plan: TargetPlan)] = []
    var nameIndex: [String: Int] = [:]
    /// How many of `names` have a plan (are not empty).
    var plannedNames = 0
    /// No name before this index of `names` has a plan: the header finds the
    /// first planned name without going over the rest (`headerText`, each frame).
    var firstPlannedName = 0
    /// No chance layer and no target: an attempt takes `all.base` (the hot path).
    public private(set) var isPlain = true

    public init() {}

    /// The names with a plan, in the order first planned.
    var namePlans: [(name: String, plan: TargetPlan)] { names.filter { !$0.plan.isEmpty } }

    public static func == (a: ServerPlans, b: ServerPlans) -> Bool {
        let (x, y) = (a.namePlans, b.namePlans)
        return a.all == b.all && a.kinds == b.kinds && x.map(\.name) == y.map(\.name) && x.map(\.plan) == y.map(\.plan)
    }

    /// The targeted plans in force, names first (in the order planned), then kinds.
    public var targeted: [(target: ServerTarget, plan: TargetPlan)] {
        var out = namePlans.map { (ServerTarget.name($0.name), $0.plan) }
        for (i, p) in kinds.enumerated() where !p.isEmpty { out.append((.kind(kindWords[i]), p)) }
        return out
    }

    /// The first `n` of `targeted`, going over no more names than it takes (a
    /// pane shows a few rows of 10^5 plans).
    public func targeted(first n: Int) -> [(target: ServerTarget, plan: TargetPlan)] {
        var out: [(target: ServerTarget, plan: TargetPlan)] = []
        var i = firstPlannedName
        while out.count < n && i < names.count {
            if !names[i].plan.isEmpty { out.append((.name(names[i].name), names[i].plan)) }
            i += 1
        }
        for (k, p) in kinds.enumerated() where out.count < n && !p.isEmpty {
            out.append((.kind(kindWords[k]), p))
        }
        return out
    }

    /// The plan of a target (empty when it has none).
    public func plan(for target: ServerTarget) -> TargetPlan {
        switch target {
        case .all: return all
        case .kind(let k):
            return kindWords.firstIndex(of: k).map { $0 < kinds.count ? kinds[$0] : TargetPlan() } ?? TargetPlan()
        case .name(let n): return nameIndex[n].map { names[$0].plan } ?? TargetPlan()
        }
    }

    /// Applies a `server` line read by `ActionSyntax` (`.serverPlanned`) outside
    /// a simulation (`outbox serve`): `vocabulary` names the kinds.
    public mutating func apply(_ answer: Answer, _ rep: ServerRepeat, for target: ServerTarget, vocabulary: Vocabulary)
    {
        plan(answer, rep, for: target, vocabulary: vocabulary)
    }

    /// The answer to attempt `attempt` of request `request` (its name and kind)
    /// outside a simulation (`outbox serve`), drawn as the simulation draws it.
    public mutating func answer(
        kind: RequestKind, name: String, seed: UInt64, request: Int32, attempt: Int32
    ) -> Answer {
        take(kind: kind, name: { name }) {
            Draw.value(seed: seed, request: request, attempt: attempt, salt: Draw.chanceSalt ^ $0)
        }
    }

    /// What the plan for every request and the targeted ones say: `503 ×2; 400 always for bad`.
    public var summary: String {
        ([all.text] + targeted.map { $0.plan.text + " for " + $0.target.label }).joined(separator: "; ")
    }

    /// Applies a `server` line; `vocabulary` names the kinds (the profile's).
    mutating func plan(_ answer: Answer, _ rep: ServerRepeat, for target: ServerTarget, vocabulary: Vocabulary) {
        switch target {
        case .all:
            // `ok always` for every request is no plan: it answers ok anyway.
            if answer == .ok && rep == .always { all = TargetPlan() } else { all.plan(answer, rep) }
        case .kind(let k):
            // A kind the profile does not know is refused before (`Action.lackedCapability`).
            guard let i = vocabulary.kind(k).map({ Int($0.rawValue) }) else { break }
            kindWords = vocabulary.kinds
            if kinds.count < kindWords.count {
                kinds += [TargetPlan](repeating: TargetPlan(), count: kindWords.count - kinds.count)
            }
            kinds[i].plan(answer, rep)
        case .name(let n):
            if let i = nameIndex[n] {
                let had = !names[i].plan.isEmpty
                names[i].plan.plan(answer, rep)
                plannedNames += (names[i].plan.isEmpty ? 0 : 1) - (had ? 1 : 0)
                nameChanged(i)
            } else {
                var p = TargetPlan()
                p.plan(answer, rep)
                if !p.isEmpty {
                    nameIndex[n] = names.count
                    names.append((n, p))
                    plannedNames += 1
                }
            }
        }
        settle()
    }

    /// Keeps `firstPlannedName` true after the plan of `names[i]` changed.
    mutating func nameChanged(_ i: Int) {
        if !names[i].plan.isEmpty {
            firstPlannedName = min(firstPlannedName, i)
        } else if i == firstPlannedName {
            while firstPlannedName < names.count && names[firstPlannedName].plan.isEmpty { firstPlannedName += 1 }
        }
    }

    /// How many targeted plans are in force and the first's label, as `targeted`
    /// has them, without building it: names are counted, not gone over.
    var targetedSummary: (count: Int, first: String?) {
        var first: String?
        var i = firstPlannedName
        while i < names.count {
            if !names[i].plan.isEmpty {
                first = ServerTarget.name(names[i].name).label
                break
            }
            i += 1
        }
        var count = plannedNames
        for (k, p) in kinds.enumerated() where !p.isEmpty {
            count += 1
            if first == nil { first = ServerTarget.kind(kindWords[k]).label }
        }
        return (count, first)
    }

    mutating func settle() {
        if kinds.allSatisfy(\.isEmpty) { kinds = [] }
        isPlain = all.chances.isEmpty && !all.holdsOK && plannedNames == 0 && kinds.isEmpty
    }

    /// The answer of one attempt of a request of `kind` named `name` (read only
    /// when a name is planned); `draw(salt)` is the attempt's draw for a layer.
    mutating func take(kind: RequestKind, name: () -> String, draw: (UInt64) -> UInt64) -> Answer {
        takeOwn(kind: kind, name: name, draw: draw) ?? all.take(level: 0, draw: draw) ?? .ok
    }

    /// The answer of the request's own plans (its name's, then its kind's), or
    /// nil when they have none: a batch's member named at fault (`batch names`).
    mutating func takeOwn(kind: RequestKind, name: () -> String, draw: (UInt64) -> UInt64) -> Answer? {
        if plannedNames > 0, let i = nameIndex[name()], !names[i].plan.isEmpty {
            let a = names[i].plan.take(level: 2, draw: draw)
            if names[i].plan.isEmpty {
                plannedNames -= 1
                nameChanged(i)
                settle()
            }
            if let a { return a }
        }
        if !kinds.isEmpty && Int(kind.rawValue) < kinds.count {
            let k = Int(kind.rawValue)
            let a = kinds[k].take(level: 1, draw: draw)
            if kinds[k].isEmpty { settle() }
            if let a { return a }
        }
        return nil
    }

    /// The log's words for a target's plan after a line: `503 30% for purchase`.
    public func text(for target: ServerTarget) -> String {
        let p = plan(for: target)
        switch target {
        case .all: return p.text
        default:
            return p.isEmpty
                ? "no plan of its own for \(target.label) (the plans beneath answer)"
                : p.text + " for " + target.label
        }
    }

    /// The header's words: the plan for every request, then `+1 for purchase`
    /// (`+3` when `short`, or `+3 for purchase, …` with more than one).
    public func headerText(short: Bool = false) -> String {
        var s = all.text
        let t = targetedSummary
        guard t.count > 0, let first = t.first else { return s }
        if short { return s + " +\(t.count)" }
        s += " +\(t.count) for " + first
        if t.count > 1 { s += ", …" }
        return s
    }
}

extension Answer {
    /// A number per answer, for salts: its status, or a negative code.
    var code: Int {
        switch self {
        case .ok: return 0
        case .status(let s), .retryAfter(let s, _): return s
        case .timeout: return -1
        case .lost: return -2
        case .partial: return -3
        case .reset: return -4
        }
    }
}

/// Seeded draws that depend only on what they are for — the seed, a request,
/// its attempt and a salt per feature — never on how many draws came before,
/// so a replay, a compare column and the live screen draw alike.
enum Draw {
    static let chanceSalt: UInt64 = 0xC4A7_CE00_0000_0000
    static let latencySalt: UInt64 = 0x1A7E_4C70_0000_0000
    /// `throttle`'s draw before each attempt (Policy/Throttle.swift).
    static let throttleSalt: UInt64 = 0x7407_7E00_0000_0000

    @inline(__always)
    static func value(seed: UInt64, request id: Int32, attempt: Int32, salt: UInt64) -> UInt64 {
        var g = SplitMix64(seed: seed ^ salt)
        var h = SplitMix64(
            seed: g.next() ^ (UInt64(UInt32(bitPattern: id)) | UInt64(UInt32(bitPattern: attempt)) << 32))
        return h.next()
    }
}
