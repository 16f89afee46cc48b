/// One thing the SDK sends.
///
/// Kept small and flat: the model holds up to millions of them. Strings live in
/// the simulation's name table; attributes and revenue in side tables. Fields go
/// 8-byte, 4-byte, 2-byte, 1-byte so nothing pads: 64 bytes a request, one cache
/// line (docs/performance.md; a test holds it there).
public struct Request: Sendable, BitwiseCopyable {
    public let createdAt: Millis
    /// With idempotency keys (`keys rule R`, LinkTrail's LT-7): the key, fixed at creation. 0 means none.
    public let idempotencyKey: UInt64
    /// When the next attempt is due (retrying), or -1.
    public internal(set) var nextAttemptAt: Millis = -1

    public let id: Int32
    public let nameID: Int32
    /// Every attempt over the request's whole life, across launches.
    public internal(set) var attempts: Int32 = 0
    /// Attempts counted against the retry budget in this run (a launch's resend may reset it: iOS, IOS-6).
    public internal(set) var budgetUsed: Int32 = 0
    // Attempt bookkeeping. `generation` changes whenever an attempt or timer is
    // cancelled, so stale timers are recognised in O(1) when they fire.
    var generation: UInt32 = 0
    /// Index of the request's last transition in the journal, or -1.
    var lastTransition: Int32 = -1
    /// Position in the live-set of its state, for O(1) removal.
    var slot: Int32 = -1

    /// The answer planned for the attempt on the wire, coded (see `plannedAnswer`).
    private var answerCode: Int16 = 0
    /// What the last attempt's answer was.
    public internal(set) var lastOutcome: Outcome = .none

    public let kind: RequestKind
    public internal(set) var state: RequestState
    public internal(set) var reason: DropReason?
    /// The completion handler's result (`report completion`).
    public internal(set) var completion: Completion = .none
    /// The rule behind the last transition.
    public internal(set) var rule: RuleID
    private var flags: UInt8

    init(
        id: Int32, kind: RequestKind, nameID: Int32, createdAt: Millis, idempotencyKey: UInt64, hasValue: Bool,
        hasAttributes: Bool = false
    ) {
        self.createdAt = createdAt
        self.idempotencyKey = idempotencyKey
        self.id = id
        self.nameID = nameID
        self.kind = kind
        self.state = .pending
        self.reason = nil
        self.rule = .order
        self.flags = (hasValue ? Flag.hasValue : 0) | (hasAttributes ? Flag.hasAttributes : 0)
    }

    private enum Flag {
        static let saved: UInt8 = 1
        static let completionLost: UInt8 = 2
        static let restored: UInt8 = 4
        static let inFlush: UInt8 = 8
        static let hasValue: UInt8 = 16
        static let hasAttributes: UInt8 = 32
        static let keyCounted: UInt8 = 64
        static let outlastsTimeout: UInt8 = 128
    }

    @inline(__always)
    private func flag(_ f: UInt8) -> Bool { flags & f != 0 }
    @inline(__always)
    private mutating func set(_ f: UInt8, _ on: Bool) { flags = on ? flags | f : flags & ~f }

    /// Stored on the device.
    public internal(set) var saved: Bool {
        get { flag(Flag.saved) }
        set { set(Flag.saved, newValue) }
    }
    /// Its completion handler can no longer be called: it survived a quit (IOS-6).
    public internal(set) var completionLost: Bool {
        get { flag(Flag.completionLost) }
        set { set(Flag.completionLost, newValue) }
    }
    /// Came back from the device store at a launch of a later process; `createdAt`
    /// is on that earlier run's clock.
    public internal(set) var restored: Bool {
        get { flag(Flag.restored) }
        set { set(Flag.restored, newValue) }
    }
    /// The attempt on the wire was sent by a flush (`component flush`; LinkTrail's LT-8, LT-11).
    public internal(set) var inFlush: Bool {
        get { flag(Flag.inFlush) }
        set { set(Flag.inFlush, newValue) }
    }
    /// It carries revenue (`Simulation.value(of:)`).
    public var hasValue: Bool { flag(Flag.hasValue) }
    /// The backend counted it: under its idempotency key (LT-7), or, without
    /// one, at least once before (`Backend.receive`, `recounted`).
    public internal(set) var keyCounted: Bool {
        get { flag(Flag.keyCounted) }
        set { set(Flag.keyCounted, newValue) }
    }
    /// The attempt on the wire takes longer than the timeout (TMO), fixed when
    /// it was sent from its own latency (LATJITTER).
    var outlastsTimeout: Bool {
        get { flag(Flag.outlastsTimeout) }
        set { set(Flag.outlastsTimeout, newValue) }
    }
    /// It carries attributes (`Simulation.attributes`).
    public var hasAttributes: Bool { flag(Flag.hasAttributes) }

