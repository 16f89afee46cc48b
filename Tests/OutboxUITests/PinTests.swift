import XCTest
@testable import OutboxCore
@testable import OutboxUI

/// `E`: the live screen's state pinned as `expect` lines in the recording
/// (issue 15, item 2); `outbox run` on the recording passes.
final class PinTests: XCTestCase {
    /// The recording as `--record` writes it, and the run of it.
    func replay(_ m: AppModel) throws -> (text: String, runner: ScenarioRunner) {
        let text = m.recording(seed: 1, version: "test", path: "rec.outbox")
        var r = ScenarioRunner(try Scenario.parse(text, file: "rec.outbox").get())
        r.run()
        return (text, r)
    }

    func test_explore() throws {
        var s = Session(.ios)
        s.model.isRecording = true
        s.type("t")
        s.wait(100)
        s.type("xd3t")
        s.wait(250)
        s.type("o")
        s.type("tp")
        s.wait(1000)
        s.type("E")
        print(s.model.message!)
        let (text, r) = try replay(s.model)
        print(text)
        print(r.checkCount, r.failures)
    }
}
