import ArgumentParser
import Dispatch
import OutboxCore
import OutboxFoundation
import OutboxTerminal
import OutboxUI

/// `outbox fleet FILE [--profiles A,B,...] [--format text|jsonl|html|svg] [--shard I/N] [--device N]`,
/// `outbox fleet FILE --live` (the fleet on the virtual clock in the terminal) and
/// `outbox fleet merge FILE.jsonl...`: many devices sending to one backend of
/// limited capacity, reported second by second (issue 26, docs/fleet.md).
struct FleetCommand: OutboxSubcommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "fleet",
            abstract: "run many devices against one backend and report its load second by second",
            usage: CLI.parserUsage(synopsis), discussion: Help.fleet)
    }
    static var synopsis: String {
        "outbox fleet FILE [--profiles P,P,...] [--format \(FormatWords.choices(FormatWords.fleet))] [--shard I/N] [--device N]\n"
            + "       outbox fleet FILE --live\n"
            + "       outbox fleet merge REPORT.jsonl... [--format \(FormatWords.choices(FormatWords.fleet))]"
    }

    @Argument(
        help: ArgumentHelp(
            "a fleet file (docs/fleet.md), or `merge` and the JSONL reports of its shards", valueName: "FILE"),
        completion: .file(extensions: ["outbox", "jsonl"]))
    var words: [String] = []

    @Option(
        help: ArgumentHelp(
            "text a short table and the summary (default), jsonl an object per second of virtual time then the summary (what `merge` reads), svg the load curves with the outages shaded, html that picture and the summary as a table",
            valueName: FormatWords.choices(FormatWords.fleet)),
        completion: .list(FormatWords.fleet))
    var format: String?

    @Option(
        help: ArgumentHelp(
            "run the fleet once under each profile instead of the file's own (1 to \(FleetCommand.maxProfiles); a built-in, PATH.profile from the current folder or a user profile) and show the runs side by side: text a column per profile, jsonl a \"profile\" field on every object, html and svg a panel per profile on the same scales; not with --shard or --device",
            valueName: "P,P,..."),
        completion: ProfileLoader.completion(list: true))
    var profiles: String?

    @Option(
        help: ArgumentHelp(
            "run only the devices whose number is I modulo N, sending to 1/N of the capacity; write it as jsonl and sum the shards with `outbox fleet merge`",
            valueName: "I/N"))
    var shard: String?

    @Option(
        help: ArgumentHelp(
            "write device N's life (0 to the devices count - 1) as a scenario file on stdout instead of the report: `outbox run` plays it to the same transitions",
            valueName: "N"))
    var device: String?

    @Flag(
        help: ArgumentHelp(
            "run the fleet on the virtual clock in the terminal: the load and the backlog drawn as charts second by second, the speed keys, o and :server to start and end an outage on every device; not with --format, --profiles, --shard or --device"
        ))
    var live = false

    func execute(console: Console) -> Int32 {
        if live {
            var others: [String] = []
            if self.format != nil { others.append("--format") }
            if profiles != nil { others.append("--profiles") }
            if shard != nil { others.append("--shard") }
            if device != nil { others.append("--device") }
            if words.first == "merge" { others.insert("merge", at: 0) }
            if !others.isEmpty {
                console.error(
                    "outbox fleet: --live goes without \(others.joined(separator: ", ")): the live screen runs the whole fleet under the file's own profile; expected `outbox fleet FILE --live`"
                )
                return 2
            }
        }
        let format: String
        switch FormatWords.parse(self.format, command: Self.prefix, available: FormatWords.fleet) {
        case .failure(let why):
            console.error(why.message)
            return 2
        case .success(let w): format = w
        }
        if words.first == "merge" {
            if shard != nil || device != nil || profiles != nil {
                console.error(
                    "outbox fleet merge: --shard, --device and --profiles are for a run, expected only report files and --format"
                )
                return 2
            }
            return merge(Array(words.dropFirst()), format: format, console: console)
        }
        guard words.count == 1 else {
            console.error(
                words.isEmpty
                    ? "outbox fleet: no fleet file given"
                    : "outbox fleet: \(words.count) files given, expected one fleet file (or `merge` and reports)")
            console.error("usage: " + Self.synopsis)
            return 2
        }
        var part = FleetRun.Shard.whole
        if let shard {
            switch FleetRun.Shard.parse(shard) {
            case .failure(let why):
                console.error("outbox fleet: --shard: " + why.message)
                return 2
            case .success(let s): part = s
            }
        }
        if device != nil && self.format != nil {
            console.error("outbox fleet: --device writes a scenario file, not a report; expected no --format with it")
            return 2
        }
        var playing: [Profile?] = [nil]
        if let profiles {
            switch Self.profileList(profiles, shard: shard, device: device) {
            case .failure(let why):
                console.error(why.message)
                return 2
            case .success(let list): playing = list
            }
        }
        let path = words[0]
        let text: String
        switch RunCommand.readText(path, streams: true) {
        case .success(let t): text = t
        case .failure(let why):
            console.error(RunCommand.unreadable(path, why).replacingScenario())
            return 2
        }
        // The file as written first (D355), then once per profile of --profiles,
        // where a problem is that profile's: bad input anywhere means nothing runs.
        let here = ProfileLoader.resolver(relativeTo: ProfileLoader.directory(of: path))
        var fleets: [FleetFile] = []
        var problems: [String] = []
        for p in (profiles == nil ? [] : [nil]) + playing {
            switch FleetFile.parse(text, file: path, profiles: here, playing: p) {
            case .failure(let e): problems += e.errors.map(\.description)
            case .success(let f): if p != nil || profiles == nil { fleets.append(f) }
            }
            if p == nil && !problems.isEmpty { break }
        }
        guard problems.isEmpty else {
            for p in problems { console.error(p) }
            return 2
        }
        let fleet = fleets[0]
        if live { return runLive(fleet, console: console) }
        var record: Int?
        if let device {
            guard let d = Int(device), d >= 0, d < fleet.devices else {
                console.error(
                    "outbox fleet: --device needs a device number from 0 to \(fleet.devices - 1), not `\(SafeText.escaped(device, max: 30))`"
                )
                return 2
            }
            guard d % part.count == part.index else {
                console.error(
                    "outbox fleet: device \(d) is not in shard \(part.text) (it holds the devices whose number is \(part.index) modulo \(part.count))"
                )
                return 2
            }
            record = d
        }
        if let why = Self.tooBig(fleet, shard: part, path: path) {
            console.error(why)
            return 2
        }
        var reports: [FleetReport] = []
        for (f, p) in zip(fleets, playing) {
            let threads: FleetRun.Parallel = { n, body in DispatchQueue.concurrentPerform(iterations: n, execute: body) }
            let run = FleetRun(f, shard: part, record: record, parallel: threads)
            let result = run.run(parallel: threads)
            if let record, let lane = run.recordedLane {
                console.print(FleetCommand.deviceScenario(f, device: record, lane: lane), terminator: "")
                return 0
            }
            reports.append(FleetReport(fleet: f, text: text, shard: part, result: result, label: p?.rawValue))
        }
        write(reports, format: format, console: console)
        return 0
    }

    /// What a device costs in memory, about, for the check below: measured
    /// 2-5 KB a device at rest, more for one that never is (docs/fleet.md, "Memory").
    static let bytesPerDevice = 6 * 1024

    /// Why a fleet (or shard) would not fit in this machine's memory, or nil:
    /// refused before it starts rather than killed for memory an hour in.
    static func tooBig(_ fleet: FleetFile, shard: FleetRun.Shard, path: String, memory: UInt64? = nil) -> String? {
        let held = (fleet.devices - shard.index + shard.count - 1) / shard.count
        let need = UInt64(held) * UInt64(bytesPerDevice)
        let have = memory ?? ProcessInfo.processInfo.physicalMemory
        guard have > 0, need > have / 10 * 8 else { return nil }
        let gb = { (b: UInt64) in Decimals.fixed(Double(b) / 1_073_741_824, 1) + " GB" }
        let shards = Int((need + have / 2 - 1) / (have / 2)) * shard.count
        return "outbox fleet: \(SafeText.escaped(path, max: 200)): \(held) devices would need about \(gb(need)) "
            + "(about \(bytesPerDevice / 1024) KB each), more than 80% of this machine's \(gb(have)); expected fewer "
            + "devices, or shards run one after another or on other machines (e.g. --shard 0/\(shards) and the rest, "
            + "then `outbox fleet merge`)"
    }

    /// `--live`: the screen, then the lines played on it as the file's `at`
    /// lines (appended to the file, they give the same numbers) on stdout.
    func runLive(_ fleet: FleetFile, console: Console) -> Int32 {
        let theme: Theme
        switch InteractiveCommand.loadTheme("default") {
        case .success(let t): theme = t
        case .failure(let why):
            console.error("outbox fleet: " + SafeText.escaped(why.message, max: 1000))
            return 2
        }
        if let why = Terminal.unusable() {
            console.error(
                InteractiveCommand.refusal(
                    why, command: "outbox fleet --live", instead: "run it without --live for the report"))
            return 2
        }
        Terminal.catchStopSignals()
        let noColor = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let outcome: FleetScreen.Outcome
        switch FleetScreen.run(FleetLiveModel(fleet), theme: theme, noColor: noColor) {
        case .failure(let why):
            console.error(why.message)
            return 2
        case .success(let o): outcome = o
        }
        let m = outcome.model
        let t = m.totals
        var out =
            "# outbox fleet \(fleet.file) --live: \(FleetReport.hms(m.now)) of \(FleetReport.hms(fleet.duration)) played;"
        out += " attempts \(t.attempts), delivered \(t.delivered), dropped \(t.dropped), queued \(m.queued.last ?? 0)\n"
        if m.playedLines.isEmpty {
            out += "# no line played live\n"
        } else {
            out += "# the lines played live; added to the file's end they give the same numbers:\n"
            for l in m.playedLines { out += l + "\n" }
        }
        console.print(out, terminator: "")
        console.flush()
        if outcome.terminalLost {
            Terminal.writeError("outbox fleet: the terminal went away, so the live screen quit\n")
            return 129
        }
        if outcome.signal != 0 {
            Terminal.writeError("outbox fleet: stopped by \(Terminal.signalName(outcome.signal))\n")
            if outcome.signal != SIGQUIT { Terminal.die(of: outcome.signal) }
            return 128 + outcome.signal
        }
        return 0
    }

    /// The most profiles `--profiles` takes.
    static let maxProfiles = 8

    /// The profiles of `--profiles` (paths from the current folder, as on every
    /// command line), or why not: the option, the value and what was expected (D357).
    static func profileList(_ value: String, shard: String?, device: String?) -> Result<[Profile?], Problem> {
        let shown = "`" + SafeText.escaped(value, max: 80) + "`"
        let form = "expected profile names separated by commas (e.g. --profiles ios,android)"
        if shard != nil {
            return .failure(
                Problem(
                    "outbox fleet: --profiles goes without --shard: a shard's report is one run, for `outbox fleet merge`; expected one or the other (shard a fleet file per profile)"
                ))
        }
        if device != nil {
            return .failure(
                Problem(
                    "outbox fleet: --profiles goes without --device: a device's life is written under the file's own profile; expected one or the other"
                ))
        }
        let names = value.split(separator: ",", omittingEmptySubsequences: false)
        if names.contains(where: { $0.allSatisfy { $0 == " " } }) {
            return .failure(Problem("outbox fleet: --profiles \(shown): an empty name, " + form))
        }
        guard names.count <= maxProfiles else {
            return .failure(
                Problem("outbox fleet: --profiles \(shown): \(names.count) profiles, expected 1 to \(maxProfiles)"))
        }
        switch Profile.list(value, profiles: ProfileLoader.resolver()) {
        case .failure(let why):
            let twice = why.message.hasSuffix("named twice") ? ", expected each profile once" : ""
            return .failure(Problem("outbox fleet: --profiles \(shown): " + why.message + twice))
        case .success(let list): return .success(list)
        }
    }

    /// The reports on stdout in `format`: text made safe for the terminal, the rest written by their writers.
    func write(_ reports: [FleetReport], format: String, console: Console) {
        var command = "outbox fleet " + words.joined(separator: " ")
        if let profiles { command += " --profiles " + profiles }
        let out = FleetReport.written(reports, format: format, command: command)
        if format == "text" {
            console.print(out, terminator: "")
        } else {
            console.printExact(out, terminator: "")
        }
    }

    /// `outbox fleet merge FILE...`: the shards' reports summed into one.
    func merge(_ files: [String], format: String, console: Console) -> Int32 {
        guard !files.isEmpty else {
            console.error(
                "outbox fleet merge: no report files given, expected the JSONL files of `outbox fleet --shard I/N --format jsonl`"
            )
            return 2
        }
        var parts: [(path: String, report: FleetReport)] = []
        var bad = false
        for f in files {
            switch RunCommand.readText(f, streams: true) {
            case .failure(let why):
                console.error(f + (why.line.map { ":\($0)" } ?? "") + ": cannot read the file: \(why.message)")
                bad = true
            case .success(let t):
                switch FleetReport.read(t, path: f) {
                case .failure(let why):
                    console.error(why.message)
                    bad = true
                case .success(let r): parts.append((f, r))
                }
            }
        }
        if bad { return 2 }
        let total: FleetReport
        switch FleetReport.merge(parts) {
        case .failure(let why):
            console.error(why.message)
            return 2
        case .success(let r): total = r
        }
        if !total.isWhole {
            console.error(
                "outbox fleet merge: shard\(total.missing.count == 1 ? "" : "s") \(total.missing.joined(separator: ", ")) missing: the report covers \(total.shards.count) of \(total.shard.count) shards"
            )
        }
        write([total], format: format, console: console)
        return total.isWhole ? 0 : 1
    }

    /// Device `d`'s life as a scenario file (docs/fleet.md, "One device"): its
    /// profile and the file's settings, its seed, the backend's over-capacity
    /// answers to it by send number, then every line it played, at its time.
    static func deviceScenario(_ fleet: FleetFile, device d: Int, lane: FleetLane) -> String {
        let m = fleet.mixIndex(of: d)
        var out =
            "# device \(d) of \(fleet.file) (\(fleet.devices) devices, seed \(fleet.seed)), written by `outbox fleet --device \(d)`\n"
        out += "# `outbox run` plays it to the transitions it made in the fleet.\n"
        out += "profile " + ActionSyntax.word(fleet.mix[m].profile.reference) + "\n"
        for line in fleet.headerLines {
            let w = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if w.count >= 2 && w[0] == "set" && w[1] == "seed" { continue }
            out += line + "\n"
        }
        out += "set seed \(fleet.deviceSeed(d))\n"
        // The backend's answers beyond its capacity, by send number, grouped by answer.
        var groups: [(answer: Answer, sends: [Int32])] = []
        for (n, a) in lane.recordedAnswers {
            if let k = groups.firstIndex(where: { $0.answer == a }) {
                groups[k].sends.append(n)
            } else {
                groups.append((a, [n]))
            }
        }
        for g in groups { out += "at 0s " + ActionSyntax.text(for: .sendsAnswered(g.answer, g.sends)) + "\n" }
        for (t, a) in lane.recordedLines {
            out += "at \(t == 0 ? "0s" : VirtualTime.duration(t)) " + ActionSyntax.text(for: a) + "\n"
        }
        return out
    }
}

extension String {
    /// A read failure's message for a fleet file rather than a scenario file.
    fileprivate func replacingScenario() -> String {
        hasSuffix("expected a readable scenario file") ? String(dropLast("scenario file".count)) + "fleet file" : self
    }
}
