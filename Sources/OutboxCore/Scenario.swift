/// A parsed scenario file: a profile, settings and timed lines (docs/scenarios.md; the
/// contract is the shared spec shared/spec/scenario-format.md, outside this repository).
public struct Scenario: Sendable {
    public let file: String
    /// The profile it plays: the file's `profile` line, or the one it was parsed
    /// to play (`parse(_:file:playing:)`).
    public let profile: Profile
    public let settings: Settings
    /// Actions and checks in the order they happen: by time, then file order.
    public let steps: Steps
    /// The file's own `profile` line: the profile a plain `expect` line checks.
    public let fileProfile: Profile
    /// The file's `compare` line: the profiles `outbox compare` plays it on, or nil.
    public let compareProfiles: [Profile]?
    /// The lines left out because `profile` lacks what they do, in file order
    /// (only when parsed to play a profile; `outbox run` makes them errors).
    public let skipped: [SkippedLine]
    /// What the device holds when the scenario starts: its `saved` and `device`
    /// lines (an extension); empty for the contract's fresh device.
    public let device: DeviceStart
    /// The `expect` lines that can only fail, found before anything runs, by
    /// line: why, with a "did you mean" (a check on a name no line creates, a
    /// `request ID` past the most the lines make). The contract makes such a
    /// check a failed one, exit 1, not bad input: each fails at its time with
    /// this as what was found (`ScenarioRunner`).
    public let unmatchable: [Int: String]

    public init(
        file: String, profile: Profile, settings: Settings, steps: Steps, fileProfile: Profile? = nil,
        compareProfiles: [Profile]? = nil, skipped: [SkippedLine] = [], device: DeviceStart = DeviceStart(),
        unmatchable: [Int: String] = [:]
    ) {
        self.unmatchable = unmatchable
        self.file = file
        self.profile = profile
        self.settings = settings
        self.steps = steps
        self.fileProfile = fileProfile ?? profile
        self.compareProfiles = compareProfiles
        self.skipped = skipped
        self.device = device
    }

    /// A line a profile lacks, left out when the file plays that profile.
    public struct SkippedLine: Equatable, Sendable {
        public let line: Int
        /// The line as written, without its comment.
        public let text: String
        /// Why, said of no profile in particular (`Action.lackedReason`).
        public let reason: String
    }

    public struct Step: Sendable {
        public let line: Int
        public let time: Millis
        public let content: Content
        /// A check's line as written, without its comment; "" for an action
        /// (action lines are not kept as text: see `Steps`).
        public let text: String
    }

    public enum Content: Sendable {
        case action(Action)
        case check(Check)
    }
}

/// An `expect` check.
public enum Check: Equatable, Sendable {
    case state(String, RequestState)
    case dropped(String, DropReason)
    case attempts(String, Int)
    case saved(Int)
    case received(String, Int)
    case counted(String, Int)
    case log(String)
    case completion(String, Completion)
    /// An extension: the backend's revenue in one currency (LT-13).
    case revenue(String, AmountSum)
    /// An extension (`request ID STATE`): one request, by the number the live
    /// screen and the text timeline show as #ID, is in a state.
    case requestState(Int32, RequestState)
    /// An extension (`request ID dropped REASON`).
    case requestDropped(Int32, DropReason)
    /// An extension (`request ID attempts N`).
    case requestAttempts(Int32, Int)
}

/// What was wrong with some input, and what was expected.
public struct Problem: Error, Equatable, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// Every problem found in one scenario file.
public struct ScenarioErrors: Error, Sendable {
    public let errors: [ScenarioError]
}

/// Bad input in a scenario file (the one `Diagnostic` type of every reader).
public typealias ScenarioError = Diagnostic

extension Scenario {
    /// Parses a scenario; every problem found is returned, and then nothing runs.
    ///
    /// An `expect` naming a request no line of the file creates is not one of
    /// those problems: it is kept in `unmatchable` and fails when it is checked
    /// (scenario-format.md, "Checks": exit 1, saying so). With `savedDevice`
    /// (`outbox run --state-dir`) names are not looked for: a device on disk may
    /// hold requests of any name.
    public static func parse(
        _ text: String, file: String, profiles: ProfileResolver = .builtins, savedDevice: Bool = false
    ) -> Result<Scenario, ScenarioErrors> {
        var parser = ScenarioParser(file: file)
        parser.resolver = profiles
        parser.savedDevice = savedDevice
        return parser.parse(text)
    }

    /// Parses a scenario to play it on `profile`, whatever its `profile` line
    /// says (`outbox compare`): an action, a `set` line or a mid-run `set` that
    /// `profile` lacks is left out and listed in `skipped` rather than an error;
    /// plain `expect` lines check only when `profile` is the file's own, and
    /// `expect on` lines when they name it. The result plays exactly as
    /// `parse(_:file:)` of the file rewritten for `profile` with the skipped
    /// lines removed.
    public static func parse(
        _ text: String, file: String, playing profile: Profile, profiles: ProfileResolver = .builtins
    ) -> Result<Scenario, ScenarioErrors> {
        var parser = ScenarioParser(file: file)
        parser.resolver = profiles
        parser.playing = profile
        return parser.parse(text)
    }

    /// The profiles of a file's `compare` line, read from the lines before its
    /// first `at`; nil when it has none or it is not well formed (the parse says
    /// why).
    public static func compareLine(in text: String, profiles: ProfileResolver = .builtins) -> [Profile]? {
        var rest = TextInput.droppingBOM(text)
        while !rest.isEmpty {
            let end = rest.firstIndex(of: "\n") ?? rest.endIndex
            let line = rest[..<end]
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
            guard case .success(let (w, _)) = LineLexer.words(String(line)), let first = w.first else { continue }
            if first == "at" { return nil }
            if first == "compare" {
                guard w.count == 2, case .success(let list) = Profile.list(w[1], profiles: profiles) else { return nil }
                return list
            }
        }
        return nil
    }
}

extension Profile {
    /// `ios,android,...`: profile names, comma-separated, none twice. The failure
    /// names the word that is not a profile.
    public static func list(_ word: String, profiles: ProfileResolver = .builtins) -> Result<[Profile], Problem> {
        var out: [Profile] = []
        for part in word.split(separator: ",", omittingEmptySubsequences: false) {
            let p: Profile
            switch profiles.resolve(String(part)) {
            case .success(let found): p = found
            case .failure(let problem): return .failure(problem)
            }
            guard !out.contains(p) else { return .failure(Problem("profile `\(p.rawValue)` named twice")) }
            out.append(p)
        }
        return .success(out)
    }
}

