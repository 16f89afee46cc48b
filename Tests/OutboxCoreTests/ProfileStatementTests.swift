import XCTest

@testable import OutboxCore

/// Helpers for tests of user profiles read from text (issue 13): a profile file
/// written inline is parsed as `outbox --profile FILE` would, and scenarios that
/// name it play through a resolver that knows it.
enum UserProfileKit {
    /// Parses a profile written inline; fails the test with every error on bad input.
    static func load(
        _ text: String, path: String = "acme.profile", file: StaticString = #filePath, line: UInt = #line
    ) -> Profile? {
        switch Profile.parse(text, file: path, path: path) {
        case .success(let p): return p
        case .failure(let e):
            XCTFail("bad profile: " + e.errors.map(\.description).joined(separator: "; "), file: file, line: line)
            return nil
        }
    }

    /// The errors of a profile that must not parse, as `FILE:LINE: message`.
    static func errors(_ text: String, path: String = "acme.profile") -> [String] {
        switch Profile.parse(text, file: path, path: path) {
        case .success: return []
        case .failure(let e): return e.errors.map(\.description)
        }
    }

    /// Finds the given profiles by name, then the built-ins.
    static func resolver(_ profiles: [Profile]) -> ProfileResolver {
        ProfileResolver { name in
            if let p = profiles.first(where: { $0.name == name }) { return .success(p) }
            return ProfileResolver.builtins.resolve(name)
        }
    }

    /// One play of a scenario: the model at the end and both timelines.
    struct Played {
        var runner: ScenarioRunner
        var text: [String]
        var jsonl: [String]
        var sim: Simulation { runner.sim }
    }

    /// Plays a scenario (whose `profile` line names one of `profiles` or a
    /// built-in) to the end, writing both timelines; fails the test on bad
    /// input and on each failed expect line.
    static func play(
        _ scenario: String, on profiles: [Profile], file: StaticString = #filePath, line: UInt = #line
    ) -> Played? {
        let sc: Scenario
        switch Scenario.parse(scenario, file: "inline.outbox", profiles: resolver(profiles)) {
        case .success(let s): sc = s
        case .failure(let e):
            XCTFail("bad scenario: " + e.errors.map(\.description).joined(separator: "; "), file: file, line: line)
            return nil
        }
        var runner = ScenarioRunner(sc)
        var text: [String] = [], jsonl: [String] = []
        let t = TimelineWriter(format: .text), j = TimelineWriter(format: .jsonl)
        runner.run { item, sim in
            switch item {
            case .entry(let e):
                text.append(t.line(e, in: sim))
                jsonl.append(j.line(e, in: sim))
            case .check(let r):
                text.append(t.check(r))
                jsonl.append(j.check(r))
            }
        }
        for f in runner.failures {
            XCTFail("line \(f.line): \(f.text): found \(f.found)\n" + text.joined(separator: "\n"), file: file, line: line)
        }
        return Played(runner: runner, text: text, jsonl: jsonl)
    }

    /// Loads `profileText` and plays `scenario` on it.
    static func play(
        profile profileText: String, _ scenario: String, file: StaticString = #filePath, line: UInt = #line
    ) -> Played? {
        guard let p = load(profileText, file: file, line: line) else { return nil }
        return play(scenario, on: [p], file: file, line: line)
    }

    /// Every transition, `RuleTestKit.trail` style, of every request in id order:
    /// `<name>: <ms> <from>><to> #<attempt>[ <outcome>][ <reason>] <rule>`.
    static func trails(_ sim: Simulation) -> [String] {
        sim.journal.compactMap { e in
            guard case .transition(let t) = e else { return nil }
            var s = "\(sim.name(of: t.request)): \(t.time) \(t.from?.word ?? "new")>\(t.to.word) #\(t.attempt)"
            if !t.outcome.isNone { s += " " + t.outcome.word }
            if let r = t.reason { s += " " + r.word }
            return s + " " + sim.profile.rule(t.rule).id
        }
    }

    /// Every log line: `<ms> [<rule or ->] <text>`, the rule resolved through the profile.
    static func logs(_ sim: Simulation) -> [String] {
        sim.journal.compactMap { e in
            guard case .log(let l) = e else { return nil }
            return "\(l.time) [\(l.rule.map { sim.profile.rule($0).id } ?? "-")] \(l.text)"
        }
    }
}

final class ProfileStatementTests: XCTestCase {
    typealias U = UserProfileKit

