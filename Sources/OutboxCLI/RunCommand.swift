import Foundation
import OutboxCore
import OutboxStore

/// `outbox run FILE... [--format text|jsonl] [--quiet]`
enum RunCommand {
    static func main(_ args: [String], console: Console) -> Int32 {
        var files: [String] = []
        var format = TimelineFormat.text
        var quiet = false
        var stateDir: String?
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
            do {
                text = try readText(f)
            } catch {
                console.error("\(f):1: cannot read the file (\(error.localizedDescription)), expected a readable scenario file")
                bad = true
                continue
            }
            switch Scenario.parse(text, file: f) {
            case .success(let s): scenarios.append(s)
            case .failure(let e):
                for problem in e.errors { console.error(problem.description) }
                bad = true
            }
        }
        if bad { return 2 }

        let writer = TimelineWriter(format: format)
        var failed = 0, total = 0
        for sc in scenarios {
            if format == .text && !quiet && scenarios.count > 1 { console.print("== \(sc.file) (\(sc.profile.rawValue))") }
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
            var runner = ScenarioRunner(sc, store: store, journal: quiet ? .checksOnly : .streamed)
            runner.run { item, sim in
                switch item {
                case .entry(let e):
                    if !quiet { console.print(writer.line(e, in: sim)) }
                case .check(let r):
                    if !quiet || !r.ok { console.print(writer.check(r)) }
                }
            }
            if let why = store.failure {
                console.error("outbox run: the device store failed, so the run stopped: " + why)
                return 2
            }
            for r in runner.failures {
                console.error("\(sc.file):\(r.line): check failed: \(r.text): found \(r.found)")
            }
            failed += runner.failures.count
            total += runner.checkCount
            let summary = "\(sc.file): \(runner.checkCount - runner.failures.count) passed, \(runner.failures.count) failed"
                + " · \(runner.sim.transitionCount) transitions · ended at \(VirtualTime.clock(runner.sim.now))"
            if format == .text { console.print(summary) } else { console.error(summary) }
        }
        if scenarios.count > 1 {
            let line = "\(total - failed) passed, \(failed) failed"
            if format == .text { console.print(line) } else { console.error(line) }
        }
        return failed > 0 ? 1 : 0
    }

    static func readText(_ path: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let s = String(data: data, encoding: .utf8) else {
            throw NSError(domain: "outbox", code: 1, userInfo: [NSLocalizedDescriptionKey: "not UTF-8 text"])
        }
        return s
    }
}
