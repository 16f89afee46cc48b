import OutboxTestSupport
import XCTest

@testable import OutboxCore
@testable import OutboxUI

/// The live screen chooses the purge banner and the log's colours from what a
/// log line reports (`LogLine.event`, its source), never from its words (issue
/// 13, part 2): the same session with every log text reworded shows the same
/// banner and the same colours, cell for cell; only the words differ.
final class LogEventRolesTests: XCTestCase {
    /// ROT13 on ASCII letters: the same length, so every cell keeps its place,
    /// and no word left as it was (`[WARNING]` becomes `[JNEAVAT]`, `consent
    /// denied: purged` becomes `pbafrag qravrq: chetrq`).
    func rot13(_ s: String) -> String {
        String(
            String.UnicodeScalarView(
                s.unicodeScalars.map { u in
                    switch u.value {
                    case 65...90: return Unicode.Scalar((u.value - 65 + 13) % 26 + 65)!
                    case 97...122: return Unicode.Scalar((u.value - 97 + 13) % 26 + 97)!
                    default: return u
                    }
                }))
    }

    /// Rewrites the text of every log line from `start` on; kind, facts, request,
    /// rule, source and time stay.
    func reword(_ m: inout AppModel, from start: Int = 0) {
        for i in start..<m.sim.journal.count {
            guard case .log(let l) = m.sim.journal[i] else { continue }
            m.sim.journal[i] = .log(
                LogLine(
                    time: l.time, source: l.source, text: rot13(l.text), request: l.request, rule: l.rule,
                    event: l.event))
        }
    }

    /// LinkTrail with consent granted: a purchase rejected (onError and a warning),
    /// one kept after three 503s, one retrying, one on the wire; then consent is
    /// denied, which purges them (the banner). `reworded`: every log line's text
    /// is rewritten before the banner is chosen.
    func session(reworded: Bool) -> Session {
        var s = Session(.linktrail, settings: [("latency", "400ms")], width: 120, height: 40)
        s.type("c")  // grant
        s.wait(1000)
        s.command("server 422 x1")
        s.type("t")
        s.wait(1000)  // rejected: onError and a warning (LT-6)
        s.type("xda")  // backend: 503 always
        s.type("t")
        s.wait(7000)  // three attempts fail: queued (LT-5)
        s.type("t")
        s.wait(500)
        s.type("t")
        s.wait(100)
        let before = s.model.sim.journal.count
        s.type("c")  // deny: the purge
        if reworded {
            // The banner again, chosen from the reworded lines alone.
            s.model.banner = nil
            reword(&s.model)
            let sim = s.model.sim
            s.model.purgeBanner(sim, from: before)
        }
        return s
    }

    func test_rewordedLogText_sameBannerAndColours() {
        let plain = session(reworded: false), reworded = session(reworded: true)
        let purge = "consent denied: purged 1 from the queue · 1 in flight · 1 retrying (LT-2)"
        XCTAssertEqual(plain.model.banner?.text, purge)
        XCTAssertEqual(reworded.model.banner?.text, rot13(purge), "the banner's words are the line's words")
        XCTAssertEqual(reworded.model.banner?.until, plain.model.banner?.until)

        for (w, h) in [(120, 40), (80, 24)] {
            let a = plain.screen(w, h), b = reworded.screen(w, h)
            XCTAssertNotEqual(a.text, b.text)
            XCTAssertFalse(b.text.contains("consent denied"), b.text)
            XCTAssertEqual(a.roleLayer(allRoles), b.roleLayer(allRoles), "\(w)×\(h)\n" + b.text)
            XCTAssertEqual(a.cells.map(\.role), b.cells.map(\.role))
            // The banner is there in both, and the purge line stands out in the log.
            XCTAssertTrue(b.cells.contains { $0.role == .banner })
            XCTAssertEqual(role(b, at: rot13("consent denied: purged"), after: 1), .logWarning, b.text)
            XCTAssertEqual(role(a, at: "consent denied: purged", after: 1), .logWarning, a.text)
        }
        // The warning (LT-6) is in the 120×40 log: the same colour, its words gone.
        let a = plain.screen(), b = reworded.screen()
        XCTAssertEqual(role(a, at: "[WARNING]"), .logWarning, a.text)
        XCTAssertEqual(role(b, at: "[JNEAVAT]"), .logWarning, b.text)
        XCTAssertEqual(role(b, at: "baReebe: 'chepunfr' erwrpgrq (422)"), .logError, b.text)
        XCTAssertEqual(role(b, at: "[YvaxGenvy] frgPbafrag(snyfr)"), .logSDK, b.text)
        XCTAssertEqual(role(b, at: "onpxraq jvyy nafjre"), .logOutbox, b.text)
    }

    /// The log of one request (`l`) finds a line by its facts: the flush its
    /// success started names it though the words do not.
    func test_logOfOneRequest_byFacts() {
        let l = LogLine(
            time: 0, source: .sdk, text: "flush started", rule: .lt8, event: .flushStarted(.success(4), queued: 1))
        XCTAssertTrue(AppModel.logLine(l, isAbout: 4))
        XCTAssertFalse(AppModel.logLine(l, isAbout: 40))
        let ended = LogLine(
            time: 0, source: .sdk, text: "", event: .flushEnded(.failed(.http(503), request: 40), sent: 1, left: 0))
        XCTAssertTrue(AppModel.logLine(ended, isAbout: 40))
        XCTAssertFalse(AppModel.logLine(ended, isAbout: 4))
    }

    /// The role of the cell where `text` starts in its `after`-th row holding it (0: the first).
    func role(_ buf: ScreenBuffer, at text: String, after: Int = 0) -> Role? {
        var seen = 0
        for (y, row) in buf.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard let r = row.range(of: text) else { continue }
            if seen < after {
                seen += 1
                continue
            }
            return buf[row.distance(from: row.startIndex, to: r.lowerBound), y].role
        }
        return nil
    }

    /// A letter for every role the log and the banner use.
    let allRoles: [Role: Character] = roleLegend.merging(
        [.logSDK: "s", .logCompletion: "c", .logBackend: "b", .logOutbox: "o", .dim: "m"],
        uniquingKeysWith: { a, _ in a })
}
