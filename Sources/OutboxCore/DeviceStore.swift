/// What the device keeps of one saved request: everything needed to resend it.
public struct SavedRequest: Equatable, Sendable {
    public var id: Int32
    public var kind: RequestKind
    public var name: String
    public var createdAt: Millis
    public var idempotencyKey: UInt64
    public var value: Amount?
    public var currency: String
    public var attributes: [Attribute]
    public var attempts: Int32
    /// Waiting for consent (the consent gate's install, LinkTrail's LT-3) rather than for a flush.
    public var waitingForConsent: Bool

    public init(
        id: Int32, kind: RequestKind, name: String, createdAt: Millis, idempotencyKey: UInt64,
        value: Amount?, currency: String, attributes: [Attribute], attempts: Int32, waitingForConsent: Bool
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.createdAt = createdAt
        self.idempotencyKey = idempotencyKey
        self.value = value
        self.currency = currency
        self.attributes = attributes
        self.attempts = attempts
        self.waitingForConsent = waitingForConsent
    }
}

/// An event attribute: `key=value`.
public struct Attribute: Equatable, Hashable, Sendable {
    public var key: String
    public var value: String
    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// What survives the app closing, per the rules: saved requests, the consent
/// decision (LT-1) and whether the install was created (LT-3). Nothing else.
///
/// The model calls it synchronously, so a change is stored before the model
/// goes on as if it were saved. A store that cannot write sets `failure`; its
/// driver must then stop the model and say so.
public protocol DeviceStore: AnyObject {
    /// Stores a request (insert or replace).
    func save(_ request: SavedRequest)
    /// An attempt of a saved request went out: its count changed and it no
    /// longer waits for consent.
    func attempted(id: Int32, attempts: Int32)
    func remove(id: Int32)
    /// Every saved request, oldest (lowest id) first.
    func loadAll() -> [SavedRequest]
    var consent: Consent { get set }
    var installCreated: Bool { get set }
    /// Why the last write failed, or nil.
    var failure: String? { get }
    /// How many times this device was opened before (0 for a fresh or in-memory
    /// device). Salts idempotency keys: ids restart with each process, keys must not.
    var epoch: UInt64 { get }
}

/// A device that lives in memory: the default for `outbox run` and tests.
///
/// Compact: one fixed-size row per id, strings interned, attributes aside. Rows
/// sit in chunks of 4,096 consecutive ids (ids are small and dense), and a chunk
/// is let go when its last row goes (one kept spare for the next chunk), so a
/// long run that saves and delivers millions of requests holds only the chunks
/// of what is still saved. A
/// dictionary of full records cost about 230 bytes a request at 10^6
/// (docs/performance.md).
public final class InMemoryDeviceStore: DeviceStore {
    struct Row {
        var createdAt: Millis
        var key: UInt64
        /// Int64.min means no value.
        var valueMicros: Int64
        var name: Int32
        var currency: Int32
        var attempts: Int32
        var kind: RequestKind
        var present: Bool
        var waiting: Bool
        var hasAttributes: Bool
    }

    /// Rows sit in chunks of `1 << chunkBits` ids: 4,096 (196 KB) by default,
    /// fewer for a fleet's devices, each of which holds a handful at a time.
    let chunkBits: Int
    let chunkSize: Int
    static let blank = Row(
        createdAt: 0, key: 0, valueMicros: 0, name: 0, currency: 0, attempts: 0, kind: .event,
        present: false, waiting: false, hasAttributes: false)

    // Only this class touches these, one call at a time: the runtime's dynamic
    // exclusivity checks on them cost 15% of a long run (docs/performance.md).
    /// Chunk `c` holds ids `c << chunkBits ..< (c + 1) << chunkBits`; nil when none is saved.
    /// Raw memory the class owns (freed in `deinit`): a row changes in place, with no
    /// copy-on-write check of an outer and an inner array on every write.
    @exclusivity(unchecked) private var chunks: [UnsafeMutablePointer<Row>?] = []
    /// Rows present in each chunk.
    @exclusivity(unchecked) private var present: [Int32] = []
    /// The chunk `chunks[0]` is: the table starts again from the next chunk
    /// saved whenever the store is emptied, so it spans the ids held now, not
    /// every id ever saved (a fleet's device empties its store after nearly every event).
    @exclusivity(unchecked) private var firstChunk = 0
    /// One emptied chunk kept for the next one needed: ids move forward, so a
    /// steady run frees one chunk and soon needs another.
    @exclusivity(unchecked) private var spare: UnsafeMutablePointer<Row>?
    /// Where emptied chunks go and needed ones come from before `spare`, when
    /// set: the devices of a fleet's lane share one, so a device at rest holds
    /// no chunk (a spare each was 400 MB for 10^6 devices).
    private let pool: ChunkPool?
    /// One past the highest id ever saved.
    @exclusivity(unchecked) private var top = 0
    /// "" is 0.
    @exclusivity(unchecked) private var strings = NameTable([""])
    @exclusivity(unchecked) private var attributeLists: [Int32: [Attribute]] = [:]
    @exclusivity(unchecked) public private(set) var count = 0
    public var consent: Consent = .undecided
    public var installCreated = false
    public var failure: String? { nil }
    /// 0 unless a scenario's `device opens N` line set it (`DeviceStart.seed`).
    public var epoch: UInt64 = 0
    /// Chunks of rows allocated now, for tests.
    public var chunksHeld: Int { chunks.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }
    /// Entries in the chunk table (held or not), for tests.
    var chunkTableCount: Int { chunks.count }
    /// Where the chunk table's arrays are in the object (`Prefetch`; a fleet's lane).
    var arrayWords: [Int] {
        let object = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        return [
            withUnsafeMutablePointer(to: &chunks) { UnsafeRawPointer($0) - object },
            withUnsafeMutablePointer(to: &present) { UnsafeRawPointer($0) - object },
        ]
    }

