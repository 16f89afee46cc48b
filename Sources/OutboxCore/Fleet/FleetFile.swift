/// A fleet file (docs/fleet.md): a scenario file with fleet statements before
/// its first `at` line. The statements say how many devices, which profiles,
/// how often each tracks an event, what the backend can serve and for how
/// long; every other line is the scenario's and happens on every device at
/// its time (`launch`, `server`, `network`, `set`, ...).
public struct FleetFile: Sendable {
    public let file: String
    /// How many devices, numbered 0 to `devices` − 1.
    public let devices: Int
    /// The profiles and each one's share of the devices, in basis points (summing to 10,000).
    public let mix: [(profile: Profile, basisPoints: Int)]
    /// The scenario each profile's devices play: the file's lines parsed for that profile, by `mix` index.
    public let scenarios: [Scenario]
    /// The event streams every device draws, each its own Poisson process.
    public let events: [EventStream]
    /// What the backend serves a second (nil: no limit) and what it answers beyond.
    public let capacity: Int?
    public let overAnswer: Answer
    public let duration: Millis
    public let seed: UInt64
    public let churn: [Churn]
    /// How many lanes the backend's capacity is split into (`lanes N`; docs/fleet.md, "Lanes").
    public let lanes: Int
    /// The file's lines that make a device scenario's header (`set`, `saved`, `device`), as written.
    public let headerLines: [String]
    /// When the backend or the network went down and came back, from the file's lines.
    public let outages: [Outage]

    /// `events every D [call WORD] [names A,B,...]`.
    public struct EventStream: Sendable, Equatable {
        public let mean: Millis
        public let call: String
        public let names: [String]
        /// The action of each name, by `mix` index then name index.
        public let actions: [[Action]]
        public let line: Int
    }

    /// `churn offline|relaunch|background every D for|closed L`.
    public struct Churn: Sendable, Equatable {
        public enum Kind: String, Sendable { case offline, relaunch, background }
        public let kind: Kind
        public let every: Millis
        public let lasting: Millis
        public let line: Int
    }

    /// A stretch in which the file's lines had the backend failing or the network off.
    public struct Outage: Sendable, Equatable, Codable {
        public let from: Millis
        /// nil: to the end of the run.
        public let to: Millis?
        public let what: String
        public init(from: Millis, to: Millis?, what: String) {
            self.from = from
            self.to = to
            self.what = what
        }
    }

    /// The profile of device `d`: drawn from the seed and its number only.
    public func mixIndex(of d: Int) -> Int {
        guard mix.count > 1 else { return 0 }
        let bp = Int(FleetDraw.value(seed, device: d, stream: FleetDraw.profileStream) % 10_000)
        var sum = 0
        for (k, m) in mix.enumerated() {
            sum += m.basisPoints
            if bp < sum { return k }
        }
        return mix.count - 1
    }

    /// The seed of device `d`'s own draws (chances, jitter, keys): its `set seed`.
    public func deviceSeed(_ d: Int) -> UInt64 {
        FleetDraw.value(seed ^ scenarios[mixIndex(of: d)].settings.seed, device: d, stream: FleetDraw.seedStream)
    }

    /// The most devices a fleet file may have.
    public static let maxDevices = 10_000_000
    /// The longest fleet run.
    public static let maxDuration: Millis = 7 * 86_400_000
}

/// Draws of a fleet: device `d`'s stream `k`, from the fleet's seed only, so
/// device 17 lives the same life alone, in a shard or in the whole fleet.
public enum FleetDraw {
    static let profileStream: UInt64 = 1, seedStream: UInt64 = 2, churnStream: UInt64 = 16, eventStream: UInt64 = 64

    @inline(__always)
    public static func value(_ seed: UInt64, device d: Int, stream k: UInt64) -> UInt64 {
        var g = SplitMix64(seed: seed ^ 0xF1EE_7000_0000_0000 ^ (k << 40))
        var h = SplitMix64(seed: g.next() ^ UInt64(d))
        return h.next()
    }

    /// A stream's starting state.
    @inline(__always)
    static func stream(_ seed: UInt64, device d: Int, stream k: UInt64) -> UInt64 { value(seed, device: d, stream: k) }