/// Splits a line into words: spaces separate, double quotes group, `#` outside
/// quotes starts a comment, `\"` and `\\` escape inside quotes.
public enum LineLexer {
    public static func words(_ line: String) -> Result<(words: [String], code: String), Problem> {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quoted = false
        var escape = false
        var code = ""
        let chars = Array(line)
        var i = 0
        while i < chars.count {
            let ch = chars[i]
            i += 1
            if quoted {
                code.append(ch)
                if escape {
                    escape = false
                    // `\t`, `\x1b`, `\u{9b}`, ...: see `QuotedEscape`.
                    if let (scalar, used) = QuotedEscape.decode(
                        ch.unicodeScalars.count == 1 ? ch.unicodeScalars.first!.value : 0,
                        next: { k in
                            guard i + k < chars.count, chars[i + k].unicodeScalars.count == 1
                            else { return nil }
                            return chars[i + k].unicodeScalars.first!.value
                        })
                    {
                        for k in 0..<used { code.append(chars[i + k]) }
                        i += used
                        current.unicodeScalars.append(scalar)
                    } else {
                        current.append(ch)
                    }
                } else if ch == "\\" {
                    escape = true
                } else if ch == "\"" {
                    quoted = false
                } else {
                    current.append(ch)
                }
                continue
            }
            if ch == "#" { break }
            code.append(ch)
            if ch == " " || ch == "\t" || ch == "\r" {
                if inWord {
                    words.append(current)
                    current = ""
                    inWord = false
                }
            } else if ch == "\"" {
                quoted = true
                inWord = true
            } else {
                current.append(ch)
                inWord = true
            }
        }
        if quoted { return .failure(Problem("unterminated quote, expected a closing \"")) }
        if inWord { words.append(current) }
        var trimmed = Substring(code)
        while let l = trimmed.last, l == " " || l == "\t" || l == "\r" { trimmed.removeLast() }
        while let f = trimmed.first, f == " " || f == "\t" { trimmed.removeFirst() }
        return .success((words, String(trimmed)))
    }
}

/// Escapes inside double quotes, beyond `\"` and `\\`: `\t`, `\n`, `\r`, `\xHH`
/// (two hex digits, U+0000-U+00FF) and `\u{H...}` (one to six hex digits, a
/// Unicode scalar). They are the escapes `SafeText` shows, so a name holding a
/// control character is written by a recording as it is shown, and reads back
/// the same. A backslash before anything else stands for that character, as it
/// always did (`"\q"` is `q`).
public enum QuotedEscape {
    /// The scalar an escape stands for, given the character after the backslash
    /// (`first`, 0 when not one scalar) and a look at the ones after it (`next(0)`
    /// is the one after `first`); `used` is how many of those it takes.
    /// nil: not one of these escapes.
    @inline(__always)
    static func decode(_ first: UInt32, next: (Int) -> UInt32?) -> (scalar: Unicode.Scalar, used: Int)? {
        func hex(_ v: UInt32?) -> UInt32? {
            guard let v else { return nil }
            switch v {
            case 0x30...0x39: return v - 0x30
            case 0x61...0x66: return v - 0x61 + 10
            case 0x41...0x46: return v - 0x41 + 10
            default: return nil
            }
        }
        switch first {
        case 0x74: return ("\t", 0)  // t
        case 0x6E: return ("\n", 0)  // n
        case 0x72: return ("\r", 0)  // r
        case 0x78:  // x
            guard let a = hex(next(0)), let b = hex(next(1)) else { return nil }
            return (Unicode.Scalar(UInt8(a << 4 | b)), 2)
        case 0x75:  // u
            guard next(0) == 0x7B else { return nil }  // {
            var v: UInt32 = 0
            var k = 1
            while let d = hex(next(k)), k <= 6 {
                v = v << 4 | d
                k += 1
            }
            guard k > 1, next(k) == 0x7D, let scalar = Unicode.Scalar(v) else { return nil }  // }
            return (scalar, k + 1)
        default: return nil
        }
    }
}

struct ScenarioParser {
    let file: String
    var errors: [ScenarioError] = []
    /// The profile played: `playing`, else the file's `profile` line.
    var profile: Profile?
    /// The calls and kinds the lines may name: the profile's.
    var vocabulary: Vocabulary { profile?.vocabulary ?? .builtin }
    /// The file's `profile` line.
    var fileProfile: Profile?
    /// Set to parse the file to play this profile (`Scenario.parse(_:file:playing:)`).
    var playing: Profile?
    /// Finds the profile a `profile` or `compare` line names.
    var resolver = ProfileResolver.builtins
    /// The profile line named no profile: later lines are not checked.
    var profileLineFailed = false
    var compareProfiles: [Profile]?
    var seenCompare = false
    var skipped: [Scenario.SkippedLine] = []
    var settings: Settings?
    var steps = Scenario.Steps()
    /// Attribute lists and long names met so far, so that actions that differ
    /// in other words share one copy of them.
    var attributeLists = Set<[Attribute]>()
    var longNames = NameTable()
    var seenAt = false
    /// The `saved` and `device` lines so far.
    var device = DeviceStart()
    var seenDevice = false
    /// Indices in `device.saved` of lines that gave no `key` on a profile with idempotency keys: given one at the end (LT-7).
    var keyless: [Int] = []
    /// The request names the lines played create, in the order first met.
    var createdNames = Set<String>()
    var createdOrder: [String] = []
    /// Names only lines left out (`skipped`) create.
    var skippedNames = Set<String>()
    var launches = false
    /// An action line was not understood: the names it creates are not known,
    /// so names in `expect` lines are not checked (one error, not a cascade).
    var actionUnread = false
    /// The request names the `expect` lines played check, each at its first line.
    var checkedNames: [(line: Int, name: String)] = []
    var checkedSeen = Set<String>()
    /// A saved device gives the starting requests: any name may exist.
    var savedDevice = false
    /// The most requests the lines played can make (`request ID` checks name at most this id).
    var creatable = 0
    /// The checks that can only fail, with why (`Scenario.unmatchable`).
    var unmatchable: [(line: Int, why: String)] = []
    /// The ids the `expect ... request ID` lines played name, each at its first line.
    var checkedIDs: [(line: Int, id: Int32)] = []
    var checkedIDSeen = Set<Int32>()

