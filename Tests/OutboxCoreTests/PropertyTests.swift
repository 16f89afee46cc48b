import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// Seeded random action sequences with the model's invariants checked after every step.
final class PropertyTests: XCTestCase {
    /// Steps per profile, split over several seeded sequences so each stays small enough
    /// to check exhaustively after every step.
    static let sequences = 20
    static let stepsPerSequence = 500

    func test_linktrail_invariantsHoldOverRandomSteps() { runProfile(.linktrail) }
    func test_ios_invariantsHoldOverRandomSteps() { runProfile(.ios) }
    func test_android_invariantsHoldOverRandomSteps() { runProfile(.android) }
    func test_flutter_invariantsHoldOverRandomSteps() { runProfile(.flutter) }

    /// ThreadSanitizer looks for races between threads; these sequences run on
    /// one thread in the pure core, so under it they only cost CI time (90 s).
    /// AddressSanitizer keeps them: the core's storage is raw memory.
    override func setUpWithError() throws {
        try XCTSkipIf(
            ProcessInfo.processInfo.environment["OUTBOX_SANITIZER"] == "thread",
            "single-threaded: nothing for ThreadSanitizer to find")
    }

    func runProfile(_ profile: Profile) {
        var steps = 0
        var rulesSeen = Set<RuleID>(), statesSeen = Set<RequestState>(), reasonsSeen = Set<DropReason>()
        for seq in 0..<Self.sequences {
            var rng = SplitMix64(seed: UInt64(seq) &* 7919 &+ UInt64(Profile.allCases.firstIndex(of: profile)!))
            var fuzz = Fuzzer(profile: profile, rng: rng)
            for _ in 0..<Self.stepsPerSequence {
                let did = fuzz.step()
                steps += 1
                let problems = fuzz.check()
                if !problems.isEmpty {
                    XCTFail(
                        "\(profile.rawValue) seed \(seq) after \(fuzz.trace.count) steps (last: \(did)):\n"
                            + problems.prefix(10).joined(separator: "\n") + "\ntrace:\n"
                            + fuzz.trace.suffix(30).joined(separator: "\n"))
                    return
                }
            }
            rng = fuzz.rng
            for e in fuzz.sim.journal {
                if case .log(let l) = e, let r = l.rule { rulesSeen.insert(r) }
                guard case .transition(let t) = e else { continue }
                rulesSeen.insert(t.rule)
                statesSeen.insert(t.to)
                if let r = t.reason { reasonsSeen.insert(r) }
            }
        }
        XCTAssertGreaterThanOrEqual(steps, 10_000)
        // The walk must reach every state and every drop reason the profile has,
        // or the invariants were checked on too little.
        let states = Set(RequestState.allCases).subtracting(
            profile == .android || profile == .flutter ? [.retrying] : [])
        XCTAssertEqual(statesSeen, states, "states reached")
        let reasons: Set<DropReason> =
            switch profile {
            case .linktrail: [.consent, .rejected]
            case .ios: [.rejected, .exhausted, .notSaved]
            case .android: [.notSaved]
            case .flutter: [.rejected, .notSaved]
            default: []
            }
        XCTAssertEqual(reasonsSeen, reasons, "drop reasons reached")
        let profileRules = Set(RuleID.rules(for: profile).filter { $0.profile == profile })
        let unreached = profileRules.subtracting(rulesSeen).filter { ![.lt7, .lt9, .lt13, .and6, .fl5].contains($0) }
        XCTAssertEqual(unreached.map(\.id).sorted(), [], "profile rules never cited by a transition or log line")
    }

    /// The checker must catch a broken model: corrupt a state behind the model's
    /// back and see it complain.
    func test_invariantChecker_catchesCorruption() {
        var fuzz = Fuzzer(profile: .linktrail, rng: SplitMix64(seed: 3))
        fuzz.sim.apply(.appLaunched)
        fuzz.sim.apply(.consentGranted)
        fuzz.consent = .granted
        fuzz.sim.apply(.eventTracked(TrackedEvent(name: "a")))
        XCTAssertEqual(fuzz.check(), [])
        fuzz.sim.requests[1].state = .delivered  // no transition, counts not updated
        XCTAssertFalse(fuzz.check().isEmpty)

        var f2 = Fuzzer(profile: .ios, rng: SplitMix64(seed: 3))
        f2.sim.apply(.appLaunched)
        f2.sim.apply(.eventTracked(TrackedEvent(name: "a")))
        f2.sim.requests[0].reason = .exhausted  // a live request with a drop reason
        XCTAssertFalse(f2.check().isEmpty)
    }
}

/// Drives one simulation with random actions and checks every invariant.
struct Fuzzer {
    var sim: Simulation
    var rng: SplitMix64
    let store: InMemoryDeviceStore
    var trace: [String] = []
    /// The consent the test believes in, from the actions it made (LT-1: saved across launches).
    var consent: Consent = .undecided
    var journalSeen = 0
    /// Whether the network was on after the last step checked.
    var onlineSeen = true
    var requireConsent: Bool

