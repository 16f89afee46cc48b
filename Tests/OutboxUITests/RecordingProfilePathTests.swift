import Foundation
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxUI

/// A recording names a profile file that lies in its own folder as
/// `./NAME.profile`, so the folder can be moved or shared whole and still
/// replay (the notes of issue 13: recordings held absolute paths).
final class RecordingProfilePathTests: XCTestCase {
    func test_aProfileBesideTheRecording_isNamedRelatively_andTheMovedFolderReplays() throws {
        let base = NSTemporaryDirectory() + "outbox-recpath-\(getpid())"
        let folder = base + "/session"
        try FileManager.default.createDirectory(atPath: folder + "/profiles", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let text = try String(
            contentsOfFile: uiPackageRoot + "/Tests/OutboxCoreTests/Fixtures/acme.profile", encoding: .utf8)
        try text.write(toFile: folder + "/profiles/acme.profile", atomically: true, encoding: .utf8)
        let acme = try Profile.parse(text, file: "acme.profile", path: folder + "/profiles/acme.profile").get()

        var s = Session(acme)
        s.model.recordingFolder = folder
        s.model.isRecording = true
        s.type("t")
        s.wait(1000)
        s.type("E")
        XCTAssertEqual(s.model.recordedReference(acme), "./profiles/acme.profile")
        XCTAssertEqual(s.model.recordedReference(Builtins.ios), "ios")
        let recording = s.model.recording(seed: 1, version: "test", path: folder + "/rec.outbox")
        XCTAssertTrue(recording.contains("\nprofile ./profiles/acme.profile\n"), recording)
        let lines = recording.split(separator: "\n").filter { !$0.hasPrefix("#") }
        XCTAssertFalse(lines.contains { $0.contains(base) }, "no absolute path in:\n" + recording)
        try recording.write(toFile: folder + "/rec.outbox", atomically: true, encoding: .utf8)

        func replay(_ file: String) -> (Int32, String) {
            let console = Console.capturing()
            let status = CLI.main(["run", "--quiet", file], console: console)
            return (status, console.out + console.err)
        }
        var (status, out) = replay(folder + "/rec.outbox")
        XCTAssertEqual(status, 0, out)
        XCTAssertTrue(out.contains("passed, 0 failed"), out)
        // The folder moved: the recording still finds its profile.
        XCTAssertEqual(rename(folder, base + "/moved"), 0)
        (status, out) = replay(base + "/moved/rec.outbox")
        XCTAssertEqual(status, 0, out)

        // A profile outside the recording's folder keeps its absolute path.
        s.model.recordingFolder = "/somewhere/else"
        XCTAssertEqual(s.model.recordedReference(acme), folder + "/profiles/acme.profile")
        s.model.recordingFolder = nil
        XCTAssertEqual(s.model.recordedReference(acme), folder + "/profiles/acme.profile")
    }
}
