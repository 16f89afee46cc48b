import ArgumentParser
import OutboxCore
import OutboxFoundation
import OutboxServe
import OutboxTerminal
import OutboxUI

/// `outbox serve [--listen HOST:PORT] [--script FILE] [--id-field F] [--headless]
/// [--until D|idle:D] [--format text|jsonl]`: a real HTTP backend for real SDKs,
/// with a live screen (`ServeScreen`) unless headless.
struct ServeCommand: OutboxSubcommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "serve", abstract: "a real HTTP backend for real SDKs: see their requests, choose the answers",
            usage: CLI.parserUsage(synopsis), discussion: Help.serve)
    }
    static var synopsis: String {
        "outbox serve [--listen HOST:PORT] [--script FILE] [--id-field F] [--headless] [--until D|idle:D]\n"
            + "                    [--format text|jsonl|junit|html] [--report FILE] [--profile P] [--record FILE]\n"
            + "                    [--theme NAME|PATH]"
    }

    @Option(
        help: ArgumentHelp("where to listen (default 127.0.0.1:8080; port 0 picks a free one)", valueName: "HOST:PORT"))
    var listen: String?

    @Option(
        help: ArgumentHelp(
            "play this file's server, network and set latency lines on the wall clock from the start, and check its expect lines",
            valueName: "FILE"),
        completion: .file(extensions: ["outbox"]))
    var script: String?

    @Option(
        help: ArgumentHelp(
            "read JSON bodies of no known SDK as events carrying this id field (the generic form)", valueName: "F"))
    var idField: String?

    @Flag(
        help:
            "run without the live screen and report at the end (--until); without it a terminal shows the screen, and q prints the same report"
    )
    var headless = false

    @Option(
        help: ArgumentHelp("the live screen's colours: a theme's name or a .theme file", valueName: "NAME|PATH"),
        completion: .list(InteractiveCommand.themeNames))
    var theme: String?

    @Option(
        help: ArgumentHelp(
            "end D after the start, or (idle:D) once no request has come for D, waiting up to 60 s for a first one (default idle:5s)",
            valueName: "D|idle:D"))
    var until: String?

    @Option(
        help: ArgumentHelp(
            "text for people (default), jsonl one JSON object a line, junit a test case per event and per check, html a page with a lane per event (and the profile's predicted windows)",
            valueName: "text|jsonl|junit|html"),
        completion: .list(["text", "jsonl", "junit", "html"]))
    var format: String?

    @Option(
        help: ArgumentHelp(
            "write the report to FILE when the run ends (whole; one that exists is replaced) instead of stdout, which keeps the address: a JUnit or HTML file for CI",
            valueName: "FILE"),
        completion: .file())
    var report: String?

    @Option(help: ArgumentHelp("the seed of chance answers (`server 503 30%`)", valueName: "N"))
    var seed: String?

    @Option(
        help: ArgumentHelp(
            "hold every event to this profile (NAME or PATH.profile): each next attempt within the window it predicts, none where it stops; an event that diverges fails the run",
            valueName: "P"),
        completion: ProfileLoader.completion())
    var profile: String?

    @Option(
        help: ArgumentHelp(
            "write what was seen as a scenario (each event tracked at its first arrival, its answers as server lines for its name) that `outbox run FILE` replays on --profile's model; an existing FILE is kept unless --force",
            valueName: "FILE"),
        completion: .file(extensions: ["outbox"]))
    var record: String?

    @Flag(help: "let --record replace a file that exists")
    var force = false

    /// How a headless run ends.
    enum End: Equatable {
        case after(Millis)
        case idle(Millis)
    }

    /// The longest `idle:D` waits for a first request.
    static let firstRequestWait: Millis = 60_000
    /// What a terminal that cannot show the live screen is told to do instead.
    static let runHeadless = "run `outbox serve --headless` instead (it reports when it ends: --until)"

    static func parseListen(_ s: String?) -> Result<(String, Int), Problem> {
        guard let s else { return .success(("127.0.0.1", 8080)) }
        guard let colon = s.lastIndex(of: ":") else {
            return .failure(
                Problem("outbox serve: --listen needs HOST:PORT (127.0.0.1:8080, or port 0 for a free one)"))
        }
        var host = String(s[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let portText = String(s[s.index(after: colon)...])
        guard !host.isEmpty, let port = Int(portText), (0...65535).contains(port) else {
            return .failure(
                Problem(
                    "outbox serve: bad --listen `\(SafeText.escaped(s, max: 60))`, expected HOST:PORT with a port from 0 to 65535"
                ))
        }
        return .success((host, port))
    }

    /// Whether a listen host is this machine's loopback only (127.0.0.0/8, ::1, localhost).
    static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased()
        return h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1" || h.hasPrefix("127.")
    }

    static func parseUntil(_ s: String?) -> Result<End, Problem> {
        guard let s else { return .success(.idle(5000)) }
        let idle = s.hasPrefix("idle:")
        let word = idle ? String(s.dropFirst(5)) : s
        guard case .success(let t) = VirtualTime.parseLimited(word), t > 0 else {
            return .failure(
                Problem(
                    "outbox serve: bad --until `\(SafeText.escaped(s, max: 60))`, expected a duration above 0 (30s) or idle:DURATION (idle:5s)"
                ))
        }
        return .success(idle ? .idle(t) : .after(t))
    }

    func execute(console: Console) -> Int32 {
        func bad(_ p: Problem) -> Int32 {
            console.error(p.message)
            return 2
        }
        let listenAt: (String, Int), end: End
        switch Self.parseListen(listen) {
        case .failure(let p): return bad(p)
        case .success(let l): listenAt = l
        }
        switch Self.parseUntil(until) {
        case .failure(let p): return bad(p)
        case .success(let e): end = e
        }
        if let f = format, !["text", "jsonl", "junit", "html"].contains(f) {
            return bad(
                Problem(
                    "outbox serve: --format needs text, jsonl, junit or html, not `\(SafeText.escaped(f, max: 40))`"))
        }
        var seedValue: UInt64 = 1
        if let s = seed {
            guard let v = UInt64(s) else { return bad(Problem("outbox serve: --seed needs a whole number ≥ 0")) }
            seedValue = v
        }
        if let f = idField, f.isEmpty || f.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            return bad(Problem("outbox serve: --id-field needs a field name"))
        }
        var held: (Profile, Settings)?
        if let v = profile {
            switch ProfileLoader.resolve(v, relativeTo: nil) {
            case .success(let p): held = (p, Settings(profile: p))
            case .failure(let why): return bad(Problem("outbox serve: " + why.message))
            }
        }
        if force && record == nil {
            return bad(Problem("outbox serve: --force goes with --record FILE (it lets the recording replace FILE)"))
        }
        var parsed = ServeScript()
        if let path = script {
            switch Platform.readFile(path, limit: 64 * 1024 * 1024) {
            case .failure(let why):
                return bad(Problem("outbox serve: \(SafeText.escaped(path, max: 200)): " + why.message))
            case .success(let bytes):
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    return bad(Problem("outbox serve: \(SafeText.escaped(path, max: 200)): not UTF-8 text"))
                }
                switch ServeScript.parse(text, file: SafeText.escaped(path, max: 200)) {
                case .failure(let f):
                    for m in f.messages { console.error(m) }
                    return 2
                case .success(let s): parsed = s
                }
            }
        }
        // The script's `set KEY VALUE` lines: the SDK as the run configures it (D347).
        if var h = held {
            for s in parsed.settings {
                switch Settings.read(s.key, s.value, on: h.0) {
                case .failure(let why): return bad(Problem("\(parsed.file):\(s.line): " + why.message))
                case .success(let v): h.1.apply(v)
                }
            }
            held = h
        } else {
            parsed.skipped += parsed.settings.count
        }
        if let path = report {
            if path.isEmpty { return bad(Problem("outbox serve: --report needs a file name")) }
            if Platform.exists(path), let what = Platform.notAFile(path) {
                return bad(
                    Problem("outbox serve: cannot write the report to \(SafeText.escaped(path, max: 200)): " + what))
            }
            if let path2 = record, path2 == path {
                return bad(Problem("outbox serve: --report and --record name the same file"))
            }
        }
        if let path = record {
            guard held != nil else {
                return bad(
                    Problem(
                        "outbox serve: --record needs --profile P: the recording's profile line, the model `outbox run` replays it on"
                    ))
            }
            if Platform.exists(path) {
                if let what = Platform.notAFile(path) {
                    return bad(Problem("outbox serve: cannot record to \(SafeText.escaped(path, max: 200)): " + what))
                }
                if !force {
                    return bad(
                        Problem(
                            "outbox serve: \(SafeText.escaped(path, max: 200)) exists; --force replaces it, or name another --record FILE"
                        ))
                }
            }
        }
        // The live screen: its theme read and the terminal checked before the
        // server listens, so a refusal leaves nothing started (exit 2).
        var theme = Theme.monochrome
        if !headless {
            switch InteractiveCommand.loadTheme(self.theme ?? "default") {
            case .success(let t): theme = t
            case .failure(let why): return bad(Problem("outbox serve: " + SafeText.escaped(why.message, max: 1000)))
            }
            if let why = Terminal.unusable() {
                return bad(Problem(InteractiveCommand.refusal(why, command: "outbox serve", instead: Self.runHeadless)))
            }
        }
        guard let make = ServeListeners.make else {
            return bad(Problem("outbox serve: this build has no HTTP server (the outbox executable sets one)"))
        }
        let server: any ServeListener
        do {
            server = try make(listenAt.0, listenAt.1, ServeSession(script: parsed, idField: idField, seed: seedValue))
        } catch {
            return bad(Problem("outbox serve: \(error)"))
        }
        let hub = server
        let shownHost = listenAt.0.contains(":") ? "[\(listenAt.0)]" : listenAt.0
        console.print("outbox serve: listening on http://\(shownHost):\(server.port)")
        if !Self.isLoopback(listenAt.0) {
            console.error(
                "outbox serve: listening on \(shownHost), not loopback only: any device that can reach this machine can send to it, and what the SDKs send (payloads can hold personal data) crosses the network unencrypted"
            )
        }
        if parsed.skipped > 0 {
            console.print(
                "outbox serve: \(parsed.skipped) line\(parsed.skipped == 1 ? "" : "s") of \(parsed.file) skipped (the app's actions: the real SDK makes them)"
            )
        }
        // The address first, at once: a client waits for it before it starts.
        console.flush()
        Terminal.catchStopSignals()
        var timedResults: [ServeSession.Outcome] = []
        var checkIndex = 0
        let timed = parsed.checks.filter { $0.time >= 0 }.sorted { $0.time < $1.time }
        var stoppedBy: Int32 = 0
        var endedAt: Millis = 0
        /// The `expect at T` checks due by `now`, on what was seen by then.
        func checkDue(_ now: Millis) {
            while checkIndex < timed.count && timed[checkIndex].time <= now {
                let c = timed[checkIndex]
                let r = hub.reading { $0.evaluate(c.item) }
                timedResults.append(.init(line: c.line, text: c.text, ok: r.ok, found: r.found))
                checkIndex += 1
            }
        }
        var quitByKey = false
        if !headless {
            let noColor = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
            let model = ServeModel(address: "http://\(shownHost):\(server.port)", profile: held)
            switch ServeScreen.run(
                server: server, model: model, theme: theme, noColor: noColor, until: until == nil ? nil : end,
                checkDue: checkDue)
            {
            case .failure(let why):
                server.shutdown()
                return bad(why)
            case .success(let outcome):
                stoppedBy = outcome.signal
                endedAt = outcome.endedAt
                quitByKey = outcome.quit
            }
        }
        while headless {
            let online = hub.tick()
            try? server.follow(online: online)
            let now = hub.now()
            // Read where it is: a copy each tick would make the next request copy
            // the whole session (copy on write), 50 times a second.
            let (lastRequestAt, nextStepAt) = hub.reading { s in (s.lastRequestAt, s.nextStepAt) }
            checkDue(now)
            if Terminal.stopSignal != 0 {
                stoppedBy = Terminal.stopSignal
                endedAt = now
                break
            }
            var done = false
            switch end {
            case .after(let d): done = now >= d
            case .idle(let d):
                if let last = lastRequestAt {
                    done = now - last >= d && nextStepAt.map { $0 <= now } ?? true
                } else {
                    done = now >= Self.firstRequestWait
                }
            }
            if done {
                endedAt = now
                break
            }
            usleep(20_000)
        }
        server.shutdown()
        let snap = hub.snapshot
        var results = timedResults
        for c in parsed.checks where c.time < 0 {
            let r = snap.evaluate(c.item)
            results.append(.init(line: c.line, text: c.text, ok: r.ok, found: r.found))
        }
        // Checks due after the end still count, on what was seen.
        while checkIndex < timed.count {
            let c = timed[checkIndex]
            let r = snap.evaluate(c.item)
            results.append(.init(line: c.line, text: c.text, ok: r.ok, found: r.found))
            checkIndex += 1
        }
        let why: String
        if stoppedBy != 0 {
            why = "stopped by \(Terminal.signalName(stoppedBy))"
        } else if quitByKey {
            why = "quit on the live screen"
        } else if case .idle(let d) = end, snap.lastRequestAt == nil {
            why =
                "no request came in \(VirtualTime.duration(Self.firstRequestWait)) (--until idle:\(VirtualTime.duration(d)))"
        } else {
            switch end {
            case .after(let d): why = "--until \(VirtualTime.duration(d))"
            case .idle(let d): why = "idle for \(VirtualTime.duration(d))"
            }
        }
        let verdicts = held.map { (p, st) in
            snap.events.map { Conformance.verdict($0, in: snap, profile: p, settings: st, endedAt: endedAt) }
        }
        let r = ServeReport(
            session: snap, results: results, verdicts: verdicts, profile: held?.0.name, held: held, endedAt: endedAt,
            why: why, file: parsed.file)
        let reportText: String
        switch format {
        case "jsonl": reportText = r.jsonl
        case "junit": reportText = r.junit
        case "html": reportText = r.html
        default: reportText = r.text
        }
        var reportFailed = false
        if let path = report {
            if let why = Self.writeWhole(path, Array(reportText.utf8)) {
                console.error("outbox serve: the report \(SafeText.escaped(path, max: 200)) was not written: " + why)
                console.print(reportText, terminator: "")
                reportFailed = true
            } else {
                console.print("outbox serve: the report is in \(SafeText.escaped(path, max: 200))")
            }
        } else if format == nil || format == "text" {
            console.print(reportText, terminator: "")
        } else {
            console.printExact(reportText, terminator: "")
        }
        for (e, v) in zip(snap.events, verdicts ?? []) where v.kind == .diverges {
            console.error("outbox serve: \(e.name) (\(e.id)) diverges from \(held!.0.name): \(v.why)")
        }
        for r in results where !r.ok {
            console.error("\(parsed.file):\(r.line): check failed: \(r.text.trimmingCharacters()): found \(r.found)")
        }
        var recordFailed = false
        if let path = record, let p = held?.0 {
            // Written whole at the end, or not at all: a file --force replaces stays until then.
            let source = "http://\(shownHost):\(server.port)"
            let text = ServeRecording.scenario(snap, profile: profile ?? p.name, endedAt: endedAt, source: source)
            if let why = Self.writeWhole(path, Array(text.utf8)) {
                console.error("outbox serve: the recording \(SafeText.escaped(path, max: 200)) was not written: " + why)
                recordFailed = true
            }
        }
        if stoppedBy != 0 { return 130 }
        if recordFailed || reportFailed { return 1 }
        let diverged = verdicts?.contains { $0.kind == .diverges } ?? false
        return results.allSatisfy(\.ok) && !diverged ? 0 : 1
    }
}

