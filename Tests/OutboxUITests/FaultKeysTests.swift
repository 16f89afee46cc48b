import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxUI

/// The faults' keys (issue 15, item 1): each is shown in the header while in
/// force, recorded, and the recording replays the same journal headless.
final class FaultKeysTests: XCTestCase {
    func test_faultKeys_showInTheHeader_recordAndReplayTheSameJournal() {
        var s = Session(.ios)
        s.type("t")  // purchase, selected (the newest)
        s.wait(300)
        s.type("xrd3")  // 503 x3 for purchase
        XCTAssertEqual(s.model.message?.text, "backend will answer 503 ×3 for purchase")
        s.type("xd%")  // 503, a chance...
        s.press(.tab)  // 10
        s.press(.tab)  // 25
        s.press(.backspace)
        s.type("0")  // 20
        XCTAssertEqual(s.model.mode, .chooseAnswer(AnswerChoice(answer: .status(503), percent: "20")))
        s.press(.enter)
        XCTAssertEqual(s.model.message?.text, "backend will answer 503 20%")
        s.type("xkt5")  // timeout x5 for kind:event
        s.type("F1")  // flap 5s/2s
        s.type("J2")  // latency ±50ms
        let header = s.screen().lines.prefix(2).joined(separator: "\n")
        for shown in ["503 20% +2 for purchase, …", "flap 5s/2s", "lat ±50ms"] {
            XCTAssertTrue(header.contains(shown), "\(shown) not in:\n\(header)")
        }
        XCTAssertEqual(s.screen().lines.count, 24)
        for i in 0..<30 {
            s.type(i % 3 == 0 ? "t" : "s")
            s.wait(Millis(700 + 37 * i))
        }
        s.type("Fs")  // stop the flap (online)
        s.type("xrk")  // r then k: for the selected request's kind, not its name
        s.type("o")  // ok for kind:screen: clears it
        s.type("J0")
        s.command("server 500 12.5% for purchase")
        s.command("network flap 1s 300ms")
        for _ in 0..<10 {
            s.type("t")
            s.wait(900)
        }
        s.wait(120_000)
        let uiEnd = s.model.sim.now
        XCTAssertEqual(
            s.model.recorded.filter { $0.contains("server") || $0.contains("network") || $0.contains("set") },
            [
                "at 300ms server 503 x3 for purchase", "at 300ms server 503 20%",
                "at 300ms server timeout x5 for kind:event",
                "at 300ms network flap 5s 2s", "at 300ms set latency.jitter 50ms", "at 37.395s network online",
                "at 37.395s server ok x1 for kind:screen", "at 37.395s set latency.jitter 0",
                "at 37.395s server 500 12.5% for purchase", "at 37.395s network flap 1s 300ms",
            ])
        let text = s.model.recording(seed: 1, version: "test", path: "faults.outbox")
        guard case .success(let sc) = Scenario.parse(text, file: "faults.outbox") else {
            return XCTFail("the recording does not parse:\n" + text)
        }
        var runner = ScenarioRunner(sc)
        runner.run()
        let writer = TimelineWriter(format: .jsonl)
        func lines(_ sim: Simulation) -> [String] {
            sim.journal.filter { $0.time <= uiEnd }.map { writer.line($0, in: sim) }
        }
        let ui = lines(s.model.sim), replay = lines(runner.sim)
        XCTAssertGreaterThan(ui.count, 200)
        XCTAssertEqual(ui, replay, "replay differs\n" + text)
        // And `outbox run` of the file as written prints the same journal first.
        let path = NSTemporaryDirectory() + "outbox-faults-rec-\(getpid()).outbox"
        XCTAssertNoThrow(try text.write(toFile: path, atomically: true, encoding: .utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let console = Console.capturing()
        XCTAssertEqual(CLI.main(["run", "--format", "jsonl", path], console: console), 0, console.err)
        let printed = console.out.split(separator: "\n").map(String.init).filter { !$0.contains("\"expect\":") }
        XCTAssertEqual(Array(printed.prefix(ui.count)), ui)
        // Every fault did something: 503s and 500s drawn, attempts the flap cut (its timeouts outlast the 5s online).
        let outcomes = Set(
            s.model.sim.journal.compactMap { e -> String? in
                guard case .transition(let t) = e else { return nil }
                return t.outcome.word
            })
        XCTAssertTrue(outcomes.isSuperset(of: ["503", "500", "network-lost", "200"]), "\(outcomes)")
        XCTAssertGreaterThan(s.model.sim.networkChanges.count, 20)
    }

    /// Every fault in force at once on LinkTrail (the busiest header) at 80×24:
    /// the header keeps to two rows, its words shortened.
    func test_faultsInTheHeader_fit80x24() {
        var s = Session(.linktrail)
        s.type("ct")
        s.wait(1000)
        s.command("server 503 30%")
        s.command("server 500 x2 for purchase")
        s.command("network flap 5s 2s")
        s.command("set latency.jitter 50ms")
        let lines = s.screen().lines
        XCTAssertEqual(lines.count, 24)
        assertSnapshot(lines.prefix(3).joined(separator: "\n"), "faults-header-linktrail-80x24")
        s.command("network online")
        s.command("server ok for purchase")
        s.command("server ok")
        s.command("set latency.jitter 0")
        XCTAssertEqual(
            s.screen().lines[1].trimmingCharacters(in: .whitespaces),
            "consent ✓ granted (required) │ backend ok │ flush idle │ app running")
    }

    /// Comparing, the faults go to every column and show once in the header.
    func test_faultsInACompare_goToEveryColumn() {
        var s = Session(compare: [.ios, .android])
        s.command("server 503 30%")
        s.command("network flap 5s 2s")
        s.command("set latency.jitter 50ms")
        for c in s.model.columns {
            XCTAssertEqual(c.plans.headerText(), "503 30%")
            XCTAssertEqual(c.nextFlapTime, 5000)
            XCTAssertEqual(c.settings.latencyJitter, 50)
        }
        let header = s.screen().lines.prefix(2).joined(separator: "\n")
        for shown in ["backend 503 30%", "flap 5s/2s", "lat ±50ms"] {
            XCTAssertTrue(header.contains(shown), "\(shown) not in:\n\(header)")
        }
    }

    /// `.` steps to each toggle of a flap, though a run does not wait for them.
    func test_step_stopsAtEachFlapToggle() {
        var s = Session(.ios)
        s.press(.char("."))
        XCTAssertEqual(s.model.message?.text, "nothing is scheduled")
        s.command("network flap 2s 1s")
        var seen: [String] = []
        for _ in 0..<4 {
            s.press(.char("."))
            seen.append("\(s.model.sim.now) \(s.model.sim.online ? "on" : "off")")
        }
        XCTAssertEqual(seen, ["2000 off", "3000 on", "5000 off", "6000 on"])
    }

    func test_faultChoosers_sayWhatTheyNeed() {
        var s = Session(.android)
        s.type("xr")
        XCTAssertEqual(s.model.message?.text, "no request is selected: j/k selects one; Esc cancels")
        s.press(.escape)
        s.type("xd%")
        s.type("150")
        s.press(.enter)
        XCTAssertEqual(
            s.model.message?.text, "type a percent from 0 to 100 (at most two decimals), then Enter; Esc cancels")
        XCTAssertEqual(s.screen().lines[23].hasPrefix(" type a percent"), true)
        s.press(.escape)
        s.type("Fs")
        XCTAssertEqual(s.model.message?.text, "the network is not flapping")
        s.type("F")
        XCTAssertEqual(
            s.screen().lines[23].trimmingCharacters(in: .whitespaces),
            "network flap: 1 5s/2s  2 10s/5s  3 30s/10s  4 2s/1s  s stop; Esc")
        s.press(.escape)
        s.type("J")
        XCTAssertEqual(
            s.screen().lines[23].trimmingCharacters(in: .whitespaces),
            "latency 200ms jitter: 0 none  1 ±20ms  2 ±50ms  3 ±100ms  4 ±500ms; Esc")
        s.press(.escape)
        XCTAssertEqual(s.model.recorded, ["at 0 launch"])
    }

    /// `R` in the backend chooser gives a status answer a Retry-After header
    /// (1s, 10s, 60s, then none); the box marks it, `:server` takes any time,
    /// both are recorded as `server` lines, and the detail shows the header.
    func test_retryAfter_chooserAndCommandLine() {
        var s = Session(.ios)
        s.type("xbR")  // 429, retry-after 1s
        XCTAssertEqual(s.model.mode, .chooseAnswer(AnswerChoice(answer: .retryAfter(429, 1000))))
        s.type("R")  // 10s
        let box = s.screen().text
        XCTAssertTrue(box.contains(">b  429 (retry-after 10s)"), box)
        XCTAssertTrue(box.contains("429 retry-after 10s: 1, 3 or 5 times, a(lways) or % a chance? Esc cancels"), box)
        s.type("RR")  // 60s, then none
        XCTAssertEqual(s.model.mode, .chooseAnswer(AnswerChoice(answer: .status(429))))
        s.type("RR3")  // 10s, x3
        XCTAssertEqual(s.model.message?.text, "backend will answer 429 retry-after 10s ×3")
        s.type("xtR")  // timeout: no header
        XCTAssertEqual(s.model.message?.text, "retry-after goes with a status answer (100-599), not timeout")
        s.press(.escape)
        s.command("server 503 retry-after 2.5s always for kind:event")
        XCTAssertEqual(s.model.sim.plans.text(for: .kind("event")), "503 retry-after 2.5s always for kind:event")
        s.command("server ok retry-after 2s")
        XCTAssertTrue(
            s.model.message?.text.contains(
                "bad server line: `retry-after` goes with a status answer (100-599), not `ok`; expected e.g. `server 429 retry-after 10s`"
            ) ?? false, s.model.message?.text ?? "")
        s.type("t")
        s.wait(300)
        XCTAssertEqual(
            s.model.recorded.filter { $0.contains("server") },
            ["at 0 server 429 retry-after 10s x3", "at 0 server 503 retry-after 2.5s always for kind:event"])
        s.press(.enter)  // the detail of the purchase
        let detail = s.screen().text
        XCTAssertTrue(detail.contains("in-flight → retrying  503 (retry-after 2.5s)"), detail)
    }
}
