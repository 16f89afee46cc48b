/// The model's timers, ordered by (time, order set) — rule ORDER.
///
/// A timing wheel: one slot per millisecond for the next `span` milliseconds,
/// each slot a first-in first-out list through one flat pool of nodes, and a
/// heap for timers further out. Pushing links a node at its slot's end and
/// popping unlinks the head of the earliest occupied slot, found through a
/// bitmap, so neither depends on how many timers are waiting
/// (docs/performance.md).
///
/// Why slots keep the order: every timer gets a larger order number than any
/// before it, so appending keeps a slot sorted; a slot only ever holds timers of
/// one instant (the wheel covers `[floor, floor + span)`); and a timer moves from
/// the heap into its slot when the window first reaches its instant, before any
/// timer can be pushed there directly, and in (time, order) order.
///
/// The one thing a caller must keep: nothing is pushed before `floor`, which only
/// moves forward, to a time the caller has reached (`pop(through:)`).
///
/// The wheel costs 130 KB, a lot for a device that holds a few timers (a
/// fleet has a million devices): until more than `smallLimit` timers wait at
/// once, they all sit in the heap, which orders them the same way (time, order
/// set); the wheel is made when the heap first outgrows that, taking the
/// timers its window covers (docs/performance.md, "Fleets").
struct TimerQueue {
    static let bits = 14
    static let span = 1 << bits
    static let mask = span - 1
    static let words = span / 64
    /// The most timers the heap alone holds before the wheel is made.
    static let smallLimit = 64

    /// A timer in the wheel and the next one in its slot (-1 ends the slot).
    /// The timer leaves four bytes of padding: the link fits in them.
    struct Node {
        var timer: DueTimer
        var next: Int32
    }

    /// The wheel's memory, shared by copies of the queue until one of them
    /// changes (copy-on-write, checked once per change rather than once per
    /// array touched: a push or a pop touched three arrays, and the runtime's
    /// uniqueness check on each was a visible share of a long run).
    final class Wheel: @unchecked Sendable {
        /// Every wheel timer, in one flat pool; freed nodes are reused (`freeList`).
        /// Set by each `init`, not by a default value: a default would allocate a
        /// pool that `init(copying:)` then overwrote and leaked (8 KB a copy).
        @exclusivity(unchecked) var nodes: PODStorage<Node>
        /// Per slot: its first and last node, or -1 for an empty slot.
        let ends: UnsafeMutablePointer<SIMD2<Int32>>
        /// A bit per slot: it holds timers not yet taken.
        let occupied: UnsafeMutablePointer<UInt64>

        init() {
            nodes = PODStorage<Node>(capacity: 256)
            ends = .allocate(capacity: TimerQueue.span)
            ends.initialize(repeating: SIMD2(-1, -1), count: TimerQueue.span)
            occupied = .allocate(capacity: TimerQueue.words)
            occupied.initialize(repeating: 0, count: TimerQueue.words)
        }

        /// The stand-in every queue holds until it makes its wheel: never read.
        init(placeholder: ()) {
            nodes = PODStorage<Node>(capacity: 0)
            ends = .allocate(capacity: 1)
            occupied = .allocate(capacity: 1)
        }

        init(copying o: Wheel) {
            nodes = o.nodes.copy()
            ends = .allocate(capacity: TimerQueue.span)
            ends.initialize(from: o.ends, count: TimerQueue.span)
            occupied = .allocate(capacity: TimerQueue.words)
            occupied.initialize(from: o.occupied, count: TimerQueue.words)
        }

        // Nodes, ends and bits hold no references (a test checks `Node` is POD).
        deinit {
            nodes.deallocate()
            ends.deallocate()
            occupied.deallocate()
        }
    }

    /// The placeholder until more than `smallLimit` timers waited at once
    /// (`wheelMade`). Not an optional: reading an optional's class reference
    /// retained and released it on every push and pop (20% of the model's
    /// speed in `outbox bench --only transitions`).
    private var wheel = TimerQueue.placeholder
    private var wheelMade = false
    private static let placeholder = Wheel(placeholder: ())
    private var freeList: Int32 = -1
    private var inWheel = 0
    /// Timers at or after `floor + span`.
    private var later = TimerHeap()
    /// No timer is due before this moment.
    private(set) var floor: Millis = 0

    var count: Int { inWheel + later.count }
    /// Whether the wheel was made (more than `smallLimit` timers waited at once).
    var hasWheel: Bool { wheelMade }
    /// The wheel's identity, for tests: a queue held once never copies its own.
    var wheelIdentity: ObjectIdentifier? { wheelMade ? ObjectIdentifier(wheel) : nil }
    var isEmpty: Bool { count == 0 }
    /// Where the heap's array is in a queue (`Prefetch`; a fleet's lane).
    static var heapWord: Int {
        MemoryLayout<TimerQueue>.offset(of: \TimerQueue.later)! + MemoryLayout<TimerHeap>.offset(of: \TimerHeap.items)!
    }

    /// The wheel, copied first if another queue shares it.
    @inline(__always)
    private mutating func uniqueWheel() -> Wheel {
        if !isKnownUniquelyReferenced(&wheel) { wheel = Wheel(copying: wheel) }
        return wheel
    }

