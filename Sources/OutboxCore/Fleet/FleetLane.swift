/// A lane of a fleet (docs/fleet.md, "How it runs"): some of its devices, each
/// a `Simulation` of its profile, and the share of the backend they send to.
///
/// The lane steps second by second of virtual time. Each second it steps the
/// devices that have something due in it, each through the whole second: its
/// timers, the file's lines, its own events and churn, in the order a scenario
/// plays them (ORDER). Devices meet only at the backend (`FleetGate`), so a
/// lane is a value that one thread runs from start to end; lanes do not share.
public struct FleetLane {
    public let fleet: FleetFile
    /// The devices' numbers in the fleet, by the lane's own index.
    public let members: [Int]
    var sims: [Simulation]
    /// Each device's store (the one its simulation holds), for `Prefetch`.
    var stores: [InMemoryDeviceStore] = []
    /// Where in a device's memory the addresses to ask for are.
    let prefetching = Prefetch(store: InMemoryDeviceStore(chunkBits: 3))
    /// The emptied chunks of the lane's stores, shared (the lane steps on one thread).
    let chunkPool = InMemoryDeviceStore.ChunkPool(chunkBits: 3)
    public let gate: FleetGate
    let seconds: Int
    /// Per device, by lane index: its profile's index in the mix, the next file
    /// line it plays, when it next has something due and the second it is filed under.
    var mixOf: [UInt8]
    var lineNext: [Int32]
    var due: [Millis]
    var filed: [Int32]
    /// Per device and stream (`index × streams + k`): the next event and the stream's state.
    var eventNext: [Millis]
    var eventState: [UInt64]
    /// Per device and churn line: the next change, the stream's state, and
    /// whether the device is in the churn's stretch (offline, closed, in the background).
    var churnNext: [Millis]
    var churnState: [UInt64]
    var churnIn: [Bool]
    /// The devices due in each second, by lane index; an entry whose `filed` is
    /// another second is stale and skipped.
    var buckets: [[Int32]]
    /// The file's lines' times, by profile in the mix: read at every step, where
    /// taking the scenario's steps (eight arrays) cost 450 instructions a step.
    let lineTimes: [[Millis]]
    /// The event streams, read at every event without copying a stream out of
    /// the fleet (that retained three arrays every other lane shares, and the
    /// two cores then fought over their reference counts): per stream its
    /// mean wait and its number of names, and its actions by `(k × mixes + m) × names`.
    let eventMeans: [Millis]
    let eventNames: [Int]
    let eventActions: [[Action]]
    /// The devices due in the second being run, a bit each (all clear between seconds).
    var dueBits: [UInt64]
    var scratch: [JournalEntry] = []
    /// `--live`: lines a person played on every device (`o`, `:server`), in the
    /// order played, each at the start of a second; per device, the next it plays.
    public private(set) var liveLines: [(time: Millis, action: Action)] = []
    var liveNext: [Int32]
    public private(set) var result: FleetResult
    /// Transitions the lane's devices made (what `outbox bench --only fleet` rates).
    public private(set) var transitions = 0
    /// `--device N`: the lane index of the device whose life is written, and its lines.
    var recordIndex = -1
    public private(set) var recordedLines: [(time: Millis, action: Action)] = []
    /// The recorded device's transitions in the run, in order (tests compare them with its scenario's).
    public private(set) var recordedTransitions: [Transition] = []

