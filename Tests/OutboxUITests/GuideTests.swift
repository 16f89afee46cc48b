import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxUI

/// One use of docs/guide.md: how the screen is started and the keys a person
/// types, 0.7 s apart, nothing else (issue 12, part 10). The guide's screens are
/// the snapshots these keys reach at 80×24; `GuideEndToEndTests` types the same
/// keys into the real program in tmux and checks it reaches the same screens.
struct GuideUse {
    /// Names the snapshots: `guide-<name>-<k>` after key k (1-based).
    let name: String
    /// The command line, after `outbox`.
    let options: String
    /// One entry a key: a character, `Space`, `Enter`, or `:command` (the `:`,
    /// the command typed, and Enter, as one step).
    let keys: [String]
    /// After which keys (1-based) the screen is shown in the guide.
    let shots: [Int]
    /// A compare: its rows are checked whole, as there is no timeline beside them.
    var compare = false

    static let pace: Int64 = 700

    static let all: [GuideUse] = [
        GuideUse(
            name: "ladder", options: "--memory --profile ios",
            keys: ["x", "d", "a", "t", "b", "x", "+", "+", "+"], shots: [9]),
        GuideUse(
            name: "offline", options: "--memory --record offline.outbox",
            keys: ["c", "o", "t", ".", ".", "o", "Space", "t"], shots: [5, 8]),
        GuideUse(
            name: "purge", options: "--memory",
            keys: ["c", "x", "d", "a", "t", ".", ".", ".", ".", ".", ".", "t", ".", ".", "t", "c"], shots: [16]),
        GuideUse(
            name: "compare", options: "--compare ios,android,flutter",
            keys: ["t", ":server 403 always", "t"], shots: [3], compare: true),
        GuideUse(
            name: "play", options: "--play examples/linktrail-lost-response.outbox",
            keys: ["+", "+", "b", "r", "Space", ".", ".", "Space"], shots: [5, 8]),
    ]

    func snapshot(_ k: Int) -> String { "guide-\(name)-\(k)" }

    /// The screen started as `outbox OPTIONS` starts it, in memory.
    func start() throws -> Session {
        let words = options.split(separator: " ").map(String.init)
        if let i = words.firstIndex(of: "--play") {
            let path = packageRoot + "/" + words[i + 1]
            guard case .success(let played) = InteractiveCommand.loadScenario(path) else {
                throw XCTSkip("\(path) does not load")
            }
            var s = Session(.linktrail)
            s.model = AppModel(playing: played)
            s.model.layOut()
            return s
        }
        if let i = words.firstIndex(of: "--compare") {
            return Session(compare: words[i + 1].split(separator: ",").map { Profile(rawValue: String($0))! })
        }
        let profile = words.firstIndex(of: "--profile").map { Profile(rawValue: words[$0 + 1])! } ?? .linktrail
        return Session(profile)
    }
}

extension Session {
    /// One of a guide's keys, as the person types it.
    mutating func guideKey(_ k: String) {
        switch k {
        case "Space": press(.char(" "))
        case "Enter": press(.enter)
        case _ where k.hasPrefix(":") && k.count > 1: command(String(k.dropFirst()))
        default: type(k)
        }
    }
}