extension ServeCommand {
    /// Writes a new file whole, or replaces one that exists at once
    /// (`Platform.replaceAtomically`); why it failed, or nil. A new file left
    /// half written is removed.
    static func writeWhole(_ path: String, _ bytes: [UInt8]) -> String? {
        if Platform.exists(path) { return Platform.replaceAtomically(path, with: bytes) }
        switch Platform.create(path, replace: false, append: false) {
        case .failure(.exists): return "it appeared while the server ran"
        case .failure(.other(let why)): return why
        case .success(let fd):
            var why: String?
            if let f = Platform.write(fd, bytes) {
                switch f {
                case .brokenPipe: why = "the file went away"
                case .other(let w): why = w
                }
            } else {
                why = Platform.syncFile(fd)
            }
            Platform.closeFile(fd)
            if why != nil { Platform.remove(path) }
            return why
        }
    }
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}

/// The report of a headless `outbox serve`: the observed timeline, then each
/// event and the checks (text), or a JSON object per attempt, per event, per
/// check and a summary (JSONL).
struct ServeReport {
    let session: ServeSession
    let results: [ServeSession.Outcome]
    /// Each event's verdict under `--profile`, in the events' order; nil without one.
    let verdicts: [Conformance.Verdict]?
    let profile: String?
    /// The profile and settings the events were held to (the picture draws their windows).
    var held: (Profile, Settings)? = nil
    let endedAt: Millis
    let why: String
    let file: String

