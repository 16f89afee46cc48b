import OutboxCore

extension AppModel {
    /// The backend chooser's answers, each with its letter.
    public static let answerChoices: [(key: Unicode.Scalar, answer: Answer)] = [
        ("o", .ok), ("a", .status(408)), ("b", .status(429)), ("c", .status(500)), ("d", .status(503)),
        ("e", .status(400)), ("f", .status(401)), ("g", .status(403)), ("h", .status(404)), ("i", .status(409)),
        ("j", .status(422)), ("t", .timeout), ("l", .lost), ("p", .partial),
    ]

    /// Handles one key; returns what the loop must do outside the model.
    public mutating func handle(_ key: Key) -> UIEffect? {
        if key == .resize { return nil }
        if case .mouse(let e) = key { return mouse(e) }
        switch mode {
        case .help(let scroll):
            switch KeyMap.helpKey(key, scroll: scroll) {
            case .scroll(let to): mode = .help(to)
            case .quit: return .quit
            case .close: mode = .normal
            }
            return nil
        case .command(var text):
            // Typing (a paste is 10^5 of these): the character goes on the end in
            // place, not the line copied for every key (as `editLine` would).
            if case .char(let c) = key, c.value >= 0x20 {
                mode = .normal
                text.unicodeScalars.append(c)
                commandLine.hint = nil
                mode = .command(text)
                return nil
            }
            return commandLineKey(text, key)
        case .filter(let text):
            switch editLine(text, key) {
            case .editing(let t):
                mode = .filter(t)
                nameFilter = t
                settleSelection()
            case .cancelled:
                mode = .normal
                nameFilter = ""
                settleSelection()
            case .done(let t):
                mode = .normal
                nameFilter = t
                settleSelection()
                let n = filteredAllRows
                let what = (isComparing ? "row" : "request") + (n == 1 ? "" : "s")
                message =
                    t.isEmpty ? nil : ("filter: \(SafeText.escaped(t, max: 60)): \(n) \(what) (Esc on / clears)", false)
            }
            return nil
        case .chooseAnswer(let chosen):
            return chooser(chosen, key)
        case .chooseFlap:
            flapChooser(key)
            return nil
        case .chooseJitter:
            jitterChooser(key)
            return nil
        case .chooseBreak:
            breakChooser(key)
            return nil
        case .exportPath(let text):
            return exportPrompt(text, key)
        case .confirmReplace(let path):
            return confirmReplace(path, key)
        case .logSearch(let text):
            logSearchKey(text, key)
            return nil
        case .normal:
            break
        }
        message = nil
        guard let command = KeyMap.command(for: key, calls: KeyMap.calls(of: profiles)) else {
            if case .char(let c) = key { message = ("no command on `\(c)`: press ? for help", true) }
            return nil
        }
        return run(command)
    }

    enum LineEdit { case editing(String), cancelled, done(String) }

    func editLine(_ text: String, _ key: Key) -> LineEdit {
        switch key {
        case .escape: return .cancelled
        case .enter: return .done(text)
        case .backspace, .delete:
            if text.isEmpty { return .cancelled }
            return .editing(String(text.dropLast()))
        case .char(let c) where c.value >= 0x20:
            return .editing(text + String(Character(c)))
        default:
            return .editing(text)
        }
    }

