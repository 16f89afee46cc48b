/// The SDK a simulation models: a profile file, parsed (docs/profiles.md).
///
/// Everything that differs between SDKs lives here, behind this one type: the
/// requests the app can make, the settings and their defaults, the rules with
/// their texts, what an answer does, what is saved and when, what resends, the
/// components (`consent-gate`, `flush`) and the log texts. `Simulation` holds
/// the shared machinery and reads the profile's data; it never asks which
/// profile it runs. The four built-ins are files too (`profiles/*.profile`,
/// embedded by `scripts/embed-profiles`, registered in `Builtins`).
public struct Profile: Hashable, Sendable, CustomStringConvertible {
    /// The parsed file. Immutable and shared.
    public let spec: ProfileSpec

    init(spec: ProfileSpec) { self.spec = spec }

    /// The name scenario files, `--profile` and the device store use.
    public var rawValue: String { spec.name }
    public var name: String { spec.name }
    /// The one-line title shown by `outbox profiles` and the UI header.
    public var title: String { spec.title }
    public var description: String { spec.name }
    /// How a scenario file names it so it is found again: a built-in's name, or
    /// the absolute path of the file it was read from (recordings write this).
    public var reference: String { spec.path ?? spec.name }
    /// Whether it is one of the built-ins, not a user's file.
    public var isBuiltin: Bool { spec.path == nil }

    /// Two profiles are the same when they have the same name and were read
    /// from the same text (a built-in and its `--source` copy loaded from a file
    /// are the same profile).
    public static func == (a: Profile, b: Profile) -> Bool {
        a.spec === b.spec || (a.spec.name == b.spec.name && a.spec.source == b.spec.source)
    }
    public func hash(into h: inout Hasher) { h.combine(spec.name) }

    // MARK: Capabilities (one place; the parser, `:` commands, keys, help and messages use these)

    /// Whether the app can make requests of `kind` on this profile.
    public func makes(_ kind: RequestKind) -> Bool { spec.kinds & kind.bit != 0 }
    /// Whether the app has this call (`requests WORD`, or a `call` line of its own).
    public func has(_ call: AppCall) -> Bool { spec.policy.calls & (1 << UInt64(call.index)) != 0 }
    /// The kinds and calls this profile knows (the built-in ones and its own).
    public var vocabulary: Vocabulary { spec.policy.vocabulary }
    /// The calls it has, in declaration order.
    public var calls: [AppCall] { vocabulary.calls.filter(has) }
    /// A kind's word (`token-removal`).
    public func word(_ kind: RequestKind) -> String { spec.policy.vocabulary.word(kind) }
    /// Whether the profile has the consent gate (`consent grant|deny`, `requireConsent`).
    public var hasConsentGate: Bool { spec.policy.gate != nil }
    /// Whether the profile has the flush of its offline queue.
    public var hasFlush: Bool { spec.policy.flush != nil }
    /// Whether requests carry idempotency keys.
    public var hasIdempotencyKeys: Bool { spec.policy.keysRule != nil }
    /// Whether the app's code gets completion handlers.
    public var hasCompletions: Bool { if case .completion = spec.policy.report { return true } else { return false } }
    /// Whether a request of `kind` gets a completion handler: on a profile with
    /// them, a request of the queue (a direct one, `direct KIND...`, gets none).
    public func completes(_ kind: RequestKind) -> Bool {
        hasCompletions && spec.policy.directKinds & kind.bit == 0
    }
    /// Whether the app can call `getInstance()` to resend.
    public var hasGetInstance: Bool { spec.policy.resendGetInstance != nil }
    /// Whether it saves nothing (`save never`): its device is never written, so a
    /// driver keeps it in memory (no state directory file).
    public var savesNothing: Bool { if case .never = spec.policy.save { return true } else { return false } }
    /// Whether the app goes to the background and back (`background`,
    /// `foreground`: a `Policy/Lifecycle.swift` statement).
    public var hasLifecycle: Bool { spec.policy.lifecycle != nil }
    /// Whether any answer is retried after a backoff (the retry settings exist).
    public var retries: Bool { spec.retries }
    /// The rule a flush's sends cite (`component flush ... send R`), or nil without the flush.
    public var flushSendRule: RuleID? { spec.policy.flush?.send }
    /// The rule a launch's resend cites (`resend on launch rule R`), or nil.
    public var launchResendRule: RuleID? { spec.policy.resendLaunch?.rule }
    /// The rule cited when saved requests survive a quit and come back at launch.
    public var survivesRule: RuleID { spec.policy.survivesRule }

