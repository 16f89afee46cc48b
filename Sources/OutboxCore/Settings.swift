/// A simulation's settings: the `set` lines of a scenario.
public struct Settings: Equatable, Sendable {
    public var requireConsent = true
    public var retryAttempts: Int
    public var retryDelays: [Millis]
    public var latency: Millis = 200
    public var timeout: Millis = 10_000
    public var seed: UInt64 = 1
    public var retryJitter: Jitter = .none
    /// An extension (LATJITTER): each attempt's latency is drawn uniformly from
    /// `latency ± latencyJitter`, never below 0; 0 is none.
    public var latencyJitter: Millis = 0

    /// How a retry's wait is randomised (JITTER), drawn from the seed, the
    /// request and the attempt, so a run repeats exactly.
    public enum Jitter: String, Sendable, CaseIterable {
        /// The wait is the delay.
        case none
        /// Uniform from 0 to the delay.
        case full
        /// Half the delay, plus uniform from 0 to the other half.
        case equal
    }

    /// The most attempts a budget may allow: any more never ends a run with the
    /// backend failing (docs/reliability.md).
    public static let maxRetryAttempts = 1000
    /// The most waits `retry.delays` may list.
    public static let maxRetryDelays = 1000

    /// The settings a profile file starts from: no retries, the shared defaults.
    init() {
        retryAttempts = 0
        retryDelays = []
    }

    /// A profile's defaults (its `set` lines).
    public init(profile: Profile) {
        self = profile.spec.defaults
    }

    /// What a setting needs of a profile to exist there.
    public enum Need: Sendable, Equatable {
        case always, retry, consentGate
    }

    /// One documented setting.
    public struct Key: Sendable {
        public let name: String
        public let needs: Need
        public let expected: String
        public let help: String

        /// Whether `profile` has the setting.
        public func exists(on profile: Profile) -> Bool {
            switch needs {
            case .always: return true
            case .retry: return profile.retries
            case .consentGate: return profile.hasConsentGate
            }
        }
    }

    public static let keys: [Key] = [
        Key(
            name: "requireConsent", needs: .consentGate, expected: "true or false",
            help: "events wait for a consent decision (the consent gate)"),
        Key(
            name: "retry.attempts", needs: .retry, expected: "a whole number from 1 to \(Settings.maxRetryAttempts)",
            help: "attempts before giving up"),
        Key(
            name: "retry.delays", needs: .retry,
            expected:
                "1 to \(Settings.maxRetryDelays) comma-separated times, each up to \(VirtualTime.maxInputText), e.g. 2s,4s",
            help: "waits before the retries; the last repeats (BACKOFF)"),
        Key(
            name: "retry.jitter", needs: .retry, expected: "none, full or equal",
            help: "randomises each wait, drawn from seed (JITTER)"),
        Key(
            name: "latency", needs: .always, expected: "a time up to \(VirtualTime.maxInputText), e.g. 200ms",
            help: "send to answer; the backend sees it at half (LAT)"),
        Key(
            name: "latency.jitter", needs: .always, expected: "a time up to \(VirtualTime.maxInputText), e.g. 50ms",
            help: "each attempt's latency drawn from latency ± this, never below 0, from seed (LATJITTER)"),
        Key(
            name: "timeout", needs: .always, expected: "a time up to \(VirtualTime.maxInputText), e.g. 10s",
            help: "a timed-out attempt fails after this (TMO)"),
        Key(
            name: "seed", needs: .always, expected: "a whole number from 0 to \(UInt64.max)",
            help: "seeds idempotency keys and any randomness (ORDER)"),
    ]

    /// The keys `profile` has, in documented order.
    public static func keys(on profile: Profile) -> [Key] { keys.filter { $0.exists(on: profile) } }

    /// The value of a key as a scenario would write it.
    public func value(of key: String) -> String? {
        switch key {
        case "requireConsent": return requireConsent ? "true" : "false"
        case "retry.attempts": return String(retryAttempts)
        case "retry.delays": return retryDelays.map(VirtualTime.duration).joined(separator: ",")
        case "latency": return VirtualTime.duration(latency)
        case "latency.jitter": return VirtualTime.duration(latencyJitter)
        case "timeout": return VirtualTime.duration(timeout)
        case "seed": return String(seed)
        case "retry.jitter": return retryJitter.rawValue
        default: return nil
        }
    }