    /// The next wait of a Poisson process of this mean: exponential, in whole
    /// milliseconds, at least 1. Computed with + − × ÷ only (`ln`), so every
    /// platform draws the same times.
    @inline(__always)
    static func wait(_ state: inout UInt64, mean: Millis) -> Millis {
        var g = SplitMix64(seed: state)
        let r = g.next()
        state = g.state
        // (0, 1]: 53 bits, never 0.
        let u = (Double(r >> 11) + 1) * 0x1p-53
        let w = -ln(u) * Double(mean)
        return w < 1 ? 1 : (w > 1e15 ? 1_000_000_000_000_000 : Millis(w.rounded()))
    }

    /// A uniform draw below `n`.
    @inline(__always)
    static func below(_ state: inout UInt64, _ n: Int) -> Int {
        var g = SplitMix64(seed: state)
        let r = g.next()
        state = g.state
        return Int(r % UInt64(n))
    }

    /// The natural logarithm of `x` > 0 from IEEE arithmetic alone: `x = m·2^e`
    /// with m in [√½, √2), then 2·atanh((m−1)/(m+1)) by its series (|s| < 0.172,
    /// 12 terms reach below 1e-17).
    static func ln(_ x: Double) -> Double {
        var e = Double(x.exponent)
        var m = x.significand  // [1, 2)
        if m > 1.4142135623730951 {
            m /= 2
            e += 1
        }
        let s = (m - 1) / (m + 1), s2 = s * s
        var term = s, sum = 0.0
        var k = 1.0
        for _ in 0..<12 {
            sum += term / k
            term *= s2
            k += 2
        }
        return 2 * sum + e * 0.6931471805599453
    }
}

extension FleetFile {
    /// The words that start a fleet statement.
    static let statementWords = ["devices", "profile", "events", "capacity", "duration", "seed", "churn", "lanes"]

    /// Parses a fleet file: every problem found is returned, naming its line.
    /// With `playing`, every device plays that profile instead of the file's
    /// `profile` line or mix (`outbox fleet --profiles`, D355); the file's own
    /// line must still be right.
    public static func parse(
        _ text: String, file: String, profiles: ProfileResolver = .builtins, playing: Profile? = nil
    ) -> Result<FleetFile, ScenarioErrors> {
        var p = FleetFileParser(file: file, resolver: profiles)
        p.playing = playing
        return p.parse(text)
    }
}

struct FleetFileParser {
    let file: String
    let resolver: ProfileResolver
    /// The profile every device plays instead of the file's (`--profiles`).
    var playing: Profile?
    var errors: [ScenarioError] = []
    var devices: Int?
    var mix: [(profile: Profile, basisPoints: Int)] = []
    var profileLine = 0
    var events: [(mean: Millis, call: String, names: [String], line: Int)] = []
    var capacity: Int?
    var overAnswer: Answer = .status(503)
    var duration: Millis?
    var seed: UInt64 = 1
    var churn: [FleetFile.Churn] = []
    var lanes: Int?
    var seen: Set<String> = []

    init(file: String, resolver: ProfileResolver) {
        self.file = file
        self.resolver = resolver
    }

    mutating func fail(_ n: Int, _ message: String) {
        errors.append(ScenarioError(file: file, line: n, message: message))
    }

