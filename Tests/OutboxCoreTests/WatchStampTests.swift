import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Issue 22, item 3 (reliability report, defect 3): `--watch` missed a profile
/// file saved while a run played. The scenarios were stamped before the run,
/// the profiles only after it, so a save during the run was already in the
/// stamp and the watch waited for a change that had happened. Now each profile
/// is stamped when the resolver reads it (`ProfileLoader.ReadPaths`).
final class WatchStampTests: XCTestCase {
    var dir = ""

    override func setUp() {
        dir = NSTemporaryDirectory() + "outbox-watch-stamp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func test_aProfileSavedDuringTheRun_isAChange_theWatchPlaysAgain() throws {
        let profile = dir + "/p.profile"
        // Three attempts a second apart: at 1.5 s the request is still retrying.
        try "profile acme\nbase ios\nset retry.attempts 3\nset retry.delays 1s\n".write(
            toFile: profile, atomically: false, encoding: .utf8)
        let scenario = dir + "/s.outbox"
        let lines = [
            "profile ./p.profile", "at 0 launch", "at 0 server 503 always", "at 1s track a",
            "expect at 1500ms state a dropped",
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: scenario, atomically: false, encoding: .utf8)
        // The path as the scenario's line names it, from the scenario's folder.
        let named = dir + "/./p.profile"
        let cmd = try RunCommand.parse(["--quiet", "--watch", scenario])
        let console = Console.capturing()
        var plays = 0, waits = 0
        var seenChange: [Bool] = []
        let status = Watch.loop(
            files: [scenario], command: "outbox run --watch", console: console,
            wait: { paths, seen in
                waits += 1
                XCTAssertEqual(paths, [scenario, named])
                // What the watcher compares: a stamp now unlike the one seen is a change.
                seenChange.append(paths.map(Platform.stamp) != seen)
                guard waits == 1 else { return false }
                // The real watcher returns at once on it (on a thread: a wait for
                // ever would be this defect, and fails the test instead of hanging it).
                let done = DispatchSemaphore(value: 0)
                Thread.detachNewThread {
                    Platform.FileWatcher().wait(for: paths, seen: seen)
                    done.signal()
                }
                XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "the watcher saw the save")
                return true
            },
            play: { noted in
                plays += 1
                let s = cmd.play(
                    console: console, output: .lines(.text),
                    maxTransitions: ScenarioRunner.defaultMaxTransitions, noting: noted)
                if plays == 1 {
                    // The user saves the profile while the run plays, after it was read: one attempt.
                    try? "profile acme\nbase ios\nset retry.attempts 1\n".write(
                        toFile: profile, atomically: false, encoding: .utf8)
                }
                return s
            })
        XCTAssertEqual(plays, 2, "the save during the first run made a second")
        XCTAssertEqual(seenChange, [true, false])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(
            console.out,
            "00:00:01.500  expect    expect at 1500ms state a dropped  ✗ FAILED: #1 is retrying\n"
                + "\(scenario): 0 passed, 1 failed · 7 transitions · ended at 00:00:03.600\n"
                + "\(scenario): 1 passed, 0 failed · 3 transitions · ended at 00:00:01.500\n")
        XCTAssertEqual(
            console.err,
            "\(scenario):5: check failed: expect at 1500ms state a dropped: found #1 is retrying\n"
                + "outbox run --watch: a check failed (status 1); watching 1 file and 1 profile file for changes, Ctrl-C ends\n"
                + "outbox run --watch: every check holds (status 0); watching 1 file and 1 profile file for changes, Ctrl-C ends\n"
        )
    }
}
