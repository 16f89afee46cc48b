import Foundation
import OutboxStore
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxUI

/// Issue 12, part 7: a recording made on a device that already held saved
/// requests starts with them, and `outbox run` of it alone replays the session;
/// `--record` never replaces a file unasked; the file grows a line per action.
final class RecordingDeviceTests: FolderTestCase {
    override var folderName: String { "rec" }

    /// Leaves saved requests on the profile's device in `dir`, as an earlier session would.
    static let earlier: [Profile: String] = [
        .linktrail: """
        profile linktrail
        at 0 launch
        at 0 consent grant
        at 1s network offline
        at 2s track first value=1.5 currency=EUR "note=two words"
        at 3s track "second one"
        at 20s quit
        expect at 20s saved 2
        """,
        .ios: """
        profile ios
        at 0 launch
        at 1s network offline
        at 2s track first value=2 currency=USD
        at 3s screen home
        at 5s quit
        expect at 5s saved 2
        """,
        .android: """
        profile android
        at 0 launch
        at 0 getinstance
        at 1s server 403 always
        at 2s track first
        at 3s screen home
        at 5s quit
        expect at 5s saved 2
        """,
        .flutter: """
        profile flutter
        at 0 launch
        at 1s network offline
        at 2s track first
        at 3s ping
        at 5s quit
        expect at 5s saved 2
        """,
    ]

    /// Keys typed in the live session on that device, with a wait after each.
    static let live: [Profile: [String]] = [
        // A lost answer: the resend is a duplicate, named by its key (salted by the device's opens).
        .linktrail: [":server lost", "t", "o", "t", "o", "t", "L", "t"],
        .ios: ["t", "o", "s", "o", "L", "t"],
        .android: [":server 503", "t", "g", "L", "t"],
        .flutter: ["t", "o", "p", "o", "L", "t"],
    ]

    func test_recordingOnADeviceWithSavedRequests_replaysWithoutTheStateDirectory() throws {
        for profile in Profile.seeds {
            let earlierFile = dir + "/earlier-\(profile.rawValue).outbox"
            try Self.earlier[profile]!.write(toFile: earlierFile, atomically: true, encoding: .utf8)
            let state = dir + "/state"
            let (status, _, err) = cli(["run", "--quiet", "--state-dir", state, earlierFile])
            XCTAssertEqual(status, 0, err)

            // The live screen's start, as InteractiveCommand does it: open the device, launch.
            var o = InteractiveCommand.Options()
            o.stateDir = state
            o.profile = profile
            guard case .success(let store) = InteractiveCommand.openStore(profile, o) else {
                return XCTFail("no store")
            }
            var model = InteractiveCommand.newModel(profile, seed: 7, store: store)
            XCTAssertEqual(model.startingDevice.saved.count, 2, profile.rawValue)
            let rec = dir + "/rec-\(profile.rawValue).outbox"
            var file = try RecordingFile.open(rec, force: false, seed: 7, version: "test").get()
            file.start(model)
            for k in Self.live[profile]! {
                if k.hasPrefix(":") {
                    _ = model.handle(.char(":"))
                    for c in k.dropFirst().unicodeScalars { _ = model.handle(.char(c)) }
                    _ = model.handle(.enter)
                } else {
                    for c in k.unicodeScalars { _ = model.handle(.char(c)) }
                }
                file.append(model)
                model.tick(to: model.sim.now + 15_000)
            }
            model.perform(.appQuit)
            file.append(model)
            file.close()
            (store as? SQLiteDeviceStore)?.close()
            try FileManager.default.removeItem(atPath: state)
            XCTAssertNil(file.failure)

            let text = try String(contentsOfFile: rec, encoding: .utf8)
            // The file holds exactly what the model would write whole: header, device, then the actions.
            XCTAssertEqual(text, model.recording(seed: 7, version: "test", path: rec))
            XCTAssertTrue(text.contains("\nsaved event first"), text)
            let uiEnd = model.sim.now
            let ui = journalLines(model.sim, format: .jsonl, upTo: uiEnd)
            let (rs, out, rerr) = cli(["run", "--format", "jsonl", rec])
            XCTAssertEqual(rs, 0, rerr)
            let replay = out.split(separator: "\n").map(String.init).filter {
                // Lines up to the quit (the replay's clock may run on to timers the quit left).
                guard let r = $0.range(of: "{\"t\":"), let end = $0[r.upperBound...].firstIndex(of: ",") else {
                    return true
                }
                return (Double($0[r.upperBound..<end]) ?? 0) * 1000 <= Double(uiEnd)
            }
            XCTAssertEqual(ui, replay, "\(profile.rawValue): the replay differs\n" + text)
            XCTAssertTrue(
                ui.contains { $0.contains("\"from\":\"new\",\"to\":\"queued\"") }, "restored requests: \(profile)")
            if profile == .linktrail {
                XCTAssertTrue(
                    ui.contains { $0.contains("is a duplicate (idempotency key") }, ui.joined(separator: "\n"))
                XCTAssertTrue(text.contains("\ndevice consent granted install created opens 1\n"), text)
            }
        }
    }

