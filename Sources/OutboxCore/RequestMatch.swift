/// The requests of several runs of one story (one per profile), matched into rows
/// (issue 11: `outbox compare` and the live `--compare`).
///
/// A request matches the requests of the other runs that have the same name and
/// the same place among that name's requests: the second `purchase` of iOS is the
/// second `purchase` of Android. Rows are in creation order: a row comes where the
/// first of its requests was created (ties: the run listed first, then its id).
/// A run that made no such request has `nil` in that row (LinkTrail's `install`,
/// a `ping` only some profiles have).
public struct RequestMatch: Sendable {
    public struct Row: Equatable, Sendable {
        public let name: String
        /// 1 for the first request of this name in each run, 2 for the second, ...
        public let occurrence: Int
        /// One per run, in the runs' order.
        public internal(set) var ids: [Int32?]
    }

    public private(set) var rows: [Row] = []
    /// Requests of each run already placed in a row.
    private var seen: [Int]
    /// Per run, how many requests of each name it has made so far.
    private var occurrences: [[String: Int]]
    private var rowIndex: [Key: Int] = [:]
    /// Per run, the row of each request (by id - 1).
    private var rowOf: [[Int32]]

    private struct Key: Hashable {
        let name: String
        let occurrence: Int
    }

    public init(runs: Int) {
        seen = Array(repeating: 0, count: runs)
        occurrences = Array(repeating: [:], count: runs)
        rowOf = Array(repeating: [], count: runs)
    }

    /// Matches the runs' requests (all of them, at once).
    public init(_ sims: [Simulation]) {
        self.init(runs: sims.count)
        update(sims)
    }

    /// Places the requests made since the last update. Incremental: the live
    /// screen calls it once per frame, and only new requests cost anything.
    public mutating func update(_ sims: [Simulation]) {
        precondition(sims.count == seen.count, "one simulation per run")
        var fresh: [(createdAt: Millis, run: Int, id: Int32)] = []
        for (run, sim) in sims.enumerated() where sim.requests.count > seen[run] {
            for i in seen[run]..<sim.requests.count {
                let r = sim.requests[i]
                fresh.append((r.createdAt, run, r.id))
            }
            seen[run] = sim.requests.count
            rowOf[run].append(contentsOf: repeatElement(-1, count: seen[run] - rowOf[run].count))
        }
        guard !fresh.isEmpty else { return }
        fresh.sort { ($0.createdAt, $0.run, $0.id) < ($1.createdAt, $1.run, $1.id) }
        for f in fresh {
            let name = sims[f.run].name(of: f.id)
            let k = (occurrences[f.run][name] ?? 0) + 1
            occurrences[f.run][name] = k
            let key = Key(name: name, occurrence: k)
            if let row = rowIndex[key] {
                rows[row].ids[f.run] = f.id
                rowOf[f.run][Int(f.id) - 1] = Int32(row)
            } else {
                rowOf[f.run][Int(f.id) - 1] = Int32(rows.count)
                var ids = [Int32?](repeating: nil, count: seen.count)
                ids[f.run] = f.id
                rowIndex[key] = rows.count
                rows.append(Row(name: name, occurrence: k, ids: ids))
            }
        }
    }

    /// The row holding request `id` of run `run`, or nil.
    public func row(ofRun run: Int, id: Int32) -> Int? {
        guard run >= 0, run < rowOf.count, id >= 1, Int(id) <= rowOf[run].count else { return nil }
        let row = rowOf[run][Int(id) - 1]
        return row < 0 ? nil : Int(row)
    }
}