    static func answerWord(_ a: Answer) -> String { a.word }

    func verdictText(_ i: Int) -> String {
        guard let v = verdicts?[i] else { return "" }
        return v.why.isEmpty ? ", " + v.kind.rawValue : ", " + v.kind.rawValue + ": " + v.why
    }

    var text: String {
        let s = session, answerWord = ServeReport.answerWord
        var lines: [String] = []
        var logs = s.log.makeIterator()
        var nextLog = logs.next()
        func flushLogs(until t: Millis) {
            while let l = nextLog, l.time <= t {
                lines.append(VirtualTime.clock(l.time) + "  log       " + l.text)
                nextLog = logs.next()
            }
        }
        for r in s.requests {
            flushLogs(until: r.time)
            let what: String
            if let f = r.format {
                let names = r.carried.map { c in
                    SafeText.escaped(s.events[Int(c.event)].name, max: 40)
                        + (c.attempt > 1 ? " (attempt \(c.attempt))" : "")
                }
                what =
                    f.rawValue + "  "
                    + (names.isEmpty
                        ? "no events"
                        : names.prefix(5).joined(separator: ", ")
                            + (names.count > 5 ? ", … (\(names.count) events)" : ""))
            } else {
                what = "unrecognised: " + (r.problem ?? "")
            }
            lines.append(
                VirtualTime.clock(r.time) + "  request   " + r.method + " " + SafeText.escaped(r.target, max: 80) + "  "
                    + what + "  → " + answerWord(r.answer))
        }
        flushLogs(until: .max)
        lines.append("")
        lines.append(profile.map { "events, held to \($0):" } ?? "events:")
        for (i, e) in s.events.enumerated() {
            lines.append(
                "  " + SafeText.escaped(e.name, max: 40) + "  " + SafeText.escaped(e.id, max: 64) + "  "
                    + e.format.rawValue
                    + "  \(e.attemptCount) attempt\(e.attemptCount == 1 ? "" : "s")"
                    + (e.delivered ? ", answered 2xx" : ", never answered 2xx") + verdictText(i))
        }
        for r in results {
            lines.append(
                "expect    " + r.text.trimmingCharacters() + (r.ok ? "  ✓" : "  ✗ FAILED: " + r.found))
        }
        let failed = results.filter { !$0.ok }.count
        let unrecognised = s.requests.filter { $0.format == nil }.count
        let kinds = verdicts.map { vs in
            Conformance.Verdict.Kind.allKinds.compactMap { k -> String? in
                let n = vs.filter { $0.kind == k }.count
                return n == 0 ? nil : "\(n) \(k.rawValue)"
            }.joined(separator: ", ")
        }
        lines.append(
            "serve: \(s.requests.count) request\(s.requests.count == 1 ? "" : "s") (\(unrecognised) unrecognised), \(s.events.count) event\(s.events.count == 1 ? "" : "s")"
                + (kinds.map { $0.isEmpty ? "" : " (" + $0 + ")" } ?? "")
                + (results.isEmpty ? "" : ", \(results.count - failed) passed, \(failed) failed")
                + " · ended at \(VirtualTime.clock(endedAt)) (\(why))")
        return lines.joined(separator: "\n") + "\n"
    }

