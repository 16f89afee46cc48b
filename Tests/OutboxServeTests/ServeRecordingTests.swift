import Foundation
import OutboxCore
import OutboxTestSupport
import XCTest

@testable import OutboxServe

/// `outbox serve --record FILE`: the events tracked at their first arrival,
/// their answers as plans for their names, a scenario `outbox run` plays to
/// the same attempts; and the option's bad uses refused before listening.
final class ServeRecordingTests: XCTestCase {
    func test_recording_isAScenarioThatReplaysTheAttempts() throws {
        guard
            case .success(let script) = ServeScript.parse(
                "at 0 server 503 x2\nat 0 server 400 always for bad\n", file: "t")
        else { return XCTFail() }
        var s = ServeSession(script: script)
        func post(_ name: String, _ id: String, at t: Millis) {
            let body = #"{"batch":[{"type":"track","event":"\#(name)","messageId":"\#(id)"}]}"#
            _ = s.receive(WireRequest(method: "POST", target: "/v1/batch", headers: [], body: Array(body.utf8)), at: t)
        }
        post("buy", "1", at: 1000)
        post("bad", "2", at: 1500)
        post("buy", "1", at: 31_000)
        post("buy", "1", at: 91_000)
        let text = ServeRecording.scenario(s, profile: "ios", endedAt: 95_000, source: "http://127.0.0.1:8080")
        XCTAssertEqual(
            text,
            """
            # Recorded by outbox serve from http://127.0.0.1:8080: 2 events in 4 requests, ended at 00:01:35.000.
            # Each event is tracked at its first arrival; the answers its attempts got are plans for its name.
            profile ios
            at 00:00:00.000 launch
            at 00:00:01.000 server 503 x2 for buy
            at 00:00:01.000 track buy
            at 00:00:01.500 server 400 x1 for bad
            at 00:00:01.500 track bad

            """)
        // Played on iOS: buy fails twice (30 s, then 60 s apart) and is delivered; bad is dropped.
        let path = NSTemporaryDirectory() + "serve-record-\(getpid()).outbox"
        try (text + "expect at 200s attempts buy 3\nexpect at 200s dropped bad rejected\n").write(
            toFile: path, atomically: true, encoding: .utf8)
        let (status, out, err) = cli(["run", path, "--quiet"])
        XCTAssertEqual(status, 0, out + err)
    }
}
