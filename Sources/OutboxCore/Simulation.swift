/// The model: one simulated device running one SDK profile, talking to one backend.
///
/// A value stepped by actions and by time. It never reads a clock: `advance(to:)`
/// moves it, and `apply(_:)` applies an action at the current instant. Every
/// transition is journaled with the ID of the rule behind it.
public struct Simulation {
    public let profile: Profile
    /// The profile's data, read on the hot paths without going through `profile`.
    let spec: ProfileSpec
    public internal(set) var settings: Settings
    public internal(set) var now: Millis = 0

    /// Every request ever created; `requests[id - 1]`.
    public internal(set) var requests = RequestTable()
    /// Transitions and log lines in the order they happened (since the last
    /// `forgetJournal()`, if any).
    public internal(set) var journal: [JournalEntry] = []
    /// How many entries came before `journal[0]` and were forgotten.
    public internal(set) var journalStart = 0
    /// Where the log lines are in `journal`, oldest first.
    public internal(set) var logPositions: [Int32] = []
    /// When the network changed: (time, online), oldest first.
    public internal(set) var networkChanges: [(time: Millis, online: Bool)] = []
    /// Whether to keep the journal (benchmarks may turn it off).
    public var keepsJournal = true
    /// When false (and the journal kept), log lines are not made: only transitions
    /// (`ScenarioRunner.JournalUse.transitionsOnly`).
    public var keepsLogLines = true
    /// How many transitions happened, journaled or not.
    public internal(set) var transitionCount = 0
    /// Transitions that `compactJournal` moved out of the journal (every
    /// transition before `journalStart` that was not forgotten by
    /// `forgetJournal`), oldest first, and their journal positions: a request's
    /// history stays whole however many log lines are forgotten.
    public internal(set) var compactedTransitions: [Transition] = []
    var compactedPositions: [Int] = []
    /// How many log lines `compactJournal` forgot (the oldest), and how many network changes.
    public internal(set) var forgottenLogLines = 0
    public internal(set) var forgottenNetworkChanges = 0

    public internal(set) var backend = Backend()
    public internal(set) var online = true
    public internal(set) var appRunning = false
    /// What the backend will answer: the plan for every request, and plans for
    /// names and kinds (ANS, CHANCE, TARGET).
    public internal(set) var plans = ServerPlans()
    /// Answers beside the plan: `on sends` lines and a fleet's backend (Admission.swift, SENDS).
    var admission = Admission()
    /// The plan for every request, without its chance layers (the contract's plan).
    public var plan: ServerPlan { plans.all.base }
    /// The network flap in force (`network flap`, FLAP), or nil.
    public internal(set) var flap: (up: Millis, down: Millis)?
    /// When the flap next turns the network on or off; `Millis.max` with no flap,
    /// so `advance(to:)` pays one comparison for it.
    var flapNext: Millis = .max
    /// The consent gate's state (ConsentGate.swift; undecided on a profile without the gate).
    public internal(set) var gateState = ConsentGateState()
    /// The flush under way, if any (Flush.swift; never active on a profile without the flush).
    public internal(set) var flush = FlushState()
    /// Where `keep at most N drop oldest` looks for the oldest waiting request:
    /// every request before it is final (Capacity.swift; 0 on a profile without it).
    var capacityFrom: Int32 = 0
    /// Foreground or background (Lifecycle.swift; the foreground on a profile without the lifecycle).
    public internal(set) var appState = AppLifecycleState()
    /// Failures in a row and the mark of `offline self` (Offline.swift; never marked on a profile without it).
    public internal(set) var offlineSelf = SelfOfflineState()
    /// The consent decision (undecided on a profile without the gate).
    public var consent: Consent { gateState.consent }
    public internal(set) var launches = 0

    /// Names of requests and currencies, interned.
    var nameTable = NameTable([""])
    public var names: [String] { nameTable.strings }
    /// Request ids by name id.
    var requestsByName = RequestsByName()
    /// Event revenue (LT-13) and attributes, for the requests that carry them.
    var extras = RequestExtras()

    /// How many requests are in each state, by `RequestState.rawValue`.
    public var counts: [Int] { RequestState.allCases.map(count) }
    /// How many requests are delivered and dropped; the live states count their live sets.
    var deliveredCount = 0, droppedCount = 0
    /// How many requests are saved on the device.
    public internal(set) var savedCount = 0

    var timers = TimerQueue()
    var timerSeq: UInt64 = 0
    /// Live requests by state (pending, in-flight, retrying, queued), for O(1) removal.
    var liveSets = LiveSets()
    /// Queued request ids, oldest first; stale entries are skipped when popped.
    var queuedHeap = IDHeap()
    /// What each request's earlier retries left, by id − 1, only for a backoff that keeps state (Policy/Backoff.swift).
    var backoffStates = ForgettingArray<BackoffState>()
    /// Retry-After headers of the answers, and the pause and mutes they started (Policy/RetryAfter.swift).
    var retryAfterState = RetryAfterState()
    /// The retry budget's bucket, in 1/10,000 tokens (Policy/RetryBudget.swift; 0 on a profile without it).
    var retryBudgetUnits: Int64 = 0
    /// The throttle's window of requests and accepts (Policy/Throttle.swift; empty on a profile without it).
    var throttleState = ThrottleState()
    /// Batching (Policy/Batching.swift): the batches so far, by number − 1, and
    /// each request's batch by id − 1 (0: none; empty on a profile without it).
    var batches = ForgettingArray<Batch>()
    var batchOf = ForgettingArray<Int32>()
    /// When the interval's next flush is due; `Millis.max` without one.
    var batchTickAt: Millis = .max
    /// Head-of-line: the batch the pipeline waits on (0: none), whether a flush
    /// goes on when it is over, and the rule that flush cites.
    var batchBlocking: Int32 = 0
    var batchFlushing = false
    /// Requests made since the last flush (`batch ... when M new`).
    var batchNewCount = 0
    /// An upload stalled (`on CLASS stall`): nothing more goes until the app closes.
    var batchStalled = false
    var batchFlushRule: RuleID = .net
    /// Whether the profile sends requests in batches (`batch up to N`).
    public var isBatching: Bool { spec.policy.batch != nil }
    /// How many batches were sent.
    public var batchCount: Int { batches.count }

