/// A simulation's settings: the `set` lines of a scenario.
public struct Settings: Equatable, Sendable {
    public var requireConsent = true
    public var retryAttempts: Int
    public var retryDelays: [Millis]
    public var latency: Millis = 200
    public var timeout: Millis = 10_000
    public var seed: UInt64 = 1
    public var retryJitter: Jitter = .none
    /// `set retry.attempts unlimited`: no budget (`retryAttempts` is then 0).
    public var retryUnlimited = false
    /// The formula of the delays (`backoff`, Policy/Backoff.swift); `.ladder` is `retryDelays`.
    public var backoff: Backoff = .ladder
    /// `cap D` of a `backoff` line: the longest delay and wait; -1 none.
    public var retryCap: Millis = -1
    /// `backoff give up after D`: a budget ends when an attempt fails D or more after its first failure; -1 never.
    public var giveUpAfter: Millis = -1
    /// `backoff cool off D after N`.
    public var coolOff: CoolOff?
    /// `backoff reset at cap`: a wait at the cap starts the formula over.
    public var resetAtCap = false
    /// An extension (LATJITTER): each attempt's latency is drawn uniformly from
    /// `latency ± latencyJitter`, never below 0; 0 is none.
    public var latencyJitter: Millis = 0
    /// `request.size`: the bytes of a request without attributes, for a batch's
    /// byte cap (`batch up to N and B`, Policy/Batching.swift; `Simulation.size(of:)`).
    public var requestSize = 1000

    /// How a retry's wait is randomised (JITTER), drawn from the seed, the
    /// request and the attempt, so a run repeats exactly.
    public enum Jitter: Equatable, Sendable {
        /// The wait is the delay.
        case none
        /// Uniform from 0 to the delay.
        case full
        /// Half the delay, plus uniform from 0 to the other half.
        case equal
        /// AWS's: uniform from the first delay to 3 × the last wait, capped.
        case decorrelated
        /// `±P%`: uniform from the delay − P% to the delay + P%.
        case plusMinus(Int)
        /// `+P%`: uniform from the delay to the delay + P%.
        case plus(Int)
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
        /// A batch with a byte cap (`batch up to N and B`).
        case batchBytes
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
            case .batchBytes: return profile.spec.policy.batch?.bytes != nil
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
            name: "retry.jitter", needs: .retry,
            expected: "none, full, equal, decorrelated, ±P% (P from 1 to 100) or +P% (P from 1 to 1000)",
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
        Key(
            name: "request.size", needs: .batchBytes,
            expected: "bytes from 1 to 100MB, e.g. 1KB (500, 500B, 475KB, 1MB; KB is 1000 bytes)",
            help: "a request's bytes before its attributes, for the batch's byte cap (BATCH)"),
    ]

    /// The keys `profile` has, in documented order.
    public static func keys(on profile: Profile) -> [Key] { keys.filter { $0.exists(on: profile) } }

    /// The value of a key as a scenario would write it.
    public func value(of key: String) -> String? {
        switch key {
        case "requireConsent": return requireConsent ? "true" : "false"
        case "retry.attempts": return retryUnlimited ? "unlimited" : String(retryAttempts)
        case "retry.delays": return retryDelays.map(VirtualTime.duration).joined(separator: ",")
        case "latency": return VirtualTime.duration(latency)
        case "latency.jitter": return VirtualTime.duration(latencyJitter)
        case "timeout": return VirtualTime.duration(timeout)
        case "seed": return String(seed)
        case "retry.jitter": return retryJitter.word
        case "request.size": return Batching.sizeText(requestSize)
        default: return nil
        }
    }

    /// The documented key of this name, or nil.
    public static func key(named name: String) -> Key? { keys.first { $0.name == name } }

    /// Why `profile` has no setting `key`, or nil when it has it.
    public static func absent(_ key: Key, on profile: Profile) -> String? {
        guard !key.exists(on: profile) else { return nil }
        let why =
            key.needs == .retry
            ? "it never retries"
            : key.needs == .batchBytes ? "it has no batch byte cap, `batch up to N and SIZE`" : "it has no consent gate"
        return "setting `\(key.name)` does not exist on profile \(profile.rawValue) (\(why))"
    }

    /// Reads `set key value` on `profile`'s terms: a key it lacks is refused
    /// before its value is read. The failure says what was wrong and what was expected.
    public static func read(_ key: String, _ value: String, on profile: Profile) -> Result<Setting, Problem> {
        guard let k = Settings.key(named: key) else {
            let names = Settings.keys(on: profile).map(\.name)
            return .failure(
                Problem(
                    "unknown setting `\(key)`, expected one of: " + names.joined(separator: ", ")
                        + Suggest.hint(key, among: names)))
        }
        if let why = absent(k, on: profile) { return .failure(Problem(why)) }
        return read(k, value)
    }

    /// Reads `set key value` whatever the profile (a profile file's own `set` lines).
    static func read(_ key: String, _ value: String) -> Result<Setting, Problem> {
        guard let k = Settings.key(named: key) else {
            let names = Settings.keys.map(\.name)
            return .failure(
                Problem(
                    "unknown setting `\(key)`, expected one of: " + names.joined(separator: ", ")
                        + Suggest.hint(key, among: names)))
        }
        return read(k, value)
    }

