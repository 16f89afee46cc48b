/// One change of a request's state, with the rule that caused it.
public struct Transition: Sendable {
    // Fields go 8-byte, 4-byte, 2-byte, 1-byte so nothing pads: 32 bytes.
    public let time: Millis
    public let request: Int32
    /// The attempt this transition belongs to (0 before the first).
    public let attempt: Int32
    /// The request's previous transition in the journal, or -1.
    let previous: Int32
    /// The batch the request went out in (`batch up to N`, Policy/Batching.swift), or 0.
    public let batch: Int32
    public let outcome: Outcome
    /// nil when the request was just created.
    public let from: RequestState?
    public let to: RequestState
    public let reason: DropReason?
    public let rule: RuleID
}

/// What a log line is.
public enum LogSource: UInt8, Sendable {
    /// A line the SDK writes to its log.
    case sdk
    /// An `onError` report (`report onerror`).
    case onError
    /// A completion handler call (`report completion`).
    case completion
    /// What the backend did with a request.
    case backend
    /// The simulation itself: flushes, purges, launches, network, plans.
    case outbox
}

/// A log line: its words for people, and what it reports as data (`event`).
///
/// Everything that acts on a log line (banners, colours, the log of one request)
/// reads `event`, `source`, `request` and `rule`, never `text`: rewording a line
/// changes nothing but the words.
public struct LogLine: Sendable {
    // Ordered by size: 40 bytes in all, no more than a transition's entry needs.
    public let time: Millis
    public let text: String
    public let event: LogEvent
    /// The request it is about, or -1.
    public let request: Int32
    public let source: LogSource
    public let rule: RuleID?

    public init(
        time: Millis, source: LogSource, text: String, request: Int32 = -1, rule: RuleID? = nil, event: LogEvent = .note
    ) {
        self.time = time
        self.source = source
        self.text = text
        self.request = request
        self.rule = rule
        self.event = event
    }
}

/// What a log line reports, with its facts.
///
/// Eight bytes, so a journal entry stays 40 (`LogEventTests` holds it): every
/// inline payload is at most seven bytes (Int32 first), leaving the spare bits
/// the tag goes in; the three bigger ones are boxed (`indirect`), made only for a
/// flush or a purge. The kinds are the SDK's and the
/// model's, not one profile's: a profile logs a purge, a resend or a flush with
/// these, whatever its words. Facts the line's request already holds (its name,
/// its key) are not repeated: `LogLine.request` names it.
public enum LogEvent: Sendable, Equatable {
    /// A line that reports no fact anything acts on: only its words.
    case note

    // The app and the device.
    /// The app started; `launch` counts the launches so far.
    case appLaunched(launch: Int32)
    /// The app is closing: every live request learns its fate next.
    case appClosing
    /// The app closed with `saved` requests on the device.
    case appClosed(saved: Int32)
    /// The device store held `request`, which the model had finished with (in `state`); its row went.
    case storeRowRemoved(request: Int32, state: RequestState)
    /// The network went on or off.
    case network(online: Bool)
    /// The network was asked to go where it already was.
    case networkUnchanged(online: Bool)
    /// A network flap started or stopped (FLAP); its toggles are `network`.
    case flap
    /// The app went to the background (or came back to the foreground).
    case lifecycle(background: Bool)
    /// The app was sent where it already was.
    case lifecycleUnchanged(background: Bool)

    // What the user of the model did.
    /// The backend's next answers changed (`Simulation.plan`).
    case plan
    /// A setting changed.
    case setting
    /// A scenario line's action was refused; the text says why.
    case refused(line: Int32)

    // The SDK.
    /// The SDK started (the consent gate's configure): the consent it found, whether it is required.
    case configured(consent: Consent, required: Bool)
    /// The app set consent.
    case consentSet(Consent)
    /// The line's request was dropped at once: consent was not given (`consent`: denied or undecided).
    case consentDrop(Consent)
    /// Consent was withdrawn: what was live went, by where it was.
    indirect case purged(saved: Int32, inFlight: Int32, retrying: Int32)
    /// An app call that makes several requests (made next) or none (a lifecycle event).
    case call
    /// A warning about the line's request, after `outcome` (a rejection, not retried).
    case warning(outcome: Outcome)
    /// The app's error callback, for the line's request after `attempts` (the
    /// last ending with `outcome`); `kept`: it stays saved (else it is dropped).
    case onError(attempts: Int32, outcome: Outcome, kept: Bool)
    /// The line's request's completion handler was called with `result` (success or failure).
    case completion(Completion)
    /// The line's request finished but its completion handler was lost with a quit.
    case completionLost
    /// The SDK marked itself offline (`marked`), or the mark cleared (`offline self`).
    case selfOffline(marked: Bool)
    /// The app went to the background: `count` queued requests go out (`on background flush`).
    case backgroundFlush(count: Int32)
    /// The background time ran out with the line's request on the wire: its attempt was cancelled.
    case backgroundCancelled
    /// `count` saved requests go out again, because of `trigger`.
    case resend(count: Int32, trigger: ResendTrigger)
    /// Saved requests (`count` of them now) are not sent yet: they wait for `trigger`.
    case resendWaits(count: Int32, for: ResendTrigger)

