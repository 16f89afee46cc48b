/// Pinning a simulation's state as checks: what the live screen's `E` writes
/// to a recording, so that a session explored by hand becomes a test.
extension Simulation {
    /// Checks that hold now, and that `outbox run` finds holding at this instant
    /// when it replays the actions that led here: per request name (in the
    /// order of each name's first request), its state or drop reason and its
    /// attempts, then what the backend received and counted of it, and its
    /// completion where the profile reports one and every request agrees; then
    /// the revenue counted in each currency and how many requests are saved on
    /// the device.
    ///
    /// When every request of a name agrees, one check of the contract's (they
    /// hold for every request of the name): `state NAME STATE`, `dropped NAME
    /// REASON`, `attempts NAME N`. When they differ, one `request ID` check
    /// each (an extension).
    public func pinnedChecks() -> [Check] {
        var order: [Int32] = []
        var seen = Set<Int32>()
        for r in requests where seen.insert(r.nameID).inserted { order.append(r.nameID) }
        var out: [Check] = []
        for nameID in order {
            let name = nameTable[nameID]
            let ids = requests(named: name)
            let all = ids.map { request($0) }
            func stateCheck(_ r: Request) -> Check {
                guard r.state == .dropped, let reason = r.reason else { return .state(name, r.state) }
                return .dropped(name, reason)
            }
            func requestStateCheck(_ r: Request) -> Check {
                guard r.state == .dropped, let reason = r.reason else { return .requestState(r.id, r.state) }
                return .requestDropped(r.id, reason)
            }
            if all.allSatisfy({ $0.state == all[0].state && $0.reason == all[0].reason }) {
                out.append(stateCheck(all[0]))
            } else {
                out += all.map(requestStateCheck)
            }
            if all.allSatisfy({ $0.attempts == all[0].attempts }) {
                out.append(.attempts(name, Int(all[0].attempts)))
            } else {
                out += all.map { .requestAttempts($0.id, Int($0.attempts)) }
            }
            out.append(.received(name, backend.received(nameID: nameID)))
            out.append(.counted(name, backend.counted(nameID: nameID)))
            // The completion handler (a profile that reports one): when every
            // request of the name got the same result; no per-request form exists.
            if profile.hasCompletions, all.allSatisfy({ $0.completion == all[0].completion }) {
                out.append(.completion(name, all[0].completion))
            }
        }
        // Revenue counted by the backend, by currency name (LT-13).
        let revenue = backend.revenue.filter { $0.key != 0 }.map { (nameTable[$0.key], $0.value) }
        for (currency, sum) in revenue.sorted(by: { $0.0 < $1.0 }) { out.append(.revenue(currency, sum)) }
        out.append(.saved(savedCount))
        return out
    }
}

/// The words of a check: what `Scenario.parse` reads back to the same check
/// after `expect at <time>`.
public enum CheckSyntax {
    public static func text(for check: Check) -> String {
        func q(_ s: String) -> String { ActionSyntax.word(s) }
        switch check {
        case .state(let n, let s): return "state \(q(n)) \(s.word)"
        case .dropped(let n, let r): return "dropped \(q(n)) \(r.word)"
        case .attempts(let n, let k): return "attempts \(q(n)) \(k)"
        case .saved(let k): return "saved \(k)"
        case .received(let n, let k): return "received \(q(n)) \(k)"
        case .counted(let n, let k): return "counted \(q(n)) \(k)"
        case .log(let t): return "log \(q(t))"
        case .completion(let n, let c): return "completion \(q(n)) \(c.word)"
        case .revenue(let cur, let a): return "revenue \(q(cur)) \(a.text)"
        case .requestState(let id, let s): return "request \(id) \(s.word)"
        case .requestDropped(let id, let r): return "request \(id) dropped \(r.word)"
        case .requestAttempts(let id, let k): return "request \(id) attempts \(k)"
        }
    }
}
