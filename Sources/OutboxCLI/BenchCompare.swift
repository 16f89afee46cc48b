import Dispatch
import OutboxCore
import OutboxFoundation

/// The `compare` figure of `outbox bench`: `outbox compare` of one file on
/// ios, android and flutter beside the three `outbox run`s of the same file
/// rewritten for each profile, back to back, in the same process, taking turns.
enum BenchCompare {
    /// One pairing: `outbox compare` beside the three runs, medians in seconds.
    struct Pair {
        let name: String
        let compare: Double
        let runs: Double
        var ratio: Double { compare / runs }
    }

    static let profiles: [Profile] = [Builtins.ios, Builtins.android, Builtins.flutter]

    /// A story of `lines` lines: events, pings and screens under changing server
    /// plans and network, a getinstance now and then (only profiles with
    /// `resend on getinstance`: skipped on the others). Returns the file as written and as each profile's run reads it.
    static func story(lines: Int) -> (file: String, rewritten: [String]) {
        var rng = SplitMix64(seed: 5)
        var file = ["profile ios", "at 0 launch"]
        var per = profiles.map { ["profile \($0.rawValue)", "at 0 launch"] }
        var t: Millis = 0
        let answers = ["ok x20", "503 x3", "403", "timeout", "500 x2", "ok always"]
        while file.count < lines {
            t += Millis(rng.next() % 400)
            let at = "at \(VirtualTime.duration(t)) "
            let line: String
            switch rng.next() % 100 {
            case 0..<55: line = at + "track ev\(rng.next() % 50) value=1.5 currency=USD"
            case 55..<65: line = at + Vocabulary.builtin.callWords[0]
            case 65..<75: line = at + "screen s\(rng.next() % 10)"
            case 75..<85: line = at + "server " + answers[Int(rng.next() % UInt64(answers.count))]
            case 85..<90: line = at + "network offline"
            case 90..<95: line = at + "network online"
            default: line = at + "getinstance"
            }
            file.append(line)
            for k in profiles.indices {
                per[k].append(line.hasSuffix("getinstance") && !profiles[k].hasGetInstance ? "" : line)
            }
        }
        return (file.joined(separator: "\n") + "\n", per.map { $0.joined(separator: "\n") + "\n" })
    }

    static func measure(lines: Int, runs: Int) -> (pairs: [Pair], transitions: Int) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-bench-compare-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (file, rewritten) = story(lines: lines)
        let path = dir.appendingPathComponent("story.outbox").path
        try? file.write(toFile: path, atomically: true, encoding: .utf8)
        let paths = rewritten.enumerated().map { k, text -> String in
            let p = dir.appendingPathComponent("story-\(profiles[k].rawValue).outbox").path
            try? text.write(toFile: p, atomically: true, encoding: .utf8)
            return p
        }
        func time(_ args: [[String]]) -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            for a in args { _ = CLI.main(a, console: .capturing()) }
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        // Each compare beside the runs a user would make instead, printing what they print.
        let pairs: [(String, [String], [String])] = [
            ("quiet", ["compare", path, "--quiet"], ["run", "--quiet"]),
            ("text", ["compare", path, "--width", "80"], ["run"]),
            ("jsonl", ["compare", path, "--format", "jsonl"], ["run", "--format", "jsonl"]),
        ]
        var out: [Pair] = []
        for (name, compare, run) in pairs {
            var c: [Double] = [], r: [Double] = []
            for _ in 0..<runs {
                r.append(time(paths.map { [run[0], $0] + run.dropFirst() }))
                c.append(time([compare]))
            }
            out.append(Pair(name: name, compare: BenchCommand.median(c), runs: BenchCommand.median(r)))
        }
        var transitions = 0
        for p in paths {
            if case .success(let text) = RunCommand.readText(p), case .success(let sc) = Scenario.parse(text, file: p) {
                var r = ScenarioRunner(sc, journal: .checksOnly)
                r.run()
                transitions += r.sim.transitionCount
            }
        }
        return (out, transitions)
    }

    /// Emits the figure through `outbox bench`'s `emit`.
    static func emit(quick: Bool, _ emit: (String, [(String, String)], String) -> Void) {
        let lines = quick ? 2_000 : 100_000
        let (pairs, transitions) = measure(lines: lines, runs: quick ? 1 : 3)
        func s(_ v: Double) -> String { Decimals.fixed(v, 3) }
        var fields = [("lines", String(lines)), ("transitions", String(transitions))]
        for p in pairs {
            fields += [
                (p.name + "_compare_s", s(p.compare)), (p.name + "_three_runs_s", s(p.runs)),
                (p.name + "_ratio", s(p.ratio)),
            ]
        }
        emit(
            "compare", fields,
            "compare of a \(lines)-line story on ios,android,flutter (\(transitions) transitions) beside the three runs back to back: "
                + pairs.map {
                    "\($0.name) \(s($0.compare)) s vs \(s($0.runs)) s (" + Decimals.fixed($0.ratio, 2) + "×)"
                }
                .joined(separator: ", ") + "  (target about 1×)")
    }
}
