import OutboxCore

/// What a key on the fleet's live screen asks of the loop.
public enum FleetEffect: Equatable, Sendable {
    case quit
}

/// `outbox fleet FILE --live` (docs/fleet.md, "Live"): the fleet's lanes
/// stepped one second of virtual time at a time, as far as the wall clock ×
/// the speed allows. The loop passes the wall time in (`wallTimePassed`) and
/// asks for seconds (`stepSecond`) while `canStep`; nothing here reads a clock,
/// so the same file and the same keys at the same virtual seconds give the
/// same numbers (D371). The lanes run one after another on the loop's thread (D370).
public struct FleetLiveModel {
    public enum Mode: Equatable, Sendable {
        case normal
        /// The help screen, scrolled by this many rows.
        case help(Int)
        /// The `:` line, with what is typed so far.
        case command(String)
    }

    public let fleet: FleetFile
    var lanes: [FleetLane]
    /// The run's length in seconds.
    public let seconds: Int
    /// Seconds stepped: the virtual time reached is `second` × 1000.
    public private(set) var second = 0
    /// Where the clock would be if stepping kept up (ms); at most the run's end.
    public private(set) var clock: Millis = 0
    public private(set) var speedIndex: Int
    public private(set) var paused = false
    /// `>`: step as fast as the loop can, the speed aside.
    public private(set) var fastForward = false
    var wallCarry: Int64 = 0
    /// Per second stepped: its counts, and the backlog at its end.
    public private(set) var counts: [FleetResult.Second] = []
    public private(set) var queued: [Int64] = []
    public private(set) var totals = FleetResult.Second()
    /// The lines played live (`o`, `:`), at the second each was played.
    public private(set) var played: [(time: Millis, action: Action)] = []
    /// The outages of the file's lines and the ones played here.
    public private(set) var outages: [FleetFile.Outage]
    public internal(set) var mode: Mode = .normal
    /// A line in place of the status bar's keys (the loop clears it after a while).
    public var message: (text: String, isError: Bool)?

    /// The speed a live fleet starts at: 60×, an hour a minute (D372).
    public static let startSpeed = 4

    public init(_ fleet: FleetFile) {
        self.fleet = fleet
        lanes = FleetRun(fleet).lanes.map(\.lane)
        seconds = Int(fleet.duration / 1000)
        speedIndex = FleetLiveModel.startSpeed
        outages = fleet.outages(with: [])
        counts.reserveCapacity(seconds)
        queued.reserveCapacity(seconds)
    }

    public var speed: Speed { Speed.all[speedIndex] }
    /// The virtual time reached (ms).
    public var now: Millis { Millis(second) * 1000 }
    public var ended: Bool { second >= seconds }
    /// How far the stepping is behind the clock (ms), 0 when it keeps up.
    public var lag: Millis { fastForward ? 0 : max(0, clock - now) }
    /// Whether a second is due: its end is on the clock (or fast-forwarding).
    public var canStep: Bool { !ended && !paused && (fastForward || clock >= now + 1000) }

    /// The loop's clock: `ms` of wall time passed since the last frame (at most
    /// `AppModel.maxWallStepMs` of it counts, as on the main screen). `stopped`:
    /// the process was stopped in between; none of it counts.
    public mutating func wallTimePassed(ms: Int64, stopped: Bool = false) {
        guard !paused, !stopped, !fastForward, !ended, ms > 0 else {
            wallCarry = 0
            return
        }
        wallCarry += min(ms, AppModel.maxWallStepMs) * speed.msPerSecond
        let whole = wallCarry / 1000
        wallCarry -= whole * 1000
        clock = min(fleet.duration, clock + whole)
    }

    /// Steps every lane through the next second, in the lanes' order, and adds up its counts.
    public mutating func stepSecond() {
        guard !ended else { return }
        var c = FleetResult.Second()
        for k in lanes.indices {
            lanes[k].runSecond(second)
            c = c + lanes[k].counts(second)
        }
        counts.append(c)
        totals = totals + c
        queued.append((queued.last ?? 0) + c.new - c.delivered - c.dropped)
        second += 1
        if fastForward || clock < now { clock = now }
        if ended { message = ("the end of the run: \(FleetLiveView.hms(fleet.duration)); q quits", false) }
    }

    /// Plays `action` on every device of every lane at the second not yet
    /// stepped, as a file's `at` line at that time plays it (D371).
    public mutating func play(_ action: Action) {
        guard !ended else {
            message = ("the run has ended: nothing more is played", true)
            return
        }
        for k in lanes.indices { lanes[k].play(action, atSecond: second) }
        played.append((now, action))
        outages = fleet.outages(with: played)
        message = ("at \(FleetLiveView.hms(now)) every device: " + ActionSyntax.text(for: action), false)
    }

    /// The outage the backend is in at the second not yet stepped, if any.
    public var outageNow: FleetFile.Outage? {
        outages.last { $0.from <= now && ($0.to.map { $0 > now } ?? true) }
    }