    /// The lane of `members` (fleet device numbers), sending to a backend of `capacity` a second.
    public init(fleet: FleetFile, members: [Int], capacity: Int?, record device: Int? = nil) {
        self.fleet = fleet
        self.members = members
        seconds = Int(fleet.duration / 1000)
        gate = FleetGate(capacity: capacity, over: fleet.overAnswer, seconds: seconds)
        let count = members.count, streams = fleet.events.count, churns = fleet.churn.count
        sims = []
        sims.reserveCapacity(count)
        mixOf = [UInt8](repeating: 0, count: count)
        lineNext = [Int32](repeating: 0, count: count)
        due = [Millis](repeating: .max, count: count)
        filed = [Int32](repeating: -1, count: count)
        liveNext = [Int32](repeating: 0, count: count)
        eventNext = [Millis](repeating: .max, count: count * streams)
        eventState = [UInt64](repeating: 0, count: count * streams)
        churnNext = [Millis](repeating: .max, count: count * churns)
        churnState = [UInt64](repeating: 0, count: count * churns)
        churnIn = [Bool](repeating: false, count: count * churns)
        buckets = [[Int32]](repeating: [], count: seconds)
        lineTimes = fleet.scenarios.map { $0.steps.times.map { $0 } }
        eventMeans = fleet.events.map(\.mean)
        eventNames = fleet.events.map(\.names.count)
        // Rebuilt, not copied: each lane's arrays are its own.
        eventActions = fleet.events.flatMap { e in e.actions.map { Array($0.map { $0 }) } }
        dueBits = [UInt64](repeating: 0, count: (count + 63) / 64)
        result = FleetResult(seconds: seconds)
        result.devices = count
        let names = fleet.scenarios.indices.map { FleetLane.names(fleet, $0) }
        for (i, d) in members.enumerated() {
            let m = fleet.mixIndex(of: d)
            mixOf[i] = UInt8(m)
            let scenario = fleet.scenarios[m]
            var settings = scenario.settings
            settings.seed = fleet.deviceSeed(d)
            // A device holds a handful of saved requests at a time: chunks of 8 rows,
            // from the lane's pool, so a device at rest holds none.
            let store = InMemoryDeviceStore(pool: chunkPool, names: names[m])
            if !scenario.device.isEmpty { scenario.device.seed(store) }
            stores.append(store)
            var sim = Simulation(profile: scenario.profile, settings: settings, store: store, names: names[m])
            sim.keepsLogLines = false
            sim.send(to: gate)
            sims.append(sim)
            for k in 0..<streams {
                var s = FleetDraw.stream(fleet.seed, device: d, stream: FleetDraw.eventStream + UInt64(k))
                eventNext[i * streams + k] = FleetDraw.wait(&s, mean: fleet.events[k].mean)
                eventState[i * streams + k] = s
            }
            for k in 0..<churns {
                var s = FleetDraw.stream(fleet.seed, device: d, stream: FleetDraw.churnStream + UInt64(k))
                churnNext[i * churns + k] = FleetDraw.wait(&s, mean: fleet.churn[k].every)
                churnState[i * churns + k] = s
            }
            if d == device { recordIndex = i }
            file(i, at: nextDue(i))
        }
    }

    /// The names the devices of mix `m` will give their requests, interned
    /// once for all of them: the events', the file's lines', the install's.
    static func names(_ fleet: FleetFile, _ m: Int) -> NameTable {
        var t = NameTable([""])
        func add(_ a: Action) {
            switch a {
            case .eventTracked(let e):
                _ = t.intern(e.name)
                if let c = e.currency { _ = t.intern(c) }
            case .call(let w, let n):
                _ = t.intern(w)
                if let n { _ = t.intern(n) }
            default: break
            }
        }
        _ = t.intern("install")
        for stream in fleet.events { stream.actions[m].forEach(add) }
        for step in fleet.scenarios[m].steps {
            if case .action(let a) = step.content { add(a) }
        }
        return t
    }

    /// When device `i` next has something to do: a timer, a line, an event, a churn.
    mutating func nextDue(_ i: Int) -> Millis {
        var t = sims[i].nextDueTime() ?? .max
        if let f = sims[i].nextFlapTime, f < t { t = f }
        let m = Int(mixOf[i]), l = Int(lineNext[i])
        if l < lineTimes[m].count { t = min(t, lineTimes[m][l]) }
        let v = Int(liveNext[i])
        if v < liveLines.count { t = min(t, liveLines[v].time) }
        let streams = fleet.events.count, churns = fleet.churn.count
        for k in 0..<streams { t = min(t, eventNext[i * streams + k]) }
        for k in 0..<churns { t = min(t, churnNext[i * churns + k]) }
        return t
    }

    mutating func file(_ i: Int, at t: Millis) {
        due[i] = t
        guard t < fleet.duration else {
            filed[i] = -1
            return
        }
        let s = Int(t / 1000)
        filed[i] = Int32(s)
        buckets[s].append(Int32(i))
    }

