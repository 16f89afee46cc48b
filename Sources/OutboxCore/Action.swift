/// Something that happened: a user's action, named for what it is.
///
/// Scenario lines, UI keys and benchmark drivers all become actions.
public enum Action: Equatable, Sendable {
    case appLaunched
    case appQuit
    /// The app goes to the background (`background`), or comes back (`foreground`):
    /// a profile with the lifecycle (Policy/Lifecycle.swift).
    case appBackgrounded
    case appForegrounded
    case getInstanceCalled
    case consentGranted
    case consentDenied
    case eventTracked(TrackedEvent)
    /// An app call of the profile's vocabulary (`AppCall`, Vocabulary.swift) by
    /// its word, with its name when it takes one (`screen home`).
    case call(String, String?)
    case networkWentOnline
    case networkWentOffline
    /// A `server` line: a plan for every request (`.all`) or for one name or
    /// kind (TARGET, an extension); `.chance` lays a layer over it (CHANCE).
    case serverPlanned(Answer, ServerRepeat, for: ServerTarget = .all)
    /// `network flap UP DOWN` (an extension, FLAP): online for `up`, offline for
    /// `down`, repeating until the next `network` line.
    case networkFlapping(up: Millis, down: Millis)
    /// `set KEY VALUE` mid-run: the setting read at the edge (`SettingChange.read`).
    case settingChanged(SettingChange)
    /// `server A on sends N,...` (an extension, SENDS): the device's numbered
    /// sends get A whatever the plan (what a fleet's backend answered it).
    case sendsAnswered(Answer, [Int32])

    /// Whether the action needs the app to be running.
    public var needsRunningApp: Bool {
        switch self {
        case .getInstanceCalled, .consentGranted, .consentDenied, .eventTracked, .call, .appBackgrounded,
            .appForegrounded:
            return true
        default:
            return false
        }
    }

    /// What the app being running or not forbids: the one lifecycle rule, checked
    /// ahead of time by the scenario parser (naming FILE:LINE) and when applied by
    /// `Simulation.check` (a refusal).
    enum LifecycleFault {
        /// `launch` while the app is already running.
        case alreadyRunning
        /// `quit` while the app is not running.
        case notRunning
        /// An action that needs the app (`needsRunningApp`) while it is not running.
        case needsApp
    }

    /// Why the action cannot happen with the app running (or not), or nil.
    @inline(__always)
    func lifecycleFault(appRunning: Bool) -> LifecycleFault? {
        switch self {
        case .appLaunched: return appRunning ? .alreadyRunning : nil
        case .appQuit: return appRunning ? nil : .notRunning
        default: return needsRunningApp && !appRunning ? .needsApp : nil
        }
    }

    /// The actions a profile has, as scenario words (`Profile.verbs`).
    public static func verbs(for profile: Profile) -> String { profile.verbs }

    /// Why the profile cannot do this action, or nil when it can; says what it has instead.
    public func unsupported(on profile: Profile) -> String? {
        guard let why = missing(on: profile) else { return nil }
        return why + ", expected an action of \(profile.rawValue): " + profile.verbs
    }

    /// The short form of `unsupported(on:)`, for a notice in the UI: what the
    /// profile lacks for it (a capability its file does not give).
    public func missing(on profile: Profile) -> String? {
        guard let thing = lackedCapability(on: profile) else { return nil }
        return "\(profile.title) has no \(thing)"
    }

    /// Why `profile` lacks this action, said of no profile in particular (one
    /// skip report names every profile that skipped the line); nil when it has it.
    public func lackedReason(on profile: Profile) -> String? {
        lackedCapability(on: profile).map { "the profile has no " + $0 }
    }

    /// The capability this action needs that `profile` lacks, or nil.
    func lackedCapability(on profile: Profile) -> String? {
        switch self {
        case .getInstanceCalled where !profile.hasGetInstance: return "getInstance() call (getinstance)"
        case .consentGranted where !profile.hasConsentGate, .consentDenied where !profile.hasConsentGate:
            return "consent gate"
        case .appBackgrounded where !profile.hasLifecycle, .appForegrounded where !profile.hasLifecycle:
            return "app lifecycle (background, foreground)"
        case .call(let word, _):
            guard let c = profile.vocabulary.call(word) else { return word + " call" }
            return profile.has(c) ? nil : c.capability
        case .serverPlanned(_, _, .kind(let k)) where !(profile.vocabulary.kind(k).map(profile.makes) ?? false):
            // A plan for a kind the profile never makes would never answer.
            return "\(k) requests (for kind:\(k))"
        default: return nil
        }
    }
}

