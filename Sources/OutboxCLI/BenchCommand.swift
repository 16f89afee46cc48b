import ArgumentParser
import Dispatch
import OutboxCore
import OutboxFoundation

/// `outbox bench`: model transitions per second beside a bare heap event loop.
struct BenchCommand: OutboxSubcommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "bench", abstract: "measure speed, cost and scale beside baselines (release build)",
            usage: CLI.parserUsage(synopsis), discussion: Help.bench)
    }
    static var synopsis: String { "outbox bench [--quick] [--json] [--only FIGURE[,FIGURE...]] [--hours H]" }

    /// The figures, in the order they are measured and printed.
    static let figures = [
        "fleet", "transitions", "batched", "frame", "bytes", "start", "keys", "memory", "store", "chaos", "lines",
        "compare",
        "compare-frame", "serve",
    ]

    @Flag(help: "small sizes, for a smoke test (timings not asserted)")
    var quick = false

    @Flag(help: "one JSON object per figure")
    var json = false

    @Option(
        help: ArgumentHelp("these figures only (comma-separated), in the order above", valueName: "FIGURE[,FIGURE...]"),
        completion: .list(figures))
    var only: [String] = []

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "virtual hours for the chaos run (default 24; 0.05 with --quick), e.g. to profile a shorter one",
            valueName: "H"))
    var hours: String?

    func execute(console: Console) -> Int32 {
        var only: Set<String>?
        for list in self.only {
            let asked = list.split(separator: ",").map(String.init)
            let unknown = asked.filter { !Self.figures.contains($0) }
            guard !asked.isEmpty, unknown.isEmpty else {
                let given =
                    unknown.isEmpty
                    ? "" : " (not a figure: " + unknown.map { "`\($0)`" }.joined(separator: ", ") + ")"
                console.error(
                    "outbox bench: --only needs one or more of, comma-separated: "
                        + Self.figures.joined(separator: ", ") + given)
                return 2
            }
            only = (only ?? []).union(asked)
        }
        var hours: Double?
        if let v = self.hours {
            guard let h = Double(v), h > 0, h <= 24 * 365 else {
                console.error(
                    "outbox bench: --hours needs a number of hours above 0 and at most 8760 (a year), e.g. 24 or 0.5")
                return 2
            }
            hours = h
        }
        return Self.measure(quick: quick, json: json, only: only, hours: hours, console: console)
    }

    static func measure(quick: Bool, json: Bool, only: Set<String>?, hours: Double?, console: Console) -> Int32 {
        #if DEBUG
            console.print(
                "outbox bench: a debug build" + (quick ? " (smoke test)" : "")
                    + ": the figures below are not the product's. Use: swift run -c release outbox bench")
        #endif
        // Figures that could not be measured: said on their line, and the exit status is 1.
        var unmeasured: [String] = []
        let sizes = quick ? [1_000, 10_000] : [1_000, 100_000, 1_000_000]
        let runs = quick ? 1 : 5
        func emit(_ figure: String, _ fields: [(String, String)], _ text: String) {
            if json {
                var o = JSONObject()
                o.string("figure", figure)
                for (k, v) in fields { o.number(k, v) }
                console.print(o.text)
            } else {
                console.print(text)
            }
            console.flush()
        }
        func r3(_ v: Double) -> String { String(Double(Int(v * 1000)) / 1000) }
        func wanted(_ f: String) -> Bool { only?.contains(f) ?? true }
        // Memory is measured first, while the process has freed nothing: measured
        // after the other figures, the model reused their freed memory and the
        // resident size grew by a third less than the model holds.
        // The `lines` figure's child runs come first, while this process is small
        // (BenchBigInputs.writeAndRun); their files are parsed here at the end.
        var big: (files: [BenchBigInputs.File], threeLineRun: BenchBigInputs.Child?)?
        if wanted("lines") {
            // The child is the binary running this bench; under `swift test` that is not outbox.
            let exe = BenchFigures.executable
            big = BenchBigInputs.writeAndRun(
                lines: quick ? 10_000 : 1_000_000,
                outbox: URL(fileURLWithPath: exe).lastPathComponent == "outbox" ? exe : nil)
        }
        defer { if big != nil { BenchBigInputs.cleanUp() } }
        let memoryLive = quick ? 100_000 : 1_000_000
        let memory = wanted("memory") ? BenchFigures.memoryPerRequest(memoryLive) : 0
        // Serve's memory, while the process is small too (each its own, one after the other).
        let serveEvents = quick ? 100_000 : 1_000_000
        var serveMemory: (one: Double, batched: Double, n: Int)?
        if wanted("serve") {
            let one = BenchServe.memoryPerEvent(serveEvents, perRequest: 1)
            let batched = BenchServe.memoryPerEvent(serveEvents, perRequest: 100)
            withExtendedLifetime((one.session, batched.session)) {
                serveMemory = (one.bytes, batched.bytes, serveEvents)
            }
        }
        // The fleet (issue 26) before the others free memory its resident size would reuse.
        if wanted("fleet"), !BenchFleet.measure(quick: quick, alone: only == ["fleet"], emit: emit) {
            unmeasured.append("fleet")
        }
        for n in sizes where wanted("transitions") {
            let steps = quick ? 50_000 : 2_000_000
            var model: [Double] = [], bare: [Double] = []
            for _ in 0..<runs {
                bare.append(BareLoop.eventsPerSecond(live: n, events: steps))
                model.append(ModelBench.transitionsPerSecond(live: n, transitions: steps))
            }
            let m = median(model), b = median(bare)
            emit(
                "transitions_per_second",
                [("live", String(n)), ("model", String(Int(m))), ("bare_loop", String(Int(b))), ("ratio", r3(m / b))],
                "transitions/s with \(n) live: model \(format(m))  bare heap loop \(format(b))  ratio \(Decimals.fixed(m / b, 2))×  (target ≥ 2M/s at 10^5, ≥ 0.3×)"
            )
        }
        if wanted("batched") {
            // A batching profile (issue 24): 10^5 live requests in batches of 50, beside the bare loop.
            let n = quick ? 10_000 : 100_000, steps = quick ? 50_000 : 2_000_000
            var model: [Double] = [], bare: [Double] = []
            for _ in 0..<runs {
                bare.append(BareLoop.eventsPerSecond(live: n, events: steps))
                model.append(ModelBench.transitionsPerSecond(live: n, transitions: steps, profile: ModelBench.batched))
            }
            let m = median(model), b = median(bare)
            emit(
                "transitions_per_second_batched",
                [
                    ("live", String(n)), ("batch", "50"), ("model", String(Int(m))), ("bare_loop", String(Int(b))),
                    ("ratio", r3(m / b)),
                ],
                "transitions/s with \(n) live in batches of 50: model \(format(m))  bare heap loop \(format(b))  ratio \(Decimals.fixed(m / b, 2))×"
            )
        }
        if wanted("frame") {
            let f = BenchFigures.frame(big: quick ? 10_000 : 1_000_000, small: 1_000, frames: quick ? 50 : 300)
            emit(
                "frame_200x60",
                [
                    ("big_median_us", r3(f.bigMedianUs)), ("big_p99_us", r3(f.bigP99Us)),
                    ("small_median_us", r3(f.smallMedianUs)),
                    ("ratio", r3(f.bigMedianUs / f.smallMedianUs)),
                ],
                "frame build 200×60: \(quick ? "10^4" : "10^6") requests median \(Decimals.fixed(f.bigMedianUs, 0)) µs, p99 \(Decimals.fixed(f.bigP99Us, 0)) µs; 10^3 requests median \(Decimals.fixed(f.smallMedianUs, 0)) µs; ratio \(Decimals.fixed(f.bigMedianUs / f.smallMedianUs, 2))×  (target ≤ 1.2×, p99 ≤ 1000 µs)"
            )
            let ff = BenchFigures.filteredFrame(
                big: quick ? 10_000 : 1_000_000, small: 1_000, frames: quick ? 50 : 300,
                filter: "kind:event state:queued e1", passes: quick ? 3 : 7)
            emit(
                "frame_200x60_filtered",
                [
                    ("big_median_us", r3(ff.bigMedianUs)), ("big_p99_us", r3(ff.bigP99Us)),
                    ("small_median_us", r3(ff.smallMedianUs)), ("ratio", r3(ff.bigMedianUs / ff.smallMedianUs)),
                    ("filter_pass_ms", r3(ff.passMs)),
                ],
                "frame build 200×60 with the filter /kind:event state:queued e1: \(quick ? "10^4" : "10^6") requests median \(Decimals.fixed(ff.bigMedianUs, 0)) µs, p99 \(Decimals.fixed(ff.bigP99Us, 0)) µs; 10^3 requests median \(Decimals.fixed(ff.smallMedianUs, 0)) µs; the pass after a change \(Decimals.fixed(ff.passMs, 1)) ms"
            )
        }
        if wanted("frame") {
            let sorted = BenchFigures.sortedFrame(big: quick ? 10_000 : 1_000_000, passes: quick ? 3 : 5)
            emit(
                "frame_200x60_sorted",
                sorted.map { ($0.order.replacingEvery(" ", with: "_") + "_pass_ms", r3($0.passMs)) },
                "frame build 200×60 sorted (S), \(quick ? "10^4" : "10^6") requests: the frame after a change "
                    + sorted.map { "\($0.order) \(Decimals.fixed($0.passMs, 1)) ms" }.joined(separator: ", ")
                    + "; the next frame " + sorted.map { Decimals.fixed($0.frameUs, 0) }.joined(separator: "/")
                    + " µs"
            )
        }
        if wanted("bytes") {
            let b = BenchFigures.bytesPerFrame()
            emit(
                "bytes_per_frame_80x24", b.map { ($0.0, String($0.1)) },
                "bytes per frame at 80×24: "
                    + b.map { "\($0.0.replacingEvery("_", with: " ")) \($0.1) B" }.joined(separator: ", ")
                    + "  (target idle 0 B, clock tick ≤ 200 B)")
        }
        if wanted("start") {
            let st = BenchFigures.startToFirstFrame(saved: quick ? 1_000 : 100_000, runs: quick ? 1 : 5)
            emit(
                "start_to_first_frame_ms",
                [("trivial_run", r3(st.baseline)), ("empty_device", r3(st.empty)), ("saved_device", r3(st.full))],
                "start to first frame: empty device \(Decimals.fixed(st.empty, 0)) ms, \(quick ? "10^3" : "10^5") saved \(Decimals.fixed(st.full, 0)) ms; `outbox --version` \(Decimals.fixed(st.baseline, 0)) ms  (target ≤ 100 ms, ≤ 300 ms)"
            )
        }
        if wanted("keys") {
            let k = BenchFigures.keyLatency(presses: quick ? 5 : 50)
            if k.p50 < 0 {
                unmeasured.append("keys")
                emit(
                    "key_to_screen_ms", [],
                    "key press to updated screen during a 600× fast-forward (pseudo-terminal): NOT MEASURED: \(BenchLiveCompare.unmeasuredWhy)"
                )
            } else {
                emit(
                    "key_to_screen_ms", [("p50", r3(k.p50)), ("p99", r3(k.p99))],
                    "key press to updated screen during a 600× fast-forward (pseudo-terminal): p50 \(Decimals.fixed(k.p50, 1)) ms, p99 \(Decimals.fixed(k.p99, 1)) ms  (target p99 ≤ 16 ms)"
                )
            }
        }
        if wanted("memory") {
            emit(
                "memory_per_live_request", [("live", String(memoryLive)), ("bytes", r3(memory))],
                "memory per live request at \(memoryLive): \(Decimals.fixed(memory, 0)) B  (model + in-memory device; target ≤ 256 B at 10^6)"
            )
        }
        if wanted("store") {
            let w = BenchFigures.storeWrites(quick ? 2_000 : 50_000)
            emit(
                "store_writes_per_second",
                [("store", String(Int(w.store))), ("raw_sqlite", String(Int(w.raw))), ("ratio", r3(w.store / w.raw))],
                "device store writes/s: \(format(w.store))  raw sqlite3 inserts \(format(w.raw))  ratio \(Decimals.fixed(w.store / w.raw, 2))×  (target ≥ 0.8×)"
            )
        }
        if wanted("chaos") {
            let h = hours ?? (quick ? 0.05 : 24)
            let c = BenchFigures.chaos(hours: h, headlessRuns: quick ? 1 : 3)
            emit(
                "chaos_run",
                [
                    ("hours", String(h)), ("seconds", r3(c.seconds)), ("transitions", String(c.transitions)),
                    ("identical_at_every_speed", c.identical ? "true" : "false"),
                ],
                "\(h == 24 ? "24 h" : String(h) + " h") at 50 requests/s, ~20% failing, headless: \(Decimals.fixed(c.seconds, 2)) s wall\(quick ? "" : " (median of 3)"), \(c.transitions) transitions; final state identical at 600×, 60×, 10×\(h <= 1 ? ", 1×" : ""): \(c.identical ? "yes" : "NO")  (target ≤ 5 s for 24 h)"
            )
            if !c.identical { return 1 }
        }
        if wanted("compare-frame"), !BenchLiveCompare.run(quick: quick, emit: emit) {
            unmeasured.append("compare-frame")
        }
        if let big {
            if !bigInputs(big.files, threeLineRun: big.threeLineRun, quick: quick, emit: emit) { return 1 }
        }
        if wanted("compare") { BenchCompare.emit(quick: quick, emit) }
        if wanted("serve"), !BenchServe.run(quick: quick, memory: serveMemory, emit: emit) {
            unmeasured.append("serve")
        }
        guard unmeasured.isEmpty else {
            console.error("outbox bench: not measured: " + unmeasured.joined(separator: ", ") + " (see above)")
            return 1
        }
        return 0
    }

    /// The `lines` figures (`BenchBigInputs`); false when a file did not parse or its run failed.
    static func bigInputs(
        _ files: [BenchBigInputs.File], threeLineRun fixed: BenchBigInputs.Child?, quick: Bool,
        emit: (String, [(String, String)], String) -> Void
    ) -> Bool {
        let lines = quick ? 10_000 : 1_000_000
        let label = quick ? "10^4" : "10^6"
        func mb(_ bytes: Int) -> String { Decimals.fixed(Double(bytes) / 1_048_576, 1) }
        var ok = true
        for file in files {
            let shape = file.shape
            let (parse, baseline) = BenchBigInputs.parseSeconds(file.path, runs: quick ? 1 : 3)
            let ratio = parse / baseline
            var fields = [
                ("lines", String(lines)), ("file_mb", mb(file.bytes)), ("parse_s", Decimals.fixed(parse, 3)),
                ("read_and_split_s", Decimals.fixed(baseline, 4)), ("ratio", Decimals.fixed(ratio, 1)),
            ]
            var text =
                "\(label)-line scenario, \(shape.rawValue) (\(mb(file.bytes)) MB): read + parse \(Decimals.fixed(parse, 2)) s"
                + " beside read + split into lines \(Decimals.fixed(baseline * 1000, 1)) ms: \(Decimals.fixed(ratio, 0))×"
            if let r = file.run {
                fields += [
                    ("run_s", Decimals.fixed(r.seconds, 2)), ("peak_mb", mb(r.peakBytes)),
                    ("exit", String(r.status)),
                ]
                text += "; `outbox run -q` \(Decimals.fixed(r.seconds, 2)) s, peak \(mb(r.peakBytes)) MB"
                if r.status != 0 {
                    text += " (exit \(r.status): FAILED)"
                    ok = false
                }
            } else {
                text += "; `outbox run -q` not measured (no outbox binary running this bench)"
            }
            if let fixed {
                fields.append(("three_line_run_peak_mb", mb(fixed.peakBytes)))
                if shape == .tracks { text += " (a three-line run: \(mb(fixed.peakBytes)) MB)" }
            }
            if parse < 0 {
                text += " (the file did not parse: FAILED)"
                ok = false
            }
            if shape == .tracks { text += "  (target at 10^6: parse ≤ 1 s, peak ≤ 200 MB)" }
            emit("scenario_lines_" + shape.rawValue, fields, text)
        }
        return ok
    }

    static func median(_ v: [Double]) -> Double {
        let s = v.sorted()
        return s[s.count / 2]
    }

    static func format(_ v: Double) -> String {
        v >= 1e6 ? Decimals.fixed(v / 1e6, 2) + "M" : Decimals.fixed(v / 1e3, 0) + "k"
    }
}

