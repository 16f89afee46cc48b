import OutboxCore
import OutboxTestSupport
import XCTest

@testable import OutboxServe

/// The pure session (no network): the script's plan answers each request by
/// its first event, events are one across retries, checks say what they found,
/// bad script lines name their line, and memory stays bounded.
final class ServeSessionTests: XCTestCase {
    static func segment(_ events: [(String, String)]) -> WireRequest {
        let items = events.map { #"{"type":"track","event":"\#($0.0)","messageId":"\#($0.1)"}"# }
        return WireRequest(
            method: "POST", target: "/v1/batch", headers: [("Content-Type", "application/json")],
            body: Array(#"{"batch":[\#(items.joined(separator: ","))]}"#.utf8))
    }

    static func session(_ script: String) -> ServeSession {
        guard case .success(let s) = ServeScript.parse(script, file: "t.outbox") else {
            XCTFail("bad script")
            return ServeSession()
        }
        return ServeSession(script: s)
    }

    func test_planByTimeAndName_answersEachRequestByItsFirstEvent() {
        var s = Self.session(
            """
            at 0 server 503 x2
            at 0 server 400 always for bad
            at 10s server 429 retry-after 2500ms always
            expect attempts a 3
            expect counted a 1
            expect received bad 1
            expect attempts b 9
            """)
        let a = Self.segment([("a", "1")]), bad = Self.segment([("bad", "2"), ("a", "1")])
        XCTAssertEqual(
            s.receive(a, at: 100), .respond(status: 503, retryAfter: nil, body: #"{"success":false}"#, delay: 0))
        XCTAssertEqual(
            s.receive(bad, at: 200), .respond(status: 400, retryAfter: nil, body: #"{"success":false}"#, delay: 0))
        XCTAssertEqual(
            s.receive(a, at: 300), .respond(status: 503, retryAfter: nil, body: #"{"success":false}"#, delay: 0))
        XCTAssertEqual(
            s.receive(a, at: 10_000), .respond(status: 429, retryAfter: 2500, body: #"{"success":false}"#, delay: 0))
        XCTAssertEqual(
            s.events.map { "\($0.name) \($0.attempts.count) \($0.delivered)" }, ["a 4 false", "bad 1 false"])
        XCTAssertEqual(s.requests.map(\.attemptNumbers), [[1], [1, 2], [3], [4]])
        let results = s.script.checks.map { s.evaluate($0.item) }
        XCTAssertEqual(results.map(\.ok), [false, false, true, false])
        XCTAssertEqual(
            results.map(\.found),
            ["event 1 arrived 4 times", "0 answered 2xx", "1 received", "no event named b arrived"])
        XCTAssertEqual(
            s.log.map(\.text),
            [
                "backend will answer: 503 ×2", "backend will answer: 503 ×2; 400 always for bad",
                "backend will answer: 429 retry-after 2.5s always; 400 always for bad",
            ])
    }

    func test_answerBodies_areWhatEachSDKReads() {
        XCTAssertEqual(ServeSession.body(503, .amplitude), #"{"code":503,"error":"outbox"}"#)
        XCTAssertEqual(ServeSession.body(200, .amplitude), #"{"code":200,"events_ingested":1}"#)
        XCTAssertEqual(ServeSession.body(200, .mixpanel), #"{"status":1,"error":null}"#)
        XCTAssertEqual(ServeSession.body(500, .mixpanel), #"{"status":0,"error":"outbox"}"#)
        XCTAssertEqual(ServeSession.body(200, .posthog), #"{"status":"Ok","results":{}}"#)
        var s = Self.session("at 0 server timeout\nat 1s server lost")
        XCTAssertEqual(s.receive(Self.segment([("a", "1")]), at: 0), .hold)
        XCTAssertEqual(s.receive(Self.segment([("a", "1")]), at: 1000), .close)
    }

    func test_scriptErrors_nameTheirLineAndWhatWasExpected() {
        let text = """
            profile ios
            at 0 launch
            at 1s server 5O3
            at 500ms network offline
            at 2s network sideways
            expect state a delivered
            expect attempts a many
            hello
            at 3s set latency 1s
            """
        guard case .failure(let f) = ServeScript.parse(text, file: "s.outbox") else {
            return XCTFail("expected errors")
        }
        XCTAssertEqual(
            f.messages,
            [
                "s.outbox:3: bad server line: unknown answer `5O3`, expected `server <answer> [x<N> | always | <N>%] [for <name> | for kind:<kind>]` with ok, a status 100-599, timeout, lost or partial; did you mean `503`?",
                "s.outbox:4: `at 500ms` comes before the line above it, expected times in order",
                "s.outbox:5: bad network `sideways`, expected `network online`, `network offline` or `network flap <up> <down>`",
                "s.outbox:6: `expect state` is a check on the model; outbox serve checks what the backend saw, expected `attempts <name> <n>`, `received <name> <n>`, `counted <name> <n>` or `unrecognised <n>`",
                "s.outbox:7: bad count `many`, expected a whole number",
                "s.outbox:8: unknown line `hello`, expected `at <time> server ...`, `at <time> network online|offline`, `set latency <time>` or `expect ...`",
            ])
        guard
            case .success(let ok) = ServeScript.parse(
                "profile ios\nat 0 launch\nat 1s track a\nat 2s set latency 1s\n", file: "o")
        else { return XCTFail() }
        XCTAssertEqual(ok.skipped, 3)
        XCTAssertEqual(ok.steps.map(\.item), [.latency(1000)])
    }

    /// 1100 requests of 64 KB: all read, answered and counted; their bodies kept up to 64 MB in all.
    func test_manyLargeRequests_keepBodiesWithinTheBudget() {
        var s = ServeSession()
        let pad = String(repeating: "x", count: 64 * 1024)
        for i in 0..<1100 {
            let body = #"{"batch":[{"type":"track","event":"e","messageId":"\#(i)","p":"\#(pad)"}]}"#
            _ = s.receive(
                WireRequest(method: "POST", target: "/v1/batch", headers: [], body: Array(body.utf8)), at: Millis(i))
        }
        XCTAssertEqual(s.events.count, 1100)
        XCTAssertLessThanOrEqual(s.keptBytes, ServeSession.keptBodies)
        XCTAssertEqual(s.requests.first?.body.count, ServeSession.keptBody)
        XCTAssertEqual(s.requests.last?.body.count, 0)
        XCTAssertEqual(s.requests.last?.bodyBytes, 65_536 + 66)
    }
}
