import Foundation
import OutboxTestSupport
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
            contentsOfFile: packageRoot + "/Tests/OutboxCoreTests/Fixtures/acme.profile", encoding: .utf8)
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

    /// Reliability defect 8: the parts after `:profile` and `:compare` name the
    /// profile file `./p.profile` too (they got its absolute path: the new model
    /// lacked the recording's folder), so the moved folder replays every part.
    /// The models are made as the live loop makes them (`InteractiveCommand.carrying`,
    /// which every model that takes the screen's place goes through).
    func test_partsAfterProfileAndCompare_nameTheProfileRelatively_andTheMovedFolderReplaysEach() throws {
        let base = NSTemporaryDirectory() + "outbox-recparts-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let folder = base + "/rp"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        try "profile acme\nbase ios\nset retry.attempts 7\n".write(
            toFile: folder + "/p.profile", atomically: true, encoding: .utf8)
        let p = try ProfileLoader.resolve(folder + "/p.profile", relativeTo: nil).get()
        let rec = folder + "/rec.outbox"

        // As InteractiveCommand.start sets up the first model.
        var model = InteractiveCommand.newModel(p, seed: 1, store: InMemoryDeviceStore())
        model.recordingFolder = ProfileLoader.directory(of: ProfileLoader.absolute(rec))
        model.isRecording = true
        var f = try RecordingFile.open(rec, force: false, seed: 1, version: "t").get()
        f.start(model)
        _ = model.handle(.char("t"))
        f.append(model)
        // `:profile ./p.profile`: the app closes, a new model on its device.
        _ = model.perform(.appQuit)
        f.append(model)
        model = InteractiveCommand.carrying(
            InteractiveCommand.newModel(p, seed: 1, store: InMemoryDeviceStore()), from: model)
        f.newPart(model, why: ":profile acme: its device, a new clock")
        _ = model.handle(.char("t"))
        f.append(model)
        // `:compare ./p.profile,ios`.
        model = InteractiveCommand.carrying(InteractiveCommand.newCompareModel([p, .ios], seed: 1), from: model)
        f.newPart(model, why: ":compare acme,ios, a new clock")
        _ = model.handle(.char("t"))
        f.append(model)
        f.close()
        XCTAssertNil(f.failure)
        XCTAssertEqual(f.parts, [rec, folder + "/rec-2.outbox", folder + "/rec-3.outbox"])

        func named(_ file: String) throws -> [String] {
            try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
                .filter { $0.hasPrefix("profile ") || $0.hasPrefix("compare ") }.map(String.init)
        }
        XCTAssertEqual(try named(rec), ["profile ./p.profile"])
        XCTAssertEqual(try named(folder + "/rec-2.outbox"), ["profile ./p.profile"])
        XCTAssertEqual(try named(folder + "/rec-3.outbox"), ["profile ./p.profile", "compare ./p.profile,ios"])

        // The folder moved (its old place gone): every part still finds its profile.
        XCTAssertEqual(rename(folder, base + "/moved"), 0)
        for (command, part) in [("run", "rec"), ("run", "rec-2"), ("compare", "rec-3")] {
            let console = Console.capturing()
            let status = CLI.main([command, "--quiet", base + "/moved/\(part).outbox"], console: console)
            XCTAssertEqual(status, 0, part + ": " + console.out + console.err)
        }
    }
}