/// The baseline: a bare binary-heap event loop that reschedules each event, as the
/// model's timer queue does, with no model behind it.
enum BareLoop {
    struct Event { var time: Int64; var seq: UInt64; var id: Int32 }

    static func eventsPerSecond(live: Int, events: Int) -> Double {
        var heap: [Event] = []
        heap.reserveCapacity(live)
        var seq: UInt64 = 0
        func less(_ a: Event, _ b: Event) -> Bool { a.time < b.time || (a.time == b.time && a.seq < b.seq) }
        func push(_ e: Event) {
            heap.append(e)
            var c = heap.count - 1
            while c > 0 {
                let p = (c - 1) / 2
                if !less(e, heap[p]) { break }
                heap[c] = heap[p]
                c = p
            }
            heap[c] = e
        }
        func pop() -> Event {
            let top = heap[0]
            let last = heap.removeLast()
            if heap.isEmpty { return top }
            var i = 0
            let n = heap.count
            while true {
                let l = 2 * i + 1
                if l >= n { break }
                var c = l
                if l + 1 < n && less(heap[l + 1], heap[l]) { c = l + 1 }
                if !less(heap[c], last) { break }
                heap[i] = heap[c]
                i = c
            }
            heap[i] = last
            return top
        }
        for i in 0..<live {
            seq += 1
            push(Event(time: Int64(i % 1000), seq: seq, id: Int32(i)))
        }
        var sink: Int64 = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<events {
            var e = pop()
            sink &+= Int64(e.id)
            seq += 1
            e.seq = seq
            e.time += 100 + Int64(e.id & 63)
            push(e)
        }
        let ns = DispatchTime.now().uptimeNanoseconds - start
        if sink == 42 { print("") }
        return Double(events) / (Double(ns) / 1e9)
    }
}

