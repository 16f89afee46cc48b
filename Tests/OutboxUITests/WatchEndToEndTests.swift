import Foundation
import OutboxTestSupport
import XCTest

/// `outbox run --watch` in a real terminal (tmux, issue 15 item 5): a file
/// edited beside it is played again on a cleared screen; bad input is shown
/// and the watch goes on; a profile file the scenario names is watched too;
/// Ctrl-C ends it.
extension EndToEndTests {
    func test_runWatch_rerunsOnAnEdit_clearsTheScreen_keepsWatchingPastBadInput_ctrlCEnds() throws {
        XCTAssertEqual(sh("command -v tmux").0, 0, "tmux is needed (.ci/run installs it)")
        let file = work + "/watched.outbox"
        func save(_ text: String) throws {
            // As an editor that saves by renaming does: a new file put in the old one's place.
            try text.write(toFile: file + ".tmp", atomically: false, encoding: .utf8)
            XCTAssertEqual(rename(file + ".tmp", file), 0)
        }
        try save("profile ios\nat 0 launch\nat 1s track purchase\nexpect at 2s state purchase delivered\n")
        XCTAssertTrue(
            start(
                "\(Self.trapKeys); cd \(work) && \(outbox("run --watch watched.outbox")); \(Self.afterExit)",
                width: 120, height: 40))
        guard waitFor("watched.outbox: 1 passed, 0 failed") else { return }
        XCTAssertTrue(waitFor("watching 1 file for changes, Ctrl-C ends"))

        // Edited in place: the new run replaces the old one on the screen.
        try "profile ios\nat 0 launch\nat 1s track refund\nexpect at 2s state refund queued\n".write(
            toFile: file, atomically: false, encoding: .utf8)
        guard waitFor("watched.outbox: 0 passed, 1 failed") else { return }
        var shown = screen()
        XCTAssertFalse(shown.contains("purchase"), "the screen was cleared between runs:\n" + shown)
        XCTAssertTrue(shown.contains("watched.outbox:4: check failed: expect at 2s state refund queued"), shown)
        XCTAssertTrue(shown.contains("a check failed (status 1)"), shown)

        // Bad input: the errors, and the watch goes on.
        try save("profile ios\nat 0 launch\nat 1s trak refund\nexpect at 2s state refund delivered\n")
        guard waitFor("did you mean `track`?") else { return }
        XCTAssertTrue(waitFor("bad input or a limit (status 2); watching 1 file"))

        // A profile file the scenario names is watched as well.
        let profile = try String(
            contentsOfFile: packageRoot + "/examples/what-if/ios-jitter.profile", encoding: .utf8)
        try profile.write(toFile: work + "/ios-jitter.profile", atomically: true, encoding: .utf8)
        try save("profile ./ios-jitter.profile\nat 0 launch\nat 1s track refund\nexpect at 2s state refund delivered\n")
        guard waitFor("watching 1 file and 1 profile file for changes") else { return }
        shown = screen()
        XCTAssertFalse(shown.contains("trak"), shown)
        try (profile + "bogus line\n").write(toFile: work + "/ios-jitter.profile", atomically: false, encoding: .utf8)
        XCTAssertTrue(waitFor("unknown statement `bogus`"))

        // Ctrl-C ends it as it ends any command: the shell sees 130.
        keys("C-c")
        XCTAssertTrue(waitFor("EXIT=130"))
    }

    /// `outbox compare --watch`: the table again after an edit, the screen
    /// cleared, bad input shown and the watch going on, Ctrl-C ends it.
    func test_compareWatch_rerunsOnAnEdit_keepsWatchingPastBadInput_ctrlCEnds() throws {
        XCTAssertEqual(sh("command -v tmux").0, 0, "tmux is needed (.ci/run installs it)")
        let file = work + "/cmp.outbox"
        try "profile ios\ncompare ios,android\nat 0 launch\nat 1s network offline\nat 2s track purchase\n".write(
            toFile: file, atomically: false, encoding: .utf8)
        XCTAssertTrue(
            start(
                "\(Self.trapKeys); cd \(work) && \(outbox("compare --watch cmp.outbox")); \(Self.afterExit)",
                width: 120, height: 40))
        guard waitFor("watching 1 file for changes, Ctrl-C ends") else { return }
        var shown = screen()
        XCTAssertTrue(shown.contains("purchase"), shown)
        XCTAssertTrue(shown.contains("outbox compare --watch: every check holds (status 0)"), shown)

        try "profile ios\ncompare ios,android\nat 0 launch\nat 2s track refund\nexpect at 3s state refund queued\n".write(
            toFile: file, atomically: false, encoding: .utf8)
        guard waitFor("a check failed (status 1)") else { return }
        shown = screen()
        XCTAssertFalse(shown.contains("purchase"), "the screen was cleared between runs:\n" + shown)
        XCTAssertTrue(shown.contains("refund"), shown)

        try "profile ios\ncompare ios,android\nat 0 lanch\n".write(toFile: file, atomically: false, encoding: .utf8)
        guard waitFor("did you mean `launch`?") else { return }
        XCTAssertTrue(waitFor("outbox compare --watch: bad input or a limit (status 2); watching 1 file"))

        keys("C-c")
        XCTAssertTrue(waitFor("EXIT=130"))
    }
}
