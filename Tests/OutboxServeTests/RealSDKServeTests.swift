import Foundation
import OutboxCore
import OutboxServer
import OutboxTestSupport
import XCTest

@testable import OutboxServe

/// `outbox serve` met by the real SDKs, installed from PyPI into .build/sdk-venv
/// (scripts/sdk-venv; `.ci/run` makes it and sets OUTBOX_REQUIRE_SDKS=1, so
/// there a missing venv fails instead of skipping). Each SDK's driver
/// (Tests/sdk-drivers/drive.py) sends three events to a server whose first
/// answer is 503: the events are found by the ids the driver set, and each SDK
/// retries as docs/wire-formats.md says it does.
final class RealSDKServeTests: XCTestCase {
    static var python: String { packageRoot + "/.build/sdk-venv/bin/python" }

    func requireVenv() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            if ProcessInfo.processInfo.environment["OUTBOX_REQUIRE_SDKS"] == "1" {
                XCTFail("no SDK venv at \(Self.python): run scripts/sdk-venv")
            }
            throw XCTSkip("no SDK venv at \(Self.python) (scripts/sdk-venv makes it)")
        }
    }

    /// Runs `sdk`'s driver against a fresh server playing `script`: the session
    /// after it, and the (name, id) pairs the driver made.
    func drive(_ sdk: String, _ script: String, events: Int = 3) throws -> (ServeSession, [(String, String)]) {
        let (s, made, _) = try driveTimed(sdk, script, events: events)
        return (s, made)
    }

    /// `drive`, with the moment (since the server's start) the run is taken to end.
    func driveTimed(_ sdk: String, _ script: String, events: Int = 3) throws -> (
        ServeSession, [(String, String)], Millis
    ) {
        guard case .success(let sc) = ServeScript.parse(script, file: "t.outbox") else {
            XCTFail("bad script")
            return (ServeSession(), [], 0)
        }
        let server = try ServeServer(host: "127.0.0.1", port: 0, hub: ServeHub(ServeSession(script: sc)))
        defer { server.shutdown() }
        let (status, out, err) = try runProgram(
            "/usr/bin/timeout",
            [
                "60", Self.python, packageRoot + "/Tests/sdk-drivers/drive.py", sdk, "http://127.0.0.1:\(server.port)",
                "--events", String(events), "--max-retries", "2",
            ])
        XCTAssertTrue(status == 0 || status == 1, "\(sdk): driver exit \(status): \(err)")
        let made = out.split(separator: "\n").compactMap { line -> (String, String)? in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let n = o["name"] as? String, let id = o["id"] as? String
            else { return nil }
            return (n, id)
        }
        // The last request may still be on its way to the hub: wait a moment.
        usleep(600_000)
        return (server.hub.snapshot, made, server.hub.now())
    }

    /// What each SDK does after a 503: how many times each event arrives, and
    /// whether its first event was answered 2xx in the end (docs/wire-formats.md).
    static let after503: [(sdk: String, format: WireFormat, attempts: [Int], delivered: Bool)] = [
        ("posthog", .posthog, [2, 2, 2], true),
        ("posthog-v1", .posthog, [2, 2, 2], true),
        ("segment", .segment, [2, 2, 2], true),
        ("rudder", .rudder, [2, 2, 2], true),
        ("amplitude", .amplitude, [2, 2, 2], true),
        // No retry: the first event's one request was the 503.
        ("mixpanel", .mixpanel, [1, 1, 1], false),
        ("sentry", .sentry, [1, 1, 1], false),
    ]

    func test_eachSDK_isReadAndRetriesAsItsSourceSays() throws {
        try requireVenv()
        for (sdk, format, attempts, delivered) in Self.after503 {
            let (s, made) = try drive(sdk, "at 0 server 503")
            XCTAssertEqual(made.count, 3, sdk)
            XCTAssertEqual(s.requests.filter { $0.format == nil }.map(\.problem), [], sdk)
            XCTAssertEqual(s.events.count, 3, "\(sdk): \(s.events.map(\.name))")
            for (k, (name, id)) in made.enumerated() {
                guard let e = s.events.first(where: { $0.name == name }) else {
                    XCTFail("\(sdk): \(name) never arrived")
                    continue
                }
                XCTAssertEqual(
                    e.id.replacingOccurrences(of: "-", with: ""), id.replacingOccurrences(of: "-", with: ""), sdk)
                XCTAssertEqual(e.format, format, sdk)
                XCTAssertEqual(e.attempts.count, attempts[k], "\(sdk) \(name)")
            }
            XCTAssertEqual(s.events.first { $0.name == made.first?.0 }?.delivered, delivered, sdk)
        }
    }

    /// A plan for one event by name (`server 503 always for e1`): Mixpanel sends
    /// one request per event and does not retry, so e1 alone is lost.
    func test_aPlanForOneName_failsOnlyTheRequestsItLeads() throws {
        try requireVenv()
        let (mp, _) = try drive("mixpanel", "at 0 server 503 always for e1")
        XCTAssertEqual(mp.events.map { "\($0.name) \($0.delivered)" }, ["e0 true", "e1 false", "e2 true"])
    }

    /// `--profile`: each SDK held to its own profile after two 503s. PostHog,
    /// Segment, Rudder and Amplitude retry within the windows their profiles
    /// predict; Mixpanel diverges, as its profile is its https client's (the
    /// retry adapter is mounted for https only: docs/wire-formats.md); PostHog
    /// held to Segment's profile diverges at its first retry.
    func test_conformance_eachSDKAgainstItsProfile() throws {
        try requireVenv()
        typealias K = Conformance.Verdict.Kind
        // Mixpanel sends one request an event: the first two get the 503s, the third is delivered.
        let cases: [(sdk: String, profile: String, kinds: [K], why: String)] = [
            ("posthog", "posthog-python", [.conforms, .conforms, .conforms], ""),
            ("segment", "segment-python", [.conforms, .conforms, .conforms], ""),
            ("rudder", "rudder-python", [.conforms, .conforms, .conforms], ""),
            ("amplitude", "amplitude-python", [.conforms, .conforms, .conforms], ""),
            ("mixpanel", "mixpanel-python", [.diverges, .diverges, .conforms], "no attempt 2 by "),
            ("posthog", "segment-python", [.diverges, .diverges, .diverges], "attempt 2 came 1."),
        ]
        for c in cases {
            guard case .success(let p) = ProfileResolver.builtins.resolve(c.profile) else { return XCTFail(c.profile) }
            let (s, made, end) = try driveTimed(c.sdk, "at 0 server 503 x2")
            XCTAssertEqual(s.events.count, 3, c.sdk)
            for (k, (name, _)) in made.enumerated() {
                guard let e = s.events.first(where: { $0.name == name }) else { continue }
                let v = Conformance.verdict(e, in: s, profile: p, settings: Settings(profile: p), endedAt: end)
                XCTAssertEqual(v.kind, c.kinds[k], "\(c.sdk) vs \(c.profile) \(e.name): \(v.why)")
                if v.kind == .diverges { XCTAssertTrue(v.why.hasPrefix(c.why), "\(c.sdk) vs \(c.profile): \(v.why)") }
            }
        }
    }

    /// The answer plans issue 25 names, as serve scripts: a 503 every time; a
    /// 429 with Retry-After, then 200; a 400; the backend unreachable for 3 s,
    /// then back; an answer lost (the connection closed without a response).
    static let plans: [(name: String, script: String)] = [
        ("503 always", "at 0 server 503 always"),
        ("429 retry-after 1s, then 200", "at 0 server 429 retry-after 1s x1"),
        ("400", "at 0 server 400 x1"),
        ("unreachable, then back", "at 0 network offline\nat 3s network online"),
        ("lost", "at 0 server lost x1"),
    ]

    /// Each SDK's profile as the driver configures the SDK: `--max-retries 2`
    /// is a budget of 3 attempts for PostHog, Segment and Rudder (retries + 1)
    /// and for Amplitude (`flush_max_retries` 3: at most 3 sends);
    /// Mixpanel over http mounts no retry adapter (its retries are its https
    /// client's: docs/wire-formats.md), so a budget of one; Sentry never retries.
    static let held: [(sdk: String, profile: String, attempts: Int?)] = [
        ("posthog", "posthog-python", 3),
        ("segment", "segment-python", 3),
        ("rudder", "rudder-python", 3),
        ("amplitude", "amplitude-python", 3),
        ("mixpanel", "mixpanel-python", 1),
        ("sentry", "sentry-python", nil),
    ]

    /// Issue 25's check: each of the six real SDKs, under each plan, conforms to
    /// its profile: every event that arrived, every attempt within the window
    /// its profile predicts, none where the profile stops. (The wall clock, a
    /// few seconds a case; the model's own checks are the rule tests.)
    func test_conformance_everySDKUnderEveryPlan() throws {
        try requireVenv()
        try XCTSkipIf(
            ProcessInfo.processInfo.environment["OUTBOX_SANITIZER"] != nil,
            "30 runs of real SDKs on the wall clock: the plain run checks them; the sanitizers have the other serve tests"
        )
        for h in Self.held {
            guard case .success(let p) = ProfileResolver.builtins.resolve(h.profile) else { return XCTFail(h.profile) }
            var st = Settings(profile: p)
            if let a = h.attempts { st.retryAttempts = a }
            for plan in Self.plans {
                let (s, made, end) = try driveTimed(h.sdk, plan.script)
                XCTAssertFalse(s.events.isEmpty, "\(h.sdk), \(plan.name): no event arrived")
                for (name, _) in made {
                    guard let e = s.events.first(where: { $0.name == name }) else { continue }
                    let v = Conformance.verdict(e, in: s, profile: p, settings: st, endedAt: end)
                    XCTAssertEqual(
                        v.kind, .conforms,
                        "\(h.sdk) vs \(h.profile), \(plan.name), \(e.name) (\(e.attemptCount) attempts): \(v.why)")
                }
            }
        }
    }
}