    /// A small profile of a made-up SDK: each statement a test varies is one line.
    static func acme(
        save: String = "save at create",
        offline: String = "offline fail",
        on: String = """
            on 2xx deliver rule ACME-1
            on transport retry rule ACME-2
            on 5xx retry rule ACME-2
            on 4xx drop rejected rule ACME-3
            """,
        exhausted: String = "on exhausted drop exhausted rule ACME-2",
        retry: String = "set retry.attempts 3\nset retry.delays 1s,2s",
        resend: String = "resend on launch rule ACME-4",
        more: String = ""
    ) -> String {
        """
        profile acme
        title "ACME analytics SDK"
        rule ACME-1 "A request is saved and sent at once; 2xx delivers it."
        rule ACME-2 "Transport errors and 5xx are retried after retry.delays, up to retry.attempts."
        rule ACME-3 "Any 4xx drops it (rejected)."
        rule ACME-4 "What is saved survives a quit and goes out at the next launch."
        rule ACME-5 assumption "A spare rule the tests cite."
        rule ACME-6 "Another spare rule."
        rule ACME-7 "Another spare rule."
        rule ACME-8 "Another spare rule."
        requests ping screen logout
        \(retry)
        \(save)
        created rule ACME-1
        send rule ACME-1
        \(offline)
        quit keeps saved rule ACME-4
        \(on)
        \(exhausted)
        \(resend)
        \(more)
        """
    }


    // MARK: on CLASS: the most specific class wins

    /// A profile where every answer class has a line and a rule of its own.
    static let everyClass = """
        profile classes
        rule OK "2xx delivers."
        rule PARTIAL "A partial accept delivers."
        rule C1XX "1xx is retried."
        rule C4XX "4xx drops it."
        rule S403 "403 is retried."
        rule C5XX "5xx is retried."
        rule TRANSPORT "A transport error keeps it queued."
        rule TIMEOUT "A timeout is retried."
        rule DROPLOST "A lost answer drops it."
        rule OFFLINE "An attempt offline drops it."
        rule EXH "The last attempt failed."
        rule SAVE "Saved when made."
        set retry.attempts 2
        set retry.delays 1s
        save at create
        created rule SAVE
        send rule SAVE
        quit keeps saved rule SAVE
        on 2xx deliver rule OK
        on partial deliver rule PARTIAL
        on 4xx drop rejected rule C4XX
        on 403 retry rule S403
        on 1xx retry rule C1XX
        on 5xx retry rule C5XX
        on transport queue rule TRANSPORT
        on timeout retry rule TIMEOUT
        on lost drop not-saved rule DROPLOST
        on offline drop not-saved rule OFFLINE
        on exhausted drop exhausted rule EXH
        """

    /// One request per answer class, 10 s apart; each answer is planned for one attempt.
    static let oneOfEachClass = """
        profile classes
        set timeout 2s
        at 0 launch
        at 0 server 403
        at 0 track s403
        at 10s server 404
        at 10s track s404
        at 20s server 101
        at 20s track s101
        at 30s server 301
        at 30s track s301
        at 40s server 503
        at 40s track s503
        at 50s server timeout
        at 50s track stimeout
        at 60s server lost
        at 60s track slost
        at 70s network offline
        at 70s track soffline
        at 71s network online
        at 80s server partial
        at 80s track spartial
        at 90s track snetlost
        at 90.1s network offline
        at 91s network online
        """

    func test_on_mostSpecificClassWins() {
        guard let r = U.play(profile: Self.everyClass, Self.oneOfEachClass) else { return }
        XCTAssertEqual(
            U.trails(r.sim).filter { !$0.contains("new>pending") && !$0.contains("pending>in-flight") },
            [
                // 403 beats 4xx: retried, then delivered.
                "s403: 200 in-flight>retrying #1 403 S403",
                "s403: 1200 retrying>in-flight #2 S403",
                "s403: 1400 in-flight>delivered #2 200 OK",
                // Any other 4xx: the 4xx line.
                "s404: 10200 in-flight>dropped #1 404 rejected C4XX",
                // 1xx has a line of its own here.
                "s101: 20200 in-flight>retrying #1 101 C1XX",
                "s101: 21200 retrying>in-flight #2 C1XX",
                "s101: 21400 in-flight>delivered #2 200 OK",
                // 3xx has none: it falls back to 4xx (RETRYABLE).
                "s301: 30200 in-flight>dropped #1 301 rejected C4XX",
                "s503: 40200 in-flight>retrying #1 503 C5XX",
                "s503: 41200 retrying>in-flight #2 C5XX",
                "s503: 41400 in-flight>delivered #2 200 OK",
                // timeout beats transport.
                "stimeout: 52000 in-flight>retrying #1 timeout TIMEOUT",
                "stimeout: 53000 retrying>in-flight #2 TIMEOUT",
                "stimeout: 53200 in-flight>delivered #2 200 OK",
                // lost beats timeout.
                "slost: 62000 in-flight>dropped #1 timeout not-saved DROPLOST",
                // offline beats transport.
                "soffline: 70000 in-flight>dropped #1 offline not-saved OFFLINE",
                // partial beats 2xx.
                "spartial: 80200 in-flight>delivered #1 partial PARTIAL",
                // Going offline with it on the wire: a transport error (network-lost).
                "snetlost: 90100 in-flight>queued #1 network-lost TRANSPORT",
            ])
    }