    mutating func run(_ command: Command) -> UIEffect? {
        // A key the profile lacks (KeyMap's `needs`) says so, and does nothing else.
        if let why = KeyMap.lacking(command, on: profiles) {
            message = (why, true)
            return nil
        }
        usedCommands.insert(command)
        if paneCommand(command) { return nil }
        switch command {
        case .help: mode = .help(0)
        case .quit: return .quit
        case .toggleNetwork: perform(sim.online ? .networkWentOffline : .networkWentOnline)
        case .toggleConsent:
            // Comparing, the first column with the consent gate decides; the others skip it with a note.
            // (No column with it: `KeyMap.lacking` said so above.)
            guard let lt = columns.first(where: { $0.profile.hasConsentGate }) else { return nil }
            perform(lt.consent == .granted ? .consentDenied : .consentGranted)
        case .trackPurchase:
            perform(.eventTracked(TrackedEvent(name: "purchase", value: Amount.parse("49.99"), currency: "USD")))
        case .trackBurst:
            for i in 1...20 {
                guard perform(.eventTracked(TrackedEvent(name: "burst-\(i)"))) else { break }
            }
        case .call(let word):
            // The name the call's key gives (its `call` line's ARG), when it takes one.
            guard let c = KeyMap.calls(of: profiles).first(where: { $0.word == word }) else { return nil }
            perform(.call(word, c.takesName ? (c.keyName ?? word) : nil))
        case .chooseAnswer: mode = .chooseAnswer(AnswerChoice())
        case .chooseFlap: mode = .chooseFlap
        case .chooseJitter: mode = .chooseJitter
        case .relaunch:
            if sim.appRunning { perform(.appQuit) }
            perform(.appLaunched)
        case .getInstance: perform(.getInstanceCalled)
        case .toggleBackground:
            // Comparing, the first column with the lifecycle decides; the others skip it with a note.
            guard let c = columns.first(where: { $0.profile.hasLifecycle }) else { return nil }
            perform(c.inBackground ? .appForegrounded : .appBackgrounded)
        case .pause: togglePause()
        case .faster: faster()
        case .slower: slower()
        case .jumpNext: stepNext()
        case .breakpoints: mode = .chooseBreak
        case .down: moveSelection(by: 1)
        case .up: moveSelection(by: -1)
        case .pageDown: moveSelection(by: listHeight)
        case .pageUp: moveSelection(by: -listHeight)
        case .top: select(row: 0)
        case .bottom: select(row: rowCount - 1)
        case .detail: toggleFullDetail()
        case .nextPane: focus = Pane(rawValue: (focus.rawValue + 1) % Pane.allCases.count)!
        case .previousPane: focus = Pane(rawValue: (focus.rawValue + Pane.allCases.count - 1) % Pane.allCases.count)!
        case .nextTab:
            tab = StateTab(rawValue: (tab.rawValue + 1) % StateTab.allCases.count)!
            settleSelection()
        case .previousTab:
            tab = StateTab(rawValue: (tab.rawValue + StateTab.allCases.count - 1) % StateTab.allCases.count)!
            settleSelection()
        case .filterName: mode = focus == .log && !isComparing ? .logSearch(panes.logSearch) : .filter(nameFilter)
        case .back, .nextMatch, .previousMatch, .logRequest: break  // paneCommand
        case .export: startExport()
        case .commandLine:
            mode = .command("")
            commandLine.recall = nil
            commandLine.hint = nil
        case .sort: cycleSort()
        case .click, .wheel: break  // the mouse's place decides (`mouse`)
        case .cycleTheme: return .nextTheme
        case .pin: pin()
        case .zoomIn, .zoomOut, .fitTimeline: runTimeline(command)
        }
        return nil
    }

    mutating func moveSelection(by delta: Int) {
        switch focus {
        case .log:
            logScroll = max(0, min(logScroll - delta, sim.logPositions.count + (player?.results.count ?? 0) - 1))
        default:
            guard let row = selectedRow else {
                select(row: delta > 0 ? 0 : rowCount - 1)
                return
            }
            select(row: row + delta)
        }
    }

    /// Runs a `:` command: any scenario action, or `profile NAME`.
    mutating func runCommand(_ text: String) -> UIEffect? {
        let words: [String]
        switch LineLexer.words(text) {
        case .failure(let p):
            message = (p.message, true)
            return nil
        case .success(let r): words = r.words
        }
        guard !words.isEmpty else { return nil }
        if words[0] == "compare" {
            return compareCommand(Array(words.dropFirst()))
        }
        if words[0] == "profile" {
            if isComparing {
                message = (
                    ":profile shows one column; :compare off first (keeps \(sim.profile.rawValue)), or :compare P,P,...",
                    true
                )
                return nil
            }
            guard words.count == 2 else {
                message = ("expected :profile \(ProfileResolver.builtinNames("|")) or :profile PATH.profile", true)
                return nil
            }
            switch profileResolver.resolve(words[1]) {
            case .success(let p): return .switchProfile(p)
            case .failure(let problem):
                message = (":profile: " + problem.message, true)
                return nil
            }
        }
        if words[0] == "break" {
            breakCommand(Array(words.dropFirst()))
            return nil
        }
        if words[0] == "play" {
            guard words.count == 2 else {
                message = ("expected :play FILE, a scenario file (quote a path with spaces)", true)
                return nil
            }
            return .play(words[1])
        }
        if words[0] == "export" || words[0] == "export!" {
            return exportCommand(Array(words.dropFirst()), replace: words[0] == "export!")
        }
        if words[0] == "log" {
            logCommand(Array(words.dropFirst()))
            return nil
        }
        if words[0] == "help" {
            mode = .help(0)
            return nil
        }
        if words[0] == "set" && words.count == 3 {
            setCommand(words)
            return nil
        }
        // A mistyped word may be one of the commands above: "did you mean" offers them too.
        let commands = ["compare", "profile", "break", "play", "export", "log", "help"]
        guard let parsed = ActionSyntax.parse(words, vocabulary: sim.profile.vocabulary, alsoKnown: commands)
        else { return nil }
        switch parsed {
        case .failure(let p): message = (p.message, true)
        case .success(let a):
            if perform(a) { say(":" + ActionSyntax.text(for: a)) }
        }
        return nil
    }

