/// Runs a fleet, or one shard of it (docs/fleet.md, "Shards"): the devices
/// whose number is `index` modulo `count`, sending to `count`'s share of the
/// backend's capacity. Its lanes run one after another, or side by side when
/// `parallel` runs them on threads: the result is the same either way, since
/// lanes share nothing.
public struct FleetRun {
    public let fleet: FleetFile
    public let shard: Shard
    /// The lanes, each in a box of its own so threads may run them side by side.
    public let lanes: [LaneBox]

    public struct Shard: Sendable, Equatable {
        public let index: Int
        public let count: Int
        public static let whole = Shard(index: 0, count: 1)
        public init(index: Int, count: Int) {
            self.index = index
            self.count = count
        }
        /// `I/N`, as `--shard` takes it.
        public var text: String { "\(index)/\(count)" }

        /// Reads `I/N` with 0 ≤ I < N ≤ 100,000.
        public static func parse(_ word: String) -> Result<Shard, Problem> {
            let parts = word.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, n <= 100_000, i >= 0, i < n
            else {
                return .failure(
                    Problem(
                        "bad shard `\(SafeText.escaped(word, max: 40))`, expected I/N with N from 1 to 100000 and I from 0 to N − 1 (e.g. 0/4)"
                    ))
            }
            return .success(Shard(index: i, count: n))
        }
    }

    public final class LaneBox: @unchecked Sendable {
        // One thread at a time: each lane is run by one thread, then read when all are done.
        public var lane: FleetLane
        init(_ lane: FleetLane) { self.lane = lane }
    }

    /// An even share of `total` for part `i` of `n`: the shares sum to `total`.
    static func share(_ total: Int, _ i: Int, _ n: Int) -> Int { total / n + (i < total % n ? 1 : 0) }

    /// Runs `body(0..<n)`: on threads, or in turn (the default).
    public typealias Parallel = (Int, @Sendable (Int) -> Void) -> Void
    public static func inTurn(_ n: Int, _ body: @Sendable (Int) -> Void) { for k in 0..<n { body(k) } }

    /// Builds the shard's lanes, side by side when `parallel` runs them on
    /// threads (a million devices take seconds to make); `record` is a device
    /// whose life `--device` writes.
    public init(_ fleet: FleetFile, shard: Shard = .whole, record: Int? = nil, parallel: Parallel = FleetRun.inTurn) {
        self.fleet = fleet
        self.shard = shard
        let members = Array(stride(from: shard.index, to: fleet.devices, by: shard.count))
        let capacity = fleet.capacity.map { FleetRun.share($0, shard.index, shard.count) }
        // No lane without devices, nor with no capacity of its own.
        var count = min(fleet.lanes, max(1, members.count))
        if let capacity { count = min(count, max(1, capacity)) }
        var parts = [[Int]](repeating: [], count: count)
        for (k, d) in members.enumerated() { parts[k % count].append(d) }
        let made = Made(count)
        let lanesParts = parts, lanesCount = count
        parallel(count) { j in
            let ds = lanesParts[j]
            (made.lanes + j).initialize(
                to: FleetLane(
                    fleet: fleet, members: ds, capacity: capacity.map { FleetRun.share($0, j, lanesCount) },
                    record: record.flatMap { ds.contains($0) ? $0 : nil }))
        }
        lanes = (0..<count).map { LaneBox((made.lanes + $0).move()) }
    }

    /// Lanes made side by side, each by one thread into its own slot, then moved out.
    private final class Made: @unchecked Sendable {
        let lanes: UnsafeMutablePointer<FleetLane>
        init(_ n: Int) { lanes = .allocate(capacity: n) }
        deinit { lanes.deallocate() }
    }

    /// Runs every lane: `parallel(n, body)` calls `body(0..<n)`, on threads or in turn.
    public func run(parallel: Parallel = FleetRun.inTurn) -> FleetResult {
        let boxes = lanes
        parallel(boxes.count) { k in boxes[k].lane.run() }
        var total = FleetResult(seconds: Int(fleet.duration / 1000))
        for b in boxes { total.add(b.lane.result) }
        return total
    }

    /// The lane that holds the recorded device, after `run`.
    public var recordedLane: FleetLane? { lanes.first { $0.lane.recordIndex >= 0 }?.lane }
}
