import OutboxCore

/// What `outbox serve --script FILE` plays: the file's `server`, `network` and
/// `set latency` lines at their times from the start, and its `expect` lines
/// checked against what was observed. A scenario file is a script: its other
/// lines (the app's actions: launch, track, ...) are what the real app does, and
/// are skipped, counted in the run's header.
public struct ServeScript: Sendable {
    public enum Step: Sendable, Equatable {
        case server(Answer, ServerRepeat, ServerTarget)
        case network(online: Bool)
        case latency(Millis)
    }

    /// A check on the observed events (the scenario's words, on serve's terms).
    public enum Check: Sendable, Equatable {
        /// Every event named NAME arrived exactly N times (at least one such event).
        case attempts(String, Int)
        /// Exactly N requests carrying NAME reached the backend, retries included.
        case received(String, Int)
        /// Exactly N distinct events named NAME were answered 2xx.
        case counted(String, Int)
        /// Exactly N requests could not be read.
        case unrecognised(Int)
    }

    public struct Timed<T: Sendable & Equatable>: Sendable, Equatable {
        public let time: Millis
        public let line: Int
        public let item: T
        /// The line as written, for the report.
        public let text: String
    }

    public var steps: [Timed<Step>] = []
    /// `expect at T CHECK` at T; `expect CHECK` (no time) at the end: time -1.
    public var checks: [Timed<Check>] = []
    /// Lines that are the app's actions (skipped).
    public var skipped = 0
    /// `set KEY VALUE` lines before the first `at` other than latency: the
    /// SDK's configuration in the run, which `--profile`'s settings take (a
    /// driver's `max_retries 2` is `set retry.attempts 3`); skipped without one.
    public var settings: [(line: Int, key: String, value: String)] = []
    public var file = ""

    public init() {}

    /// The kinds `server ... for kind:K` may name: the event types real SDKs put
    /// on the wire (Segment's `type`, Mixpanel's endpoints, Sentry's item types),
    /// not a profile's vocabulary (scripts/lint-profiles keeps those out of Swift).
    public static let kinds =
        "track identify screen page group alias capture event engage import groups transaction error envelope unrecognised"
        .split(separator: " ").map(String.init)
    public static let vocabulary = Vocabulary(kinds: kinds)

    public struct Failure: Error, Sendable {
        public let messages: [String]
    }

