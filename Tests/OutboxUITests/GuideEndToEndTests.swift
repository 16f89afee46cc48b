import Foundation
import OutboxTestSupport
import XCTest

/// docs/guide.md's uses in the real program, in a real terminal at 80×24: the
/// keys of each use (`GuideUse.all`) typed at 0.7 s a key, no other key and no
/// other wait, reach the screens the guide shows (issue 12, "Done when"). The
/// screens are compared on what does not depend on when the program started:
/// the request rows, the purge banner, why the clock is paused.
extension EndToEndTests {
    func playGuideUse(_ name: String, file: StaticString = #filePath, line: UInt = #line) {
        let use = GuideUse.all.first { $0.name == name }!
        let options = use.options.replacingOccurrences(of: "examples/", with: packageRoot + "/examples/")
        XCTAssertTrue(
            start("cd \(work) && " + outbox(options) + "; " + Self.afterExit, width: 80, height: 24), file: file,
            line: line)
        guard waitFor("OUTBOX", file: file, line: line) else { return }
        for (i, k) in use.keys.enumerated() {
            switch k {
            case "Space", "Enter": keys(k)
            case _ where k.hasPrefix(":") && k.count > 1: keys(":", String(k.dropFirst()), "Enter")
            default: keys(k)
            }
            usleep(UInt32(GuideUse.pace) * 1000)
            guard use.shots.contains(i + 1) else { continue }
            let snapshot = packageRoot + "/Tests/OutboxUITests/Snapshots/\(use.snapshot(i + 1)).txt"
            guard let expected = try? String(contentsOfFile: snapshot, encoding: .utf8) else {
                XCTFail("no snapshot \(snapshot): run GuideTests first", file: file, line: line)
                return
            }
            let seen = screen()
            XCTAssertEqual(
                guideEssentials(seen, compare: use.compare), guideEssentials(expected, compare: use.compare),
                "\(name), after key \(i + 1) (`\(k)`):\n\(seen)", file: file, line: line)
        }
        keys("q")
        XCTAssertTrue(waitFor("EXIT=0 icanon", file: file, line: line), file: file, line: line)
    }

    func test_guide_ladder_atAPersonsPace() { playGuideUse("ladder") }
    func test_guide_offline_atAPersonsPace() { playGuideUse("offline") }
    func test_guide_purge_atAPersonsPace() { playGuideUse("purge") }
    func test_guide_compare_atAPersonsPace() { playGuideUse("compare") }
    func test_guide_play_atAPersonsPace() { playGuideUse("play") }
}