    public let store: any DeviceStore

    public init(profile: Profile, settings: Settings? = nil, store: any DeviceStore = InMemoryDeviceStore()) {
        self.profile = profile
        self.spec = profile.spec
        self.settings = settings ?? Settings(profile: profile)
        self.store = store
    }

    /// A simulation whose name table starts as `names` (which holds "" first):
    /// a fleet's devices share one table of the names they will use, copied by
    /// a device only if it meets a new one (docs/performance.md, "Fleets").
    init(profile: Profile, settings: Settings, store: any DeviceStore, names: NameTable) {
        self.init(profile: profile, settings: settings, store: store)
        nameTable = names
    }

    // MARK: Reading

    public func request(_ id: Int32) -> Request { requests[Int(id) - 1] }
    public func name(of id: Int32) -> String { nameTable[requests[Int(id) - 1].nameID] }
    /// The value an event carries and its currency, or nil.
    @inline(__always)  // see `check`
    public func value(of id: Int32) -> (amount: Amount, currency: String)? {
        guard requests[Int(id) - 1].hasValue, let r = extras.revenue(id) else { return nil }
        return (r.amount, nameTable[r.currencyID])
    }
    /// An event's attributes; empty when it has none.
    public func attributes(of id: Int32) -> [Attribute] {
        requests[Int(id) - 1].hasAttributes ? extras.attributes(id) : []
    }
    public func count(_ state: RequestState) -> Int {
        switch state {
        case .delivered: return deliveredCount
        case .dropped: return droppedCount
        default: return liveSets.count(Int(state.rawValue))
        }
    }
    public var liveCount: Int { liveSets.total }

    /// Ids of the requests with this name, oldest first.
    public func requests(named name: String) -> [Int32] {
        guard let n = nameTable.find(name) else { return [] }
        return requestsByName.ids(n)
    }

    public func nameID(_ name: String) -> Int32? { nameTable.find(name) }

    /// The live requests in a state, oldest first.
    public func live(in state: RequestState) -> [Int32] {
        precondition(!state.isFinal)
        return liveSets[Int(state.rawValue)].sorted()
    }

    /// The transitions of one request, oldest first (those still in the journal).
    public func history(of id: Int32) -> [Transition] {
        var out: [Transition] = []
        var i = requests[Int(id) - 1].lastTransition
        while i >= 0 {
            let t: Transition
            if Int(i) >= journalStart {
                guard case .transition(let j) = journal[Int(i) - journalStart] else { break }
                t = j
            } else {
                guard let k = compactedIndex(of: Int(i)) else { break }
                t = compactedTransitions[k]
            }
            out.append(t)
            i = t.previous
        }
        return out.reversed()
    }