/// The model under load: `live` iOS requests cycling through 503 answers and
/// retries forever (a huge budget), journal off, driven by the same core as
/// everything else.
enum ModelBench {
    /// iOS sending its requests in batches of 50 (`batched` figure).
    static let batched: Profile = {
        let text = """
            profile bench-batched
            base ios
            rule BENCH-1 "Requests go out in batches of 50."
            batch up to 50 rule BENCH-1
            """
        guard case .success(let p) = Profile.parse(text, file: "bench-batched.profile", path: "bench-batched.profile")
        else { fatalError("the bench's batched profile does not parse") }
        return p
    }()

    static func transitionsPerSecond(live: Int, transitions: Int, profile: Profile = Builtins.ios) -> Double {
        var settings = Settings(profile: profile)
        // A budget no request exhausts during the measurement: past the 1000 that
        // input may ask for (Settings.maxRetryAttempts), set directly, as code may.
        settings.retryAttempts = 1_000_000_000
        settings.apply(.retryDelays([1000]))
        var sim = Simulation(profile: profile, settings: settings, store: InMemoryDeviceStore())
        sim.keepsJournal = false
        sim.apply(.appLaunched)
        sim.apply(.serverPlanned(.status(503), .always))
        for i in 0..<live {
            if i % 1000 == 0 { sim.advance(to: sim.now + 1) }
            sim.apply(.eventTracked(TrackedEvent(name: BenchFigures.names[i % 50])))
        }
        let startCount = sim.transitionCount
        let start = DispatchTime.now().uptimeNanoseconds
        var t = sim.now
        while sim.transitionCount - startCount < transitions {
            // Nothing left to happen would loop for ever: stop and measure what ran.
            guard sim.nextDueTime() != nil else { break }
            t += 10
            sim.advance(to: t)
        }
        let ns = DispatchTime.now().uptimeNanoseconds - start
        return Double(sim.transitionCount - startCount) / (Double(ns) / 1e9)
    }
}
