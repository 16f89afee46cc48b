import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// Log lines carry what they report as data (`LogLine.event`), beside their
/// words: each kind is emitted where the model logs it, with its facts, whatever
/// the text says. Whole histories, in the rule tests' style: every log line of
/// a run, in order.
final class LogEventTests: XCTestCase {
    /// Every log line of a played scenario: its time, its event, and the request
    /// and rule it cites.
    func logged(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [Logged] {
        guard let sim = play(text, file: file, line: line)?.sim else { return [] }
        return sim.journal.compactMap { e in
            guard case .log(let l) = e else { return nil }
            return Logged(l.time, l.event, l.request, l.rule)
        }
    }

    typealias L = Logged

    struct Logged: Equatable, CustomStringConvertible {
        let time: Millis
        let event: LogEvent
        let request: Int32
        let rule: RuleID?
        init(_ time: Millis, _ event: LogEvent, _ request: Int32 = -1, _ rule: RuleID? = nil) {
            (self.time, self.event, self.request, self.rule) = (time, event, request, rule)
        }
        var description: String { "\(time) \(event) #\(request) \(rule?.id ?? "-")" }
    }

    func assertLogged(_ actual: [Logged], _ expected: [Logged], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(
            actual, expected, "\n" + actual.map(\.description).joined(separator: "\n"), file: file, line: line)
    }

    /// Consent: a rejection's onError and warning, an exhausted request kept, the
    /// network asked twice, a flush started by a success, the purge with its counts,
    /// an event dropped at the gate, the quit.
    func test_linkTrail_consentAndWarnings() {
        let logs = logged(
            """
            profile linktrail
            set requireConsent false
            at 0 launch
            at 1s server 422 x1
            at 1s track rejected
            at 2s server 503 always
            at 2s track failing
            at 10s network offline
            at 11s network offline
            at 12s network online
            at 13s server ok
            at 13s track ok
            at 20s server 503 always
            at 20s track a
            at 20.1s consent deny
            at 21s track b
            at 22s quit
            expect at 22s saved 0
            """)
        assertLogged(
            logs,
            [
                L(0, .appLaunched(launch: 1)),
                L(0, .configured(consent: .undecided, required: false)),
                L(0, .flushNothingQueued(.launch), -1, .lt8),
                L(200, .flushNothingQueued(.success(1)), -1, .lt8),
                L(1000, .plan, -1, .ans),
                L(1200, .onError(attempts: 1, outcome: .http(422), kept: false), 2, .lt6),
                L(1200, .warning(outcome: .http(422)), 2, .lt6),
                L(2000, .plan, -1, .ans),
                L(8600, .onError(attempts: 3, outcome: .http(503), kept: true), 3, .lt5),
                L(10000, .network(online: false), -1, .net),
                L(11000, .networkUnchanged(online: false)),
                L(12000, .network(online: true), -1, .net),
                L(12000, .resendWaits(count: 1, for: .flush), -1, .lt8),
                L(13000, .plan, -1, .ans),
                L(13200, .flushStarted(.success(4), queued: 1), -1, .lt8),
                L(13400, .flushEnded(.queueEmpty, sent: 1, left: 0), -1, .lt11),
                L(20000, .plan, -1, .ans),
                L(20100, .consentSet(.denied), -1, .lt1),
                L(20100, .purged(saved: 0, inFlight: 1, retrying: 0), -1, .lt2),
                L(21000, .consentDrop(.denied), 6, .lt1),
                L(22000, .appClosing),
                L(22000, .appClosed(saved: 0)),
            ])
    }

    /// The flush: started by consent, one more pass asked for while it runs (LT-9),
    /// ended by a failure and by an empty queue; the backend's lost answer, partial
    /// accept and duplicate; a relaunch's flush.
    func test_linkTrail_flushAndBackend() {
        let logs = logged(
            """
            profile linktrail
            set requireConsent false
            set retry.attempts 1
            at 0 launch
            at 1s network offline
            at 1s track a
            at 1s track b
            at 2s network online
            at 3s server 503
            at 3s consent grant
            at 3.1s consent grant
            at 4s server lost
            at 4s track c
            at 5s server partial
            at 5s track d k=v k2=v
            at 20s set requireConsent true
            at 20s server 503 always
            at 20s track e
            at 21s quit
            at 22s launch
            at 23s server ok
            at 23s track f
            expect at 24s saved 0
            """)
        assertLogged(
            logs,
            [
                L(0, .appLaunched(launch: 1)),
                L(0, .configured(consent: .undecided, required: false)),
                L(0, .flushNothingQueued(.launch), -1, .lt8),
                L(200, .flushNothingQueued(.success(1)), -1, .lt8),
                L(1000, .network(online: false), -1, .net),
                L(1000, .onError(attempts: 1, outcome: .offline, kept: true), 2, .lt5),
                L(1000, .onError(attempts: 1, outcome: .offline, kept: true), 3, .lt5),
                L(2000, .network(online: true), -1, .net),
                L(2000, .resendWaits(count: 2, for: .flush), -1, .lt8),
                L(3000, .plan, -1, .ans),
                L(3000, .consentSet(.granted), -1, .lt1),
                L(3000, .flushStarted(.consentGranted, queued: 2), -1, .lt8),
                L(3100, .consentSet(.granted), -1, .lt1),
                L(3100, .flushMorePass(.consentGranted), -1, .lt9),
                L(3200, .flushEnded(.failed(.http(503), request: 2), sent: 1, left: 2), -1, .lt11),
                L(3200, .flushStarted(.deferred, queued: 2), -1, .lt8),
                L(3600, .flushEnded(.queueEmpty, sent: 2, left: 0), -1, .lt11),
                L(4000, .plan, -1, .ans),
                L(4100, .backendAnswerLost, 4, .lost),
                L(5000, .plan, -1, .ans),
                L(5100, .backendPartial(droppedAttributes: 2), 5, .backend),
                L(5200, .flushNothingQueued(.success(5)), -1, .lt8),
                L(14000, .onError(attempts: 1, outcome: .timeout, kept: true), 4, .lt5),
                L(20000, .setting),
                L(20000, .plan, -1, .ans),
                L(20200, .onError(attempts: 1, outcome: .http(503), kept: true), 6, .lt5),
                L(21000, .appClosing),
                L(21000, .appClosed(saved: 2)),
                L(22000, .appLaunched(launch: 2)),
                L(22000, .configured(consent: .granted, required: true)),
                L(22000, .flushStarted(.launch, queued: 2), -1, .lt8),
                L(22200, .flushEnded(.failed(.http(503), request: 4), sent: 1, left: 2), -1, .lt11),
                L(23000, .plan, -1, .ans),
                L(23200, .flushStarted(.success(7), queued: 2), -1, .lt8),
                L(23300, .backendDuplicate, 4, .lt7),
                L(23600, .flushEnded(.queueEmpty, sent: 2, left: 0), -1, .lt11),
            ])
    }

    /// iOS: quit and relaunch offline (the saved wait), the network back (they go
    /// out; their completion handlers were lost with the quit), completions,
    /// logout, a launch that sends what was saved.
    func test_iOS_resendsAndCompletions() {
        let logs = logged(
            """
            profile ios
            at 0 launch
            at 1s server 503 always
            at 1s track a
            at 2s track b
            at 2.1s quit
            at 3s network offline
            at 3s launch
            at 4s server ok
            at 4s network online
            at 5s server 400
            at 5s track c
            at 6s server ok
            at 6s track d
            at 7s logout
            at 9s server 503 always
            at 9s track e
            at 9.1s quit
            at 10s server ok
            at 10s launch
            expect at 11s saved 0
            """)
        assertLogged(
            logs,
            [
                L(0, .appLaunched(launch: 1)),
                L(1000, .plan, -1, .ans),
                L(2100, .appClosing),
                L(2100, .appClosed(saved: 2)),
                L(3000, .network(online: false), -1, .net),
                L(3000, .appLaunched(launch: 2)),
                L(3000, .resendWaits(count: 2, for: .networkBack), -1, .ios5),
                L(4000, .plan, -1, .ans),
                L(4000, .network(online: true), -1, .net),
                L(4000, .resend(count: 2, trigger: .networkBack), -1, .ios5),
                L(4200, .completionLost, 1, .ios6),
                L(4200, .completionLost, 2, .ios6),
                L(5000, .plan, -1, .ans),
                L(5200, .completion(.failure), 3, .ios3),
                L(6000, .plan, -1, .ans),
                L(6200, .completion(.success), 4, .ios3),
                L(7000, .call),
                L(9000, .plan, -1, .ans),
                L(9100, .appClosing),
                L(9100, .appClosed(saved: 1)),
                L(10000, .plan, -1, .ans),
                L(10000, .appLaunched(launch: 3)),
                L(10000, .resend(count: 1, trigger: .launch), -1, .ios6),
                L(10200, .completionLost, 8, .ios6),
            ])
    }

    /// Android: getInstance() at launch and called; the network back waits for it.
    func test_android_getInstance() {
        let logs = logged(
            """
            profile android
            at 0 launch
            at 1s server 503 always
            at 1s track a
            at 2s network offline
            at 2s network online
            at 3s server ok
            at 3s getinstance
            at 4s server 503 always
            at 4s track b
            at 5s quit
            at 6s server ok
            at 6s launch
            expect at 7s saved 0
            """)
        assertLogged(
            logs,
            [
                L(0, .appLaunched(launch: 1)),
                L(0, .resend(count: 0, trigger: .launch), -1, .and3),
                L(1000, .plan, -1, .ans),
                L(2000, .network(online: false), -1, .net),
                L(2000, .network(online: true), -1, .net),
                L(2000, .resendWaits(count: 1, for: .getInstance), -1, .and3),
                L(3000, .plan, -1, .ans),
                L(3000, .resend(count: 1, trigger: .getInstance), -1, .and3),
                L(4000, .plan, -1, .ans),
                L(5000, .appClosing),
                L(5000, .appClosed(saved: 1)),
                L(6000, .plan, -1, .ans),
                L(6000, .appLaunched(launch: 2)),
                L(6000, .resend(count: 1, trigger: .launch), -1, .and3),
            ])
    }

    /// Flutter: the network back waits for the next launch, which resends.
    func test_flutter_launchResends() {
        let logs = logged(
            """
            profile flutter
            at 0 launch
            at 1s network offline
            at 1s track a
            at 2s network online
            at 3s quit
            at 4s launch
            expect at 5s saved 0
            """)
        assertLogged(
            logs,
            [
                L(0, .appLaunched(launch: 1)),
                L(1000, .network(online: false), -1, .net),
                L(2000, .network(online: true), -1, .net),
                L(2000, .resendWaits(count: 1, for: .launch), -1, .fl4),
                L(3000, .appClosing),
                L(3000, .appClosed(saved: 1)),
                L(4000, .appLaunched(launch: 2)),
                L(4000, .resend(count: 1, trigger: .launch), -1, .fl4),
            ])
    }

    /// The words are not the facts: a line's event does not depend on its text,
    /// and a request a flush line names is found by its facts.
    func test_otherRequest_namesTheFlushRequest() {
        XCTAssertEqual(LogEvent.flushStarted(.success(7), queued: 2).otherRequest, 7)
        XCTAssertEqual(LogEvent.flushMorePass(.success(7)).otherRequest, 7)
        XCTAssertEqual(LogEvent.flushEnded(.failed(.http(503), request: 7), sent: 1, left: 1).otherRequest, 7)
        XCTAssertEqual(LogEvent.storeRowRemoved(request: 7, state: .delivered).otherRequest, 7)
        XCTAssertEqual(LogEvent.flushStarted(.launch, queued: 2).otherRequest, -1)
        XCTAssertEqual(LogEvent.purged(saved: 1, inFlight: 0, retrying: 0).otherRequest, -1)
    }

    /// A log line costs a journal entry no more than before it carried its event:
    /// the journal of a long live session is mostly these.
    func test_sizes_journalEntryStays40Bytes() {
        XCTAssertEqual(MemoryLayout<LogEvent>.size, 8)
        XCTAssertEqual(MemoryLayout<LogLine>.stride, 40)
        XCTAssertEqual(MemoryLayout<JournalEntry>.stride, 40)
    }
}