    init(file: String) { self.file = file }

    /// The first words of a scenario's statements and checks, for "did you mean".
    static let statementWords = ["profile", "compare", "set", "saved", "device", "at", "expect"]
    static let checkWords = [
        "state", "dropped", "attempts", "saved", "received", "counted", "log", "completion", "revenue", "request",
    ]

    mutating func fail(_ line: Int, _ message: String) {
        errors.append(ScenarioError(file: file, line: line, message: message))
    }

    mutating func parse(_ text: String) -> Result<Scenario, ScenarioErrors> {
        var text = text
        return text.withUTF8 { parse(file: $0) }
    }

    /// Reads the file a line at a time, as bytes: a line is split at `\n` and
    /// lexed by `ByteLexer` (or `LineLexer` if it has a byte beyond ASCII). An
    /// `at` or `expect` line whose words after the time were seen before reuses
    /// what they made (`LineTailTable`) rather than making it again.
    mutating func parse(file bytes: UnsafeBufferPointer<UInt8>) -> Result<Scenario, ScenarioErrors> {
        var lexer = ByteLexer()
        var actionTails = LineTailTable(), checkTails = LineTailTable()
        var lineNo = 0
        // A byte-order mark before the first line is not part of it (TextInput).
        var start = TextInput.bomLength(bytes)
        // Lines end at "\n"; the "\r" of a CRLF is a space to the lexers, so CRLF files read as lines.
        while start <= bytes.count {
            let end = start == bytes.count ? start : ScenarioParser.lineEnd(bytes, from: start)
            lineNo += 1
            if errors.count >= 50 { break }
            let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
            defer { start = end + 1 }
            switch lexer.lex(line) {
            case .unterminatedQuote:
                fail(lineNo, "unterminated quote, expected a closing \"")
            case .notASCII:
                switch LineLexer.words(String(decoding: line, as: UTF8.self)) {
                case .failure(let why):
                    fail(lineNo, why.message)
                case .success(let (words, code)):
                    if words.isEmpty { continue }
                    statement(lineNo, words, code)
                }
            case .words:
                if lexer.count == 0 { continue }
                // The two statements a big file is made of, in the order `statement` checks them.
                if profile != nil && lexer.count >= 3 && lexer.word(0, is: "at") {
                    seenAt = true
                    guard let t = time(lineNo, lexer.word(1)) else { continue }
                    let tail = start + lexer.starts[2]..<start + lexer.code.upperBound
                    if let a = actionTails.find(tail, in: bytes) {
                        creatable += creates(steps.actions[Int(a)])
                        steps.append(line: lineNo, time: t, action: a)
                    } else if let a = action(
                        lineNo, lexer.words(from: 2), profile!,
                        code: String(decoding: UnsafeBufferPointer(rebasing: line[lexer.code]), as: UTF8.self))
                    {
                        let k = addAction(a)
                        actionTails.add(tail, in: bytes, k)
                        steps.append(line: lineNo, time: t, action: k)
                    }
                } else if profile != nil && lexer.count >= 4 && lexer.word(0, is: "expect") && lexer.word(1, is: "at") {
                    guard let t = time(lineNo, lexer.word(2)) else { continue }
                    guard plainExpectsApply else {
                        // Checked, not kept: it checks the file's own profile, not this one.
                        _ = check(lineNo, lexer.words(from: 3))
                        continue
                    }
                    let tail = start + lexer.starts[3]..<start + lexer.code.upperBound
                    let codeText = UnsafeBufferPointer(rebasing: line[lexer.code])
                    if let c = checkTails.find(tail, in: bytes) {
                        steps.append(line: lineNo, time: t, check: c, text: codeText)
                    } else if let c = check(lineNo, lexer.words(from: 3)) {
                        noteChecked(lineNo, c)
                        let k = steps.add(c)
                        checkTails.add(tail, in: bytes, k)
                        steps.append(line: lineNo, time: t, check: k, text: codeText)
                    }
                } else {
                    let code = String(decoding: UnsafeBufferPointer(rebasing: line[lexer.code]), as: UTF8.self)
                    statement(lineNo, lexer.words(), code)
                }
            }
        }
        if profile == nil && errors.isEmpty {
            fail(1, "no profile line, expected `profile linktrail|ios|android|flutter` first")
        }
        if let profile, !savedDevice, !actionUnread { checkRequestNames(profile) }
        if !errors.isEmpty && !unmatchable.isEmpty {
            // Bad input anyway: the checks that could only fail are listed with the
            // rest, in line order, a line's own problems first.
            for (line, why) in unmatchable { fail(line, why) }
            errors = errors.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(
                \.element)
        }
        guard errors.isEmpty, let profile, let settings else { return .failure(ScenarioErrors(errors: errors)) }
        for i in keyless {
            device.saved[i].idempotencyKey = Simulation.linkTrailKey(
                seed: settings.seed, id: Int32(i + 1), opens: device.opens)
        }
        // Time order, then file order (ORDER).
        steps.sortByTime()
        checkAppLifecycle(steps, file: bytes)
        guard errors.isEmpty else { return .failure(ScenarioErrors(errors: errors.sorted { $0.line < $1.line })) }
        return .success(
            Scenario(
                file: file, profile: profile, settings: settings, steps: steps, fileProfile: fileProfile,
                compareProfiles: compareProfiles, skipped: skipped, device: device,
                unmatchable: Dictionary(unmatchable, uniquingKeysWith: { a, _ in a })))
    }

    /// Where the line starting at `from` ends: its `\n`, or the end of the file.
    static func lineEnd(_ bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        let base = bytes.baseAddress! + from
        guard let nl = CorePlatform.find(UInt8(ascii: "\n"), in: base, bytes.count - from) else { return bytes.count }
        return from + (UnsafeRawPointer(nl) - UnsafeRawPointer(base))
    }

