import OutboxCore

/// What `outbox serve` saw and said: each request read (its wire format and
/// events), the answer the plan chose, and the events by id across retries.
/// Pure: the caller passes the time (milliseconds since the start) with every
/// step, so a test steps it as the server does, without a network.
public struct ServeSession: Sendable {
    /// One event, identified by its id across the requests that carried it.
    public struct Event: Sendable, Equatable {
        public let id: String
        public let name: String
        public let kind: String
        public let format: WireFormat
        /// The request (an index into `requests`) of its first arrival, and those
        /// of the later ones (the first inline: most events arrive once, and an
        /// array each would cost 10^6 allocations).
        let first: Int32
        var later: [Int32] = []
        /// Answered 2xx at least once.
        public var delivered = false
        /// The requests (indices into `requests`) that carried it, in order.
        public var attempts: [Int] { [Int(first)] + later.map { Int($0) } }
        /// How many requests carried it.
        public var attemptCount: Int { 1 + later.count }
        // No payload is kept per event (10^6 events would hold 10^6 trees): its
        // latest attempt's request keeps the body, within `keptBodies`.
    }

    /// One HTTP request: an attempt for each event it carried.
    public struct Request: Sendable {
        public let time: Millis
        public let method: String
        public let target: String
        public let format: WireFormat?
        /// Each event it carried (an index into `events`) and which attempt of it this was.
        public let carried: [Carried]
        /// Indices into `events`.
        public var events: [Int] { carried.map { Int($0.event) } }
        /// The attempt number of each of `events` (1 for a first arrival).
        public var attemptNumbers: [Int] { carried.map { Int($0.attempt) } }
        public let answer: Answer
        /// Why the request could not be read (nil when it was).
        public let problem: String?
        /// Its headers that tell of retries and bodies (Retry-After, X-Retry-Count,
        /// Content-Encoding, User-Agent, Content-Type): an index into the session's
        /// `headerSets` (an SDK sends the same few sets again and again).
        public let headerSet: Int32
        public let bodyBytes: Int
        /// How long its answer was delayed (`set latency`).
        public let delay: Millis
        /// The body after inflating, clipped to `keptBody` bytes; empty once
        /// `keptBodies` bytes of bodies are kept (a run of many requests).
        public let body: [UInt8]
    }

    /// What the server does with a request.
    public enum Reply: Sendable, Equatable {
        /// Answer `status` after `delay`, with `Retry-After` when given (whole seconds, rounded up).
        case respond(status: Int, retryAfter: Millis?, body: String, delay: Millis)
        /// Hold the connection without answering (`timeout`).
        case hold
        /// Read the request and close without a response (`lost`).
        case close
        /// Read the request and reset the connection (`reset`): a TCP RST, no response.
        case reset
        /// Held at the breakpoint the live screen armed: not answered (nor recorded)
        /// until `release(_:answer:at:)` names its answer; `token` names it there.
        case held(token: Int)
    }

    /// The live screen's breakpoint (`b`): the next request, or the next carrying
    /// an event of this name, is held until the user picks its answer. One-shot:
    /// it disarms when it catches one. Headless runs never arm it.
    public enum Breakpoint: Sendable, Equatable {
        case next
        case name(String)

        public var label: String {
            switch self {
            case .next: return "the next request"
            case .name(let n): return "the next request carrying " + n
            }
        }
    }

    /// A request caught by the breakpoint, read but not yet answered or recorded.
    public struct Held: Sendable {
        public let token: Int
        public let time: Millis
        public let request: WireRequest
        public let reading: WireFormat.Reading
    }

    /// An event carried by a request: its index in `events`, and its attempt number there.
    public struct Carried: Sendable, Equatable {
        public let event: Int32
        public let attempt: Int32
    }

    /// An event's key: its format and id (its id's storage shared with the event's).
    struct Key: Hashable {
        let format: WireFormat?
        let id: String
    }

    /// A line of the run's log: a plan or the network changed, a request came.
    public struct LogLine: Sendable, Equatable {
        public let time: Millis
        public let text: String
    }

