import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

/// What a user did in the UI, replayed by `outbox run`, gives the same timeline.
final class RecordingTests: XCTestCase {
    func test_recordedSession_replaysToTheSameTimeline() {
        for profile in Profile.seeds {
            var s = Session(profile)
            let keys: [String] =
                profile == .linktrail
                ? ["c", "t", "xd3", "t", "o", "t", "o", "T", "L", "t"]
                : ["t", "p", "xd3", "s", "o", "r", "o", "n", "L", "u", profile == .android ? "g" : "t"]
            for (i, k) in keys.enumerated() {
                s.type(k)
                s.wait(Millis(137 * (i + 1) + 900))
            }
            s.command("track \"big order\" value=12.5 currency=EUR note=\"two words\"")
            s.wait(5000)
            let uiEnd = s.model.sim.now
            let text = "profile \(profile.rawValue)\n" + s.model.recorded.joined(separator: "\n") + "\n"
            guard case .success(let sc) = Scenario.parse(text, file: "rec.outbox") else {
                return XCTFail("the recording does not parse:\n" + text)
            }
            var runner = ScenarioRunner(sc)
            runner.run()
            let ui = journalLines(s.model.sim, format: .jsonl, upTo: uiEnd)
            let replay = journalLines(runner.sim, format: .jsonl, upTo: uiEnd)
            XCTAssertGreaterThan(ui.count, 20)
            XCTAssertEqual(ui, replay, "\(profile.rawValue): replay differs\n" + text)
        }
    }
}
