import Foundation
import OutboxTestSupport
import XCTest

/// `outbox serve`'s live screen in a real terminal (tmux, 80×24): the address
/// read from the screen, curl's request seen as a row, an answer chosen by key,
/// the network taken offline, `q`: the terminal restored and the report printed.
extension EndToEndTests {
    /// Keys one at a time, as a person types them (about 0.7 s apart).
    func slowKeys(_ k: String...) {
        for key in k {
            keys(key)
            usleep(700_000)
        }
    }

    func test_serveLiveScreen_curlSeen_answerChosenByKey_offline_quitPrintsTheReport() throws {
        XCTAssertEqual(sh("command -v tmux").0, 0, "tmux is needed (.ci/run installs it)")
        XCTAssertEqual(sh("command -v curl").0, 0, "curl is needed")
        XCTAssertTrue(start(outbox("serve --listen 127.0.0.1:0") + "; " + Self.afterExit, width: 80, height: 24))
        guard waitFor("OUTBOX serve") else { return }
        guard let range = screen().range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) else {
            return XCTFail("no address on screen:\n" + screen())
        }
        let address = String(screen()[range])
        let body = #"{"batch":[{"type":"track","event":"signup","messageId":"m-1"}]}"#
        let post = "curl -s -o /dev/null -w '%{http_code}' --max-time 5 -d '\(body)' \(address)/v1/batch"
        XCTAssertEqual(sh(post).1, "200")
        guard waitFor("m-1       signup") else { return }
        // x, 5 (503: d), once: the next request is answered 503.
        slowKeys("x", "d", "1")
        guard waitFor("backend 503") else { return }
        XCTAssertEqual(sh(post).1, "503")
        guard waitFor("signup #2  → 503") else { return }
        XCTAssertTrue(
            screen().contains("m-1       signup                                  segment   2   503"), screen())
        // o: offline, connections refused (curl exit 7); o again: online.
        slowKeys("o")
        guard waitFor("net — offline") else { return }
        XCTAssertEqual(sh(post).0, 7, "refused while offline")
        slowKeys("o")
        guard waitFor("net ● online") else { return }
        slowKeys("q")
        guard waitFor("EXIT=0 icanon") else { return }
        let after = screen()
        XCTAssertTrue(after.contains("serve: 2 requests (0 unrecognised), 1 event"), after)
        XCTAssertTrue(after.contains("(quit on the live screen)"), after)
        XCTAssertTrue(after.contains("signup  m-1  segment  2 attempts, answered 2xx"), after)
    }
}