    public private(set) var events: [Event] = []
    public private(set) var requests: [Request] = []
    public private(set) var log: [LogLine] = []
    public private(set) var plans = ServerPlans()
    public private(set) var online = true
    public private(set) var latency: Millis = 0
    public let script: ServeScript
    public let idField: String?
    public let seed: UInt64
    /// The last time a request came, or nil before the first.
    public private(set) var lastRequestAt: Millis?
    var next = 0
    var byID: [Key: Int32] = [:]
    /// The distinct sets of notable headers requests came with; each request names one.
    public private(set) var headerSets: [[(name: String, value: String)]] = []
    var headerSetIndex: [String: Int32] = [:]
    var lastHeaderSet: Int32?
    /// The breakpoint armed, or nil.
    public private(set) var breakpoint: Breakpoint?
    /// The requests held at the breakpoint, oldest first.
    public private(set) var held: [Held] = []
    var nextToken = 1

    /// The body bytes each request keeps for the detail pane and the report.
    public static let keptBody = 64 * 1024
    /// The most body bytes a session keeps in all: 64 MB. Past it, requests are
    /// still read, answered and counted, without their bodies.
    public static let keptBodies = 64 * 1024 * 1024
    /// Body bytes kept so far.
    public private(set) var keptBytes = 0

    public init(script: ServeScript = ServeScript(), idField: String? = nil, seed: UInt64 = 1) {
        self.script = script
        self.idField = idField
        self.seed = seed
    }

    /// Plays the script's steps due by `now`.
    public mutating func advance(to now: Millis) {
        while next < script.steps.count && script.steps[next].time <= now {
            let s = script.steps[next]
            next += 1
            play(s.item, at: s.time)
        }
    }

    /// Plays one step at `t`: a script's line, or one the live screen chose (a
    /// key, a `:` line), with its log line.
    public mutating func play(_ step: ServeScript.Step, at t: Millis) {
        switch step {
        case .server(let a, let rep, let target):
            plans.apply(a, rep, for: target, vocabulary: ServeScript.vocabulary)
            say(t, "backend will answer: " + plans.summary)
        case .network(let on):
            online = on
            say(t, on ? "network online: connections are accepted" : "network offline: connections are refused")
        case .latency(let d):
            latency = d
            say(t, "latency \(VirtualTime.duration(d)): each answer waits this long")
        }
    }

    /// The time of the next script step, or nil when none is left.
    public var nextStepAt: Millis? { next < script.steps.count ? script.steps[next].time : nil }

    mutating func say(_ t: Millis, _ text: String) { log.append(LogLine(time: t, text: text)) }

    /// A request arrived at `now`: it is read, recorded, and answered by the
    /// plan; or, when it matches the armed breakpoint, held (`.held`) unrecorded.
    public mutating func receive(_ r: WireRequest, at now: Millis) -> Reply {
        advance(to: now)
        lastRequestAt = now
        let reading = WireFormat.read(r, idField: idField)
        if let b = breakpoint, Self.catches(b, reading) {
            breakpoint = nil
            let token = nextToken
            nextToken += 1
            held.append(Held(token: token, time: now, request: r, reading: reading))
            say(now, "breakpoint: holding \(r.method) \(SafeText.escaped(r.path, max: 80)) until its answer is chosen")
            return .held(token: token)
        }
        return record(r, reading, at: now, answer: nil, delay: latency)
    }

    /// Whether a breakpoint catches a request read so.
    static func catches(_ b: Breakpoint, _ reading: WireFormat.Reading) -> Bool {
        switch b {
        case .next: return true
        case .name(let n): return reading.events.contains { $0.name == n }
        }
    }

    /// Arms the breakpoint (nil disarms it), said in the log at `now`.
    public mutating func arm(_ b: Breakpoint?, at now: Millis) {
        breakpoint = b
        say(now, b.map { "breakpoint armed: " + $0.label + " is held until its answer is chosen" } ?? "breakpoint off")
    }

    /// Answers a held request with `answer` (nil: the plan's, as if it had not
    /// been held), recorded with it as it arrived, its answer `now`; the reply
    /// to send, or nil when no request is held by that token.
    public mutating func release(_ token: Int, answer: Answer?, at now: Millis) -> Reply? {
        guard let i = held.firstIndex(where: { $0.token == token }) else { return nil }
        let h = held.remove(at: i)
        let reply = record(h.request, h.reading, at: h.time, answer: answer, delay: max(0, now - h.time) + latency)
        say(
            now,
            "breakpoint: \(h.request.method) \(SafeText.escaped(h.request.path, max: 80)) answered \(requests[requests.count - 1].answer.word)"
        )
        return reply
    }

