import Foundation
import OutboxTestSupport
import XCTest

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// `~/` in a profile path means the same home folder for `outbox run` and
/// `outbox compare`, wherever the path is named: a scenario's `profile` line,
/// `--profiles`, a `compare` line and `expect on`. A HOME that is not an
/// absolute path is no home: both then read the user database's, and say the
/// path they looked at (issue 22, reliability S3 18).
final class HomeProfilePathTests: XCTestCase {
    var binary = ""
    var dir = ""

    override func setUpWithError() throws {
        binary = try requireBinary()
        dir = tempDir("homeprofile")
        addTeardownBlock { [dir] in try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/home", withIntermediateDirectories: true)
        try "profile acme\nbase ios\nset retry.attempts 2\n".write(
            toFile: dir + "/home/t.profile", atomically: true, encoding: .utf8)
    }

    /// (status, stdout, stderr) of the program with HOME set to `home`.
    func run(_ args: [String], home: String) -> (Int32, String, String) {
        let out = dir + "/out", err = dir + "/err"
        let env = ["HOME=" + home, "XDG_CONFIG_HOME=" + dir + "/config", "NO_COLOR=1"]
        guard let pid = spawnChild([binary] + args, stdout: out, stderr: err, environment: env) else {
            XCTFail("cannot start \(binary)")
            return (-1, "", "")
        }
        let status = waitExit(pid)
        return (
            status, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
            (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        )
    }

    func test_runAndCompare_readTheSameHomeProfile() throws {
        let home = dir + "/home"
        let line = dir + "/line.outbox"
        try "profile ~/t.profile\nat 0 launch\nat 0 server 503 always\nat 1s track a\nexpect at 1m state a dropped\n"
            .write(toFile: line, atomically: true, encoding: .utf8)
        let plain = dir + "/plain.outbox"
        try "profile ios\nat 0 launch\nat 0 server 503 always\nat 1s track a\n".write(
            toFile: plain, atomically: true, encoding: .utf8)
        let both = dir + "/both.outbox"
        let compared = [
            "profile ios", "compare ios,~/t.profile", "at 0 launch", "at 1s track a",
            "expect on ~/t.profile at 2s state a delivered",
        ]
        try (compared.joined(separator: "\n") + "\n").write(toFile: both, atomically: true, encoding: .utf8)

        let r = run(["run", "-q", line], home: home)
        XCTAssertEqual(r.0, 0, r.2)
        XCTAssertEqual(r.1, "\(line): 1 passed, 0 failed · 5 transitions · ended at 00:01:00.000\n")

        // --profiles: acme's two attempts, as `run` played them.
        let c = run(["compare", "-q", plain, "--profiles", "ios,~/t.profile"], home: home)
        XCTAssertEqual(c.0, 0, c.2)
        XCTAssertEqual(
            c.1,
            "ios   1 dropped · 4 att · 4 rcvd 0 cntd · 0/0 checks · end 00:03:31.800\n"
                + "acme  1 dropped · 2 att · 2 rcvd 0 cntd · 0/0 checks · end 00:00:31.400\n")
        XCTAssertEqual(c.2, "")

        // A compare line and expect on.
        let l = run(["compare", "-q", both], home: home)
        XCTAssertEqual(l.0, 0, l.2)
        XCTAssertEqual(
            l.1,
            "ios   1 delivered · 1 att · 1 rcvd 1 cntd · 0/0 checks · end 00:00:01.200\n"
                + "acme  1 delivered · 1 att · 1 rcvd 1 cntd · 1/1 checks · end 00:00:02.000\n")
    }

    /// A relative HOME: both commands look in the user database's home and say where.
    func test_aRelativeHome_runAndCompareSayTheSamePath() throws {
        let pw = try XCTUnwrap(getpwuid(getuid()))
        let userHome = String(cString: pw.pointee.pw_dir)
        try XCTSkipUnless(userHome.hasPrefix("/"), "this user has no home folder in the user database")
        try XCTSkipIf(
            FileManager.default.fileExists(atPath: userHome + "/t.profile"), "a t.profile in the real home")
        let line = dir + "/line.outbox"
        try "profile ~/t.profile\nat 0 launch\n".write(toFile: line, atomically: true, encoding: .utf8)
        let plain = dir + "/plain.outbox"
        try "profile ios\nat 0 launch\n".write(toFile: plain, atomically: true, encoding: .utf8)
        let refusal = "~/t.profile: cannot read the profile file \(userHome)/t.profile: No such file or directory"
        let r = run(["run", "-q", line], home: "home")
        XCTAssertEqual(r.0, 2)
        XCTAssertEqual(r.2, "\(line):1: bad profile line: \(refusal)\n")
        let c = run(["compare", "-q", plain, "--profiles", "ios,~/t.profile"], home: "home")
        XCTAssertEqual(c.0, 2)
        XCTAssertEqual(c.2, "outbox compare: --profiles: \(refusal)\n")
    }
}