    /// The code of line `n` (1-based) of the file: its text without the comment.
    /// `starts` (where each line starts) is made on the first call.
    static func code(ofLine n: Int, in bytes: UnsafeBufferPointer<UInt8>, starts: inout [Int]) -> String {
        if starts.isEmpty {
            var s = TextInput.bomLength(bytes)
            while s <= bytes.count {
                starts.append(s)
                s = lineEnd(bytes, from: s) + 1
            }
        }
        let start = starts[n - 1]
        let line = UnsafeBufferPointer(rebasing: bytes[start..<lineEnd(bytes, from: start)])
        var lexer = ByteLexer()
        if lexer.lex(line) == .words {
            return String(decoding: UnsafeBufferPointer(rebasing: line[lexer.code]), as: UTF8.self)
        }
        guard case .success(let r) = LineLexer.words(String(decoding: line, as: UTF8.self)) else { return "" }
        return r.code
    }

    /// Launch while running, quit while not, and requests with the app closed are
    /// bad input, found before anything runs.
    mutating func checkAppLifecycle(_ ordered: Scenario.Steps, file: UnsafeBufferPointer<UInt8>) {
        var running = false
        var lineStarts: [Int] = []
        for i in ordered.indices {
            let w = ordered.what[i]
            guard w >= 0 else { continue }
            let line = ordered.lines[i]
            let a = ordered.actions[Int(w)]
            // The rule `Simulation.check` applies, ahead of time.
            switch a.lifecycleFault(appRunning: running) {
            case .alreadyRunning?: fail(line, "`launch` while the app is already running, expected `quit` before it")
            case .notRunning?: fail(line, "`quit` while the app is not running, expected `launch` before it")
            case .needsApp?:
                // The line's text is read again from the file: only checks keep theirs.
                let text = ScenarioParser.code(ofLine: line, in: file, starts: &lineStarts)
                fail(
                    line,
                    "`\(text.split(separator: " ").dropFirst(2).joined(separator: " "))` needs a running app, expected `at <time> launch` before it"
                )
            case nil: break
            }
            switch a {
            case .appLaunched: running = true
            case .appQuit: running = false
            default: break
            }
        }
    }

    mutating func statement(_ n: Int, _ w: [String], _ code: String) {
        guard let profile else {
            // After a bad profile line the rest cannot be checked: one error, not one a line.
            if profileLineFailed { return }
            guard w[0] == "profile" else {
                fail(
                    n,
                    "`\(w[0])` before the profile, expected `profile \(ProfileResolver.builtinNames("|"))` first"
                        + Suggest.hint(w[0], among: ["profile"]))
                return
            }
            guard w.count == 2 else {
                fail(
                    n,
                    "bad profile line, expected `profile \(ProfileResolver.builtinNames("|"))` or `profile PATH.profile`"
                )
                return
            }
            let p: Profile
            switch resolver.resolve(w[1]) {
            case .success(let found): p = found
            case .failure(let problem):
                fail(n, "bad profile line: " + problem.message)
                profileLineFailed = true
                return
            }
            self.fileProfile = p
            self.profile = playing ?? p
            self.settings = Settings(profile: playing ?? p)
            return
        }
        switch w[0] {
        case "profile":
            fail(n, "a second profile line, expected one profile per scenario")
        case "set":
            guard !seenAt else {
                fail(n, "`set` after the first `at` line, expected settings before the first `at`")
                return
            }
            guard w.count == 3 else {
                fail(n, "bad set line, expected `set <key> <value>`")
                return
            }
            if let why = settingLacked(n, w[1], w[2]) {
                if !why.isEmpty { skipped.append(Scenario.SkippedLine(line: n, text: code, reason: why)) }
                return
            }
            if let why = settings!.set(w[1], w[2], profile: profile) { fail(n, why) }
        case "compare":
            // An extension (issue 11): the profiles `outbox compare` plays the file on.
            guard !seenAt else {
                fail(n, "`compare` after the first `at` line, expected it after `profile` and before the first `at`")
                return
            }
            guard !seenCompare else {
                fail(n, "a second compare line, expected one `compare` line per scenario")
                return
            }
            guard w.count == 2 else {
                fail(
                    n,
                    "bad compare line, expected `compare P[,P...]` with profiles \(ProfileResolver.builtinNames(", ")) or profile files"
                )
                return
            }
            seenCompare = true
            switch Profile.list(w[1], profiles: resolver) {
            case .success(let list): compareProfiles = list
            case .failure(let why): fail(n, "bad compare line: " + why.message)
            }
        case "saved", "device":
            // An extension: the device's starting contents (DeviceStart).
            startingContents(n, w, code)
        case "at":
            seenAt = true
            guard w.count >= 3 else {
                fail(n, "bad at line, expected `at <time> <action>`")
                return
            }
            guard let t = time(n, w[1]) else { return }
            guard let a = action(n, Array(w[2...]), profile, code: code) else { return }
            let k = addAction(a)
            steps.append(line: n, time: t, action: k)
        case "expect":
            // `expect on P[,P...] at ...` (issue 11) checks those profiles; a plain one, the file's own.
            var applies = plainExpectsApply
            var w = w
            if w.count >= 2 && w[1] == "on" {
                guard w.count >= 6, w[3] == "at" else {
                    fail(n, "bad expect line, expected `expect on P[,P...] at <time> <check>`")
                    return
                }
                switch Profile.list(w[2], profiles: resolver) {
                case .success(let list): applies = list.contains(profile)
                case .failure(let why):
                    fail(n, "bad expect on line: " + why.message)
                    return
                }
                w.removeSubrange(1...2)
            }
            guard w.count >= 4, w[1] == "at" else {
                fail(
                    n, "bad expect line, expected `expect at <time> <check>` or `expect on P[,P...] at <time> <check>`")
                return
            }
            guard let t = time(n, w[2]) else { return }
            guard applies else {
                // Checked, not kept: it checks other profiles.
                _ = check(n, Array(w[3...]))
                return
            }
            guard let c = check(n, Array(w[3...])) else { return }
            noteChecked(n, c)
            let k = steps.add(c)
            var code = code
            code.withUTF8 { steps.append(line: n, time: t, check: k, text: $0) }
        default:
            fail(
                n,
                "unknown statement `\(w[0])`, expected profile, compare, set, saved, device, at or expect"
                    + Suggest.hint(w[0], among: ScenarioParser.statementWords))
        }
    }

