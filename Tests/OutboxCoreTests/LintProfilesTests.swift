import Foundation
import OutboxTestSupport
import XCTest

/// scripts/lint-profiles: no Swift file under Sources/ outside the profile seam
/// (Sources/OutboxCore/Profiles/) names a built-in profile (issue 13).
final class LintProfilesTests: XCTestCase {
    static let script = packageRoot + "/scripts/lint-profiles"

    /// Runs the lint on `root`; (status, stdout, stderr).
    func lint(_ root: String) throws -> (Int32, String, String) {
        try runProgram(Self.script, [root])
    }

    /// A package root in a fresh temporary directory, with `files` (path: text) in it.
    func tempRoot(_ files: [String: String]) throws -> String {
        let root = NSTemporaryDirectory() + "lint-profiles-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        for (path, text) in files {
            let full = root + "/" + path
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        return root
    }

    func test_theRepository_namesNoBuiltinOutsideTheProfileSeam() throws {
        let (status, out, err) = try lint(packageRoot)
        XCTAssertEqual(err, "")
        XCTAssertEqual(out, "", "scripts/lint-profiles found built-ins named outside Sources/OutboxCore/Profiles")
        XCTAssertEqual(status, 0)
    }

    static let why = [
        "member":
            "a built-in named outside the profile seam; ask the profile (hasCompletions, hasFlush, makes(kind), ...) or pick it as Builtins.",
        "string":
            "a built-in named by a string outside the profile seam; take names from the registry (Builtins.all) or the profile (profile.name)",
        "userCom": "a branch on three of the built-ins; ask the profile for the capability it stands for",
    ]

    func test_plantedNames_fail_eachSaidWithFileLineAndWhy() throws {
        let root = try tempRoot([
            "Sources/OutboxUI/X.swift": """
            import OutboxCore
            func f(_ p: Profile) -> Int {
                if p == .ios { return 1 }
                let name = "android"
                if p.isUserCom { return 2 }
                let q = Profile.flutter, r: Profile = .linktrail
                return name.count + (q == r ? 0 : 3)
            }
            """,
            // Allowed: the registry's picks, comments, other strings, other names.
            "Sources/OutboxCLI/Y.swift": #"""
            import OutboxCore
            // p == .ios, "ios", isUserCom: a comment
            /* .android
               "flutter" */
            let a = Builtins.ios, b = Builtins.linktrail
            let c = "see .ios and isUserCom", d = "iosx", e = "ios ", f = #"flutter "#
            let g = """
                .android
                """
            let h = x.iosMode, i = isUserComplete
            """#,
            // The seam itself may name them.
            "Sources/OutboxCore/Profiles/Z.swift": "let z: Profile = .ios\nlet n = \"ios\"\n",
        ])
        let (status, out, err) = try lint(root)
        XCTAssertEqual(status, 1)
        XCTAssertEqual(err, "")
        let w = Self.why
        XCTAssertEqual(
            out.split(separator: "\n").map(String.init),
            [
                "Sources/OutboxUI/X.swift:3: `.ios`: " + w["member"]! + "ios",
                "Sources/OutboxUI/X.swift:4: \"android\": " + w["string"]!,
                "Sources/OutboxUI/X.swift:5: `isUserCom`: " + w["userCom"]!,
                "Sources/OutboxUI/X.swift:6: `.flutter`: " + w["member"]! + "flutter",
                "Sources/OutboxUI/X.swift:6: `.linktrail`: " + w["member"]! + "linktrail",
            ])
    }

    func test_aCleanTree_passes() throws {
        let root = try tempRoot(["Sources/OutboxUI/X.swift": "let p = Builtins.android\nlet ok = p.hasCompletions\n"])
        let (status, out, err) = try lint(root)
        XCTAssertEqual([String(status), out, err], ["0", "", ""])
    }

    /// Issue 23: the vocabulary's words (profiles/usercom.calls) are data too.
    func test_vocabularyWords_fail_outsidePolicy() throws {
        let root = try tempRoot([
            "profiles/usercom.calls": "call logout makes logout token-removal key u \"x\"\n",
            "Sources/OutboxUI/X.swift": "let k = \"token-removal\"\nlet t = \"(UserCom) help\"\nlet fine = \"a logout line\"\n",
            "Sources/OutboxCore/Policy/P.swift": "let k = \"logout\"\n",
        ])
        let (status, out, _) = try lint(root)
        XCTAssertEqual(status, 1)
        XCTAssertEqual(
            out.split(separator: "\n").map { String($0.prefix(36)) },
            ["Sources/OutboxUI/X.swift:1: \"token-r", "Sources/OutboxUI/X.swift:2: \"(UserCo"])
    }

    func test_notAPackageRoot_isAUsageProblem() throws {
        let root = try tempRoot(["README": "no Sources here\n"])
        let (status, out, err) = try lint(root)
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertEqual(err, "scripts/lint-profiles: no Sources/ in \(root)\n")
    }
}
