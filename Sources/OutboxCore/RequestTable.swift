/// Plain values (no references: `_isPOD`) in one block grown with `realloc`.
///
/// Growing a Swift `Array` allocates a new buffer and copies the old one; a
/// table doubling to millions of entries writes every earlier buffer in full.
/// `realloc` grows large blocks (mapped memory) by moving their pages without
/// copying them (docs/performance.md). Not a value: its owner (a class, below)
/// copies it with `copy()` and frees it with `deallocate()`.
struct PODStorage<Element: BitwiseCopyable> {
    private(set) var base: UnsafeMutablePointer<Element>?
    private(set) var count = 0
    private(set) var capacity = 0

    init(capacity: Int = 0) {
        // `Element: BitwiseCopyable`: the compiler checks what `_isPOD` checked at run time.
        reserve(capacity)
    }

    mutating func reserve(_ wanted: Int) {
        guard wanted > capacity else { return }
        guard let raw = CorePlatform.reallocate(base, wanted * MemoryLayout<Element>.stride) else {
            fatalError("out of memory growing a table of \(Element.self) to \(wanted)")
        }
        base = raw.bindMemory(to: Element.self, capacity: wanted)
        capacity = wanted
    }

    /// Adds `e` at the end, doubling the block when full; returns its index.
    @inline(__always)
    mutating func append(_ e: Element) -> Int {
        // From 4: a fleet holds a million small tables (docs/performance.md, "Fleets").
        if count == capacity { reserve(Swift.max(4, capacity * 2)) }
        (base.unsafelyUnwrapped + count).initialize(to: e)
        count += 1
        return count - 1
    }

    @inline(__always)
    subscript(_ i: Int) -> Element {
        get { base.unsafelyUnwrapped[i] }
        nonmutating _modify { yield &base.unsafelyUnwrapped[i] }
    }

    /// A separate block with the same values and capacity.
    func copy() -> PODStorage {
        var c = PODStorage(capacity: capacity)
        if count > 0 { c.base.unsafelyUnwrapped.initialize(from: base.unsafelyUnwrapped, count: count) }
        c.count = count
        return c
    }

    /// Drops the first `n` values, moving the rest to the front.
    mutating func removeFirst(_ n: Int) {
        guard n > 0 else { return }
        precondition(n <= count)
        if n < count { base.unsafelyUnwrapped.update(from: base.unsafelyUnwrapped + n, count: count - n) }
        count -= n
    }

    /// Plain values need no deinitializing: freeing the block is all.
    func deallocate() { CorePlatform.free(base) }
}

/// An array indexed by absolute positions (a request's `id - 1`, a batch's
/// number − 1) that can let go of its first values: a fleet's device forgets
/// the requests it is done with (`Simulation.forgetFinished`). Reading a
/// forgotten position traps, as reading past the end does.
struct ForgettingArray<Element>: Sendable where Element: Sendable {
    /// How many values were forgotten: position `base` is `items[0]`.
    private(set) var base = 0
    private(set) var items: [Element] = []

    init() {}

    /// One past the last position ever held.
    var count: Int { base + items.count }
    var isEmpty: Bool { count == 0 }
    /// The positions still held.
    var indices: Range<Int> { base..<count }

    subscript(_ i: Int) -> Element {
        @inline(__always) get { items[i - base] }
        @inline(__always) _modify { yield &items[i - base] }
    }

    mutating func append(_ e: Element) { items.append(e) }
    mutating func append(contentsOf e: some Sequence<Element>) { items.append(contentsOf: e) }

    /// Forgets the values before position `end`; those after stay where they are.
    mutating func forget(upTo end: Int) {
        if end >= count { return forgetAll(upTo: end) }
        let n = end - base
        guard n > 0 else { return }
        items.removeFirst(n)
        base = end
    }

    /// Forgets every value held; positions go on from `end` (at least `count`).
    mutating func forgetAll(upTo end: Int) {
        base = Swift.max(count, end)
        if !items.isEmpty { items.removeAll(keepingCapacity: true) }
    }
}

/// Every request ever created, in id order: `table[id - 1]`. A simulation
/// that forgets what it is done with (a fleet's device) keeps only those from
/// `startIndex` (`forget(upTo:)`); the next id is `endIndex + 1` either way.
///
/// The requests in a `PODStorage` (a `Request` is a plain 64-byte value; a test
/// checks it is POD), so a long run's millions of requests grow in place. A
/// value with copy-on-write like `Array`: a copied simulation copies the table
/// on its first change.
public struct RequestTable: RandomAccessCollection, Sendable {
    final class Buffer: @unchecked Sendable {
        // Only changed by the one table that holds this buffer uniquely.
        @exclusivity(unchecked) var items: PODStorage<Request>
        init(_ items: PODStorage<Request> = PODStorage()) { self.items = items }
        deinit { items.deallocate() }
    }

    private var buffer = Buffer()
    /// Requests forgotten: index `forgotten` is the buffer's first.
    private var forgotten = 0

    public init() {}

    public var startIndex: Int { forgotten }
    public var endIndex: Int { forgotten + buffer.items.count }
    public var count: Int { buffer.items.count }

    /// For `Prefetch` (a fleet's lane): where the buffer's reference is in a
    /// table, and where the requests' address is in the buffer object.
    static var bufferWord: Int { MemoryLayout<RequestTable>.offset(of: \RequestTable.buffer)! }
    static var itemsWord: Int {
        let b = Buffer(PODStorage(capacity: 1))
        defer { withExtendedLifetime(b) {} }
        let object = UnsafeRawPointer(Unmanaged.passUnretained(b).toOpaque())
        return withUnsafeMutablePointer(to: &b.items) { UnsafeRawPointer($0) - object }
            + MemoryLayout<PODStorage<Request>>.offset(of: \PODStorage<Request>.base)!
    }

    public subscript(_ i: Int) -> Request {
        @inline(__always) get {
            let j = i &- forgotten
            precondition(j >= 0 && j < buffer.items.count, "request index out of range")
            return buffer.items.base.unsafelyUnwrapped[j]
        }
        @inline(__always) _modify {
            let j = i &- forgotten
            precondition(j >= 0 && j < buffer.items.count, "request index out of range")
            makeUnique()
            yield &buffer.items.base.unsafelyUnwrapped[j]
        }
    }

    /// The request at index `i` where it sits, or nil when it is not held
    /// (forgotten, or past the end): one comparison, for a caller that reads a
    /// field or two and must not trap on a forgotten one (`isCurrent`). Valid
    /// until the table next changes.
    @inline(__always)
    func held(_ i: Int) -> UnsafePointer<Request>? {
        let j = i &- forgotten
        guard UInt(bitPattern: j) < UInt(bitPattern: buffer.items.count) else { return nil }
        return UnsafePointer(buffer.items.base.unsafelyUnwrapped + j)
    }

    /// Forgets the requests before index `end`.
    mutating func forget(upTo end: Int) {
        let n = Swift.min(end, endIndex) - forgotten
        guard n > 0 else { return }
        forgotten += n
        // A table emptied after a backlog (a fleet's device after an outage) goes
        // back to a small block rather than keep the backlog's size.
        if n == buffer.items.count && buffer.items.capacity > 16 {
            buffer = Buffer()
            return
        }
        makeUnique()
        buffer.items.removeFirst(n)
    }

    mutating func append(_ r: Request) {
        makeUnique()
        _ = buffer.items.append(r)
    }

    @inline(__always)
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&buffer) { buffer = Buffer(buffer.items.copy()) }
    }
}
