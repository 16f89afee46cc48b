#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every request ever created, in id order: `table[id - 1]`.
///
/// An array of `Request` (a plain 64-byte value, nothing to retain) that grows
/// with `realloc` instead of allocate-copy-free. A long run holds millions of
/// requests; a Swift `Array` doubling to 4.3M of them wrote every earlier buffer
/// in full, touching about three times the memory it kept and making the
/// kernel's page faults most of a 24 h run's system time. Large blocks are
/// mapped memory, which `realloc` moves without copying (docs/performance.md).
/// A value with copy-on-write like `Array`: a copied simulation copies the table
/// on its first change.
public struct RequestTable: RandomAccessCollection, Sendable {
    final class Buffer: @unchecked Sendable {
        // Only changed by the one table that holds this buffer uniquely.
        @exclusivity(unchecked) var base: UnsafeMutablePointer<Request>?
        @exclusivity(unchecked) var count = 0
        @exclusivity(unchecked) var capacity = 0

        init() {}

        init(copying other: Buffer, capacity: Int) {
            reserve(Swift.max(capacity, other.count))
            if other.count > 0, let to = base, let from = other.base { to.initialize(from: from, count: other.count) }
            count = other.count
        }

        deinit { free(base) }  // Request holds no references (a test checks it is POD): nothing to deinitialize

        func reserve(_ wanted: Int) {
            guard wanted > capacity else { return }
            let bytes = wanted * MemoryLayout<Request>.stride
            guard let raw = realloc(base, bytes) else { fatalError("out of memory growing the request table to \(wanted)") }
            base = raw.bindMemory(to: Request.self, capacity: wanted)
            capacity = wanted
        }
    }

    private var buffer = Buffer()

    public init() {}

    public var startIndex: Int { 0 }
    public var endIndex: Int { buffer.count }
    public var count: Int { buffer.count }

    public subscript(_ i: Int) -> Request {
        @inline(__always) get {
            precondition(i >= 0 && i < buffer.count, "request index out of range")
            return buffer.base.unsafelyUnwrapped[i]
        }
        @inline(__always) _modify {
            precondition(i >= 0 && i < buffer.count, "request index out of range")
            makeUnique()
            yield &buffer.base.unsafelyUnwrapped[i]
        }
    }

    mutating func append(_ r: Request) {
        makeUnique()
        let b = buffer
        if b.count == b.capacity { b.reserve(Swift.max(64, b.capacity * 2)) }
        (b.base.unsafelyUnwrapped + b.count).initialize(to: r)
        b.count += 1
    }

    @inline(__always)
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&buffer) { buffer = Buffer(copying: buffer, capacity: buffer.capacity) }
    }
}
