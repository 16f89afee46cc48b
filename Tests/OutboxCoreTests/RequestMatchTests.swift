import OutboxTestSupport
import XCTest

@testable import OutboxCore

final class RequestMatchTests: XCTestCase {
    func sim(_ p: Profile, _ actions: [(Millis, Action)], until end: Millis) -> Simulation {
        var s = Simulation(profile: p)
        for (t, a) in actions {
            s.advance(to: t)
            XCTAssertNil(s.apply(a), "\(a) on \(p)")
            s.settle()
        }
        s.advance(to: end)
        return s
    }

    /// Rows by name and place among that name's requests, in creation order; a
    /// request only one run made has nil elsewhere; states that differ are marked.
    func test_matchesByNameAndOccurrenceInCreationOrder() {
        let story: [(Millis, Action)] = [
            (0, .appLaunched), (1000, .serverPlanned(.status(403), .always)),
            (2000, .eventTracked(TrackedEvent(name: "buy"))), (3000, .pingSent),
            (4000, .eventTracked(TrackedEvent(name: "buy"))),
        ]
        let ios = sim(.ios, story, until: 10_000)
        let android = sim(.android, story, until: 10_000)
        let m = RequestMatch([ios, android])
        XCTAssertEqual(m.rows.map { "\($0.name)#\($0.occurrence)" }, ["buy#1", "ping#1", "buy#2"])
        for row in m.rows {
            XCTAssertEqual(row.ids.compactMap { $0 }.count, 2, row.name)
            for (run, id) in row.ids.enumerated() {
                XCTAssertEqual([ios, android][run].name(of: id!), row.name)
                XCTAssertEqual(m.row(ofRun: run, id: id!), m.rows.firstIndex(of: row))
            }
        }
        // iOS drops a 403 (IOS-3); Android keeps it (AND-2).
        XCTAssertTrue(m.rows[0].differs(in: [ios, android]))
        XCTAssertEqual(ios.request(m.rows[0].ids[0]!).state, .dropped)
        XCTAssertNotEqual(android.request(m.rows[0].ids[1]!).state, .dropped)
    }

    /// LinkTrail's install has no counterpart; updates are incremental and give
    /// the same rows as matching all at once.
    func test_requestOnlyOneRunMade_andIncrementalUpdateEqualsWhole() {
        var lt = Simulation(profile: .linktrail)
        var fl = Simulation(profile: .flutter)
        var m = RequestMatch(runs: 2)
        for s in [0, 1] {
            if s == 0 { _ = lt.apply(.appLaunched); lt.settle() } else { _ = fl.apply(.appLaunched); fl.settle() }
        }
        m.update([lt, fl])
        lt.advance(to: 500)
        fl.advance(to: 500)
        _ = lt.apply(.eventTracked(TrackedEvent(name: "open")))
        _ = fl.apply(.eventTracked(TrackedEvent(name: "open")))
        lt.settle()
        fl.settle()
        m.update([lt, fl])
        m.update([lt, fl])
        let whole = RequestMatch([lt, fl])
        XCTAssertEqual(m.rows, whole.rows)
        XCTAssertEqual(m.rows.map(\.name), ["install", "open"])
        XCTAssertNotNil(m.rows[0].ids[0])
        XCTAssertNil(m.rows[0].ids[1])
        XCTAssertTrue(m.rows[0].differs(in: [lt, fl]))
        XCTAssertNil(m.row(ofRun: 1, id: 99))
    }
}
