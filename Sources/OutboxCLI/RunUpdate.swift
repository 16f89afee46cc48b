import OutboxCore

/// `outbox run --update FILE...`: each file's failing `expect` values rewritten
/// to what the run found (a snapshot update), then the files run again as
/// `outbox run` runs them, whose status is the exit status (docs/scenarios.md,
/// "Updating expect lines").
extension RunCommand {
    /// Why `--update` does not go with the other options given, or nil.
    func updateRefusal() -> String? {
        if watch {
            return
                "outbox run: --update does not go with --watch (a watch that rewrites the files it watches would fight the editor); update once, then watch"
        }
        if stateDir != nil {
            return
                "outbox run: --update does not go with --state-dir (the device on disk changes with each run, so the run that confirms the update would not see what it saw)"
        }
        if format == "junit" {
            return
                "outbox run: --update does not go with --format junit (a report of checks just rewritten to hold says nothing); update, then run with --format junit"
        }
        var seen = Set<String>()
        for f in files where !seen.insert(f).inserted {
            return "outbox run: --update got \(SafeText.escaped(f, max: 200)) twice, expected each file once"
        }
        return nil
    }

    /// Updates the files, then plays them as `run` does and returns its status.
    func updating(console: Console, output: OutputFormat, maxTransitions: Int) -> Int32 {
        // Every file is read and parsed before any is written: bad input anywhere changes nothing.
        var parsed: [(file: String, text: String, scenario: Scenario)] = []
        for f in files {
            guard case .success(let text) = Self.readText(f) else {
                return play(console: console, output: output, maxTransitions: maxTransitions)  // it says why
            }
            let profiles = ProfileLoader.resolver(relativeTo: ProfileLoader.directory(of: f))
            guard case .success(let sc) = Scenario.parse(text, file: f, profiles: profiles) else {
                return play(console: console, output: output, maxTransitions: maxTransitions)
            }
            parsed.append((f, text, sc))
        }
        for (file, text, sc) in parsed {
            var runner = ScenarioRunner(sc, maxTransitions: maxTransitions, journal: .checksOnly)
            var changes: [ExpectUpdate.Change] = []
            var notes: [String] = []
            var checkAt: [Int: Check] = [:]
            for i in sc.steps.indices {
                let step = sc.steps[i]
                if case .check(let c) = step.content { checkAt[step.line] = c }
            }
            runner.run(until: { console.failed }) { item, sim in
                guard case .check(let r) = item, !r.ok, let check = checkAt[r.line] else { return }
                switch sim.updatedValue(check) {
                case .success(let value):
                    changes.append(ExpectUpdate.Change(line: r.line, value: value))
                    notes.append(
                        SafeText.line(
                            "\(file):\(r.line): \(r.text) → \(Self.replacingLastWord(of: r.text, with: value))"))
                case .failure(let why):
                    notes.append(SafeText.line("\(file):\(r.line): cannot update \(r.text): \(why.message)"))
                }
            }
            if console.failed { return 1 }
            if runner.stopped != nil || runner.sim.store.failure != nil {
                // The run that confirms says why; nothing is written from a run cut short.
                continue
            }
            for n in notes { console.error(n) }
            guard !changes.isEmpty else { continue }
            guard let updated = ExpectUpdate.apply(changes, to: text) else {
                console.error("\(file): cannot update: an expect line was not where the run found it")
                return 2
            }
            if let why = Platform.replaceAtomically(file, with: Array(updated.utf8)) {
                console.error("\(SafeText.escaped(file, max: 200)): cannot update the file: \(why)")
                return 2
            }
            console.error(
                SafeText.line(
                    "\(file): updated \(changes.count) expect line\(changes.count == 1 ? "" : "s")"
                        + (notes.count > changes.count ? ", \(notes.count - changes.count) left as they were" : "")))
        }
        return play(console: console, output: output, maxTransitions: maxTransitions)
    }

    /// A check's text with its last word replaced (the value `ExpectUpdate` writes).
    static func replacingLastWord(of text: String, with value: String) -> String {
        guard let r = ExpectUpdate.lastWord(ArraySlice(Array(text.utf8))) else { return text }
        let bytes = Array(text.utf8)
        return String(decoding: bytes[..<r.lowerBound] + Array(value.utf8) + bytes[r.upperBound...], as: UTF8.self)
    }
}