    /// JUnit XML: a suite of the events (each a passing case saying its attempts and
    /// answers: the verdicts of `--profile` are not built yet) and the checks.
    var junit: String {
        let s = session, answerWord = ServeReport.answerWord, seconds = ServeReport.seconds
        let a = JUnitReport.attribute
        let failed = results.filter { !$0.ok }.count + (verdicts?.filter { $0.kind == .diverges }.count ?? 0)
        let tests = s.events.count + results.count
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"outbox serve\" tests=\"\(tests)\" failures=\"\(failed)\" errors=\"0\">\n"
        out += "  <testsuite name=\"\(a(file.isEmpty ? "serve" : file))\" tests=\"\(tests)\" failures=\"\(failed)\""
        out += " errors=\"0\" skipped=\"0\" time=\"\(seconds(endedAt))\">\n"
        out += "    <properties>\n"
        out += "      <property name=\"requests\" value=\"\(s.requests.count)\"/>\n"
        out += "      <property name=\"unrecognised\" value=\"\(s.requests.filter { $0.format == nil }.count)\"/>\n"
        out += "      <property name=\"ended\" value=\"\(a(why))\"/>\n"
        out += "    </properties>\n"
        for (i, e) in s.events.enumerated() {
            let answers = e.attempts.map { answerWord(s.requests[$0].answer) }.joined(separator: ", ")
            out += "    <testcase name=\"\(a(e.name + " " + e.id))\" classname=\"\(a(e.format.rawValue))\">\n"
            if let v = verdicts?[i], v.kind == .diverges {
                out += "      <failure message=\"\(a(v.why))\" type=\"diverges from \(a(profile ?? ""))\">"
                out += JUnitReport.text(v.why) + "</failure>\n"
            }
            out +=
                "      <system-out>\(JUnitReport.text("\(e.attemptCount) attempt\(e.attemptCount == 1 ? "" : "s"): " + answers))</system-out>\n"
            out += "    </testcase>\n"
        }
        for r in results {
            let text = r.text.trimmingCharacters()
            out += "    <testcase name=\"\(a(file + ":" + String(r.line) + ": " + text))\" classname=\"expect\">\n"
            if !r.ok {
                out += "      <failure message=\"found \(a(r.found))\" type=\"check failed\">"
                out += JUnitReport.text(file + ":" + String(r.line) + ": check failed: " + text + ": found " + r.found)
                out += "</failure>\n"
            }
            out += "    </testcase>\n"
        }
        out += "  </testsuite>\n</testsuites>\n"
        return out
    }

