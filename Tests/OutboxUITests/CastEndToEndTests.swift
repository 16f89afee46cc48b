import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// `outbox --cast FILE` in a real terminal (tmux): the recording is asciicast
/// v2, and its bytes, fed to a fresh terminal of the same size, draw the screen
/// that was on it.
extension EndToEndTests {
    /// The lines of a cast: the header, the output events (`"o"`) and the
    /// resizes (`"r"`), parsed as JSON.
    func parseCast(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> (
        header: [String: Any], events: [(Double, String)], resizes: [(Double, String)]
    )? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.last == "", lines.count >= 2,
            let header = try? JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        else {
            XCTFail("not a cast:\n" + text.prefix(500), file: file, line: line)
            return nil
        }
        var events: [(Double, String)] = [], resizes: [(Double, String)] = []
        var times: [Double] = []
        for l in lines.dropFirst().dropLast() {
            guard let e = try? JSONSerialization.jsonObject(with: Data(l.utf8)) as? [Any], e.count == 3,
                let t = (e[0] as? NSNumber)?.doubleValue, let kind = e[1] as? String, kind == "o" || kind == "r",
                let data = e[2] as? String
            else {
                XCTFail("not an event: \(l)", file: file, line: line)
                return nil
            }
            if kind == "o" { events.append((t, data)) } else { resizes.append((t, data)) }
            times.append(t)
        }
        XCTAssertEqual(times, times.sorted(), "times go forward", file: file, line: line)
        return (header, events, resizes)
    }

    /// Waits until the screen stays the same for half a second; returns it.
    func stableScreen() -> String {
        var last = screen()
        for _ in 0..<20 {
            usleep(500_000)
            let now = screen()
            if now == last { return now }
            last = now
        }
        XCTFail("the screen never settled:\n" + last)
        return last
    }

    func test_cast_recordsTheBytesThatDrawTheScreen() throws {
        XCTAssertEqual(sh("command -v tmux").0, 0, "tmux is needed (.ci/run installs it)")
        let cast = work + "/demo.cast"
        XCTAssertTrue(
            start("cd \(work) && " + outbox("--memory --cast \(cast)") + "; " + Self.afterExit, width: 90, height: 28))
        guard waitFor("OUTBOX") else { return }
        // At a person's pace: a key, then its effect on the screen.
        for (key, shows) in [("c", "consent ✓ granted"), ("o", "offline"), ("t", "retrying"), (" ", "resume")] {
            usleep(400_000)
            keys(key)
            guard waitFor(shows) else { return }
        }
        let shown = stableScreen()
        let recorded = try String(contentsOfFile: cast, encoding: .utf8)
        keys("q")
        guard waitFor("EXIT=0 icanon") else { return }
        // The terminal's output processing is back on, as before the recording.
        XCTAssertTrue(sh("\(tmux) capture-pane -p -J").1.contains("recorded the screen to \(cast)"), screen())

        guard let (header, events, resizes) = parseCast(recorded) else { return }
        XCTAssertEqual(resizes.count, 0)
        XCTAssertEqual(header["version"] as? Int, 2)
        XCTAssertEqual(header["width"] as? Int, 90)
        XCTAssertEqual(header["height"] as? Int, 28)
        XCTAssertNotNil(header["timestamp"] as? Int)
        XCTAssertNotNil((header["env"] as? [String: String])?["TERM"])
        XCTAssertGreaterThan(events.count, 4)

        // The bytes recorded up to then, into a fresh terminal of the same size.
        let bytes = work + "/bytes"
        try events.map(\.1).joined().write(toFile: bytes, atomically: true, encoding: .utf8)
        XCTAssertTrue(start("cat \(bytes); exec sleep 60", width: 90, height: 28))
        let replayed = stableScreen()
        XCTAssertEqual(replayed, shown)

        // The whole file, quit included, is still asciicast: one event a line to the end.
        guard let (_, all, _) = parseCast(try String(contentsOfFile: cast, encoding: .utf8)) else { return }
        XCTAssertGreaterThanOrEqual(all.count, events.count)
    }

