import Foundation
import OutboxCore
import OutboxStore

/// `outbox run FILE... [--format text|jsonl] [--quiet] [--state-dir DIR] [--max-transitions N]`
enum RunCommand {
    static func main(_ args: [String], console: Console) -> Int32 {
        var files: [String] = []
        var format = TimelineFormat.text
        var quiet = false
        var stateDir: String?
        var maxTransitions = ScenarioRunner.defaultMaxTransitions
        var i = 0
        while i < args.count {
            let a = args[i]
            switch a {
            case "--format":
                guard i + 1 < args.count, let f = TimelineFormat(rawValue: args[i + 1]) else {
                    console.error("outbox run: --format needs text or jsonl")
                    console.error(CLI.usage)
                    return 2
                }
                format = f
                i += 1
            case _ where a.hasPrefix("--format="):
                guard let f = TimelineFormat(rawValue: String(a.dropFirst("--format=".count))) else {
                    console.error("outbox run: --format needs text or jsonl")
                    return 2
                }
                format = f
            case "--quiet", "-q":
                quiet = true
            case "--state-dir":
                guard i + 1 < args.count else {
                    console.error("outbox run: --state-dir needs a directory")
                    return 2
                }
                stateDir = args[i + 1]
                i += 1
            case "--max-transitions":
                guard i + 1 < args.count, let n = Int(args[i + 1]), n >= 1 else {
                    console.error(
                        "outbox run: --max-transitions needs a whole number ≥ 1 (default \(ScenarioRunner.defaultMaxTransitions))"
                    )
                    return 2
                }
                maxTransitions = n
                i += 1
            case "--help", "-h":
                console.print(Help.run)
                return 0
            case _ where a.hasPrefix("-") && a != "-":
                console.error("outbox run: unknown option `\(a)`")
                console.error(CLI.usage)
                return 2
            default:
                files.append(a)
            }
            i += 1
        }
        guard !files.isEmpty else {
            console.error("outbox run: no scenario file given")
            console.error(CLI.usage)
            return 2
        }

        // Parse everything first: bad input anywhere means nothing runs.
        var scenarios: [Scenario] = []
        var bad = false
        for f in files {
            let text: String
            switch readText(f) {
            case .success(let t): text = t
            case .failure(let why):
                console.error(RunCommand.unreadable(f, why))
                bad = true
                continue
            }
            switch Scenario.parse(text, file: f, profiles: ProfileLoader.resolver(relativeTo: ProfileLoader.directory(of: f))) {
            case .success(let s): scenarios.append(s)
            case .failure(let e):
                for problem in e.errors { console.error(problem.description) }
                bad = true
            }
        }
        if bad { return 2 }
        if stateDir != nil {
            // A device on disk and a file's starting contents cannot both be the device.
            for sc in scenarios {
                guard let line = sc.device.line else { continue }
                console.error(
                    SafeText.line(
                        "\(sc.file):\(line): the file gives the device's starting contents (`saved`/`device` lines), "
                            + "and --state-dir gives a saved device; expected one of them: run without --state-dir, "
                            + "or remove the lines"))
                bad = true
            }
            if bad { return 2 }
        }

        let writer = TimelineWriter(format: format)
        var failed = 0, total = 0
        for sc in scenarios {
            if format == .text && !quiet && scenarios.count > 1 {
                console.print(SafeText.line("== \(sc.file) (\(sc.profile.rawValue))"))
            }
            var store: any DeviceStore = InMemoryDeviceStore()
            var disk: SQLiteDeviceStore?
            if let dir = stateDir {
                do {
                    disk = try SQLiteDeviceStore(directory: dir, profile: sc.profile)
                    store = disk!
                } catch {
                    console.error("outbox run: " + error.description)
                    return 2
                }
            }
            defer { disk?.close() }
            // The timeline is printed as it happens and not kept (docs/reliability.md, Big inputs).
            var runner = ScenarioRunner(
                sc, store: store, maxTransitions: maxTransitions, journal: quiet ? .checksOnly : .streamed)
            runner.run(until: { console.failed }) { item, sim in
                switch item {
                case .entry(let e):
                    if !quiet { console.print(writer.line(e, in: sim)) }
                case .check(let r):
                    if !quiet || !r.ok { console.print(writer.check(r)) }
                }
            }
            if console.failed { return 1 }
            if let why = store.failure {
                console.error("outbox run: the device store failed, so the run stopped: " + why)
                return 2
            }
            if let why = runner.stopped {
                console.error(
                    "\(sc.file): the run stopped at \(VirtualTime.clock(runner.sim.now)): \(why); "
                        + "expected a scenario that ends within Outbox's limits (docs/reliability.md)")
                return 2
            }
            for r in runner.failures {
                console.error("\(sc.file):\(r.line): check failed: \(r.text): found \(r.found)")
            }
            failed += runner.failures.count
            total += runner.checkCount
            let summary =
                "\(sc.file): \(runner.checkCount - runner.failures.count) passed, \(runner.failures.count) failed"
                + " · \(runner.sim.transitionCount) transitions · ended at \(VirtualTime.clock(runner.sim.now))"
            if format == .text { console.print(SafeText.line(summary)) } else { console.error(summary) }
        }
        if scenarios.count > 1 {
            let line = "\(total - failed) passed, \(failed) failed"
            if format == .text { console.print(line) } else { console.error(line) }
        }
        return failed > 0 ? 1 : 0
    }

    /// The error for a scenario file that cannot be read (`run`, `compare`, `--play`).
    static func unreadable(_ path: String, _ why: Platform.ReadFailure) -> String {
        "\(path):\(why.line): cannot read the file: \(why.message); expected a readable scenario file"
    }

    /// The most bytes a scenario file may hold (docs/reliability.md).
    static let maxFileBytes = 256 << 20

    /// A scenario file's text; a failure says what was wrong (no such file, a
    /// directory, too large, not UTF-8 and where).
    static func readText(_ path: String) -> Result<String, Platform.ReadFailure> {
        switch Platform.readFile(path, limit: maxFileBytes) {
        case .failure(let f): return .failure(f)
        case .success(let bytes):
            if isUTF8(bytes[...]) { return .success(String(decoding: bytes, as: UTF8.self)) }
            // Name the first line that is not UTF-8.
            var line = 1, start = 0
            for (i, b) in bytes.enumerated() where b == 10 {
                if !isUTF8(bytes[start..<i]) { break }
                line += 1
                start = i + 1
            }
            return .failure(Platform.ReadFailure(message: "the line is not UTF-8 text", line: line))
        }
    }

    /// Whether bytes are valid UTF-8 (without `String(validating:)`, which older macOS lacks).
    static func isUTF8(_ bytes: ArraySlice<UInt8>) -> Bool {
        var it = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&it) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
