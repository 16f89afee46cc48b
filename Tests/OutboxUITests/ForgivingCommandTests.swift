import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

/// The live screen's `:` commands go through the scenario's action parser:
/// a mistyped one gets the same "did you mean", its own commands offered too
/// (issue 15, item 3).
final class ForgivingCommandTests: XCTestCase {
    func test_mistypedCommands_sayWhatWasMeant() {
        var s = Session(.ios)
        let cases: [(String, String)] = [
            (
                "trak purchase",
                "unknown action `trak`, expected one of: launch, quit, getinstance, consent grant|deny, track, ping, screen, product, notification, logout, network online|offline|flap, server; did you mean `track`?"
            ),
            (
                "brek 5s",
                "unknown action `brek`, expected one of: launch, quit, getinstance, consent grant|deny, track, ping, screen, product, notification, logout, network online|offline|flap, server; did you mean `break`?"
            ),
            (
                "set retry.atempts 3",
                "unknown setting `retry.atempts`, expected one of: retry.attempts, retry.delays, retry.jitter, latency, latency.jitter, timeout, seed; did you mean `retry.attempts`?"
            ),
            (
                "server 5O3 x2",
                "bad server line: unknown answer `5O3`, expected `server <answer> [x<N> | always | <N>%] [for <name> | for kind:<kind>]` with ok, a status 100-599, timeout, lost or partial; did you mean `503`?"
            ),
            (
                "profile andriod",
                ":profile: unknown profile `andriod`, expected linktrail, ios, android, flutter or " + ProfileResolver.realSDKs + "; did you mean `android`?"
            ),
        ]
        for (typed, said) in cases {
            s.command(typed)
            XCTAssertEqual(s.model.message?.text, said, typed)
            XCTAssertEqual(s.model.message?.isError, true, typed)
        }
        XCTAssertEqual(s.model.sim.requests.count, 0, "nothing mistyped happened")
    }

    /// The message line is one row: the suggestion is shown before the long list, so 80 columns show it.
    func test_theSuggestionIsOnScreenAt80Columns() {
        var s = Session(.ios)
        for (typed, shown) in [
            ("trak purchase", "unknown action `trak`; did you mean `track`? Expected one of: launch,"),
            ("set retry.atempts 3", "unknown setting `retry.atempts`; did you mean `retry.attempts`? Expected"),
        ] {
            s.command(typed)
            let screen = s.screen(80, 24).text
            XCTAssertTrue(screen.contains(shown), screen)
        }
    }
}
