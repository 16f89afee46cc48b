extension ScenarioParser {
    /// Reads one line, whichever lexer split it. The two statements a big file
    /// is made of, `at T ACTION` and `expect at T CHECK`, are told by their first
    /// words' bytes and read without making the words they do not need.
    mutating func read(_ line: ScenarioLine) {
        if profile != nil && lexed.count >= 3 && lexed.word(0, is: "at") { return atLine(line) }
        if profile != nil && lexed.count >= 4 && lexed.word(0, is: "expect") && lexed.word(1, is: "at") {
            return expectLine(line, at: 1, applies: plainExpectsApply)
        }
        statement(line)
    }

    /// The range of the file holding words `k...` of `line`, the key of the tail
    /// tables; nil for a line `LineLexer` split.
    @inline(__always)
    func tail(_ line: ScenarioLine, from k: Int) -> Range<Int>? {
        guard let s = line.start else { return nil }
        return s + lexed.starts[k]..<s + lexed.code.upperBound
    }

    /// `at T ACTION`: an action at a time. Words after the time seen before (the
    /// same bytes) take what they made then.
    mutating func atLine(_ line: ScenarioLine) {
        let n = line.number
        seenAt = true
        guard lexed.count >= 3 else {
            fail(n, "bad at line, expected `at <time> <action>`")
            return
        }
        guard let t = time(n, lexed.word(1)) else { return }
        let tail = tail(line, from: 2)
        if let tail, let a = actionTails.find(tail, in: bytes) {
            creatable += creates(steps.actions[Int(a)])
            steps.append(line: n, time: t, action: a)
        } else if let a = action(n, lexed.words(from: 2), profile!, code: line.text) {
            let k = addAction(a)
            if let tail { actionTails.add(tail, in: bytes, k) }
            steps.append(line: n, time: t, action: k)
        }
    }

    /// The `at T CHECK` of an `expect` line, with word `k` its `at` (1 in
    /// `expect at`, 3 in `expect on P at`); `applies`: the check is kept, else
    /// only checked (it checks other profiles). Words after the time seen before
    /// take the check they made then.
    mutating func expectLine(_ line: ScenarioLine, at k: Int, applies: Bool) {
        let n = line.number
        guard let t = time(n, lexed.word(k + 1)) else { return }
        guard applies else {
            // Checked, not kept: it checks other profiles.
            _ = check(n, lexed.words(from: k + 2))
            return
        }
        let tail = tail(line, from: k + 2)
        if let tail, let c = checkTails.find(tail, in: bytes) {
            steps.append(line: n, time: t, check: c, text: line.code)
        } else if let c = check(n, lexed.words(from: k + 2)) {
            noteChecked(n, c)
            let id = steps.add(c)
            if let tail { checkTails.add(tail, in: bytes, id) }
            steps.append(line: n, time: t, check: id, text: line.code)
        }
    }

    /// Any other line, read from its words.
    mutating func statement(_ line: ScenarioLine) {
        let n = line.number, w = lexed.words()
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
                if !why.isEmpty { skipped.append(Scenario.SkippedLine(line: n, text: line.text, reason: why)) }
                return
            }
            switch Settings.read(w[1], w[2], on: profile) {
            case .success(let s): settings!.apply(s)
            case .failure(let why): fail(n, why.message)
            }
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
            startingContents(n, w, line.text)
        case "at":
            atLine(line)
        case "expect":
            // `expect on P[,P...] at ...` (issue 11) checks those profiles; a plain one, the file's own.
            if w.count >= 2 && w[1] == "on" {
                guard w.count >= 6, w[3] == "at" else {
                    fail(n, "bad expect line, expected `expect on P[,P...] at <time> <check>`")
                    return
                }
                switch Profile.list(w[2], profiles: resolver) {
                case .success(let list): expectLine(line, at: 3, applies: list.contains(profile))
                case .failure(let why): fail(n, "bad expect on line: " + why.message)
                }
                return
            }
            guard w.count >= 4, w[1] == "at" else {
                fail(
                    n, "bad expect line, expected `expect at <time> <check>` or `expect on P[,P...] at <time> <check>`")
                return
            }
            expectLine(line, at: 1, applies: plainExpectsApply)
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
        guard let profile, playing != nil, let k = Settings.key(named: key),
            !k.exists(on: profile)
        else { return nil }
        if case .failure(let why) = Settings.read(k, value) {
            fail(n, why.message)
            return ""
        }
        return Settings.lackedReason(k)
    }

    mutating func action(_ n: Int, _ w: [String], _ profile: Profile, code: @autoclosure () -> String) -> Action? {
        if playing != nil, w.count == 3, w[0] == "set", let why = settingLacked(n, w[1], w[2]) {
            // A setting this column lacks: its value checked, then left out.
            if !why.isEmpty { skipped.append(Scenario.SkippedLine(line: n, text: code(), reason: why)) }
            return nil
        }
        // A `set`'s value is read on the terms of the profile played.
        guard var a = ActionSyntax.parse(w, vocabulary: profile.vocabulary, settingsOn: profile) else { return nil }
        if playing != nil, case .failure = a {
            if let other = otherVocabularyReading(w) {
                // A call or kind another profile of the story declares: this column lacks it (skipped, not bad input).
                a = other
            } else if let f = fileProfile,
                let own = ActionSyntax.parse(w, vocabulary: f.vocabulary, settingsOn: profile)
            {
                // Bad input on every column: said in the words of the file's own profile.
                a = own
            }
        }
        switch a {
        case .failure(let why):
            fail(n, why.message)
            // A `set` creates no names, read or not: the names in `expect` lines are still checked.
            if !(w.count == 3 && w[0] == "set") { actionUnread = true }
            return nil
        case .success(let action):
            if playing != nil, let why = action.lackedReason(on: profile) {
                noteCreated(by: action, skipped: true)
                skipped.append(Scenario.SkippedLine(line: n, text: code(), reason: why))
                return nil
            }
            // An action the profile lacks is an error below, and still creates its names: one error, not two.
            noteCreated(by: action)
            if let why = action.unsupported(on: profile) {
                fail(n, why)
                return nil
            }
            return action
        }
    }

    /// Playing one column of a story: the line read with the vocabulary of the
    /// file's profile or a compared one, when one of them declares the call or
    /// kind it names (a profile's own `call` lines are known only to it).
    func otherVocabularyReading(_ w: [String]) -> Result<Action, Problem>? {
        for p in [fileProfile].compactMap({ $0 }) + (compareProfiles ?? []) where p.name != profile?.name {
            if case .success(let a)? = ActionSyntax.parse(w, vocabulary: p.vocabulary, settingsOn: profile) {
                return .success(a)
            }
        }
        return nil
    }

}
