/// A simulation's settings: the `set` lines of a scenario.
public struct Settings: Equatable, Sendable {
    public var requireConsent = true
    public var retryAttempts: Int
    public var retryDelays: [Millis]
    public var latency: Millis = 200
    public var timeout: Millis = 10_000
    public var seed: UInt64 = 1

    /// The most attempts a budget may allow: any more never ends a run with the
    /// backend failing (docs/reliability.md).
    public static let maxRetryAttempts = 1000
    /// The most waits `retry.delays` may list.
    public static let maxRetryDelays = 1000

    public init(profile: Profile) {
        switch profile {
        case .linktrail:
            retryAttempts = 3
            retryDelays = [2000, 4000]
        case .ios:
            retryAttempts = 4
            retryDelays = [30_000, 60_000, 120_000]
        case .android, .flutter:
            // No retry budget on these profiles: AND-3 resends with no limit, FL-3 never retries.
            retryAttempts = 0
            retryDelays = []
        }
    }

    /// One documented setting.
    public struct Key: Sendable {
        public let name: String
        public let profiles: [Profile]
        public let expected: String
        public let help: String
    }

    public static let keys: [Key] = [
        Key(name: "requireConsent", profiles: [.linktrail], expected: "true or false",
            help: "events wait for a consent decision (LT-1)"),
        Key(name: "retry.attempts", profiles: [.linktrail, .ios], expected: "a whole number from 1 to \(Settings.maxRetryAttempts)",
            help: "attempts before giving up (LT-4, IOS-4)"),
        Key(name: "retry.delays", profiles: [.linktrail, .ios], expected: "comma-separated times up to \(VirtualTime.maxInputText), e.g. 2s,4s",
            help: "waits before the retries; the last repeats (BACKOFF)"),
        Key(name: "latency", profiles: Profile.allCases, expected: "a time up to \(VirtualTime.maxInputText), e.g. 200ms",
            help: "send to answer; the backend sees it at half (LAT)"),
        Key(name: "timeout", profiles: Profile.allCases, expected: "a time up to \(VirtualTime.maxInputText), e.g. 10s",
            help: "a timed-out attempt fails after this (TMO)"),
        Key(name: "seed", profiles: Profile.allCases, expected: "a whole number",
            help: "seeds idempotency keys and any randomness (ORDER)"),
    ]

    /// The value of a key as a scenario would write it.
    public func value(of key: String) -> String? {
        switch key {
        case "requireConsent": return requireConsent ? "true" : "false"
        case "retry.attempts": return String(retryAttempts)
        case "retry.delays": return retryDelays.map(VirtualTime.duration).joined(separator: ",")
        case "latency": return VirtualTime.duration(latency)
        case "timeout": return VirtualTime.duration(timeout)
        case "seed": return String(seed)
        default: return nil
        }
    }

    /// Applies `set key value`; the error says what was wrong and what was expected.
    public mutating func set(_ key: String, _ value: String, profile: Profile) -> String? {
        guard let k = Settings.keys.first(where: { $0.name == key }) else {
            let names = Settings.keys.filter { $0.profiles.contains(profile) }.map(\.name)
            return "unknown setting '\(key)', expected one of: " + names.joined(separator: ", ")
        }
        guard k.profiles.contains(profile) else {
            return "setting '\(key)' does not exist on profile \(profile.rawValue) (only "
                + k.profiles.map(\.rawValue).joined(separator: ", ") + ")"
        }
        func bad() -> String { "bad value '\(value)' for \(key), expected \(k.expected)" }
        switch key {
        case "requireConsent":
            guard value == "true" || value == "false" else { return bad() }
            requireConsent = value == "true"
        case "retry.attempts":
            guard let n = Int(value), n >= 1, n <= Settings.maxRetryAttempts else { return bad() }
            retryAttempts = n
        case "retry.delays":
            let parts = value.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count <= Settings.maxRetryDelays else { return bad() }
            var delays: [Millis] = []
            for p in parts {
                guard case .success(let d) = VirtualTime.parseLimited(String(p)) else { return bad() }
                delays.append(d)
            }
            guard !delays.isEmpty else { return bad() }
            retryDelays = delays
        case "latency":
            guard case .success(let t) = VirtualTime.parseLimited(value) else { return bad() }
            latency = t
        case "timeout":
            guard case .success(let t) = VirtualTime.parseLimited(value) else { return bad() }
            timeout = t
        case "seed":
            guard let n = UInt64(value) else { return bad() }
            seed = n
        default:
            return bad()
        }
        return nil
    }

    /// The delay before the retry that follows the `n`-th attempt of a budget (n ≥ 1).
    public func delay(afterAttempt n: Int) -> Millis {
        guard !retryDelays.isEmpty else { return 0 }
        return retryDelays[max(0, min(n - 1, retryDelays.count - 1))]
    }
}