    /// The answer planned for the attempt on the wire, without its Retry-After
    /// header (never `.retryAfter`: the header is kept beside, Policy/RetryAfter.swift).
    var plannedAnswer: Answer {
        get {
            switch answerCode {
            case 0: return .ok
            case -1: return .timeout
            case -2: return .lost
            case -3: return .partial
            case -4: return .reset
            default: return .status(Int(answerCode))
            }
        }
        set {
            switch newValue {
            case .ok: answerCode = 0
            case .timeout: answerCode = -1
            case .lost: answerCode = -2
            case .partial: answerCode = -3
            case .reset: answerCode = -4
            case .status(let s): answerCode = Int16(clamping: max(1, s))  // ANS: 100-599
            // The header is kept beside the request (`Simulation.retryAfters`, Policy/RetryAfter.swift).
            case .retryAfter(let s, _): answerCode = Int16(clamping: max(1, s))
            }
        }
    }

    public var isLive: Bool { !state.isFinal }
}

/// What an event with a value carries (LT-13): kept beside the requests, as few have it.
public struct Revenue: Equatable, Sendable {
    public var amount: Amount
    public var currencyID: Int32
}

/// A timer: something due at a moment of virtual time.
struct DueTimer {
    enum Kind: UInt8 {
        /// The attempt reaches the backend (LAT).
        case reach
        /// The attempt's answer arrives or it times out (LAT, TMO).
        case answer
        /// A backoff wait is over (BACKOFF).
        case retry
        /// The background time is up for the attempt on the wire (Lifecycle.swift).
        case cancel
        /// A batch's attempt reaches the backend, its answer arrives, its backoff
        /// ends (Policy/Batching.swift): `request` is then the batch's number and
        /// `generation` the batch's.
        case batchReach, batchAnswer, batchRetry
    }

    var time: Millis
    var seq: UInt64
    var kind: Kind
    var request: Int32
    var generation: UInt32

    @inline(__always)
    static func before(_ a: DueTimer, _ b: DueTimer) -> Bool {
        a.time < b.time || (a.time == b.time && a.seq < b.seq)
    }
}

/// A 4-ary min-heap of timers ordered by (time, order set): half the levels of a
/// binary heap and children side by side in memory. It holds the timers beyond
/// the timing wheel's window (`TimerQueue`).
struct TimerHeap {
    private(set) var items: [DueTimer] = []

    var count: Int { items.count }
    var isEmpty: Bool { items.isEmpty }
    var first: DueTimer? { items.first }

    mutating func push(_ t: DueTimer) {
        items.append(t)
        // Through the buffer: one uniqueness check for the whole sift, not one per write.
        items.withUnsafeMutableBufferPointer { h in
            var child = h.count - 1
            while child > 0 {
                let parent = (child - 1) >> 2
                if !DueTimer.before(t, h[parent]) { break }
                h[child] = h[parent]
                child = parent
            }
            h[child] = t
        }
    }

    mutating func pop() -> DueTimer? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if items.isEmpty { return top }
        items.withUnsafeMutableBufferPointer { h in
            let n = h.count
            var i = 0
            while true {
                let first = 4 * i + 1
                if first >= n { break }
                var c = first
                let end = min(first + 4, n)
                var k = first + 1
                while k < end {
                    if DueTimer.before(h[k], h[c]) { c = k }
                    k += 1
                }
                if !DueTimer.before(h[c], last) { break }
                h[i] = h[c]
                i = c
            }
            h[i] = last
        }
        return top
    }
}

/// A min-heap of request ids: "oldest first" (ids grow with creation time).
struct IDHeap {
    private(set) var items: [Int32] = []
    var isEmpty: Bool { items.isEmpty }
    /// Empties the heap, keeping its memory.
    mutating func removeAll() { items.removeAll(keepingCapacity: true) }
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