    /// Where the transition at journal position `p` is in `compactedTransitions`, or nil.
    func compactedIndex(of p: Int) -> Int? {
        var lo = 0, hi = compactedPositions.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if compactedPositions[mid] < p { lo = mid + 1 } else { hi = mid }
        }
        return lo < compactedPositions.count && compactedPositions[lo] == p ? lo : nil
    }

    /// What is kept of the journal, oldest first: the transitions `compactJournal`
    /// moved out, then the journal (an export writes these).
    public var keptJournal: [JournalEntry] {
        guard !compactedTransitions.isEmpty else { return journal }
        return compactedTransitions.map { .transition($0) } + journal
    }

    /// The idempotency key as shown to people (LT-7), or nil.
    public func idempotencyKey(of id: Int32) -> String? {
        let k = request(id).idempotencyKey
        guard k != 0 else { return nil }
        return Simulation.hex(k)
    }

    /// An idempotency key as shown everywhere: 16 hex digits.
    public static func hexKey(_ v: UInt64) -> String { hex(v) }

    static func hex(_ v: UInt64) -> String {
        let digits = Array("0123456789abcdef")
        var s = ""
        for shift in stride(from: 60, through: 0, by: -4) {
            s.append(digits[Int((v >> UInt64(shift)) & 0xF)])
        }
        return s
    }

    /// The moment of the next timer that still matters, dropping stale ones.
    /// A flap's next toggle counts only while it holds the network offline with
    /// requests live (they may be waiting for it to come back): otherwise a run
    /// ends once its lines and timers are done, flap or not (FLAP).
    public mutating func nextDueTime() -> Millis? {
        var due: Millis?
        while let t = timers.first {
            if isCurrent(t) {
                due = t.time
                break
            }
            timers.removeFirst()
        }
        if flapNext != .max && !online && liveCount > 0 { due = min(due ?? flapNext, flapNext) }
        // The interval's flush, while it could send something (Policy/Batching.swift).
        // Held (offline, marked offline, suspended) it sends nothing: only a line or a timer changes that.
        if batchTickAt != .max && online && batchBlocking == 0 && !batchStalled && waitingCount > 0
            && !appState.inBackground && heldNow == nil
        {
            due = min(due ?? batchTickAt, batchTickAt)
        }
        return due
    }

    /// When the flap next turns the network on or off, or nil with no flap (FLAP).
    public var nextFlapTime: Millis? { flapNext == .max ? nil : flapNext }

    // MARK: Time

    /// Moves the clock to `t`, firing every timer due on the way, in order (ORDER),
    /// and turning the network on and off as a flap says (FLAP).
    public mutating func advance(to t: Millis) {
        precondition(t >= now, "time only moves forward")
        while flapNext <= t || batchTickAt <= t {
            // The toggle's (or the interval flush's) instant: the timers due then first (ORDER).
            if flapNext <= batchTickAt {
                let at = flapNext
                fireTimers(through: at)
                toggleFlap()
            } else {
                let at = batchTickAt
                fireTimers(through: at)
                batchTick(through: t)
            }
        }
        fireTimers(through: t)
    }

    @inline(__always)
    mutating func fireTimers(through t: Millis) {
        while let top = timers.pop(through: t) {
            now = top.time
            guard isCurrent(top) else { continue }
            fire(top)
        }
        now = t
    }

    /// Fires every timer due at the current instant (those set by actions just applied).
    public mutating func settle() { advance(to: now) }

    @inline(__always)
    func isCurrent(_ t: DueTimer) -> Bool {
        if t.kind.rawValue >= DueTimer.Kind.batchReach.rawValue { return batchTimerIsCurrent(t) }
        // Field by field: copying the whole Request here showed in profiles.
        // A timer of a request forgotten in a backlog (`forgetFinalPrefix`) is stale.
        guard let r = requests.held(Int(t.request) - 1), r.pointee.generation == t.generation else { return false }
        switch t.kind {
        case .reach, .answer, .cancel: return r.pointee.state == .inFlight
        case .retry: return r.pointee.state == .retrying
        case .batchReach, .batchAnswer, .batchRetry: return false
        }
    }

    mutating func fire(_ t: DueTimer) {
        switch t.kind {
        case .reach:
            reachBackend(t.request)
        case .answer:
            let outcome: Outcome
            switch requests[Int(t.request) - 1].plannedAnswer {
            case .timeout, .lost: outcome = .timeout
            // TMO: decided when sent, from that attempt's latency (LATJITTER).
            case _ where requests[Int(t.request) - 1].outlastsTimeout: outcome = .timeout
            case .ok: outcome = .http(200)
            case .status(let s), .retryAfter(let s, _): outcome = .http(s)
            case .partial: outcome = .partial
            case .reset: outcome = .reset
            }
            finishAttempt(t.request, outcome)
        case .retry:
            requests[Int(t.request) - 1].nextAttemptAt = -1
            retryFellDue(t.request)
        case .cancel:
            backgroundTimeUp(t.request)
        case .batchReach: batchReached(t.request)
        case .batchAnswer: batchAnswered(t.request)
        case .batchRetry: batchRetryDue(t.request)
        }
    }

    mutating func schedule(_ kind: DueTimer.Kind, _ id: Int32, at time: Millis) {
        timerSeq &+= 1
        timers.push(
            DueTimer(time: time, seq: timerSeq, kind: kind, request: id, generation: requests[Int(id) - 1].generation))
    }

    // MARK: Actions

    static let notRunning = "the app is not running (launch it first)"

    /// Why an action cannot be applied now, or nil. Nothing changes.
    @inline(__always)  // called as a function, it copied the whole model (480 bytes) on every action
    public func check(_ action: Action) -> String? {
        if case .eventTracked(let e) = action {
            // The common action, checked without the general path: every profile
            // tracks events, and an event needs the app running and a name.
            if !appRunning { return Simulation.notRunning }
            return e.name.isEmpty ? "an event needs a name" : nil
        }
        if let why = action.unsupported(on: profile) { return why }
        switch action.lifecycleFault(appRunning: appRunning) {
        case .needsApp?: return Simulation.notRunning
        case .alreadyRunning?: return "the app is already running"
        case .notRunning?: return "the app is not running"
        case nil: break
        }
        // Matched case by case: comparing whole actions (`==`) compares their payloads.
        switch action {
        case .settingChanged(let change):
            return Settings.absent(change.setting.key, on: profile)
        default: return nil
        }
    }

    /// Applies an action at the current instant, with all its immediate effects.
    /// Returns why it was refused, and then changes nothing.
    @discardableResult
    public mutating func apply(_ action: Action) -> String? {
        if let why = check(action) { return why }
        switch action {
        case .appLaunched: launch()
        case .appQuit: quit()
        case .appBackgrounded: wentToBackground()
        case .appForegrounded: wentToForeground()
        case .getInstanceCalled: getInstance()
        case .consentGranted: setConsent(true)
        case .consentDenied: setConsent(false)
        case .eventTracked(let e):
            let id = create(.event, name: e.name, value: e.value, currency: e.currency, attributes: e.attributes)
            created(id)
        case .call(let word, let name):
            // `check` found the call in the profile's vocabulary.
            guard let c = spec.policy.vocabulary.call(word) else { return nil }
            called(c, name: name)
        case .networkWentOnline:
            stopFlap()
            guard !online else { log(.outbox, .networkUnchanged(online: true), "network already online"); return nil }
            goOnline("network online", rule: .net)
        case .networkWentOffline:
            stopFlap()
            guard online else { log(.outbox, .networkUnchanged(online: false), "network already offline"); return nil }
            goOffline("network offline", rule: .net)
        case .networkFlapping(let up, let down):
            flap = (up, down)
            let u = VirtualTime.duration(up), d = VirtualTime.duration(down)
            log(.outbox, .flap, "network flap: online \(u), offline \(d), repeating", rule: .flap)
            if !online { goOnline("network online (flap \(u)/\(d))", rule: .flap) }
            flapNext = VirtualTime.later(now, by: up)
        case .serverPlanned(let answer, let rep, let target):
            plans.plan(answer, rep, for: target, vocabulary: spec.policy.vocabulary)
            let rule: RuleID
            if case .chance = rep { rule = .chance } else { rule = target == .all ? .ans : .target }
            log(.outbox, .plan, rule: rule) { "backend will answer: " + $0.plans.text(for: target) }
        case .sendsAnswered(let answer, let numbers):
            admission.add(answer, sends: numbers)
            log(.outbox, .plan, rule: .sends) {
                "backend will answer \(answer.word) to send\(numbers.count == 1 ? "" : "s") "
                    + ActionSyntax.sendList(numbers)
                    + " (\($0.admission.sends) sent so far)"
            }
        case .settingChanged(let change):
            settings.apply(change.setting)
            // The value as written: the journal shows the line that set it.
            var rule: RuleID?
            if case .latencyJitter = change.setting { rule = .latJitter }
            log(.outbox, .setting, "set \(change.key) \(change.written)", rule: rule)
        }
        return nil
    }

    /// The network comes on (NET): what waited for it goes.
    mutating func goOnline(_ text: String, rule: RuleID) {
        online = true
        networkChanges.append((now, true))
        log(.outbox, .network(online: true), text, rule: rule)
        if appRunning { networkReturned() }
    }

    /// The network goes off (NET): every attempt on the wire fails now as a
    /// transport error, oldest first.
    mutating func goOffline(_ text: String, rule: RuleID) {
        online = false
        networkChanges.append((now, false))
        log(.outbox, .network(online: false), text, rule: rule)
        for id in liveSets[Int(RequestState.inFlight.rawValue)].sorted() {
            // A batch ends as one: its other members are done when their turn comes.
            guard requests[Int(id) - 1].state == .inFlight else { continue }
            requests[Int(id) - 1].generation &+= 1
            finishAttempt(id, .networkLost)
        }
    }

    /// A `network` line ends the flap in force (FLAP).
    mutating func stopFlap() {
        guard let f = flap else { return }
        flap = nil
        flapNext = .max
        log(
            .outbox, .flap,
            "network flap \(VirtualTime.duration(f.up))/\(VirtualTime.duration(f.down)) stopped", rule: .flap)
    }

    /// The flap's toggle at `flapNext` (the clock is there).
    mutating func toggleFlap() {
        guard let f = flap else {
            flapNext = .max
            return
        }
        let u = VirtualTime.duration(f.up), d = VirtualTime.duration(f.down)
        if online {
            goOffline("network offline (flap \(u)/\(d))", rule: .flap)
            flapNext = VirtualTime.later(now, by: f.down)
        } else {
            goOnline("network online (flap \(u)/\(d))", rule: .flap)
            flapNext = VirtualTime.later(now, by: f.up)
        }
    }

    mutating func launch() {
        appRunning = true
        launches += 1
        if spec.policy.gate != nil { gateState.consent = store.consent }
        let launch = Int32(clamping: launches)
        log(.outbox, .appLaunched(launch: launch), "app launched (launch \(launches))")
        restoreSaved()
        launched()
    }

    /// Takes what the device store holds as the truth after a launch: every saved
    /// request is live again (queued, or pending for a held install); requests the
    /// model knew as saved but the store lost are gone.
    mutating func restoreSaved() {
        let rows = store.loadAll()
        // Which of the requests this process knew the store still holds.
        // By index from the first request still held (a fleet's device forgets
        // finished ones only when its store holds nothing: `forgetFinished`).
        let first = requests.startIndex
        var seen = [Bool](repeating: false, count: requests.count)
        for row in rows {
            if Int(row.id) > first && Int(row.id) <= requests.endIndex {
                seen[Int(row.id) - 1 - first] = true
                let r = requests[Int(row.id) - 1]
                guard r.isLive && r.saved else {
                    // The device holds what the model had finished with: the model wins, the row goes.
                    log(
                        .outbox, .storeRowRemoved(request: row.id, state: r.state),
                        "device store held #\(row.id), which is \(r.state.word); removed from the store")
                    store.remove(id: row.id)
                    continue
                }
                requests[Int(row.id) - 1].attempts = row.attempts
                requests[Int(row.id) - 1].budgetUsed = 0
            } else {
                // A request saved by an earlier process of this device: it gets this
                // run's next id (ids grow, so the order stays oldest first) and keeps
                // everything else, its idempotency key included.
                let id = restoredRequest(row)
                if id != row.id {
                    store.remove(id: row.id)
                    store.save(savedRecord(id))
                }
            }
        }
        for k in seen.indices where requests[first + k].saved && requests[first + k].isLive && !seen[k] {
            // The store is the truth: what it does not hold did not survive.
            move(requests[first + k].id, to: .dropped, rule: spec.policy.survivesRule, reason: .notSaved)
        }
    }

    mutating func restoredRequest(_ row: SavedRequest) -> Int32 {
        let id = create(
            row.kind, name: row.name, value: row.value, currency: row.currency.isEmpty ? nil : row.currency,
            attributes: row.attributes, key: row.idempotencyKey, createdAt: row.createdAt)
        requests[Int(id) - 1].attempts = row.attempts
        requests[Int(id) - 1].restored = true
        requests[Int(id) - 1].saved = true
        savedCount += 1
        // Only an install held by the consent gate waits for consent; everything else is queued.
        let waits = row.waitingForConsent && row.kind == .install && spec.policy.gate != nil
        enter(id, waits ? .pending : .queued, rule: spec.policy.survivesRule)
        return id
    }

    mutating func quit() {
        log(.outbox, .appClosing, "app closing")
        // Every live request learns its fate, oldest first; attempts on the wire are cancelled (CANCEL).
        var ids: [Int32] = []
        for s in [RequestState.pending, .inFlight, .retrying] { ids += liveSets[Int(s.rawValue)] }
        // Memory only (`save never`, Saving.swift): the queued ones go too.
        if savesNothing { ids += liveSets[Int(RequestState.queued.rawValue)] }
        ids.sort()
        for id in ids {
            requests[Int(id) - 1].generation &+= 1
            closing(id)
        }
        if flush.active { endFlush(.appClosed, rule: spec.policy.survivesRule, allowMorePass: false) }
        if spec.policy.batch != nil { closeBatches() }
        flush.morePass = false
        appRunning = false
        let saved = Int32(clamping: savedCount)
        log(.outbox, .appClosed(saved: saved), "app closed · \(savedCount) saved on the device")
    }

    // MARK: Building blocks for the profile engine

    mutating func intern(_ s: String) -> Int32 {
        nameTable.intern(s)
    }

    /// Makes a request. It takes part once the policy `enter`s it in a state.
    mutating func create(
        _ kind: RequestKind, name: String, value: Amount? = nil, currency: String? = nil,
        attributes attrs: [Attribute] = [], key: UInt64? = nil, createdAt: Millis? = nil
    ) -> Int32 {
        let id = Int32(requests.endIndex + 1)
        let nameID = intern(name)
        let currencyID = currency.map { intern($0) } ?? 0
        let k = newKey(id, restored: key)
        requests.append(
            Request(
                id: id, kind: kind, nameID: nameID, createdAt: createdAt ?? now, idempotencyKey: k,
                hasValue: value != nil,
                hasAttributes: !attrs.isEmpty))
        extras.add(id, revenue: value.map { Revenue(amount: $0, currencyID: currencyID) }, attributes: attrs)
        if spec.policy.batch != nil { batchOf.append(0) }
        requestsByName.add(id, name: nameID)
        return id
    }

    /// Changes one request in a single access. Each `requests[i].field = x` on its
    /// own checks the array is uniquely held; in the hot paths those checks were a
    /// sixth of a long run (docs/performance.md).
    @inline(__always)
    mutating func update<T>(_ id: Int32, _ body: (inout Request) -> T) -> T {
        body(&requests[Int(id) - 1])
    }

    /// A new request takes its first state.
    mutating func enter(_ id: Int32, _ state: RequestState, rule: RuleID, reason: DropReason? = nil) {
        let slot = state.isFinal ? -1 : Int32(liveSets.count(Int(state.rawValue)))
        update(id) { r in
            r.state = state
            r.reason = reason
            r.rule = rule
            r.slot = slot
        }
        if state.isFinal { countFinal(state, 1) } else { addLive(id, state) }
        record(id, from: nil, to: state, rule: rule, outcome: .none, reason: reason)
    }

    /// Moves a request to a new state and journals why.
    mutating func move(
        _ id: Int32, to state: RequestState, rule: RuleID, outcome: Outcome = .none, reason: DropReason? = nil
    ) {
        let i = Int(id) - 1
        let from = requests[i].state
        if from.isFinal { countFinal(from, -1) } else { removeLive(id, from) }
        if state.isFinal { countFinal(state, 1) }
        let slot = state.isFinal ? -1 : Int32(liveSets.count(Int(state.rawValue)))
        let saved = update(id) { r in
            if from == .inFlight { r.inFlush = false }
            if from == .retrying { r.nextAttemptAt = -1 }
            r.state = state
            r.reason = reason
            r.rule = rule
            r.slot = slot
            return r.saved
        }
        if state.isFinal {
            if saved { setSaved(id, false) }
        } else {
            addLive(id, state)
        }
        record(id, from: from, to: state, rule: rule, outcome: outcome, reason: reason)
    }

    @inline(__always)
    mutating func countFinal(_ state: RequestState, _ by: Int) {
        if state == .delivered { deliveredCount += by } else { droppedCount += by }
    }

    /// Adds a request to its state's live set; its `slot` is already set to the set's end.
    @inline(__always)
    mutating func addLive(_ id: Int32, _ state: RequestState) {
        liveSets.append(id, to: Int(state.rawValue))
        if state == .queued { queuedHeap.push(id) }
    }

    @inline(__always)
    mutating func removeLive(_ id: Int32, _ state: RequestState) {
        let slot = Int(requests[Int(id) - 1].slot)
        let last = liveSets.remove(at: slot, from: Int(state.rawValue))
        if last != id { requests[Int(last) - 1].slot = Int32(slot) }
        // The caller gives the request its new slot.
    }

    mutating func record(
        _ id: Int32, from: RequestState?, to: RequestState, rule: RuleID, outcome: Outcome, reason: DropReason?
    ) {
        transitionCount += 1
        guard keepsJournal else { return }
        // Past Int32 (only a journal forgotten as it goes gets there) a request's history is not linked.
        let at = Int32(exactly: journalStart + journal.count) ?? -1
        let (attempt, previous) = update(id) { r in
            defer { r.lastTransition = at }
            return (r.attempts, r.lastTransition)
        }
        journal.append(
            .transition(
                Transition(
                    time: now, request: id, attempt: attempt, previous: previous,
                    batch: batchOf.isEmpty ? 0 : batchOf[Int(id) - 1], outcome: outcome, from: from, to: to,
                    reason: reason, rule: rule)))
    }

    /// A log line whose event and text are built only when the journal is kept
    /// (`keepsJournal`): long headless runs turn it off and should not pay for the
    /// strings, nor for an event's box. An event that reads the model is given
    /// values read before the call (exclusive access).
    @inline(__always)
    mutating func log(
        _ source: LogSource, _ event: @autoclosure () -> LogEvent, request: Int32 = -1, rule: RuleID? = nil,
        _ text: (Simulation) -> String
    ) {
        guard keepsJournal && keepsLogLines else { return }
        appendLog(LogLine(time: now, source: source, text: text(self), request: request, rule: rule, event: event()))
    }

    @inline(__always)
    mutating func log(
        _ source: LogSource, _ event: @autoclosure () -> LogEvent, _ text: String, request: Int32 = -1,
        rule: RuleID? = nil
    ) {
        guard keepsJournal && keepsLogLines else { return }
        appendLog(LogLine(time: now, source: source, text: text, request: request, rule: rule, event: event()))
    }

    mutating func appendLog(_ line: LogLine) {
        logPositions.append(Int32(journal.count))
        journal.append(.log(line))
    }

    /// Forgets the journal's entries so far, for a run that has handed them on
    /// (`ScenarioRunner.JournalUse`): memory then stays flat however long the run.
    /// `history(of:)` knows only the transitions recorded after.
    public mutating func forgetJournal() {
        journalStart += journal.count
        journal.removeAll(keepingCapacity: true)
        logPositions.removeAll(keepingCapacity: true)
    }

    /// Lets go of every request the device is done with, for a caller that reads
    /// nothing of the past (a fleet's lane, which counts each step as it ends:
    /// docs/fleet.md, "Memory"). Only at rest: no request live or saved, no
    /// timer waiting and no batch on the wire, so nothing still points at what
    /// goes. Requests, batches and their side rows go; ids go on from the last,
    /// and a forgotten request can no longer be read (`request(_:)` traps).
    /// Returns whether it forgot anything.
    ///
    /// Not at rest (a backlog: an outage's queue behind requests already
    /// dropped), an unbatched device lets go of its oldest requests once at
    /// least `prefixAtLeast` (4) of them are final: every request before the
    /// oldest one not final. Nothing live or saved is among them; a stale
    /// timer or queue entry for one is skipped (`isCurrent`, the queue's pops).
    @discardableResult
    public mutating func forgetFinished(prefixAtLeast: Int = 4) -> Bool {
        // The fields inside the simulation first: a device is rarely at rest, and they cost no memory read.
        guard liveCount == 0, savedCount == 0, batchBlocking == 0, timers.isEmpty, requests.count > 0 else {
            return forgetFinalPrefix(atLeast: prefixAtLeast)
        }
        let end = requests.endIndex
        requests.forget(upTo: end)
        backoffStates.forgetAll(upTo: end)
        if !batchOf.isEmpty { batchOf.forgetAll(upTo: end) }  // empty: no batches (read as such)
        batches.forgetAll(upTo: batches.count)
        extras.forgetAll(through: Int32(end))
        requestsByName.forgetAll(through: Int32(end))
        if !retryAfterState.headers.isEmpty { retryAfterState.headers = [:] }
        // What the order still holds is stale (nothing is queued): its ids go too.
        if !queuedHeap.isEmpty { queuedHeap.removeAll() }
        return true
    }

    /// The backlog's part of `forgetFinished`: the oldest requests, all final, once there are `n` of them.
    mutating func forgetFinalPrefix(atLeast n: Int) -> Bool {
        let start = requests.startIndex
        guard requests.count >= n, spec.policy.batch == nil, requests[start].state.isFinal else { return false }
        var end = start + 1
        while end < requests.endIndex && requests[end].state.isFinal { end += 1 }
        guard end - start >= n else { return false }
        requests.forget(upTo: end)
        backoffStates.forget(upTo: end)
        extras.forget(through: Int32(end))
        requestsByName.forget(through: Int32(end))
        if capacityFrom < Int32(end) { capacityFrom = Int32(end) }
        return true
    }

    /// Bounds what the journal keeps for a session that never ends (the live
    /// screen): once more than `2 × logLines` log lines are kept, the oldest are
    /// forgotten down to the newest `logLines`, and every transition before the
    /// oldest line kept moves to `compactedTransitions` (histories stay whole).
    /// Likewise past `2 × networkChanges` network changes the oldest are forgotten
    /// down to about `networkChanges`, ending on a change that turned the network
    /// on, so what is kept still reads from "online". Positions (`journalStart +
    /// index`) keep counting what was forgotten. Returns whether anything went.
    @discardableResult
    public mutating func compactJournal(logLines: Int, networkChanges keep: Int) -> Bool {
        var did = false
        if logPositions.count > 2 * max(1, logLines) {
            let drop = logPositions.count - max(1, logLines)
            let cut = Int(logPositions[drop])  // the oldest line kept
            for i in 0..<cut {
                if case .transition(let t) = journal[i] {
                    compactedTransitions.append(t)
                    compactedPositions.append(journalStart + i)
                }
            }
            forgottenLogLines += drop
            journal.removeFirst(cut)
            journalStart += cut
            logPositions.removeFirst(drop)
            for k in logPositions.indices { logPositions[k] -= Int32(cut) }
            did = true
        }
        if networkChanges.count > 2 * max(2, keep) {
            // The newest `keep` stay; the last one forgotten turned the network on.
            var drop = networkChanges.count - max(2, keep)
            while drop > 0 && !networkChanges[drop - 1].online { drop -= 1 }
            if drop > 0 {
                networkChanges.removeFirst(drop)
                forgottenNetworkChanges += drop
                did = true
            }
        }
        return did
    }

    /// Stores or forgets a request on the device, before the model goes on.
    mutating func setSaved(_ id: Int32, _ saved: Bool) {
        let was = update(id) { r in
            defer { r.saved = saved }
            return r.saved
        }
        guard was != saved else { return }
        if saved {
            savedCount += 1
            store.save(savedRecord(id))
        } else {
            savedCount -= 1
            store.remove(id: id)
        }
    }

    /// The record the device keeps for a saved request.
    @inline(__always)  // see `check`
    public func savedRecord(_ id: Int32) -> SavedRequest {
        let r = request(id)
        let v = value(of: id)
        return SavedRequest(
            id: id, kind: r.kind, name: nameTable[r.nameID], createdAt: r.createdAt, idempotencyKey: r.idempotencyKey,
            value: v?.amount, currency: v?.currency ?? "",
            attributes: r.hasAttributes ? extras.attributes(id) : [],
            attempts: r.attempts, waitingForConsent: r.kind == .install && r.state == .pending && r.attempts == 0)
    }

    /// One attempt goes on the wire (LAT, ANS, TMO, NET).
    mutating func send(_ id: Int32, rule: RuleID) {
        // A pause or a mute in force (`retry-after`, Policy/RetryAfter.swift): one comparison otherwise.
        if now < retryAfterState.holdUntil, heldByRetryAfter(id) { return }
        update(id) { r in
            // Saturating: a count restored from a device store cannot make these trap.
            if r.attempts < .max { r.attempts += 1 }
            if r.budgetUsed < .max { r.budgetUsed += 1 }
            r.generation &+= 1
        }
        move(id, to: .inFlight, rule: rule)
        let (saved, attempts) = (requests[Int(id) - 1].saved, requests[Int(id) - 1].attempts)
        if saved { store.attempted(id: id, attempts: attempts) }
        // A request's first attempt adds its share to the retry budget (Policy/RetryBudget.swift).
        if attempts == 1, let b = spec.policy.retryBudget, !isDirect(requests[Int(id) - 1].kind) {
            depositRetryBudget(b)
        }
        guard online else {
            // NET: fails at once as a transport error; it was made, so it counts.
            requests[Int(id) - 1].generation &+= 1
            finishAttempt(id, .offline)
            return
        }
        // Adaptive throttling (Policy/Throttle.swift): rejected on the device, it never reaches the backend.
        if let t = spec.policy.throttle, !isDirect(requests[Int(id) - 1].kind), throttledOnDevice(id, t) { return }
        var answer = plans.isPlain ? plans.all.base.take() : takeTargeted(id, attempt: attempts)
        admission.sends &+= 1
        if admission.active { answer = admitted(answer) }
        let latency = settings.latency(ofAttempt: attempts, request: id), timeout = settings.timeout
        update(id) { r in
            r.plannedAnswer = answer
            r.outlastsTimeout = timeout < latency
        }
        if case .retryAfter(_, let header) = answer { noteRetryAfter(id, attempt: attempts, header) }
        let (half, answerAfter, reaches) = Simulation.timing(answer, latency: latency, timeout: timeout)
        if reaches { schedule(.reach, id, at: VirtualTime.later(now, by: half)) }
        schedule(.answer, id, at: VirtualTime.later(now, by: answerAfter))
        if appState.inBackground { attemptStartedInBackground(id) }
    }

    /// When an attempt with this answer reaches the backend (half its latency)
    /// and ends, and whether it reaches it at all (LAT, TMO, LOST): a request's
    /// attempt and a batch's alike.
    @inline(__always)
    static func timing(_ answer: Answer, latency: Millis, timeout: Millis) -> (
        half: Millis, answerAfter: Millis, reaches: Bool
    ) {
        let half = latency / 2
        switch answer {
        case .timeout: return (half, timeout, false)
        case .lost: return (half, timeout, half <= timeout)
        default: return (half, timeout < latency ? timeout : latency, half <= timeout)
        }
    }

    /// The answer of an attempt when chances or targets are planned (CHANCE, TARGET).
    mutating func takeTargeted(_ id: Int32, attempt: Int32) -> Answer {
        let table = nameTable, seed = settings.seed, r = requests[Int(id) - 1]
        return plans.take(kind: r.kind, name: { table[r.nameID] }) {
            Draw.value(seed: seed, request: id, attempt: attempt, salt: Draw.chanceSalt ^ $0)
        }
    }

    /// `takeTargeted` split in two: the request's own plans' answer (its name's,
    /// its kind's) or nil, and then the plan for every request's.
    mutating func takeOwnTargeted(_ id: Int32, attempt: Int32) -> Answer? {
        let table = nameTable, seed = settings.seed, r = requests[Int(id) - 1]
        return plans.takeOwn(kind: r.kind, name: { table[r.nameID] }) {
            Draw.value(seed: seed, request: id, attempt: attempt, salt: Draw.chanceSalt ^ $0)
        }
    }

    mutating func takeAllTargeted(_ id: Int32, attempt: Int32) -> Answer {
        let seed = settings.seed
        return plans.all.take(level: 0) {
            Draw.value(seed: seed, request: id, attempt: attempt, salt: Draw.chanceSalt ^ $0)
        } ?? .ok
    }

    mutating func reachBackend(_ id: Int32) {
        let r = requests[Int(id) - 1]
        let verdict = backend.receive(r, answer: r.plannedAnswer, revenue: r.hasValue ? extras.revenue(id) : nil)
        if verdict == .counted { requests[Int(id) - 1].keyCounted = true }
        switch verdict {
        case .duplicate:
            log(.backend, .backendDuplicate, request: id, rule: spec.policy.keysRule ?? .backend) {
                "backend: #\(id) '\($0.name(of: id))' is a duplicate (idempotency key \(Simulation.hex(r.idempotencyKey))), not counted again"
            }
        case .counted where r.plannedAnswer == .partial:
            let dropped = Int32(clamping: attributes(of: id).count)
            log(.backend, .backendPartial(droppedAttributes: dropped), request: id, rule: .backend) {
                let dropped = $0.attributes(of: id).map(\.key)
                return "backend: #\(id) '\($0.name(of: id))' accepted in part"
                    + (dropped.isEmpty ? "" : ", attributes dropped: " + dropped.joined(separator: ", "))
            }
        case .counted where r.plannedAnswer == .reset:
            log(.backend, .backendAnswerLost, request: id, rule: .backend) {
                "backend: #\(id) '\($0.name(of: id))' recorded; its connection will be reset"
            }
        case .counted where r.plannedAnswer == .lost:
            log(.backend, .backendAnswerLost, request: id, rule: .lost) {
                "backend: #\(id) '\($0.name(of: id))' recorded; its answer will be lost"
            }
        default:
            break
        }
    }

    /// Puts a request on a backoff timer (BACKOFF).
    /// Pops every queued request, oldest first.
    mutating func takeQueued() -> [Int32] {
        // Batched, the heap holds the pending requests too (they wait for a flush): a resend takes them all.
        if spec.policy.batch != nil { return takeWaiting() }
        var out: [Int32] = []
        out.reserveCapacity(count(.queued))
        while let id = queuedHeap.pop() {
            // Below the requests held: forgotten in a backlog, final (`forgetFinalPrefix`).
            guard Int(id) > requests.startIndex else { continue }
            if request(id).state == .queued && out.last != id { out.append(id) }
        }
        // Too old to send (`expire after`, Capacity.swift): dropped, oldest first.
        if let e = spec.policy.expiry {
            var kept: [Int32] = []
            for id in out where !expired(id, e) { kept.append(id) }
            return kept
        }
        return out
    }

    /// Takes the oldest queued request out of the order, or nil.
    mutating func popOldestQueued() -> Int32? {
        while let id = queuedHeap.pop() {
            guard Int(id) > requests.startIndex, request(id).state == .queued else { continue }
            // Too old to send (`expire after`, Capacity.swift): dropped, the next one is taken.
            if let e = spec.policy.expiry, expired(id, e) { continue }
            return id
        }
        return nil
    }

    /// What started the flush under way, as the journal and the screen say it (LT-8).
    public var flushTriggerText: String { text(of: flush.trigger) }

    /// Text naming a request in log lines.
    func label(_ id: Int32) -> String { "#\(id) '\(name(of: id))'" }
}