    /// Reads a script; every bad line is named with its file and line.
    public static func parse(_ text: String, file: String) -> Result<ServeScript, Failure> {
        var s = ServeScript()
        s.file = file
        var errors: [String] = []
        var last: Millis = 0
        var n = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            n += 1
            let line = raw.hasSuffix("\r") ? String(raw.dropLast()) : String(raw)
            func fail(_ why: String) { errors.append("\(file):\(n): " + why) }
            let words: [String]
            switch LineLexer.words(line) {
            case .failure(let p):
                fail(p.message)
                continue
            case .success(let (w, _)): words = w
            }
            guard let first = words.first else { continue }
            switch first {
            case "profile", "compare", "device", "saved":
                s.skipped += 1
            case "set":
                // Before the first `at`: only latency means anything to a real backend.
                if words.count == 3 && words[1] == "latency" {
                    guard case .success(let t) = VirtualTime.parseLimited(words[2]) else {
                        fail("bad latency `\(words[2])`, expected a time such as 200ms")
                        continue
                    }
                    s.steps.append(Timed(time: 0, line: n, item: .latency(t), text: line))
                } else if words.count == 3 {
                    s.settings.append((line: n, key: words[1], value: words[2]))
                } else {
                    s.skipped += 1
                }
            case "expect":
                var w = Array(words.dropFirst())
                var time: Millis = -1
                if w.first == "on" { w.removeFirst(min(2, w.count)) }
                if w.first == "at" {
                    guard w.count >= 2, let t = VirtualTime.parse(w[1]) else {
                        fail("bad expect line, expected `expect [at <time>] <check>`")
                        continue
                    }
                    time = t
                    w.removeFirst(2)
                }
                switch check(w) {
                case .success(let c): s.checks.append(Timed(time: time, line: n, item: c, text: line))
                case .failure(let why): fail(why.message)
                }
            case "at":
                guard words.count >= 3, let t = VirtualTime.parse(words[1]) else {
                    fail("bad at line, expected `at <time> <action>` (a time such as 2s or 00:00:02.000)")
                    continue
                }
                if t < last {
                    fail("`at \(words[1])` comes before the line above it, expected times in order")
                    continue
                }
                last = t
                switch step(Array(words.dropFirst(2))) {
                case .step(let st): s.steps.append(Timed(time: t, line: n, item: st, text: line))
                case .bad(let why): fail(why)
                case .skipped: s.skipped += 1
                case .ignored: continue
                }
            default:
                fail(
                    "unknown line `\(SafeText.escaped(first, max: 40))`, expected `at <time> server ...`, `at <time> network online|offline`, `set latency <time>` or `expect ...`"
                )
            }
        }
        return errors.isEmpty ? .success(s) : .failure(Failure(messages: errors))
    }

    /// What an action (a line after `at T`) is to serve.
    enum Reading {
        case step(Step)
        case bad(String)
        /// The app's action: the real app makes it.
        case skipped
        /// Not read as an action at all.
        case ignored
    }

    static func step(_ action: [String]) -> Reading {
        switch action.first {
        case "server", "network":
            guard let r = ActionSyntax.parse(action, vocabulary: vocabulary) else { return .ignored }
            switch r {
            case .failure(let p): return .bad(p.message)
            case .success(.serverPlanned(let a, let rep, let target)): return .step(.server(a, rep, target))
            case .success(.networkWentOnline): return .step(.network(online: true))
            case .success(.networkWentOffline): return .step(.network(online: false))
            case .success:
                return .bad(
                    "`\(action.joined(separator: " "))` is not played by outbox serve, expected `network online` or `network offline`"
                )
            }
        case "set":
            guard action.count == 3, action[1] == "latency", case .success(let d) = VirtualTime.parseLimited(action[2])
            else { return .skipped }
            return .step(.latency(d))
        default:
            return .skipped
        }
    }

    /// One line as the live screen's `:` takes it: `server ...`, `network
    /// offline|online` or `set latency D`, read as a script's `at` line reads them.
    public static func line(_ text: String) -> Result<Step, WireProblem> {
        let forms = "expected `server ANSWER ...`, `network offline|online` or `set latency D`"
        let words: [String]
        switch LineLexer.words(text) {
        case .failure(let p): return .failure(WireProblem(p.message))
        case .success(let (w, _)): words = w
        }
        guard let first = words.first else { return .failure(WireProblem("an empty line, " + forms)) }
        if first == "set", words.count == 3, words[1] == "latency",
            case .failure = VirtualTime.parseLimited(words[2])
        {
            return .failure(
                WireProblem("bad latency `\(SafeText.escaped(words[2], max: 40))`, expected a time such as 200ms"))
        }
        switch step(words) {
        case .step(let st): return .success(st)
        case .bad(let why): return .failure(WireProblem(why))
        case .skipped, .ignored:
            return .failure(WireProblem("`\(SafeText.escaped(first, max: 40))` is not a line serve plays, " + forms))
        }
    }

    static func check(_ w: [String]) -> Result<Check, WireProblem> {
        let forms = "`attempts <name> <n>`, `received <name> <n>`, `counted <name> <n>` or `unrecognised <n>`"
        func count(_ s: String) -> Int? { Int(s).flatMap { $0 >= 0 ? $0 : nil } }
        switch (w.first, w.count) {
        case ("attempts", 3):
            guard let k = count(w[2]) else {
                return .failure(WireProblem("bad count `\(w[2])`, expected a whole number"))
            }
            return .success(.attempts(w[1], k))
        case ("received", 3):
            guard let k = count(w[2]) else {
                return .failure(WireProblem("bad count `\(w[2])`, expected a whole number"))
            }
            return .success(.received(w[1], k))
        case ("counted", 3):
            guard let k = count(w[2]) else {
                return .failure(WireProblem("bad count `\(w[2])`, expected a whole number"))
            }
            return .success(.counted(w[1], k))
        case ("unrecognised", 2):
            guard let k = count(w[1]) else {
                return .failure(WireProblem("bad count `\(w[1])`, expected a whole number"))
            }
            return .success(.unrecognised(k))
        case (let c?, _) where ["state", "dropped", "saved", "log", "completion"].contains(c):
            return .failure(
                WireProblem(
                    "`expect \(c)` is a check on the model; outbox serve checks what the backend saw, expected " + forms
                ))
        default:
            return .failure(WireProblem("bad expect line, expected `expect [at <time>] ` then " + forms))
        }
    }
}
