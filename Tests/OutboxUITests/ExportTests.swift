import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxUI

/// `e` asks where to export (default shown), `:export PATH` writes there, a file
/// that exists is replaced only when confirmed, and a path that cannot be written
/// is a message on the screen.
final class ExportTests: XCTestCase {
    var dir = ""

    override func setUp() {
        dir =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("outbox-export-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: dir)
    }

    func lastRow(_ s: Session) -> String { s.screen().lines.last! }

    /// What `outbox run --format jsonl` prints for the session's recording, up to now.
    func replayed(_ s: Session, compare: Bool = false) throws -> String {
        let rec = dir + "/replay.outbox"
        try s.model.recording(seed: 1, version: "t", path: rec).write(toFile: rec, atomically: true, encoding: .utf8)
        let console = Console.capturing()
        XCTAssertEqual(
            CLI.main(
                compare ? ["compare", "--format", "jsonl", rec] : ["run", "--format", "jsonl", rec], console: console),
            0,
            console.err)
        try FileManager.default.removeItem(atPath: rec)
        let now = Double(s.model.sim.now) / 1000
        return console.out.split(separator: "\n").filter { line in
            guard line.hasPrefix("{\"t\":"), let comma = line.firstIndex(of: ",") else { return false }
            return Double(line[line.index(line.startIndex, offsetBy: 5)..<comma])! <= now
                && (!compare || line.contains("\"profile\":"))
        }.map { $0 + "\n" }.joined()
    }

    func test_e_asksWhere_defaultShown_EnterWritesThere() throws {
        var s = Session(.linktrail)
        s.type("ct")
        s.wait(2_500)
        XCTAssertNil(s.press(.char("e")))
        XCTAssertEqual(s.model.mode, .exportPath("outbox-linktrail-000002-500.jsonl"))
        XCTAssertEqual(
            lastRow(s),
            "export to: outbox-linktrail-000002-500.jsonl_  (Enter writes, Esc cancels)"
                + String(repeating: " ", count: 6))
        // Edited: Backspace and typing change the path; keys are text here (`q` does not quit).
        for _ in 0..<"000002-500.jsonl".count { s.press(.backspace) }
        s.type("q.jsonl")
        XCTAssertEqual(s.model.mode, .exportPath("outbox-linktrail-q.jsonl"))
        let path = dir + "/out.jsonl"
        s.model.mode = .exportPath(path)
        XCTAssertEqual(s.press(.enter), .export(path: path, replace: false))
        XCTAssertEqual(s.model.mode, .normal)
        InteractiveCommand.Loop.export(&s.model, to: path, replace: false)
        XCTAssertEqual(s.model.message?.text, "exported \(s.model.sim.journal.count) lines to \(path)")
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), try replayed(s))
    }

    func test_escCancels_nothingWritten() {
        var s = Session(.ios)
        s.type("e")
        XCTAssertNil(s.press(.escape))
        XCTAssertEqual(s.model.mode, .normal)
        XCTAssertEqual(s.model.message?.text, "export cancelled")
        XCTAssertTrue(lastRow(s).hasPrefix(" export cancelled"), lastRow(s))
    }

    func test_anExistingFile_isReplacedOnlyWhenConfirmed() throws {
        var s = Session(.ios)
        s.type("tp")
        s.wait(1000)
        let path = dir + "/kept.jsonl"
        try "mine\n".write(toFile: path, atomically: true, encoding: .utf8)
        s.command("export " + path)
        // The loop gets the effect, finds the file and asks.
        InteractiveCommand.Loop.export(&s.model, to: path, replace: false)
        XCTAssertEqual(s.model.mode, .confirmReplace(path))
        let shown = "file exists; y replaces it, any other key keeps it: "
        XCTAssertEqual(lastRow(s), shown + "..." + path.suffix(80 - shown.count - 3))
        XCTAssertEqual(
            s.screen(200, 24).lines.last!, shown + path + String(repeating: " ", count: 200 - shown.count - path.count))
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "mine\n")
        XCTAssertNil(s.press(.char("n")))
        XCTAssertEqual(s.model.message?.text, "export cancelled: \(path) kept as it was")
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "mine\n")
        InteractiveCommand.Loop.export(&s.model, to: path, replace: false)
        XCTAssertEqual(s.press(.char("y")), .export(path: path, replace: true))
        InteractiveCommand.Loop.export(&s.model, to: path, replace: true)
        XCTAssertEqual(s.model.message?.text, "exported \(s.model.sim.journal.count) lines to \(path) (replaced)")
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), try replayed(s))
    }

    func test_exportCommand_forms() {
        var s = Session(.flutter)
        s.press(.char(":"))
        s.type("export! \"" + dir + "/a b.jsonl\"")
        XCTAssertEqual(s.press(.enter), .export(path: dir + "/a b.jsonl", replace: true))
        s.command("export")
        XCTAssertEqual(s.model.mode, .exportPath(s.model.defaultExportPath))
        s.press(.escape)
        s.command("export a b")
        XCTAssertEqual(
            s.model.message?.text,
            "expected :export PATH (a path with spaces goes in quotes), or :export! PATH to replace a file")
        s.command("export!")
        XCTAssertEqual(s.model.message?.text, "expected :export! PATH: the file to replace")
    }

    func test_pathsThatCannotBeWritten_areMessages() throws {
        var s = Session(.android)
        try "x".write(toFile: dir + "/file", atomically: true, encoding: .utf8)
        for (path, why) in [
            (dir + "/missing/t.jsonl", "its folder does not exist"),
            (dir + "/file/t.jsonl", "Not a directory"),
        ] {
            InteractiveCommand.Loop.export(&s.model, to: path, replace: false)
            XCTAssertEqual(s.model.message?.text, "export failed: cannot write \(path): \(why); nothing was written")
            XCTAssertEqual(s.model.message?.isError, true)
        }
        // A folder: refused by name at once, never asked about (issue 22; WholeFilesTests has the others).
        InteractiveCommand.Loop.export(&s.model, to: dir, replace: false)
        XCTAssertEqual(s.model.mode, .normal)
        XCTAssertEqual(
            s.model.message?.text, "export failed: cannot write \(dir): it is a directory; nothing was written")
    }

    /// A compare exports one file: each column's timeline with `"profile"`
    /// second, as `outbox compare --format jsonl` prints the runs.
    func test_compare_oneFile_profilePerLine() throws {
        var s = Session(.ios)
        s.model = InteractiveCommand.newCompareModel([.ios, .android], seed: 1)
        s.type("tpo")
        s.wait(3000)
        s.type("o")
        s.wait(1000)
        s.type("e")
        XCTAssertEqual(s.model.mode, .exportPath("outbox-ios-android-000004-000.jsonl"))
        let path = dir + "/c.jsonl"
        InteractiveCommand.Loop.export(&s.model, to: path, replace: false)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertEqual(text, try replayed(s, compare: true))
        XCTAssertTrue(text.hasPrefix("{\"t\":0,\"profile\":\"ios\","), text)
        XCTAssertTrue(text.contains("{\"t\":0,\"profile\":\"android\","), text)
    }
}
