import Foundation
import OutboxTestSupport
import XCTest

/// `offline self`, `save never` and the app lifecycle through the debug
/// binary, as a user runs them: a profile file beside a scenario file,
/// `outbox run` (with `--state-dir` for a memory-only profile).
final class LifecycleCLITests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("outbox-lifecycle-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    /// Runs the built `outbox` with `args`; returns (status, stdout, stderr).
    private func outbox(_ args: [String]) throws -> (Int32, String, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try builtOutbox())
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, o, e)
    }

    /// A profile with the three mechanisms, built on iOS.
    static let profile = """
        profile phone
        base ios
        rule PH-1 "The queue lives in memory: nothing survives a quit."
        rule PH-2 "After 2 failed attempts in a row the SDK marks itself offline until the network returns."
        rule PH-3 "When the app goes to the background the queued requests are sent at once."
        rule PH-4 "An upload still running 10 s after the app went to the background is cancelled."
        save never rule PH-1
        offline self after 2 failures rule PH-2
        on background flush rule PH-3
        background limit 10s rule PH-4
        """

    func test_run_aScenarioFileOnTheProfileFile_andTheStateDirStaysEmpty() throws {
        try Self.profile.write(to: dir.appendingPathComponent("phone.profile"), atomically: true, encoding: .utf8)
        let scenario = dir.appendingPathComponent("story.outbox")
        try """
        profile ./phone.profile
        at 0 launch
        at 0 server 503 x2
        at 0 track a
        at 0.1s track b
        expect at 0.3s state b retrying
        # Two failures in a row: marked offline; the retries wait queued.
        expect at 31s state a queued
        expect at 31s log "SDK marks itself offline"
        at 40s network offline
        at 41s network online
        expect at 41.3s state b delivered
        at 50s track c
        at 50s network offline
        expect at 50s state c retrying
        at 50.5s background
        expect at 50.5s state c retrying
        at 51s quit
        expect at 51s dropped c not-saved
        expect at 51s saved 0
        at 52s launch
        at 53s background
        at 54s foreground
        """.write(to: scenario, atomically: true, encoding: .utf8)
        let state = dir.appendingPathComponent("state", isDirectory: true)
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let (status, out, err) = try outbox(["run", "--state-dir", state.path, scenario.path])
        XCTAssertEqual(status, 0, err + out)
        XCTAssertTrue(out.contains("PH-2"), out)
        XCTAssertTrue(out.contains("c               retrying → dropped"), out)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: state.path), [],
            "a profile that saves nothing leaves no device file")

        let (s2, jsonl, e2) = try outbox(["run", "--format", "jsonl", scenario.path])
        XCTAssertEqual(s2, 0, e2)
        for line in [
            #"{"t":0.3,"log":"SDK marks itself offline: 2 failed attempts in a row; nothing is sent until the network returns or the app launches again","source":"sdk","rule":"PH-2"}"#,
            #"{"t":41,"log":"SDK no longer offline: the network returned; sending 2 queued","source":"sdk","rule":"PH-2"}"#,
            #"{"t":50.5,"log":"app went to the background","source":"outbox","rule":"PH-3"}"#,
            #"{"t":51,"log":"app closed · 0 saved on the device","source":"outbox"}"#,
            #"{"t":54,"log":"app came to the foreground","source":"outbox","rule":"PH-3"}"#,
        ] {
            XCTAssertTrue(jsonl.split(separator: "\n").contains { $0 == line }, line + "\n" + jsonl)
        }
    }

    /// A `background` line on a profile without the lifecycle: exit 2, file and line.
    func test_run_backgroundOnAProfileWithoutIt() throws {
        let scenario = dir.appendingPathComponent("bad.outbox")
        try "profile ios\nat 0 launch\nat 1s background\n".write(to: scenario, atomically: true, encoding: .utf8)
        let (status, _, err) = try outbox(["run", scenario.path])
        XCTAssertEqual(status, 2)
        XCTAssertTrue(
            err.contains(
                "bad.outbox:3: Positive User (UserCom) SDK on iOS has no app lifecycle (background, foreground)"),
            err)
    }
}
