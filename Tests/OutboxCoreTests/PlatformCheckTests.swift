import Foundation
import OutboxTestSupport
import XCTest

/// scripts/check-platform: no Linux-only API, C library import or platform branch
/// under Sources/ outside the platform files (issue 16), so a macOS build is a
/// matter of their Darwin branches.
final class PlatformCheckTests: XCTestCase {
    static let script = packageRoot + "/scripts/check-platform"
    static let tail = "; platform calls belong in the platform files (scripts/check-platform names them)"

    /// Runs the check on `root`; (status, stdout, stderr).
    func check(_ root: String) throws -> (Int32, String, String) {
        try runProgram(Self.script, [root])
    }

    /// A fresh temporary folder, removed after the test.
    func tempFolder() -> String {
        let root = NSTemporaryDirectory() + "check-platform-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        return root
    }

    func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    func test_theRepository_usesNoLinuxOnlyAPIOutsideThePlatformFiles() throws {
        let (status, out, err) = try check(packageRoot)
        XCTAssertEqual(err, "")
        XCTAssertEqual(out, "", "scripts/check-platform found platform code outside the platform files")
        XCTAssertEqual(status, 0)
    }

    /// A copy of the real Sources/ passes; the same copy with one `import Glibc`
    /// planted in a view file fails, naming that file and line alone.
    func test_aPlantedImportGlibc_inACopyOfSources_fails() throws {
        let root = tempFolder()
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: packageRoot + "/Sources", toPath: root + "/Sources")
        XCTAssertEqual(try check(root).0, 0)

        let file = root + "/Sources/OutboxUI/AppView.swift"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        try ("import Glibc\n" + text).write(toFile: file, atomically: true, encoding: .utf8)
        let (status, out, err) = try check(root)
        XCTAssertEqual(err, "")
        XCTAssertEqual(
            out,
            "Sources/OutboxUI/AppView.swift:1: `import Glibc`: one platform's C library imported outside the platform files"
                + Self.tail + "\n")
        XCTAssertEqual(status, 1)
    }

    func test_eachKindOfPlatformCode_isSaidWithFileLineAndWhy_andThePlatformFilesMayHoldIt() throws {
        let root = tempFolder()
        try write(
            """
            #if canImport(Darwin)
                import Darwin
            #endif
            @preconcurrency import Glibc
            func f() -> Int {
                let s = try? String(contentsOfFile: "/proc/self/statm")
                var st = stat()
                _ = Glibc.write(1, nil, 0)
                #if os(Linux)
                    return Int(st.st_mtim.tv_sec) + inotify_init1(0)
                #endif
            }
            """, to: root + "/Sources/OutboxUI/X.swift")
        // Comments, names that only contain a word, and the text of other strings are not platform code.
        try write(
            #"""
            // import Glibc, /proc/self/statm, inotify_init1, st_mtim
            /* #if canImport(Glibc)
               epoll_wait */
            let a = myinotify_init1, b = st_mtimespec, c = "procedure/", d = "see inotify(7)x"
            let e = GlibcLike.write, f = """
                the words of a manual: epoll, os
                """
            """#, to: root + "/Sources/OutboxCore/Y.swift")
        try write(
            "#include <pty.h>\n#include <ncursesw/curses.h>\n#include <stdio.h>\n",
            to: root + "/Sources/CFoo/include/foo.h")
        // The platform files themselves may.
        try write("import Glibc\nlet x = inotify_init1(0)\n", to: root + "/Sources/OutboxCLI/Platform.swift")
        try write("#include <pty.h>\n", to: root + "/Sources/CNcurses/include/shim.h")

        let (status, out, err) = try check(root)
        XCTAssertEqual(err, "")
        XCTAssertEqual(
            out.split(separator: "\n").map(String.init),
            [
                "Sources/CFoo/include/foo.h:1: `<pty.h>`: a header only Linux has" + Self.tail,
                "Sources/CFoo/include/foo.h:2: `<ncursesw/curses.h>`: a header only Linux has" + Self.tail,
                "Sources/OutboxUI/X.swift:1: `canImport(Darwin)`: a platform branch outside the platform files"
                    + Self.tail,
                "Sources/OutboxUI/X.swift:2: `import Darwin`: one platform's C library imported outside the platform files"
                    + Self.tail,
                "Sources/OutboxUI/X.swift:4: `import Glibc`: one platform's C library imported outside the platform files"
                    + Self.tail,
                "Sources/OutboxUI/X.swift:6: `/proc/`: a Linux file system that macOS does not have" + Self.tail,
                "Sources/OutboxUI/X.swift:8: `Glibc.`: a name of one platform's C library" + Self.tail,
                "Sources/OutboxUI/X.swift:9: `os(Linux)`: a platform branch outside the platform files" + Self.tail,
                "Sources/OutboxUI/X.swift:10: `st_mtim`: Linux only" + Self.tail,
            ])
        XCTAssertEqual(status, 1)
    }

    /// Foundation comes through OutboxFoundation alone (issue 16): a product file
    /// importing full Foundation would link ICU back in (34 MB), one importing
    /// FoundationEssentials would not build on macOS.
    func test_aFoundationImport_outsideOutboxFoundation_fails_andItsOwnFileMayHoldIt() throws {
        let root = tempFolder()
        try write(
            """
            import Foundation
            @preconcurrency import FoundationEssentials
            import FoundationXML
            #if canImport(FoundationEssentials)
            #endif
            // import Foundation
            let s = "import Foundation", t = FoundationEssentialsLike.x
            import OutboxFoundation
            """, to: root + "/Sources/OutboxCLI/X.swift")
        try write(
            """
            #if canImport(FoundationEssentials)
                @_exported import FoundationEssentials
                #if canImport(Glibc)
                    @_exported import Glibc
                #endif
            #else
                @_exported import Foundation
            #endif
            """, to: root + "/Sources/OutboxFoundation/FoundationPlatform.swift")
        let (status, out, err) = try check(root)
        XCTAssertEqual(err, "")
        let why =
            ": Foundation imported outside OutboxFoundation (full Foundation brings ICU; Essentials alone is not on macOS)"
        XCTAssertEqual(
            out.split(separator: "\n").map(String.init),
            [
                "Sources/OutboxCLI/X.swift:1: `import Foundation`" + why + Self.tail,
                "Sources/OutboxCLI/X.swift:2: `import FoundationEssentials`" + why + Self.tail,
                "Sources/OutboxCLI/X.swift:3: `import FoundationXML`" + why + Self.tail,
                "Sources/OutboxCLI/X.swift:4: `canImport(FoundationEssentials)`: a platform branch outside the platform files"
                    + Self.tail,
            ])
        XCTAssertEqual(status, 1)
    }

    func test_noRoot_isAUsageProblem() throws {
        let (status, out, err) = try check(tempFolder())
        XCTAssertEqual(out, "")
        XCTAssert(err.hasPrefix("scripts/check-platform: no Sources/ in "), err)
        XCTAssertEqual(status, 2)
    }
}