    mutating func parse(_ text: String) -> Result<FleetFile, ScenarioErrors> {
        let body = TextInput.droppingBOM(text)
        var lines = body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var seenAt = false
        var header: [String] = []
        var launches = false
        for k in lines.indices {
            let n = k + 1
            var line = lines[k]
            if line.hasSuffix("\r") { line.removeLast() }
            guard case .success(let (w, _)) = LineLexer.words(line), let first = w.first else { continue }
            if first == "at" || first == "expect" {
                if first == "expect" {
                    fail(
                        n,
                        "`expect` in a fleet file, expected checks in a device's own scenario: write one with `outbox fleet FILE --device N` and add them there"
                    )
                    lines[k] = ""
                }
                if w.count >= 3 && w[2] == "launch" { launches = true }
                seenAt = true
                continue
            }
            if first == "set" || first == "saved" || first == "device" { header.append(line) }
            if first == "compare" {
                fail(
                    n,
                    "`compare` in a fleet file, expected `profile A P% B P%` for a mix, or `outbox fleet --profiles A,B`"
                )
                lines[k] = ""
                continue
            }
            guard FleetFile.statementWords.contains(first) else { continue }
            if seenAt {
                fail(n, "`\(first)` after the first `at` line, expected fleet statements before the first `at`")
                lines[k] = ""
                continue
            }
            if first != "events" && first != "churn" {
                if seen.contains(first) {
                    fail(n, "a second `\(first)` line, expected one")
                    lines[k] = ""
                    continue
                }
                seen.insert(first)
            }
            statement(n, w)
            // The scenario parser sees the first profile as the file's own; the rest is the fleet's.
            lines[k] =
                first == "profile" && !mix.isEmpty ? "profile " + ActionSyntax.word(mix[0].profile.reference) : ""
        }
        if mix.isEmpty && profileLine == 0 {
            fail(1, "no profile line, expected `profile NAME` or a mix, `profile ios 70% android 30%`")
        }
        if devices == nil { fail(1, "no devices line, expected `devices N` (e.g. `devices 1000000`)") }
        if duration == nil { fail(1, "no duration line, expected `duration D` (e.g. `duration 2h`)") }
        if !launches && !mix.isEmpty {
            fail(
                1, "no line launches the app, so no device tracks an event; expected `at 0s launch` (as in a scenario)")
        }
        guard errors.isEmpty, let devices, let duration else { return .failure(ScenarioErrors(errors: errors)) }
        if let playing { mix = [(playing, 10_000)] }
        let scenarioText = lines.joined(separator: "\n")
        var scenarios: [Scenario] = []
        for m in mix {
            switch Scenario.parse(scenarioText, file: file, playing: m.profile, profiles: resolver) {
            case .success(let s):
                // A line the profile lacks is an error here: every device must play every line.
                for skip in s.skipped {
                    fail(skip.line, "\(m.profile.rawValue) lacks this line: \(skip.reason)")
                }
                scenarios.append(s)
            case .failure(let e):
                for x in e.errors where !errors.contains(x) {
                    errors.append(
                        mix.count > 1 || playing != nil
                            ? ScenarioError(
                                file: x.file, line: x.line, message: x.message + " (for \(m.profile.rawValue))")
                            : x)
                }
            }
        }
        var streams: [FleetFile.EventStream] = []
        for e in events {
            var actions: [[Action]] = []
            for (k, m) in mix.enumerated() {
                var row: [Action] = []
                for name in e.names {
                    let words = (e.call == "track" ? ["track", name] : [e.call, name])
                    switch ActionSyntax.parse(words, vocabulary: m.profile.vocabulary) {
                    case .success(let a):
                        if let why = a.unsupported(on: m.profile) {
                            fail(e.line, "bad events line: " + why)
                        } else {
                            row.append(a)
                        }
                    case .failure(let why): fail(e.line, "bad events line: " + why.message)
                    case nil: fail(e.line, "bad events line: `\(e.call)` is not an action")
                    }
                    if !errors.isEmpty { break }
                }
                actions.append(row)
                _ = k
                if !errors.isEmpty { break }
            }
            streams.append(
                FleetFile.EventStream(mean: e.mean, call: e.call, names: e.names, actions: actions, line: e.line))
        }
        for c in churn where c.kind == .background {
            for m in mix where !m.profile.hasLifecycle {
                fail(
                    c.line,
                    "churn background on \(m.profile.rawValue), which has no app lifecycle (background, foreground)")
            }
        }
        guard errors.isEmpty else { return .failure(ScenarioErrors(errors: errors)) }
        let laneCount = lanes ?? FleetFile.defaultLanes(devices: devices)
        return .success(
            FleetFile(
                file: file, devices: devices, mix: mix, scenarios: scenarios, events: streams, capacity: capacity,
                overAnswer: overAnswer, duration: duration, seed: seed, churn: churn, lanes: laneCount,
                headerLines: header, outages: FleetFile.outages(of: scenarios[0], duration: duration)))
    }