    static func seconds(_ t: Millis) -> String {
        let whole = t / 1000, ms = t % 1000
        if ms == 0 { return String(whole) }
        var frac = String(ms)
        frac = String(repeating: "0", count: 3 - frac.count) + frac
        while frac.hasSuffix("0") { frac.removeLast() }
        return "\(whole).\(frac)"
    }

    var jsonl: String {
        let s = session, answerWord = ServeReport.answerWord, seconds = ServeReport.seconds
        let q = JSONValue.quote
        var out: [String] = []
        for (n, r) in s.requests.enumerated() {
            var head =
                #"{"t":\#(seconds(r.time)),"request":\#(n + 1),"method":\#(q(r.method)),"path":\#(q(r.target)),"format":"#
                + (r.format.map { q($0.rawValue) } ?? "null") + #","answer":\#(q(answerWord(r.answer)))"#
            if let ra = r.answer.retryAfter { head += #","retry_after":\#(seconds(ra))"# }
            if let p = r.problem { head += #","unrecognised":\#(q(p))"# }
            if r.carried.isEmpty {
                out.append(head + "}")
            }
            for c in r.carried {
                let e = s.events[Int(c.event)]
                out.append(
                    #"{"t":\#(seconds(r.time)),"event":\#(q(e.name)),"id":\#(q(e.id)),"attempt":\#(c.attempt),"answer":\#(q(answerWord(r.answer))),"request":\#(n + 1),"format":\#(q(e.format.rawValue))"#
                        + (r.answer.retryAfter.map { #","retry_after":\#(seconds($0))"# } ?? "") + "}")
            }
        }
        for (i, e) in s.events.enumerated() {
            let v = verdicts?[i]
            out.append(
                #"{"event":\#(q(e.name)),"id":\#(q(e.id)),"kind":\#(q(e.kind)),"format":\#(q(e.format.rawValue)),"attempts":\#(e.attemptCount),"delivered":\#(e.delivered),"verdict":\#(q(v?.kind.rawValue ?? "observed"))"#
                    + (v.map { $0.why.isEmpty ? "" : #","why":\#(q($0.why))"# } ?? "") + "}")
        }
        for r in results {
            out.append(
                #"{"expect":\#(q(r.text.trimmingCharacters())),"ok":\#(r.ok)"#
                    + (r.ok ? "" : #","found":\#(q(r.found))"#) + "}")
        }
        let failed = results.filter { !$0.ok }.count
        out.append(
            #"{"summary":{"requests":\#(s.requests.count),"unrecognised":\#(s.requests.filter { $0.format == nil }.count),"events":\#(s.events.count),"passed":\#(results.count - failed),"failed":\#(failed),"ended":\#(seconds(endedAt)),"why":\#(q(why))}}"#
        )
        return out.joined(separator: "\n") + "\n"
    }
}