    /// `:set KEY VALUE`: the value is read here, on the terms of the profile
    /// that has the setting (comparing: the first column that has it; else the
    /// first column's), so the model gets it typed. A refused one steps past a pin,
    /// as a refused action does (`perform`); comparing, a setting no column has is
    /// skipped on every one whatever its value, as `performAll` skips it.
    mutating func setCommand(_ words: [String]) {
        let key = Settings.key(named: words[1])
        let has = key.flatMap { k in columns.first { k.exists(on: $0.profile) }?.profile }
        if isComparing, let key, has == nil {
            stepPastPin()
            skipNote =
                "set skipped on " + profiles.map(\.rawValue).joined(separator: ", ") + ": "
                + Settings.lackedReason(key)
            message = (skipNote ?? "", true)
            return
        }
        switch ActionSyntax.parse(words, vocabulary: sim.profile.vocabulary, settingsOn: has ?? sim.profile) {
        case .success(let a)?:
            if perform(a) { say(":" + ActionSyntax.text(for: a)) }
        case .failure(let p)?:
            stepPastPin()
            skipNote = nil
            message = (p.message, true)
        case nil: break
        }
    }

    /// A message's "did you mean" moved before its list of what was expected, as
    /// the message line shows it: one row, where a long list would push the
    /// suggestion off the screen.
    public static func suggestionFirst(_ m: String) -> String {
        // Without Foundation: find the markers among the characters.
        let c = Array(m)
        func last(_ w: String, before end: Int) -> Int? {
            let p = Array(w)
            guard p.count <= end else { return nil }
            for i in stride(from: end - p.count, through: 0, by: -1) where Array(c[i..<(i + p.count)]) == p { return i }
            return nil
        }
        guard let dym = last("; did you mean ", before: c.count) else { return m }
        var exp: Int?
        let marker = Array(", expected")
        for i in 0..<max(0, dym - marker.count + 1) where Array(c[i..<(i + marker.count)]) == marker {
            exp = i
            break
        }
        guard let exp else { return m }
        return String(c[..<exp]) + String(c[dym...]) + " Expected" + String(c[(exp + marker.count)..<dym])
    }

    /// The next moment any column has something scheduled.
    mutating func nextDueTime() -> Millis? {
        var t = sim.nextDueTime()
        for i in others.indices {
            if let o = others[i].nextDueTime() { t = min(t ?? o, o) }
        }
        return t
    }

    /// `:compare P,P,...` (2 to 4 profiles, each once) or `:compare off`.
    mutating func compareCommand(_ args: [String]) -> UIEffect? {
        let usage = "expected :compare P,P,... (2 to 4 of linktrail, ios, android, flutter) or :compare off"
        guard args.count == 1 else {
            message = (usage, true)
            return nil
        }
        if args[0] == "off" {
            guard isComparing else {
                message = ("not comparing: one column already", true)
                return nil
            }
            leaveCompare()
            message = (
                "one column: \(sim.profile.rawValue), its device in memory; :profile P opens a saved device", false
            )
            return .leftCompare
        }
        switch AppModel.parseCompare(args[0], profiles: profileResolver) {
        case .failure(let p):
            message = (":compare " + p.message, true)
            return nil
        case .success(let profiles): return .startCompare(profiles)
        }
    }

