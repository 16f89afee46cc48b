import Foundation
import OutboxTestSupport
import XCTest

/// `make install` / `make uninstall` and `scripts/package-deb --dry-run` (issue 16):
/// the files a user gets, the same list both ways, and nothing left after uninstall.
final class PackagingTests: XCTestCase {
    /// The `outbox` built with these tests (any build: the list does not depend on it).
    func binary() throws -> String { try builtOutbox() }

    /// Runs `args` in the package root; (status, stdout, stderr).
    func run(_ args: [String]) throws -> (Int32, String, String) {
        try runProgram("/usr/bin/env", args, in: packageRoot)
    }

    func tempFolder() -> String {
        let root = NSTemporaryDirectory() + "packaging-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        return root
    }

    /// Every file under `root`, as `/path` below it, sorted.
    func files(under root: String) -> [String] {
        let found = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return found.filter { path in
            var dir: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &dir) && !dir.boolValue
        }.map { "/" + $0 }.sorted()
    }

    /// What the repository says a user gets, under `prefix` (zsh's folder apart).
    func expected(prefix: String, zsh: String) -> [String] {
        let repo = files(under: packageRoot + "/examples").map { "/examples" + $0 }
        let themes = files(under: packageRoot + "/themes").filter { $0.hasSuffix(".theme") }.map { "/themes" + $0 }
        let profiles = files(under: packageRoot + "/profiles").filter { $0.hasSuffix(".profile") }.map {
            "/profiles" + $0
        }
        let docs =
            ["README.md", "copyright"]
            + ["differences", "guide", "install", "keys", "profiles", "real-sdks", "rules", "scenarios", "storage"].map {
                "/docs/\($0).md"
            }
            + repo + themes + profiles
        return
            (docs.map { prefix + "/share/doc/outbox/" + $0.drop { $0 == "/" } }
            + [
                prefix + "/bin/outbox",
                prefix + "/share/bash-completion/completions/outbox",
                prefix + "/share/fish/vendor_completions.d/outbox.fish",
                prefix + "/share/man/man1/outbox.1.gz",
                zsh + "/_outbox",
            ]).sorted()
    }

    func test_makeInstall_intoAPrefix_putsEachFileWhereItsToolLooks_andUninstallTakesThemAllBack() throws {
        let bin = try binary()
        let dest = tempFolder()
        let prefix = "/opt/outbox-test"
        let make = [
            "make", "--no-print-directory", "-s", "DESTDIR=" + dest, "PREFIX=" + prefix, "OUTBOX=" + bin, "STRIP=true",
        ]
        let (status, _, err) = try run(make + ["install"])
        XCTAssertEqual(err, "")
        XCTAssertEqual(status, 0)
        XCTAssertEqual(files(under: dest), expected(prefix: prefix, zsh: prefix + "/share/zsh/site-functions"))
        XCTAssertGreaterThan(files(under: dest).filter { $0.contains("/examples/") }.count, 10)

        // The manual is docs/outbox.1; each completion is what the binary generates.
        let (_, manual, _) = try run(["gzip", "-dc", dest + prefix + "/share/man/man1/outbox.1.gz"])
        XCTAssertEqual(manual, try String(contentsOfFile: packageRoot + "/docs/outbox.1", encoding: .utf8))
        for (shell, path) in [
            ("bash", "/share/bash-completion/completions/outbox"), ("zsh", "/share/zsh/site-functions/_outbox"),
            ("fish", "/share/fish/vendor_completions.d/outbox.fish"),
        ] {
            let (_, script, _) = try run([bin, "--generate-completion-script", shell])
            XCTAssertEqual(try String(contentsOfFile: dest + prefix + path, encoding: .utf8), script, shell)
            XCTAssert(script.contains("outbox"), shell)
        }

        let (status2, _, err2) = try run(make + ["uninstall"])
        XCTAssertEqual(err2, "")
        XCTAssertEqual(status2, 0)
        XCTAssertEqual(files(under: dest), [])
    }

    func test_packageDebDryRun_listsTheSameFilesUnderUsr_withZshInDebiansVendorFolder() throws {
        let (status, out, err) = try run(["scripts/package-deb", "--dry-run", "--binary", try binary()])
        XCTAssertEqual(err, "")
        XCTAssertEqual(status, 0)
        XCTAssertEqual(
            out.split(separator: "\n").map(String.init),
            expected(prefix: "/usr", zsh: "/usr/share/zsh/vendor-completions"))
        XCTAssert(out.contains("/usr/share/doc/outbox/copyright\n"), "Debian wants a copyright file")
    }

    func test_makeInstall_withoutABinary_saysWhatToDo() throws {
        let (status, out, err) = try run([
            "make", "--no-print-directory", "-s", "DESTDIR=" + tempFolder(), "OUTBOX=/nonexistent/outbox", "install",
        ])
        XCTAssertEqual(out, "")
        // The first line is ours; make adds one naming the rule.
        XCTAssertEqual(
            err.split(separator: "\n").first.map(String.init),
            "make install: no binary at /nonexistent/outbox; run `make` first (or give OUTBOX=PATH)")
        XCTAssertEqual(status, 2)
    }

    func test_packageDeb_refusesAnUnknownOption_byName() throws {
        let (status, out, err) = try run(["scripts/package-deb", "--dryrun"])
        XCTAssertEqual(out, "")
        XCTAssertEqual(
            err,
            "scripts/package-deb: unknown option `--dryrun`\nusage: scripts/package-deb [--binary PATH] [--dry-run]\n")
        XCTAssertEqual(status, 2)
    }
}
