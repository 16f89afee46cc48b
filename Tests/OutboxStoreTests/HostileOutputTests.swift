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

/// Issue 22, item 5: no control byte from a path or a file reaches stdout or
/// stderr, whatever the command. The real program runs every command (each
/// format of `run` and `compare`, `profiles` with and without a path and with
/// `--source`, `--explain`, `state show` and `reset`, `keys`, `help`, bad input) with hostile
/// folder and file names (ESC, BEL, CR, U+009B, a bidi override, a zero-width
/// space, a byte-order mark), a hostile state folder and user profiles folder,
/// and files whose contents hold the same; everything it writes is read back
/// and must hold no scalar `SafeText` escapes but the line feed.
///
/// The one documented exception: `profiles --source` to a file or a pipe writes
/// the profile exactly (`> acme.profile`); checked to be exact, and on a
/// terminal (a pseudo-terminal here) checked to be escaped.
final class HostileOutputTests: XCTestCase {
    static let hostile = "\u{1b}]2;PWNED\u{07}\r\u{9b}\u{202e}\u{200b}\u{feff}"

    var root = ""
    var binary = ""

    override func setUpWithError() throws {
        binary = try requireBinary()
        root = NSTemporaryDirectory() + "hostile-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        addTeardownBlock { [root] in try? FileManager.default.removeItem(atPath: root) }
    }

