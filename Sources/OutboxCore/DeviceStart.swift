/// What a device holds when a scenario starts: the `saved` and `device` lines
/// (an extension, docs/scenarios.md "A device's starting contents"). Empty, it is
/// the contract's fresh device. A recording made on a device that already held
/// something starts with these lines, so it replays without the state directory.
public struct DeviceStart: Equatable, Sendable {
    /// The saved requests, oldest first; their ids are 1, 2, ... in this order
    /// (ids restart in each process: a launch gives them the run's first ids).
    public var saved: [SavedRequest] = []
    /// The consent gate's decision (LinkTrail's LT-1).
    public var consent: Consent = .undecided
    /// Whether the consent gate's install was created (LinkTrail's LT-3): a launch then makes none.
    public var installCreated = false
    /// How many times the device was opened before; salts new idempotency keys (LT-7).
    public var opens: UInt64 = 0
    /// The file's first `saved` or `device` line, when read from a file (not compared by `==`).
    public internal(set) var line: Int?

    public init() {}

    public static func == (a: DeviceStart, b: DeviceStart) -> Bool {
        a.saved == b.saved && a.consent == b.consent && a.installCreated == b.installCreated && a.opens == b.opens
    }

    /// The most opens a device may count (docs/storage.md: the store's limit).
    public static let maxOpens: UInt64 = (1 << 24) - 1
    /// The most attempts a saved request may count (docs/storage.md).
    public static let maxAttempts: Int32 = 1_000_000_000

    /// Whether it is the fresh device every scenario starts with otherwise.
    public var isEmpty: Bool { self == DeviceStart() }

    /// What `store` holds now (read before the model launches on it).
    public init(of store: any DeviceStore) {
        saved = store.loadAll()
        for i in saved.indices { saved[i].id = Int32(i + 1) }
        consent = store.consent
        installCreated = store.installCreated
        opens = store.epoch
    }

    /// Puts these contents on `store`, a fresh device. The open count goes only
    /// to a device in memory (a device on disk counts its own opens: `outbox run
    /// --state-dir` refuses a file with these lines).
    public func seed(_ store: any DeviceStore) {
        for r in saved { store.save(r) }
        if consent != .undecided { store.consent = consent }
        if installCreated { store.installCreated = true }
        if let memory = store as? InMemoryDeviceStore { memory.epoch = opens }
    }

    /// The scenario lines that give these contents on `profile` (none when empty):
    /// a `device` line for the consent gate's device-wide facts, then one `saved` line a
    /// request. `Scenario.parse` reads them back to the same contents.
    public func lines(profile: Profile) -> [String] {
        var out: [String] = []
        if profile.hasConsentGate && (consent != .undecided || installCreated || opens != 0) {
            var w = ["device"]
            if consent != .undecided { w += ["consent", consent.word] }
            if installCreated { w += ["install", "created"] }
            if opens != 0 { w += ["opens", String(opens)] }
            out.append(w.joined(separator: " "))
        }
        for r in saved {
            var w = ["saved", profile.word(r.kind), ActionSyntax.word(r.name)]
            if r.createdAt != 0 { w += ["created", VirtualTime.duration(r.createdAt)] }
            if r.attempts != 0 { w += ["attempts", String(r.attempts)] }
            if profile.hasIdempotencyKeys {
                w += ["key", r.idempotencyKey == 0 ? "none" : Simulation.hexKey(r.idempotencyKey)]
            }
            if r.waitingForConsent && r.kind == .install && profile.hasConsentGate { w.append("waiting") }
            if let v = r.value { w.append("value=" + v.text) }
            if !r.currency.isEmpty { w.append("currency=" + r.currency) }
            for a in r.attributes { w.append(ActionSyntax.word(a.key + "=" + a.value)) }
            out.append(w.joined(separator: " "))
        }
        return out
    }

    /// Whether `profile` can hold a request of `kind`: one the app makes there
    /// (an install comes with the consent gate); nil when it can, else why not.
    public static func kind(_ kind: RequestKind, on profile: Profile) -> String? {
        if profile.savesNothing {
            return "profile \(profile.rawValue) saves nothing (`save never`): its device holds no saved request"
        }
        if profile.makes(kind) { return nil }
        if kind == .install { return "an install comes with the consent gate; profile \(profile.rawValue) has none" }
        return "\(profile.word(kind)) is not among the requests of profile \(profile.rawValue)"
    }

    static let savedForm =
        "`saved <kind> <name> [created <time>] [attempts <n>] [key <16 hex digits>|none] [waiting] [value=<n>] [currency=<ABC>] [<key>=<value> ...]`"
    static let deviceForm = "`device [consent undecided|granted|denied] [install created|none] [opens <n>]`"

