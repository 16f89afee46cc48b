/// What a fleet did, second by second, and in all (docs/fleet.md, "Reports").
/// Everything in it adds up: lanes, shards and merged files sum to the whole.
public struct FleetResult: Sendable, Equatable {
    public var seconds: Int
    public var devices = 0
    /// Per second: attempts sent (each batch one), requests made, delivered,
    /// attempts answered over capacity, attempts failed otherwise, requests dropped.
    public var attempts: [Int64]
    public var new: [Int64]
    public var delivered: [Int64]
    public var over: [Int64]
    public var failed: [Int64]
    public var dropped: [Int64]
    /// Dropped requests by `DropReason.rawValue`.
    public var dropReasons: [Int64]
    /// Delivery delays (made to delivered), a histogram: `delayBucket`.
    public var delays: [Int64]
    /// Requests the backend counted twice (a duplicate key, or counted again without one).
    public var duplicates: Int64 = 0
    /// Requests still live on the devices at the end.
    public var live: Int64 = 0

    /// One second's counts (`--live` adds them up as the seconds run).
    public struct Second: Sendable, Equatable {
        public var attempts: Int64 = 0, new: Int64 = 0, delivered: Int64 = 0, over: Int64 = 0, failed: Int64 = 0,
            dropped: Int64 = 0
        public init(
            attempts: Int64 = 0, new: Int64 = 0, delivered: Int64 = 0, over: Int64 = 0, failed: Int64 = 0,
            dropped: Int64 = 0
        ) {
            self.attempts = attempts
            self.new = new
            self.delivered = delivered
            self.over = over
            self.failed = failed
            self.dropped = dropped
        }
        public static func + (a: Second, b: Second) -> Second {
            Second(
                attempts: a.attempts + b.attempts, new: a.new + b.new, delivered: a.delivered + b.delivered,
                over: a.over + b.over, failed: a.failed + b.failed, dropped: a.dropped + b.dropped)
        }
    }

    /// Second `s`'s counts.
    public func second(_ s: Int) -> Second {
        Second(
            attempts: attempts[s], new: new[s], delivered: delivered[s], over: over[s], failed: failed[s],
            dropped: dropped[s])
    }

    public init(seconds: Int) {
        self.seconds = seconds
        attempts = [Int64](repeating: 0, count: seconds)
        new = attempts
        delivered = attempts
        over = attempts
        failed = attempts
        dropped = attempts
        dropReasons = [Int64](repeating: 0, count: DropReason.allCases.count)
        delays = [Int64](repeating: 0, count: FleetResult.delayBuckets)
    }

    /// Requests waiting on the devices at the end of each second (made and not yet delivered or dropped).
    public var queued: [Int64] {
        var out = [Int64](repeating: 0, count: seconds)
        var level: Int64 = 0
        for s in 0..<seconds {
            level += new[s] - delivered[s] - dropped[s]
            out[s] = level
        }
        return out
    }

    /// Adds another part of the same fleet (a lane, a shard).
    public mutating func add(_ o: FleetResult) {
        precondition(o.seconds == seconds)
        devices += o.devices
        for s in 0..<seconds {
            attempts[s] += o.attempts[s]
            new[s] += o.new[s]
            delivered[s] += o.delivered[s]
            over[s] += o.over[s]
            failed[s] += o.failed[s]
            dropped[s] += o.dropped[s]
        }
        for k in dropReasons.indices { dropReasons[k] += o.dropReasons[k] }
        for k in delays.indices { delays[k] += o.delays[k] }
        duplicates += o.duplicates
        live += o.live
    }

    // MARK: Delays

    /// Buckets of 10 ms below 1 s, then 16 to each power of two (6% wide) up to 2^40 ms.
    static let delayBuckets = 100 + 31 * 16

    static func delayBucket(_ d: Millis) -> Int {
        if d < 1000 { return d < 0 ? 0 : Int(d / 10) }
        let e = 63 - d.leadingZeroBitCount  // 9 or more
        guard e < 40 else { return delayBuckets - 1 }
        let sub = Int((d >> (e - 4)) & 15)
        return 100 + (e - 9) * 16 + sub
    }

    /// The smallest delay of bucket `b`.
    static func delayFloor(_ b: Int) -> Millis {
        if b < 100 { return Millis(b) * 10 }
        let e = (b - 100) / 16 + 9, sub = (b - 100) % 16
        return max(1000, Millis(16 + sub) << (e - 4))
    }