/// The live requests of each live state (pending, in flight, retrying, queued),
/// indexed by `RequestState.rawValue`; their sizes are the live states' counts.
/// Four arrays in a struct rather than an array of arrays: changing one checks
/// one buffer for uniqueness, not two.
struct LiveSets {
    private var pending: [Int32] = [], inFlight: [Int32] = [], retrying: [Int32] = [], queued: [Int32] = []
    /// How many in all: read without touching the four arrays' buffers (a
    /// fleet asks each device after each step whether it is at rest).
    private(set) var total = 0
    /// Where the four sets' arrays are (`Prefetch`; a fleet's lane).
    static var arrayWords: [Int] {
        [\LiveSets.pending, \.inFlight, \.retrying, \.queued].map { MemoryLayout<LiveSets>.offset(of: $0)! }
    }

    // One switch to read a set and one to change it: a `_modify` accessor's
    // coroutine was not inlined and showed in profiles.
    @inline(__always)
    private func read<R>(_ state: Int, _ body: ([Int32]) -> R) -> R {
        switch state {
        case 0: return body(pending)
        case 1: return body(inFlight)
        case 2: return body(retrying)
        default:
            precondition(state == 3, "not a live state")
            return body(queued)
        }
    }

    @inline(__always)
    private mutating func change<R>(_ state: Int, _ body: (inout [Int32]) -> R) -> R {
        switch state {
        case 0: return body(&pending)
        case 1: return body(&inFlight)
        case 2: return body(&retrying)
        default:
            precondition(state == 3, "not a live state")
            return body(&queued)
        }
    }

    subscript(_ state: Int) -> [Int32] { read(state) { $0 } }

    /// How many requests are in a live state (`Simulation.count`).
    @inline(__always)
    func count(_ state: Int) -> Int { read(state) { $0.count } }

    @inline(__always)
    mutating func append(_ id: Int32, to state: Int) {
        total += 1
        change(state) { $0.append(id) }
    }

    /// Takes the id at `slot` out of a set by moving the set's last id there;
    /// returns that last id (the one taken when it was last).
    @inline(__always)
    mutating func remove(at slot: Int, from state: Int) -> Int32 {
        total -= 1
        return change(state) { a in
            let last = a.removeLast()
            if slot < a.count { a[slot] = last }
            return last
        }
    }
}