    /// The profiles of `--compare` and `:compare`: 2 to 4 names, each once, in order.
    /// A failure's message follows the option's or command's name.
    public static func parseCompare(_ list: String, profiles: ProfileResolver = .builtins) -> Result<[Profile], Problem>
    {
        var out: [Profile] = []
        for word in list.split(separator: ",", omittingEmptySubsequences: false) {
            let p: Profile
            switch profiles.resolve(String(word)) {
            case .success(let found): p = found
            case .failure(let problem): return .failure(Problem("has an " + problem.message))
            }
            guard !out.contains(p) else { return .failure(Problem("names \(p.rawValue) twice; each profile once")) }
            out.append(p)
        }
        guard out.count >= 2 else {
            return .failure(Problem("needs 2 to 4 profiles, comma-separated, e.g. ios,android,flutter"))
        }
        return .success(out)
    }
}

// MARK: The command line's history and completion

/// The `:` line's memory in this session: the lines run, oldest first, where
/// ↑/↓ are in them, and what Tab last found. Not saved: a new session starts
/// empty (docs/DECISIONS.md).
public struct CommandLineState: Equatable, Sendable {
    /// The lines run, oldest first; the same line twice in a row is kept once.
    public internal(set) var history: [String] = []
    /// The history line on the prompt (↑/↓), or nil while typing a new one.
    var recall: Int?
    /// What was typed before ↑ replaced it (↓ past the newest brings it back).
    var draft = ""
    /// What Tab found when it could not finish the word: the candidates, or why none.
    public internal(set) var hint: String?
    /// Lines kept at most.
    public static let limit = 200
}

extension AppModel {
    /// A key on the `:` line: ↑/↓ walk the history, Tab completes, the rest edit.
    mutating func commandLineKey(_ text: String, _ key: Key) -> UIEffect? {
        switch key {
        case .up, .down:
            let h = commandLine.history
            guard !h.isEmpty else {
                commandLine.hint = "no earlier command lines in this session"
                return nil
            }
            commandLine.hint = nil
            if key == .up {
                if commandLine.recall == nil { commandLine.draft = text }
                let i = max(0, (commandLine.recall ?? h.count) - 1)
                commandLine.recall = i
                mode = .command(h[i])
            } else if let i = commandLine.recall {
                if i + 1 < h.count {
                    commandLine.recall = i + 1
                    mode = .command(h[i + 1])
                } else {
                    commandLine.recall = nil
                    mode = .command(commandLine.draft)
                }
            }
            return nil
        case .tab:
            let done = complete(text)
            mode = .command(done.text)
            commandLine.hint = done.hint
            return nil
        default: break
        }
        commandLine.hint = nil
        switch editLine(text, key) {
        case .editing(let t): mode = .command(t)
        case .cancelled:
            mode = .normal
            commandLine.recall = nil
        case .done(let t):
            mode = .normal
            commandLine.recall = nil
            let line = t.trimmingSpaces
            if !line.isEmpty && commandLine.history.last != line {
                commandLine.history.append(line)
                if commandLine.history.count > CommandLineState.limit { commandLine.history.removeFirst() }
            }
            return runCommand(t)
        }
        return nil
    }

    /// A new session (`:profile`, `:compare`, `:play`) keeps the `:` history,
    /// the list's order and the user's profile names.
    public mutating func keepHabits(of old: AppModel) {
        commandLine.history = old.commandLine.history
        sort = old.sort
        profileNames = old.profileNames
    }

    /// The `:` words that are not scenario actions.
    static let screenCommands = ["break", "compare", "export", "export!", "help", "log", "play", "profile", "set"]

    /// The words Tab may put where the line's last word is, after `before`.
    func completions(after before: [String]) -> [String] {
        let profiles = self.profiles
        // The actions of the profiles on screen, as scenario words, with the words
        // each takes after it (`network online|offline`): Profile.verbs.
        var verbs: [String: [String]] = [:]
        for p in profiles {
            for entry in p.verbs.split(separator: ",") {
                let parts = entry.split(separator: " ").map(String.init)
                guard let v = parts.first else { continue }
                verbs[v, default: []] += parts.dropFirst().flatMap { $0.split(separator: "|").map(String.init) }
            }
        }
        let names = ProfileResolver.builtinNames(" ").split(separator: " ").map(String.init) + profileNames
        switch before.count {
        case 0: return Array(verbs.keys) + AppModel.screenCommands
        case 1:
            switch before[0] {
            case "set": return Settings.keys.filter { k in profiles.contains { k.exists(on: $0) } }.map(\.name)
            case "profile", "compare": return names
            case "break": return RequestState.allCases.map(\.word) + ["rule", "request", "clear"]
            case "server": return AppModel.answerChoices.map(\.answer.word)
            case "log": return ["request", "all"]
            default: return verbs[before[0]] ?? []
            }
        case 2:
            if before == ["break", "rule"] { return profiles.flatMap { p in p.rules.map { p.rule($0).id } } }
            if before[0] == "server" { return ["always", "x1", "x3", "x5", "10%", "25%", "50%", "for"] }
            return []
        default: return []
        }
    }

