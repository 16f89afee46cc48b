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
        if count == capacity { reserve(Swift.max(64, capacity * 2)) }
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

    /// Plain values need no deinitializing: freeing the block is all.
    func deallocate() { CorePlatform.free(base) }
}

/// Every request ever created, in id order: `table[id - 1]`.
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

    public init() {}

    public var startIndex: Int { 0 }
    public var endIndex: Int { buffer.items.count }
    public var count: Int { buffer.items.count }

    public subscript(_ i: Int) -> Request {
        @inline(__always) get {
            precondition(i >= 0 && i < buffer.items.count, "request index out of range")
            return buffer.items.base.unsafelyUnwrapped[i]
        }
        @inline(__always) _modify {
            precondition(i >= 0 && i < buffer.items.count, "request index out of range")
            makeUnique()
            yield &buffer.items.base.unsafelyUnwrapped[i]
        }
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