    mutating func statement(_ n: Int, _ w: [String]) {
        switch w[0] {
        case "devices":
            guard w.count == 2, let d = Int(String(w[1].filter { $0 != "_" })), d >= 1,
                d <= FleetFile.maxDevices
            else {
                return fail(n, "bad devices line, expected `devices N` with N from 1 to \(FleetFile.maxDevices)")
            }
            devices = d
        case "profile":
            profileLine = n
            mixLine(n, Array(w.dropFirst()))
        case "events":
            eventsLine(n, w)
        case "capacity":
            capacityLine(n, w)
        case "duration":
            guard w.count == 2, let d = VirtualTime.parse(w[1]), d >= 1000, d <= FleetFile.maxDuration else {
                return fail(n, "bad duration line, expected `duration D` from 1s to 7 days (e.g. `duration 2h`)")
            }
            guard d % 1000 == 0 else { return fail(n, "bad duration `\(w[1])`, expected whole seconds") }
            duration = d
        case "seed":
            guard w.count == 2, let s = UInt64(w[1]) else {
                return fail(n, "bad seed line, expected `seed N` with N a whole number from 0 to \(UInt64.max)")
            }
            seed = s
        case "lanes":
            guard w.count == 2, let l = Int(w[1]), (1...4096).contains(l) else {
                return fail(n, "bad lanes line, expected `lanes N` with N from 1 to 4096")
            }
            lanes = l
        case "churn":
            churnLine(n, w)
        default:
            break
        }
    }

    mutating func mixLine(_ n: Int, _ w: [String]) {
        let form = "expected `profile NAME` or a mix, `profile ios 70% android 30%` (shares summing to 100%)"
        guard !w.isEmpty else { return fail(n, "bad profile line, " + form) }
        if w.count == 1 {
            switch resolver.resolve(w[0]) {
            case .success(let p): mix = [(p, 10_000)]
            case .failure(let why): fail(n, "bad profile line: " + why.message)
            }
            return
        }
        guard w.count % 2 == 0 else { return fail(n, "bad profile line, " + form) }
        var out: [(profile: Profile, basisPoints: Int)] = []
        for k in stride(from: 0, to: w.count, by: 2) {
            let p: Profile
            switch resolver.resolve(w[k]) {
            case .success(let found): p = found
            case .failure(let why): return fail(n, "bad profile line: " + why.message)
            }
            guard let bp = ServerRepeat.percent(w[k + 1]), bp > 0 else {
                return fail(n, "bad share `\(SafeText.escaped(w[k + 1], max: 20))` for \(w[k]), " + form)
            }
            guard !out.contains(where: { $0.profile == p }) else {
                return fail(n, "bad profile line: `\(w[k])` named twice, " + form)
            }
            out.append((p, bp))
        }
        let total = out.reduce(0) { $0 + $1.basisPoints }
        guard total == 10_000 else {
            return fail(n, "bad profile line: the shares sum to \(ServerRepeat.percentText(total)), " + form)
        }
        mix = out
    }

