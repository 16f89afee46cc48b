import Foundation
import OutboxStore
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxUI

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Issue 22, item 4 (reliability defect 4, S3 13, 16, 20): every file Outbox
/// writes ends whole, whatever write fails. Each writer is run on a disk that
/// fills at every place that matters (a byte budget in the platform's write:
/// the write that passes it lands its part, then fails with ENOSPC, as a real
/// short write does): a recording's lines, `E`'s block, a new part, an export in
/// each format, a cast. The file must end whole (a recording replays), and what
/// Outbox says it wrote must be what is in the file.
final class WholeFilesTests: FolderTestCase {
    override var folderName: String { "whole" }

    func files() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }

    let full = String(cString: strerror(ENOSPC))

    /// A recorded session with a budget: actions, a burst, `E` blocks; the file
    /// is appended after each key, as the loop does. Returns the file's size
    /// after each write that landed (the places a cut may fall back to).
    func recordSession(_ path: String, budget: Int?) throws -> (RecordingFile, AppModel, [Int]) {
        var f = try RecordingFile.open(path, force: false, seed: 1, version: "t").get()
        f.budget = budget
        var s = Session(.ios)
        s.model.isRecording = true
        var sizes: [Int] = []
        func size() -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1 }
        f.start(s.model)
        sizes.append(size())
        for k in ["t", "o", "T", "E", "p", "t", "o", "E", "s", "E"] {
            s.type(k)
            s.wait(700)
            f.append(s.model)
            sizes.append(size())
        }
        f.close()
        return (f, s.model, sizes)
    }

    func lines(_ text: String, _ prefix: String) -> Int {
        text.split(separator: "\n").filter { $0.hasPrefix(prefix) }.count
    }

    /// The recording on a disk that fills at every line's end, and a byte either
    /// side: the file is what had landed before the failed write, byte for byte,
    /// it replays, `E`'s blocks are in it whole or not at all, and the exit line
    /// counts its lines. A failed header leaves no file and says nothing was recorded.
    func test_recording_aFullDiskAnywhere_endsWithItsLastWholeWrite_replays_andCountsWhatLanded() throws {
        // First with room: the file the sessions below cut short (at the same path: the header names it).
        let path = dir + "/rec.outbox"
        let reference = path
        let (whole, model, sizes) = try recordSession(reference, budget: nil)
        let text = try String(contentsOfFile: reference, encoding: .utf8)
        XCTAssertNil(whole.failure)
        XCTAssertEqual(text, model.recording(seed: 1, version: "t", path: reference))
        XCTAssertEqual(Set(sizes).count, sizes.count, "every key wrote something: \(sizes)")
        XCTAssertGreaterThan(lines(text, "expect "), 10, text)
        XCTAssertEqual(whole.actions, lines(text, "at "))
        XCTAssertEqual(whole.checks, lines(text, "expect "))
        try FileManager.default.removeItem(atPath: reference)

        var budgets: Set<Int> = [0, 1]
        for s in sizes { budgets.formUnion([s - 1, s, s + 1]) }
        for b in stride(from: 0, to: sizes.last!, by: 499) { budgets.insert(b) }
        var replayed: Set<Int> = []  // each file that can be left is replayed once
        for budget in budgets.sorted() {
            let (f, model, _) = try recordSession(path, budget: budget)
            let landed = sizes.last { $0 <= budget } ?? 0
            let at = "budget \(budget) (writes end at \(sizes))"
            if landed == 0 {
                XCTAssertTrue(f.empty, at)
                XCTAssertFalse(FileManager.default.fileExists(atPath: path), at)
                XCTAssertEqual(
                    InteractiveCommand.recordedLine(f, model),
                    "outbox: nothing was recorded: cannot write \(path): \(full) (the empty file was removed)", at)
                continue
            }
            let got = try String(contentsOfFile: path, encoding: .utf8)
            XCTAssertEqual(got, String(decoding: Array(text.utf8).prefix(landed), as: UTF8.self), at)
            // It never ends inside an E block: the reference's next line is no `expect` line.
            let next = text.dropFirst(got.count).prefix { $0 != "\n" }
            XCTAssertFalse(next.hasPrefix("expect "), at + ": cut before " + next)
            XCTAssertEqual(f.actions, lines(got, "at "), at)
            XCTAssertEqual(f.checks, lines(got, "expect "), at)
            let line = InteractiveCommand.recordedLine(f, model)
            XCTAssertTrue(line.hasPrefix("outbox: recorded \(lines(got, "at ")) actions"), at + ": " + line)
            if landed < sizes.last! {
                XCTAssertEqual(f.failure, "cannot write \(path): \(full)", at)
                XCTAssertTrue(
                    line.hasSuffix(
                        "; but the recording stopped there: cannot write \(path): \(full) (the file ends with its last whole line)"
                    ), at + ": " + line)
            } else {
                XCTAssertNil(f.failure, at)
            }
            if replayed.insert(landed).inserted {
                let (status, _, err) = cli(["run", "--quiet", path])
                XCTAssertEqual(status, 0, at + ": " + err)
            }
            try FileManager.default.removeItem(atPath: path)
        }
        XCTAssertEqual(files(), [])
    }

    /// `--record FILE --force` on a disk with no room even for the header: the
    /// old FILE is left byte for byte (it used to be emptied), no hidden file
    /// stays, and the screen and the exit line say so. With room it is replaced,
    /// keeping its permission bits.
    func test_recordForce_aFullDiskBeforeTheHeader_leavesTheOldFileAsItWas() throws {
        let rec = dir + "/old.outbox"
        let old = "profile ios\nat 0 launch\n# my notes\n"
        try old.write(toFile: rec, atomically: false, encoding: .utf8)
        XCTAssertEqual(chmod(rec, 0o600), 0)
        for budget in [0, 1, 100] {
            var f = try RecordingFile.open(rec, force: true, seed: 1, version: "t").get()
            f.budget = budget
            var s = Session(.ios)
            f.start(s.model)
            InteractiveCommand.noteRecordingTrouble(&s.model, f)
            XCTAssertEqual(
                s.model.message?.text,
                "recording stopped: nothing was recorded: cannot write \(rec): \(full) (the file there was left as it was)"
            )
            s.type("t")
            f.append(s.model)
            f.close()
            XCTAssertTrue(f.empty, "budget \(budget)")
            XCTAssertEqual(try String(contentsOfFile: rec, encoding: .utf8), old, "budget \(budget)")
            XCTAssertEqual(files(), ["old.outbox"], "budget \(budget)")
            XCTAssertEqual(
                InteractiveCommand.recordedLine(f, s.model),
                "outbox: nothing was recorded: cannot write \(rec): \(full) (\(rec) was left as it was)")
        }
        // A session that never starts (the terminal would not) leaves it too.
        var never = try RecordingFile.open(rec, force: true, seed: 1, version: "t").get()
        never.discard()
        XCTAssertEqual(try String(contentsOfFile: rec, encoding: .utf8), old)
        XCTAssertEqual(files(), ["old.outbox"])
        // With room: replaced, whole, its mode kept, nothing beside it (a killed cast's hidden file removed).
        let gone = try goneProcessID()
        try "{".write(toFile: dir + "/.outbox-cast-\(gone)", atomically: false, encoding: .utf8)
        var f = try RecordingFile.open(rec, force: true, seed: 1, version: "t").get()
        XCTAssertEqual(
            InteractiveCommand.removedText(f.removedStale),
            "removed .outbox-cast-\(gone), left by a cast that was stopped")
        var s = Session(.ios)
        f.start(s.model)
        s.type("t")
        f.append(s.model)
        f.close()
        XCTAssertNil(f.failure)
        XCTAssertEqual(
            try String(contentsOfFile: rec, encoding: .utf8), s.model.recording(seed: 1, version: "t", path: rec))
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: rec)[.posixPermissions] as? Int), 0o600)
        XCTAssertEqual(files(), ["old.outbox"])
    }

    /// `--cast FILE --force` whose header cannot be written: refused, the old
    /// FILE as it was and said so, no hidden file; with room it is replaced.
    func test_castForce_aFullDiskBeforeTheHeader_leavesTheOldFileAsItWas() throws {
        let path = dir + "/old.cast"
        let old = "{\"version\": 2, \"width\": 80, \"height\": 24}\n[0.5, \"o\", \"mine\"]\n"
        try old.write(toFile: path, atomically: false, encoding: .utf8)
        for budget in [0, 10] {
            guard case .failure(let p) = CastFile.open(path, force: true, width: 80, height: 24, budget: budget) else {
                return XCTFail("opened with budget \(budget)")
            }
            XCTAssertEqual(
                p.message, "cannot write the cast to `\(path)`: \(full); the file there was left as it was")
            XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), old)
            XCTAssertEqual(files(), ["old.cast"])
        }
        let c = try CastFile.open(path, force: true, width: 100, height: 30).get()
        c.close()
        XCTAssertNil(c.failure)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("{\"version\":2,\"width\":100,\"height\":30,"), text)
        XCTAssertEqual(files(), ["old.cast"])
    }

    /// A new clock's part on a full disk: the part that cannot be written is
    /// removed, the one before ends whole (with its `quit`) and replays.
    func test_recording_aNewPartOnAFullDisk_isRemoved_theOneBeforeStaysWhole() throws {
        let rec = dir + "/s.outbox"
        var f = try RecordingFile.open(rec, force: false, seed: 1, version: "t").get()
        var s = Session(.ios)
        f.start(s.model)
        s.type("t")
        _ = s.model.perform(.appQuit)
        f.append(s.model)
        let before = try String(contentsOfFile: rec, encoding: .utf8)
        f.budget = 10
        let next = InteractiveCommand.newModel(.android, seed: 1, store: InMemoryDeviceStore())
        f.newPart(next, why: ":profile android: its device, a new clock")
        f.append(next)
        f.close()
        XCTAssertEqual(f.parts, [rec])
        XCTAssertEqual(f.failure, "cannot write \(dir)/s-2.outbox: \(full)")
        XCTAssertEqual(files(), ["s.outbox"])
        XCTAssertEqual(try String(contentsOfFile: rec, encoding: .utf8), before)
        XCTAssertEqual(cli(["run", "--quiet", rec]).0, 0)
        XCTAssertEqual(
            InteractiveCommand.recordedLine(f, next),
            "outbox: recorded 3 actions to \(rec); replay with `outbox run \(rec)`; but the recording stopped there: "
                + "cannot write \(dir)/s-2.outbox: \(full) (the file ends with its last whole line)")
    }

    /// "recording stopped" stays: a failed first write shows at once (the
    /// message, and the header's mark), and the mark outlives the message, the
    /// next keys and a new session.
    func test_recordingStopped_isMarkedInTheHeader_fromTheFirstWrite_andStays() throws {
        let rec = dir + "/r.outbox"
        var f = try RecordingFile.open(rec, force: false, seed: 1, version: "t").get()
        f.budget = 0
        var s = Session(.ios)
        f.start(s.model)
        InteractiveCommand.noteRecordingTrouble(&s.model, f)
        XCTAssertEqual(
            s.model.message?.text, "recording stopped: nothing was recorded: cannot write \(rec): \(full)")
        XCTAssertTrue(s.screen().lines[0].hasPrefix(" OUTBOX ios │ recording stopped │ 00:00:00."), s.screen().lines[0])
        s.model.isRecording = true
        s.type("E")
        XCTAssertEqual(s.model.message?.text, "E pins nothing: the recording stopped (its file could not be written)")
        XCTAssertFalse(s.model.recorded.contains { $0.hasPrefix("expect ") })
        s.type("tjj")
        s.model.message = nil  // the loop's timer took it
        s.wait(5000)
        XCTAssertTrue(s.screen().lines[0].contains("│ recording stopped │"), s.screen().lines[0])
        let next = InteractiveCommand.carrying(
            InteractiveCommand.newModel(.android, seed: 1, store: InMemoryDeviceStore()), from: s.model)
        XCTAssertTrue(next.recordingStopped)
        s.model.castStopped = true
        XCTAssertTrue(s.screen().lines[0].contains("│ recording and cast stopped │"), s.screen().lines[0])
        XCTAssertEqual(files(), [])
    }

    /// `:export` of each format on a disk that fills anywhere: no file is left
    /// (half, or empty), nor a hidden one, and the message says so; with room,
    /// the file is the whole document. A file replaced on a full disk keeps its
    /// bytes, and a replaced file keeps its permission bits.
    func test_export_eachFormat_aFullDiskAnywhere_leavesNothing() throws {
        var s = Session(.linktrail)
        s.type("ctTo")
        s.wait(3_000)
        var c = Session(.ios)
        c.model = InteractiveCommand.newCompareModel([.ios, .android], seed: 1)
        c.type("tpo")
        c.wait(2_000)
        for (name, session) in [("t.jsonl", s), ("t.html", s), ("c.jsonl", c), ("c.html", c)] {
            var m = session.model
            let path = dir + "/" + name
            let bytes = Array(m.exportFile(for: path).text.utf8)
            XCTAssertGreaterThan(bytes.count, 1000, name)
            for budget in [0, 1, bytes.count / 2, bytes.count - 1] {
                InteractiveCommand.Loop.export(&m, to: path, replace: false, budget: budget)
                XCTAssertEqual(
                    m.message?.text, "export failed: cannot write \(path): \(full); nothing was written",
                    "\(name) \(budget)")
                XCTAssertEqual(m.mode, .normal)
                XCTAssertEqual(files(), [], "\(name) \(budget)")
            }
            InteractiveCommand.Loop.export(&m, to: path, replace: false, budget: bytes.count)
            XCTAssertTrue(m.message?.text.hasPrefix("exported ") == true, m.message?.text ?? "")
            XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: path))), bytes, name)
            // Replacing it on a full disk: the old file stays as it was.
            XCTAssertEqual(chmod(path, 0o600), 0)
            try "mine\n".write(toFile: path, atomically: false, encoding: .utf8)
            InteractiveCommand.Loop.export(&m, to: path, replace: true, budget: bytes.count / 2)
            XCTAssertEqual(m.message?.text, "export failed: cannot write \(path): \(full); nothing was written")
            XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "mine\n")
            InteractiveCommand.Loop.export(&m, to: path, replace: true)
            XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: path))), bytes, name)
            let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0
            XCTAssertEqual(mode, 0o600, name)
            XCTAssertEqual(files(), [name])
            try FileManager.default.removeItem(atPath: path)
        }
    }

    /// A kill during an export's write left its hidden file for ever (issue 22
    /// items 1 and 4). The next export in that folder removes every temporary
    /// of Outbox there whose process is gone (an export's, a recording's, a
    /// cast's, an update's beside its file) and says so; one of a live process
    /// (pid 1, and this one), a name that only looks like one and an update's
    /// whose file is not there stay.
    func test_export_removesTemporariesOfKilledWritesInItsFolder_notLiveOnes() throws {
        var s = Session(.android)
        s.type("t")
        let gone = try goneProcessID()
        let stale = [
            ".k.outbox.update-\(gone)", ".outbox-cast-\(gone)", ".outbox-export-\(gone)",
            ".outbox-export-\(gone)-1", ".outbox-record-\(gone)",
        ]
        let kept = [
            ".gone.outbox.update-\(gone)", ".outbox-export-1", ".outbox-export-\(gone)-x",
            ".outbox-export-\(getpid())", ".outbox-exports-\(gone)", "k.outbox",
        ]
        for name in stale + kept { try "half a fi".write(toFile: dir + "/" + name, atomically: false, encoding: .utf8) }
        let path = dir + "/t.jsonl"
        InteractiveCommand.Loop.export(&s.model, to: path, replace: false)
        XCTAssertEqual(
            s.model.message?.text,
            "exported 4 lines to \(path); removed 5 hidden files left by writes that were stopped ("
                + stale.joined(separator: ", ") + ")")
        XCTAssertEqual(files(), (kept + ["t.jsonl"]).sorted())
        // One: said by who left it; on a failed export too.
        try "half".write(toFile: dir + "/.outbox-record-\(gone)", atomically: false, encoding: .utf8)
        InteractiveCommand.Loop.export(&s.model, to: path, replace: true, budget: 3)
        XCTAssertEqual(
            s.model.message?.text,
            "export failed: cannot write \(path): \(full); nothing was written; "
                + "removed .outbox-record-\(gone), left by a recording that was stopped")
        XCTAssertEqual(files(), (kept + ["t.jsonl"]).sorted())
    }

    /// What an export can never write is said at once, replace or not: no
    /// "file exists; y replaces it" for a link, a directory, a FIFO or a device.
    func test_export_whatCanNeverBeWritten_isSaidAtOnce_notAsked() throws {
        var s = Session(.android)
        s.type("t")
        try "x\n".write(toFile: dir + "/target", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.jsonl", withDestinationPath: dir + "/target")
        try FileManager.default.createDirectory(atPath: dir + "/folder.jsonl", withIntermediateDirectories: false)
        XCTAssertEqual(mkfifo(dir + "/fifo.jsonl", 0o644), 0)
        var cases = [
            (dir + "/link.jsonl", "it is a symbolic link"), (dir + "/folder.jsonl", "it is a directory"),
            (dir + "/fifo.jsonl", "it is a FIFO"),
        ]
        if FileManager.default.fileExists(atPath: "/dev/full") { cases.append(("/dev/full", "it is a device")) }
        cases.append(("/dev/null", "it is a device"))
        let before = files()
        for (path, why) in cases {
            for replace in [false, true] {
                InteractiveCommand.Loop.export(&s.model, to: path, replace: replace)
                XCTAssertEqual(s.model.mode, .normal, path)
                XCTAssertEqual(
                    s.model.message?.text, "export failed: cannot write \(path): \(why); nothing was written")
            }
        }
        XCTAssertEqual(files(), before)
        XCTAssertEqual(try String(contentsOfFile: dir + "/target", encoding: .utf8), "x\n")
    }

    /// The cast on a disk that fills anywhere: every line in the file is a whole
    /// JSON line, the summary counts the events in it, and a cast whose header
    /// cannot be written is refused and leaves no file.
    func test_cast_aFullDiskAnywhere_endsWithAWholeEvent_andCountsThem() throws {
        let chunks = ["\u{1b}[H\u{1b}[2J OUTBOX ios", " │ 00:00:01 ", "漢字 \u{1b}[7m", "é", "\u{1b}[0m done\r\n"]
        func cast(_ path: String, budget: Int?) -> CastFile? {
            guard case .success(let c) = CastFile.open(path, force: false, width: 80, height: 24, budget: budget)
            else { return nil }
            for (i, chunk) in chunks.enumerated() {
                Array(chunk.utf8).withUnsafeBytes { c.output($0) }
                if i == 2 { c.resized(width: 100, height: 30) }
            }
            c.close()
            return c
        }
        let reference = dir + "/reference.cast"
        let whole = try XCTUnwrap(cast(reference, budget: nil))
        let size = Array(try Data(contentsOf: URL(fileURLWithPath: reference))).count
        XCTAssertEqual(whole.events, chunks.count)
        XCTAssertNil(whole.failure)
        try FileManager.default.removeItem(atPath: reference)
        for budget in stride(from: 0, through: size, by: 7) {
            let path = dir + "/s.cast"
            guard let c = cast(path, budget: budget) else {
                // The header did not fit: refused, and the file it made is gone.
                XCTAssertEqual(files(), [], "budget \(budget)")
                guard case .failure(let p) = CastFile.open(path, force: false, width: 80, height: 24, budget: budget)
                else { return XCTFail("opened with budget \(budget)") }
                XCTAssertEqual(p.message, "cannot write the cast to `\(path)`: \(full)")
                continue
            }
            let text = try String(contentsOfFile: path, encoding: .utf8)
            XCTAssertTrue(text.hasSuffix("\n"), "budget \(budget): " + text)
            let lines = text.split(separator: "\n")
            for l in lines {
                XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(l.utf8)), "budget \(budget): \(l)")
            }
            let outputs = lines.filter { $0.contains(", \"o\", ") }.count
            XCTAssertEqual(c.events, outputs, "budget \(budget)")
            XCTAssertEqual(c.failure == nil, budget >= size, "budget \(budget)")
            XCTAssertTrue(c.summary.contains("(\(outputs) writes, "), c.summary)
            if c.failure != nil {
                XCTAssertTrue(
                    c.summary.hasSuffix(
                        "; but the cast stopped there: \(full) (the file ends with its last whole event)"), c.summary)
            }
            try FileManager.default.removeItem(atPath: path)
        }
    }

    /// `--record` and `--cast` on a FIFO or a device (with --force): said by what it is.
    func test_recordAndCast_onAFIFOOrADevice_saySo() throws {
        XCTAssertEqual(mkfifo(dir + "/r.fifo", 0o644), 0)
        guard case .failure(let p) = RecordingFile.open(dir + "/r.fifo", force: true, seed: 1, version: "t") else {
            return XCTFail("recorded into a FIFO")
        }
        XCTAssertEqual(p.message, "cannot write the recording to `\(dir)/r.fifo`: it is a FIFO")
        guard case .failure(let q) = CastFile.open(dir + "/r.fifo", force: true, width: 80, height: 24) else {
            return XCTFail("cast into a FIFO")
        }
        XCTAssertEqual(q.message, "cannot write the cast to `\(dir)/r.fifo`: it is a FIFO")
        guard case .failure(let d) = CastFile.open("/dev/null", force: true, width: 80, height: 24) else {
            return XCTFail("cast into /dev/null")
        }
        XCTAssertEqual(d.message, "cannot write the cast to `/dev/null`: it is a device")
    }

    /// `--record F --cast F` (or any spelling of one file, or the file another
    /// option reads) is refused before anything is written, naming both options.
    func test_oneFileForTwoOptions_isRefusedNamingBoth() throws {
        let rec = dir + "/r.outbox"
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: dir + "/here", withDestinationPath: dir)
        for other in [rec, dir + "/./r.outbox", dir + "/sub/../r.outbox", dir + "/here/r.outbox"] {
            let (status, out, err) = cli(["--memory", "--record", rec, "--cast", other])
            XCTAssertEqual(status, 2)
            XCTAssertEqual(out, "")
            let names = other == rec ? "both name `\(rec)`" : "name the same file (`\(rec)`, `\(other)`)"
            XCTAssertEqual(
                err,
                "outbox: --record and --cast \(names); each writes it: give each a file of its own; nothing was written\n"
            )
            XCTAssertEqual(files(), ["here", "sub"])
        }
        // An existing file, replaced with --force by one and named by a hard link by the other.
        try "mine\n".write(toFile: rec, atomically: true, encoding: .utf8)
        XCTAssertEqual(link(rec, dir + "/hard.cast"), 0)
        let (status, _, err) = cli(["--memory", "--force", "--record", rec, "--cast", dir + "/hard.cast"])
        XCTAssertEqual(status, 2)
        XCTAssertTrue(err.hasPrefix("outbox: --record and --cast name the same file"), err)
        XCTAssertEqual(try String(contentsOfFile: rec, encoding: .utf8), "mine\n")
        // A file another option reads: the played scenario, the profile file.
        let play = dir + "/s.outbox"
        try "profile ios\nat 0 launch\n".write(toFile: play, atomically: true, encoding: .utf8)
        let (ps, _, perr) = cli(["--force", "--play", play, "--cast", play])
        XCTAssertEqual(ps, 2)
        XCTAssertEqual(
            perr,
            "outbox: --cast and --play both name `\(play)`; --cast writes it and --play reads it: give --cast a file of its own; nothing was written\n"
        )
        let profile = dir + "/p.profile"
        try "profile acme\nbase ios\n".write(toFile: profile, atomically: true, encoding: .utf8)
        let (qs, _, qerr) = cli(["--memory", "--force", "--profile", profile, "--record", dir + "/sub/../p.profile"])
        XCTAssertEqual(qs, 2)
        XCTAssertTrue(qerr.hasPrefix("outbox: --record and --profile name the same file"), qerr)
        XCTAssertEqual(try String(contentsOfFile: profile, encoding: .utf8), "profile acme\nbase ios\n")
        XCTAssertEqual(try String(contentsOfFile: play, encoding: .utf8), "profile ios\nat 0 launch\n")
    }
}