    /// Runs the lane to the end of the fleet's duration.
    public mutating func run() {
        for s in 0..<seconds { runSecond(s) }
        finish()
    }

    /// Steps every device due in second `s` through it.
    ///
    /// The devices go in the lane's order (D348), from one drawn from the
    /// second, round to the one before it: which device meets the backend first
    /// turns with the second. In order, their memory is read front to back,
    /// which at 10^5 devices a lane was the difference between waiting on
    /// memory and not (docs/performance.md, "Fleets").
    public mutating func runSecond(_ s: Int) {
        var list: [Int32] = []
        swap(&list, &buckets[s])
        guard !list.isEmpty else { return }
        let end = Millis(s) * 1000 + 999
        for i in list where filed[Int(i)] == Int32(s) { dueBits[Int(i) >> 6] |= 1 << UInt64(i & 63) }
        let n = members.count
        let start = Int(FleetDraw.value(fleet.seed, device: s, stream: 3) % UInt64(n))
        stepMarked(from: start, to: n, through: end)
        stepMarked(from: 0, to: start, through: end)
    }

    /// Steps the devices marked due in `lo..<hi`, in order, clearing their marks.
    ///
    /// While one device steps, the lane asks for the memory of the next three
    /// (`Prefetch`): the third's simulation, the blocks the second's points at,
    /// and the blocks reached through the first's, each of which was asked for
    /// a step earlier and is in cache to be read. At 10^6 devices nothing of a
    /// device is in cache when its turn comes (docs/performance.md, "Fleets").
    mutating func stepMarked(from lo: Int, to hi: Int, through end: Millis) {
        var i0 = nextMarked(from: lo, to: hi)
        var i1 = nextMarked(from: i0 + 1, to: hi)
        var i2 = nextMarked(from: i1 + 1, to: hi)
        if i0 < hi { prefetchSimulation(i0) }
        if i1 < hi { prefetchSimulation(i1) }
        if i2 < hi { prefetchSimulation(i2) }
        if i0 < hi { prefetchBlocks(i0) }
        if i1 < hi { prefetchBlocks(i1) }
        while i0 < hi {
            let i3 = nextMarked(from: i2 + 1, to: hi)
            if i3 < hi { prefetchSimulation(i3) }
            if i2 < hi { prefetchBlocks(i2) }
            if i1 < hi { prefetchInner(i1) }
            dueBits[i0 >> 6] &= ~(1 << UInt64(i0 & 63))
            step(i0, through: end)
            (i0, i1, i2) = (i1, i2, i3)
        }
    }

    /// The first device marked due in `lo..<hi`, or `hi`.
    @inline(__always)
    func nextMarked(from lo: Int, to hi: Int) -> Int {
        guard lo < hi else { return hi }
        var w = lo >> 6
        var bits = dueBits[w] & (~0 << UInt64(lo & 63))
        while bits == 0 {
            w += 1
            guard w << 6 < hi else { return hi }
            bits = dueBits[w]
        }
        return Swift.min(hi, w << 6 | bits.trailingZeroBitCount)
    }

    /// Asks for device `i`'s simulation, every cache line of it, and its
    /// entries in the lane's arrays.
    @inline(__always)
    func prefetchSimulation(_ i: Int) {
        sims.withUnsafeBufferPointer {
            Prefetch.bytes(UnsafeRawPointer($0.baseAddress.unsafelyUnwrapped + i), MemoryLayout<Simulation>.stride)
        }
        due.withUnsafeBufferPointer { Prefetch.bytes(UnsafeRawPointer($0.baseAddress.unsafelyUnwrapped + i), 1) }
        lineNext.withUnsafeBufferPointer { Prefetch.bytes(UnsafeRawPointer($0.baseAddress.unsafelyUnwrapped + i), 1) }
        stores.withUnsafeBufferPointer { Prefetch.bytes(UnsafeRawPointer($0.baseAddress.unsafelyUnwrapped + i), 1) }
        let streams = fleet.events.count
        if streams > 0 {
            eventNext.withUnsafeBufferPointer {
                Prefetch.bytes(UnsafeRawPointer($0.baseAddress.unsafelyUnwrapped + i * streams), 1)
            }
            eventState.withUnsafeBufferPointer {
                Prefetch.bytes(UnsafeRawPointer($0.baseAddress.unsafelyUnwrapped + i * streams), 1)
            }
        }
    }