    /// A `saved` or `device` line: what the device holds when the scenario starts.
    mutating func startingContents(_ n: Int, _ w: [String], _ code: String) {
        let word = w[0]
        if word == "saved", w.count >= 3, let kind = vocabulary.kind(w[1]) {
            // A line left out on the profile played (below) creates nothing there.
            let left = playing != nil && DeviceStart.kind(kind, on: profile ?? playing!) != nil
            noteCreated(w[2], skipped: left)
            if !left { creatable += 1 }
        }
        guard !seenAt else {
            fail(
                n, "`\(word)` after the first `at` line, expected the device's starting contents before the first `at`")
            return
        }
        guard let profile else { return }
        if device.line == nil { device.line = n }
        if word == "device" {
            guard !seenDevice else {
                fail(n, "a second device line, expected one `device` line per scenario")
                return
            }
            seenDevice = true
            guard profile.hasConsentGate else {
                let why =
                    "the device line gives the consent gate's decision, its install and the open count; profile \(profile.rawValue) has no consent gate"
                if playing != nil {
                    // Checked on LinkTrail's terms, then left out.
                    var probe = DeviceStart()
                    if let p = probe.parseDevice(Array(w.dropFirst())) {
                        fail(n, p.message)
                    } else {
                        skipped.append(Scenario.SkippedLine(line: n, text: code, reason: why))
                    }
                } else {
                    fail(n, why)
                }
                return
            }
            if let p = device.parseDevice(Array(w.dropFirst())) { fail(n, p.message) }
            return
        }
        if playing != nil, w.count >= 2, let kind = vocabulary.kind(w[1]),
            let why = DeviceStart.kind(kind, on: profile)
        {
            // A request this profile cannot hold: checked on a profile that can, then left out.
            let other = Builtins.all.first { DeviceStart.kind(kind, on: $0) == nil } ?? profile
            if case .failure(let p) = DeviceStart.parseSaved(Array(w.dropFirst()), profile: other, lenient: true) {
                fail(n, p.message)
            } else {
                skipped.append(Scenario.SkippedLine(line: n, text: code, reason: why))
            }
            return
        }
        switch DeviceStart.parseSaved(Array(w.dropFirst()), profile: profile, lenient: playing != nil) {
        case .failure(let p): fail(n, p.message)
        case .success(let (r, keyGiven)):
            var r = r
            r.id = Int32(device.saved.count + 1)
            if !keyGiven { keyless.append(device.saved.count) }
            device.saved.append(r)
        }
    }

    /// Adds an action to the steps' table, sharing its strings and lists with
    /// the actions before it where they are equal.
    mutating func addAction(_ a: Action) -> Int32 {
        guard case .eventTracked(var e) = a else { return steps.add(a) }
        if !e.attributes.isEmpty { e.attributes = attributeLists.insert(e.attributes).memberAfterInsert }
        // A name of up to 15 bytes is held in the string itself.
        if e.name.utf8.count > 15 {
            let id = longNames.intern(e.name)
            e.name = longNames[id]
        }
        return steps.add(.eventTracked(e))
    }

    mutating func time(_ n: Int, _ word: String) -> Millis? {
        switch VirtualTime.parseLimited(word) {
        case .success(let t): return t
        case .failure(let why):
            fail(n, "bad time `\(word)`, " + why.message)
            return nil
        }
    }

    /// Whether a plain `expect` line checks the profile played: only the file's own.
    var plainExpectsApply: Bool { playing == nil || playing == fileProfile }

    /// When playing a profile that lacks setting `key` (one some profile has),
    /// why it is skipped, once `value` is checked on a profile that has it
    /// (a bad value is still bad input: then "", the problem recorded). nil: not skipped.
    mutating func settingLacked(_ n: Int, _ key: String, _ value: String) -> String? {
        guard let profile, playing != nil, let k = Settings.keys.first(where: { $0.name == key }),
            !k.exists(on: profile)
        else { return nil }
        var probe = Settings()
        if let why = probe.apply(key, value) {
            fail(n, why)
            return ""
        }
        return Settings.lackedReason(k)
    }

    mutating func action(_ n: Int, _ w: [String], _ profile: Profile, code: @autoclosure () -> String) -> Action? {
        guard var a = ActionSyntax.parse(w, vocabulary: profile.vocabulary) else { return nil }
        if playing != nil, case .failure = a {
            if let other = otherVocabularyReading(w) {
                // A call or kind another profile of the story declares: this column lacks it (skipped, not bad input).
                a = other
            } else if let f = fileProfile, let own = ActionSyntax.parse(w, vocabulary: f.vocabulary) {
                // Bad input on every column: said in the words of the file's own profile.
                a = own
            }
        }
        switch a {
        case .failure(let why):
            fail(n, why.message)
            actionUnread = true
            return nil
        case .success(let action):
            if playing != nil, let why = action.lackedReason(on: profile) {
                noteCreated(by: action, skipped: true)
                skipped.append(Scenario.SkippedLine(line: n, text: code(), reason: why))
                return nil
            }
            // An action the profile lacks is an error below, and still creates its names: one error, not two.
            noteCreated(by: action)
            if playing != nil, case .settingChanged(let key, let value) = action,
                let why = settingLacked(n, key, value)
            {
                if !why.isEmpty { skipped.append(Scenario.SkippedLine(line: n, text: code(), reason: why)) }
                return nil
            }
            if let why = action.unsupported(on: profile) {
                fail(n, why)
                return nil
            }
            if case .settingChanged(let key, let value) = action {
                // An extension: a setting changed mid-run, as the UI's `:set` does.
                var probe = settings!
                if let why = probe.set(key, value, profile: profile) {
                    fail(n, why)
                    return nil
                }
            }
            return action
        }
    }

    /// Playing one column of a story: the line read with the vocabulary of the
    /// file's profile or a compared one, when one of them declares the call or
    /// kind it names (a profile's own `call` lines are known only to it).
    func otherVocabularyReading(_ w: [String]) -> Result<Action, Problem>? {
        for p in [fileProfile].compactMap({ $0 }) + (compareProfiles ?? []) where p.name != profile?.name {
            if case .success(let a)? = ActionSyntax.parse(w, vocabulary: p.vocabulary) { return .success(a) }
        }
        return nil
    }

    // MARK: Request names in expect lines

    /// A request name a line creates; `skipped`: a line left out on the profile played.
    mutating func noteCreated(_ name: String, skipped: Bool = false) {
        if skipped {
            skippedNames.insert(name)
        } else if createdNames.insert(name).inserted {
            createdOrder.append(name)
        }
    }

