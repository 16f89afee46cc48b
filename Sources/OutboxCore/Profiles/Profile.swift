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
    public func makes(_ kind: RequestKind) -> Bool { spec.kinds & (1 << kind.rawValue) != 0 }
    /// Whether the profile has the consent gate (`consent grant|deny`, `requireConsent`).
    public var hasConsentGate: Bool { spec.gate != nil }
    /// Whether the profile has the flush of its offline queue.
    public var hasFlush: Bool { spec.flush != nil }
    /// Whether requests carry idempotency keys.
    public var hasIdempotencyKeys: Bool { spec.keysRule != nil }
    /// Whether the app's code gets completion handlers.
    public var hasCompletions: Bool { if case .completion = spec.report { return true } else { return false } }
    /// Whether the app can call `getInstance()` to resend.
    public var hasGetInstance: Bool { spec.resendGetInstance != nil }
    /// Whether any answer is retried after a backoff (the retry settings exist).
    public var retries: Bool { spec.retries }
    /// The rule cited when saved requests survive a quit and come back at launch.
    public var survivesRule: RuleID { spec.survivesRule }

    /// What the app can do on this profile, as scenario words.
    public var verbs: String {
        var v = ["launch", "quit"]
        if hasConsentGate { v.append("consent grant|deny") }
        if hasGetInstance { v.append("getinstance") }
        v.append("track")
        for k in [RequestKind.ping, .screen, .product, .notification] where makes(k) { v.append(k.word) }
        if makes(.logout) { v.append("logout") }
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

/// What an answer class does (`on CLASS ACTION`).
public struct Response: Equatable, Sendable {
    public enum Action: Equatable, Sendable {
        case deliver, retry, queue
        case drop(DropReason)
    }
    public let action: Action
    public let rule: RuleID
    /// `deliver ... when-saved R`: the rule cited when the request was saved (a resend).
    public let whenSaved: RuleID?
}

/// When a request is saved on the device.
public enum SaveMode: Equatable, Sendable {
    /// As soon as it is accepted.
    case atCreate
    /// When an attempt fails and the answer says `queue`; only the kinds in
    /// `kinds` (a bit per `RequestKind`); others are dropped (not-saved) citing `rule`.
    case onFailure(kinds: UInt16, rule: RuleID)
}

/// What a request does while the network is off.
public enum OfflineMode: Equatable, Sendable {
    /// Attempts are made and fail at once as `offline` (NET).
    case fail
    /// Nothing is sent: requests wait queued and go out when a resend says so.
    case hold(RuleID)
}

/// What the app's code hears about a request's end.
public enum Reporting: Equatable, Sendable {
    case none
    /// `onError` for a failure that ends retrying (kept) or drops it, then a warning if given.
    case onError
    /// A completion handler per queued request; `lost`: cited when it did not survive a quit.
    case completion(lost: RuleID)
}

/// A resend trigger: saved requests go out again, citing `rule`.
public struct Resend: Equatable, Sendable {
    public let rule: RuleID
    /// The launch calls getInstance(): it says so even when nothing is saved.
    public let viaGetInstance: Bool
}

/// The rules the consent gate cites (LT-1, LT-2, LT-3 in the built-in).
public struct GateRules: Equatable, Sendable {
    public let drop: RuleID, purge: RuleID, install: RuleID
}

/// The rules the flush cites (LT-8 to LT-11 in the built-in).
public struct FlushRules: Equatable, Sendable {
    public let start: RuleID, more: RuleID, stop: RuleID, send: RuleID
}

/// A profile file, parsed: immutable, shared by every simulation of the profile.
public final class ProfileSpec: Sendable {
    public let name: String
    public let title: String
    /// The file's text exactly (`outbox profiles --source`).
    public let source: String
    /// Where it was read from; nil for a built-in.
    public let path: String?

    /// Rules by raw number (a sparse book: shared, then built-in, then own).
    let book: [RuleInfo?]
    let ruleIDs: [String: RuleID]
    /// Each rule's ID text by raw number ("R<n>" where the book has none).
    let idTexts: [String]
    /// Its own rules, in file order (a `base`'s first).
    let ownRules: [RuleID]

    /// Request kinds the app makes, a bit per `RequestKind` (event always).
    let kinds: UInt16
    /// Kinds sent outside the queue, never saved (IOS-7), and the rule they cite.
    let directKinds: UInt16
    public let directRule: RuleID?
    public let gate: GateRules?
    public let flush: FlushRules?
    public let keysRule: RuleID?
    let defaults: Settings
    public let save: SaveMode
    public let createdRule: RuleID
    public let sendRule: RuleID
    public let offline: OfflineMode
    let survivesRule: RuleID
    let retries: Bool
    /// Answers: `responses[table[k]]`, `table` indexed by `Spec.slot(...)`.
    let responses: [Response]
    let table: [UInt8]
    public let exhausted: Response?
    /// `on exhausted` named no rule: it cites the rule of the answer that ended the budget.
    public let exhaustedCitesAnswer: Bool
    public let resendLaunch: Resend?
    public let resendNetwork: Resend?
    public let resendGetInstance: Resend?
    public let report: Reporting
    let texts: [TextKey: Template]
    /// The `on` lines as written (a `base` line starts from them).
    let onLines: [String: (action: Response.Action, rule: RuleID?, whenSaved: RuleID?, line: Int)]

    init(
        name: String, title: String, source: String, path: String?, book: [RuleInfo?], ownRules: [RuleID],
        kinds: UInt16, directKinds: UInt16, directRule: RuleID?, gate: GateRules?, flush: FlushRules?,
        keysRule: RuleID?, defaults: Settings, save: SaveMode, createdRule: RuleID, sendRule: RuleID,
        offline: OfflineMode, survivesRule: RuleID, responses: [Response], table: [UInt8], exhausted: Response?,
        resendLaunch: Resend?, resendNetwork: Resend?, resendGetInstance: Resend?, report: Reporting,
        texts: [TextKey: Template],
        onLines: [String: (action: Response.Action, rule: RuleID?, whenSaved: RuleID?, line: Int)],
        exhaustedCitesAnswer: Bool
    ) {
        self.onLines = onLines
        self.exhaustedCitesAnswer = exhaustedCitesAnswer
        self.name = name
        self.title = title
        self.source = source
        self.path = path
        self.book = book
        var ids: [String: RuleID] = [:]
        for (i, r) in book.enumerated() { if let r { ids[r.id] = RuleID(rawValue: UInt8(i)) } }
        self.ruleIDs = ids
        self.idTexts = book.enumerated().map { i, r in r?.id ?? "R\(i)" }
        self.ownRules = ownRules
        self.kinds = kinds
        self.directKinds = directKinds
        self.directRule = directRule
        self.gate = gate
        self.flush = flush
        self.keysRule = keysRule
        self.defaults = defaults
        self.save = save
        self.createdRule = createdRule
        self.sendRule = sendRule
        self.offline = offline
        self.survivesRule = survivesRule
        self.retries = responses.contains { $0.action == .retry }
        self.responses = responses
        self.table = table
        self.exhausted = exhausted
        self.resendLaunch = resendLaunch
        self.resendNetwork = resendNetwork
        self.resendGetInstance = resendGetInstance
        self.report = report
        self.texts = texts
    }

    func rule(_ r: RuleID) -> RuleInfo {
        let i = Int(r.rawValue)
        if i < book.count, let info = book[i] { return info }
        return RuleInfo(id: "R\(i)", text: "(a rule of another profile)", isAssumption: false, isShared: false)
    }

    // MARK: Answer classes

    /// Slots of `table`: HTTP statuses 100...599 at 0..<500, then these.
    static let timeoutSlot = 500, lostSlot = 501, offlineSlot = 502, networkLostSlot = 503, partialSlot = 504
    static let tableSize = 505

    /// What the profile does with an attempt that ended with `outcome` (`planned`
    /// tells a lost answer from a timeout).
    @inline(__always)
    func response(_ outcome: Outcome, planned: Answer) -> Response {
        let slot: Int
        switch outcome.code {
        case -1: slot = planned == .lost ? ProfileSpec.lostSlot : ProfileSpec.timeoutSlot
        case -2: slot = ProfileSpec.offlineSlot
        case -3: slot = ProfileSpec.networkLostSlot
        case -4: slot = ProfileSpec.partialSlot
        default: slot = min(max(Int(outcome.code), 100), 599) - 100
        }
        return responses[Int(table[slot])]
    }
}
