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
struct TimerQueue {
    static let bits = 14
    static let span = 1 << bits
    static let mask = span - 1
    static let words = span / 64

    /// A timer in the wheel and the next one in its slot (-1 ends the slot).
    /// The timer leaves four bytes of padding: the link fits in them.
    struct Node {
        var timer: Timer
        var next: Int32
    }

    /// Every wheel timer, in one flat pool; freed nodes are reused (`free`).
    private var nodes: [Node] = []
    private var free: Int32 = -1
    /// Per slot: its first and last node, or -1 for an empty slot.
    private var ends = [SIMD2<Int32>](repeating: SIMD2(-1, -1), count: TimerQueue.span)
    /// A bit per slot: it holds timers not yet taken.
    private var occupied = [UInt64](repeating: 0, count: TimerQueue.words)
    private var inWheel = 0
    /// Timers at or after `floor + span`.
    private var later = TimerHeap()
    /// No timer is due before this moment.
    private(set) var floor: Millis = 0

    var count: Int { inWheel + later.count }
    var isEmpty: Bool { count == 0 }

    mutating func push(_ t: Timer) {
        precondition(t.time >= floor, "a timer before the queue's floor")
        if t.time - floor < Millis(TimerQueue.span) {
            put(t)
        } else {
            later.push(t)
        }
    }

    @inline(__always)
    private mutating func put(_ t: Timer) {
        let s = Int(t.time) & TimerQueue.mask
        let n: Int32
        if free >= 0 {
            n = free
            free = nodes[Int(n)].next
            nodes[Int(n)] = Node(timer: t, next: -1)
        } else {
            n = Int32(nodes.count)
            nodes.append(Node(timer: t, next: -1))
        }
        let e = ends[s]
        if e.x < 0 {
            ends[s] = SIMD2(n, n)
            occupied[s >> 6] |= 1 << UInt64(s & 63)
        } else {
            nodes[Int(e.y)].next = n
            ends[s].y = n
        }
        inWheel += 1
    }

    /// The earliest occupied slot, scanning the window from `floor`.
    @inline(__always)
    private func firstSlot() -> Int? {
        guard inWheel > 0 else { return nil }
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
    var first: Timer? {
        if let s = firstSlot() { return nodes[Int(ends[s].x)].timer }
        return later.first
    }

    /// Takes the first timer of an occupied slot; its node goes back to the pool.
    @inline(__always)
    private mutating func take(_ s: Int) -> Timer {
        let n = ends[s].x
        let node = nodes[Int(n)]
        if node.next < 0 {
            ends[s] = SIMD2(-1, -1)
            occupied[s >> 6] &= ~(1 << UInt64(s & 63))
        } else {
            ends[s].x = node.next
        }
        nodes[Int(n)].next = free
        free = n
        inWheel -= 1
        return node.timer
    }

    /// Drops the earliest timer (a stale one), without moving the floor.
    mutating func removeFirst() {
        if let s = firstSlot() {
            _ = take(s)
        } else {
            _ = later.pop()
        }
    }

    /// Takes the earliest timer if it is due by `limit`, moving the floor to its
    /// time; with none due, moves the floor to `limit` and returns nil. The
    /// caller must have reached that moment: nothing may be pushed before it.
    mutating func pop(through limit: Millis) -> Timer? {
        while true {
            if let s = firstSlot() {
                let time = nodes[Int(ends[s].x)].timer.time
                if time > limit { break }
                let t = take(s)
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
        guard !later.isEmpty else { return }
        let end = floor + Millis(TimerQueue.span)
        while let l = later.first, l.time < end {
            _ = later.pop()
            put(l)
        }
    }

    /// Every timer waiting, in no particular order (for checks).
    var all: [Timer] {
        var out = later.items
        for w in occupied.indices where occupied[w] != 0 {
            var bits = occupied[w]
            while bits != 0 {
                var n = ends[w << 6 | bits.trailingZeroBitCount].x
                while n >= 0 {
                    out.append(nodes[Int(n)].timer)
                    n = nodes[Int(n)].next
                }
                bits &= bits - 1
            }
        }
        return out
    }
}
