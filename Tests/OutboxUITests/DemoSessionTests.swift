import OutboxTestSupport
import XCTest
@testable import OutboxCore
@testable import OutboxUI

/// Each demo performed with keys alone, checked on the model and on the screen.
final class DemoSessionTests: XCTestCase {
    /// The consent purge: one key drops the queue, the request on the wire and the retries.
    func test_consentPurge_withKeysAlone() {
        var s = Session(.linktrail, settings: [("latency", "400ms")])
        s.type("c")  // grant: the install goes out
        s.wait(1000)
        XCTAssertEqual(s.states("install"), ["delivered"])
        s.type("xda")  // backend: 503 always
        s.type("t")
        s.wait(7000)  // three attempts fail: queued (LT-5)
        s.type("t")
        s.wait(500)  // second purchase retrying
        s.type("t")
        s.wait(100)  // third one on the wire
        XCTAssertEqual(s.states("purchase"), ["queued", "retrying", "in-flight"])
        s.type("c")  // deny
        XCTAssertEqual(s.states("purchase"), ["dropped", "dropped", "dropped"])
        XCTAssertEqual(s.model.sim.savedCount, 0)
        let screen = s.screen()
        // The banner takes the tabs' row; the device's new saved count stays at its end.
        let bannerRow = screen.lines[2]
        XCTAssertTrue(bannerRow.hasPrefix(" consent denied: purged 1 from the queue · 1 in flight · 1 retrying"), bannerRow)
        XCTAssertTrue(bannerRow.hasSuffix("  saved 0 "), bannerRow)
        assertSnapshot(screen.text, "purge-80x24")
        assertSnapshot(screen.roleLayer(roleLegend), "purge-80x24.roles")
        let big = s.screen(120, 40)
        assertSnapshot(big.text, "purge-120x40")
        // The banner goes after a while; the rows keep their reason.
        XCTAssertTrue(screen.cells.contains { $0.role == .banner })
        s.wait(6000)
        XCTAssertFalse(s.screen().cells.contains { $0.role == .banner }, "the banner stays too long")
        XCTAssertEqual(s.screen().text.components(separatedBy: "consent   LT-2").count - 1, 3, s.screen().text)
    }

    /// Offline QA: going offline fails attempts at once; coming back does not flush; the next send does.
    func test_offlineAndBack_withKeysAlone() {
        var s = Session(.linktrail)
        s.type("c")
        s.wait(500)
        s.type("o")  // offline
        XCTAssertTrue(s.screen().text.contains("offline"))
        s.type("t")
        s.wait(7000)  // 0s, 2s, 6s: three attempts, queued
        XCTAssertEqual(s.states("purchase"), ["queued"])
        XCTAssertEqual(s.model.sim.request(s.model.sim.requests(named: "purchase")[0]).attempts, 3)
        s.type("o")  // online again: LT-8 says this is no trigger
        s.wait(5000)
        XCTAssertEqual(s.states("purchase"), ["queued"])
        assertSnapshot(s.screen().text, "offline-back-80x24")
        s.type("t")  // a successful send flushes the queue
        s.wait(1000)
        XCTAssertEqual(s.states("purchase"), ["delivered", "delivered"])
        // The timeline marks the offline stretch differently from failed attempts.
        let text = s.screen(120, 40).text
        XCTAssertTrue(text.contains("░"), text)
        XCTAssertTrue(text.contains("✗"), text)
    }

    /// The iOS ladder: 30 s, 90 s, 210 s, then exhausted with completion false.
    func test_iosLadder_withKeysAlone() {
        var s = Session(.ios, width: 120, height: 40)
        s.type("xda")
        s.type("t")
        for _ in 0..<20 where s.model.sim.nextDueTime() != nil { s.type(".") }  // jump from moment to moment
        let id = s.model.sim.requests(named: "purchase")[0]
        let h = s.model.sim.history(of: id).filter { $0.to == .inFlight }.map(\.time)
        XCTAssertEqual(h.map { $0 - h[0] }, [0, 30_200, 90_400, 210_600])
        XCTAssertEqual(s.states("purchase"), ["dropped"])
        XCTAssertEqual(s.model.sim.request(id).reason, .exhausted)
        XCTAssertEqual(s.model.sim.request(id).completion, .failure)
        let text = s.screen().text
        XCTAssertTrue(text.contains("exhausted"), text)
        XCTAssertTrue(text.contains("completion(#1 'purchase'): false"), text)
        assertSnapshot(text, "ios-ladder-120x40")
    }

    /// The Android 403 loop: kept, resent on every getInstance, blocked again.
    func test_android403Loop_withKeysAlone() {
        var s = Session(.android)
        s.type("xga")  // 403 always
        s.type("t")
        s.wait(300)
        s.type("g")
        s.wait(300)
        s.type("g")
        s.wait(300)
        let id = s.model.sim.requests(named: "purchase")[0]
        XCTAssertEqual(s.model.sim.request(id).attempts, 3)
        XCTAssertEqual(s.states("purchase"), ["queued"])
        XCTAssertEqual(s.model.sim.request(id).rule, .and4)
        s.type("p")  // a ping is not saved
        s.wait(300)
        XCTAssertEqual(s.states("ping"), ["dropped"])
        assertSnapshot(s.screen().text, "android-403-80x24")
    }
}
