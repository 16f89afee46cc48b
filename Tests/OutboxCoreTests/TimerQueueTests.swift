import OutboxTestSupport
import XCTest
@testable import OutboxCore

/// The timer wheel against the plainest possible queue: a list sorted by (time, order).
final class TimerQueueTests: XCTestCase {
    /// Random pushes (near, far, and at the current instant) and pops through random
    /// limits: the wheel gives exactly the reference's timers in the reference's order.
    /// A queue holding few timers keeps them in its heap (a fleet's million
    /// devices cannot pay 130 KB of wheel each); the wheel is made when one more
    /// than `smallLimit` wait, and the order is the same before and after.
    func test_ORDER_fewTimersNeedNoWheel_andTheWheelTakesOverInOrder() {
        var q = TimerQueue()
        var reference: [DueTimer] = []
        for k in 0..<TimerQueue.smallLimit {
            // Near and far, several at one instant, pushed out of time order.
            let t = DueTimer(
                time: Millis((k * 7919) % 40_000), seq: UInt64(k), kind: .retry, request: Int32(k), generation: 0)
            q.push(t)
            reference.append(t)
        }
        XCTAssertFalse(q.hasWheel, "\(TimerQueue.smallLimit) timers sit in the heap")
        XCTAssertEqual(q.pop(through: 0)?.seq, 0)
        reference.removeFirst()
        for k in 0..<2 {
            let t = DueTimer(time: 5, seq: UInt64(1000 + k), kind: .retry, request: 1, generation: 0)
            q.push(t)
            reference.append(t)
        }
        XCTAssertTrue(q.hasWheel, "one more than the limit makes the wheel")
        // Held once, the queue changes its wheel in place: a copy at every pop
        // (a reference kept in a local) cost a 10^5-timer model minutes.
        let wheel = q.wheelIdentity
        reference.sort(by: DueTimer.before)
        var got: [UInt64] = []
        while let t = q.pop(through: .max) {
            got.append(t.seq)
            XCTAssertEqual(q.wheelIdentity, wheel, "popping copied the wheel")
        }
        XCTAssertEqual(got, reference.map(\.seq))
    }

    func test_ORDER_timerWheelPopsInTimeThenOrderLikeASortedList() {
        for seed in 0..<40 {
            var rng = SplitMix64(seed: UInt64(seed))
            var wheel = TimerQueue()
            var reference: [DueTimer] = []
            var now: Millis = 0
            var seq: UInt64 = 0
            var popped = 0
            for _ in 0..<3_000 {
                switch rng.next() % 10 {
                case 0...5:
                    // Now, near (inside the window), about the window's edge, or far.
                    let r = rng.next() % 100
                    let edge = Millis(TimerQueue.span) - 3 + Millis(rng.next() % 6)
                    let delay: Millis = r < 10 ? 0 : r < 60 ? Millis(rng.next() % 2_000) : r < 85 ? edge : Millis(rng.next() % 200_000)
                    seq += 1
                    let t = DueTimer(time: now + delay, seq: seq, kind: .retry, request: Int32(seq % 1000), generation: 0)
                    wheel.push(t)
                    reference.append(t)
                case 6:
                    // Peek and drop the earliest, as nextDueTime does with a stale timer.
                    reference.sort(by: DueTimer.before)
                    XCTAssertEqual(wheel.first?.seq, reference.first?.seq, "seed \(seed)")
                    if !reference.isEmpty {
                        wheel.removeFirst()
                        reference.removeFirst()
                    }
                default:
                    let limit = now + Millis(rng.next() % (rng.next() % 4 == 0 ? 40_000 : 300))
                    reference.sort(by: DueTimer.before)
                    while let t = wheel.pop(through: limit) {
                        XCTAssertEqual(t.seq, reference.first?.seq, "seed \(seed): wrong timer after \(popped) pops")
                        XCTAssertEqual(t.time, reference.first?.time)
                        XCTAssertLessThanOrEqual(t.time, limit)
                        XCTAssertGreaterThanOrEqual(t.time, now)
                        reference.removeFirst()
                        now = t.time
                        popped += 1
                        // A timer fired at this instant may set another for the same instant.
                        if rng.next() % 20 == 0 {
                            seq += 1
                            let again = DueTimer(time: now, seq: seq, kind: .answer, request: 1, generation: 0)
                            wheel.push(again)
                            reference.append(again)
                            reference.sort(by: DueTimer.before)
                        }
                    }
                    XCTAssertTrue(reference.first.map { $0.time > limit } ?? true, "seed \(seed): a due timer was left")
                    now = limit
                }
                XCTAssertEqual(wheel.count, reference.count)
            }
            XCTAssertEqual(Set(wheel.all.map(\.seq)), Set(reference.map(\.seq)))
            XCTAssertGreaterThan(popped, 500)
        }
    }

