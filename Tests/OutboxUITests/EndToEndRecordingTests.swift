import Foundation
import OutboxTestSupport
import XCTest

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Issue 12, part 7, in a real terminal: `--record` keeps an existing file, and
/// a recording killed with SIGKILL mid-session is a readable file whose lines so
/// far replay, saved requests included, without the state directory.
extension EndToEndTests {
    func test_record_keepsAnExistingFile_andSurvivesKill9() throws {
        XCTAssertEqual(sh("command -v tmux").0, 0, "tmux is needed (.ci/run installs it)")
        let state = work + "/state", rec = work + "/kill.outbox"
        // An earlier session left two requests saved on the iOS device.
        let earlier = work + "/earlier.outbox"
        try "profile ios\nat 0 launch\nat 1s network offline\nat 2s track first\nat 3s ping\nat 5s quit\n"
            .write(toFile: earlier, atomically: true, encoding: .utf8)
        XCTAssertEqual(sh("\(binary) run --quiet --state-dir \(state) \(earlier)").0, 0)

        // An existing file: refused, exit 2, untouched; the message names --force.
        try "keep me\n".write(toFile: rec, atomically: true, encoding: .utf8)
        XCTAssertTrue(
            start(
                outbox("--profile ios --state-dir \(state) --record \(rec)") + "; " + Self.afterExit,
                width: 80, height: 24))
        guard waitFor("EXIT=2") else { return }
        XCTAssertTrue(screen().contains("--force"), screen())
        XCTAssertEqual(try String(contentsOfFile: rec, encoding: .utf8), "keep me\n")
        try FileManager.default.removeItem(atPath: rec)

        XCTAssertTrue(
            start(
                outbox("--profile ios --state-dir \(state) --record \(rec)") + "; " + Self.afterExit,
                width: 80, height: 24))
        guard waitFor("OUTBOX"), let pid = startedPid() else { return }
        keys("t")
        guard waitForFile(rec, "the track line", { $0.contains("track purchase") }) else { return }
        keys("o")
        guard waitForFile(rec, "the offline line", { $0.contains("network offline") }) else { return }
        keys("s")
        guard waitForFile(rec, "the screen line", { $0.contains("screen home") }) else { return }
        XCTAssertEqual(kill(pid, SIGKILL), 0)
        guard waitFor("EXIT=137") else { return }

        let text = try String(contentsOfFile: rec, encoding: .utf8)
        XCTAssertTrue(text.hasSuffix("\n"), text)
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(
            Array(lines.prefix(3)), ["# recorded by outbox 0.1.0", "# replay: outbox run \(rec)", "profile ios"])
        XCTAssertEqual(
            lines.filter { $0.hasPrefix("saved ") }, ["saved event first created 2s", "saved ping ping created 3s"])
        XCTAssertEqual(lines.filter { $0.hasPrefix("at ") }.count, 4, text)  // launch, track, offline, screen
        // It replays without the state directory: the saved requests come back at the launch.
        let (status, out) = sh("\(binary) run \(rec)")
        XCTAssertEqual(status, 0, out)
        XCTAssertTrue(out.contains("#1    event          first           new → queued"), out)
        XCTAssertTrue(out.contains("#2    ping           ping            new → queued"), out)
    }

    /// `:profile ios` in a recorded session: the app closes on the first device
    /// (the part ends with that `quit`), and the session goes on in a new part.
    func test_record_profileSwitch_goesOnInANewPart() throws {
        let rec = work + "/p.outbox"
        XCTAssertTrue(start(outbox("--memory --record \(rec)") + "; " + Self.afterExit, width: 80, height: 24))
        guard waitFor("OUTBOX") else { return }
        keys("t")
        guard waitForFile(rec, "the track line", { $0.contains("track purchase") }) else { return }
        keys(":profile ios", "Enter")
        guard waitFor(" ios ") else { return }
        keys("p")
        guard waitForFile(work + "/p-2.outbox", "the ping line", { $0.contains(" ping") }) else { return }
        keys("q")
        guard waitFor("EXIT=0") else { return }
        let first = try String(contentsOfFile: rec, encoding: .utf8).split(separator: "\n").map(String.init)
        guard first.count == 7 else { return XCTFail("expected 7 lines:\n" + first.joined(separator: "\n")) }
        XCTAssertTrue(first[5].hasPrefix("at ") && first[5].hasSuffix(" quit"), first[5])
        XCTAssertEqual(first[6], "# the session went on in \(work)/p-2.outbox (:profile ios: its device, a new clock)")
        let second = try String(contentsOfFile: work + "/p-2.outbox", encoding: .utf8)
        XCTAssertTrue(
            second.hasPrefix(
                "# part 2 of a session; before: \(rec) (:profile ios: its device, a new clock)\n# recorded by outbox 0.1.0\n# replay: outbox run \(work)/p-2.outbox\nprofile ios\nat 0 launch\n"
            ), second)
        XCTAssertTrue(second.hasSuffix(" quit\n"), second)
        XCTAssertEqual(sh("\(binary) run --quiet \(rec)").0, 0)
        XCTAssertEqual(sh("\(binary) run --quiet \(work)/p-2.outbox").0, 0)
        XCTAssertTrue(screen().contains("recorded the session in 2 parts"), screen())
    }
}
