import OutboxCore
import OutboxTestSupport
import OutboxUI
import XCTest

@testable import OutboxServe

/// serve's live screen, pure: a session stepped by hand, the model stepped by
/// keys, the effects applied to the session as the loop applies them, and the
/// screen read from the in-memory buffer as a user reads it (80×24).
final class ServeScreenTests: XCTestCase {
    static func posthog(_ events: [(String, String)], agent: String = "posthog-python/3.0") -> WireRequest {
        let items = events.map { #"{"event":"\#($0.0)","uuid":"\#($0.1)","properties":{"plan":"pro"}}"# }
        return WireRequest(
            method: "POST", target: "/batch/",
            headers: [("Content-Type", "application/json"), ("User-Agent", agent), ("X-Retry-Count", "0")],
            body: Array(#"{"api_key":"k","batch":[\#(items.joined(separator: ","))]}"#.utf8))
    }

    static func session(_ script: String = "") -> ServeSession {
        guard case .success(let s) = ServeScript.parse(script, file: "t.outbox") else { fatalError(script) }
        return ServeSession(script: s)
    }

    static func profile(_ name: String) -> (Profile, Settings) {
        guard case .success(let p) = ProfileResolver.builtins.resolve(name) else { fatalError(name) }
        return (p, Settings(profile: p))
    }

    func screen(_ m: ServeModel, _ s: ServeSession, _ w: Int = 80, _ h: Int = 24, glyphs: Glyphs = .unicode)
        -> [String]
    {
        var m = m
        m.setScreen(width: w, height: h)
        return ServeView.render(m, s, width: w, height: h, glyphs: glyphs).lines.map {
            var l = $0
            while l.hasSuffix(" ") { l.removeLast() }
            return l
        }
    }

    /// Keys to the model; each effect applied to the session at `now`, as the loop does.
    func press(_ m: inout ServeModel, _ s: inout ServeSession, _ keys: [Key], at now: Millis) -> [ServeSession.Reply] {
        var replies: [ServeSession.Reply] = []
        for k in keys {
            if let e = m.handle(k, s), let r = e.apply(to: &s, at: now) { replies.append(r) }
        }
        return replies
    }

    func test_anEventsRowAfterThreeAttempts_showsItsVerdictAndTheNextWindow() {
        var s = Self.session("at 0 server 503 x2")
        let r = Self.posthog([("signup", "u-1")])
        _ = s.receive(r, at: 1000)
        _ = s.receive(r, at: 2000)
        _ = s.receive(r, at: 6000)
        var m = ServeModel(address: "http://127.0.0.1:8080", profile: Self.profile("posthog-python"))
        m.tick(now: 6500)
        let lines = screen(m, s)
        XCTAssertEqual(
            lines[0], " OUTBOX serve │ http://127.0.0.1:8080 │ net ● online │ backend ok │ held to pos…")
        XCTAssertEqual(lines[1], "─ ▶ Events 1 · requests 3 · unrecognised 0 " + String(repeating: "─", count: 37))
        XCTAssertEqual(lines[2], " id        name         format    att last     ago   verdict   next")
        XCTAssertEqual(lines[3], " u-1       signup       posthog   3   ok       0.5s  diverges  none: delivered")
        // The detail: each attempt, its gap beside the window predicted, its notable headers.
        let detail = lines.drop(while: { !$0.hasPrefix("─ signup u-1") }).dropFirst().prefix(7)
        XCTAssertEqual(
            Array(detail),
            [
                " posthog capture · 3 attempts · answered 2xx",
                " diverges: attempt 3 came 4s after attempt 2's 503; posthog-python predicts",
                "   2s ± 300ms (rule PHP-5)",
                " #1 00:00:01.000 POST /batch/ → 503",
                "    Content-Type: application/json · User-Agent: posthog-python/3.0 ·",
                "      X-Retry-Count: 0",
                " #2 00:00:02.000 POST /batch/ → 503",
            ])
    }

    func test_theDetailScrollsToTheLatestPayload_prettyPrintedAndEscaped() {
        var s = Self.session()
        _ = s.receive(Self.posthog([("sign\\u001b[31mup", "u-1")]), at: 500)
        var m = ServeModel(address: "http://127.0.0.1:8080")
        m.tick(now: 1000)
        _ = press(&m, &s, [.enter] + Array(repeating: Key.down, count: 4), at: 1000)
        let lines = screen(m, s)
        let detail = Array(lines.drop(while: { !$0.hasPrefix("─ ▶ sign") }).dropFirst().prefix(10))
        XCTAssertEqual(
            detail,
            [
                " attempt 1's payload (95 bytes as sent):",
                "   {",
                "     \"api_key\": \"k\",",
                "     \"batch\": [",
                "       {",
                "         \"event\": \"sign\\u001b[31mup\",",
                "         \"properties\": {",
                "           \"plan\": \"pro\"",
                "         },",
                "         \"uuid\": \"u-1\"",
            ])
        XCTAssertEqual(lines[3], " u-1       sign\\x1b[31mup                          posthog   1   ok       0.5s")
        XCTAssertFalse(lines.joined().unicodeScalars.contains { $0.value == 0x1B }, "nothing reaches the terminal raw")
    }

    func test_theChooserPlansTheNextAnswer_forTheSelectedName() {
        var s = Self.session()
        _ = s.receive(Self.posthog([("signup", "u-1")]), at: 100)
        var m = ServeModel(address: "http://127.0.0.1:8080")
        _ = press(&m, &s, [.char("x"), .char("d"), .char("r")], at: 200)
        XCTAssertEqual(screen(m, s)[23], " 503 for signup: 1, 3 or 5 times, a(lways) or % a chance? Esc cancels")
        _ = press(&m, &s, [.char("a")], at: 200)
        XCTAssertEqual(m.mode, .normal)
        XCTAssertEqual(s.plans.summary, "ok; 503 always for signup")
        XCTAssertEqual(
            s.receive(Self.posthog([("signup", "u-1")]), at: 300),
            .respond(status: 503, retryAfter: nil, body: #"{"error":"outbox"}"#, delay: 0))
        XCTAssertEqual(
            s.receive(Self.posthog([("other", "u-2")]), at: 400),
            .respond(status: 200, retryAfter: nil, body: #"{"status":"Ok","results":{}}"#, delay: 0))
        XCTAssertEqual(
            screen(m, s)[3], " u-1       signup                                  posthog   2   503      0.0s")
        // `o` takes the network offline, as `network offline` would.
        _ = press(&m, &s, [.char("o")], at: 500)
        XCTAssertFalse(s.online)
        XCTAssertTrue(screen(m, s)[0].contains("net — offline"), screen(m, s)[0])
    }

    func test_theCommandLine_playsAServerLine_andSaysWhatIsWrongWithABadOne() {
        var s = Self.session()
        var m = ServeModel(address: "http://127.0.0.1:8080")
        _ = press(&m, &s, [.char(":")] + "server 429 retry-after 5s x2".unicodeScalars.map(Key.char) + [.enter], at: 50)
        XCTAssertEqual(s.plans.summary, "429 retry-after 5s ×2")
        _ = press(&m, &s, [.char(":")] + "server 99".unicodeScalars.map(Key.char) + [.enter], at: 60)
        XCTAssertEqual(m.message?.isError, true)
        XCTAssertEqual(
            screen(m, s)[23],
            " :server 99: bad server line: unknown answer `99`, expected `server <answer> [x…")
        _ = press(&m, &s, [.char(":")] + "launch".unicodeScalars.map(Key.char) + [.enter], at: 70)
        XCTAssertEqual(
            m.message?.text,
            ":launch: `launch` is not a line serve plays, expected `server ANSWER ...`, `network offline|online` or `set latency D`"
        )
        _ = press(&m, &s, [.char(":")] + "set latency 300ms".unicodeScalars.map(Key.char) + [.enter], at: 80)
        XCTAssertEqual(s.latency, 300)
    }

    func test_theBreakpointHoldsTheNextRequest_untilItsAnswerIsChosen() {
        var s = Self.session()
        var m = ServeModel(address: "http://127.0.0.1:8080")
        _ = press(&m, &s, [.char("b")], at: 100)
        XCTAssertEqual(s.breakpoint, .next)
        XCTAssertEqual(s.receive(Self.posthog([("signup", "u-1")]), at: 1000), .held(token: 1))
        XCTAssertEqual(s.requests.count, 0, "not recorded while held")
        XCTAssertNil(s.breakpoint, "one-shot")
        m.tick(now: 1500)
        var lines = screen(m, s)
        XCTAssertEqual(lines[2], " i┌─ Held at the breakpoint ─────────────────────────────────────────────────┐")
        XCTAssertEqual(lines[3], " N│ POST /batch/  posthog  came 00:00:01.000, held 500ms                     │7…")
        XCTAssertEqual(lines[4], "  │ events: signup (u-1)                                                     │")
        XCTAssertEqual(lines[16], "  │ answer: the plan's (pick a letter)  · Enter sends it · R retry-after · … │")
        // A status, its Retry-After, Enter: answered and recorded with it.
        XCTAssertEqual(press(&m, &s, [.char("b"), .char("R")], at: 1600), [])
        lines = screen(m, s)
        XCTAssertEqual(lines[16], "  │ answer: 429 retry-after 1s  · Enter sends it · R retry-after · Esc unpi… │")
        XCTAssertEqual(
            press(&m, &s, [.enter], at: 2000),
            [.respond(status: 429, retryAfter: 1000, body: #"{"error":"outbox"}"#, delay: 0)])
        XCTAssertTrue(s.held.isEmpty)
        XCTAssertEqual(s.requests.map(\.answer), [.retryAfter(429, 1000)])
        XCTAssertEqual(s.requests[0].time, 1000, "recorded as it came")
        XCTAssertEqual(s.requests[0].delay, 1000, "answered when released")
        XCTAssertEqual(
            screen(m, s)[3], " u-1       signup                                  posthog   1   429 ret… 0.5s")
    }

    func test_theBreakpointByName_letsOtherNamesThrough_andAClosedClientIsRecordedAsTimedOut() {
        var s = Self.session()
        _ = s.receive(Self.posthog([("signup", "u-1")]), at: 10)
        var m = ServeModel(address: "http://127.0.0.1:8080")
        _ = press(&m, &s, [.char("b"), .char("b")], at: 20)
        XCTAssertEqual(s.breakpoint, .name("signup"))
        XCTAssertEqual(
            s.receive(Self.posthog([("other", "u-2")]), at: 30),
            .respond(status: 200, retryAfter: nil, body: #"{"status":"Ok","results":{}}"#, delay: 0))
        guard case .held(let token) = s.receive(Self.posthog([("signup", "u-1")]), at: 40) else {
            return XCTFail("not held")
        }
        s.abandon(token, as: .timeout, at: 5040, why: "closed by the client while held")
        XCTAssertEqual(s.events[0].attemptCount, 2)
        XCTAssertEqual(s.requests.last?.answer, .timeout)
        XCTAssertEqual(
            s.log.last?.text, "breakpoint: POST /batch/ closed by the client while held: recorded as timeout")
        XCTAssertNil(s.release(token, answer: .ok, at: 6000), "gone: nothing to release")
    }

    func test_at80x24UnderLangC_everyCellIsASCII_andHelpListsServesKeys() {
        var s = Self.session()
        _ = s.receive(Self.posthog([("signup", "u-1")]), at: 10)
        _ = s.receive(WireRequest(method: "GET", target: "/nope", headers: [], body: Array("é\u{7}".utf8)), at: 20)
        var m = ServeModel(address: "http://127.0.0.1:8080", profile: Self.profile("posthog-python"))
        m.tick(now: 100)
        let lines = screen(m, s, glyphs: .ascii)
        XCTAssertTrue(lines.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) }, lines.joined(separator: "\n"))
        XCTAssertEqual(lines[1], "- > Events 1 - requests 2 - unrecognised 1 " + String(repeating: "-", count: 37))
        XCTAssertEqual(lines[4], " GET       /nope        unrecog.      ok       0.0s  ?\\x07")
        _ = press(&m, &s, [.char("?")], at: 100)
        let help = screen(m, s, 80, 40, glyphs: .ascii).joined(separator: "\n")
        for b in ServeKeys.bindings { XCTAssertTrue(help.contains(b.help.prefix(30)), b.help) }
        XCTAssertEqual(ServeKeys.conflicts, [])
    }
}
