/// One lane of a fleet's backend (docs/fleet.md, "Lanes"): it serves at most
/// `capacity` attempts a second and answers the rest `over` (503 unless the
/// `capacity` line says otherwise), counting every attempt by the second it
/// was sent in. The devices of a lane share it; a lane runs on one thread.
///
/// An attempt planned `timeout` never reaches the backend (TMO): it uses no
/// capacity and is counted failed. Every other attempt reaches it, first come
/// first served within the second, in the order the lane steps its devices.
public final class FleetGate {
    public let capacity: Int
    public let over: Answer
    /// Per second of the run: attempts sent, answered over capacity, failed otherwise.
    public internal(set) var attempts: [Int32]
    public internal(set) var overs: [Int32]
    public internal(set) var failed: [Int32]
    private var second = -1, used = 0
    /// Whether to keep the over-capacity answers of the device being stepped (`--device N`).
    var recording = false
    var recorded: [(send: Int32, answer: Answer)] = []

    public init(capacity: Int?, over: Answer, seconds: Int) {
        self.capacity = capacity ?? Int.max
        self.over = over
        attempts = [Int32](repeating: 0, count: seconds)
        overs = attempts
        failed = attempts
    }

    /// The answer the backend gives the device's `send`-th send, sent at `now`
    /// and planned `planned` by the device's own plans.
    func admit(_ planned: Answer, send: Int32, at now: Millis) -> Answer {
        let s = Int(now / 1000)
        guard s < attempts.count else { return planned }
        attempts[s] &+= 1
        if case .timeout = planned {
            failed[s] &+= 1
            return planned
        }
        if s != second {
            second = s
            used = 0
        }
        guard used < capacity else {
            overs[s] &+= 1
            if recording { recorded.append((send, over)) }
            return over
        }
        used += 1
        if !planned.isSuccessAnswer { failed[s] &+= 1 }
        return planned
    }
}
