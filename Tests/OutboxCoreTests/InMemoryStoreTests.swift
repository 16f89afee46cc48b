import OutboxTestSupport
import XCTest
@testable import OutboxCore

/// The in-memory device: what goes in comes back whole, and a long run that
/// saves and forgets millions of requests does not keep what it forgot.
final class InMemoryStoreTests: XCTestCase {
    func record(_ id: Int32, attributes: [Attribute] = [], value: Amount? = nil) -> SavedRequest {
        SavedRequest(id: id, kind: id % 2 == 0 ? .event : .screen, name: "n\(id % 7)", createdAt: Millis(id) * 10,
                     idempotencyKey: UInt64(id) &* 977, value: value, currency: value == nil ? "" : "EUR",
                     attributes: attributes, attempts: id % 5, waitingForConsent: id % 3 == 0)
    }

    func test_savesComeBackWholeInIdOrder() {
        let store = InMemoryDeviceStore()
        let ids: [Int32] = [5, 1, 9_000, 4_096, 4_095, 70_000]
        for id in ids {
            store.save(record(id, attributes: id == 9_000 ? [Attribute(key: "k", value: "v")] : [],
                              value: id == 1 ? Amount(micros: 2_500_000) : nil))
        }
        store.attempted(id: 5, attempts: 12)
        store.remove(id: 4_096)
        var expected = ids.filter { $0 != 4_096 }.sorted().map { id in
            record(id, attributes: id == 9_000 ? [Attribute(key: "k", value: "v")] : [], value: id == 1 ? Amount(micros: 2_500_000) : nil)
        }
        expected[1].attempts = 12
        expected[1].waitingForConsent = false
        XCTAssertEqual(store.loadAll(), expected)
        XCTAssertEqual(store.count, 5)
    }

    func test_forgottenRowsAreFreed() {
        let store = InMemoryDeviceStore()
        // Like a long run: each request saved, then delivered a little later.
        for id in Int32(1)...200_000 {
            store.save(record(id, attributes: [Attribute(key: "a", value: "\(id)")]))
            if id > 100 { store.remove(id: id - 100) }
        }
        XCTAssertEqual(store.count, 100)
        XCTAssertLessThanOrEqual(store.chunksHeld, 2)
        XCTAssertEqual(store.loadAll().map(\.id), Array(Int32(199_901)...200_000))
        XCTAssertEqual(store.loadAll().last?.attributes, [Attribute(key: "a", value: "200000")])
    }

    /// A fleet's device empties its store after nearly every event: the chunk
    /// table then spans the ids held, not every id ever saved, and an id below
    /// the table's first chunk still finds its row.
    func test_anEmptiedStoreStartsItsChunkTableAgain() {
        let store = InMemoryDeviceStore(chunkBits: 3)
        for id in Int32(1)...10_000 {
            store.save(record(id))
            store.remove(id: id)
        }
        XCTAssertEqual(store.count, 0)
        XCTAssertLessThanOrEqual(store.chunkTableCount, 1)
        store.save(record(50_000))
        store.save(record(3))
        store.attempted(id: 3, attempts: 9)
        var three = record(3)
        three.attempts = 9
        three.waitingForConsent = false
        XCTAssertEqual(store.loadAll(), [three, record(50_000)])
        store.remove(id: 50_000)
        XCTAssertEqual(store.loadAll(), [three])
        store.remove(id: 3)
        XCTAssertEqual(store.loadAll(), [])
        XCTAssertEqual(store.chunksHeld, 0)
    }

