import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// Issue 22, "Words and messages": the byte-order mark, invisible characters,
/// and what `profiles --source` shows on a terminal.
final class WordsTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "outbox-words-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { [dir] in try? FileManager.default.removeItem(atPath: dir) }
    }

    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = dir + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Every reader skips a byte-order mark at the start: a scenario (and so a
    /// recording), a profile, a theme; the file is used as if it had none.
    /// One elsewhere is text, and shows as `\u{feff}`. `--update` keeps it.
    func test_aByteOrderMark_isSkippedByEveryReader() throws {
        let profile = try file("bom.profile", Self.bom + Array("profile u10\nbase ios\n".utf8))
        let scenario = try file(
            "bom.outbox",
            Self.bom + Array("profile ./bom.profile\nat 0 launch\nat 0 track a\nexpect at 1s state a queued\n".utf8))
        let (s1, out1, err1) = cli(["run", "-q", scenario])
        XCTAssertEqual(s1, 1, err1)
        XCTAssertEqual(err1, "\(scenario):4: check failed: expect at 1s state a queued: found #1 is delivered\n")
        XCTAssertTrue(out1.hasSuffix("0 passed, 1 failed · 3 transitions · ended at 00:00:01.000\n"), out1)
        let (s2, out2, _) = cli(["profiles", profile])
        XCTAssertEqual(s2, 0)
        XCTAssertTrue(out2.hasPrefix("u10: "), out2)
        let theme = try file("t.theme", Self.bom + Array("normal white black\n".utf8))
        if case .failure(let p) = InteractiveCommand.loadTheme(theme) { XCTFail("a theme with a BOM: " + p.message) }
        XCTAssertEqual(Scenario.compareLine(in: "\u{feff}compare ios,android\n"), [.ios, .android])

        // `--update` rewrites only the failing check's last word: the mark stays.
        let (s3, _, e3) = cli(["run", "-q", "--update", scenario])
        XCTAssertEqual(s3, 0, e3)
        let updated = [UInt8](FileManager.default.contents(atPath: scenario)!)
        XCTAssertEqual(Array(updated.prefix(3)), Self.bom)
        XCTAssertTrue(String(decoding: updated, as: UTF8.self).hasSuffix("expect at 1s state a delivered\n"))

        // A second one is not a mark but a character: shown, so the message makes sense.
        let twice = try file("twice.outbox", Self.bom + Self.bom + Array("profile ios\nat 0 launch\n".utf8))
        let (s4, _, err4) = cli(["run", twice])
        XCTAssertEqual(s4, 2)
        XCTAssertTrue(
            err4.hasPrefix(
                "\(twice):1: `\\u{feff}profile` before the profile, expected `profile linktrail|ios|android|flutter` first; did you mean `profile`?"
            ), err4)
    }

    /// Names that differ only by an invisible character show differently in
    /// the timeline, the check lines and `state show` (reliability S3 21).
    func test_namesWithInvisibleCharacters_showDistinct() throws {
        let scenario = try file(
            "names.outbox",
            Array(
                "profile ios\nat 0 launch\nat 0 network offline\nat 1s track \"a\\u{feff}b\"\nat 1s track a\u{200b}b\nat 1s track ab\nat 2s quit\nexpect at 2s saved 3\n"
                    .utf8))
        let state = dir + "/state"
        let (s1, out, _) = cli(["run", "--state-dir", state, scenario])
        XCTAssertEqual(s1, 0)
        let rows = out.split(separator: "\n").filter { $0.contains("new → queued") }.map {
            $0.split(separator: " ", omittingEmptySubsequences: true)[3]
        }
        XCTAssertEqual(rows, ["a\\u{feff}b", "a\\u{200b}b", "ab"])
        let (s2, shown, _) = cli(["state", "show", "--state-dir", state])
        XCTAssertEqual(s2, 0)
        XCTAssertTrue(shown.contains(" a\\u{feff}b "), shown)
        XCTAssertTrue(shown.contains(" a\\u{200b}b "), shown)
        XCTAssertTrue(shown.contains(" ab "), shown)
        // JSONL keeps the names exact.
        let (_, jsonl, _) = cli(["state", "show", "--state-dir", state, "--format", "jsonl"])
        XCTAssertTrue(jsonl.contains(#""name":"a\ufeffb""#), jsonl)
    }

    /// `profiles --source` on a terminal: escaped for the screen, but lines,
    /// tabs and CRLF ends kept; the count said.
    func test_sourceOnATerminal_isEscapedButKeepsItsLayout() {
        let (shown, n) = ProfilesCommand.forTerminal(
            "profile a\r\n\t# \u{1b}]2;X\u{07}\rhidden\u{feff}\n")
        XCTAssertEqual(shown, "profile a\r\n\t# \\x1b]2;X\\x07\\rhidden\\u{feff}\n")
        XCTAssertEqual(n, 4)
        XCTAssertEqual(ProfilesCommand.forTerminal("plain\n").1, 0)
    }

    /// stdout for people is escaped by `Console.print` whatever the line holds;
    /// `printExact` is for what is already safe where it goes.
    func test_consolePrint_escapes_printExactDoesNot() {
        let c = Console.capturing()
        c.print("a\u{1b}[2J\nb\u{feff}\u{9b}")
        c.printExact("\u{1b}[1mbold\u{1b}[0m")
        XCTAssertEqual(c.out, "a\\x1b[2J\nb\\u{feff}\\u{9b}\n\u{1b}[1mbold\u{1b}[0m\n")
    }
}
