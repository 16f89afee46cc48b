import CSQLite
import Dispatch
import OutboxCore
import OutboxFoundation
import OutboxStore
import OutboxTerminal
import OutboxUI

/// The figures of `outbox bench` beyond transitions per second. Each is measured
/// beside its baseline in the same process and reported with the ratio.
enum BenchFigures {
    static func nowNs() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    static let names = (0..<50).map { "e\($0)" }

    /// A model with `n` live requests and no timers: iOS, offline, all queued.
    static func queuedModel(_ n: Int) -> Simulation {
        var sim = Simulation(
            profile: Builtins.ios, settings: Settings(profile: Builtins.ios), store: InMemoryDeviceStore())
        sim.keepsJournal = false
        sim.apply(.appLaunched)
        sim.apply(.networkWentOffline)
        for i in 0..<n { sim.apply(.eventTracked(TrackedEvent(name: names[i % 50]))) }
        sim.keepsJournal = true
        sim.apply(.serverPlanned(.status(503), .times(3)))
        return sim
    }

    /// Building one 200×60 frame (view into the cell buffer) with 10^6 requests,
    /// beside the same with 10^3: median and p99 in microseconds. The two models
    /// take turns frame by frame, so a noisy moment hits both alike.
    static func frame(big: Int, small: Int, frames: Int) -> (
        bigMedianUs: Double, bigP99Us: Double, smallMedianUs: Double
    ) {
        var models = [AppModel(sim: queuedModel(small)), AppModel(sim: queuedModel(big))]
        for i in models.indices {
            models[i].setScreen(width: 200, height: 60)
            models[i].laidOut(AppView.layout(for: models[i]))
        }
        var times: [[Double]] = [[], []]
        for f in 0..<frames {
            for i in models.indices {
                models[i].tick(to: models[i].sim.now + 33)  // the clock moves, as while running
                if f % 10 == 0 { _ = models[i].handle(.char("k")) }  // the selection moves now and then
                let t0 = nowNs()
                let buf = AppView.render(models[i], width: 200, height: 60)
                let t1 = nowNs()
                if buf.width != 200 { print("") }
                times[i].append(Double(t1 - t0) / 1000)
            }
        }
        let s = times[0].sorted(), b = times[1].sorted()
        return (b[b.count / 2], b[min(b.count - 1, b.count * 99 / 100)], s[s.count / 2])
    }

