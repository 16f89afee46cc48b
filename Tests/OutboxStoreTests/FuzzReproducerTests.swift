import Foundation
import OutboxTestSupport
import XCTest

/// The devices the fuzzer found (Fuzz/reproducers/devices, docs/reliability.md),
/// each given to the real program as a profile's database: `outbox state show`
/// and `outbox run` of a launch must end by themselves (never by a signal), and
/// an error must name the database file.
///
/// The ones in `reported` still crash: their fixes are outside the fuzzing work
/// (the store's range checks on loaded rows, the model). For them the test
/// checks they still crash, so that the list stays true: when one is fixed,
/// this fails and says to move it out of `reported`, and from then on it is held
/// to the contract like the others.
final class FuzzReproducerTests: XCTestCase {
    /// Reproducer file → what happens, as reported to the lead (issue 10).
    /// (Empty: the eight devices fuzzing found on 2026-12-01 — ids of 0 and past
    /// Int32, attempts at and past Int32, an open counter at UInt64.max, a negative
    /// schema version, a damaged schema, values of Int64.max micros — are all
    /// refused with their path now.)
    let reported: [String: String] = [:]

    /// Runs the built program; returns the signal that ended it (0 for none), its exit status and its stderr.
    func run(_ binary: String, _ args: [String], in dir: String) -> (signal: Int32, status: Int32, err: String) {
        let err = dir + "/stderr"
        // A crash should end the child at once, not wait for Swift's backtracer.
        guard let pid = spawnChild([binary] + args, stdout: dir + "/stdout", stderr: err,
                                   environment: ["SWIFT_BACKTRACE=enable=no"])
        else {
            XCTFail("cannot start \(binary)")
            return (0, -1, "")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        let signal = status & 0x7f
        return (signal, signal == 0 ? (status >> 8) & 0xff : -1, text)
    }

    /// Killed by a signal, or stopped by a sanitizer's report (under scripts/sanitizers
    /// AddressSanitizer catches the trap and exits with a status instead).
    func crashed(_ r: (signal: Int32, status: Int32, err: String)) -> Bool {
        r.signal != 0 || r.err.contains("Fatal error: ") || r.err.contains("ERROR: AddressSanitizer")
            || r.err.contains("WARNING: ThreadSanitizer")
    }

    func test_fuzzedDevices_neverCrashTheProgram_orAreReported() throws {
        // The program built beside the tests: under scripts/sanitizers, a sanitized one.
        let binary = try requireBinary()
        let folder = packageRoot + "/Fuzz/reproducers/devices"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".sqlite") }.sorted()
        XCTAssertGreaterThanOrEqual(files.count, reported.count)
        for name in reported.keys { XCTAssertTrue(files.contains(name), "\(name) is listed but not in \(folder)") }
        for file in files {
            // name.PROFILE.sqlite
            let profile = file.split(separator: ".").dropLast().last.map(String.init) ?? ""
            let dir = tempDir("fuzzed-" + file)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let db = dir + "/" + profile + ".sqlite"
            try FileManager.default.copyItem(atPath: folder + "/" + file, toPath: db)
            try "profile \(profile)\nat 0 launch\nat 1m quit\n".write(toFile: dir + "/launch.outbox", atomically: true, encoding: .utf8)
            let show = run(binary, ["state", "show", "--state-dir", dir, "--profile", profile], in: dir)
            let play = run(binary, ["run", "--quiet", "--state-dir", dir, dir + "/launch.outbox"], in: dir)
            if let why = reported[file] {
                XCTAssertTrue(crashed(show) || crashed(play),
                              "\(file) no longer crashes (\(why)): fixed? Move it out of `reported`")
                continue
            }
            for (what, r) in [("state show", show), ("run", play)] {
                XCTAssertFalse(crashed(r), "\(file): `outbox \(what)` crashed (signal \(r.signal)):\n\(r.err)")
                if !crashed(r) && r.status != 0 {
                    XCTAssertTrue(r.err.contains(db), "\(file): `outbox \(what)` failed without naming \(db):\n\(r.err)")
                }
            }
        }
    }
}
