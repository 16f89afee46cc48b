import Foundation
import OutboxCore

/// The `compare` figure of `outbox bench`: `outbox compare` of one file on
/// ios, android and flutter beside the three `outbox run`s of the same file
/// rewritten for each profile, back to back, in the same process, taking turns.
enum BenchCompare {
    struct Figure {
        let lines: Int
        /// Medians, seconds.
        let textCompare: Double, quietRuns: Double
        let jsonlCompare: Double, jsonlRuns: Double
        let transitions: Int
    }

    static let profiles: [Profile] = [.ios, .android, .flutter]

    /// A story of `lines` lines: events, pings and screens under changing server
    /// plans and network, a getinstance now and then (Android only: skipped on
    /// the others). Returns the file as written and as each profile's run reads it.
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
            case 55..<65: line = at + "ping"
            case 65..<75: line = at + "screen s\(rng.next() % 10)"
            case 75..<85: line = at + "server " + answers[Int(rng.next() % UInt64(answers.count))]
            case 85..<90: line = at + "network offline"
            case 90..<95: line = at + "network online"
            default: line = at + "getinstance"
            }
            file.append(line)
            for k in profiles.indices {
                per[k].append(line.hasSuffix("getinstance") && profiles[k] != .android ? "" : line)
            }
        }
        return (file.joined(separator: "\n") + "\n", per.map { $0.joined(separator: "\n") + "\n" })
    }

    static func measure(lines: Int, runs: Int) -> Figure {
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
        var tc: [Double] = [], tr: [Double] = [], jc: [Double] = [], jr: [Double] = []
        for _ in 0..<runs {
            tr.append(time(paths.map { ["run", $0, "--quiet"] }))
            tc.append(time([["compare", path, "--width", "80"]]))
            jr.append(time(paths.map { ["run", $0, "--format", "jsonl"] }))
            jc.append(time([["compare", path, "--format", "jsonl"]]))
        }
        var transitions = 0
        for p in paths {
            if case .success(let text) = RunCommand.readText(p), case .success(let sc) = Scenario.parse(text, file: p) {
                var r = ScenarioRunner(sc, journal: .checksOnly)
                r.run()
                transitions += r.sim.transitionCount
            }
        }
        return Figure(
            lines: lines, textCompare: BenchCommand.median(tc), quietRuns: BenchCommand.median(tr),
            jsonlCompare: BenchCommand.median(jc), jsonlRuns: BenchCommand.median(jr), transitions: transitions)
    }

    /// Emits the figure through `outbox bench`'s `emit`.
    static func emit(quick: Bool, _ emit: (String, [(String, String)], String) -> Void) {
        let f = measure(lines: quick ? 2_000 : 100_000, runs: quick ? 1 : 3)
        func s(_ v: Double) -> String { String(format: "%.3f", v) }
        emit(
            "compare",
            [
                ("lines", String(f.lines)), ("transitions", String(f.transitions)),
                ("text_compare_s", s(f.textCompare)),
                ("three_quiet_runs_s", s(f.quietRuns)), ("text_ratio", s(f.textCompare / f.quietRuns)),
                ("jsonl_compare_s", s(f.jsonlCompare)), ("three_jsonl_runs_s", s(f.jsonlRuns)),
                ("jsonl_ratio", s(f.jsonlCompare / f.jsonlRuns)),
            ],
            "compare of a \(f.lines)-line story on ios,android,flutter (\(f.transitions) transitions): "
                + "text \(s(f.textCompare)) s beside three `run -q` back to back \(s(f.quietRuns)) s: "
                + String(format: "%.2f", f.textCompare / f.quietRuns) + "×; jsonl \(s(f.jsonlCompare)) s beside three "
                + "`run --format jsonl` \(s(f.jsonlRuns)) s: " + String(format: "%.2f", f.jsonlCompare / f.jsonlRuns)
                + "×  (target about 1× or less)")
    }

}
