import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

/// The `B` key (issue 24 item 5): the app to the background and back on a
/// profile with the lifecycle, recorded as `background`/`foreground` lines;
/// a profile without it says so and changes nothing; the help lists it only where it applies.
final class LifecycleKeysTests: XCTestCase {
    static let text = """
        profile phone
        base ios
        rule PH-3 "When the app goes to the background the queued requests are sent at once."
        rule PH-4 "An upload still running 10 s after the app went to the background is cancelled."
        on background flush rule PH-3
        background limit 10s rule PH-4
        """

    func test_B_togglesTheBackground_andIsRecorded() throws {
        guard case .success(let p) = Profile.parse(Self.text, file: "phone.profile") else {
            return XCTFail("no profile")
        }
        var s = Session(p)
        s.type("o")  // offline: held
        s.type("t")
        s.wait(1000)
        XCTAssertEqual(s.states("purchase"), ["queued"])
        s.type("o")  // online: iOS resends
        s.wait(100)
        s.type("B")
        XCTAssertTrue(s.model.sim.inBackground)
        XCTAssertTrue(s.screen().lines.prefix(2).joined().contains("app in background"), s.screen().lines[0])
        s.type("t")  // made in the background: on the wire until the limit
        s.wait(10_000)
        s.type("B")
        XCTAssertFalse(s.model.sim.inBackground)
        s.wait(60_000)
        XCTAssertEqual(
            s.model.recorded.filter { $0.contains("ground") }, ["at 1.1s background", "at 11.1s foreground"])
        let logs = s.model.sim.journal.compactMap { e -> String? in
            guard case .log(let l) = e, l.rule.map({ p.id(of: $0) })?.hasPrefix("PH") == true else { return nil }
            return "\(l.time) \(l.text)"
        }
        XCTAssertEqual(
            logs,
            [
                "1100 app went to the background", "1100 on background: flush, sending 0 queued",
                "11100 app came to the foreground",
            ])
        // The help lists the key on this profile.
        XCTAssertTrue(
            KeyMap.helpLines(profiles: [p]).contains {
                $0.keys == "B"
                    && $0.help == "the app to the background, or back to the foreground (:background, :foreground)"
            })
    }

    func test_B_onAProfileWithoutTheLifecycle_saysSoAndDoesNothing() {
        var s = Session(.ios)
        s.type("B")
        XCTAssertEqual(
            s.model.message?.text, "`B` needs the app lifecycle; ios has none (? lists the keys here)")
        XCTAssertFalse(s.model.sim.inBackground)
        XCTAssertFalse(s.model.recorded.contains { $0.contains("background") })
        let notHere = KeyMap.helpLines(profiles: [.ios]).first { $0.keys == "not here" }?.help ?? ""
        XCTAssertTrue(notHere.hasPrefix("c g B: ios has no consent gate, getInstance(), app lifecycle"), notHere)
    }

    /// A profile's own call on a key a fixed key holds (here `B`) has no key; the
    /// status bar, which offers the first call's key, leaves it out (it crashed
    /// reading a key the call did not get); `:WORD` still runs it.
    func test_aCallOnAFixedKey_hasNoKey_andTheScreenDraws() {
        let text = """
            profile shadowed
            base linktrail
            call capture NAME makes error key B crash "captureException(): an error envelope"
            """
        guard case .success(let p) = Profile.parse(text, file: "shadowed.profile") else {
            return XCTFail("no profile")
        }
        var s = Session(p)
        XCTAssertFalse(s.screen().lines.joined().contains("capture"), s.screen().lines.joined(separator: "\n"))
        s.command("consent grant")
        s.command("capture boom")
        s.wait(1000)
        XCTAssertEqual(s.states("boom"), ["delivered"])
        s.type("B")
        XCTAssertEqual(
            s.model.message?.text, "`B` needs the app lifecycle; shadowed has none (? lists the keys here)")
    }
}