    func test_recordRefusesAnExistingFile_untouched_unlessForce() throws {
        let rec = dir + "/kept.outbox"
        try "my notes\n".write(toFile: rec, atomically: true, encoding: .utf8)
        let (status, out, err) = cli(["--memory", "--record", rec])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertEqual(
            err,
            "outbox: --record \(rec): the file exists and was left as it is; expected a new file: give another name, or --force to replace it\n"
        )
        XCTAssertEqual(try String(contentsOfFile: rec, encoding: .utf8), "my notes\n")
        // The open refuses it too (a file made between the check and the open).
        guard case .failure(let p) = RecordingFile.open(rec, force: false, seed: 1, version: "t") else {
            return XCTFail("opened an existing file")
        }
        XCTAssertTrue(p.message.contains("--force"))
        XCTAssertEqual(try String(contentsOfFile: rec, encoding: .utf8), "my notes\n")
        // --force replaces it.
        var f = try RecordingFile.open(rec, force: true, seed: 1, version: "t").get()
        var s = Session(.ios)
        f.start(s.model)
        s.type("t")
        f.append(s.model)
        f.close()
        XCTAssertEqual(
            try String(contentsOfFile: rec, encoding: .utf8), s.model.recording(seed: 1, version: "t", path: rec))
        // --force alone is a mistake, said so.
        let (fs, _, ferr) = cli(["--force"])
        XCTAssertEqual(fs, 2)
        XCTAssertEqual(
            ferr, "outbox: --force goes with --record FILE or --cast FILE (it lets the recording replace FILE)\n")
    }

    func test_recordingRefusesALinkAndAFolder() throws {
        let target = dir + "/target"
        try "x\n".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: target)
        guard case .failure(let p) = RecordingFile.open(dir + "/link", force: true, seed: 1, version: "t") else {
            return XCTFail("wrote through a link")
        }
        XCTAssertEqual(p.message, "cannot write the recording to `\(dir)/link`: it is a symbolic link")
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "x\n")
        guard case .failure(let q) = RecordingFile.open(dir + "/none/rec.outbox", force: false, seed: 1, version: "t")
        else {
            return XCTFail("wrote into a missing folder")
        }
        XCTAssertEqual(q.message, "cannot write the recording to `\(dir)/none/rec.outbox`: its folder does not exist")
    }

    /// Each action is appended: after every key the file is the recording so
    /// far (so a kill at any moment leaves a file that replays), and each new
    /// text starts where the last ended: nothing written is ever rewritten.
    func test_appendsAnActionAtATime_neverRewrites() throws {
        let rec = dir + "/grow.outbox"
        var f = try RecordingFile.open(rec, force: false, seed: 1, version: "t").get()
        var s = Session(.linktrail)
        f.start(s.model)
        var before = try Data(contentsOf: URL(fileURLWithPath: rec))
        for k in ["c", "o", "t", "t", "o", "t", "x", "d", "3", "t", "L"] {
            s.type(k)
            s.wait(2_500)
            f.append(s.model)
            let now = try Data(contentsOf: URL(fileURLWithPath: rec))
            XCTAssertEqual(now.prefix(before.count), before, "rewritten after `\(k)`")
            XCTAssertEqual(String(decoding: now, as: UTF8.self), s.model.recording(seed: 1, version: "t", path: rec))
            // What is there so far replays.
            let (status, _, err) = cli(["run", "--quiet", rec])
            XCTAssertEqual(status, 0, err)
            before = now
        }
        f.close()
    }

    /// `:profile`, `:compare` and `:compare off` start a new clock: the session
    /// goes on in a new part, each part replays on its own, and the first ends
    /// with a comment naming the next.
    func test_newClock_newPart_eachReplays() throws {
        let rec = dir + "/s.outbox"
        try "taken\n".write(toFile: dir + "/s-2.outbox", atomically: true, encoding: .utf8)
        var f = try RecordingFile.open(rec, force: false, seed: 1, version: "t").get()
        var s = Session(.ios)
        f.start(s.model)
        s.type("t")
        f.append(s.model)
        // As the loop does on `:compare ios,android`: a fresh compare model.
        s.model = InteractiveCommand.newCompareModel([.ios, .android], seed: 1)
        f.newPart(s.model, why: ":compare ios,android, a new clock")
        s.type("tp")
        s.wait(3000)
        f.append(s.model)
        s.command("compare off")
        f.newPart(s.model, why: ":compare off: one column, the first")
        s.type("t")
        f.append(s.model)
        f.close()
        XCTAssertEqual(f.parts, [rec, dir + "/s-3.outbox", dir + "/s-4.outbox"])
        XCTAssertEqual(try String(contentsOfFile: dir + "/s-2.outbox", encoding: .utf8), "taken\n")
        let first = try String(contentsOfFile: rec, encoding: .utf8)
        XCTAssertTrue(
            first.hasSuffix(
                "at 0 track purchase value=49.99 currency=USD\n# the session went on in \(dir)/s-3.outbox (:compare ios,android, a new clock)\n"
            ), first)
        let second = try String(contentsOfFile: dir + "/s-3.outbox", encoding: .utf8)
        XCTAssertTrue(
            second.hasPrefix(
                "# part 2 of a session; before: \(rec) (:compare ios,android, a new clock)\n# recorded by outbox t\n"),
            second)
        XCTAssertTrue(second.contains("\ncompare ios,android\n"), second)
        let third = try String(contentsOfFile: dir + "/s-4.outbox", encoding: .utf8)
        XCTAssertEqual(
            third,
            "# part 2 of a session; before: \(dir)/s-3.outbox (:compare off: one column, the first)\n"
                .replacingOccurrences(of: "part 2", with: "part 3")
                + s.model.recording(seed: 1, version: "t", path: dir + "/s-4.outbox"))
        XCTAssertEqual(cli(["run", "--quiet", rec]).0, 0)
        XCTAssertEqual(cli(["compare", "--quiet", dir + "/s-3.outbox"]).0, 0)
        XCTAssertEqual(cli(["run", "--quiet", dir + "/s-4.outbox"]).0, 0)
    }
}
