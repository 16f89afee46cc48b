import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxStore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The files of a state directory: never followed through a link, the lock never
/// written, backups never overwritten, read-only files and directories named as
/// what they are.
final class FileSafetyTests: XCTestCase {
    func refusal(_ dir: String, _ profile: Profile = .linktrail, readOnly: Bool = false) -> String? {
        do {
            let s = try SQLiteDeviceStore(directory: dir, profile: profile, readOnly: readOnly)
            s.close()
            return nil
        } catch {
            return error.description
        }
    }

    func makeDevice(_ dir: String, requests: Int32 = 3) -> String {
        let s = try! SQLiteDeviceStore(directory: dir, profile: .linktrail)
        for i in 1...requests {
            s.save(
                SavedRequest(
                    id: i, kind: .event, name: "e\(i)", createdAt: 0, idempotencyKey: UInt64(i), value: nil,
                    currency: "", attributes: [], attempts: 0, waitingForConsent: false))
        }
        s.close()
        return SQLiteDeviceStore.databasePath(directory: dir, profile: .linktrail)
    }

    func isSymlink(_ path: String) -> Bool {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil
    }

    lazy var scenario: String = {
        let f = tempDir("scenario") + "/s.outbox"
        try! "profile linktrail\nset requireConsent false\nat 0 launch\nat 1s quit\n".write(
            toFile: f, atomically: true, encoding: .utf8)
        return f
    }()

    // MARK: The lock

