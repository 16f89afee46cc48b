#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The core's only contact with the C library: four memory functions that are
/// the same on every platform (C's own, not the system's), behind one import.
/// The rest of the module imports no Glibc or Darwin (scripts/check-platform).
enum CorePlatform {
    /// `realloc`: grows (or first allocates, `p` nil) a block; nil when out of memory.
    @inline(__always)
    static func reallocate(_ p: UnsafeMutableRawPointer?, _ bytes: Int) -> UnsafeMutableRawPointer? {
        realloc(p, bytes)
    }

    @inline(__always)
    static func free(_ p: UnsafeMutableRawPointer?) {
        #if canImport(Darwin)
            Darwin.free(p)
        #else
            Glibc.free(p)
        #endif
    }

    /// Whether `count` bytes at `a` and `b` are the same (`memcmp`).
    @inline(__always)
    static func equalBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
        memcmp(a, b, count) == 0
    }

    /// The first `byte` in the `count` bytes at `p` (`memchr`), or nil.
    @inline(__always)
    static func find(_ byte: UInt8, in p: UnsafeRawPointer, _ count: Int) -> UnsafeRawPointer? {
        UnsafeRawPointer(memchr(p, Int32(byte), count))
    }
}