    /// Tab on the `:` line: the last word completed when one candidate fits,
    /// as far as they agree when several do (and they are listed), else why not.
    func complete(_ text: String) -> (text: String, hint: String?) {
        var words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        var current = ""
        if !text.isEmpty && !text.hasSuffix(" ") { current = words.removeLast() }
        let head = String(text.dropLast(current.count))
        // `compare ios,an`: the profile after the last comma.
        var listed = ""
        if words.first == "compare", let comma = current.lastIndex(of: ",") {
            listed = String(current[...comma])
            current = String(current[current.index(after: comma)...])
        }
        var seen = Set<String>()
        let all = completions(after: words).filter { seen.insert($0).inserted }.sorted()
        let fits = all.filter { $0.lowercased().hasPrefix(current.lowercased()) }
        guard !fits.isEmpty else {
            let shown = SafeText.escaped(current, max: 30)
            return (text, all.isEmpty ? "nothing to complete here" : "nothing starts with `\(shown)`: " + list(all))
        }
        if fits.count == 1 { return (head + listed + fits[0] + (words.first == "compare" ? "" : " "), nil) }
        var common = fits[0]
        for f in fits.dropFirst() {
            while !f.lowercased().hasPrefix(common.lowercased()) { common.removeLast() }
        }
        let word = common.count > current.count ? common : current
        return (head + listed + word, list(fits))
    }

    func list(_ words: [String]) -> String {
        words.count <= 12 ? words.joined(separator: " ") : words.prefix(12).joined(separator: " ") + " …"
    }

    // MARK: The mouse

    /// A click or the wheel: resolved against the last frame's layout (`Layout.spot`).
    /// A prompt or a chooser keeps the keyboard's attention: the mouse does
    /// nothing there; the help scrolls with the wheel and closes on a click.
    mutating func mouse(_ e: MouseEvent) -> UIEffect? {
        guard let command = KeyMap.command(for: .mouse(e)) else { return nil }  // a release, another button
        let lines = 3 * e.lines.signum()
        switch mode {
        case .help(let scroll):
            mode = command == .wheel ? .help(max(0, scroll + lines)) : .normal
            return nil
        case .normal: break
        default: return nil
        }
        guard let spot = layout.spot(x: e.x, y: e.y, screen: screen, top: top, rows: rowCount) else { return nil }
        message = nil
        usedCommands.insert(command)
        if command == .wheel {
            if detailExpanded {
                if !isComparing { scrollDetail(by: lines) }
                return nil
            }
            switch spot {
            case .row, .list, .column: scrollList(by: lines)
            case .detail: if !isComparing { scrollDetail(by: lines) }
            case .log: scrollLog(by: lines)
            case .tab: break
            }
            return nil
        }
        switch spot {
        case .tab(let t):
            tab = t
            settleSelection()
        case .column(let s): setSort(sort == s && s != .id ? .id : s)
        case .row(let r):
            focus = .list
            select(row: r)
        case .list: focus = .list
        case .detail: if !isComparing && !detailExpanded { focus = .detail }
        case .log: if !isComparing { focus = .log }
        }
        return nil
    }

    /// The wheel over the list: the rows shown move; the selection stays in view.
    mutating func scrollList(by lines: Int) {
        let n = rowCount
        guard n > 0 else { return }
        top = min(max(0, top + lines), max(0, n - listHeight))
        guard let r = selectedRow else { return }
        if r < top { select(row: top) } else if r >= top + listHeight { select(row: top + listHeight - 1) }
    }
}

extension String {
    /// Without spaces at either end.
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