    init(profile: Profile, rng: SplitMix64) {
        self.rng = rng
        store = InMemoryDeviceStore()
        var settings = Settings(profile: profile)
        var r = rng
        requireConsent = r.next() % 4 != 0
        if profile == .linktrail {
            _ = settings.set("requireConsent", requireConsent ? "true" : "false", profile: profile)
        }
        if r.next() % 3 == 0 {
            _ = settings.set("latency", ["0", "50ms", "1s", "15s"][Int(r.next() % 4)], profile: profile)
        }
        self.rng = r
        sim = Simulation(profile: profile, settings: settings, store: store)
    }

    mutating func pick<T>(_ xs: [T]) -> T { xs[Int(rng.next() % UInt64(xs.count))] }
    mutating func chance(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }

    /// One random step: an action the app can take now, or time passing.
    mutating func step() -> String {
        let p = sim.profile
        var candidates: [Action] = []
        if sim.appRunning {
            candidates.append(
                .eventTracked(
                    TrackedEvent(
                        name: pick(["purchase", "signup", "open", "refund"]),
                        value: chance(30) ? Amount(micros: Int64(rng.next() % 100_000_000)) : nil,
                        currency: chance(30) ? pick(["USD", "EUR"]) : nil,
                        attributes: chance(20) ? [Attribute(key: "k", value: "v")] : [])))
            if p.isUserCom {
                candidates += [
                    .pingSent, .screenViewed("home"), .productViewed("shoe"), .notificationReported("promo"),
                ]
                if chance(20) { candidates.append(.loggedOut) }
            }
            if p == .linktrail { candidates += [.consentGranted, .consentDenied] }
            if p == .android { candidates.append(.getInstanceCalled) }
            if chance(15) { candidates.append(.appQuit) }
        } else {
            candidates.append(.appLaunched)
        }
        candidates.append(sim.online ? .networkWentOffline : .networkWentOnline)
        let answers: [Answer] = [
            .ok, .status(408), .status(429), .status(500), .status(503), .status(400),
            .status(403), .status(404), .status(301), .status(102), .timeout, .lost, .partial,
        ]
        candidates.append(.serverPlanned(pick(answers), chance(10) ? .always : .times(Int(rng.next() % 5) + 1)))
        if chance(5) {
            candidates.append(.setting("timeout", pick(["100ms", "10s", "1s"])))
        }
        // The faults (issue 15): chances, targets, a flapping network, latency jitter.
        let targets: [ServerTarget] = [.all, .name("purchase"), .name("signup"), .kind("ping"), .kind("event")]
        if chance(10) {
            candidates.append(.serverPlanned(pick(answers), .chance(Int(rng.next() % 10_001)), for: pick(targets)))
        }
        if chance(10) {
            candidates.append(.serverPlanned(pick(answers), chance(50) ? .always : .times(2), for: pick(targets)))
        }
        if chance(4) {
            candidates.append(.networkFlapping(up: pick([100, 1000, 7000]), down: pick([100, 250, 5000])))
        }
        if chance(4) { candidates.append(.setting("latency.jitter", pick(["0", "50ms", "300ms"]))) }
        // Time passing is as likely as all actions together.
        if chance(50) {
            let dt: Millis = pick([0, 1, 100, 250, 1000, 5000, 30_000, 120_000, 600_000])
            let target = sim.now + dt
            sim.advance(to: target)
            trace.append("advance to \(target)")
            return "advance \(dt)"
        }
        let a = pick(candidates)
        if let why = sim.apply(a) {
            trace.append("refused \(a): \(why)")
            return "refused"
        }
        switch a {
        case .consentGranted: consent = .granted
        case .consentDenied: consent = .denied
        default: break
        }
        sim.settle()
        trace.append("t=\(sim.now) \(a)")
        return "\(a)"
    }

    var gateOpen: Bool { consent == .granted || (consent == .undecided && !requireConsent) }