    // The flush (a queue sent one request at a time).
    /// A flush started because of `trigger`, with `queued` requests to send.
    indirect case flushStarted(FlushTrigger, queued: Int32)
    /// A flush was asked for with nothing queued: it started and ended at once.
    case flushNothingQueued(FlushTrigger)
    /// A flush was asked for while one ran: one more pass follows it.
    case flushMorePass(FlushTrigger)
    /// The flush under way ended, for `end`, having sent `sent`, with `left` still queued.
    indirect case flushEnded(FlushEnd, sent: Int32, left: Int32)

    // Batches (Policy/Batching.swift).
    /// Batch `batch` went on the wire with `count` requests (the line's request is its oldest).
    indirect case batchSent(batch: Int32, count: Int32)
    /// Batch `batch` was answered with the split status and goes out again in two halves.
    case batchSplit(batch: Int32)
    /// Batch `batch`'s answer named `count` of its requests at fault (`batch names`); the rest were queued.
    indirect case batchNamed(batch: Int32, count: Int32)
    /// Batch `batch`'s upload stalled (`on CLASS stall`): nothing more goes until the app closes.
    case batchStalled(batch: Int32)
    /// The interval's flush came with requests waiting.
    case batchInterval
    /// A batch ran out of attempts and `count` requests waiting were dropped with it.
    case queueDropped(count: Int32)

    // The backend.
    /// The backend saw the line's request's idempotency key before: not counted again.
    case backendDuplicate
    /// The backend accepted the line's request in part, dropping `droppedAttributes` attributes.
    case backendPartial(droppedAttributes: Int32)
    /// The backend recorded the line's request; its answer will be lost on the way back.
    case backendAnswerLost

    /// One word per kind, stable: for tests and tools.
    public var kind: String {
        switch self {
        case .note: return "note"
        case .appLaunched: return "app-launched"
        case .appClosing: return "app-closing"
        case .appClosed: return "app-closed"
        case .storeRowRemoved: return "store-row-removed"
        case .network: return "network"
        case .networkUnchanged: return "network-unchanged"
        case .lifecycle(let b): return b ? "background" : "foreground"
        case .lifecycleUnchanged: return "lifecycle-unchanged"
        case .selfOffline(let m): return m ? "self-offline" : "self-offline-cleared"
        case .backgroundFlush: return "background-flush"
        case .backgroundCancelled: return "background-cancelled"
        case .flap: return "flap"
        case .plan: return "plan"
        case .setting: return "setting"
        case .refused: return "refused"
        case .configured: return "configured"
        case .consentSet: return "consent-set"
        case .consentDrop: return "consent-drop"
        case .purged: return "purge"
        case .call: return "call"
        case .warning: return "warning"
        case .onError: return "on-error"
        case .completion: return "completion"
        case .completionLost: return "completion-lost"
        case .resend: return "resend"
        case .resendWaits: return "resend-waits"
        case .flushStarted: return "flush-started"
        case .flushNothingQueued: return "flush-nothing-queued"
        case .flushMorePass: return "flush-more-pass"
        case .flushEnded: return "flush-ended"
        case .batchSent: return "batch-sent"
        case .batchSplit: return "batch-split"
        case .batchNamed: return "batch-named"
        case .batchStalled: return "batch-stalled"
        case .batchInterval: return "batch-interval"
        case .queueDropped: return "queue-dropped"
        case .backendDuplicate: return "backend-duplicate"
        case .backendPartial: return "backend-partial"
        case .backendAnswerLost: return "backend-answer-lost"
        }
    }

    /// A request the event names besides the line's own (`LogLine.request`), or -1:
    /// the success that started a flush, the failure that ended one, a store row.
    public var otherRequest: Int32 {
        switch self {
        case .storeRowRemoved(let id, _): return id
        case .flushStarted(.success(let id), _), .flushNothingQueued(.success(let id)),
            .flushMorePass(.success(let id)):
            return id
        case .flushEnded(.failed(_, let id), _, _): return id
        default: return -1
        }
    }
}

/// What makes saved requests go out again.
public enum ResendTrigger: UInt8, Sendable {
    /// The app launched.
    case launch
    /// The network came back.
    case networkBack
    /// The app called `getInstance()` (`resend on getinstance`).
    case getInstance
    /// A flush (`component flush`: launch, consent granted, a successful send).
    case flush
    /// The app came back to the foreground from a suspension (`background limit`).
    case foreground
}

/// Why a flush ended.
public enum FlushEnd: Equatable, Sendable {
    /// A request it sent failed with `outcome` and went back to the queue.
    case failed(Outcome, request: Int32)
    /// The queue is empty.
    case queueEmpty
    /// The consent gate closed (`consent`: denied or undecided).
    case gateClosed(Consent)
    /// Consent was withdrawn while it ran.
    case consentWithdrawn
    /// The app closed while it ran.
    case appClosed
    /// The network is off on a profile that holds requests offline (`offline hold`).
    case offline
}

/// One entry of the journal, in the order things happened.
public enum JournalEntry: Sendable {
    case transition(Transition)
    case log(LogLine)

    public var time: Millis {
        switch self {
        case .transition(let t): return t.time
        case .log(let l): return l.time
        }
    }
}