    /// The blocks device `i`'s simulation points at, and its store object (both in cache by now).
    @inline(__always)
    func prefetchBlocks(_ i: Int) {
        sims.withUnsafeBufferPointer {
            prefetching.blocks(of: UnsafeRawPointer($0.baseAddress.unsafelyUnwrapped + i))
        }
        stores.withUnsafeBufferPointer { Prefetch.through(UnsafeRawPointer($0.baseAddress.unsafelyUnwrapped + i)) }
    }

    /// The blocks reached through those: the requests, the store's chunk table.
    @inline(__always)
    func prefetchInner(_ i: Int) {
        sims.withUnsafeBufferPointer {
            prefetching.requests(of: UnsafeRawPointer($0.baseAddress.unsafelyUnwrapped + i))
        }
        stores.withUnsafeBufferPointer {
            guard let o = UnsafeRawPointer($0.baseAddress.unsafelyUnwrapped + i).load(as: UnsafeRawPointer?.self)
            else { return }
            prefetching.tables(of: o)
        }
    }

    /// `--live`: plays `action` on every device at the start of second `s`,
    /// which has not run yet, after the file's lines at that time: the lane
    /// then runs as if the file had the line `at s action` at its end (D371).
    /// Every device is due at `s`, as the file's line would have made it, and
    /// no later second keeps a stale entry (a second's devices go in the lane's
    /// order whatever order they were filed in: D348).
    public mutating func play(_ action: Action, atSecond s: Int) {
        guard s >= 0 && s < seconds else { return }
        let t = Millis(s) * 1000
        liveLines.append((t, action))
        for k in s..<seconds { buckets[k].removeAll(keepingCapacity: true) }
        for i in 0..<Int32(members.count) {
            let d = Int(i)
            if due[d] > t { due[d] = t }
            let k = Int(due[d] / 1000)
            filed[d] = Int32(k)
            buckets[k].append(i)
        }
    }

    /// The counts of second `s`, once it has run (`--live` reads them as it goes):
    /// attempts, over capacity and failed from the backend, the rest from the devices.
    public func counts(_ s: Int) -> FleetResult.Second {
        FleetResult.Second(
            attempts: Int64(gate.attempts[s]), new: result.new[s], delivered: result.delivered[s],
            over: Int64(gate.overs[s]), failed: Int64(gate.failed[s]), dropped: result.dropped[s])
    }

    /// Dropped requests so far by `DropReason.rawValue`.
    public var dropReasons: [Int64] { result.dropReasons }

    /// Steps device `i` through `end` (inclusive), then files it under its next second.
    mutating func step(_ i: Int, through end: Millis) {
        swap(&sims[i].journal, &scratch)
        if i == recordIndex { gate.recording = true }
        let streams = fleet.events.count, churns = fleet.churn.count, mixes = fleet.scenarios.count
        let m = Int(mixOf[i])
        // When it is first due is what it was filed under: nothing touched it since.
        var t = due[i]
        while t <= end {
            sims[i].advance(to: t)
            // ORDER: the timers due at t fired; then the file's lines at t, then the device's own churn and events.
            while Int(lineNext[i]) < lineTimes[m].count && lineTimes[m][Int(lineNext[i])] == t {
                if case .action(let a) = fleet.scenarios[m].steps[Int(lineNext[i])].content { play(i, a, at: t) }
                lineNext[i] += 1
            }
            while Int(liveNext[i]) < liveLines.count && liveLines[Int(liveNext[i])].time == t {
                play(i, liveLines[Int(liveNext[i])].action, at: t)
                liveNext[i] += 1
            }
            for k in 0..<churns where churnNext[i * churns + k] == t { churnTurns(i, k, at: t) }
            for k in 0..<streams where eventNext[i * streams + k] == t {
                if sims[i].appRunning {
                    let n = eventNames[k]
                    let pick = n == 1 ? 0 : FleetDraw.below(&eventState[i * streams + k], n)
                    play(i, eventActions[k * mixes + m][pick], at: t)
                }
                eventNext[i * streams + k] = t + FleetDraw.wait(&eventState[i * streams + k], mean: eventMeans[k])
            }
            sims[i].settle()
            t = nextDue(i)
        }
        gate.recording = false
        swap(&sims[i].journal, &scratch)
        tally(i)
        // At rest, what the device is done with goes (the recorded one keeps its whole life).
        if i != recordIndex { sims[i].forgetFinished() }
        file(i, at: t)
    }