    /// The terminal grows during the recording: the screen is drawn at the new
    /// size (curses learns it through the pseudo-terminal), the cast says so
    /// with an `"r"` event, and its bytes still draw that screen.
    func test_cast_followsAResize() throws {
        let cast = work + "/resize.cast"
        XCTAssertTrue(
            start("cd \(work) && " + outbox("--memory --cast \(cast)") + "; " + Self.afterExit, width: 80, height: 24))
        guard waitFor("OUTBOX") else { return }
        keys("c")
        guard waitFor("consent ✓ granted") else { return }
        keys(" ")
        guard waitFor("PAUSED") else { return }
        sh("\(tmux) resize-window -x 110 -y 32")
        // Wider, the tabs spell their states out in full.
        guard waitFor("Requests  all 1  pending") else { return }
        let shown = stableScreen()
        // 32 rows and the last newline.
        XCTAssertEqual(shown.split(separator: "\n", omittingEmptySubsequences: false).count, 33, shown)
        let recorded = try String(contentsOfFile: cast, encoding: .utf8)
        keys("q")
        guard waitFor("EXIT=0 icanon") else { return }
        guard let (_, events, resizes) = parseCast(recorded) else { return }
        XCTAssertEqual(resizes.map(\.1), ["110x32"])
        let bytes = work + "/bytes"
        try events.map(\.1).joined().write(toFile: bytes, atomically: true, encoding: .utf8)
        XCTAssertTrue(start("cat \(bytes); exec sleep 60", width: 110, height: 32))
        XCTAssertEqual(stableScreen(), shown)
    }

    /// An existing FILE is kept unless --force, before the terminal is touched.
    func test_cast_refusesAnExistingFile() throws {
        let cast = work + "/kept.cast"
        try "mine\n".write(toFile: cast, atomically: true, encoding: .utf8)
        let (status, out) = sh("\(binary) --memory --cast \(cast) 2>&1")
        XCTAssertEqual(status, 2)
        XCTAssertEqual(
            out,
            "outbox: --cast \(cast): the file exists and was left as it is; "
                + "expected a new file: give another name, or --force to replace it\n")
        XCTAssertEqual(try String(contentsOfFile: cast, encoding: .utf8), "mine\n")
    }
}

/// The asciicast encoding, byte for byte.
final class AsciicastTests: XCTestCase {
    func testHeaderAndEventsAreJSONWithEveryControlByteEscaped() {
        XCTAssertEqual(
            Asciicast.header(width: 80, height: 24, timestamp: 1_700_000_000, term: "xterm-256color", shell: nil),
            #"{"version":2,"width":80,"height":24,"timestamp":1700000000,"env":{"TERM":"xterm-256color"}}"#)
        XCTAssertEqual(
            Asciicast.output(micros: 1_500_042, "\u{1b}[1;2H\"é\"\\\r\n\u{0f}"),
            #"[1.500042, "o", "\u001b[1;2H\"é\"\\\r\n\u000f"]"#)
    }

    /// A character cut between two writes is held back and written whole with
    /// the next; a byte that is not UTF-8 is U+FFFD.
    func testUTF8CutBetweenWritesAndInvalidBytes() {
        let e = Array("é│".utf8)  // 2 + 3 bytes
        var (text, rest) = Asciicast.text(Array(e[0..<3]))
        XCTAssertEqual(text, "é")
        XCTAssertEqual(rest, [e[2]])
        (text, rest) = Asciicast.text(rest + Array(e[3...]))
        XCTAssertEqual(text, "│")
        XCTAssertEqual(rest, [])
        (text, rest) = Asciicast.text([0x41, 0xFF, 0x42, 0xC3])
        XCTAssertEqual(text, "A\u{FFFD}B")
        XCTAssertEqual(rest, [0xC3])
        (text, rest) = Asciicast.text(rest, final: true)
        XCTAssertEqual(text, "\u{FFFD}")
        XCTAssertEqual(rest, [])
    }
}