    /// A symlinked lock was followed, truncated and overwritten with the pid.
    func test_lockThatIsASymlink_isRefused_andItsTargetIsUntouched() throws {
        let dir = tempDir("locklink")
        let victim = tempDir("victim") + "/precious.txt"
        try "precious data\n".write(toFile: victim, atomically: true, encoding: .utf8)
        let lock = SQLiteDeviceStore.lockPath(directory: dir, profile: .linktrail)
        try FileManager.default.createSymbolicLink(atPath: lock, withDestinationPath: victim)
        XCTAssertEqual(
            refusal(dir),
            "\(lock): is a symbolic link; Outbox never opens its lock file through a link. Remove the link (its target is not touched)"
        )
        let r = cli(["run", "--quiet", "--state-dir", dir, scenario])
        XCTAssertEqual(r.0, 2)
        XCTAssertEqual(
            r.2,
            "outbox run: \(lock): is a symbolic link; Outbox never opens its lock file through a link. Remove the link (its target is not touched)\n"
        )
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious data\n")
        XCTAssertTrue(isSymlink(lock))
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: SQLiteDeviceStore.databasePath(directory: dir, profile: .linktrail)),
            "no database was made")

        // A dangling link: its target is not created.
        let dir2 = tempDir("lockdangling")
        let target = tempDir("nowhere") + "/made-by-outbox"
        try FileManager.default.createSymbolicLink(
            atPath: SQLiteDeviceStore.lockPath(directory: dir2, profile: .ios), withDestinationPath: target)
        XCTAssertTrue(refusal(dir2, .ios)?.contains("is a symbolic link") == true)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target))
    }

    func test_lockThatIsNotARegularFile_isRefused() throws {
        let dir = tempDir("lockdir")
        let lock = SQLiteDeviceStore.lockPath(directory: dir, profile: .linktrail)
        try FileManager.default.createDirectory(atPath: lock, withIntermediateDirectories: false)
        XCTAssertEqual(refusal(dir), "\(lock): is a directory, expected a regular file (the device's lock file)")
        let dir2 = tempDir("lockfifo")
        let fifo = SQLiteDeviceStore.lockPath(directory: dir2, profile: .linktrail)
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        XCTAssertEqual(refusal(dir2), "\(fifo): is a FIFO, expected a regular file (the device's lock file)")
    }

    /// The lock file only carries the lock: what is in it stays as it was.
    func test_lockFile_isNeverWritten() throws {
        let dir = tempDir("locknotes")
        let lock = SQLiteDeviceStore.lockPath(directory: dir, profile: .linktrail)
        try "someone's notes\n".write(toFile: lock, atomically: true, encoding: .utf8)
        let s = try SQLiteDeviceStore(directory: dir, profile: .linktrail)
        XCTAssertEqual(try String(contentsOfFile: lock, encoding: .utf8), "someone's notes\n")
        s.close()
        XCTAssertEqual(try String(contentsOfFile: lock, encoding: .utf8), "someone's notes\n")
        let fresh = tempDir("lockfresh")
        try SQLiteDeviceStore(directory: fresh, profile: .ios).close()
        XCTAssertEqual(
            bytes(SQLiteDeviceStore.lockPath(directory: fresh, profile: .ios)), Data(), "created empty, left empty")
    }

    /// The holder named was the pid left in the file; now the kernel names it.
    func test_anotherProcess_isRefused_namingTheRealHolder() throws {
        let binary = try requireBinary()
        let dir = tempDir("holder")
        let db = makeDevice(dir)
        let lock = SQLiteDeviceStore.lockPath(directory: dir, profile: .linktrail)
        // A stale pid from an old Outbox, as the file may hold.
        try "4242\n".write(toFile: lock, atomically: true, encoding: .utf8)
        let held = try SQLiteDeviceStore(directory: dir, profile: .linktrail)
        // A refused second open in this process must not let the lock go.
        XCTAssertTrue(refusal(dir)?.contains("already open in this process") == true)
        let out = tempDir("holder-out")
        guard
            let child = spawnChild(
                [binary, "run", "--quiet", "--state-dir", dir, scenario], stdout: out + "/out", stderr: out + "/err")
        else {
            return XCTFail("cannot start \(binary)")
        }
        XCTAssertEqual(waitExit(child), 2)
        let err = try String(contentsOfFile: out + "/err", encoding: .utf8)
        XCTAssertEqual(
            err,
            "outbox run: \(db): another process (pid \(getpid())) is using this device: it holds the lock on \(lock); only one Outbox may write a device at a time\n"
        )
        XCTAssertEqual(try String(contentsOfFile: lock, encoding: .utf8), "4242\n", "the lock file is not written")
        held.close()
        guard
            let again = spawnChild(
                [binary, "run", "--quiet", "--state-dir", dir, scenario], stdout: out + "/out2", stderr: out + "/err2")
        else {
            return XCTFail("cannot start \(binary)")
        }
        XCTAssertEqual(waitExit(again), 0, (try? String(contentsOfFile: out + "/err2", encoding: .utf8)) ?? "")
    }

    // MARK: The database

    /// A dangling symlinked database was created at the link's target.
    func test_databaseThatIsASymlink_isRefused_nothingCreatedOrChanged() throws {
        let dir = tempDir("dblink")
        let db = SQLiteDeviceStore.databasePath(directory: dir, profile: .linktrail)
        let target = tempDir("elsewhere") + "/created.sqlite"
        try FileManager.default.createSymbolicLink(atPath: db, withDestinationPath: target)
        let message =
            "\(db): is a symbolic link; Outbox never reads or writes its database through a link, so nothing was opened. Put the file itself there, or move the link aside with `outbox state reset --profile linktrail --state-dir \(dir)` (its target is not touched)"
        XCTAssertEqual(refusal(dir), message)
        XCTAssertEqual(refusal(dir, readOnly: true), message)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target), "nothing made at the target")
        for f in ["-wal", "-shm", "-journal"] { XCTAssertFalse(FileManager.default.fileExists(atPath: target + f)) }
        let run = cli(["run", "--quiet", "--state-dir", dir, scenario])
        XCTAssertEqual(run.0, 2)
        XCTAssertEqual(run.2, "outbox run: " + message + "\n")
        // show named "no saved device" and exited 0.
        let show = cli(["state", "show", "--state-dir", dir])
        XCTAssertEqual(show.0, 2)
        XCTAssertEqual(show.2, "outbox state: " + message + "\n")

        // A link to a real device elsewhere: refused, and that device untouched.
        let other = tempDir("realdevice")
        let real = makeDevice(other)
        let before = bytes(real)
        let dir2 = tempDir("dblink2")
        let db2 = SQLiteDeviceStore.databasePath(directory: dir2, profile: .linktrail)
        try FileManager.default.createSymbolicLink(atPath: db2, withDestinationPath: real)
        XCTAssertTrue(refusal(dir2)?.hasPrefix("\(db2): is a symbolic link") == true)
        XCTAssertEqual(bytes(real), before)

        // reset moves the link itself aside; the target stays where it is, unchanged.
        let reset = cli(["state", "reset", "--state-dir", dir2])
        XCTAssertEqual(reset.0, 0, reset.2)
        let aside = try FileManager.default.contentsOfDirectory(atPath: dir2).filter { $0.contains(".reset-") }
        XCTAssertEqual(aside.count, 1)
        XCTAssertTrue(isSymlink(dir2 + "/" + aside[0]))
        XCTAssertEqual(bytes(real), before)
    }

    func test_companionFilesThatAreSymlinks_areRefused() throws {
        let victim = tempDir("victim2") + "/precious"
        try "precious\n".write(toFile: victim, atomically: true, encoding: .utf8)
        for suffix in ["-wal", "-shm", "-journal"] {
            let dir = tempDir("companion")
            let db = makeDevice(dir)
            try FileManager.default.createSymbolicLink(atPath: db + suffix, withDestinationPath: victim)
            let m = refusal(dir)
            XCTAssertTrue(
                m?.hasPrefix(
                    "\(db + suffix): is a symbolic link; Outbox never reads or writes its database through a link")
                    == true,
                m ?? "opened with a symlinked \(suffix)")
            XCTAssertTrue(refusal(dir, readOnly: true)?.hasPrefix("\(db + suffix): is a symbolic link") == true)
            XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious\n", suffix)
        }
    }

    /// A database with a second name elsewhere is not written (it would change that file too).
    func test_hardLinkedDatabase_isNotWritten() throws {
        let dir = tempDir("hard")
        let db = makeDevice(dir)
        let other = tempDir("hard-other") + "/second-name"
        XCTAssertEqual(link(db, other), 0)
        let before = bytes(db)
        XCTAssertTrue(
            refusal(dir)?.hasPrefix(
                "\(db): has 2 names (hard links); Outbox writes only a database file that is its own") == true)
        XCTAssertEqual(bytes(db), before)
        XCTAssertEqual(cli(["state", "show", "--state-dir", dir]).0, 0, "reading it is fine")
    }

    // MARK: Backups

    /// Two resets in the same second: the second backup overwrote the first.
    func test_twoResetsInARow_keepBothBackups() throws {
        let dir = tempDir("resets")
        let db = makeDevice(dir, requests: 3)
        XCTAssertEqual(
            try SQLiteDeviceStore.reset(directory: dir, profile: .linktrail, stamp: "100"), db + ".reset-100")
        _ = makeDevice(dir, requests: 5)
        XCTAssertEqual(
            try SQLiteDeviceStore.reset(directory: dir, profile: .linktrail, stamp: "100"), db + ".reset-100-2")
        XCTAssertEqual(rawSQL(db + ".reset-100", "SELECT count(*) FROM requests"), "3")
        XCTAssertEqual(rawSQL(db + ".reset-100-2", "SELECT count(*) FROM requests"), "5")
        XCTAssertFalse(FileManager.default.fileExists(atPath: db))

        // A file already at a backup's name, or a stray log beside one, is never replaced.
        _ = makeDevice(dir, requests: 7)
        try "not mine\n".write(toFile: db + ".reset-200", atomically: true, encoding: .utf8)
        try "stray log\n".write(toFile: db + ".reset-200-2-wal", atomically: true, encoding: .utf8)
        XCTAssertEqual(
            try SQLiteDeviceStore.reset(directory: dir, profile: .linktrail, stamp: "200"), db + ".reset-200-3")
        XCTAssertEqual(try String(contentsOfFile: db + ".reset-200", encoding: .utf8), "not mine\n")
        XCTAssertEqual(try String(contentsOfFile: db + ".reset-200-2-wal", encoding: .utf8), "stray log\n")
        XCTAssertEqual(rawSQL(db + ".reset-200-3", "SELECT count(*) FROM requests"), "7")

        // From the command line, twice in a row (the same second or not).
        let folder = tempDir("resetcli")
        for n: Int32 in [2, 4] {
            _ = makeDevice(folder, requests: n)
            XCTAssertEqual(cli(["state", "reset", "--profile", "linktrail", "--state-dir", folder]).0, 0)
        }
        let backups = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.contains(".reset-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
        }
        XCTAssertEqual(backups.count, 2)
        XCTAssertEqual(
            Set(backups.map { rawSQL(folder + "/" + $0, "SELECT count(*) FROM requests") ?? "" }), ["2", "4"])
    }

    /// A reset keeps a device's write-ahead log with it: what was committed there moves too.
    func test_reset_movesTheLogWithTheDatabase() throws {
        let dir = tempDir("resetwal")
        let db = makeDevice(dir, requests: 2)
        // An open device has its log beside it; copy the three files as a killed process leaves them.
        let s = try SQLiteDeviceStore(directory: dir, profile: .linktrail)
        s.save(
            SavedRequest(
                id: 3, kind: Vocabulary.builtin.kind("ping")!, name: "p", createdAt: 0, idempotencyKey: 0, value: nil,
                currency: "",
                attributes: [],
                attempts: 0, waitingForConsent: false))
        let copy = tempDir("resetwal-copy")
        let copied = SQLiteDeviceStore.databasePath(directory: copy, profile: .linktrail)
        for f in ["", "-wal", "-shm"] { try FileManager.default.copyItem(atPath: db + f, toPath: copied + f) }
        s.close()
        XCTAssertTrue(FileManager.default.fileExists(atPath: copied + "-wal"))
        let aside = try SQLiteDeviceStore.reset(directory: copy, profile: .linktrail, stamp: "7")
        XCTAssertEqual(aside, copied + ".reset-7")
        XCTAssertTrue(FileManager.default.fileExists(atPath: copied + ".reset-7-wal"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: copied + "-wal"))
        XCTAssertEqual(rawSQL(copied + ".reset-7", "SELECT count(*) FROM requests"), "3")
    }

    // MARK: Read-only files and directories

    /// A healthy database in a read-only directory was called "damaged".
    func test_readOnlyDirectory_saysSo_andShowStillReads() throws {
        let dir = tempDir("rodir")
        let db = makeDevice(dir)
        let before = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        XCTAssertEqual(chmod(dir, 0o555), 0)
        defer { chmod(dir, 0o755) }
        let refused = withoutRoot { refusal(dir) }
        XCTAssertEqual(
            refused,
            "\(dir): the state directory is not writable by this user (permission denied); Outbox creates a device's lock and database files there to run it. Nothing was changed; `outbox state show` can still read what it holds"
        )
        let run = withoutRoot { cli(["run", "--quiet", "--state-dir", dir, scenario]) }
        XCTAssertEqual(run.0, 2)
        XCTAssertEqual(run.2, "outbox run: " + (refused ?? "") + "\n")
        let show = withoutRoot { cli(["state", "show", "--state-dir", dir]) }
        XCTAssertEqual(show.0, 0, show.2)
        XCTAssertTrue(show.1.contains("linktrail: 3 saved · \(db)"), show.1)
        XCTAssertFalse(show.2.contains("damaged"), show.2)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), before, "nothing created")
    }

    /// `outbox state show` left `-shm` and `-wal` files beside a device it only
    /// read. With nobody holding the device's lock it reads the file as immutable
    /// and leaves the directory as it found it; while a writer holds the lock it
    /// reads through SQLite's shared memory as before, and still answers.
    func test_show_leavesNoCompanionFiles() throws {
        let dir = tempDir("showclean")
        _ = makeDevice(dir)
        let before = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        XCTAssertEqual(before, ["linktrail.lock", "linktrail.sqlite"])
        let show = cli(["state", "show", "--state-dir", dir])
        XCTAssertEqual(show.0, 0, show.2)
        XCTAssertTrue(show.1.contains("linktrail: 3 saved"), show.1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), before)
        let writer = try SQLiteDeviceStore(directory: dir, profile: .linktrail)
        let look = try SQLiteDeviceStore(directory: dir, profile: .linktrail, readOnly: true)
        XCTAssertEqual(look.loadAll().count, 3)
        look.close()
        writer.close()
    }

    /// A read-only database file opened, and the first write failed mid-run.
    func test_readOnlyDatabaseFile_isRefusedAtOpen_andShowStillReads() throws {
        let dir = tempDir("rofile")
        let db = makeDevice(dir)
        XCTAssertEqual(chmod(dir, 0o777), 0)
        XCTAssertEqual(chmod(db, 0o444), 0)
        // The lock stays writable: only the database is read-only here.
        XCTAssertEqual(chmod(SQLiteDeviceStore.lockPath(directory: dir, profile: .linktrail), 0o666), 0)
        defer { chmod(dir, 0o755) }
        let before = bytes(db)
        let refused = withoutRoot { refusal(dir) }
        XCTAssertEqual(
            refused,
            "\(db): the database file is read-only (no permission to write it); nothing was changed. Outbox writes a device it runs: make the file writable (chmod u+w) or use another --state-dir; `outbox state show --profile linktrail --state-dir \(dir)` can still read it"
        )
        let run = withoutRoot { cli(["run", "--quiet", "--state-dir", dir, scenario]) }
        XCTAssertEqual(run.0, 2)
        XCTAssertEqual(run.1, "", "nothing ran")
        XCTAssertEqual(run.2, "outbox run: " + (refused ?? "") + "\n")
        let show = withoutRoot { cli(["state", "show", "--state-dir", dir]) }
        XCTAssertEqual(show.0, 0, show.2)
        XCTAssertTrue(show.1.contains("linktrail: 3 saved"), show.1)
        XCTAssertEqual(bytes(db), before)
    }
}
