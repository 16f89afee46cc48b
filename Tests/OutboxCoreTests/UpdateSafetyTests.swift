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

/// `outbox run --update` never loses what is on disk (issue 22 item 1, the
/// reliability report's defects 1, 12, 14 and 15): a file edited while the run
/// played is not replaced; a read-only file, one with hard links and one whose
/// owner cannot be kept are refused by name; several files are updated all
/// together or not at all, with no `→` line for a file left as it was; a
/// temporary left by a killed update is removed. The tests may run as root,
/// which the kernel lets write a 0444 file: Outbox judges by the mode bits.
final class UpdateSafetyTests: XCTestCase {
    var dir = ""
    let failing = "profile ios\nat 0 launch\nexpect at 1s saved 9\n"
    let updated = "profile ios\nat 0 launch\nexpect at 1s saved 0\n"

    override func setUp() {
        dir = NSTemporaryDirectory() + "outbox-update-safety-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() {
        // A 0444 file in a folder of ours goes with the folder.
        try? FileManager.default.removeItem(atPath: dir)
    }

    func write(_ name: String, _ text: String, mode: Int = 0o644) throws -> String {
        let path = dir + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(chmod(path, mode_t(mode)), 0)
        return path
    }

    func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? "<unreadable>"
    }

    func info(_ path: String) -> stat {
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        return st
    }

    /// The words a 0444 file is refused with.
    let readOnly =
        "it is read-only (mode 0444); expected a file you may write: make it writable first (chmod u+w), or edit it by hand"

    /// `outbox run --update -q FILES` refused for `file`, `why`: exit 2, nothing
    /// on stdout, and on stderr that line and "no file was updated", whole.
    func assertRefused(
        _ files: [String], _ file: String, _ why: String, file source: StaticString = #filePath, line: UInt = #line
    ) throws {
        let (status, out, err) = try update(["-q"] + files)
        XCTAssertEqual(status, 2, file: source, line: line)
        XCTAssertEqual(out, "", file: source, line: line)
        XCTAssertEqual(
            err, "\(file): cannot update the file: \(why)\noutbox run --update: no file was updated\n", file: source,
            line: line)
    }

    /// The folder's names, sorted: no temporary left beside the files.
    func names() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }

    /// `outbox run ARGS` with `--update`, with a step between the plays and the writes.
    func update(_ args: [String], meanwhile: () -> Void = {}) throws -> (Int32, String, String) {
        let cmd = try RunCommand.parse(["--update"] + args)
        let console = Console.capturing()
        let status = cmd.updating(
            console: console, output: .lines(.text), maxTransitions: ScenarioRunner.defaultMaxTransitions,
            beforeWriting: meanwhile)
        return (status, console.out, console.err)
    }

    /// Defect 1: a line saved while the run played was lost to the rename.
    func test_anEditDuringTheRun_writesNothing_exit2_namingTheFile() throws {
        let file = try write("long.outbox", failing)
        let edited = failing + "# MY IMPORTANT EDIT WHILE IT RAN\n"
        let (status, out, err) = try update(["-q", file]) {
            // An editor saving in place, the same second as the read (the bytes decide, not only the time).
            let h = FileHandle(forWritingAtPath: file)!
            h.seekToEndOfFile()
            h.write(Data("# MY IMPORTANT EDIT WHILE IT RAN\n".utf8))
            h.closeFile()
        }
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertEqual(
            err,
            """
            \(file): cannot update the file: it changed on disk while the run played (saved by an editor, or another update?); expected the file as it was read: run --update again
            outbox run --update: no file was updated

            """)
        XCTAssertEqual(read(file), edited)
        XCTAssertEqual(names(), ["long.outbox"])

        // Saved by renaming (another inode), the same bytes as before: still not the file that was read.
        let (again, _, err2) = try update(["-q", file]) {
            try? Data(edited.utf8).write(to: URL(fileURLWithPath: file + ".tmp"))
            XCTAssertEqual(rename(file + ".tmp", file), 0)
        }
        XCTAssertEqual(again, 2)
        XCTAssertTrue(err2.contains("it changed on disk while the run played"), err2)
        XCTAssertEqual(read(file), edited)
    }

    /// The same size and the same time, other bytes (a coarse clock): the bytes are compared too.
    /// And a change between the writing of the temporary and its rename is seen at the rename.
    func test_theLastCheck_comparesBytes_andComesJustBeforeTheRename() throws {
        let file = try write("s.outbox", failing)
        guard case .success(let read1) = RunCommand.readContents(file) else { return XCTFail("unreadable") }
        let other = failing.replacingOccurrences(of: "saved 9", with: "saved 8")
        try Data(other.utf8).write(to: URL(fileURLWithPath: file))
        var times = [
            timespec(tv_sec: Int(read1.stamp.seconds), tv_nsec: Int(read1.stamp.nanoseconds)),
            timespec(tv_sec: Int(read1.stamp.seconds), tv_nsec: Int(read1.stamp.nanoseconds)),
        ]
        XCTAssertEqual(utimensat(AT_FDCWD, file, &times, 0), 0)
        XCTAssertEqual(Platform.stamp(file), read1.stamp, "the stamp alone cannot tell")
        guard case .failure(let why) = Platform.prepareReplace(file, with: Array(updated.utf8), unless: read1) else {
            return XCTFail("a file with other bytes was replaced")
        }
        XCTAssertTrue(why.message.hasPrefix("it changed on disk while the run played"), why.message)
        XCTAssertEqual(read(file), other)

        guard case .success(let read2) = RunCommand.readContents(file) else { return XCTFail("unreadable") }
        guard case .success(let pending) = Platform.prepareReplace(file, with: Array(updated.utf8), unless: read2)
        else { return XCTFail("refused") }
        try Data((other + "# saved meanwhile\n").utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertNotNil(Platform.stillAsRead(pending))
        XCTAssertNotNil(Platform.landReplace(pending))
        Platform.discardReplace(pending)
        XCTAssertEqual(read(file), other + "# saved meanwhile\n")
        XCTAssertEqual(names(), ["s.outbox"])
    }

    /// Defect 12: a file its owner made read-only was replaced (as root, and by
    /// anyone through the folder's write permission).
    func test_aReadOnlyFile_isRefusedByName_asRootToo() throws {
        let file = try write("ro.outbox", failing, mode: 0o444)
        try assertRefused([file], file, readOnly)
        XCTAssertEqual(read(file), failing)
        XCTAssertEqual(info(file).st_mode & 0o7777, 0o444)
        XCTAssertEqual(names(), ["ro.outbox"])
    }

    /// Defect 12: a second name kept the old text on the old inode.
    func test_aFileWithHardLinks_isRefused() throws {
        let file = try write("h.outbox", failing)
        XCTAssertEqual(link(file, dir + "/h2.outbox"), 0)
        try assertRefused(
            [file], file,
            "it has 2 names (hard links), and the others would keep the old text; "
                + "expected a file with one name (update a copy, or edit it by hand)")
        XCTAssertEqual(read(file), failing)
        XCTAssertEqual(read(dir + "/h2.outbox"), failing)
        XCTAssertEqual(info(file).st_ino, info(dir + "/h2.outbox").st_ino)
    }

    /// Defect 12: under sudo the updated file became root's. Its owner, group
    /// and mode stay (as root: another owner's file; else this user's own).
    func test_theOwnerGroupAndMode_stay() throws {
        let file = try write("o.outbox", failing, mode: 0o640)
        let owner: (uid_t, gid_t) = geteuid() == 0 ? (65534, 65534) : (geteuid(), getegid())
        XCTAssertEqual(chown(file, owner.0, owner.1), 0)
        XCTAssertEqual(chmod(file, 0o640), 0)
        let (status, _, err) = try update(["-q", file])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(read(file), updated)
        let st = info(file)
        XCTAssertEqual(st.st_uid, owner.0)
        XCTAssertEqual(st.st_gid, owner.1)
        XCTAssertEqual(st.st_mode & 0o7777, 0o640)
        XCTAssertEqual(names(), ["o.outbox"])
    }

    /// Defect 15: with one of two files refused, the other was updated and the
    /// refused one's `→` lines were printed as if made. Now neither is written,
    /// and no `→` line is printed. With both writable, both are updated.
    func test_twoFiles_oneRefused_neitherIsWritten() throws {
        let a = try write("a.outbox", failing)
        let b = try write("b.outbox", failing, mode: 0o444)
        try assertRefused([a, b], b, readOnly)
        XCTAssertEqual(read(a), failing)
        XCTAssertEqual(read(b), failing)
        XCTAssertEqual(names(), ["a.outbox", "b.outbox"])

        // An edit to one of them while they played: neither.
        XCTAssertEqual(chmod(b, 0o644), 0)
        let (edited, _, err2) = try update(["-q", a, b]) {
            try? Data((failing + "# mine\n").utf8).write(to: URL(fileURLWithPath: a))
        }
        XCTAssertEqual(edited, 2)
        XCTAssertFalse(err2.contains("→"), err2)
        XCTAssertEqual(read(a), failing + "# mine\n")
        XCTAssertEqual(read(b), failing)

        // The same file by two names (a link and its target): refused, nothing written.
        let l = dir + "/l.outbox"
        XCTAssertEqual(symlink(b, l), 0)
        let (twice, _, err3) = try update(["-q", b, l])
        XCTAssertEqual(twice, 2)
        XCTAssertEqual(
            err3,
            """
            \(l): cannot update the file: it is \(b) by another name; expected each file once
            outbox run --update: no file was updated

            """)
        XCTAssertEqual(read(b), failing)
        XCTAssertEqual(unlink(l), 0)

        let (both, _, err4) = try update(["-q", a, b])
        XCTAssertEqual(both, 0, err4)
        XCTAssertEqual(read(a), updated + "# mine\n")
        XCTAssertEqual(read(b), updated)
        XCTAssertEqual(
            err4,
            """
            \(a):3: expect at 1s saved 9 → expect at 1s saved 0
            \(a): updated 1 expect line
            \(b):3: expect at 1s saved 9 → expect at 1s saved 0
            \(b): updated 1 expect line

            """)
    }

    /// Defect 14: a `kill -9` mid-write left `.NAME.update-PID` for ever. The
    /// next update in that folder removes it when its process is gone, and says
    /// so, as it does an export's, a recording's or a cast's (issue 22 item 4);
    /// one whose process lives (pid 1) is left alone.
    func test_aTemporaryOfAKilledUpdate_isRemoved_oneOfALiveProcessIsNot() throws {
        let file = try write("k.outbox", failing)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", "exit 0"]
        try child.run()
        child.waitUntilExit()
        let gone = child.processIdentifier
        XCTAssertEqual(kill(gone, 0), -1, "the child's pid is free")
        let stale = try write(".k.outbox.update-\(gone)", "half a scenar", mode: 0o600)
        let alive = try write(".k.outbox.update-1", "another's", mode: 0o600)
        let export = try write(".outbox-export-\(gone)", "[{\"at\":", mode: 0o644)
        let cast = try write(".outbox-cast-\(gone)-1", "{\"version\": 2", mode: 0o644)
        let liveExport = try write(".outbox-export-1", "another's", mode: 0o644)
        let (status, _, err) = try update(["-q", file])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(
            err,
            """
            \(file): removed \(stale), left by an update that was stopped
            \(file): removed \(cast), left by a cast that was stopped
            \(file): removed \(export), left by an export that was stopped
            \(file):3: expect at 1s saved 9 → expect at 1s saved 0
            \(file): updated 1 expect line

            """)
        XCTAssertEqual(read(file), updated)
        XCTAssertEqual(names(), [".k.outbox.update-1", ".outbox-export-1", "k.outbox"])
        XCTAssertEqual(read(liveExport), "another's")
        XCTAssertEqual(read(alive), "another's")
    }

    /// Only a regular file can be updated: a FIFO is refused at once, never played or waited on.
    func test_aFIFO_isRefusedAtOnce() throws {
        let fifo = dir + "/p.outbox"
        XCTAssertEqual(Platform.makeFIFO(fifo), 0)
        let (status, out, err) = try update(["-q", fifo])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertEqual(
            err,
            "\(fifo): cannot read the file: it is a FIFO, expected a regular file\n")
    }
}