    func test_on_classesWithoutALineFallBackToTheirParent() {
        // Only the four required classes: 403 → 4xx, 1xx and 3xx → 4xx,
        // lost → timeout → transport, offline → transport, partial → 2xx.
        let text = Self.everyClass.split(separator: "\n").filter { line in
            !["on partial", "on 403", "on 1xx", "on timeout", "on lost", "on offline"].contains { line.hasPrefix($0) }
        }.joined(separator: "\n")
        guard let r = U.play(profile: text, Self.oneOfEachClass) else { return }
        XCTAssertEqual(
            U.trails(r.sim).filter { !$0.contains("new>pending") && !$0.contains("pending>in-flight") },
            [
                "s403: 200 in-flight>dropped #1 403 rejected C4XX",
                "s404: 10200 in-flight>dropped #1 404 rejected C4XX",
                "s101: 20200 in-flight>dropped #1 101 rejected C4XX",
                "s301: 30200 in-flight>dropped #1 301 rejected C4XX",
                "s503: 40200 in-flight>retrying #1 503 C5XX",
                "s503: 41200 retrying>in-flight #2 C5XX",
                "s503: 41400 in-flight>delivered #2 200 OK",
                "stimeout: 52000 in-flight>queued #1 timeout TRANSPORT",
                "slost: 62000 in-flight>queued #1 timeout TRANSPORT",
                "soffline: 70000 in-flight>queued #1 offline TRANSPORT",
                "spartial: 80200 in-flight>delivered #1 partial OK",
                "snetlost: 90100 in-flight>queued #1 network-lost TRANSPORT",
            ])
    }

    func test_on_lostFallsBackToTimeoutBeforeTransport() {
        let text = Self.everyClass.split(separator: "\n").filter { !$0.hasPrefix("on lost") }.joined(separator: "\n")
        guard let r = U.play(profile: text, Self.oneOfEachClass) else { return }
        XCTAssertEqual(
            U.trails(r.sim).filter { $0.hasPrefix("slost") || $0.hasPrefix("stimeout") },
            [
                "stimeout: 50000 new>pending #0 SAVE",
                "stimeout: 50000 pending>in-flight #1 SAVE",
                "stimeout: 52000 in-flight>retrying #1 timeout TIMEOUT",
                "stimeout: 53000 retrying>in-flight #2 TIMEOUT",
                "stimeout: 53200 in-flight>delivered #2 200 OK",
                "slost: 60000 new>pending #0 SAVE",
                "slost: 60000 pending>in-flight #1 SAVE",
                "slost: 62000 in-flight>retrying #1 timeout TIMEOUT",
                "slost: 63000 retrying>in-flight #2 TIMEOUT",
                "slost: 63200 in-flight>delivered #2 200 OK",
            ])
    }