    /// The names an action creates (`Simulation.apply`); the consent gate's
    /// install is made at the first launch.
    mutating func noteCreated(by action: Action, skipped: Bool = false) {
        switch action {
        case .eventTracked(let e): noteCreated(e.name, skipped: skipped)
        case .call(let word, let name):
            guard let c = vocabulary.call(word) else { break }
            if c.takesName, let name { noteCreated(name, skipped: skipped) }
            if !c.takesName { for w in c.madeWords { noteCreated(w, skipped: skipped) } }
        case .appLaunched: launches = true
        default: break
        }
        if !skipped { creatable += creates(action) }
    }

    /// The request a check looks at by name when it can only hold if such a
    /// request exists: `received` and `counted` of 0 hold for a name never
    /// made (docs/scenarios.md), so they name none.
    static func requestName(_ c: Check) -> String? {
        switch c {
        case .state(let name, _), .dropped(let name, _), .attempts(let name, _), .completion(let name, _):
            return name
        case .received(let name, let n), .counted(let name, let n):
            return n > 0 ? name : nil
        case .saved, .log, .revenue, .requestState, .requestDropped, .requestAttempts: return nil
        }
    }

    /// Keeps a request name a check played needs, to look for once every line
    /// is read (kept once, at its first line).
    mutating func noteChecked(_ n: Int, _ c: Check) {
        noteCheckedID(n, c)
        guard !savedDevice, let name = ScenarioParser.requestName(c) else { return }
        if checkedSeen.insert(name).inserted { checkedNames.append((n, name)) }
    }

    /// A check played that needs a request no line played can create could
    /// only fail: found before anything runs and kept in `unmatchable`, with
    /// why (a failed check, not bad input). The lines played are those of the
    /// profile played (`outbox compare` leaves some out), so a file rewritten
    /// without its skipped lines reads the same.
    /// The lines that create requests, as a message lists them: `track`, the
    /// calls that take a name, those that do not, then `saved`.
    func creatingWords(_ profile: Profile) -> [String] {
        let calls = profile.vocabulary.calls.filter { !$0.makes.isEmpty }
        return ["track"] + calls.filter(\.takesName).map(\.word) + calls.filter { !$0.takesName }.map(\.word) + [
            "saved"
        ]
    }

    mutating func checkRequestNames(_ profile: Profile) {
        if launches && profile.hasConsentGate { noteCreated("install") }
        for c in checkedNames where !createdNames.contains(c.name) {
            let hint = Suggest.hint(c.name, among: createdOrder)
            let shown = createdOrder.prefix(8).map { "`" + SafeText.escaped($0, max: 60) + "`" }
            // With a suggestion the list is left out: the suggestion is the line to read.
            let expected =
                createdOrder.isEmpty || !hint.isEmpty
                ? "expected a name a " + Statement.alternatives(creatingWords(profile)) + " line creates"
                : "expected one of: " + shown.joined(separator: ", ")
                    + (createdOrder.count > 8 ? " (and \(createdOrder.count - 8) more)" : "")
            var what = "no line of the file creates a request named `\(SafeText.escaped(c.name, max: 60))`"
            if skippedNames.contains(c.name) {
                what += " on profile \(profile.rawValue) (the lines that do are left out: it lacks what they do)"
            } else if c.name == "install" && launches {
                what += " (an install comes with the consent gate; profile \(profile.rawValue) has none)"
            }
            unmatchable.append((c.line, what + ", " + expected + hint))
        }
        checkRequestIDs(profile)
    }

    mutating func check(_ n: Int, _ w: [String]) -> Check? {
        func count(_ word: String) -> Int? {
            guard let v = Int(word), v >= 0 else {
                fail(n, "bad count `\(word)`, expected a whole number ≥ 0")
                return nil
            }
            return v
        }
        func arity(_ k: Int, _ form: String) -> Bool {
            if w.count != k {
                fail(n, "bad `\(w[0])` check, expected `\(form)`")
                return false
            }
            return true
        }
        switch w[0] {
        case "state":
            guard arity(3, "state <name> <state>") else { return nil }
            guard let s = stateWord(n, w[2]) else { return nil }
            return .state(w[1], s)
        case "dropped":
            guard arity(3, "dropped <name> <reason>") else { return nil }
            guard let r = dropReason(n, w[2]) else { return nil }
            return .dropped(w[1], r)
        case "attempts":
            guard arity(3, "attempts <name> <n>"), let c = count(w[2]) else { return nil }
            return .attempts(w[1], c)
        case "saved":
            guard arity(2, "saved <n>"), let c = count(w[1]) else { return nil }
            return .saved(c)
        case "received":
            guard arity(3, "received <name> <n>"), let c = count(w[2]) else { return nil }
            return .received(w[1], c)
        case "counted":
            guard arity(3, "counted <name> <n>"), let c = count(w[2]) else { return nil }
            return .counted(w[1], c)
        case "log":
            guard arity(2, "log \"<text>\"") else { return nil }
            return .log(w[1])
        case "completion":
            guard arity(3, "completion <name> true|false|none") else { return nil }
            let c: Completion
            switch w[2] {
            case "true": c = .success
            case "false": c = .failure
            case "none": c = .none
            default:
                fail(
                    n,
                    "bad completion `\(w[2])`, expected true, false or none"
                        + Suggest.hint(w[2], among: ["true", "false", "none"]))
                return nil
            }
            return .completion(w[1], c)
        case "revenue":
            guard arity(3, "revenue <CUR> <amount>") else { return nil }
            guard let a = AmountSum.parse(w[2]) else {
                fail(
                    n,
                    "bad amount `\(w[2])`, expected a decimal number like 49.99 (at most 30 digits before the point, 6 after)"
                )
                return nil
            }
            return .revenue(w[1], a)
        case "request":
            return requestCheck(n, w)
        default:
            fail(
                n,
                "unknown check `\(w[0])`, expected state, dropped, attempts, saved, received, counted, log, completion, revenue or request"
                    + Suggest.hint(w[0], among: ScenarioParser.checkWords))
            return nil
        }
    }
}

