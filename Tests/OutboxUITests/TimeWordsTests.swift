import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxUI

/// Issue 22, item 13: every time Outbox writes reads back where a time is read.
/// Each formatter below is one place Outbox writes a time for people; for a set
/// of values, the parser (`VirtualTime.parse`, the one every reader uses) reads
/// what it wrote back to the value it showed. Forms that round (the live
/// clock's tenths, "next in 4.2s") read back to the rounded value.
final class TimeWordsTests: XCTestCase {
    /// Values across every unit's edge, 0 to the input limit.
    static let values: [Millis] = [
        0, 1, 9, 10, 99, 100, 250, 999, 1000, 1001, 1500, 9999, 10_000, 59_999, 60_000, 60_001, 90_000, 91_400,
        119_999, 120_000, 130_000, 180_000, 180_200, 487_948, 3_599_999, 3_600_000, 3_723_500, 7_199_999,
        86_400_000, 359_999_999, 360_000_000, 123_456_789_012, VirtualTime.maxInput,
    ]

    /// (what writes it, the text it writes, the value that text stands for).
    static func written(_ v: Millis) -> [(String, String, Millis)] {
        let clock = VirtualTime.clock(v)
        let tenths = v - v % 100
        var out: [(String, String, Millis)] = [
            ("VirtualTime.clock (text timeline, summary's ended at, compare's first differs at, JUnit)", clock, v),
            ("VirtualTime.duration (recordings, E's lines, settings)", VirtualTime.duration(v), v),
            ("TimelinePicture.short (picture axis and tooltips)", TimelinePicture.short(v), v),
            ("TimelinePicture.length (the picture's ≈ quiet stretches)", TimelinePicture.length(v), v),
            ("the live screen's clock (AppView header)", String(clock.dropLast(2)), tenths),
            ("AppView+Compare.timelineLabel", String(AppView.timelineLabel(v, room: 0)), v),
        ]
        // The live compare's detail column: minutes and seconds within the hour
        // (it drops two digits of hours, so only below 100 hours).
        if v < 360_000_000 {
            out.append(("the live compare's MM:SS.f", String(clock.dropFirst(3).dropLast(2)), tenths % 3_600_000))
        }
        let short = AppView.shortDuration(v)
        let rounded: Millis =
            v < 10_000 ? v - v % 100 : v < 120_000 ? v - v % 1000 : v < 7_200_000 ? v - v % 60_000 : v - v % 3_600_000
        out.append(("AppView.shortDuration (next in ...)", short, rounded))
        return out
    }

    func test_everyTimeOutboxWrites_readsBackToWhatItShows() {
        for v in Self.values {
            for (who, text, shown) in Self.written(v) {
                XCTAssertEqual(VirtualTime.parse(text), shown, "\(who) wrote `\(text)` for \(v) ms")
                XCTAssertEqual(
                    try? VirtualTime.parseLimited(text).get(), shown <= VirtualTime.maxInput ? shown : nil,
                    "\(who): `\(text)`")
            }
        }
    }

    /// The forms the newcomer's report copied, in every place a time is read:
    /// a scenario's `at` and `expect at`, `network flap`, the time settings, and
    /// the live screen's `:` line (which reads scenario actions).
    func test_theReportsForms_acceptedInLinesSettingsAndTheCommandLine() throws {
        let text = """
            profile ios
            set latency 1m31.4s
            set timeout 3m0s
            set retry.delays 2m10s,00:00:01.5
            at 0 launch
            at 2m10s track signup
            at 00:02:10.000 network flap 1m0s 00:00:30
            expect at 00:02:10.000 state signup pending
            expect at 1h2m3.5s attempts signup 4

            """
        guard case .success(let sc) = Scenario.parse(text, file: "t.outbox") else {
            return XCTFail("the forms Outbox writes are refused")
        }
        XCTAssertEqual(sc.settings.latency, 91_400)
        XCTAssertEqual(sc.settings.timeout, 180_000)
        XCTAssertEqual(sc.settings.retryDelays, [130_000, 1500])
        XCTAssertEqual(sc.steps.count, 5)
        XCTAssertEqual((0..<sc.steps.count).map { sc.steps.time(at: $0) }, [0, 130_000, 130_000, 130_000, 3_723_500])
        // The live screen's `:` line reads actions with the same parser.
        guard case .success(let a)? = ActionSyntax.parse(["network", "flap", "2m10s", "00:00:05.5"]) else {
            return XCTFail("`:network flap 2m10s 00:00:05.5` refused")
        }
        XCTAssertEqual(ActionSyntax.text(for: a), "network flap 130s 5.5s")
    }

    /// The rules that hold for every form: whole milliseconds, units largest
    /// first and once, a fraction only last, a clock's minutes and seconds below
    /// 60, the input limit; the message names every form.
    func test_badForms_refused_withTheMessageNamingEveryForm() {
        for bad in [
            "5", "1.5", "-1s", "1m1m", "10s2m", "1.5m30s", "2m10", "m", "1h2x", "1ms5s", "00:60:00", "00:00:60",
            "0:0:5", "00:00:01.0005", "00:00:05.", ":05", "1:2:3:4", "00:00:05,2", "1.0005s", "0.5ms", "2m 10s",
            "１s", "1e3ms", "",
        ] {
            XCTAssertNil(VirtualTime.parse(bad), "`\(bad)` read as \(VirtualTime.parse(bad) ?? -1)")
        }
        XCTAssertEqual(VirtualTime.parse("1s500ms"), 1500)
        XCTAssertEqual(VirtualTime.parse("26:00:00"), 93_600_000)
        XCTAssertEqual(VirtualTime.parse("02:10.5"), 130_500)
        guard case .failure(let past) = VirtualTime.parseLimited("100000h0m0.001s") else {
            return XCTFail("a time past the limit is taken")
        }
        XCTAssertEqual(past.message, "expected at most 100000h, the longest time Outbox takes")
        let console = Console.capturing()
        let status = CLI.main(["run", file("profile ios\nat 2m10 launch\n")], console: console)
        let err = console.err
        XCTAssertEqual(status, 2)
        XCTAssertTrue(
            err.hasSuffix(
                ":2: bad time `2m10`, expected 0, a number with a unit (250ms, 1.5s, 2m, 1h), units together (2m10s, 1h2m3.5s) or a clock (00:02:10.000), in whole milliseconds\n"
            ), err)
    }

    func file(_ text: String) -> String {
        let path = NSTemporaryDirectory() + "time-words-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).outbox"
        try? text.write(toFile: path, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }
}