/// What of a screen the guide's uses must reach in the real program too: the
/// request rows (left of the timeline; a compare's whole), the purge banner and
/// why the clock is paused. Clock readings and the timeline's columns depend on
/// when the program started, so they are left out.
func guideEssentials(_ screen: String, compare: Bool) -> [String] {
    let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var out: [String] = []
    if let header = lines.first, let paused = header.range(of: "PAUSED ") {
        // `PAUSED 600× · #1 → dropped (IOS-4) │ net ...`: the speed and why.
        out.append("paused: " + (header[paused.upperBound...].split(separator: "│").first.map(String.init) ?? ""))
    }
    for l in lines where l.contains("purged") && !l.hasPrefix(" 00:") { out.append(l.trimmingCharacters(in: .whitespaces)) }
    guard let heading = lines.firstIndex(where: { $0.contains(" name ") }) else { return out + ["<no list>"] }
    for l in lines[(heading + 1)...] {
        if l.hasPrefix("─") || l.hasPrefix("-") { break }
        let row = compare ? l : String(l.split(separator: "│", maxSplits: 1, omittingEmptySubsequences: false)[0])
        let trimmed = row.replacingOccurrences(of: #"\s+$"#, with: "", options: .regularExpression)
        if !trimmed.isEmpty { out.append(trimmed) }
    }
    return out
}

final class GuideTests: XCTestCase {
    /// Each use, typed at a person's pace on the screen in memory, reaches the
    /// screens the guide shows (the snapshots), and the guide shows them as they are.
    func test_everyUse_atAPersonsPace_reachesTheGuidesScreens() throws {
        let guidePath = packageRoot + "/docs/guide.md"
        var guide = try String(contentsOfFile: guidePath, encoding: .utf8)
        let record = ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1"
        for use in GuideUse.all {
            var s = try use.start()
            for (i, k) in use.keys.enumerated() {
                s.guideKey(k)
                s.passWall(GuideUse.pace)
                guard use.shots.contains(i + 1) else { continue }
                let text = s.screen().text
                assertSnapshot(text, use.snapshot(i + 1))
                // The guide holds the same screen under its marker.
                let marker = "<!-- screen: \(use.snapshot(i + 1)) -->\n```\n"
                guard let start = guide.range(of: marker) else {
                    XCTFail("docs/guide.md has no \(marker)")
                    continue
                }
                guard let end = guide.range(of: "```\n", range: start.upperBound..<guide.endIndex) else {
                    XCTFail("docs/guide.md: the block after \(marker) does not end")
                    continue
                }
                let shown = String(guide[start.upperBound..<end.lowerBound])
                let want = text.hasSuffix("\n") ? text : text + "\n"
                if shown != want {
                    if record {
                        guide.replaceSubrange(start.upperBound..<end.lowerBound, with: want)
                    } else {
                        XCTFail("docs/guide.md shows an old \(use.snapshot(i + 1)) (RECORD_SNAPSHOTS=1 rewrites it)")
                    }
                }
            }
        }
        if record { try guide.write(toFile: guidePath, atomically: true, encoding: .utf8) }
    }

    /// Each use's timeline picture (`e` to a `.html` path at the use's end) is in
    /// docs/pictures/ as the screen exports it, and the guide links it beside its cast.
    func test_everyUse_hasItsTimelinePicture_linkedFromTheGuide() throws {
        let guide = try String(contentsOfFile: packageRoot + "/docs/guide.md", encoding: .utf8)
        let record = ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1"
        for use in GuideUse.all {
            var s = try use.start()
            for k in use.keys {
                s.guideKey(k)
                s.passWall(GuideUse.pace)
            }
            // A played file is named as given: the checkout's own path is not part of the page kept.
            let page = s.model.exportFile(for: "\(use.name).html").text
                .replacingOccurrences(of: packageRoot + "/", with: "")
            XCTAssertTrue(page.hasPrefix("<!DOCTYPE html>"), use.name)
            XCTAssertFalse(page.contains("http"), "\(use.name): the page is self-contained")
            let path = packageRoot + "/docs/pictures/\(use.name).html"
            if record {
                try? FileManager.default.createDirectory(
                    atPath: packageRoot + "/docs/pictures", withIntermediateDirectories: true)
                try page.write(toFile: path, atomically: true, encoding: .utf8)
            }
            let kept = try? String(contentsOfFile: path, encoding: .utf8)
            XCTAssertTrue(kept == page, "docs/pictures/\(use.name).html is stale (RECORD_SNAPSHOTS=1 rewrites it)")
            XCTAssertTrue(
                guide.contains("[pictures/\(use.name).html](pictures/\(use.name).html)"),
                "docs/guide.md does not link the \(use.name) picture")
        }
    }

    /// The guide names each use's keys as the tests type them: a key list per
    /// use, in order, so a reader types exactly what was tested.
    func test_theGuideListsEachUsesKeys() throws {
        let guide = try String(contentsOfFile: packageRoot + "/docs/guide.md", encoding: .utf8)
        for use in GuideUse.all {
            let marker = "<!-- keys: \(use.name) -->"
            XCTAssertTrue(guide.contains(marker), "docs/guide.md has no \(marker)")
            XCTAssertTrue(guide.contains("outbox " + use.options), "docs/guide.md does not start \(use.name) with `outbox \(use.options)`")
            guard let at = guide.range(of: marker) else { continue }
            let block = guide[at.upperBound...].split(separator: "\n", omittingEmptySubsequences: true)
            // The lines after the marker: a fence, the command, one line a key (`key   what it does`).
            let listed = block.dropFirst(2).prefix(use.keys.count).map { line -> String in
                String(line.split(separator: " ", maxSplits: 1).first ?? "")
            }
            XCTAssertEqual(listed, use.keys.map { $0.hasPrefix(":") ? ":" + $0.dropFirst().split(separator: " ")[0] : $0 }, use.name)
        }
    }

    /// The offline use's recording replays, headless, to the screen's states.
    func test_offlineUse_recordingReplaysToTheSameStates() throws {
        let use = GuideUse.all.first { $0.name == "offline" }!
        var s = try use.start()
        for k in use.keys {
            s.guideKey(k)
            s.passWall(GuideUse.pace)
        }
        let text = s.model.recording(seed: 1, version: "test", path: "offline.outbox")
        guard case .success(let sc) = Scenario.parse(text, file: "offline.outbox") else {
            return XCTFail("the recording does not parse:\n" + text)
        }
        var runner = ScenarioRunner(sc)
        runner.run()
        XCTAssertEqual(runner.sim.requests.map(\.state), s.model.sim.requests.map(\.state))
        XCTAssertEqual(runner.sim.requests.map(\.attempts), s.model.sim.requests.map(\.attempts))
        XCTAssertEqual(s.model.sim.requests.map(\.state), [.delivered, .delivered, .delivered])
    }
}
