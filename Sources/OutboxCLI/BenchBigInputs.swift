import OutboxCore
import OutboxFoundation

/// `outbox bench --only lines`: scenario files of 10^6 lines, each written by
/// the bench itself in one of the shapes big files take. `outbox run -q` on it
/// is run as a child process, for its wall time and peak resident memory;
/// reading and parsing it is measured in this process beside its baseline,
/// reading the same file and splitting it into lines, taking turns.
enum BenchBigInputs {
    enum Shape: String, CaseIterable {
        /// `at <i>ms track ev<i%100> value=1.5 currency=USD k=v`: one event a millisecond.
        case tracks
        /// Every other line an `expect` (`received nosuch 0`, `log "app launched"`), all passing.
        case expects
        /// Events with long quoted names, all different, and a quoted attribute.
        case names
        /// `server`, `network offline`, `network online` and an event, in turn.
        case server
        /// Nine lines in ten a comment or blank; an event with a trailing comment.
        case comments
    }

    /// The text of a LinkTrail scenario with `n` lines after a three-line header,
    /// made `chunk` lines at a time and handed to `write`.
    static func text(_ shape: Shape, lines n: Int, chunk: Int = 10_000, _ write: (String) -> Void) {
        var s = "profile linktrail\nset requireConsent false\nat 0 launch\n"
        for i in 1...max(1, n) {
            switch shape {
            case .tracks:
                s += "at \(i)ms track ev\(i % 100) value=1.5 currency=USD k=v\n"
            case .expects:
                if i % 2 == 1 {
                    s += "at \(i)ms track ev\(i % 100)\n"
                } else if i % 4 == 0 {
                    s += "expect at \(i)ms received nosuch 0\n"
                } else {
                    s += "expect at \(i)ms log \"app launched\"\n"
                }
            case .names:
                s += "at \(i)ms track \"a long event name, number \(i), with spaces\" k=\"v \(i % 7)\"\n"
            case .server:
                switch i % 4 {
                case 0: s += "at \(i)ms server 503 x2\n"
                case 1: s += "at \(i)ms network offline\n"
                case 2: s += "at \(i)ms network online\n"
                default: s += "at \(i)ms track ev\(i % 100)\n"
                }
            case .comments:
                if i % 10 == 0 {
                    s += "at \(i)ms track ev\(i % 100) # a comment about this line\n"
                } else if i % 10 == 5 {
                    s += "\n"
                } else {
                    s += "# comment line \(i), saying something long enough to matter\n"
                }
            }
            if i % chunk == 0 {
                write(s)
                s = ""
            }
        }
        if !s.isEmpty { write(s) }
    }

    /// The whole text at once, for tests.
    static func text(_ shape: Shape, lines n: Int) -> String {
        var all = ""
        text(shape, lines: n) { all += $0 }
        return all
    }

    /// One shape's file on disk, and `outbox run -q` on it.
    struct File {
        var shape: Shape
        var path: String
        var bytes: Int
        /// nil: not run (no outbox binary) or it could not be started.
        var run: Child?
    }

    struct Child {
        var seconds: Double
        var peakBytes: Int
        var status: Int32
    }

    /// Where the files go; removed by `cleanUp`.
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-lines-\(getpid())")
        .path

    /// Writes each shape's file (a chunk at a time, so this process stays small)
    /// and runs `outbox run -q` on it in a child. Run before anything grows this
    /// process: on Linux a child's peak memory (`ru_maxrss`) starts from its
    /// parent's peak when it is started.
    static func writeAndRun(lines: Int, outbox: String?) -> (files: [File], threeLineRun: Child?) {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var files: [File] = []
        var tiny: Child?
        if let outbox {
            let path = directory + "/three-lines.outbox"
            text(.tracks, lines: 1) { try? Data($0.utf8).write(to: URL(fileURLWithPath: path)) }
            tiny = spawn([outbox, "run", "-q", path])
        }
        for shape in Shape.allCases {
            let path = directory + "/\(shape.rawValue).outbox"
            guard case .success(let fd) = Platform.create(path, replace: true, append: false) else {
                files.append(File(shape: shape, path: path, bytes: 0, run: nil))
                continue
            }
            var bytes = 0
            text(shape, lines: lines) { chunk in
                let d = Array(chunk.utf8)
                bytes += d.count
                _ = Platform.write(fd, d)
            }
            Platform.closeFile(fd)
            files.append(
                File(shape: shape, path: path, bytes: bytes, run: outbox.flatMap { spawn([$0, "run", "-q", path]) }))
        }
        return (files, tiny)
    }

    static func cleanUp() { try? FileManager.default.removeItem(atPath: directory) }

    /// Reading the file and `Scenario.parse`, as `outbox run` does, beside reading
    /// it and finding its lines, taking turns: medians in seconds; -1 if it did not parse.
    static func parseSeconds(_ path: String, runs: Int) -> (parse: Double, baseline: Double) {
        var parse: [Double] = [], baseline: [Double] = []
        for _ in 0..<runs {
            var t0 = BenchFigures.nowNs()
            let counted = (try? Data(contentsOf: URL(fileURLWithPath: path))).map(countLines) ?? -1
            baseline.append(Double(BenchFigures.nowNs() - t0) / 1e9)
            t0 = BenchFigures.nowNs()
            guard case .success(let text) = RunCommand.readText(path),
                case .success(let sc) = Scenario.parse(text, file: path)
            else {
                return (-1, -1)
            }
            parse.append(Double(BenchFigures.nowNs() - t0) / 1e9)
            if counted < 0 || sc.steps.isEmpty { print("") }
        }
        return (BenchCommand.median(parse), BenchCommand.median(baseline))
    }

    /// The baseline's work on the bytes: every line found.
    static func countLines(_ data: Data) -> Int {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Int in
            guard var p = raw.baseAddress else { return 1 }
            let end = p + raw.count
            var lines = 1
            while p < end, let nl = memchr(p, 0x0A, end - p) {
                lines += 1
                p = UnsafeRawPointer(nl) + 1
            }
            return lines
        }
    }

    /// Runs `args` (args[0] a path) with its output to /dev/null and waits: wall
    /// seconds, peak resident bytes (the child's own, from `wait4`), exit status.
    static func spawn(_ args: [String]) -> Child? {
        let t0 = BenchFigures.nowNs()
        guard let run = Platform.runQuietly(args) else { return nil }
        return Child(seconds: Double(BenchFigures.nowNs() - t0) / 1e9, peakBytes: run.peakBytes, status: run.status)
    }
}