    /// What `o` plays now: the end of the outage in force (`server ok`, or
    /// `network online` after a `network offline`), or a new one (`server timeout always`).
    public var toggleAction: Action {
        guard let o = outageNow else { return .serverPlanned(.timeout, .always, for: .all) }
        return o.what == "network offline" ? .networkWentOnline : .serverPlanned(.ok, .always, for: .all)
    }

    /// The figures of the summary so far: the most attempts in one second since
    /// the last outage ended (the whole run before one ends), and when.
    public var peak: (second: Int, attempts: Int64) {
        let from = outages.last(where: { $0.to.map { $0 <= now } ?? false }).flatMap(\.to).map { Int($0 / 1000) } ?? 0
        var best = (second: from, attempts: Int64(0))
        if from < counts.count {
            for s in from..<counts.count where counts[s].attempts > best.attempts { best = (s, counts[s].attempts) }
        }
        return best
    }

    /// Requests dropped so far, by reason.
    public var dropped: [(reason: String, count: Int64)] {
        var by = [Int64](repeating: 0, count: DropReason.allCases.count)
        for l in lanes { for (k, n) in l.dropReasons.enumerated() { by[k] += n } }
        return DropReason.allCases.compactMap { r in by[Int(r.rawValue)] == 0 ? nil : (r.word, by[Int(r.rawValue)]) }
    }

    /// The lines played here, as a fleet file's `at` lines: appended to the
    /// file they give the same numbers.
    public var playedLines: [String] {
        played.map { "at \($0.time == 0 ? "0s" : VirtualTime.duration($0.time)) " + ActionSyntax.text(for: $0.action) }
    }

    // MARK: Keys

    /// Handles one key; returns what the loop must do, if anything.
    public mutating func handle(_ key: Key) -> FleetEffect? {
        if key == .resize { return nil }
        switch mode {
        case .help(let scroll):
            switch KeyMap.helpKey(key, scroll: scroll) {
            case .scroll(let to): mode = .help(to)
            case .quit: return .quit
            case .close: mode = .normal
            }
            return nil
        case .command(let text):
            commandKey(text, key)
            return nil
        case .normal: break
        }
        guard let action = FleetKeys.action(for: key) else {
            if case .char(let c) = key { message = ("no key `\(Character(c))` here; ? lists the keys", true) }
            return nil
        }
        message = nil
        switch action {
        case .help: mode = .help(0)
        case .quit: return .quit
        case .toggleBackend: play(toggleAction)
        case .commandLine: mode = .command("")
        case .pause:
            paused.toggle()
            wallCarry = 0
            if !paused { clock = max(clock, now) }
            message = (paused ? "paused" : "playing at " + speed.text(ascii: false), false)
        case .faster:
            if fastForward { fastForward = false }
            speedIndex = min(speedIndex + 1, Speed.all.count - 1)
            message = ("speed " + speed.text(ascii: false), false)
        case .slower:
            if fastForward { fastForward = false }
            speedIndex = max(speedIndex - 1, 0)
            message = ("speed " + speed.text(ascii: false), false)
        case .step:
            paused = true
            if !ended {
                clock = now + 1000
                stepSecond()
            }
        case .fastForward:
            fastForward.toggle()
            clock = now
            wallCarry = 0
            message = (fastForward ? "fast-forward" : "speed " + speed.text(ascii: false), false)
        }
        return nil
    }

    /// A key in the `:` line: typing, Backspace, Esc; Enter reads and plays it.
    mutating func commandKey(_ text: String, _ key: Key) {
        switch ServeModel.typing(text, key) {
        case nil: break
        case .editing(let t): mode = .command(t)
        case .cancelled: mode = .normal
        case .done(let line):
            mode = .normal
            switch FleetLiveModel.line(line, vocabulary: fleet.mix[0].profile.vocabulary) {
            case .success(let a): play(a)
            case .failure(let p): message = (":" + SafeText.escaped(line, max: 60) + ": " + p.message, true)
            }
        }
    }

    /// A `:` line: a `server` line as a scenario writes it, or `network offline|online`.
    public static func line(_ text: String, vocabulary: Vocabulary = .builtin) -> Result<Action, Problem> {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let expected = "expected `server ANSWER ...` (as a scenario's server line) or `network offline|online`"
        guard let verb = words.first else { return .failure(Problem("an empty line, " + expected)) }
        guard verb == "server" || verb == "network" else {
            return .failure(Problem("`\(SafeText.escaped(verb, max: 30))` is not played on a fleet here, " + expected))
        }
        switch ActionSyntax.parse(words, vocabulary: vocabulary) {
        case .success(let a)?:
            switch a {
            case .serverPlanned, .networkWentOnline, .networkWentOffline: return .success(a)
            default:
                return .failure(Problem("`\(ActionSyntax.text(for: a))` is not played on a fleet here, " + expected))
            }
        case .failure(let p)?: return .failure(p)
        case nil: return .failure(Problem(expected))
        }
    }
}
