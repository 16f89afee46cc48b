/// One change of a request's state, with the rule that caused it.
public struct Transition: Sendable {
    public let time: Millis
    public let request: Int32
    /// nil when the request was just created.
    public let from: RequestState?
    public let to: RequestState
    /// The attempt this transition belongs to (0 before the first).
    public let attempt: Int32
    public let outcome: Outcome
    public let reason: DropReason?
    public let rule: RuleID
    /// The request's previous transition in the journal, or -1.
    let previous: Int32
}

/// What a log line is.
public enum LogSource: UInt8, Sendable {
    /// A line the SDK writes to its log.
    case sdk
    /// An `onError` report (LinkTrail).
    case onError
    /// A completion handler call (iOS).
    case completion
    /// What the backend did with a request.
    case backend
    /// The simulation itself: flushes, purges, launches, network, plans.
    case outbox
}

/// A log line.
public struct LogLine: Sendable {
    public let time: Millis
    public let source: LogSource
    public let text: String
    /// The request it is about, or -1.
    public let request: Int32
    public let rule: RuleID?
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
