import Foundation
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

/// Issue 22, item 2 (reliability report, defect 2): a path that is not a
/// regular file (a FIFO, a device, a directory) is refused at once with one
/// line saying what it is, wherever a path is named: a scenario's `profile`
/// line, `compare --profiles`, `outbox profiles`, the user profiles folder,
/// the live screen's `--profile`, `:profile` and `:play`; `--watch` recovers
/// when the real file comes back. Before the fix each of these waited for a
/// writer for ever (`open` without `O_NONBLOCK`).
///
/// The real program runs with a deadline: a child still running after it is
/// killed (by its own pid) and the test fails as a hang.
final class NotRegularFileTests: XCTestCase {
    var binary = ""
    var dir = ""
    /// The user profiles folder the child sees (XDG_CONFIG_HOME/outbox/profiles).
    var userFolder: String { dir + "/config/outbox/profiles" }

    override func setUpWithError() throws {
        binary = try requireBinary()
        dir = tempDir("notregular")
        addTeardownBlock { [dir] in try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/home", withIntermediateDirectories: true)
    }

    func write(_ path: String, _ text: String) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    func fifo(_ path: String) {
        XCTAssertEqual(mkfifo(path, 0o644), 0, "mkfifo \(path)")
    }

    /// Runs the program (stdin /dev/null) and waits at most `seconds`; its exit
    /// status, stdout and stderr, or nil (and a failure) when it had to be killed.
    func run(_ args: [String], seconds: Double = 5, started: ((pid_t) -> Void)? = nil) -> (
        status: Int32, out: String, err: String
    )? {
        let tag = UInt32.random(in: 0...UInt32.max)
        let out = dir + "/out-\(tag)", err = dir + "/err-\(tag)"
        let env = [
            "HOME=" + dir + "/home", "XDG_CONFIG_HOME=" + dir + "/config", "XDG_STATE_HOME=" + dir + "/state",
            "NO_COLOR=1", "SWIFT_BACKTRACE=enable=no",
        ]
        guard let pid = spawnChild([binary] + args, stdout: out, stderr: err, environment: env) else {
            XCTFail("cannot start \(binary)")
            return nil
        }
        started?(pid)
        guard let status = finish(pid, within: seconds) else {
            XCTFail("`outbox \(args.joined(separator: " "))` still ran after \(seconds) s: it hangs")
            return nil
        }
        let o = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        let e = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        return (status, o, e)
    }

    /// Waits for a child at most `seconds`; its status, or nil after killing it.
    func finish(_ pid: pid_t, within seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while Date() < deadline {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return nil
    }

    /// Waits until `path` holds `text` (the watch's stderr), at most `seconds`.
    func waitFor(_ text: String, in path: String, seconds: Double = 5) -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var now = ""
        while Date() < deadline {
            now = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if now.contains(text) { return now }
            usleep(20_000)
        }
        return now
    }

    // MARK: A profile path in a scenario, an option or `outbox profiles`

    func test_aProfileLine_namingAFIFOADeviceOrADirectory_isRefusedAtOnce() throws {
        fifo(dir + "/fifo.profile")
        try FileManager.default.createDirectory(atPath: dir + "/dir.profile", withIntermediateDirectories: false)
        var cases: [(String, String)] = [
            ("./fifo.profile", "it is a FIFO, expected a regular file"),
            ("/dev/null", "it is a character device, expected a regular file"),
            ("./dir.profile", "it is a directory"),
        ]
        // /dev/tty: the terminal, refused by what it is before it is opened (it would wait for typing).
        if FileManager.default.fileExists(atPath: "/dev/tty") {
            cases.append(("/dev/tty", "it is a character device, expected a regular file"))
        }
        for (i, (path, why)) in cases.enumerated() {
            let scenario = dir + "/s\(i).outbox"
            try write(scenario, "profile \(path)\nat 0 launch\nat 1s quit\n")
            guard let r = run(["run", "-q", scenario]) else { continue }
            XCTAssertEqual(r.status, 2, path)
            XCTAssertEqual(r.out, "", path)
            XCTAssertEqual(
                r.err, "\(scenario):1: bad profile line: \(path): cannot read the profile file: \(why)\n", path)
        }
    }

    func test_compareProfiles_andOutboxProfiles_onAFIFO_areRefusedAtOnce() throws {
        let f = dir + "/fifo.profile"
        fifo(f)
        let scenario = dir + "/c.outbox"
        try write(scenario, "at 0 launch\nat 1s track a\n")
        let refusal = "\(f): cannot read the profile file: it is a FIFO, expected a regular file"
        if let r = run(["compare", scenario, "--profiles", "ios," + f]) {
            XCTAssertEqual(r.status, 2)
            XCTAssertEqual(r.out, "")
            XCTAssertEqual(r.err, "outbox compare: --profiles: \(refusal)\n")
        }
        if let r = run(["profiles", f]) {
            XCTAssertEqual(r.status, 2)
            XCTAssertEqual(r.out, "")
            XCTAssertEqual(r.err, "outbox profiles: \(refusal)\n")
        }
        if let r = run(["profiles", "--source", f]) {
            XCTAssertEqual(r.status, 2)
            XCTAssertEqual(r.out, "")
            XCTAssertEqual(r.err, "outbox profiles: \(refusal)\n")
        }
        // The live screen's --profile and --theme: refused before the terminal is looked at.
        if let r = run(["--profile", f]) {
            XCTAssertEqual(r.status, 2)
            XCTAssertEqual(r.err, "outbox: --profile: \(refusal)\n")
        }
        if let r = run(["--theme", f]) {
            XCTAssertEqual(r.status, 2)
            XCTAssertEqual(r.err, "outbox: \(f): cannot read the theme file: it is a FIFO, expected a regular file\n")
        }
    }

    /// A FIFO named like a profile in the user folder: each word that reaches it
    /// is refused at once, naming the file; the list still shows the built-ins.
    func test_aFIFOInTheUserProfilesFolder_isRefusedAtOnce() throws {
        try FileManager.default.createDirectory(atPath: userFolder, withIntermediateDirectories: true)
        fifo(userFolder + "/x.profile")
        let refusal = "\(userFolder)/x.profile: cannot read the profile file: it is a FIFO, expected a regular file"
        if let r = run(["profiles", "x"]) {
            XCTAssertEqual(r.status, 2)
            XCTAssertEqual(r.out, "")
            XCTAssertEqual(r.err, "outbox profiles: \(refusal)\n")
        }
        if let r = run(["profiles"]) {
            XCTAssertEqual(r.status, 2)
            XCTAssertTrue(r.out.hasPrefix("== the seeds' SDKs"), r.out)
            XCTAssertTrue(r.out.contains("\n\nlinktrail: LinkTrail attribution SDK\n"), r.out)
            XCTAssertTrue(r.out.contains("\nflutter: Positive User (UserCom) SDK on Flutter\n"), r.out)
            XCTAssertEqual(r.err, "outbox profiles: \(refusal)\n")
        }
        let scenario = dir + "/x.outbox"
        try write(scenario, "profile x\nat 0 launch\n")
        if let r = run(["run", "-q", scenario]) {
            XCTAssertEqual(r.status, 2)
            XCTAssertEqual(r.err, "\(scenario):1: bad profile line: \(refusal)\n")
        }
    }

    // MARK: A scenario file that is a FIFO

    /// A scenario named on the command line is read as a stream, as `cat` would
    /// (`outbox run <(...)` is a pipe): a FIFO with a writer plays at once. Only
    /// a path named *inside* a file, or on the live screen, must be a regular file.
    func test_runOfAFIFOScenario_readsItAsAStream() throws {
        let f = dir + "/s.outbox"
        fifo(f)
        let text = "profile ios\nat 0 launch\nat 1s track a\nexpect at 2s state a delivered\n"
        var wrote = false
        let r = run(["run", "-q", f]) { _ in
            // The writer's end, once the child has opened the reader's (ENXIO until then).
            let deadline = Date().addingTimeInterval(5)
            var fd: Int32 = -1
            while fd < 0 && Date() < deadline {
                fd = open(f, O_WRONLY | O_NONBLOCK)
                if fd < 0 { usleep(10_000) }
            }
            guard fd >= 0 else { return }
            _ = fcntl(fd, F_SETFL, 0)
            wrote = text.withCString { Foundation.write(fd, $0, strlen($0)) } == text.utf8.count
            close(fd)
        }
        XCTAssertTrue(wrote, "the child never opened the FIFO")
        XCTAssertEqual(r?.status, 0)
        XCTAssertEqual(r?.out, "\(f): 1 passed, 0 failed · 3 transitions · ended at 00:00:02.000\n")
        XCTAssertEqual(r?.err, "")
    }

    // MARK: The live screen's `:profile` and `:play`

    /// `:profile FIFO` and `:play FIFO` on a screen: a message, the session
    /// unchanged, and no wait (the command runs on a thread with a deadline).
    func test_liveScreen_profileAndPlayOfAFIFO_sayWhyAtOnce() throws {
        let f = dir + "/fifo.profile"
        fifo(f)
        var model = AppModel(sim: Simulation(profile: .ios, settings: Settings(profile: .ios)))
        model.profileResolver = ProfileLoader.resolver()
        model.setScreen(width: 80, height: 24)
        model.perform(.appLaunched)

        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var typed = model
        nonisolated(unsafe) var effect: UIEffect?
        nonisolated(unsafe) var played: Result<AppModel, Problem>?
        Thread.detachNewThread {
            _ = typed.handle(.char(":"))
            for c in ("profile " + f).unicodeScalars { _ = typed.handle(.char(c)) }
            effect = typed.handle(.enter)
            played = InteractiveCommand.playing(f, after: typed, recording: false)
            done.signal()
        }
        guard done.wait(timeout: .now() + 5) == .success else {
            return XCTFail("`:profile` or `:play` of a FIFO still waits after 5 s")
        }
        XCTAssertNil(effect, "no new session")
        XCTAssertEqual(
            typed.message?.text, ":profile: \(f): cannot read the profile file: it is a FIFO, expected a regular file")
        XCTAssertEqual(typed.message?.isError, true)
        XCTAssertEqual(typed.sim.profile.rawValue, "ios")
        guard case .failure(let why) = played else { return XCTFail("played a FIFO") }
        XCTAssertEqual(why.message, "\(f): cannot read the file: it is a FIFO, expected a regular file")
    }

    // MARK: --watch

    /// The profile a watched scenario names is replaced by a FIFO: the next run
    /// says so at once and the watch goes on; the real file back, it plays again.
    func test_watch_aProfileReplacedByAFIFO_thenByTheFile_recovers() throws {
        let profile = dir + "/p.profile"
        let body = "profile acme\nbase ios\n"
        try write(profile, body)
        let scenario = dir + "/w.outbox"
        try write(scenario, "profile ./p.profile\nat 0 launch\nat 1s track a\nexpect at 2s state a delivered\n")
        let err = dir + "/watch.err"
        let env = ["HOME=" + dir + "/home", "XDG_CONFIG_HOME=" + dir + "/config", "NO_COLOR=1"]
        guard
            let pid = spawnChild(
                [binary, "run", "-q", "--watch", scenario], stdout: dir + "/watch.out", stderr: err,
                environment: env)
        else { return XCTFail("cannot start \(binary)") }
        defer {
            kill(pid, SIGKILL)
            _ = finish(pid, within: 5)
        }
        let watching = "watching 1 file and 1 profile file for changes, Ctrl-C ends\n"
        let holds = "outbox run --watch: every check holds (status 0); " + watching
        let bad =
            "\(scenario):1: bad profile line: ./p.profile: cannot read the profile file: it is a FIFO, expected a regular file\n"
            + "outbox run --watch: bad input or a limit (status 2); " + watching
        XCTAssertEqual(waitFor(holds, in: err), holds)

        XCTAssertEqual(unlink(profile), 0)
        fifo(profile)
        XCTAssertEqual(waitFor(holds + bad, in: err), holds + bad, "the FIFO is refused at once, the watch goes on")

        XCTAssertEqual(unlink(profile), 0)
        try write(profile, body)
        XCTAssertEqual(
            waitFor(holds + bad + holds, in: err), holds + bad + holds, "the real file back: it plays again")
        var status: Int32 = 0
        XCTAssertEqual(waitpid(pid, &status, WNOHANG), 0, "still watching")
    }
}
