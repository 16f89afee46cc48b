/// One thing the SDK sends.
///
/// Kept small and flat: the model holds up to millions of them. Strings live in
/// the simulation's name table; attributes in a side table.
public struct Request: Sendable {
    public let id: Int32
    public let kind: RequestKind
    public let nameID: Int32
    public let createdAt: Millis
    /// LinkTrail only (LT-7): the idempotency key, fixed at creation. 0 means none.
    public let idempotencyKey: UInt64
    public let value: Amount?
    public let currencyID: Int32

    public internal(set) var state: RequestState
    public internal(set) var reason: DropReason?
    /// Every attempt over the request's whole life, across launches.
    public internal(set) var attempts: Int32 = 0
    /// Attempts counted against the retry budget in this run (iOS resets it at launch, IOS-6).
    public internal(set) var budgetUsed: Int32 = 0
    /// When the next attempt is due (retrying), or -1.
    public internal(set) var nextAttemptAt: Millis = -1
    /// What the last attempt's answer was.
    public internal(set) var lastOutcome: Outcome = .none
    /// Stored on the device.
    public internal(set) var saved = false
    /// The completion handler's result (iOS).
    public internal(set) var completion: Completion = .none
    /// Its completion handler can no longer be called: it survived a quit (IOS-6).
    public internal(set) var completionLost = false
    /// Came back from the device store at a launch of a later process; `createdAt`
    /// is on that earlier run's clock.
    public internal(set) var restored = false
    /// The attempt on the wire was sent by a LinkTrail flush (LT-8, LT-11).
    public internal(set) var inFlush = false
    /// The rule behind the last transition.
    public internal(set) var rule: RuleID

    // Attempt bookkeeping. `generation` changes whenever an attempt or timer is
    // cancelled, so stale timers are recognised in O(1) when they fire.
    var generation: UInt32 = 0
    var plannedAnswer: Answer = .ok
    /// Index of the request's last transition in the journal, or -1.
    var lastTransition: Int32 = -1
    /// Position in the live-set of its state, for O(1) removal.
    var slot: Int32 = -1

    public var isLive: Bool { !state.isFinal }
}

/// A timer: something due at a moment of virtual time.
struct Timer {
    enum Kind: UInt8 {
        /// The attempt reaches the backend (LAT).
        case reach
        /// The attempt's answer arrives or it times out (LAT, TMO).
        case answer
        /// A backoff wait is over (BACKOFF).
        case retry
    }

    var time: Millis
    var seq: UInt64
    var kind: Kind
    var request: Int32
    var generation: UInt32

    @inline(__always)
    static func before(_ a: Timer, _ b: Timer) -> Bool {
        a.time < b.time || (a.time == b.time && a.seq < b.seq)
    }
}

/// A 4-ary min-heap of timers ordered by (time, order set): half the levels of a
/// binary heap and children side by side in memory, so a pop touches fewer cache
/// lines (docs/performance.md).
struct TimerHeap {
    private(set) var items: [Timer] = []

    var count: Int { items.count }
    var isEmpty: Bool { items.isEmpty }
    var first: Timer? { items.first }

    mutating func push(_ t: Timer) {
        items.append(t)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) >> 2
            if !Timer.before(t, items[parent]) { break }
            items[child] = items[parent]
            child = parent
        }
        items[child] = t
    }

    mutating func pop() -> Timer? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if items.isEmpty { return top }
        let n = items.count
        var i = 0
        while true {
            let first = 4 * i + 1
            if first >= n { break }
            var c = first
            let end = min(first + 4, n)
            var k = first + 1
            while k < end {
                if Timer.before(items[k], items[c]) { c = k }
                k += 1
            }
            if !Timer.before(items[c], last) { break }
            items[i] = items[c]
            i = c
        }
        items[i] = last
        return top
    }
}

/// A min-heap of request ids: "oldest first" (ids grow with creation time).
struct IDHeap {
    private(set) var items: [Int32] = []
    var isEmpty: Bool { items.isEmpty }
    var first: Int32? { items.first }

    mutating func push(_ v: Int32) {
        items.append(v)
        var c = items.count - 1
        while c > 0 {
            let p = (c - 1) / 2
            if items[p] <= v { break }
            items[c] = items[p]
            c = p
        }
        items[c] = v
    }

    mutating func pop() -> Int32? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if items.isEmpty { return top }
        let n = items.count
        var i = 0
        while true {
            let l = 2 * i + 1
            if l >= n { break }
            var c = l
            if l + 1 < n && items[l + 1] < items[l] { c = l + 1 }
            if items[c] >= last { break }
            items[i] = items[c]
            i = c
        }
        items[i] = last
        return top
    }
}