    /// Bytes ncurses sends per frame at 80×24 (xterm-256color, default theme), for
    /// an idle frame, a clock tick, one request changing state and a one-row
    /// scroll, beside a full redraw of the same screen.
    static func bytesPerFrame() -> [(String, Int)] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-bytes-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let term = Terminal(measuringTo: path, width: 80, height: 24)
        defer { term.restore() }
        term.use(Theme.builtin("default")!)
        var settings = Settings(profile: Builtins.linktrail)
        settings.apply(.requireConsent(false))
        var m = AppModel(sim: Simulation(profile: Builtins.linktrail, settings: settings))
        m.perform(.appLaunched)
        for i in 0..<30 { m.perform(.eventTracked(TrackedEvent(name: names[i % 50]))) }
        m.tick(to: 1000)
        m.laidOut(AppView.layout(for: m))
        _ = m.handle(.home)
        func frame() -> Int {
            let before = term.bytesWritten
            term.draw(AppView.render(m, width: 80, height: 24))
            return term.bytesWritten - before
        }
        let full = frame()
        let idle = frame()
        m.tick(to: m.sim.now + 100)
        let tick = frame()
        m.perform(.serverPlanned(.status(400), .times(1)))
        m.perform(.eventTracked(TrackedEvent(name: "x")))
        _ = m.handle(.home)
        _ = frame()
        m.tick(to: m.sim.now + 200)  // the new request is rejected: one row changes state
        let row = frame()
        for _ in 0..<m.listHeight { _ = m.handle(.down) }  // to the bottom row: the next moves the list
        _ = frame()
        _ = m.handle(.down)
        let scroll = frame()
        return [
            ("full_redraw", full), ("idle", idle), ("clock_tick", tick), ("one_row_changed", row),
            ("scroll_one_row", scroll),
        ]
    }

    static var executable: String {
        CommandLine.arguments[0].hasPrefix("/")
            ? CommandLine.arguments[0] : FileManager.default.currentDirectoryPath + "/" + CommandLine.arguments[0]
    }

    /// Milliseconds from starting `args` on a pseudo-terminal to `marker` in its output; median of `runs`.
    static func startMs(_ args: [String], marker: String, runs: Int) -> Double {
        var times: [Double] = []
        for _ in 0..<runs {
            let t0 = nowNs()
            guard let pty = PseudoTerminal(args, rows: 24, cols: 80), pty.wait(for: marker) else { return -1 }
            times.append(Double(nowNs() - t0) / 1e6)
            pty.stop()
        }
        times.sort()
        return times[times.count / 2]
    }

    /// Start to first frame: an empty device and one with `saved` saved requests,
    /// beside `outbox --version` (a trivial run of the same binary) to its output.
    static func startToFirstFrame(saved: Int, runs: Int) -> (baseline: Double, empty: Double, full: Double) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-start-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fullDir = root + "/full"
        if let store = try? SQLiteDeviceStore(directory: fullDir, profile: Builtins.linktrail) {
            store.consent = .granted
            store.installCreated = true
            for i in 1...saved {
                store.save(
                    SavedRequest(
                        id: Int32(i), kind: .event, name: names[i % 50], createdAt: Millis(i),
                        idempotencyKey: UInt64(i),
                        value: nil, currency: "", attributes: [], attempts: 3, waitingForConsent: false))
            }
            store.close()
        }
        let exe = executable
        let baseline = startMs([exe, "--version"], marker: "outbox ", runs: runs)
        var empty: [Double] = [], full: [Double] = []
        for r in 0..<runs {
            empty.append(startMs([exe, "--state-dir", root + "/empty-\(r)"], marker: "OUTBOX", runs: 1))
            // A copy per run would cost more than the run: the flush at launch sends one request
            // of 10^5, so the device barely changes between runs.
            full.append(startMs([exe, "--state-dir", fullDir], marker: "OUTBOX", runs: 1))
        }
        return (baseline, empty.sorted()[runs / 2], full.sorted()[runs / 2])
    }

    /// Key press to updated screen during a 600× fast-forward on linktrail with
    /// consent granted (BenchLiveCompare.keyLatency).
    static func keyLatency(presses: Int) -> (p50: Double, p99: Double) {
        BenchLiveCompare.keyLatency(["--memory"], setup: "c", marker: "flush idle", presses: presses)
    }

    /// Resident memory in bytes, now (Platform.residentBytes).
    static func rss() -> Int { Platform.residentBytes() }

    /// Bytes of memory per live request at `n` live requests (model and in-memory device).
    static func memoryPerRequest(_ n: Int) -> Double {
        let before = rss()
        let sim = queuedModel(n)
        let after = rss()
        withExtendedLifetime(sim) {}
        return Double(after - before) / Double(n)
    }

    /// Saved-request writes per second through SQLiteDeviceStore, beside raw
    /// sqlite3 single-row inserts with the same settings (WAL, synchronous=NORMAL).
    /// The two take turns in rounds of `n / rounds` writes, so a slow moment of the
    /// disk or the machine hits both; each is the median of its rounds.
    static func storeWrites(_ n: Int, rounds: Int = 10) -> (store: Double, raw: Double) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-bench-\(getpid())").path
        try? FileManager.default.removeItem(atPath: dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard let store = try? SQLiteDeviceStore(directory: dir, profile: Builtins.linktrail) else { return (0, 0) }
        defer { store.close() }
        // The baseline: the same table, the same settings, plain prepared inserts.
        var db: OpaquePointer?
        sqlite3_open(dir + "/raw.sqlite", &db)
        defer { sqlite3_close(db) }
        sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", nil, nil, nil)
        sqlite3_exec(
            db,
            "CREATE TABLE requests (id INTEGER PRIMARY KEY, kind TEXT, name TEXT, created_at_ms INTEGER, idempotency_key TEXT, value_micros INTEGER, currency TEXT, attributes TEXT, attempts INTEGER, waiting_for_consent INTEGER)",
            nil, nil, nil)
        var s: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO requests VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &s, nil)
        defer { sqlite3_finalize(s) }
        let batch = max(1, n / rounds)
        var storeRates: [Double] = [], rawRates: [Double] = []
        var next = 1
        for _ in 0..<rounds {
            let ids = next..<(next + batch)
            next += batch
            let t0 = nowNs()
            for i in ids {
                store.save(
                    SavedRequest(
                        id: Int32(i), kind: .event, name: names[i % 50], createdAt: Millis(i),
                        idempotencyKey: UInt64(i),
                        value: nil, currency: "", attributes: [], attempts: 0, waitingForConsent: false))
            }
            let t1 = nowNs()
            for i in ids {
                sqlite3_bind_int64(s, 1, Int64(i))
                sqlite3_bind_text(s, 2, "event", -1, outbox_sqlite_transient())
                sqlite3_bind_text(s, 3, names[i % 50], -1, outbox_sqlite_transient())
                sqlite3_bind_int64(s, 4, Int64(i))
                sqlite3_bind_text(s, 5, String(i, radix: 16), -1, outbox_sqlite_transient())
                sqlite3_bind_null(s, 6)
                sqlite3_bind_text(s, 7, "", -1, outbox_sqlite_transient())
                sqlite3_bind_text(s, 8, "", -1, outbox_sqlite_transient())
                sqlite3_bind_int64(s, 9, 0)
                sqlite3_bind_int64(s, 10, 0)
                sqlite3_step(s)
                sqlite3_reset(s)
            }
            let t2 = nowNs()
            storeRates.append(Double(batch) / (Double(t1 - t0) / 1e9))
            rawRates.append(Double(batch) / (Double(t2 - t1) / 1e9))
        }
        return (BenchCommand.median(storeRates), BenchCommand.median(rawRates))
    }

    /// `hours` of virtual time, 50 requests a second, about 20% of attempts failing
    /// (a seeded chaos backend), headless; then the same input advanced in the
    /// frame steps (33 ms × speed) the live screen takes at 600×, 60× and 10×, and
    /// at 1× only when `hours` is at most 1; the other speeds (below 1×, 3600×)
    /// are not replayed. The final states must be identical. Returns the median
    /// headless wall seconds of `headlessRuns` and whether all agreed.
    static func chaos(hours: Double, headlessRuns: Int) -> (seconds: Double, transitions: Int, identical: Bool) {
        let end = Millis(hours * 3_600_000)
        func run(step: Millis?) -> (digest: String, transitions: Int) {
            var settings = Settings(profile: Builtins.linktrail)
            settings.apply(.requireConsent(false))
            var sim = Simulation(profile: Builtins.linktrail, settings: settings, store: InMemoryDeviceStore())
            sim.keepsJournal = false
            sim.apply(.appLaunched)
            var rng = SplitMix64(seed: 42)
            let failures: [Answer] = [.status(503), .status(500), .timeout, .status(429), .status(400)]
            var t: Millis = 0
            while t < end {
                t += 20  // 50 a second
                if let step {
                    // The live screen advances in frames; actions happen at their own moments.
                    var f = sim.now
                    while f + step < t { f += step; sim.advance(to: f) }
                }
                sim.advance(to: t)
                if rng.next() % 100 < 20 {
                    sim.apply(.serverPlanned(failures[Int(rng.next() % UInt64(failures.count))], .times(1)))
                }
                sim.apply(.eventTracked(TrackedEvent(name: names[Int(rng.next() % 50)])))
            }
            while let due = sim.nextDueTime() { sim.advance(to: due) }
            let b = sim.backend
            let digest =
                "\(sim.counts) \(sim.savedCount) \(b.received) \(b.counted) \(b.duplicates) \(b.rejected) \(sim.transitionCount) \(sim.now)"
            return (digest, sim.transitionCount)
        }
        var times: [Double] = []
        var headless = (digest: "", transitions: 0)
        for _ in 0..<headlessRuns {
            let t0 = nowNs()
            let r = run(step: nil)
            times.append(Double(nowNs() - t0) / 1e9)
            if !headless.digest.isEmpty && r.digest != headless.digest { return (times[0], r.transitions, false) }
            headless = r
        }
        let seconds = BenchCommand.median(times)
        var same = true
        for speed: Millis in [600, 60, 10, 1] {
            // 33 ms frames × speed; at 1× that is many small steps, so 1× is replayed only on runs of 1 h or less.
            if speed == 1 && hours > 1 { continue }
            if run(step: 33 * speed).digest != headless.digest { same = false }
        }
        return (seconds, headless.transitions, same)
    }
}