/// The words of an action, shared by scenario lines and the UI's `:` command line.
public enum ActionSyntax {
    /// nil never; a failure names what was wrong and what was expected.
    /// `alsoKnown`: words the caller reads besides actions (the live screen's
    /// `:` commands), offered too when a mistyped verb is close to one.
    /// `vocabulary`: the app calls and kinds the words may name (the profile's).
    public static func parse(_ w: [String], vocabulary: Vocabulary = .builtin, alsoKnown: [String] = [])
        -> Result<Action, Problem>?
    {
        guard let verb = w.first else {
            return .failure(Problem("missing action, expected one of: " + verbs(vocabulary)))
        }
        let args = Array(w.dropFirst())
        func none(_ a: Action) -> Result<Action, Problem> {
            args.isEmpty
                ? .success(a)
                : .failure(Problem("`\(verb)` takes no arguments, found `\(args.joined(separator: " "))`"))
        }
        func named(_ make: (String) -> Action) -> Result<Action, Problem> {
            args.count == 1 ? .success(make(args[0])) : .failure(Problem("bad `\(verb)`, expected `\(verb) <name>`"))
        }
        switch verb {
        case "launch": return none(.appLaunched)
        case "quit": return none(.appQuit)
        case "getinstance": return none(.getInstanceCalled)
        case "consent":
            guard args.count == 1, args[0] == "grant" || args[0] == "deny" else {
                return .failure(
                    Problem(
                        "bad consent\(quoted(args)), expected `consent grant` or `consent deny`"
                            + hint(args, ["grant", "deny"])))
            }
            return .success(args[0] == "grant" ? .consentGranted : .consentDenied)
        case "network":
            if args.first == "flap" { return flap(Array(args.dropFirst())) }
            guard args.count == 1, args[0] == "online" || args[0] == "offline" else {
                return .failure(
                    Problem(
                        "bad network\(quoted(args)), expected `network online`, `network offline` or `network flap <up> <down>`"
                            + hint(args, ["online", "offline", "flap"])))
            }
            return .success(args[0] == "online" ? .networkWentOnline : .networkWentOffline)
        case "track": return track(args)
        case "server": return server(args, vocabulary)
        case "set":
            guard args.count == 2 else { return .failure(Problem("bad set, expected `set <key> <value>`")) }
            return .success(.settingChanged(key: args[0], value: args[1]))
        default:
            if let c = vocabulary.call(verb) {
                return c.takesName ? named { .call(c.word, $0) } : none(.call(c.word, nil))
            }
            return .failure(
                Problem(
                    "unknown action `\(verb)`, expected one of: " + verbs(vocabulary)
                        + Suggest.hint(verb, among: verbWords(vocabulary) + alsoKnown)))
        }
    }

    /// The words of `verbs`, for "did you mean".
    public static func verbWords(_ v: Vocabulary = .builtin) -> [String] {
        ["launch", "quit", "getinstance", "consent", "track"] + v.callWords + ["network", "server", "set"]
    }

    /// ` `word`` for the one word after a verb that was wrong, "" for none or several.
    static func quoted(_ args: [String]) -> String { args.count == 1 ? " `\(args[0])`" : "" }

    /// "did you mean" for the one word after a verb.
    static func hint(_ args: [String], _ known: [String]) -> String {
        args.count == 1 ? Suggest.hint(args[0], among: known) : ""
    }

    /// The scenario words for an action: what `parse` reads back to the same action.
    public static func text(for action: Action) -> String {
        func q(_ s: String) -> String { word(s) }
        switch action {
        case .appLaunched: return "launch"
        case .appQuit: return "quit"
        case .getInstanceCalled: return "getinstance"
        case .consentGranted: return "consent grant"
        case .consentDenied: return "consent deny"
        case .eventTracked(let e):
            var w = ["track", q(e.name)]
            if let v = e.value { w.append("value=" + v.text) }
            if let c = e.currency { w.append("currency=" + c) }
            for a in e.attributes { w.append(q(a.key + "=" + a.value)) }
            return w.joined(separator: " ")
        case .call(let word, let name): return name.map { word + " " + q($0) } ?? word
        case .networkWentOnline: return "network online"
        case .networkWentOffline: return "network offline"
        case .networkFlapping(let up, let down):
            return "network flap \(VirtualTime.duration(up)) \(VirtualTime.duration(down))"
        case .serverPlanned(let a, let r, let target):
            switch r {
            case .always: return "server \(a.word) always" + target.words
            case .times(let n): return "server \(a.word) x\(n)" + target.words
            case .chance(let bp): return "server \(a.word) " + ServerRepeat.percentText(bp) + target.words
            }
        case .settingChanged(let k, let v): return "set \(k) \(v)"
        }
    }

