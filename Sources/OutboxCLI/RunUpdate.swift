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
    ///
    /// All or nothing (docs/scenarios.md, "Updating expect lines"): every file
    /// is read and parsed, then played, then every new text is written beside
    /// its file and checked (the file still as it was read, one name, writable,
    /// its owner kept), and only then is each renamed over its file. A refusal
    /// anywhere writes nothing, says which file and why, and no `→` line is
    /// printed for a file that is not updated. `beforeWriting` runs between the
    /// plays and the writes: a test's stand-in for an editor saving meanwhile.
    func updating(
        console: Console, output: OutputFormat, maxTransitions: Int, beforeWriting: () -> Void = {}
    ) -> Int32 {
        // Every file is read and parsed before any is written: bad input anywhere changes nothing.
        var parsed: [(file: String, read: Platform.ReadContents, scenario: Scenario)] = []
        for f in files {
            let read: Platform.ReadContents
            switch Self.readContents(f) {
            case .success(let r): read = r
            case .failure(let why):
                // Only a regular file can be updated: a pipe is refused here, not played.
                console.error(RunCommand.unreadable(f, why))
                return 2
            }
            let text = String(decoding: read.bytes, as: UTF8.self)
            let profiles = ProfileLoader.resolver(relativeTo: ProfileLoader.directory(of: f))
            guard case .success(let sc) = Scenario.parse(text, file: f, profiles: profiles) else {
                return play(console: console, output: output, maxTransitions: maxTransitions)  // it says why
            }
            parsed.append((f, read, sc))
        }
        // What each file's run found: the lines to print once the files are written, and the new text.
        var found: [(file: String, read: Platform.ReadContents, notes: [String], changes: Int, updated: String?)] = []
        for (file, read, sc) in parsed {
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
            var updated: String?
            if !changes.isEmpty {
                guard let u = ExpectUpdate.apply(changes, to: String(decoding: read.bytes, as: UTF8.self)) else {
                    console.error("\(file): cannot update: an expect line was not where the run found it")
                    console.error(Self.nothingUpdated)
                    return 2
                }
                updated = u
            }
            found.append((file, read, notes, changes.count, updated))
        }
        beforeWriting()
        // Every new text written beside its file and checked before any is renamed.
        var pending: [(index: Int, replace: Platform.PendingReplace)] = []
        var refusals: [String] = []
        var targets: [String: String] = [:]
        for (i, f) in found.enumerated() {
            guard let updated = f.updated else { continue }
            if let real = Platform.realPath(f.file) {
                if let other = targets[real] {
                    refusals.append(
                        SafeText.line(
                            "\(f.file): cannot update the file: it is \(other) by another name; expected each file once"
                        ))
                    continue
                }
                targets[real] = f.file
            }
            switch Platform.prepareReplace(f.file, with: Array(updated.utf8), unless: f.read) {
            case .failure(let why):
                refusals.append("\(SafeText.escaped(f.file, max: 200)): cannot update the file: \(why.message)")
            case .success(let p): pending.append((i, p))
            }
        }
        // Once more, all of them, just before the renames: a save during the writes is seen too.
        if refusals.isEmpty {
            for (i, p) in pending {
                if let why = Platform.stillAsRead(p) {
                    refusals.append("\(SafeText.escaped(found[i].file, max: 200)): cannot update the file: \(why)")
                }
            }
        }
        if !refusals.isEmpty {
            for p in pending { Platform.discardReplace(p.replace) }
            for r in refusals { console.error(r) }
            console.error(Self.nothingUpdated)
            return 2
        }
        var landed: [String] = []
        for (i, p) in pending {
            if let why = Platform.landReplace(p) {
                // Checked a moment ago: only a failure of the system gets here, after the files before it.
                for q in pending where q.index >= i { Platform.discardReplace(q.replace) }
                console.error("\(SafeText.escaped(found[i].file, max: 200)): cannot update the file: \(why)")
                console.error(
                    landed.isEmpty
                        ? Self.nothingUpdated
                        : SafeText.line("outbox run --update: updated only " + landed.joined(separator: ", ")))
                return 2
            }
            landed.append(found[i].file)
        }
        for p in pending {
            for stale in p.replace.removedStale {
                console.error(
                    SafeText.line(
                        "\(found[p.index].file): removed \(stale.path), left by \(stale.writer) that was stopped"))
            }
        }
        for f in found {
            for n in f.notes { console.error(n) }
            guard f.changes > 0 else { continue }
            console.error(
                SafeText.line(
                    "\(f.file): updated \(f.changes) expect line\(f.changes == 1 ? "" : "s")"
                        + (f.notes.count > f.changes ? ", \(f.notes.count - f.changes) left as they were" : "")))
        }
        return play(console: console, output: output, maxTransitions: maxTransitions)
    }

    /// The last line of an update that wrote nothing.
    static let nothingUpdated = "outbox run --update: no file was updated"

    /// A check's text with its last word replaced (the value `ExpectUpdate` writes).
    static func replacingLastWord(of text: String, with value: String) -> String {
        guard let r = ExpectUpdate.lastWord(ArraySlice(Array(text.utf8))) else { return text }
        let bytes = Array(text.utf8)
        return String(decoding: bytes[..<r.lowerBound] + Array(value.utf8) + bytes[r.upperBound...], as: UTF8.self)
    }
}