    /// The stores of a fleet's lane share one pool of emptied chunks: a store
    /// at rest holds none, another takes the chunk it let go, and what each
    /// holds is its own.
    func test_storesSharingAPool_holdNoChunkAtRest_andReuseEachOthers() {
        let pool = InMemoryDeviceStore.ChunkPool(chunkBits: 3, limit: 2)
        let a = InMemoryDeviceStore(pool: pool, names: NameTable([""]))
        let b = InMemoryDeviceStore(pool: pool, names: NameTable([""]))
        for id in Int32(1)...20 { a.save(record(id)) }  // three chunks: ids 1-7, 8-15, 16-20
        XCTAssertEqual(a.chunksHeld, 3)
        for id in Int32(1)...20 { a.remove(id: id) }
        XCTAssertEqual(a.chunksHeld, 0, "at rest: no spare kept by the store")
        XCTAssertEqual(pool.count, 2, "the pool keeps at most its limit")
        b.save(record(3))
        XCTAssertEqual(pool.count, 1, "b took a chunk a let go")
        a.save(record(30))
        XCTAssertEqual(pool.count, 0)
        b.save(record(40))
        XCTAssertEqual(b.loadAll(), [record(3), record(40)])
        XCTAssertEqual(a.loadAll(), [record(30)])
        b.remove(id: 3)
        b.remove(id: 40)
        XCTAssertEqual(b.loadAll(), [])
        XCTAssertEqual(a.loadAll(), [record(30)], "a's row untouched by b's chunks going")
    }
}

/// The model's per-request record stays one cache line: the memory figure and the
/// long-run speed of `outbox bench` both rest on it (docs/performance.md).
final class LayoutTests: XCTestCase {
    func test_requestIs64Bytes() {
        XCTAssertEqual(MemoryLayout<Request>.stride, 64)
        // The request table grows with realloc and never deinitializes: a request must hold no references.
        XCTAssertTrue(_isPOD(Request.self))
        // The timer wheel's node pool grows the same way.
        XCTAssertTrue(_isPOD(TimerQueue.Node.self))
    }

    /// The request table is a value: a copy keeps what it had when copied, however the original grows or changes.
    func test_requestTableCopiesOnWrite() {
        var a = RequestTable()
        for i in 1...1000 {
            a.append(Request(id: Int32(i), kind: .event, nameID: 0, createdAt: Millis(i), idempotencyKey: 0, hasValue: false))
        }
        let b = a
        a[0].attempts = 7
        for i in 1001...5000 {
            a.append(Request(id: Int32(i), kind: .event, nameID: 0, createdAt: Millis(i), idempotencyKey: 0, hasValue: false))
        }
        XCTAssertEqual(b.count, 1000)
        XCTAssertEqual(b[0].attempts, 0)
        XCTAssertEqual(a[0].attempts, 7)
        XCTAssertEqual(a.count, 5000)
        XCTAssertEqual(a.map(\.id), (1...5000).map(Int32.init))
        XCTAssertEqual(b.map(\.createdAt), (1...1000).map(Millis.init))
    }

    func test_plannedAnswerRoundTrips() {
        var r = Request(id: 1, kind: .event, nameID: 0, createdAt: 0, idempotencyKey: 0, hasValue: false)
        for a: Answer in [.ok, .timeout, .lost, .partial, .status(100), .status(429), .status(599)] {
            r.plannedAnswer = a
            XCTAssertEqual(r.plannedAnswer, a)
        }
    }
}

/// Interned names: equal strings get one id however they were made, different ones never share.
final class NameTableTests: XCTestCase {
    func test_equalStringsOneId_differentStringsDifferentIds() {
        var t = NameTable([""])
        var ids: [String: Int32] = [:]
        var rng = SplitMix64(seed: 7)
        for round in 0..<20_000 {
            // Short (kept inside the string) and long (kept in storage that comes and
            // goes) names, each built afresh, so equal names arrive with different storage.
            let n = Int(rng.next() % 300)
            let name = n % 3 == 0 ? String(repeating: "long-event-name-", count: 2) + String(n) : "e" + String(n)
            let id = t.intern(name)
            if let known = ids[name] {
                XCTAssertEqual(id, known, "round \(round): \(name) got a second id")
            } else {
                XCTAssertFalse(ids.values.contains(id), "round \(round): \(name) got another name's id")
                ids[name] = id
            }
            XCTAssertEqual(t.find(name), id)
            XCTAssertEqual(t[id], name)
        }
        XCTAssertEqual(t.count, ids.count + 1)
        XCTAssertNil(t.find("never-interned"))
        XCTAssertEqual(t.find(""), 0)
    }
}
