import Foundation
import OutboxCore
import OutboxTestSupport
import XCTest

@testable import OutboxServe

/// The wire formats read from what the real SDKs sent (Tests/Fixtures/wire,
/// recorded by scripts/sdk-wire against Tests/sdk-drivers/capture.py): every
/// request is recognised, every event the driver made is found by its id and
/// name, and retries are the same event's attempts.
final class WireFormatTests: XCTestCase {
    struct Captured {
        var requests: [(t: Double, request: WireRequest)] = []
        var driver: [(name: String, id: String)] = []
    }

    static func load(_ name: String) throws -> Captured {
        let path = packageRoot + "/Tests/Fixtures/wire/" + name + ".jsonl"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var c = Captured()
        for line in text.split(separator: "\n") {
            let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            if let d = o["driver"] as? [[String: Any]] {
                c.driver = d.map { ($0["name"] as! String, $0["id"] as? String ?? "") }
                continue
            }
            let headers = (o["headers"] as! [[String]]).map { (name: $0[0], value: $0[1]) }
            let body = Array(Data(base64Encoded: o["body_b64"] as? String ?? "") ?? Data())
            c.requests.append(
                (
                    o["t"] as! Double,
                    WireRequest(
                        method: o["method"] as! String, target: o["path"] as! String, headers: headers, body: body)
                ))
        }
        return c
    }

    /// Plays a capture into a session: what `outbox serve` would have recorded.
    static func replay(_ c: Captured) -> ServeSession {
        var s = ServeSession()
        for (t, r) in c.requests { _ = s.receive(r, at: Millis(t * 1000)) }
        return s
    }

    /// Each capture: its format, and how many times each event arrived (the
    /// counts docs/wire-formats.md reports from the runs).
    static let expected: [(fixture: String, format: WireFormat, attempts: Int)] = [
        ("posthog-ok", .posthog, 1), ("posthog-503", .posthog, 3), ("posthog-429", .posthog, 3),
        ("posthog-v1-ok", .posthog, 1), ("posthog-v1-503", .posthog, 3), ("posthog-v1-429", .posthog, 3),
        ("segment-ok", .segment, 1), ("segment-503", .segment, 3), ("segment-429", .segment, 6),
        ("rudder-ok", .rudder, 1), ("rudder-503", .rudder, 3), ("rudder-429", .rudder, 3),
        ("amplitude-ok", .amplitude, 1), ("amplitude-503", .amplitude, 3), ("amplitude-429", .amplitude, 3),
        ("mixpanel-ok", .mixpanel, 1), ("mixpanel-503", .mixpanel, 1), ("mixpanel-429", .mixpanel, 1),
        ("mixpanel-buffered-ok", .mixpanel, 1), ("mixpanel-buffered-503", .mixpanel, 2),
        ("mixpanel-buffered-429", .mixpanel, 2),
        ("sentry-ok", .sentry, 1), ("sentry-503", .sentry, 1),
    ]

    func test_everyCapture_isReadAndEachEventFoundByItsIdAcrossRetries() throws {
        for (name, format, attempts) in Self.expected {
            let c = try Self.load(name)
            let s = Self.replay(c)
            XCTAssertEqual(s.requests.filter { $0.format == nil }.map(\.problem), [], name)
            XCTAssertEqual(s.events.count, c.driver.count, "\(name): \(s.events.map(\.name))")
            for (n, id) in c.driver {
                guard let e = s.events.first(where: { $0.name == n }) else {
                    XCTFail("\(name): no event \(n)")
                    continue
                }
                // Mixpanel's and Sentry's ids are hex without dashes.
                XCTAssertEqual(
                    e.id.replacingOccurrences(of: "-", with: ""), id.replacingOccurrences(of: "-", with: ""), name)
                XCTAssertEqual(e.format, format, name)
                XCTAssertEqual(e.attempts.count, attempts, "\(name) \(n)")
            }
        }
    }

    /// Sentry rate-limited itself after the 429: only the first event was sent
    /// (the other two ids were returned to the caller but never sent).
    func test_sentry429_sendsOnlyTheFirstEvent() throws {
        let c = try Self.load("sentry-429")
        let s = Self.replay(c)
        XCTAssertEqual(s.events.map(\.name), [c.driver[0].name])
        XCTAssertEqual(s.requests.filter { $0.format == nil }.count, 0)
    }

    /// Rudder's and Sentry's bodies come gzip; they are inflated before reading.
    func test_gzipBodies_areInflated() throws {
        for name in ["rudder-ok", "sentry-ok"] {
            let c = try Self.load(name)
            XCTAssertEqual(c.requests.first?.request.header("content-encoding"), "gzip", name)
            let r = WireFormat.read(c.requests[0].request)
            XCTAssertNil(r.problem, name)
            XCTAssertEqual(r.body.first, UInt8(ascii: "{"), name)
        }
    }

    /// An empty id is no id (found by the `wire` fuzz target: events keyed by
    /// `""` would all be one event): a Segment event without one makes the
    /// request unrecognised; a generic item without one is not an event.
    func test_anEmptyId_isNoId() {
        func read(_ path: String, _ body: String, idField: String? = nil) -> WireFormat.Reading {
            WireFormat.read(
                WireRequest(method: "POST", target: path, headers: [], body: Array(body.utf8)), idField: idField)
        }
        let seg = read("/v1/batch", #"{"batch":[{"type":"track","event":"a","messageId":""}]}"#)
        XCTAssertNil(seg.format)
        XCTAssertEqual(seg.problem, "Segment event 1 has no `messageId`")
        let gen = read("/events", #"{"items":[{"eid":"a1","event":"open"},{"eid":""}]}"#, idField: "eid")
        XCTAssertEqual(gen.events.map(\.id), ["a1"])
    }
}