    func write(_ path: String, _ text: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Runs the program; (status, stdout bytes, stderr bytes).
    func run(_ args: [String], stdout: String? = nil) -> (Int32, [UInt8], [UInt8]) {
        let out = stdout ?? root + "/out-\(UInt32.random(in: 0...UInt32.max))"
        let err = root + "/err-\(UInt32.random(in: 0...UInt32.max))"
        let env = [
            "HOME=" + root + "/home" + Self.hostile, "XDG_CONFIG_HOME=" + root + "/config" + Self.hostile,
            "XDG_STATE_HOME=" + root + "/state" + Self.hostile, "NO_COLOR=", "SWIFT_BACKTRACE=enable=no",
        ]
        guard let pid = spawnChild([binary] + args, stdout: out, stderr: err, environment: env) else {
            XCTFail("cannot start \(binary)")
            return (-1, [], [])
        }
        let status = waitExit(pid)
        let o = stdout == nil ? [UInt8](FileManager.default.contents(atPath: out) ?? Data()) : []
        let e = [UInt8](FileManager.default.contents(atPath: err) ?? Data())
        return (status, o, e)
    }

    /// The first scalar a terminal would obey or not show, with where it is; nil when none.
    func unsafe(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        for (i, u) in text.unicodeScalars.enumerated() where u != "\n" && SafeText.needsEscape(u) {
            let around = String(String.UnicodeScalarView(text.unicodeScalars.dropFirst(max(0, i - 40)).prefix(80)))
            return "U+\(String(u.value, radix: 16)) at scalar \(i): \(around.debugDescription)"
        }
        return nil
    }

    func test_everyCommand_withHostilePathsAndFiles_writesNoControlByte() throws {
        let h = Self.hostile
        let dir = root + "/d" + h
        let profile = dir + "/p" + h + ".profile"
        let scenario = dir + "/s" + h + ".outbox"
        let state = root + "/sd" + h
        // A profile whose comment holds what a terminal obeys (comments may hold anything).
        try write(profile, "\u{feff}# \u{1b}]2;PWNED\u{07} \u{1b}[2J\r hello\u{9b}\nprofile hostile\nbase ios\n")
        // A scenario naming it by a quoted path, with hostile names, attributes and a comment;
        // a failing check, and one on a name no line creates (a look-alike of the name).
        let name = #""n\x1b]2;T\x07\r\u{9b}\u{202e}\u{200b}\u{feff}x""#
        try write(
            scenario,
            """
            \u{feff}profile "./p\\x1b]2;PWNED\\x07\\r\\u{9b}\\u{202e}\\u{200b}\\u{feff}.profile"  # \u{1b}[2J raw
            at 0 launch
            at 0 network offline
            at 1s track \(name) note="v\\x1b[2J\\u{feff}"
            at 1s track a\u{200b}b
            expect at 2s state \(name) delivered
            expect at 2s state ab queued
            at 3s quit

            """)
        // The user profiles folder: a usable profile, one named like a built-in, one misnamed.
        let users = root + "/config" + h + "/outbox/profiles"
        try write(users + "/u1.profile", "# \u{1b}]2;X\u{07}\nprofile u1\nbase android\n")
        try write(users + "/ios.profile", "profile ios\nbase ios\n")
        try write(users + "/B" + h + ".profile", "profile b\nbase ios\n")
        try FileManager.default.createDirectory(atPath: dir + "/empty" + h, withIntermediateDirectories: true)

        var commands: [[String]] = []
        for format in ["text", "jsonl", "junit", "html", "svg"] {
            commands.append(["run", "--format", format, scenario])
        }
        commands += [
            ["run", "-q", scenario], ["run", "--state-dir", state, scenario],
            ["run", dir + "/missing" + h + ".outbox"], ["run", "--format", h, scenario],
        ]
        for format in ["text", "jsonl", "html", "svg"] {
            commands.append(["compare", "--format", format, scenario, "--profiles", "ios,android," + profile])
        }
        commands += [
            ["profiles"], ["profiles", profile], ["profiles", "no" + h], ["profiles", "u1"],
            ["profiles", "--explain", profile], ["profiles", "--explain", "u1"],
            ["state", "show", "--state-dir", state], ["state", "show", "--format", "jsonl", "--state-dir", state],
            ["state", "show", "--state-dir", dir + "/empty" + h], ["state", h],
            ["state", "reset", "--profile", profile, "--state-dir", state],
            ["state", "reset", "--state-dir", dir + "/empty" + h],
            ["keys"], ["help"], ["help", "run"], ["help", h], ["--version"], [h], ["run", "--" + h],
        ]
        var statuses: [String: Int32] = [:]
        for args in commands {
            let (status, out, err) = run(args)
            let shown = args.map { SafeText.escaped($0, max: 60) }.joined(separator: " ")
            statuses[shown] = status
            XCTAssertTrue((0...2).contains(status), "\(shown): exit \(status)")
            XCTAssertNil(unsafe(out), "stdout of `outbox \(shown)`")
            XCTAssertNil(unsafe(err), "stderr of `outbox \(shown)`")
        }
        // The commands did their work (the run reached its checks, the device was saved and shown).
        XCTAssertEqual(statuses["run --format text " + SafeText.escaped(scenario, max: 60)], 1)
        let (_, shown, _) = run(["state", "show", "--profile", profile, "--state-dir", state])
        XCTAssertTrue(
            String(decoding: shown, as: UTF8.self).hasPrefix("no saved device in "), "reset moved the device aside")
        let (_, listed, listedErr) = run(["profiles"])
        let listing = String(decoding: listed, as: UTF8.self), notes = String(decoding: listedErr, as: UTF8.self)
        XCTAssertTrue(listing.contains("(from " + SafeText.escaped(users, max: 1000) + "/u1.profile)"), listing)
        XCTAssertTrue(notes.contains("ios.profile is not used: `ios` is a built-in's name"), notes)
        XCTAssertTrue(notes.contains("is not a profile name, so no word finds the file"), notes)

        // `--source` to a file: the exact bytes, so `> acme.profile` keeps working.
        let copy = root + "/copy.profile"
        let (s1, _, e1) = run(["profiles", "--source", profile], stdout: copy)
        XCTAssertEqual(s1, 0)
        XCTAssertEqual(e1, [])
        XCTAssertEqual(FileManager.default.contents(atPath: copy), FileManager.default.contents(atPath: profile))

        // On a terminal: escaped, the layout kept, and a note on stderr.
        let (s2, screen, e2) = try runOnATerminal(["profiles", "--source", profile])
        XCTAssertEqual(s2, 0)
        XCTAssertEqual(
            screen,
            "\\u{feff}# \\x1b]2;PWNED\\x07 \\x1b[2J\\r hello\\u{9b}\nprofile hostile\nbase ios\n")
        XCTAssertEqual(
            e2,
            "outbox profiles --source: 6 control or invisible characters shown as escapes (\\x1b, \\u{feff}); redirect to a file for the exact bytes\n"
        )
    }

    /// Runs the program with stdout on a pseudo-terminal; (status, what the
    /// terminal got with its CR LF line ends as LF, stderr).
    func runOnATerminal(_ args: [String]) throws -> (Int32, String, String) {
        let master = posix_openpt(O_RDWR | O_NOCTTY)
        guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else {
            throw XCTSkip("no pseudo-terminal here")
        }
        defer { close(master) }
        let slave = String(cString: name)
        let err = root + "/err-tty"
        guard let pid = spawnChild([binary] + args, stdout: slave, stderr: err) else {
            XCTFail("cannot start \(binary)")
            return (-1, "", "")
        }
        let status = waitExit(pid)
        // Whatever the child wrote is in the terminal's buffer; read it without waiting.
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        var got: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(master, &buf, buf.count)
            if n <= 0 { break }
            got += buf[0..<n]
        }
        let text = String(decoding: got, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        return (status, text, (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }
}