    /// A held request ended without an answer the user chose: the client closed
    /// its connection (recorded as `timeout`: it saw none), or the server
    /// stopped (`lost`: closed unanswered).
    public mutating func abandon(_ token: Int, as answer: Answer, at now: Millis, why: String) {
        guard let i = held.firstIndex(where: { $0.token == token }) else { return }
        let h = held.remove(at: i)
        _ = record(h.request, h.reading, at: h.time, answer: answer, delay: max(0, now - h.time))
        say(
            now,
            "breakpoint: \(h.request.method) \(SafeText.escaped(h.request.path, max: 80)) \(why): recorded as \(answer.word)"
        )
    }

    /// Records a request read so (its events' attempts, its answer: `answer`,
    /// or the plan's when nil; `delay`: from its arrival to its answer) and
    /// returns its reply.
    mutating func record(
        _ r: WireRequest, _ reading: WireFormat.Reading, at now: Millis, answer chosen: Answer?, delay: Millis
    ) -> Reply {
        var carried: [Carried] = []
        carried.reserveCapacity(reading.events.count)
        let n = Int32(clamping: requests.count)
        for e in reading.events {
            let key = Key(format: reading.format, id: e.id)
            let i: Int
            if let k = byID[key] {
                i = Int(k)
                events[i].later.append(n)
            } else {
                i = events.count
                byID[key] = Int32(i)
                events.append(Event(id: e.id, name: e.name, kind: e.kind, format: reading.format ?? .generic, first: n))
            }
            carried.append(Carried(event: Int32(i), attempt: Int32(clamping: events[i].attemptCount)))
        }
        let indices = carried.map { Int($0.event) }
        // One answer a request: its first event's plan (as a batch takes its oldest request's).
        let answer: Answer
        if let chosen {
            answer = chosen
        } else if let first = indices.first {
            let e = events[first]
            let kind = ServeScript.vocabulary.kind(e.kind) ?? ServeScript.vocabulary.kind("event")!
            answer = plans.answer(
                kind: kind, name: e.name, seed: seed, request: Int32(clamping: first + 1),
                attempt: carried[0].attempt)
        } else {
            answer = plans.answer(
                kind: ServeScript.vocabulary.kind("unrecognised")!, name: "", seed: seed,
                request: n &+ 1, attempt: 1)
        }
        if case .ok = answer { for i in indices { events[i].delivered = true } }
        if case .partial = answer { for i in indices { events[i].delivered = true } }
        if case .status(let s) = answer, (200...299).contains(s) { for i in indices { events[i].delivered = true } }
        let notable = r.headers.filter { h in ServeSession.notable.contains { $0.isCaseless(h.name) } }
        requests.append(
            Request(
                time: now, method: r.method, target: r.target, format: reading.format, carried: carried,
                answer: answer, problem: reading.problem, headerSet: headerSet(notable),
                bodyBytes: r.body.count, delay: delay, body: keep(reading.body)))
        // The answer waits `set latency` from now (a held one's hold is in `delay` already).
        return reply(answer, reading.format)
    }

    /// The headers a request's record keeps.
    static let notable = ["retry-after", "x-retry-count", "content-encoding", "user-agent", "content-type"]

    /// The index of a set of notable headers in `headerSets`, added when new.
    mutating func headerSet(_ hs: [(name: String, value: String)]) -> Int32 {
        // An SDK sends the same set again and again: the last one, compared in
        // place, saves building the key (an allocation a request).
        if let l = lastHeaderSet, Self.same(headerSets[Int(l)], hs) { return l }
        let i = internHeaderSet(hs)
        lastHeaderSet = i
        return i
    }

    static func same(_ a: [(name: String, value: String)], _ b: [(name: String, value: String)]) -> Bool {
        guard a.count == b.count else { return false }
        for k in a.indices where a[k].name != b[k].name || a[k].value != b[k].value { return false }
        return true
    }

    /// `headerSet` past its fast path: the set by its key (names in lower case), added when new.
    mutating func internHeaderSet(_ hs: [(name: String, value: String)]) -> Int32 {
        var key = ""
        for h in hs { key += h.name.lowercased() + "\u{0}" + h.value + "\u{0}" }
        if let i = headerSetIndex[key] { return i }
        let i = Int32(clamping: headerSets.count)
        headerSets.append(hs)
        headerSetIndex[key] = i
        return i
    }