    /// Reads the value of setting `k`.
    static func read(_ k: Key, _ value: String) -> Result<Setting, Problem> {
        let key = k.name
        func bad() -> Result<Setting, Problem> {
            let hint =
                key == "requireConsent"
                ? Suggest.hint(value, among: ["true", "false"])
                : key == "retry.jitter"
                    ? Suggest.hint(value, among: Jitter.words)
                    : key == "retry.attempts" && Int(value) == nil ? Suggest.hint(value, among: ["unlimited"]) : ""
            return .failure(Problem("bad value `\(value)` for \(key), expected \(k.expected)" + hint))
        }
        switch key {
        case "requireConsent":
            guard value == "true" || value == "false" else { return bad() }
            return .success(.requireConsent(value == "true"))
        case "retry.attempts":
            if value == "unlimited" { return .success(.retryUnlimited) }
            guard let n = Int(value), n >= 1, n <= Settings.maxRetryAttempts else { return bad() }
            return .success(.retryAttempts(n))
        case "retry.delays":
            let parts = value.split(separator: ",", omittingEmptySubsequences: false)
            // Too many is said as a count, not as a bad value (issue 22: 1001 delays
            // were blamed on their values); a bad one is named with its place.
            guard parts.count <= Settings.maxRetryDelays else {
                return .failure(
                    Problem("\(parts.count) delays for retry.delays, expected at most \(Settings.maxRetryDelays)"))
            }
            var delays: [Millis] = []
            for (i, p) in parts.enumerated() {
                switch VirtualTime.parseLimited(String(p)) {
                case .success(let d): delays.append(d)
                case .failure(let why):
                    guard parts.count > 1 else { return bad() }
                    let what = p.isEmpty ? "an empty delay" : "bad delay `\(SafeText.escaped(String(p), max: 60))`"
                    return .failure(
                        Problem(what + " (number \(i + 1) of \(parts.count)) for retry.delays, " + why.message))
                }
            }
            guard !delays.isEmpty else { return bad() }
            return .success(.retryDelays(delays))
        case "latency", "latency.jitter", "timeout":
            guard case .success(let t) = VirtualTime.parseLimited(value) else { return bad() }
            return .success(key == "latency" ? .latency(t) : key == "timeout" ? .timeout(t) : .latencyJitter(t))
        case "seed":
            guard let n = UInt64(value) else { return bad() }
            return .success(.seed(n))
        case "retry.jitter":
            guard let j = Jitter(word: value) else { return bad() }
            return .success(.retryJitter(j))
        case "request.size":
            guard let n = Batching.size(value) else { return bad() }
            return .success(.requestSize(n))
        default:
            return bad()
        }
    }

    /// Sets one setting (read by `read`: its value is in range).
    public mutating func apply(_ setting: Setting) {
        switch setting {
        case .requireConsent(let v): requireConsent = v
        case .retryAttempts(let n):
            retryAttempts = n
            retryUnlimited = false
        case .retryUnlimited:
            retryAttempts = 0
            retryUnlimited = true
        case .retryDelays(let d):
            retryDelays = d
            backoff = .ladder
        case .retryJitter(let j): retryJitter = j
        case .latency(let t): latency = t
        case .latencyJitter(let t): latencyJitter = t
        case .timeout(let t): timeout = t
        case .seed(let n): seed = n
        case .requestSize(let n): requestSize = n
        }
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

/// One setting with its value, read once from a `set KEY VALUE` (a scenario's,
/// a profile file's, the live screen's `:set`: `Settings.read`), so the model
/// gets typed values (`Settings.apply`), never the words.
public enum Setting: Equatable, Sendable {
    case requireConsent(Bool)
    case retryAttempts(Int)
    /// `retry.attempts unlimited`.
    case retryUnlimited
    case retryDelays([Millis])
    case retryJitter(Settings.Jitter)
    case latency(Millis)
    case latencyJitter(Millis)
    case timeout(Millis)
    case seed(UInt64)
    /// `request.size`, in bytes.
    case requestSize(Int)

    /// Its documented key (`Settings.keys`, in their order).
    public var key: Settings.Key {
        switch self {
        case .requireConsent: return Settings.keys[0]
        case .retryAttempts, .retryUnlimited: return Settings.keys[1]
        case .retryDelays: return Settings.keys[2]
        case .retryJitter: return Settings.keys[3]
        case .latency: return Settings.keys[4]
        case .latencyJitter: return Settings.keys[5]
        case .timeout: return Settings.keys[6]
        case .seed: return Settings.keys[7]
        case .requestSize: return Settings.keys[8]
        }
    }
}

/// A `set KEY VALUE` as an action (`Action.settingChanged`: a scenario's `at T
/// set`, the live screen's `:set`): the setting, and its value as written, which
/// the journal's line and a recording show as it was typed (`set latency 0.5s`).
public struct SettingChange: Equatable, Sendable {
    public let setting: Setting
    public let written: String

    public init(_ setting: Setting, written: String) {
        self.setting = setting
        self.written = written
    }

    /// The key's name.
    public var key: String { setting.key.name }

    /// Reads `set key value`, on `profile`'s terms (`Settings.read(_:_:on:)`), or
    /// whatever the profile when nil (a key any profile has).
    public static func read(_ key: String, _ value: String, on profile: Profile?) -> Result<SettingChange, Problem> {
        let r = profile.map { Settings.read(key, value, on: $0) } ?? Settings.read(key, value)
        return r.map { SettingChange($0, written: value) }
    }
}