    /// Applies an action to device `i`; kept for its scenario when it is the one recorded.
    mutating func play(_ i: Int, _ a: Action, at t: Millis) {
        guard sims[i].check(a) == nil else { return }  // e.g. a `track` while churn has the app closed
        _ = sims[i].apply(a)
        if i == recordIndex { recordedLines.append((t, a)) }
    }

    /// A churn line's change on device `i`: into its stretch, or out of it.
    mutating func churnTurns(_ i: Int, _ k: Int, at t: Millis) {
        let c = fleet.churn[k], slot = i * fleet.churn.count + k
        if !churnIn[slot] {
            switch c.kind {
            case .offline: play(i, .networkWentOffline, at: t)
            case .relaunch:
                if sims[i].appRunning { play(i, .appQuit, at: t) }
            case .background:
                if sims[i].appRunning && !sims[i].appState.inBackground { play(i, .appBackgrounded, at: t) }
            }
            churnIn[slot] = true
            churnNext[slot] = t + c.lasting
            if c.lasting == 0 { churnTurns(i, k, at: t) }
        } else {
            switch c.kind {
            case .offline: play(i, .networkWentOnline, at: t)
            case .relaunch:
                if !sims[i].appRunning { play(i, .appLaunched, at: t) }
            case .background:
                if sims[i].appRunning && sims[i].appState.inBackground { play(i, .appForegrounded, at: t) }
            }
            churnIn[slot] = false
            churnNext[slot] = t + FleetDraw.wait(&churnState[slot], mean: c.every)
        }
    }

    /// Counts what device `i` did in the step just made, from its transitions, and forgets them.
    mutating func tally(_ i: Int) {
        for e in scratch {
            guard case .transition(let tr) = e else { continue }
            transitions += 1
            let s = Int(tr.time / 1000)
            guard s < seconds else { continue }
            if i == recordIndex { recordedTransitions.append(tr) }
            if tr.from == nil { result.new[s] += 1 }
            if tr.to == .delivered && tr.from != .delivered {
                result.delivered[s] += 1
                result.addDelay(tr.time - sims[i].request(tr.request).createdAt)
            } else if tr.to == .dropped && tr.from != .dropped {
                result.dropped[s] += 1
                if let r = tr.reason { result.dropReasons[Int(r.rawValue)] += 1 }
            }
        }
        sims[i].journalStart += scratch.count
        scratch.removeAll(keepingCapacity: true)
    }

    /// Adds the backend's counts and the devices' ends to the result.
    mutating func finish() {
        for s in 0..<seconds {
            result.attempts[s] = Int64(gate.attempts[s])
            result.over[s] = Int64(gate.overs[s])
            result.failed[s] = Int64(gate.failed[s])
        }
        for sim in sims {
            result.duplicates += Int64(sim.backend.duplicates + sim.backend.recounted)
            result.live += Int64(sim.liveCount)
        }
    }

    /// Requests the lane's devices still hold in memory, and how many of them
    /// are held by devices at rest (none: a device at rest lets go of its finished ones).
    public var requestsHeld: (all: Int, atRest: Int) {
        var all = 0, atRest = 0
        for (i, sim) in sims.enumerated() {
            all += sim.requests.count
            if i != recordIndex && sim.liveCount == 0 && sim.savedCount == 0 { atRest += sim.requests.count }
        }
        return (all, atRest)
    }

    /// The over-capacity answers the recorded device got, by send number.
    public var recordedAnswers: [(send: Int32, answer: Answer)] { gate.recorded }
    /// The recorded device's simulation (tests compare it with its scenario's run).
    public var recordedSimulation: Simulation? { recordIndex >= 0 ? sims[recordIndex] : nil }
}
