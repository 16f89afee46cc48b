// The product's one door to Foundation (issue 16). Full Foundation links
// FoundationInternationalization and with it ICU (34 MB of data in the static
// binary); FoundationEssentials has what Outbox uses (Data, Date, URL,
// FileManager, ProcessInfo, JSONDecoder, the String helpers) without ICU.
// Linux's toolchain has FoundationEssentials as a module of its own; macOS's SDK
// may not (there, Foundation is one framework), so the branch picks what is
// there. A file's `@_exported import` reaches only the modules that import this
// one, not the other files of its own module: hence a module of one file, which
// the command line's files import instead of Foundation (scripts/check-platform
// keeps `import Foundation` out of Sources/ elsewhere).
#if canImport(FoundationEssentials)
    @_exported import FoundationEssentials
    // Full Foundation brings the C library along (getpid, signals, exit);
    // FoundationEssentials does not, so it comes from here, as before.
    #if canImport(Glibc)
        @_exported import Glibc
    #elseif canImport(Musl)
        @_exported import Musl
    #elseif canImport(Darwin)
        @_exported import Darwin
    #endif
#else
    @_exported import Foundation
#endif