    mutating func addDelay(_ d: Millis) { delays[FleetResult.delayBucket(d)] += 1 }

    /// The delay below which a share `q` (0 to 1) of deliveries came, as the floor of its bucket; nil with none.
    public func delayQuantile(_ q: Double) -> Millis? {
        let total = delays.reduce(0, +)
        guard total > 0 else { return nil }
        let rank = max(1, Int64((Double(total) * q).rounded(.up)))
        var seen: Int64 = 0
        for (b, n) in delays.enumerated() {
            seen += n
            if seen >= rank { return FleetResult.delayFloor(b) }
        }
        return nil
    }
}

/// The figures a fleet's summary gives, worked out from a `FleetResult` and the
/// file's outages (docs/fleet.md, "The summary").
public struct FleetSummary: Sendable, Equatable {
    public var devices: Int
    public var events: Int64
    public var attempts: Int64
    /// Attempts per request made.
    public var amplification: Double
    public var delivered: Int64
    public var dropped: [(reason: String, count: Int64)]
    public var duplicates: Int64
    /// Still waiting at the end.
    public var queuedAtEnd: Int64
    public var over: Int64
    public var failed: Int64
    /// The most attempts in one second after the last outage ended (the whole run without an outage), and when.
    public var peak: (second: Int, attempts: Int64)
    /// When the last outage ended, or nil without one.
    public var recovery: Millis?
    /// How long after the recovery the backlog was back to where it was before the outage began (the most
    /// it held in the minute before); nil if never.
    public var drain: Millis?
    public var delayP50: Millis?
    public var delayP99: Millis?

    public static func == (a: FleetSummary, b: FleetSummary) -> Bool {
        a.devices == b.devices && a.events == b.events && a.attempts == b.attempts && a.delivered == b.delivered
            && a.dropped.map(\.reason) == b.dropped.map(\.reason) && a.dropped.map(\.count) == b.dropped.map(\.count)
            && a.duplicates == b.duplicates && a.queuedAtEnd == b.queuedAtEnd && a.over == b.over
            && a.failed == b.failed && a.peak == b.peak && a.recovery == b.recovery && a.drain == b.drain
            && a.delayP50 == b.delayP50 && a.delayP99 == b.delayP99 && a.amplification == b.amplification
    }

    public init(_ r: FleetResult, outages: [FleetFile.Outage]) {
        devices = r.devices
        events = r.new.reduce(0, +)
        attempts = r.attempts.reduce(0, +)
        amplification = events == 0 ? 0 : Double(attempts) / Double(events)
        delivered = r.delivered.reduce(0, +)
        dropped = DropReason.allCases.compactMap { reason in
            let n = r.dropReasons[Int(reason.rawValue)]
            return n == 0 ? nil : (reason.word, n)
        }
        duplicates = r.duplicates
        let queued = r.queued
        queuedAtEnd = queued.last ?? 0
        over = r.over.reduce(0, +)
        failed = r.failed.reduce(0, +)
        let last = outages.last
        recovery = last?.to
        let from = recovery.map { Int($0 / 1000) } ?? 0
        var best = (second: from, attempts: Int64(0))
        if from < r.seconds {
            for s in from..<r.seconds where r.attempts[s] > best.attempts { best = (s, r.attempts[s]) }
        }
        peak = best
        drain = nil
        if let last, let to = last.to {
            // The backlog's normal level: the most it held in the minute before
            // the outage began (requests in flight make it wobble second to
            // second, so its level in the one second before is chance; D365).
            let began = Int(last.from / 1000)
            let baseline = began > 0 ? queued[max(0, began - 60)..<min(began, r.seconds)].max() ?? 0 : 0
            let start = Int(to / 1000)
            if start < r.seconds, let s = (start..<r.seconds).first(where: { queued[$0] <= baseline }) {
                drain = Millis(s + 1) * 1000 - to
            }
        }
        delayP50 = r.delayQuantile(0.5)
        delayP99 = r.delayQuantile(0.99)
    }
}

extension FleetResult {
    /// The delay histogram's buckets that hold deliveries: each bucket's
    /// smallest delay and its count (what a JSONL report writes).
    public var delayCounts: [(floor: Millis, count: Int64)] {
        delays.enumerated().compactMap { b, n in n == 0 ? nil : (FleetResult.delayFloor(b), n) }
    }

    /// Adds `count` deliveries to the bucket whose smallest delay is `floor` (a report read back).
    public mutating func addDelays(floor: Millis, count: Int64) { delays[FleetResult.delayBucket(floor)] += count }
}
