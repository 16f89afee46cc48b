import OutboxCore
import XCTest

@testable import OutboxCLI
@testable import OutboxServe

/// `outbox serve --format html`: what a reader of the page checks: a lane per
/// event, a mark per attempt in its answer's colour, the profile's predicted
/// window behind the attempt it predicts, the verdict, names escaped.
final class ServeReportHTMLTests: XCTestCase {
    func report(_ attempts: [(Millis, Answer)], profile name: String?, end: Millis) -> ServeReport {
        let s = ConformanceTests.session(attempts)
        let held = name.map { n -> (Profile, Settings) in
            let p = ConformanceTests.builtin(n)
            return (p, Settings(profile: p))
        }
        let verdicts = held.map { (p, st) in
            s.events.map { Conformance.verdict($0, in: s, profile: p, settings: st, endedAt: end) }
        }
        return ServeReport(
            session: s, results: [], verdicts: verdicts, profile: name, held: held, endedAt: end, why: "--until 100s",
            file: "t.outbox")
    }

    func test_html_drawsEachAttempt_thePredictedWindows_andTheVerdict() {
        // iOS: 30 s after a 503 (± 3 s), then 60 s (± 6 s); the third came 10 s early.
        let html = report([(0, .status(503)), (30_000, .status(503)), (80_000, .ok)], profile: "ios", end: 100_000).html
        let circles = html.components(separatedBy: "<circle class=\"attempt\"").count - 1
        XCTAssertEqual(circles, 3)
        XCTAssertTrue(html.contains("<title>attempt 1 at 00:00:00.000: 503</title>"), html)
        XCTAssertTrue(html.contains("<title>attempt 3 at 00:01:20.000: ok</title>"))
        // The windows: attempt 2 from 27 s to 33 s, attempt 3 from 84 s to 96 s; none after the 2xx.
        XCTAssertTrue(html.contains("attempt 2 predicted 00:00:27.000 to 00:00:33.000"), html)
        XCTAssertTrue(html.contains("attempt 3 predicted 00:01:24.000 to 00:01:36.000"), html)
        XCTAssertEqual(html.components(separatedBy: "<rect class=\"window\"").count - 1, 2)
        XCTAssertTrue(
            html.contains("✗<title>diverges: attempt 3 came 50s after attempt 2&#39;s 503; ios predicts 1m ± 6s"), html)
        XCTAssertTrue(html.contains("<td class=\"diverges\">diverges: attempt 3 came 50s"))
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>") && html.hasSuffix("</html>\n"))
    }

    func test_html_withoutAProfile_hasNoWindows_andEscapesWhatTheSDKSent() {
        var s = ServeSession()
        let body = Array(#"{"batch":[{"type":"track","event":"<b>&","messageId":"m\"1"}]}"#.utf8)
        _ = s.receive(WireRequest(method: "POST", target: "/v1/batch", headers: [], body: body), at: 0)
        _ = s.receive(WireRequest(method: "GET", target: "/<x>", headers: [], body: []), at: 5)
        let html = ServeReport(
            session: s, results: [], verdicts: nil, profile: nil, endedAt: 10, why: "idle", file: ""
        ).html
        XCTAssertFalse(html.contains("class=\"window\""))
        XCTAssertFalse(html.contains("<b>&"))
        XCTAssertTrue(html.contains("&lt;b&gt;&amp;"))
        XCTAssertTrue(html.contains("<h2>Unrecognised requests</h2>"))
        XCTAssertTrue(html.contains("GET /&lt;x&gt;"))
    }
}