    mutating func eventsLine(_ n: Int, _ w: [String]) {
        let form = "expected `events every D [call WORD] [names A,B,...]` (e.g. `events every 1m names open,buy`)"
        guard w.count >= 3, w[1] == "every" else { return fail(n, "bad events line, " + form) }
        guard let mean = VirtualTime.parse(w[2]), mean >= 1 else {
            return fail(
                n, "bad events interval `\(SafeText.escaped(w[2], max: 20))`, expected a time of at least 1ms, " + form)
        }
        var call = "track", names = ["event"]
        var k = 3
        while k < w.count {
            guard k + 1 < w.count else { return fail(n, "bad events line: `\(w[k])` needs a word after it, " + form) }
            switch w[k] {
            case "call": call = w[k + 1]
            case "names":
                names = w[k + 1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard !names.contains(where: \.isEmpty) else {
                    return fail(n, "bad events names `\(w[k + 1])`: an empty name, " + form)
                }
            default:
                return fail(
                    n,
                    "bad events line: unknown word `\(w[k])`, " + form + Suggest.hint(w[k], among: ["call", "names"]))
            }
            k += 2
        }
        events.append((mean, call, names, n))
    }

    mutating func capacityLine(_ n: Int, _ w: [String]) {
        let form =
            "expected `capacity R/s [answer STATUS [retry-after D]]` (e.g. `capacity 20000/s answer 429 retry-after 30s`)"
        guard w.count >= 2, w[1].hasSuffix("/s"),
            let r = Int(String(w[1].dropLast(2).filter { $0 != "_" })), r >= 1
        else {
            return fail(n, "bad capacity line, " + form)
        }
        capacity = r
        guard w.count > 2 else { return }
        guard w[2] == "answer", w.count >= 4 else { return fail(n, "bad capacity line, " + form) }
        switch ActionSyntax.server(Array(w[3...]), .builtin) {
        case .success(.serverPlanned(let a, .times(1), .all)):
            guard a != .ok, !a.isSuccessAnswer else {
                return fail(n, "bad capacity line: the answer beyond capacity must fail (not `\(a.word)`), " + form)
            }
            overAnswer = a
        case .success: fail(n, "bad capacity line: an answer takes no repeat or target, " + form)
        case .failure(let why): fail(n, "bad capacity line: " + why.message)
        }
    }

    mutating func churnLine(_ n: Int, _ w: [String]) {
        let form =
            "expected `churn offline every D for L`, `churn relaunch every D [closed L]` or `churn background every D for L`"
        guard w.count >= 4, let kind = FleetFile.Churn.Kind(rawValue: w[1]), w[2] == "every" else {
            return fail(
                n,
                "bad churn line, " + form
                    + (w.count > 1 ? Suggest.hint(w[1], among: ["offline", "relaunch", "background"]) : ""))
        }
        guard let every = VirtualTime.parse(w[3]), every >= 1000 else {
            return fail(
                n, "bad churn interval `\(SafeText.escaped(w[3], max: 20))`, expected a time of at least 1s, " + form)
        }
        var lasting: Millis = kind == .relaunch ? 0 : -1
        if w.count == 6 {
            let word = kind == .relaunch ? "closed" : "for"
            guard w[4] == word, let l = VirtualTime.parse(w[5]) else { return fail(n, "bad churn line, " + form) }
            lasting = l
        } else if w.count != 4 {
            return fail(n, "bad churn line, " + form)
        }
        guard lasting >= 0 else { return fail(n, "bad churn line: `churn \(kind.rawValue)` needs `for L`, " + form) }
        churn.append(FleetFile.Churn(kind: kind, every: every, lasting: lasting, line: n))
    }
}

extension Answer {
    /// Whether the backend accepts it (a 2xx, `ok`, `partial`).
    var isSuccessAnswer: Bool {
        switch self {
        case .ok, .partial: return true
        case .status(let s), .retryAfter(let s, _): return (200...299).contains(s)
        case .timeout, .lost, .reset: return false
        }
    }
}

extension FleetFile {
    /// Lanes by default: one per 10,000 devices, at most 16 (docs/fleet.md, "Lanes").
    public static func defaultLanes(devices: Int) -> Int { max(1, min(16, devices / 10_000)) }

    /// The stretches the file's lines make the backend fail (a `server` plan that
    /// fails every attempt or a share of them) or the network off (`network offline`).
    static func outages(of s: Scenario, duration: Millis) -> [Outage] {
        outages(
            of: s.steps.compactMap { step in
                if case .action(let a) = step.content { return (step.time, a) }
                return nil
            }, duration: duration)
    }

    /// The file's lines and `lines` played live after them (`--live`'s `o`,
    /// `:server`), by time, the file's first at the same time: the outages they
    /// make, each named by the line that began it (a live `server 503` is not
    /// renamed by the file's `server timeout` later in it).
    public func outages(with lines: [(time: Millis, action: Action)]) -> [Outage] {
        var all: [(time: Millis, action: Action)] = scenarios[0].steps.compactMap { step in
            if case .action(let a) = step.content { return (step.time, a) }
            return nil
        }
        for l in lines {
            let at = all.firstIndex { $0.time > l.time } ?? all.count
            all.insert(l, at: at)
        }
        return FleetFile.outages(of: all, duration: duration, namedByFirst: true)
    }

    /// `namedByFirst`: an outage is named by the line that began it, not the last before it ended.
    static func outages(of lines: [(time: Millis, action: Action)], duration: Millis, namedByFirst: Bool = false)
        -> [Outage]
    {
        var out: [Outage] = []
        var downSince: Millis?, what = ""
        for (time, a) in lines {
            guard time < duration else { continue }
            var down: Bool?
            switch a {
            case .serverPlanned(let answer, let rep, .all):
                if answer.isSuccessAnswer { down = false } else if case .times = rep { down = nil } else { down = true }
                if down == true && !(namedByFirst && downSince != nil) { what = "server " + answer.word }
            case .networkWentOffline:
                down = true
                if !(namedByFirst && downSince != nil) { what = "network offline" }
            case .networkWentOnline: down = false
            default: break
            }
            if down == true && downSince == nil { downSince = time }
            if down == false, let from = downSince {
                out.append(Outage(from: from, to: time, what: what))
                downSince = nil
            }
        }
        if let from = downSince { out.append(Outage(from: from, to: nil, what: what)) }
        return out
    }
}