    /// What the app can do on this profile, as scenario words.
    public var verbs: String {
        var v = ["launch", "quit"]
        if hasConsentGate { v.append("consent grant|deny") }
        if hasGetInstance { v.append("getinstance") }
        v.append("track")
        v += calls.map(\.word)
        if hasLifecycle { v.append("background|foreground") }
        v += ["network online|offline|flap", "server"]
        return v.joined(separator: ", ")
    }

    // MARK: Rules

    /// The rule with this raw number in this profile's book.
    public func rule(_ r: RuleID) -> RuleInfo { spec.rule(r) }
    /// A rule's ID as the page writes it (`LT-6`): read once per timeline line, so kept ready.
    @inline(__always)
    public func id(of r: RuleID) -> String {
        let i = Int(r.rawValue)
        return i < spec.idTexts.count ? spec.idTexts[i] : spec.rule(r).id
    }
    /// The rule a page writes `id` (`LT-6`, `NET`), or nil.
    public func rule(id: String) -> RuleID? { spec.ruleIDs[id] }
    /// Its own rules in file order, then the shared ones.
    public var rules: [RuleID] { spec.ownRules + Rules.shared }
    public var ownRules: [RuleID] { spec.ownRules }
}

/// A rule, by its number in the books of the profiles that cite it: the shared
/// rules first (0...), then the built-ins' rules in registry order, then each
/// user profile's own. Resolve it through the profile (`Profile.rule(_:)`).
public struct RuleID: Hashable, Sendable, Comparable, BitwiseCopyable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static func < (a: RuleID, b: RuleID) -> Bool { a.rawValue < b.rawValue }
}

/// What a rule says: its ID as the rules page writes it, one line of text, and
/// whether it is an assumption made where the documents are silent.
public struct RuleInfo: Equatable, Sendable {
    public let id: String
    public let text: String
    public let isAssumption: Bool
    /// A shared rule (NET, LAT, ...) rather than one of a profile's.
    public let isShared: Bool
}

/// A profile file, parsed: immutable, shared by every simulation of the profile.
/// It keeps the file's `ProfilePolicy` and the tables built from it once, which
/// the engine reads on its hot paths.
public final class ProfileSpec: Sendable {
    /// What the file says (a `base` line starts from a copy of this).
    let policy: ProfilePolicy
    /// The file's text exactly (`outbox profiles --source`).
    public let source: String
    /// Where it was read from; nil for a built-in.
    public let path: String?

    let ruleIDs: [String: RuleID]
    /// Each rule's ID text by raw number ("R<n>" where the book has none).
    let idTexts: [String]
    /// Whether any answer is retried (the retry settings exist).
    let retries: Bool
    /// Answers: `responses[table[k]]`, `table` indexed by the slots of `Answers`.
    let responses: [Response]
    let table: [UInt8]
    /// `on exhausted`, its rule resolved (the created rule when it names none).
    public let exhausted: Response?
    /// Every text, the file's or the standard one (`Texts.all`).
    let texts: [TextKey: Template]

    init(policy: ProfilePolicy, source: String, path: String?) {
        self.policy = policy
        self.source = source
        self.path = path
        var ids: [String: RuleID] = [:]
        for (i, r) in policy.book.enumerated() { if let r { ids[r.id] = RuleID(rawValue: UInt8(i)) } }
        ruleIDs = ids
        idTexts = policy.book.enumerated().map { i, r in r?.id ?? "R\(i)" }
        retries = Answers.retries(policy)
        (responses, table) = Answers.table(policy)
        // Without a rule of its own it cites the rule of the answer that ended the budget.
        exhausted = policy.exhausted.map {
            Response(action: $0.action, rule: $0.rule ?? policy.createdRule, whenSaved: nil)
        }
        texts = Texts.all(policy)
    }

    public var name: String { policy.name }
    public var title: String { policy.title }
    /// Rules by raw number (a sparse book: shared, then built-in, then own).
    var book: [RuleInfo?] { policy.book }
    /// Its own rules, in file order (a `base`'s first).
    var ownRules: [RuleID] { policy.ownRules }
    /// Request kinds the app makes, a bit per `RequestKind` (event always).
    var kinds: UInt64 { policy.kinds }
    var defaults: Settings { policy.defaults }

    func rule(_ r: RuleID) -> RuleInfo {
        let i = Int(r.rawValue)
        if i < policy.book.count, let info = policy.book[i] { return info }
        return RuleInfo(id: "R\(i)", text: "(a rule of another profile)", isAssumption: false, isShared: false)
    }
}