    /// A store whose rows come in chunks of `1 << chunkBits` ids (`chunkBits` 2 to 16).
    public init(chunkBits: Int = 12) {
        self.chunkBits = min(16, max(2, chunkBits))
        chunkSize = 1 << self.chunkBits
        pool = nil
    }

    /// A store whose string table starts as `names` (which holds "" first),
    /// shared with the other devices of a fleet until this one meets a new name,
    /// and whose chunks come from and go to `pool` (of chunks of its size).
    init(pool: ChunkPool, names: NameTable) {
        chunkBits = pool.chunkBits
        chunkSize = 1 << chunkBits
        self.pool = pool
        strings = names
    }

    /// Emptied chunks of rows kept for the stores that share it (the devices
    /// of a fleet's lane, stepped on one thread: it is never used by two at
    /// once). Keeps at most `limit`; frees the rest.
    final class ChunkPool: @unchecked Sendable {
        let chunkBits: Int
        let limit: Int
        private var free: [UnsafeMutablePointer<Row>] = []

        init(chunkBits: Int, limit: Int = 1024) {
            self.chunkBits = min(16, max(2, chunkBits))
            self.limit = limit
        }

        /// Chunks held, for tests.
        var count: Int { free.count }

        @inline(__always)
        func take() -> UnsafeMutablePointer<Row>? { free.popLast() }

        @inline(__always)
        func put(_ chunk: UnsafeMutablePointer<Row>) {
            if free.count < limit { free.append(chunk) } else { chunk.deallocate() }
        }

        deinit { for c in free { c.deallocate() } }
    }

    deinit {
        // Rows hold no references: freeing the memory is all.
        for c in chunks { c?.deallocate() }
        spare?.deallocate()
    }

    /// The row of a saved id, or nil.
    @inline(__always)
    private func row(_ id: Int32) -> UnsafeMutablePointer<Row>? {
        let c = Int(id) >> chunkBits &- firstChunk
        guard c >= 0 && c < chunks.count, let chunk = chunks[c] else { return nil }
        let r = chunk + (Int(id) & (chunkSize - 1))
        return r.pointee.present ? r : nil
    }

    public func save(_ r: SavedRequest) {
        var c = Int(r.id) >> chunkBits
        top = max(top, Int(r.id) + 1)
        if chunks.isEmpty { firstChunk = c }
        if c < firstChunk {
            chunks.insert(contentsOf: repeatElement(nil, count: firstChunk - c), at: 0)
            present.insert(contentsOf: repeatElement(0, count: firstChunk - c), at: 0)
            firstChunk = c
        }
        c -= firstChunk
        while chunks.count <= c {
            chunks.append(nil)
            present.append(0)
        }
        let chunk: UnsafeMutablePointer<Row>
        if let held = chunks[c] {
            chunk = held
        } else {
            if let p = pool, let taken = p.take() {
                chunk = taken
            } else if let s = spare {
                chunk = s
                spare = nil
            } else {
                chunk = .allocate(capacity: chunkSize)
            }
            chunk.initialize(repeating: Self.blank, count: chunkSize)
            chunks[c] = chunk
        }
        let row = chunk + (Int(r.id) & (chunkSize - 1))
        if !row.pointee.present {
            count += 1
            present[c] += 1
        }
        if r.attributes.isEmpty {
            if row.pointee.hasAttributes { attributeLists[r.id] = nil }
        } else {
            attributeLists[r.id] = r.attributes
        }
        row.pointee = Row(
            createdAt: r.createdAt, key: r.idempotencyKey, valueMicros: r.value?.micros ?? Int64.min,
            name: strings.intern(r.name), currency: r.currency.isEmpty ? 0 : strings.intern(r.currency),
            attempts: r.attempts, kind: r.kind, present: true, waiting: r.waitingForConsent,
            hasAttributes: !r.attributes.isEmpty)
    }

    public func attempted(id: Int32, attempts: Int32) {
        guard let row = row(id) else { return }
        row.pointee.attempts = attempts
        row.pointee.waiting = false
    }

    public func remove(id: Int32) {
        guard let row = row(id) else { return }
        if row.pointee.hasAttributes { attributeLists[id] = nil }
        row.pointee.present = false
        count -= 1
        let c = Int(id) >> chunkBits - firstChunk
        present[c] -= 1
        if present[c] == 0, let chunk = chunks[c] {
            chunks[c] = nil
            if let p = pool { p.put(chunk) } else if spare == nil { spare = chunk } else { chunk.deallocate() }
        }
        if count == 0 {
            // Every chunk is freed: the next save starts the table again (`firstChunk`).
            chunks.removeAll(keepingCapacity: true)
            present.removeAll(keepingCapacity: true)
        }
    }

    public func loadAll() -> [SavedRequest] {
        var out: [SavedRequest] = []
        out.reserveCapacity(count)
        for k in chunks.indices {
            guard let chunk = chunks[k] else { continue }
            let c = k + firstChunk
            // The last chunk is read only as far as the highest id saved.
            for j in 0..<min(chunkSize, top - c << chunkBits) where chunk[j].present {
                let r = chunk[j]
                let id = Int32(c << chunkBits | j)
                out.append(
                    SavedRequest(
                        id: id, kind: r.kind, name: strings[r.name], createdAt: r.createdAt, idempotencyKey: r.key,
                        value: r.valueMicros == Int64.min ? nil : Amount(micros: r.valueMicros),
                        currency: strings[r.currency],
                        attributes: r.hasAttributes ? attributeLists[id] ?? [] : [], attempts: r.attempts,
                        waitingForConsent: r.waiting))
            }
        }
        return out
    }
}
