// fuzz-modules: OutboxCore
// fuzz-seeds: profiles/*.profile Tests/OutboxCoreTests/Fixtures/*.profile
// fuzz-max-len: 8192
//
// Fuzz target `profile`: any bytes as a profile file (`outbox --profile FILE`,
// `profile ./x.profile` in a scenario). They are parsed as the program parses
// them; an error must name the file and one of its lines. A profile that
// parses runs one short fixed day on an in-memory device: launch, events and
// every other request the profile makes, consent and getInstance() where it
// has them, the network dropping and returning, the server answering 503, 429,
// 403, timeout, lost, partial and 101, a quit and a second launch. After every
// step the model must hold together:
//   - each request is in the state its last transition says, the state counts
//     and the saved count agree with the requests, the device holds exactly
//     the saved ones, a dropped request has a reason and only a dropped one,
//     a delivered one had a 2xx, a finished one is not saved;
//   - every transition and every log line cites a rule the profile's book has
//     (its own or a shared one), with a text;
//   - a request's history is one chain from its creation, with as many moves
//     to in-flight as attempts; nothing is sent while the app is closed; a
//     request waiting for a retry has budget left.
// Every journal entry is written in both timeline formats, as `outbox run`
// does. Bounded: the day is fixed (about two and a quarter hours of virtual
// time) and stops past 200,000 transitions.
import OutboxCore

/// Where the lengths of the lines written go, so that writing them is not optimized away.
nonisolated(unsafe) var sink = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    switch Profile.parse(text, file: "fuzz.profile", path: "fuzz.profile") {
    case .failure(let e):
        // Count lines as the parser does: split at the "\n" scalar, so a CRLF ends a
        // line too ("\r\n" is one Character), and a last "\n" starts one more, empty line.
        let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).count
        if e.errors.isEmpty { fatalError("a profile refused with no error") }
        for x in e.errors where x.file != "fuzz.profile" || x.line < 1 || x.line > max(lines, 1) || x.message.isEmpty {
            fatalError("a profile error names no line of the file (\(lines) lines): \(x)")
        }
    case .success(let profile):
        if profile.spec.source != text { fatalError("the profile's source is not the file's text") }
        if profile.isBuiltin { fatalError("a profile read from a file says it is a built-in") }
        var day = Day(profile)
        day.run()
    }
    return 0
}

/// One fixed day on a fresh device, checked after every step.
struct Day {
    let profile: Profile
    let store = InMemoryDeviceStore()
    var sim: Simulation
    let rules: Set<RuleID>
    var seen = 0
    let plain = TimelineWriter(format: .text), jsonl = TimelineWriter(format: .jsonl)

    init(_ profile: Profile) {
        self.profile = profile
        sim = Simulation(profile: profile, store: store)
        rules = Set(profile.rules)
        for r in profile.rules where profile.rule(r).text.isEmpty || profile.rule(r).id.isEmpty {
            fatalError("rule \(r.rawValue) of the book has no ID or no text")
        }
    }

    /// The app's every request kind but the event, as actions, where the profile makes them.
    var others: [Action] {
        var a: [Action] = []
        // Every call the profile has (its vocabulary's), a name given where it takes one.
        for c in profile.calls where !c.makes.isEmpty { a.append(.call(c.word, c.takesName ? (c.keyName ?? "n") : nil)) }
        return a
    }

    mutating func run() {
        let track = { (n: String) in Action.eventTracked(TrackedEvent(name: n)) }
        step(.appLaunched)
        if profile.hasConsentGate { step(.consentGranted) }
        step(track("first"))
        for a in others { step(a) }
        wait(1_000)
        plan(.status(503), .times(2), then: track("s503"))
        plan(.status(429), .times(1), then: track("s429"))
        plan(.status(403), .times(1), then: track("s403"))
        plan(.status(101), .times(1), then: track("s101"))
        wait(500)
        plan(.timeout, .times(1), then: track("timeout"))
        wait(3_000)
        step(.networkWentOffline)
        step(track("offline"))
        for a in others { step(a) }
        wait(2_000)
        step(.networkWentOnline)
        plan(.lost, .times(1), then: track("lost"))
        wait(100)
        step(.networkWentOffline)  // whatever is on the wire fails (network-lost)
        wait(100)
        step(.networkWentOnline)
        plan(.partial, .times(1), then: track("partial"))
        if profile.hasGetInstance { step(.getInstanceCalled) }
        plan(.status(503), .always, then: track("always"))
        wait(900_000)  // long enough for the built-ins' ladders to run out (on exhausted)
        step(.serverPlanned(.ok, .times(1)))
        if profile.hasGetInstance { step(.getInstanceCalled) }
        if profile.hasConsentGate {
            step(.consentDenied)
            step(track("denied"))
            step(.consentGranted)
        }
        wait(30_000)
        step(.serverPlanned(.status(500), .always))
        step(track("at-quit"))
        wait(250)
        step(.appQuit)
        wait(10_000)
        step(.serverPlanned(.ok, .always))
        step(.appLaunched)
        wait(3_600_000)
        step(.appQuit)
        step(.appLaunched)
        wait(3_600_000)
    }

