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

    /// The words of the line being read (`ScenarioLine`): `ByteLexer`'s, or
    /// `LineLexer`'s held in the same form.
    var lexed = ByteLexer()
    /// What the words after an `at` line's time, or an `expect` line's, made
    /// (an action, a check), by those words' bytes in `bytes`.
    var actionTails = LineTailTable(), checkTails = LineTailTable()
    /// The file being read (`parse(file:)`): the tables' keys are ranges of it.
    var bytes = UnsafeBufferPointer<UInt8>(start: nil, count: 0)

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
    /// lexed by `ByteLexer` (or `LineLexer` if it has a byte beyond ASCII), and
    /// either way read as one `ScenarioLine` (`read`). An `at` or `expect` line
    /// whose words after the time were seen before reuses what they made
    /// (`LineTailTable`) rather than making it again.
    mutating func parse(file bytes: UnsafeBufferPointer<UInt8>) -> Result<Scenario, ScenarioErrors> {
        self.bytes = bytes
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
            switch lexed.lex(line) {
            case .unterminatedQuote:
                fail(lineNo, "unterminated quote, expected a closing \"")
            case .notASCII:
                switch LineLexer.words(String(decoding: line, as: UTF8.self)) {
                case .failure(let why):
                    fail(lineNo, why.message)
                case .success(let (words, code)):
                    if words.isEmpty { continue }
                    lexed.hold(words)
                    var code = code
                    code.withUTF8 { read(ScenarioLine(number: lineNo, code: $0, start: nil)) }
                }
            case .words:
                if lexed.count == 0 { continue }
                read(ScenarioLine(number: lineNo, code: UnsafeBufferPointer(rebasing: line[lexed.code]), start: start))
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

}
