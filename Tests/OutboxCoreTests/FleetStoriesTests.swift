import Foundation
import OutboxCore
import OutboxServe
import OutboxTestSupport
import XCTest

/// Issue 26's last checks: a fixed ladder after an outage concentrates the
/// retries at the ladder's steps and full jitter spreads them; and the stories
/// of docs/fleet.md ("Stories") stay true: every examples/fleet/*.fleet runs,
/// and each picture in docs/fleet/ is what its command draws now.
final class FleetStoriesTests: XCTestCase {
    /// Each second's attempts and attempts answered over capacity, from a JSONL report.
    func perSecond(_ jsonl: String, file: StaticString = #filePath, line: UInt = #line) -> (attempts: [Int], over: [Int]) {
        var attempts: [Int] = [], over: [Int] = []
        for l in jsonl.split(separator: "\n") {
            let v = JSONValue.parse(Array(l.utf8))
            guard v?["summary"] == nil else { continue }
            guard case .number(let a)? = v?["attempts"], case .number(let o)? = v?["over"] else {
                XCTFail("not a second: \(l)", file: file, line: line)
                continue
            }
            attempts.append(Int(a))
            over.append(Int(o))
        }
        return (attempts, over)
    }

    /// 1000 devices under `profile` offline from 5m to 15m, then all their
    /// backlog at once into a backend of 25 a second (the fleet of the ladder
    /// test below): each second's attempts and refusals, and the summary.
    func released(_ profile: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> (seconds: (attempts: [Int], over: [Int]), summary: JSONValue?)
    {
        let jitter = """
            profile ios-full-jitter
            base ios
            set retry.jitter full
            """
        let dir = (temporaryFile(jitter, name: "ios-full-jitter.profile") as NSString).deletingLastPathComponent
        let path = dir + "/\(profile).fleet"
        let fleet = """
            devices 1000
            profile \(profile)
            events every 1m
            capacity 25/s
            duration 20m
            seed 26
            at 0s launch
            at 5m network offline
            at 15m network online
            """
        _ = FileManager.default.createFile(atPath: path, contents: Data(fleet.utf8))
        let (status, out, err) = cli(["fleet", path, "--format", "jsonl"])
        XCTAssertEqual(status, 0, err, file: file, line: line)
        let seconds = perSecond(out, file: file, line: line)
        XCTAssertEqual(seconds.attempts.count, 1200, file: file, line: line)
        let last = out.split(separator: "\n").last.flatMap { JSONValue.parse(Array($0.utf8)) }
        return (seconds, last?["summary"])
    }

    /// The drain is read against the backlog's normal level, the most it held
    /// in the minute before the outage (D365), not its level the one second
    /// before, which is chance: in the ladder's fleet the backlog was 3 at
    /// 04:59 and never that low again, so the drain was "never". The ladder's
    /// backlog is gone when the last of its fourth attempts fail, at 1110.8 s,
    /// 211 s after the release; the events that met the herd in its seconds
    /// finish their own ladders at most 210 s after the last step, so the
    /// drain is between 211 s and 420 s.
    func test_theDrain_isTheBacklogBackToItsNormalLevel_notToTheSecondBeforeTheOutage() throws {
        let summary = try XCTUnwrap(released("ios").summary)
        guard case .number(let drain)? = summary["drain"] else { return XCTFail("no drain in \(summary)") }
        XCTAssertGreaterThanOrEqual(drain, 211)
        XCTAssertLessThanOrEqual(drain, 420)
    }

    /// A fixed ladder after an outage concentrates the retries at the ladder's
    /// steps; full jitter spreads them (issue 26, docs/fleet.md "Stories").
    ///
    /// 1000 iOS devices track an event a minute; from 5m to 15m the backend is
    /// out of their reach (`network offline` on every device), and iOS holds
    /// what they track (IOS-5): about 10 × 1000 requests. At 15m every device
    /// sends its backlog in the same second (`resend on network`); the backend
    /// serves 25 of them and answers the rest 503 over capacity, 200 ms later.
    /// iOS retries a 503 after exactly 30s, 1m, 2m (IOS-4, 4 attempts), so the
    /// refused go out again, all of them, in seconds 930 (900.2 + 30), 990
    /// (930.4 + 60) and 1110 (990.6 + 120), each time less the 25 served. The
    /// other 207 seconds of 901–1110 carry only the events made after 15m (about
    /// 17 a second, at most 4 attempts each, under 15,000 in all), so those
    /// three seconds hold at least 3 × 9,900 / (3 × 10,000 + 15,000) ≈ 2/3 of
    /// the window's attempts (about 0.9 in fact: the new events are mostly served).
    /// With `retry.jitter full` retry n waits a random 0 to 30s, 1m, 2m instead:
    /// the first retries are spread over 30 seconds (a thirtieth of the herd a
    /// second), the second over up to 90, the third over up to 210, so no
    /// second of the window holds more than 1/30 + 1/60 + 1/120 ≈ 6% of the
    /// herd, and the ladder's three seconds hold about 3 of the 210 seconds'
    /// share, as any three would: under 5%.
    func test_aFixedLadderConcentratesTheRetriesAtItsSteps_fullJitterSpreadsThem() throws {
        let ladder = try released("ios").seconds, spread = try released("ios-full-jitter.profile").seconds
        let window = 901...1110, steps = [930, 990, 1110]
        func share(_ r: (attempts: [Int], over: [Int])) -> Double {
            Double(steps.map { r.attempts[$0] }.reduce(0, +)) / Double(window.map { r.attempts[$0] }.reduce(0, +))
        }
        // The herd: every device's backlog in second 900, nearly all of it refused.
        for r in [ladder, spread] {
            XCTAssertGreaterThan(r.over[900], 9_000, "the backlog went out at once and the capacity refused it")
            XCTAssertEqual(r.over[899], 0, "nothing went out while the devices were offline")
        }
        let herd = ladder.over[900]
        XCTAssertEqual(spread.attempts[900] - spread.over[900], ladder.attempts[900] - ladder.over[900], "25 served in each")
        // The ladder: every refused request at each step again, less the 25 a second served.
        XCTAssertGreaterThanOrEqual(ladder.attempts[930], herd)
        XCTAssertGreaterThanOrEqual(ladder.attempts[990], herd - 25)
        XCTAssertGreaterThanOrEqual(ladder.attempts[1110], herd - 50)
        XCTAssertGreaterThan(share(ladder), 0.8, "the ladder's steps hold the window's attempts")
        // Full jitter: no second holds a tenth of the herd; the steps hold what any three seconds would.
        let peak = window.map { spread.attempts[$0] }.max() ?? 0
        XCTAssertLessThan(peak, herd / 10, "full jitter: no second holds a tenth of the herd")
        XCTAssertLessThan(share(spread), 0.05, "full jitter: the ladder's seconds hold no more than their share")
        XCTAssertGreaterThan(window.map { spread.attempts[$0] }.reduce(0, +), 2 * herd, "the herd's retries are in the window")
    }

    // MARK: The stories

    /// The command a story's fleet file names in its comment (`#   outbox fleet ... --format svg`), without `outbox`.
    static func pictureCommand(_ text: String) -> [String]? {
        for line in text.split(separator: "\n") where line.hasPrefix("#   outbox fleet ") && line.hasSuffix(" --format svg") {
            return line.dropFirst("#   outbox ".count).split(separator: " ").map(String.init)
        }
        return nil
    }

    /// Every examples/fleet/*.fleet parses and runs (`outbox fleet FILE`, exit
    /// 0); each one whose comment names a picture command draws, run from the
    /// package root as docs/fleet.md says, exactly the SVG committed as
    /// docs/fleet/NAME.svg (so the pictures cannot go stale), and docs/fleet.md
    /// shows that picture and that command; every picture there has its fleet file.
    func test_everyFleetExampleRuns_andEachStorysPictureIsWhatItsCommandDrawsNow() throws {
        let fm = FileManager.default
        let back = fm.currentDirectoryPath
        _ = fm.changeCurrentDirectoryPath(packageRoot)
        defer { _ = fm.changeCurrentDirectoryPath(back) }
        let doc = try String(contentsOfFile: "docs/fleet.md", encoding: .utf8)
        let fleets = try fm.contentsOfDirectory(atPath: "examples/fleet").filter { $0.hasSuffix(".fleet") }.sorted()
        var pictured: [String] = []
        for name in fleets {
            let path = "examples/fleet/" + name
            let text = try String(contentsOfFile: path, encoding: .utf8)
            guard let command = Self.pictureCommand(text) else {
                let (status, out, err) = cli(["fleet", path])
                XCTAssertEqual(status, 0, "\(path): \(err)")
                XCTAssertTrue(out.hasPrefix("fleet \(path): "), path)
                continue
            }
            let svgName = String(name.dropLast(".fleet".count)) + ".svg"
            pictured.append(svgName)
            XCTAssertEqual(command[1], path, "\(path) draws itself")
            let (status, svg, err) = cli(command)
            XCTAssertEqual(status, 0, "\(path): \(err)")
            let committed = try String(contentsOfFile: "docs/fleet/" + svgName, encoding: .utf8)
            XCTAssertTrue(svg == committed, "docs/fleet/\(svgName) is stale: run `outbox \(command.joined(separator: " ")) > docs/fleet/\(svgName)`")
            XCTAssertTrue(doc.contains("](fleet/\(svgName))"), "docs/fleet.md shows fleet/\(svgName)")
            XCTAssertTrue(doc.contains("outbox " + command.joined(separator: " ")), "docs/fleet.md gives the command of \(svgName)")
        }
        XCTAssertEqual(pictured.count, 3, "three stories")
        let svgs = try fm.contentsOfDirectory(atPath: "docs/fleet").filter { $0.hasSuffix(".svg") }.sorted()
        XCTAssertEqual(svgs, pictured.sorted(), "every picture in docs/fleet has its fleet file")
    }
}