    mutating func plan(_ a: Answer, _ r: ServerRepeat, then action: Action) {
        step(.serverPlanned(a, r))
        step(action)
    }

    /// Applies an action the profile may refuse (a refusal is fine), then checks.
    mutating func step(_ a: Action) {
        guard sim.transitionCount < 200_000 else { return }
        _ = sim.apply(a)
        sim.settle()
        check()
    }

    /// Lets time pass from one due moment to the next, checking at each.
    mutating func wait(_ ms: Millis) {
        let end = sim.now + ms
        while sim.transitionCount < 200_000, let t = sim.nextDueTime(), t <= end {
            sim.advance(to: t)
            check()
        }
        if sim.transitionCount < 200_000 { sim.advance(to: end) }
        check()
    }

    mutating func check() {
        // New journal entries: written both ways; their rules are in the book.
        var written = 0
        for e in sim.journal[seen...] {
            written &+= plain.line(e, in: sim).utf8.count &+ jsonl.line(e, in: sim).utf8.count
            switch e {
            case .transition(let t):
                if !rules.contains(t.rule) {
                    fail("#\(t.request) \(t.to.word) cites rule \(t.rule.rawValue), not in the book")
                }
                if t.to == .inFlight && !sim.appRunning { fail("#\(t.request) sent while the app is closed") }
            case .log(let l):
                if let r = l.rule, !rules.contains(r) {
                    fail("a log line cites rule \(r.rawValue), not in the book: \(l.text)")
                }
            }
        }
        sink &+= written
        seen = sim.journal.count

        var counts = [Int](repeating: 0, count: RequestState.allCases.count)
        var saved: Set<Int32> = []
        for r in sim.requests {
            counts[Int(r.state.rawValue)] += 1
            if r.saved { saved.insert(r.id) }
            if (r.state == .dropped) != (r.reason != nil) {
                fail("#\(r.id) is \(r.state.word) with reason \(String(describing: r.reason))")
            }
            if !r.isLive && r.saved { fail("#\(r.id) is \(r.state.word) but still saved") }
            if r.state == .delivered && !r.lastOutcome.isSuccess {
                fail("#\(r.id) delivered after \(r.lastOutcome.word)")
            }
            if r.state == .retrying && Int(r.budgetUsed) >= sim.settings.retryAttempts {
                fail("#\(r.id) waits for a retry with \(r.budgetUsed) of \(sim.settings.retryAttempts) attempts used")
            }
            let h = sim.history(of: r.id)
            guard let first = h.first, let last = h.last else {
                fail("#\(r.id) has no history")
                continue
            }
            if first.from != nil { fail("#\(r.id)'s history does not start with its creation") }
            if last.to != r.state { fail("#\(r.id) is \(r.state.word) but its last transition says \(last.to.word)") }
            for (a, b) in zip(h, h.dropFirst()) where a.to != b.from {
                fail("#\(r.id) jumps from \(a.to.word) to \(b.from?.word ?? "new")")
            }
            let sends = h.reduce(0) { $0 + ($1.to == .inFlight ? 1 : 0) }
            if sends != Int(r.attempts) { fail("#\(r.id) has \(r.attempts) attempts but \(sends) sends") }
        }
        if counts != sim.counts { fail("state counts \(sim.counts), the requests say \(counts)") }
        if saved.count != sim.savedCount { fail("savedCount \(sim.savedCount), \(saved.count) requests are saved") }
        let stored = Set(store.loadAll().map(\.id))
        if stored != saved { fail("the device holds \(stored.sorted()), saved are \(saved.sorted())") }
    }

    func fail(_ why: String) -> Never {
        fatalError("profile `\(profile.name)` at \(sim.now) ms: \(why)")
    }
}
