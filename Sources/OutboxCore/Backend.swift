/// The simulated backend: what reached it and what it counted (BACKEND).
public struct Backend: Sendable {
    public private(set) var received = 0
    public private(set) var counted = 0
    public private(set) var duplicates = 0
    /// Requests without an idempotency key counted again: an answer was lost and
    /// the retry counted twice (what a fleet reports as delivered twice).
    public private(set) var recounted = 0
    /// Answered with a status other than 2xx.
    public private(set) var rejected = 0
    /// Batches that reached it (Policy/Batching.swift); each of their requests is also `received`.
    public private(set) var batches = 0
    /// Revenue of counted events, by currency id (LT-13). Index 0 is "no currency".
    public private(set) var revenue: [Int32: AmountSum] = [:]
    /// Per request name id (an array: the name table is small and dense).
    public private(set) var receivedByName: [Int] = []
    public private(set) var countedByName: [Int] = []

    public func received(nameID n: Int32) -> Int { Int(n) < receivedByName.count ? receivedByName[Int(n)] : 0 }
    public func counted(nameID n: Int32) -> Int { Int(n) < countedByName.count ? countedByName[Int(n)] : 0 }

    public enum Verdict { case counted, duplicate, notCounted }

    /// A batch arrived (its requests are received one by one).
    mutating func countBatch() { batches += 1 }

    /// Records one request arriving with the answer the backend gives it.
    ///
    /// LT-7: a request whose idempotency key was counted before is a duplicate.
    /// A key belongs to one request (drawn from the seed and the device's open
    /// count, kept by a saved request), so the backend's memory of counted keys
    /// is a bit on each request, `Request.keyCounted`, rather than a set of
    /// millions of keys (docs/performance.md).
    mutating func receive(_ r: Request, answer: Answer, revenue value: Revenue?) -> Verdict {
        received += 1
        let n = Int(r.nameID)
        if n >= receivedByName.count {
            receivedByName += [Int](repeating: 0, count: n + 1 - receivedByName.count)
            countedByName += [Int](repeating: 0, count: n + 1 - countedByName.count)
        }
        receivedByName[n] += 1
        let accepted: Bool
        switch answer {
        case .ok, .partial, .lost, .reset: accepted = true
        case .status(let s), .retryAfter(let s, _): accepted = (200...299).contains(s)
        case .timeout: accepted = false  // never reaches; kept for completeness
        }
        guard accepted else {
            rejected += 1
            return .notCounted
        }
        if r.idempotencyKey != 0 && r.keyCounted {
            duplicates += 1
            return .duplicate
        }
        if r.keyCounted { recounted += 1 }
        counted += 1
        countedByName[n] += 1
        if let v = value {
            revenue[v.currencyID, default: AmountSum()].add(v.amount)
        }
        return .counted
    }
}
