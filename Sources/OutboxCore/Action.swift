/// Something that happened: a user's action, named for what it is.
///
/// Scenario lines, UI keys and benchmark drivers all become actions.
public enum Action: Equatable, Sendable {
    case appLaunched
    case appQuit
    case getInstanceCalled
    case consentGranted
    case consentDenied
    case eventTracked(TrackedEvent)
    case pingSent
    case screenViewed(String)
    case productViewed(String)
    case notificationReported(String)
    case loggedOut
    case networkWentOnline
    case networkWentOffline
    case serverPlanned(Answer, ServerRepeat)
    case settingChanged(key: String, value: String)

    /// Whether the action needs the app to be running.
    public var needsRunningApp: Bool {
        switch self {
        case .getInstanceCalled, .consentGranted, .consentDenied, .eventTracked, .pingSent,
            .screenViewed, .productViewed, .notificationReported, .loggedOut:
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
        case .pingSent where !profile.makes(.ping): return "ping requests"
        case .screenViewed where !profile.makes(.screen): return "screen requests"
        case .productViewed where !profile.makes(.product): return "product requests"
        case .notificationReported where !profile.makes(.notification): return "notification requests"
        case .loggedOut where !profile.makes(.logout): return "logout call"
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

/// A LinkTrail flush (LT-8 to LT-11).
/// What starts a LinkTrail flush (LT-8, LT-9).
public enum FlushTrigger: Equatable, Sendable {
    case launch, consentGranted, deferred
    case success(Int32)
}

public struct FlushState: Equatable, Sendable {
    public internal(set) var active = false
    /// What started the flush under way (`Simulation.flushTriggerText`).
    public internal(set) var trigger: FlushTrigger = .launch
    /// A trigger came during the flush: one more pass when it ends (LT-9).
    public internal(set) var morePass = false
    public internal(set) var sent = 0
}