/// A `trackEvent` call.
public struct TrackedEvent: Equatable, Sendable {
    public var name: String
    public var value: Amount?
    public var currency: String?
    public var attributes: [Attribute]

    public init(name: String, value: Amount? = nil, currency: String? = nil, attributes: [Attribute] = []) {
        self.name = name
        self.value = value
        self.currency = currency
        self.attributes = attributes
    }
}

/// How many attempts a `server` plan covers.
public enum ServerRepeat: Equatable, Sendable {
    case times(Int)
    case always
    /// An extension (CHANCE): each attempt gets the answer with this chance, in
    /// basis points (0 to 10,000: `30%` is 3,000, `0.5%` is 50), else the plan beneath.
    case chance(Int)

    /// `30%`, `0.5%`, `12.25%`: a chance as a scenario writes it.
    public static func percentText(_ basisPoints: Int) -> String {
        let whole = basisPoints / 100, frac = basisPoints % 100
        if frac == 0 { return "\(whole)%" }
        return "\(whole)." + (frac % 10 == 0 ? "\(frac / 10)" : (frac < 10 ? "0\(frac)" : "\(frac)")) + "%"
    }

    /// Reads `30%`, `0.5%`, `100%`: 0 to 100 with at most two decimals, as basis points; nil otherwise.
    public static func percent(_ word: String) -> Int? {
        guard word.hasSuffix("%") else { return nil }
        let number = word.dropLast()
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].count <= 3,
            parts[0].allSatisfy({ $0.isASCII && $0.isNumber }), let whole = Int(parts[0])
        else { return nil }
        var frac = 0
        if parts.count == 2 {
            let f = parts[1]
            guard (1...2).contains(f.count), f.allSatisfy({ $0.isASCII && $0.isNumber }), let v = Int(f) else {
                return nil
            }
            frac = f.count == 1 ? v * 10 : v
        }
        let bp = whole * 100 + frac
        return bp <= 10_000 ? bp : nil
    }
}

/// Which requests a `server` line plans for (TARGET).
public enum ServerTarget: Hashable, Sendable {
    /// Every request: the contract's plan.
    case all
    /// The requests of this name.
    case name(String)
    /// The requests of this kind, by its word.
    case kind(String)

    /// ` for purchase`, ` for kind:ping`, or "" for every request: the words a
    /// scenario line ends with. A name that starts `kind:` or `name:` is written
    /// `name:` first, so it reads back as a name.
    public var words: String {
        switch self {
        case .all: return ""
        case .kind(let k): return " for kind:" + k
        case .name(let n):
            let plain = n.hasPrefix("kind:") || n.hasPrefix("name:") ? "name:" + n : n
            return " for " + ActionSyntax.word(plain)
        }
    }

    /// `purchase`, `kind:ping`: how the header and log name it.
    public var label: String {
        switch self {
        case .all: return "all"
        case .kind(let k): return "kind:" + k
        case .name(let n): return SafeText.escaped(n, max: 40)
        }
    }
}

/// What the backend answers to the next attempts made while online (ANS).
public struct ServerPlan: Equatable, Sendable {
    public private(set) var answer: Answer = .ok
    /// Attempts left under the plan; -1 means always.
    public private(set) var remaining: Int = 0

    public init() {}

    public init(_ answer: Answer, _ rep: ServerRepeat) {
        self.answer = answer
        switch rep {
        case .times(let n): remaining = n
        case .always: remaining = -1
        case .chance: remaining = 0  // a layer over a plan (`TargetPlan`), never a plan itself
        }
    }

    /// The answer the next online attempt gets; uses the plan up.
    mutating func take() -> Answer {
        if remaining == 0 { return .ok }
        if remaining > 0 { remaining -= 1 }
        return answer
    }

    /// `503 ×2`, `403 always`, or `ok`.
    public var text: String {
        if remaining == 0 || answer == .ok { return "ok" }
        if remaining < 0 { return answer.word + " always" }
        return answer.word + " ×" + String(remaining)
    }
}