    /// One word of a scenario line: as it is, or quoted with the escapes `LineLexer` reads back.
    public static func word(_ s: String) -> String {
        // Quoted when it holds a space, a quote, `#`, a backslash or anything
        // `SafeText` escapes (controls, bidi overrides): those are written as
        // the escapes `QuotedEscape` reads back, so a recording stays one line
        // per action and holds no control byte.
        let plain =
            !s.isEmpty
            && !s.unicodeScalars.contains(where: {
                $0 == " " || $0 == "\"" || $0 == "#" || $0 == "\\" || SafeText.needsEscape($0) || fuses($0)
            })
        if plain { return s }
        var out = "\""
        for u in s.unicodeScalars {
            if u == "\"" || u == "\\" {
                out.append("\\")
                out.unicodeScalars.append(u)
            } else if let e = SafeText.escape(u) {
                out += e
            } else if fuses(u) {
                out += "\\u{" + String(u.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    /// Whether a scalar joins the character before or after it into one
    /// Character (a combining mark, a joiner, a prepended mark). `LineLexer`
    /// reads Characters, so written beside the line's own `"`, a space or an
    /// escape's last digit (`\x00` then U+0742) it would change what the line
    /// says: such a scalar is written as `\u{H}` (found by the fuzzer).
    static func fuses(_ u: Unicode.Scalar) -> Bool {
        guard !u.isASCII else { return false }
        var before = "\"", after = String(Character(u))
        before.unicodeScalars.append(u)
        after += "\""
        return before.count == 1 || after.count == 1
    }

    /// Every action, as the messages list them.
    public static func verbs(_ v: Vocabulary = .builtin) -> String {
        (["launch", "quit", "getinstance", "consent grant|deny", "track"] + v.callWords
            + ["network online|offline|flap", "server"]).joined(separator: ", ")
    }

    static func track(_ args: [String]) -> Result<Action, Problem> {
        // `=` is looked for among scalars, not Characters: `=` then a combining
        // mark is one Character, and must still split a key from its value.
        guard let name = args.first, !name.unicodeScalars.contains("=") else {
            return .failure(
                Problem("bad track, expected `track <name> [value=<n>] [currency=<ABC>] [<key>=<value> ...]`"))
        }
        var e = TrackedEvent(name: name)
        for a in args.dropFirst() {
            let scalars = a.unicodeScalars
            guard let eq = scalars.firstIndex(of: "="), eq != scalars.startIndex else {
                return .failure(Problem("bad event attribute `\(a)`, expected `<key>=<value>`"))
            }
            let key = String(scalars[..<eq]), value = String(scalars[scalars.index(after: eq)...])
            switch key {
            case "value":
                guard let v = Amount.parse(value) else {
                    return .failure(Problem("bad value `\(value)`, expected a decimal number like 49.99"))
                }
                e.value = v
            case "currency":
                guard value.count == 3, value.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                    return .failure(Problem("bad currency `\(value)`, expected three capital letters like USD"))
                }
                e.currency = value
            default:
                e.attributes.append(Attribute(key: key, value: value))
            }
        }
        return .success(.eventTracked(e))
    }

    /// `network flap <up> <down>` (FLAP): two times, each > 0.
    /// The shortest stretch of a flap, up or down.
    public static let minFlap: Millis = 100
    static let minFlapText = "100ms"

    static func flap(_ args: [String]) -> Result<Action, Problem> {
        let form =
            "expected `network flap <up> <down>` with two times of at least \(minFlapText), e.g. `network flap 5s 2s`"
        guard args.count == 2 else {
            return .failure(
                Problem(
                    (args.count < 2
                        ? "bad network flap: missing the \(args.isEmpty ? "up and down times" : "down time"), "
                        : "bad network flap: too many words, ") + form))
        }
        var times: [Millis] = []
        for (word, what) in zip(args, ["up", "down"]) {
            switch VirtualTime.parseLimited(word) {
            case .failure(let why): return .failure(Problem("bad flap \(what) time `\(word)`, " + why.message))
            case .success(let t):
                // A floor keeps a fast clock from drowning the live screen in
                // toggles (at 3600×, 1 ms would be 1.8 million a second).
                guard t >= minFlap else {
                    return .failure(
                        Problem("bad flap \(what) time `\(word)`, expected a time of at least \(minFlapText), e.g. 2s"))
                }
                times.append(t)
            }
        }
        return .success(.networkFlapping(up: times[0], down: times[1]))
    }

    /// The `for` words of a `server` line (TARGET): `for NAME`, `for kind:KIND`,
    /// or `for name:NAME` (a name that starts `kind:`).
    static func target(_ word: String, _ vocabulary: Vocabulary) -> Result<ServerTarget, Problem> {
        if word.hasPrefix("name:") { return .success(.name(String(word.dropFirst(5)))) }
        guard word.hasPrefix("kind:") else { return .success(.name(word)) }
        let k = String(word.dropFirst(5))
        guard vocabulary.kind(k) != nil else {
            let kinds = vocabulary.kinds
            return .failure(
                Problem(
                    "unknown request kind `\(k)` in `for \(word)`, expected one of: " + kinds.joined(separator: ", ")
                        + Suggest.hint(k, among: kinds)))
        }
        return .success(.kind(k))
    }

    static func server(_ args: [String], _ vocabulary: Vocabulary) -> Result<Action, Problem> {
        let form =
            "`server <answer> [x<N> | always | <N>%] [for <name> | for kind:<kind>]` with ok, a status 100-599, timeout, lost or partial"
        var args = args
        var target = ServerTarget.all
        if let f = args.firstIndex(of: "for"), f >= 1 {
            guard f == args.count - 2 else {
                return .failure(
                    Problem("bad server line: `for` takes one word (a name, or kind:<kind>), expected " + form))
            }
            switch ActionSyntax.target(args[f + 1], vocabulary) {
            case .failure(let p): return .failure(p)
            case .success(let t): target = t
            }
            args.removeLast(2)
        }
        guard (1...2).contains(args.count) else {
            // `server 503 30% four purchase`: a misspelled `for` is the likely cause.
            let hint = args.dropFirst().lazy.map { Suggest.hint($0, among: ["for"]) }.first { !$0.isEmpty } ?? ""
            return .failure(Problem("bad server line, expected " + form + hint))
        }
        guard let answer = Answer(word: args[0]) else {
            let hint =
                Suggest.status(args[0]).map { "; did you mean `\($0)`?" }
                ?? Suggest.hint(args[0], among: ["ok", "timeout", "lost", "partial"])
            return .failure(Problem("bad server line: unknown answer `\(args[0])`, expected " + form + hint))
        }
        var rep = ServerRepeat.times(1)
        if args.count == 2 {
            if args[1] == "always" {
                rep = .always
            } else if args[1].hasPrefix("x"), let n = Int(args[1].dropFirst()), n >= 1 {
                rep = .times(n)
            } else if args[1].hasSuffix("%") {
                guard let bp = ServerRepeat.percent(args[1]) else {
                    return .failure(
                        Problem(
                            "bad chance `\(args[1])`, expected a percent from 0% to 100% with at most two decimals, e.g. 30% or 0.5%"
                        ))
                }
                rep = .chance(bp)
            } else if args[1].count > 1, args[1].hasPrefix("x"), Int(args[1].dropFirst()) == nil,
                args[1].dropFirst().allSatisfy({ $0 >= "0" && $0 <= "9" })
            {
                return .failure(
                    Problem(
                        "bad repeat `\(SafeText.escaped(args[1], max: 40))`: N is past the largest, \(Int.max); expected x<N> with N from 1 to \(Int.max), or always"
                    ))
            } else {
                return .failure(
                    Problem(
                        "bad repeat `\(args[1])`, expected x<N> (N ≥ 1), always or a chance <N>% (e.g. 30%)"
                            + Suggest.hint(args[1], among: ["always", "for"])))
            }
        }
        if target == .all { return .success(.serverPlanned(answer, rep)) }
        return .success(.serverPlanned(answer, rep, for: target))
    }
}
