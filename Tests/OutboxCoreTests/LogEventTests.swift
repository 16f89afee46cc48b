import XCTest

@testable import OutboxCore

/// Log lines carry what they report as data (`LogLine.event`), beside their
/// words: each kind is emitted where the model logs it, with its facts, whatever
/// the text says. Whole histories, in the rule tests' style: every log line of
/// a run, in order.
final class LogEventTests: XCTestCase {
    /// Every log line of a played scenario: its time, its event, and the request
    /// and rule it cites.
    func logged(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [Logged] {
        guard let sim = play(text, file: file, line: line)?.sim else { return [] }
        return sim.journal.compactMap { e in
            guard case .log(let l) = e else { return nil }
            return Logged(l.time, l.event, l.request, l.rule)
        }
    }

    struct Logged: Equatable, CustomStringConvertible {
        let time: Millis
        let event: LogEvent
        let request: Int32
        let rule: RuleID?
        init(_ time: Millis, _ event: LogEvent, _ request: Int32 = -1, _ rule: RuleID? = nil) {
            (self.time, self.event, self.request, self.rule) = (time, event, request, rule)
        }
        var description: String { "\(time) \(event) #\(request) \(rule?.id ?? "-")" }
    }

    func dump(_ l: [Logged]) -> String { l.map(\.description).joined(separator: "\n") }

    func test_dump() {
        let a = logged(
            """
            profile linktrail
            set requireConsent false
            at 0 launch
            at 1s server 422 x1
            at 1s track rejected
            at 2s server 503 always
            at 2s track failing
            at 10s network offline
            at 11s network offline
            at 12s network online
            at 13s server ok
            at 13s track ok
            at 20s server 503 always
            at 20s track a
            at 20.1s consent deny
            at 21s track b
            at 22s quit
            expect at 22s saved 0
            """)
        print(dump(a))
    }
}