    /// Applies `set key value`; the error says what was wrong and what was expected.
    public mutating func set(_ key: String, _ value: String, profile: Profile) -> String? {
        guard let k = Settings.keys.first(where: { $0.name == key }) else {
            let names = Settings.keys(on: profile).map(\.name)
            return "unknown setting `\(key)`, expected one of: " + names.joined(separator: ", ")
                + Suggest.hint(key, among: names)
        }
        guard k.exists(on: profile) else {
            let why = k.needs == .retry ? "it never retries" : "it has no consent gate"
            return "setting `\(key)` does not exist on profile \(profile.rawValue) (\(why))"
        }
        return apply(key, value)
    }

    /// Applies `set key value` whatever the profile (a profile file's own `set` lines).
    mutating func apply(_ key: String, _ value: String) -> String? {
        guard let k = Settings.keys.first(where: { $0.name == key }) else {
            let names = Settings.keys.map(\.name)
            return "unknown setting `\(key)`, expected one of: " + names.joined(separator: ", ")
                + Suggest.hint(key, among: names)
        }
        func bad() -> String {
            let hint =
                key == "requireConsent"
                ? Suggest.hint(value, among: ["true", "false"])
                : key == "retry.jitter" ? Suggest.hint(value, among: Jitter.allCases.map(\.rawValue)) : ""
            return "bad value `\(value)` for \(key), expected \(k.expected)" + hint
        }
        switch key {
        case "requireConsent":
            guard value == "true" || value == "false" else { return bad() }
            requireConsent = value == "true"
        case "retry.attempts":
            guard let n = Int(value), n >= 1, n <= Settings.maxRetryAttempts else { return bad() }
            retryAttempts = n
        case "retry.delays":
            let parts = value.split(separator: ",", omittingEmptySubsequences: false)
            // Too many is said as a count, not as a bad value (issue 22: 1001 delays
            // were blamed on their values); a bad one is named with its place.
            guard parts.count <= Settings.maxRetryDelays else {
                return "\(parts.count) delays for retry.delays, expected at most \(Settings.maxRetryDelays)"
            }
            var delays: [Millis] = []
            for (i, p) in parts.enumerated() {
                switch VirtualTime.parseLimited(String(p)) {
                case .success(let d): delays.append(d)
                case .failure(let why):
                    guard parts.count > 1 else { return bad() }
                    let what = p.isEmpty ? "an empty delay" : "bad delay `\(SafeText.escaped(String(p), max: 60))`"
                    return what + " (number \(i + 1) of \(parts.count)) for retry.delays, " + why.message
                }
            }
            guard !delays.isEmpty else { return bad() }
            retryDelays = delays
        case "latency":
            guard case .success(let t) = VirtualTime.parseLimited(value) else { return bad() }
            latency = t
        case "latency.jitter":
            guard case .success(let t) = VirtualTime.parseLimited(value) else { return bad() }
            latencyJitter = t
        case "timeout":
            guard case .success(let t) = VirtualTime.parseLimited(value) else { return bad() }
            timeout = t
        case "seed":
            guard let n = UInt64(value) else { return bad() }
            seed = n
        case "retry.jitter":
            guard let j = Jitter(rawValue: value) else { return bad() }
            retryJitter = j
        default:
            return bad()
        }
        return nil
    }

    /// The latency of attempt `n` of request `id` (LATJITTER): uniform over
    /// `[max(0, latency − jitter), latency + jitter]`, drawn from the seed, the
    /// request and the attempt only.
    @inline(__always)
    func latency(ofAttempt n: Int32, request id: Int32) -> Millis {
        guard latencyJitter > 0 else { return latency }
        let low = max(0, latency - latencyJitter), high = VirtualTime.later(latency, by: latencyJitter)
        let r = Draw.value(seed: seed, request: id, attempt: n, salt: Draw.latencySalt)
        return low + Millis(r % UInt64(high - low + 1))
    }
}