    /// A long jump over an empty window to a far timer, then timers set from there.
    func test_jumpsOverAnEmptyWindow() {
        var q = TimerQueue()
        q.push(DueTimer(time: 10_000_000, seq: 1, kind: .retry, request: 1, generation: 0))
        q.push(DueTimer(time: 5, seq: 2, kind: .retry, request: 2, generation: 0))
        XCTAssertEqual(q.pop(through: 1_000)?.seq, 2)
        XCTAssertNil(q.pop(through: 9_999_999))
        XCTAssertEqual(q.first?.time, 10_000_000)
        q.push(DueTimer(time: 10_000_000, seq: 3, kind: .retry, request: 3, generation: 0))
        XCTAssertEqual(q.pop(through: 20_000_000)?.seq, 1)
        XCTAssertEqual(q.pop(through: 20_000_000)?.seq, 3)
        XCTAssertNil(q.pop(through: 20_000_000))
        XCTAssertTrue(q.isEmpty)
    }

    /// A timer set beyond the window, then one for the same instant once the window
    /// reaches it: the first set still fires first (ORDER).
    func test_ORDER_sameInstantAcrossTheWheelsEdgeKeepsOrder() {
        var q = TimerQueue()
        let edge = Millis(TimerQueue.span)
        q.push(DueTimer(time: edge, seq: 1, kind: .retry, request: 1, generation: 0))
        XCTAssertNil(q.pop(through: 1))
        q.push(DueTimer(time: edge, seq: 2, kind: .retry, request: 2, generation: 0))
        XCTAssertEqual(q.pop(through: edge)?.seq, 1)
        XCTAssertEqual(q.pop(through: edge)?.seq, 2)
    }

    /// A copied queue is a value: popping and pushing on one leaves the other's
    /// timers as they were (the wheel's memory is shared until a change).
    func test_copiedQueueKeepsItsOwnTimers() {
        var a = TimerQueue()
        for i in 1...600 {  // past the node pool's first capacity
            a.push(DueTimer(time: Millis(i % 50), seq: UInt64(i), kind: .retry, request: Int32(i), generation: 0))
        }
        let b = a
        var popped: [UInt64] = []
        while let t = a.pop(through: 20) { popped.append(t.seq) }
        a.push(DueTimer(time: 30, seq: 601, kind: .answer, request: 601, generation: 0))
        XCTAssertEqual(b.count, 600)
        XCTAssertEqual(Set(b.all.map(\.seq)), Set(1...600))
        XCTAssertEqual(b.first?.seq, 50, "the copy still starts at time 0")
        XCTAssertEqual(a.count, 600 - popped.count + 1)
        var c = b
        var fromCopy: [UInt64] = []
        while let t = c.pop(through: 20) { fromCopy.append(t.seq) }
        XCTAssertEqual(fromCopy, popped, "the copy pops what the original popped, in the same order")
    }

    /// Every change to a copy gives the copy its own wheel, and the copy frees all
    /// of it when it goes. A pool allocated by a default value and then replaced by
    /// the copy's leaked 8 KB a copy: this test is what LeakSanitizer reports then
    /// (`scripts/sanitizers`, run by .ci/run), and it checks here that each copy
    /// changes alone.
    func test_copiesChangeAlone_andFreeTheirWheel() {
        var a = TimerQueue()
        for i in 1...10 {
            a.push(DueTimer(time: Millis(i), seq: UInt64(i), kind: .retry, request: Int32(i), generation: 0))
        }
        for n in 0..<100 {
            var b = a
            b.push(DueTimer(time: 5, seq: UInt64(100 + n), kind: .answer, request: 99, generation: 0))
            XCTAssertEqual(b.count, 11)
            XCTAssertEqual(b.pop(through: 0)?.seq, nil)
            XCTAssertEqual(b.pop(through: 1)?.seq, 1)
        }
        XCTAssertEqual(a.count, 10)
        XCTAssertEqual(a.first?.seq, 1)
        XCTAssertEqual(Set(a.all.map(\.seq)), Set(1...10))
    }
}
