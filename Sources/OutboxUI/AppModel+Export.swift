import OutboxCore

/// Export (issue 12): `e` asks where to write the timeline, with a default shown;
/// `:export PATH` writes there; a file that exists is replaced only when confirmed
/// (`y` at the question) or asked for (`:export! PATH`). The loop does the writing
/// (`UIEffect.export`) and calls `askReplace` when the file exists.
extension AppModel {
    /// Where `e` offers to write: `outbox-<profile>[-<profile>...]-<HHMMSS-mmm>.jsonl`
    /// (the virtual time), in the folder Outbox was started in.
    public var defaultExportPath: String {
        let stamp = VirtualTime.clock(sim.now).split(whereSeparator: { $0 == ":" }).joined()
            .replacingDot(with: "-")
        return "outbox-" + profiles.map(\.rawValue).joined(separator: "-") + "-" + stamp + ".jsonl"
    }

    /// The timeline so far as JSONL, as `outbox run --format jsonl` writes it. A
    /// compare writes one file: each column's lines with `"profile"` second, one
    /// column after the other, as `outbox compare --format jsonl` does.
    public func exportText() -> (text: String, lines: Int) {
        var out = "", lines = 0
        for s in columns {
            let writer = TimelineWriter(format: .jsonl, profile: isComparing ? s.profile.rawValue : nil)
            for e in s.keptJournal {
                out += writer.line(e, in: s)
                out += "\n"
            }
            lines += s.compactedTransitions.count + s.journal.count
        }
        return (out, lines)
    }

    /// What an export to `path` writes, and what the message calls it: one
    /// self-contained HTML page when the path ends `.html` (the picture `outbox run
    /// --format html` draws, of what happened so far: every column in a compare,
    /// with the checks reached when a file is playing), else JSONL (`exportText`).
    public func exportFile(for path: String) -> (text: String, what: String) {
        guard path.lowercased().hasSuffix(".html") else {
            let (text, lines) = exportText()
            return (text, "\(lines) lines" + forgottenNote)
        }
        var runs: [TimelinePicture.Run] = []
        for (k, s) in columns.enumerated() {
            var results: [CheckResult] = []
            if let p = player {
                for (r, c) in zip(p.results, p.resultColumns) where c == k { results.append(r) }
            }
            runs.append(TimelinePicture.Run(label: isComparing ? s.profile.rawValue : "", sim: s, results: results))
        }
        let file = player?.file ?? "the live screen"
        let page = TimelinePicture().html(
            [TimelinePicture.Story(file: file, runs: runs)],
            title: "outbox: " + file + " at " + VirtualTime.clock(sim.now))
        let lines = columns.reduce(0) { $0 + $1.compactedTransitions.count + $1.journal.count }
        return (page, "\(lines) lines as HTML" + forgottenNote)
    }

    /// What an export leaves out: the log lines the live screen forgot (AppModel+Bounds.swift).
    var forgottenNote: String {
        let n = columns.reduce(0) { $0 + $1.forgottenLogLines }
        return n == 0 ? "" : " (without the \(n) oldest log lines, forgotten by the live screen)"
    }

    /// `e`: the question, with the default path to accept or edit.
    mutating func startExport() {
        mode = .exportPath(defaultExportPath)
    }

    /// A key at the question "export to:".
    mutating func exportPrompt(_ text: String, _ key: Key) -> UIEffect? {
        switch editLine(text, key) {
        case .editing(let t):
            mode = .exportPath(t)
        case .cancelled:
            mode = .normal
            message = ("export cancelled", false)
        case .done(let t):
            mode = .normal
            guard !t.isEmpty else {
                message = ("export cancelled: no path", false)
                return nil
            }
            return .export(path: t, replace: false)
        }
        return nil
    }

    /// The file at `path` exists: ask before replacing it.
    public mutating func askReplace(_ path: String) {
        mode = .confirmReplace(path)
    }

    /// A key at the question "PATH exists: replace it?".
    mutating func confirmReplace(_ path: String, _ key: Key) -> UIEffect? {
        mode = .normal
        if key == .char("y") { return .export(path: path, replace: true) }
        message = ("export cancelled: " + SafeText.escaped(path, max: 200) + " kept as it was", false)
        return nil
    }

    /// `:export [PATH]` and `:export! PATH`.
    mutating func exportCommand(_ args: [String], replace: Bool) -> UIEffect? {
        guard args.count <= 1 else {
            message = (
                "expected :export PATH (a path with spaces goes in quotes), or :export! PATH to replace a file", true
            )
            return nil
        }
        guard let path = args.first, !path.isEmpty else {
            if replace {
                message = ("expected :export! PATH: the file to replace", true)
                return nil
            }
            startExport()
            return nil
        }
        return .export(path: path, replace: replace)
    }
}

extension String {
    fileprivate func replacingDot(with s: String) -> String {
        split(separator: ".", omittingEmptySubsequences: false).joined(separator: s)
    }
}
