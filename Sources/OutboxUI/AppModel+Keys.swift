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
        switch mode {
        case .help(let scroll):
            switch key {
            case .char("j"), .down: mode = .help(scroll + 1)
            case .char("k"), .up: mode = .help(max(0, scroll - 1))
            case .pageDown, .char(" "): mode = .help(scroll + 10)
            case .pageUp: mode = .help(max(0, scroll - 10))
            case .char("q"): return .quit
            default: mode = .normal
            }
            return nil
        case .command(let text):
            switch editLine(text, key) {
            case .editing(let t): mode = .command(t)
            case .cancelled: mode = .normal
            case .done(let t):
                mode = .normal
                return runCommand(t)
            }
            return nil
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
                message = t.isEmpty ? nil : ("filter: \(SafeText.escaped(t, max: 60)): \(n) \(what) (Esc on / clears)", false)
            }
            return nil
        case .chooseAnswer(let chosen):
            return chooser(chosen, key)
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
        guard let command = KeyMap.command(for: key) else {
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

    mutating func chooser(_ chosen: Answer?, _ key: Key) -> UIEffect? {
        if key == .escape || key == .char("q") {
            mode = .normal
            return nil
        }
        guard case .char(let c) = key else { return nil }
        guard let answer = chosen else {
            if let pick = AppModel.answerChoices.first(where: { $0.key == c }) {
                if pick.answer == .ok {
                    mode = .normal
                    if perform(.serverPlanned(.ok, .times(1))) { say("backend answers ok") }
                } else {
                    mode = .chooseAnswer(pick.answer)
                }
            } else {
                message = ("no answer on `\(c)`; Esc cancels", true)
            }
            return nil
        }
        let rep: ServerRepeat
        switch c {
        case "1": rep = .times(1)
        case "3": rep = .times(3)
        case "5": rep = .times(5)
        case "a": rep = .always
        default:
            message = ("1, 3, 5 times or a(lways); Esc cancels", true)
            return nil
        }
        mode = .normal
        if perform(.serverPlanned(answer, rep)) { say("backend will answer " + sim.plan.text) }
        return nil
    }

    mutating func run(_ command: Command) -> UIEffect? {
        usedCommands.insert(command)
        if paneCommand(command) { return nil }
        switch command {
        case .help: mode = .help(0)
        case .quit: return .quit
        case .toggleNetwork: perform(sim.online ? .networkWentOffline : .networkWentOnline)
        case .toggleConsent:
            // Comparing, the first column with the consent gate decides; the others skip it with a note.
            guard let lt = columns.first(where: { $0.profile.hasConsentGate }) else {
                let names = profiles.map(\.rawValue).joined(separator: ", ")
                message = ("consent needs the consent gate; \(names) \(isComparing ? "have" : "has") no consent gate", true)
                return nil
            }
            perform(lt.consent == .granted ? .consentDenied : .consentGranted)
        case .trackPurchase:
            perform(.eventTracked(TrackedEvent(name: "purchase", value: Amount.parse("49.99"), currency: "USD")))
        case .trackBurst:
            for i in 1...20 {
                guard perform(.eventTracked(TrackedEvent(name: "burst-\(i)"))) else { break }
            }
        case .ping: perform(.pingSent)
        case .screen: perform(.screenViewed("home"))
        case .product: perform(.productViewed("sku-42"))
        case .notification: perform(.notificationReported("promo"))
        case .logout: perform(.loggedOut)
        case .chooseAnswer: mode = .chooseAnswer(nil)
        case .relaunch:
            if sim.appRunning { perform(.appQuit) }
            perform(.appLaunched)
        case .getInstance: perform(.getInstanceCalled)
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
        case .commandLine: mode = .command("")
        case .cycleTheme: return .nextTheme
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
                message = (":profile shows one column; :compare off first (keeps \(sim.profile.rawValue)), or :compare P,P,...", true)
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
        // A mistyped word may be one of the commands above: "did you mean" offers them too.
        let commands = ["compare", "profile", "break", "play", "export", "log", "help"]
        guard let parsed = ActionSyntax.parse(words, alsoKnown: commands) else { return nil }
        switch parsed {
        case .failure(let p): message = (p.message, true)
        case .success(let a):
            if perform(a) { say(":" + ActionSyntax.text(for: a)) }
        }
        return nil
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
            message = ("one column: \(sim.profile.rawValue), its device in memory; :profile P opens a saved device", false)
            return nil
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
    public static func parseCompare(_ list: String, profiles: ProfileResolver = .builtins) -> Result<[Profile], Problem> {
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
        guard out.count >= 2 else { return .failure(Problem("needs 2 to 4 profiles, comma-separated, e.g. ios,android,flutter")) }
        return .success(out)
    }
}