    func test_on_lineWithoutRuleInheritsItsParentsRule() {
        // `on 403 retry`, `on lost queue`, `on partial deliver`, `on 1xx retry`
        // name no rule: each cites the rule of the class it falls back to.
        let text = """
            profile inherit
            rule OK "2xx delivers."
            rule C4XX "4xx drops it."
            rule C5XX "5xx is retried."
            rule TRANSPORT "A transport error is retried."
            rule TIMEOUT "A timeout is retried."
            rule SAVE "Saved when made."
            set retry.attempts 2
            set retry.delays 1s
            save at create
            created rule SAVE
            send rule SAVE
            quit keeps saved rule SAVE
            on 2xx deliver rule OK
            on partial deliver
            on 4xx drop rejected rule C4XX
            on 403 retry
            on 1xx retry
            on 5xx retry rule C5XX
            on transport retry rule TRANSPORT
            on timeout retry rule TIMEOUT
            on lost queue
            on offline drop not-saved
            on exhausted drop exhausted
            """
        guard let p = U.load(text) else { return }
        guard let r = U.play(Self.oneOfEachClass.replacingOccurrences(of: "profile classes", with: "profile inherit"), on: [p])
        else { return }
        XCTAssertEqual(
            U.trails(r.sim).filter { !$0.contains("new>pending") && !$0.contains("pending>in-flight") },
            [
                "s403: 200 in-flight>retrying #1 403 C4XX",
                "s403: 1200 retrying>in-flight #2 C4XX",
                "s403: 1400 in-flight>delivered #2 200 OK",
                "s404: 10200 in-flight>dropped #1 404 rejected C4XX",
                // 1xx's own line, with 4xx's rule.
                "s101: 20200 in-flight>retrying #1 101 C4XX",
                "s101: 21200 retrying>in-flight #2 C4XX",
                "s101: 21400 in-flight>delivered #2 200 OK",
                "s301: 30200 in-flight>dropped #1 301 rejected C4XX",
                "s503: 40200 in-flight>retrying #1 503 C5XX",
                "s503: 41200 retrying>in-flight #2 C5XX",
                "s503: 41400 in-flight>delivered #2 200 OK",
                "stimeout: 52000 in-flight>retrying #1 timeout TIMEOUT",
                "stimeout: 53000 retrying>in-flight #2 TIMEOUT",
                "stimeout: 53200 in-flight>delivered #2 200 OK",
                // lost: its own action (queue), timeout's rule.
                "slost: 62000 in-flight>queued #1 timeout TIMEOUT",
                // offline: its own action, transport's rule.
                "soffline: 70000 in-flight>dropped #1 offline not-saved TRANSPORT",
                "spartial: 80200 in-flight>delivered #1 partial OK",
                "snetlost: 90100 in-flight>retrying #1 network-lost TRANSPORT",
                "snetlost: 91100 retrying>in-flight #2 TRANSPORT",
                "snetlost: 91300 in-flight>delivered #2 200 OK",
            ])
    }

    func test_onExhausted_withoutRuleCitesTheFirstRetryLine() {
        let text = Self.acme(exhausted: "on exhausted drop exhausted")
        guard
            let r = U.play(
                profile: text,
                """
                profile acme
                at 0 launch
                at 0 server 503 always
                at 0 track b
                expect at 3.6s dropped b exhausted
                """)
        else { return }
        XCTAssertEqual(U.trails(r.sim).last, "b: 3600 in-flight>dropped #3 503 exhausted ACME-2")
    }

    // MARK: on exhausted

    static let ladder = """
        profile acme
        at 0 launch
        at 0 server 503 x3
        at 0 track b
        expect at 3.6s saved 1
        at 5s quit
        expect at 5s saved 1
        at 6s launch
        expect at 6.2s state b delivered
        expect at 6.2s saved 0
        """

    func test_onExhausted_queueKeepsItSavedForTheNextLaunch() {
        guard let r = U.play(profile: Self.acme(exhausted: "on exhausted queue rule ACME-5"), Self.ladder) else { return }
        XCTAssertEqual(
            U.trails(r.sim),
            [
                "b: 0 new>pending #0 ACME-1",
                "b: 0 pending>in-flight #1 ACME-1",
                "b: 200 in-flight>retrying #1 503 ACME-2",
                "b: 1200 retrying>in-flight #2 ACME-2",
                "b: 1400 in-flight>retrying #2 503 ACME-2",
                "b: 3400 retrying>in-flight #3 ACME-2",
                "b: 3600 in-flight>queued #3 503 ACME-5",
                "b: 6000 queued>in-flight #4 ACME-4",
                "b: 6200 in-flight>delivered #4 200 ACME-1",
            ])
    }

    func test_onExhausted_dropEndsIt() {
        guard
            let r = U.play(
                profile: Self.acme(exhausted: "on exhausted drop exhausted rule ACME-5"),
                """
                profile acme
                at 0 launch
                at 0 server 503 x3
                at 0 track b
                expect at 3.6s dropped b exhausted
                expect at 3.6s saved 0
                at 5s quit
                at 6s launch
                expect at 7s dropped b exhausted
                """)
        else { return }
        XCTAssertEqual(U.trails(r.sim).last, "b: 3600 in-flight>dropped #3 503 exhausted ACME-5")
        XCTAssertEqual(U.trails(r.sim).count, 7)
    }
}