    /// Every invariant of the model, checked from the outside.
    mutating func check() -> [String] {
        var problems: [String] = []
        let s = sim
        // Each request in exactly one state; counts and live sets agree.
        var counts = [Int](repeating: 0, count: RequestState.allCases.count)
        var saved = 0
        for r in s.requests {
            counts[Int(r.state.rawValue)] += 1
            if r.saved { saved += 1 }
            if r.state == .dropped && r.reason == nil { problems.append("#\(r.id) dropped without a reason") }
            if r.state != .dropped && r.reason != nil { problems.append("#\(r.id) \(r.state.word) with a drop reason") }
            if r.isLive {
                let set = s.liveSets[Int(r.state.rawValue)]
                if r.slot < 0 || Int(r.slot) >= set.count || set[Int(r.slot)] != r.id {
                    problems.append("#\(r.id) \(r.state.word) is missing from its live set")
                }
            } else if r.saved {
                problems.append("#\(r.id) is \(r.state.word) but still saved")
            }
            if r.state == .delivered && !r.lastOutcome.isSuccess {
                problems.append("#\(r.id) delivered without a 2xx (\(r.lastOutcome.word))")
            }
            // The journal tells the whole story: created once, last entry is the state now,
            // attempts equal the moves to in-flight.
            let h = s.history(of: r.id)
            if r.id > 0 && s.names[Int(r.nameID)] != "" {
                if h.first?.from != nil { problems.append("#\(r.id) history does not start with its creation") }
                if h.last?.to != r.state {
                    problems.append(
                        "#\(r.id) is \(r.state.word) but its last transition says \(h.last?.to.word ?? "nothing")")
                }
                let sends = h.filter { $0.to == .inFlight }.count
                if sends != Int(r.attempts) {
                    problems.append("#\(r.id) has \(r.attempts) attempts but \(sends) sends")
                }
                for (a, b) in zip(h, h.dropFirst()) where a.to != b.from {
                    problems.append("#\(r.id) jumps from \(a.to.word) to \(b.from?.word ?? "new")")
                }
            }
            // Profile rules that must always hold.
            switch s.profile {
            case .linktrail:
                if r.isLive && !r.saved { problems.append("#\(r.id) live but not saved (LT-1a)") }
                if r.isLive && Int(r.budgetUsed) > s.settings.retryAttempts && r.state != .queued && !r.inFlush {
                    problems.append("#\(r.id) used \(r.budgetUsed) of \(s.settings.retryAttempts) attempts (LT-4)")
                }
            case .ios:
                if r.kind.isLogoutRequest && r.saved { problems.append("#\(r.id) logout request saved (IOS-7)") }
                if !r.kind.isLogoutRequest && r.isLive && !r.saved {
                    problems.append("#\(r.id) live but not saved (IOS-1)")
                }
                if Int(r.budgetUsed) > s.settings.retryAttempts { problems.append("#\(r.id) over budget (IOS-4)") }
            case .android:
                if [.ping, .tokenRemoval, .anonymousPing].contains(r.kind) && r.saved {
                    problems.append("#\(r.id) \(r.kind.word) saved (AND-2)")
                }
                if r.state == .dropped && r.reason != .notSaved {
                    problems.append("#\(r.id) dropped for \(r.reason!.word) on Android (AND-4)")
                }
                if r.state == .retrying { problems.append("#\(r.id) retrying on Android") }
            case .flutter:
                if r.state == .retrying { problems.append("#\(r.id) retrying on Flutter (FL-3)") }
            default:
                break
            }
            if s.profile != .ios && r.completion != .none {
                problems.append("#\(r.id) got a completion on \(s.profile.rawValue)")
            }
            if r.state == .retrying && r.nextAttemptAt < s.now { problems.append("#\(r.id) retry overdue") }
        }
        if counts != s.counts { problems.append("state counts \(s.counts) but requests say \(counts)") }
        if saved != s.savedCount { problems.append("savedCount \(s.savedCount) but \(saved) are saved") }
        // What the device holds is exactly what is saved.
        let stored = Set(store.loadAll().map(\.id))
        let savedIDs = Set(s.requests.filter(\.saved).map(\.id))
        if stored != savedIDs { problems.append("device holds \(stored.sorted()) but saved are \(savedIDs.sorted())") }
        // Every live in-flight or retrying request has a timer that still matters.
        var timed = Set<Int32>()
        for t in s.timers.all where s.isCurrent(t) { timed.insert(t.request) }
        for id in s.liveSets[Int(RequestState.inFlight.rawValue)] + s.liveSets[Int(RequestState.retrying.rawValue)]
        where !timed.contains(id) {
            problems.append("#\(id) \(s.request(id).state.word) with no timer: it would wait forever")
        }
        // No idempotency key counted twice (LT-7): the count equals the distinct keys counted.
        let keysCounted = s.requests.filter(\.keyCounted).count
        if s.profile == .linktrail && s.backend.counted != keysCounted {
            problems.append("backend counted \(s.backend.counted) for \(keysCounted) keys")
        }
        if s.backend.counted + s.backend.duplicates + s.backend.rejected != s.backend.received {
            problems.append("backend totals do not add up")
        }
        // Nothing sent while the LinkTrail gate is closed, nothing sent by a closed app,
        // nothing attempted offline on iOS.
        // The network as it was at each entry: a flap may turn it on and off within one step (FLAP).
        var online = onlineSeen
        for e in s.journal[journalSeen...] {
            if case .log(let l) = e, case .network(let on) = l.event { online = on }
            guard case .transition(let t) = e, t.to == .inFlight else { continue }
            if s.profile == .linktrail && !gateOpen {
                problems.append("#\(t.request) sent with consent \(consent.word) (LT-1/LT-10)")
            }
            if !s.appRunning { problems.append("#\(t.request) sent while the app is closed") }
            if s.profile == .ios && !online { problems.append("#\(t.request) attempted offline on iOS (IOS-5)") }
        }
        journalSeen = s.journal.count
        onlineSeen = s.online
        // One flush at a time, and only on LinkTrail.
        if s.flush.active && (s.profile != .linktrail || !s.appRunning) {
            problems.append("a flush outside a running LinkTrail app")
        }
        if s.flush.active && s.count(.inFlight) == 0 { problems.append("a flush is active with nothing on the wire") }
        return problems
    }
}