    /// Reads the words of a `saved` line after `saved`, for a device of
    /// `profile`. `lenient` (a file played on another profile by `outbox
    /// compare`): a `key` on a profile without idempotency keys is read, checked
    /// and left out rather than an error. The id is 0: the caller numbers the
    /// lines; `keyGiven` is false when a line for a profile with idempotency keys gave no `key` (the caller
    /// gives it the one LT-7 would).
    static func parseSaved(_ w: [String], profile: Profile, lenient: Bool)
        -> Result<(request: SavedRequest, keyGiven: Bool), Problem>
    {
        guard w.count >= 2 else { return .failure(Problem("bad saved line, expected " + savedForm)) }
        guard let kind = profile.vocabulary.kind(w[0]) else {
            return .failure(
                Problem(
                    "unknown request kind `\(w[0])`, expected one of: "
                        + profile.vocabulary.kinds.joined(separator: ", ")))
        }
        if let why = DeviceStart.kind(kind, on: profile) { return .failure(Problem(why)) }
        // The name is the word after the kind, whatever it holds (a screen may be named `a=b`).
        var r = SavedRequest(
            id: 0, kind: kind, name: w[1], createdAt: 0, idempotencyKey: 0, value: nil, currency: "",
            attributes: [], attempts: 0, waitingForConsent: false)
        var seen = Set<String>()
        var i = 2
        while i < w.count {
            let word = w[i]
            i += 1
            if let eq = word.firstIndex(of: "="), eq != word.startIndex {
                // As `track` reads them: value, currency, then attributes.
                guard kind == .event else {
                    return .failure(Problem("`\(word)`: only an event has a value, a currency or attributes"))
                }
                let key = String(word[..<eq]), value = String(word[word.index(after: eq)...])
                switch key {
                case "value":
                    guard let v = Amount.parse(value) else {
                        return .failure(Problem("bad value `\(value)`, expected a decimal number like 49.99"))
                    }
                    r.value = v
                case "currency":
                    guard value.count == 3, value.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                        return .failure(Problem("bad currency `\(value)`, expected three capital letters like USD"))
                    }
                    r.currency = value
                default:
                    r.attributes.append(Attribute(key: key, value: value))
                }
                continue
            }
            guard ["created", "attempts", "key", "waiting"].contains(word) else {
                return .failure(Problem("unknown word `\(word)` in a saved line, expected " + savedForm))
            }
            guard seen.insert(word).inserted else { return .failure(Problem("`\(word)` given twice in a saved line")) }
            if word == "waiting" {
                // Only LinkTrail has installs: this is a LinkTrail line.
                guard kind == .install else {
                    return .failure(Problem("`waiting` is only for an install held by the consent gate (LT-3)"))
                }
                r.waitingForConsent = true
                continue
            }
            guard i < w.count else { return .failure(Problem("`\(word)` needs a value, expected " + savedForm)) }
            let value = w[i]
            i += 1
            switch word {
            case "created":
                // A saved request may come from a long-lived device: its time is held
                // to the clock's range, not to the input limit of `at` lines.
                guard let t = VirtualTime.parse(value), t <= VirtualTime.maxClock else {
                    return .failure(
                        Problem("bad created time `\(value)`, " + VirtualTime.expected)
                    )
                }
                r.createdAt = t
            case "attempts":
                guard let n = Int32(value), n >= 0, n <= maxAttempts else {
                    return .failure(Problem("bad attempts `\(value)`, expected a whole number from 0 to 1000000000"))
                }
                r.attempts = n
            default:  // key
                if value != "none" {
                    guard value.utf8.count == 16, let k = UInt64(value, radix: 16), k != 0 else {
                        return .failure(Problem("bad key `\(value)`, expected 16 hex digits (not all zero) or none"))
                    }
                    r.idempotencyKey = k
                }
                if !profile.hasIdempotencyKeys {
                    guard lenient else {
                        return .failure(
                            Problem(
                                "`key`: profile \(profile.rawValue) has no idempotency keys"))
                    }
                    r.idempotencyKey = 0
                }
            }
        }
        return .success((r, seen.contains("key") || !profile.hasIdempotencyKeys))
    }

    /// Reads the words of a `device` line after `device` into `self`.
    mutating func parseDevice(_ w: [String]) -> Problem? {
        guard !w.isEmpty, w.count % 2 == 0 else {
            return Problem("bad device line, expected " + DeviceStart.deviceForm)
        }
        var seen = Set<String>()
        for k in stride(from: 0, to: w.count, by: 2) {
            let (word, value) = (w[k], w[k + 1])
            guard seen.insert(word).inserted else { return Problem("`\(word)` given twice in a device line") }
            switch word {
            case "consent":
                switch value {
                case "undecided": consent = .undecided
                case "granted": consent = .granted
                case "denied": consent = .denied
                default: return Problem("bad consent `\(value)`, expected undecided, granted or denied")
                }
            case "install":
                guard value == "created" || value == "none" else {
                    return Problem("bad install `\(value)`, expected created or none")
                }
                installCreated = value == "created"
            case "opens":
                guard let n = UInt64(value), n <= DeviceStart.maxOpens else {
                    return Problem("bad opens `\(value)`, expected a whole number from 0 to \(DeviceStart.maxOpens)")
                }
                opens = n
            default:
                return Problem("unknown word `\(word)` in a device line, expected " + DeviceStart.deviceForm)
            }
        }
        return nil
    }
}