    mutating func push(_ t: DueTimer) {
        precondition(t.time >= floor, "a timer before the queue's floor")
        if !wheelMade {
            later.push(t)
            if later.count > TimerQueue.smallLimit { openWheel() }
        } else if t.time - floor < Millis(TimerQueue.span) {
            put(t, uniqueWheel())
        } else {
            later.push(t)
        }
    }

    /// Makes the wheel and moves into it, in (time, order) order, the heap's
    /// timers its window covers: the state a queue that had a wheel all along is in.
    private mutating func openWheel() {
        let w = Wheel()
        wheel = w
        wheelMade = true
        let end = floor + Millis(TimerQueue.span)
        while let l = later.first, l.time < end {
            _ = later.pop()
            put(l, w)
        }
    }

    @inline(__always)
    private mutating func put(_ t: DueTimer, _ w: Wheel) {
        let s = Int(t.time) & TimerQueue.mask
        let n: Int32
        if freeList >= 0 {
            n = freeList
            freeList = w.nodes[Int(n)].next
            w.nodes[Int(n)] = Node(timer: t, next: -1)
        } else {
            n = Int32(w.nodes.append(Node(timer: t, next: -1)))
        }
        let e = w.ends[s]
        if e.x < 0 {
            w.ends[s] = SIMD2(n, n)
            w.occupied[s >> 6] |= 1 << UInt64(s & 63)
        } else {
            w.nodes[Int(e.y)].next = n
            w.ends[s].y = n
        }
        inWheel += 1
    }

    /// The earliest occupied slot, scanning the window from `floor`.
    @inline(__always)
    private func firstSlot() -> Int? {
        guard inWheel > 0 else { return nil }
        let occupied = wheel.occupied
        let start = Int(floor) & TimerQueue.mask
        var w = start >> 6
        var bits = occupied[w] & (~0 << UInt64(start & 63))
        while bits == 0 {
            // Some slot is occupied, so this ends; coming round to the start word
            // again reads the slots at the window's far end.
            w = (w + 1) & (TimerQueue.words - 1)
            bits = occupied[w]
        }
        return (w << 6) | bits.trailingZeroBitCount
    }

    /// The earliest timer, left in place.
    var first: DueTimer? {
        if let s = firstSlot() {
            return wheel.nodes[Int(wheel.ends[s].x)].timer
        }
        return later.first
    }

    /// Takes the first timer of an occupied slot; its node goes back to the pool.
    @inline(__always)
    private mutating func take(_ s: Int, _ w: Wheel) -> DueTimer {
        let n = w.ends[s].x
        let node = w.nodes[Int(n)]
        if node.next < 0 {
            w.ends[s] = SIMD2(-1, -1)
            w.occupied[s >> 6] &= ~(1 << UInt64(s & 63))
        } else {
            w.ends[s].x = node.next
        }
        w.nodes[Int(n)].next = freeList
        freeList = n
        inWheel -= 1
        return node.timer
    }

    /// Drops the earliest timer (a stale one), without moving the floor.
    mutating func removeFirst() {
        if let s = firstSlot() {
            _ = take(s, uniqueWheel())
        } else {
            _ = later.pop()
        }
    }

    /// Takes the earliest timer if it is due by `limit`, moving the floor to its
    /// time; with none due, moves the floor to `limit` and returns nil. The
    /// caller must have reached that moment: nothing may be pushed before it.
    mutating func pop(through limit: Millis) -> DueTimer? {
        if !wheelMade {
            // The heap alone: its earliest, if due.
            guard let l = later.first, l.time <= limit else {
                if limit > floor { floor = limit }
                return nil
            }
            _ = later.pop()
            if l.time > floor { floor = l.time }
            return l
        }
        while true {
            if let s = firstSlot() {
                // Read in one statement: a reference to the wheel held in a local
                // past it would make `uniqueWheel` below copy the whole wheel.
                let time = wheel.nodes[Int(wheel.ends[s].x)].timer.time
                if time > limit { break }
                let t = take(s, uniqueWheel())
                moveFloor(to: time)
                return t
            }
            // The wheel is empty: jump to the heap's earliest, if it is due.
            guard let l = later.first, l.time <= limit else { break }
            moveFloor(to: l.time)
        }
        moveFloor(to: limit)
        return nil
    }

    /// The window moves up; timers it now covers leave the heap for their slots.
    @inline(__always)
    private mutating func moveFloor(to t: Millis) {
        guard t > floor else { return }
        floor = t
        guard !later.isEmpty, wheelMade else { return }
        let end = floor + Millis(TimerQueue.span)
        while let l = later.first, l.time < end {
            _ = later.pop()
            put(l, uniqueWheel())
        }
    }

    /// Every timer waiting, in no particular order (for checks).
    var all: [DueTimer] {
        var out = later.items
        guard wheelMade else { return out }
        for w in 0..<TimerQueue.words where wheel.occupied[w] != 0 {
            var bits = wheel.occupied[w]
            while bits != 0 {
                var n = wheel.ends[w << 6 | bits.trailingZeroBitCount].x
                while n >= 0 {
                    out.append(wheel.nodes[Int(n)].timer)
                    n = wheel.nodes[Int(n)].next
                }
                bits &= bits - 1
            }
        }
        return out
    }
}
