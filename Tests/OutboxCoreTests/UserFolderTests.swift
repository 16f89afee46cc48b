import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// The user folder (issue 13): `$XDG_CONFIG_HOME/outbox/profiles/NAME.profile`
/// is found by its name wherever a profile is named, and listed by `outbox profiles`.
final class UserFolderTests: XCTestCase {
    var home = ""
    var saved: String?

    override func setUpWithError() throws {
        home = NSTemporaryDirectory() + "outbox-xdg-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: home + "/outbox/profiles", withIntermediateDirectories: true)
        saved = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"]
        setenv("XDG_CONFIG_HOME", home, 1)
    }

    override func tearDownWithError() throws {
        if let saved { setenv("XDG_CONFIG_HOME", saved, 1) } else { unsetenv("XDG_CONFIG_HOME") }
        try? FileManager.default.removeItem(atPath: home)
    }

    func write(_ text: String, _ name: String) throws {
        try text.write(toFile: home + "/outbox/profiles/" + name, atomically: true, encoding: .utf8)
    }

    func test_aProfileInTheUserFolder_isFoundByName_everywhere() throws {
        try write("profile patient\ntitle \"iOS, patient\"\nbase ios\nset retry.attempts 9\n", "patient.profile")
        let scenario = home + "/s.outbox"
        try "profile patient\nat 0 launch\nat 0 server 503 x8\nat 0 track a\nexpect at 20m attempts a 9\n"
            .write(toFile: scenario, atomically: true, encoding: .utf8)
        let (status, out, err) = cli(["run", scenario, "--quiet"])
        XCTAssertEqual(status, 0, err)
        XCTAssertTrue(out.contains("1 passed, 0 failed"), out)
        let (ps, pout, _) = cli(["profiles", "patient"])
        XCTAssertEqual(ps, 0)
        XCTAssertTrue(pout.hasPrefix("patient: iOS, patient\n(from \(home)/outbox/profiles/patient.profile)\n"), pout)
        XCTAssertTrue(pout.contains("  retry.attempts  9 "), pout)
        // Listed after the built-ins.
        let (_, all, _) = cli(["profiles"])
        XCTAssertTrue(all.contains("\npatient: iOS, patient\n"), all)
        XCTAssertLessThan(all.range(of: "flutter: ")!.lowerBound, all.range(of: "patient: ")!.lowerBound)
        // And in a compare list.
        let (cs, cout, cerr) = cli(["compare", scenario, "--profiles", "ios,patient", "--quiet"])
        XCTAssertNotEqual(cs, 2, cerr)
        // Quiet: a summary line per profile, the user's by its name (the plain expect checks the file's own).
        XCTAssertTrue(cout.contains("\npatient  ") || cout.hasPrefix("patient  "), cout)
        XCTAssertTrue(cout.contains("9 att"), cout)
    }

    func test_aBadFileInTheFolder_isBadInputNamingItsLine_andANameMismatchIsToo() throws {
        try write("profile broken\nbase ios\nset retry.attempts 0\n", "broken.profile")
        let (s1, _, e1) = cli(["profiles", "broken"])
        XCTAssertEqual(s1, 2)
        XCTAssertTrue(
            e1.contains(
                "\(home)/outbox/profiles/broken.profile:3: bad value `0` for retry.attempts, expected a whole number from 1 to 1000"
            ),
            e1)
        try write("profile other\nbase ios\n", "mine.profile")
        let (s2, _, e2) = cli(["profiles", "mine"])
        XCTAssertEqual(s2, 2)
        XCTAssertTrue(e2.contains("the file is found as `mine` but names itself `other`; expected `profile mine`"), e2)
        // A name that is nowhere lists the folder's profiles.
        let (s3, _, e3) = cli(["profiles", "nosuch"])
        XCTAssertEqual(s3, 2)
        XCTAssertTrue(e3.contains("in \(home)/outbox/profiles: broken, mine"), e3)
    }

    func test_aFileMayNotTakeABuiltinsName_unlessItIsThatBuiltin() throws {
        try write("profile ios\nbase android\n", "ios2.profile")
        let (s, _, e) = cli(["profiles", home + "/outbox/profiles/ios2.profile"])
        XCTAssertEqual(s, 2)
        XCTAssertTrue(e.contains(":1: the profile is named `ios`, a built-in's name"), e)
        try Builtins.source("ios")!.write(toFile: home + "/copy.profile", atomically: true, encoding: .utf8)
        let (cs, cout, _) = cli(["profiles", home + "/copy.profile"])
        XCTAssertEqual(cs, 0)
        XCTAssertTrue(cout.hasPrefix("ios: Positive User (UserCom) SDK on iOS\n"), cout)
    }

    /// Issue 22 (reliability S3 22): a folder of thousands of files is not listed
    /// whole; a file no name can find is named as such; a built-in's name in the
    /// folder gets a note.
    func test_theFolder_listCapped_misnamedAndShadowedFilesSaidSo() throws {
        for i in 0..<3000 { try write("profile p\(i)\nbase ios\n", "p\(i).profile") }
        let (s1, _, e1) = cli(["profiles", "nosuch"])
        XCTAssertEqual(s1, 2)
        let names = (0..<3000).map { "p\($0)" }.sorted().prefix(10).joined(separator: ", ")
        XCTAssertTrue(
            e1.contains(
                "; in \(home)/outbox/profiles: \(names) (and 2990 more: `outbox profiles` lists them), or a profile file"
            ),
            e1)
        XCTAssertLessThan(e1.utf8.count, 600, "not every file: \(e1.utf8.count) bytes")
        for i in 0..<3000 { try FileManager.default.removeItem(atPath: home + "/outbox/profiles/p\(i).profile") }

        try write("profile upper\nbase ios\n", "UPPER.profile")
        try write("profile ios\nbase ios\n", "ios.profile")
        try write("profile mine\nbase android\n", "mine.profile")
        let (s2, out, e2) = cli(["profiles"])
        XCTAssertEqual(s2, 2, "a file no word finds is a problem of the folder")
        XCTAssertTrue(out.contains("\nmine: "), out)
        XCTAssertEqual(
            e2,
            """
            outbox profiles: \(home)/outbox/profiles/UPPER.profile: `UPPER` is not a profile name, so no word finds the file; expected a file named NAME.profile, NAME being 1 to 32 of a-z, 0-9, - and _ (starting with a letter or digit)
            outbox profiles: note: \(home)/outbox/profiles/ios.profile is not used: `ios` is a built-in's name, and a built-in comes first; give the file and its `profile` line another name to use it

            """)
        XCTAssertFalse(e2.contains("unknown profile"), e2)
        // Neither is offered as a profile to use.
        let (_, _, e3) = cli(["profiles", "nosuch"])
        XCTAssertTrue(e3.contains("; in \(home)/outbox/profiles: mine, or a profile file"), e3)
        XCTAssertEqual(ProfileLoader.userNames, ["mine"])
    }
}
