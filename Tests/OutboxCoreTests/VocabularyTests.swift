import XCTest

@testable import OutboxCore

/// Issue 23: app calls and request kinds are data (`call` lines), not Swift.
final class VocabularyTests: XCTestCase {
    let own = """
        profile acme
        base ios
        title "Acme SDK"
        call identify NAME makes identify key i alice "identify the user"
        call background makes nothing key B "the app goes to the background"
        direct identify rule IOS-7
        """

    func profile() throws -> Profile {
        switch Profile.parse(own, file: "acme.profile") {
        case .success(let p): return p
        case .failure(let e): throw XCTSkip("acme.profile: \(e.errors.map(\.message))")
        }
    }

    func test_ownCall_makesItsRequest_andAnEventLogsItsHelp() throws {
        let p = try profile()
        XCTAssertTrue(p.verbs.contains("identify"), p.verbs)
        XCTAssertTrue(p.verbs.contains("background"), p.verbs)
        var sim = Simulation(profile: p)
        XCTAssertNil(sim.apply(.appLaunched))
        guard case .success(let a)? = ActionSyntax.parse(["identify", "bob"], vocabulary: p.vocabulary) else {
            return XCTFail("identify did not parse")
        }
        XCTAssertEqual(a, .call("identify", "bob"))
        XCTAssertEqual(ActionSyntax.text(for: a), "identify bob")
        XCTAssertNil(sim.apply(a))
        XCTAssertNil(sim.apply(.call("background", nil)))
        let r = sim.request(1)
        XCTAssertEqual(sim.word(r.kind), "identify")
        XCTAssertEqual(sim.names[Int(r.nameID)], "bob")
        XCTAssertTrue(
            sim.journal.contains {
                if case .log(let l) = $0 { return l.text == "background(): the app goes to the background" }
                return false
            })
        // Not a built-in word: the built-in vocabulary does not know it, and no other profile changed.
        XCTAssertNil(Vocabulary.builtin.call("identify"))
        XCTAssertNil(Builtins.named("ios")!.vocabulary.call("identify"))
    }

    func test_badCallLines_sayWhatWasExpected() {
        for (line, want) in [
            ("call track makes thing \"x\"", "`track` is a scenario word of its own"),
            ("call ping makes ping \"x\"", "a call `ping` is already declared"),
            ("call x NAME makes a b \"x\"", "a call with a NAME makes exactly one request"),
            ("call x makes install \"x\"", "`install` is the engine's own kind"),
            ("call x makes y key ab \"x\"", "bad key of call `x`"),
        ] {
            guard case .failure(let e) = Profile.parse("profile z\n" + line + "\n", file: "z.profile") else {
                XCTFail("parsed: \(line)")
                continue
            }
            XCTAssertTrue(e.errors[0].message.contains(want), "\(line): \(e.errors[0].message)")
            XCTAssertEqual(e.errors[0].line, 2)
        }
    }

    func test_builtinVocabulary_isTheSeedsCallsInOrder() {
        XCTAssertEqual(Vocabulary.builtin.callWords, ["ping", "screen", "product", "notification", "logout"])
        XCTAssertEqual(
            Vocabulary.builtin.kinds,
            [
                "install", "event", "ping", "screen", "product", "notification", "logout", "token-removal",
                "anonymous-ping",
            ])
    }
}
