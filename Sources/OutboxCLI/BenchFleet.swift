import Dispatch
import OutboxCore
import OutboxFoundation

/// `outbox bench --only fleet`: a fleet through an outage (issue 26's scale
/// figure), in device-hours a second, and its transitions a second per core
/// beside the single-device model's, measured in the same run.
enum BenchFleet {
    /// The fleet measured: `devices` on iOS, an event a minute each, for
    /// `hours`, the backend down (timing out) for the third sixth of the run.
    static func text(devices: Int, minutes: Int) -> String {
        """
        # outbox bench --only fleet
        devices \(devices)
        profile ios
        events every 1m
        capacity \(max(1, devices / 20))/s
        duration \(minutes)m
        seed 26
        at 0s launch
        at \(minutes / 4)m server timeout always
        at \(minutes / 4 + minutes / 6)m server ok
        """
    }

    struct Figure {
        var devices: Int
        var minutes: Int
        var seconds: Double
        var transitions: Int
        var cores: Int
        var residentMB: Double
        var events: Int64
    }

    static func run(devices: Int, minutes: Int) -> Figure? {
        guard case .success(let fleet) = FleetFile.parse(text(devices: devices, minutes: minutes), file: "bench.fleet")
        else { return nil }
        let before = BenchFigures.rss()
        let start = BenchFigures.nowNs()
        let threads: FleetRun.Parallel = { n, body in DispatchQueue.concurrentPerform(iterations: n, execute: body) }
        let run = FleetRun(fleet, parallel: threads)
        let result = run.run(parallel: threads)
        let seconds = Double(BenchFigures.nowNs() - start) / 1e9
        // Measured before the lanes go: the fleet holds its devices to the end.
        let resident = Double(max(0, BenchFigures.rss() - before)) / 1_048_576
        let transitions = run.lanes.reduce(0) { $0 + $1.lane.transitions }
        let cores = min(run.lanes.count, ProcessInfo.processInfo.activeProcessorCount)
        return withExtendedLifetime(run) {
            Figure(
                devices: devices, minutes: minutes, seconds: seconds, transitions: transitions, cores: cores,
                residentMB: resident, events: result.new.reduce(0, +))
        }
    }

    /// Measures and prints the figure; false when the fleet could not run.
    /// `alone`: the only figure of the run; otherwise the memory figures before
    /// it freed what the fleet then reuses, and its resident growth says less.
    static func measure(quick: Bool, alone: Bool, emit: (String, [(String, String)], String) -> Void) -> Bool {
        let devices = quick ? 10_000 : 1_000_000, minutes = quick ? 12 : 120
        // The model's rate first, with the memory the fleet will take still free.
        var model: [Double] = []
        for _ in 0..<(quick ? 1 : 3) {
            model.append(ModelBench.transitionsPerSecond(live: 100_000, transitions: quick ? 50_000 : 2_000_000))
        }
        let m = model.sorted()[model.count / 2]
        guard let f = run(devices: devices, minutes: minutes) else { return false }
        let deviceHours = Double(f.devices) * Double(f.minutes) / 60
        let perCore = Double(f.transitions) / f.seconds / Double(f.cores)
        func r3(_ v: Double) -> String { String(Double(Int(v * 1000)) / 1000) }
        emit(
            "fleet",
            [
                ("devices", String(f.devices)), ("hours", r3(Double(f.minutes) / 60)), ("seconds", r3(f.seconds)),
                ("device_hours_per_second", String(Int(deviceHours / f.seconds))),
                ("events", String(f.events)), ("transitions", String(f.transitions)), ("cores", String(f.cores)),
                ("transitions_per_second_per_core", String(Int(perCore))), ("model", String(Int(m))),
                ("ratio", r3(perCore / m)), ("resident_mb", String(Int(f.residentMB))),
            ],
            "fleet: \(f.devices) devices × \(Decimals.fixed(Double(f.minutes) / 60, 1)) h with an outage in "
                + "\(Decimals.fixed(f.seconds, 1)) s on \(f.cores) core\(f.cores == 1 ? "" : "s"): "
                + "\(Int(deviceHours / f.seconds)) device-hours/s; \(f.transitions) transitions, "
                + "\(BenchCommand.format(perCore))/s a core beside the model's \(BenchCommand.format(m))/s: ratio \(Decimals.fixed(perCore / m, 2))×; "
                + "resident +\(Int(f.residentMB)) MB\(alone ? "" : " (reusing other figures' memory: --only fleet for this one)")  (target 10^6 × 2 h ≤ 60 s, ≤ 2 GB, ≥ 0.5×)"
        )
        return true
    }
}