    /// A request's notable headers (Retry-After, X-Retry-Count, Content-Encoding, User-Agent, Content-Type).
    public func headers(of r: Request) -> [(name: String, value: String)] {
        headerSets.indices.contains(Int(r.headerSet)) ? headerSets[Int(r.headerSet)] : []
    }

    /// The part of a body kept for the detail pane and the report, within the budget.
    mutating func keep(_ body: [UInt8]) -> [UInt8] {
        let n = min(body.count, ServeSession.keptBody)
        guard keptBytes + n <= ServeSession.keptBodies else { return [] }
        keptBytes += n
        return Array(body.prefix(n))
    }

    /// The reply an answer makes, with a body the format's SDK reads as what it says.
    func reply(_ answer: Answer, _ format: WireFormat?) -> Reply {
        switch answer {
        case .timeout: return .hold
        case .lost: return .close
        case .reset: return .reset
        case .ok, .partial:
            return .respond(status: 200, retryAfter: nil, body: ServeSession.body(200, format), delay: latency)
        case .status(let s):
            return .respond(status: s, retryAfter: nil, body: ServeSession.body(s, format), delay: latency)
        case .retryAfter(let s, let t):
            return .respond(status: s, retryAfter: t, body: ServeSession.body(s, format), delay: latency)
        }
    }

    /// The body of an answer, as each SDK expects it (docs/wire-formats.md):
    /// Amplitude reads `code`, Mixpanel `status`.
    public static func body(_ status: Int, _ format: WireFormat?) -> String {
        let ok = (200...299).contains(status)
        switch format {
        case .amplitude:
            return ok ? #"{"code":\#(status),"events_ingested":1}"# : #"{"code":\#(status),"error":"outbox"}"#
        case .mixpanel: return ok ? #"{"status":1,"error":null}"# : #"{"status":0,"error":"outbox"}"#
        // v1 reads `results` (an event missing from it is accepted); v0 reads nothing.
        case .posthog: return ok ? #"{"status":"Ok","results":{}}"# : #"{"error":"outbox"}"#
        case .sentry: return ok ? #"{"id":null}"# : #"{"detail":"outbox"}"#
        default: return ok ? #"{"success":true}"# : #"{"success":false}"#
        }
    }

    // MARK: Checks

    public struct Outcome: Sendable, Equatable {
        public let line: Int
        public let text: String
        public let ok: Bool
        /// What was found when it failed.
        public let found: String

        public init(line: Int, text: String, ok: Bool, found: String) {
            self.line = line
            self.text = text
            self.ok = ok
            self.found = found
        }
    }

    /// Evaluates a check on what was seen so far.
    public func evaluate(_ c: ServeScript.Check) -> (ok: Bool, found: String) {
        func named(_ name: String) -> [Event] { events.filter { $0.name == name } }
        switch c {
        case .attempts(let name, let k):
            let es = named(name)
            guard !es.isEmpty else { return (false, "no event named \(name) arrived") }
            let off = es.filter { $0.attemptCount != k }
            guard let o = off.first else { return (true, "") }
            return (false, "event \(o.id) arrived \(o.attemptCount) time\(o.attemptCount == 1 ? "" : "s")")
        case .received(let name, let k):
            let got = named(name).reduce(0) { $0 + $1.attemptCount }
            return (got == k, "\(got) received")
        case .counted(let name, let k):
            let got = named(name).filter(\.delivered).count
            return (got == k, "\(got) answered 2xx")
        case .unrecognised(let k):
            let got = requests.filter { $0.format == nil }.count
            return (got == k, "\(got) unrecognised")
        }
    }
}

extension String {
    /// Whether `other` is this lowercase ASCII word in any case (no allocation).
    func isCaseless(_ other: String) -> Bool {
        var a = utf8.makeIterator(), b = other.utf8.makeIterator()
        while true {
            switch (a.next(), b.next()) {
            case (nil, nil): return true
            case (let x?, let y?):
                let lower = y >= 0x41 && y <= 0x5A ? y + 0x20 : y
                if x != lower { return false }
            default: return false
            }
        }
    }
}
