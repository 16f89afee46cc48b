/// What a request is.
/// The state of a request: exactly one at a time.
public enum RequestState: UInt8, CaseIterable, Sendable, BitwiseCopyable {
    case pending, inFlight, retrying, queued, delivered, dropped

    public var word: String {
        switch self {
        case .pending: return "pending"
        case .inFlight: return "in-flight"
        case .retrying: return "retrying"
        case .queued: return "queued"
        case .delivered: return "delivered"
        case .dropped: return "dropped"
        }
    }

    public init?(word: String) {
        guard let s = RequestState.allCases.first(where: { $0.word == word }) else { return nil }
        self = s
    }

    /// Delivered and dropped are final.
    /// Delivered or dropped: the last two cases.
    public var isFinal: Bool { rawValue >= RequestState.delivered.rawValue }
}

/// Why a request was dropped.
public enum DropReason: UInt8, CaseIterable, Sendable, BitwiseCopyable {
    case consent, rejected, exhausted, notSaved
    /// The queue was full (`keep at most N`, Policy/Capacity.swift).
    case overflow
    /// Older than the profile keeps a request (`expire after D`, Policy/Capacity.swift).
    case expired
    /// The kind was muted by a rate limit when it would go out (`retry-after mute`, Policy/RetryAfter.swift).
    case rateLimited
    /// A retry the retry budget had no token for (`retry-budget`, Policy/RetryBudget.swift).
    case retryBudget

    public var word: String {
        switch self {
        case .consent: return "consent"
        case .rejected: return "rejected"
        case .exhausted: return "exhausted"
        case .notSaved: return "not-saved"
        case .overflow: return "overflow"
        case .expired: return "expired"
        case .rateLimited: return "rate-limited"
        case .retryBudget: return "retry-budget"
        }
    }

    /// The reasons an answer may give (`on CLASS drop REASON`): the others are
    /// the consent gate's and the queue's own.
    static let answerReasons: [DropReason] = [.rejected, .exhausted, .notSaved]

    public init?(word: String) {
        guard let r = DropReason.allCases.first(where: { $0.word == word }) else { return nil }
        self = r
    }
}

/// What the backend answers to one attempt, fixed when the attempt is sent.
public enum Answer: Equatable, Sendable {
    case ok
    case status(Int)
    case timeout
    case lost
    case partial
    /// The backend records the request, then resets the connection (`server
    /// reset`): the client sees the connection reset when the answer was due.
    case reset
    /// A status with a Retry-After header (`server 429 retry-after 10s`): the
    /// status (100-599) and the header's value, whole milliseconds (0 allowed).
    case retryAfter(Int, Millis)

    /// `429`, or `429 retry-after 10s`: as a `server` line writes it.
    public var word: String {
        switch self {
        case .ok: return "ok"
        case .status(let s): return String(s)
        case .retryAfter(let s, let t): return String(s) + " retry-after " + VirtualTime.duration(t)
        case .timeout: return "timeout"
        case .lost: return "lost"
        case .partial: return "partial"
        case .reset: return "reset"
        }
    }

    /// The answer of one word (`503`, `ok`); `retry-after` is read by the `server` line.
    public init?(word: String) {
        switch word {
        case "ok": self = .ok
        case "timeout": self = .timeout
        case "lost": self = .lost
        case "partial": self = .partial
        case "reset": self = .reset
        default:
            guard word.count == 3, let n = Int(word), (100...599).contains(n) else { return nil }
            self = .status(n)
        }
    }

    /// The Retry-After header it carries, or nil.
    public var retryAfter: Millis? {
        if case .retryAfter(_, let t) = self { return t }
        return nil
    }

    /// The answer without its Retry-After header (`429 retry-after 10s` is `429`).
    public var withoutRetryAfter: Answer {
        if case .retryAfter(let s, _) = self { return .status(s) }
        return self
    }
}

/// What the client saw at the end of an attempt.
///
/// Stored compactly: a positive value is an HTTP status; the negative ones are
/// the transport errors and the partial accept.
public struct Outcome: Equatable, Hashable, Sendable, BitwiseCopyable {
    public let code: Int16

    public static let none = Outcome(code: 0)
    /// The attempt timed out (a `timeout` or `lost` answer, or latency above the timeout).
    public static let timeout = Outcome(code: -1)
    /// The attempt was made while offline and failed at once.
    public static let offline = Outcome(code: -2)
    /// The network dropped while the attempt was on the wire.
    public static let networkLost = Outcome(code: -3)
    /// The backend accepted the event but dropped some attributes (a 2xx).
    public static let partial = Outcome(code: -4)
    /// The connection was reset when the answer was due (`server reset`).
    public static let reset = Outcome(code: -5)
    /// Rejected on the device by adaptive throttling before it was sent (`throttle`,
    /// Policy/Throttle.swift): the backend never saw it; answered as `offline` is.
    public static let throttled = Outcome(code: -6)

    public static func http(_ status: Int) -> Outcome { Outcome(code: Int16(status)) }

    public var isNone: Bool { code == 0 }
    public var httpStatus: Int? { code > 0 ? Int(code) : nil }
    public var isTransportError: Bool { code == -1 || code == -2 || code == -3 || code == -5 }
    public var isSuccess: Bool { code == -4 || (200...299).contains(Int(code)) }
    public var is5xx: Bool { (500...599).contains(Int(code)) }

    /// The word used in timelines and the UI.
    public var word: String {
        switch code {
        case 0: return ""
        case -1: return "timeout"
        case -2: return "offline"
        case -3: return "network-lost"
        case -4: return "partial"
        case -5: return "reset"
        case -6: return "throttled"
        default: return String(code)
        }
    }
}

/// The result a completion handler got (profiles with `report completion`).
public enum Completion: UInt8, Sendable, BitwiseCopyable {
    case none, success, failure

    public var word: String {
        switch self {
        case .none: return "none"
        case .success: return "true"
        case .failure: return "false"
        }
    }
}

/// The consent gate's decision (`component consent-gate`).
public enum Consent: UInt8, Sendable {
    case undecided, granted, denied

    public var word: String {
        switch self {
        case .undecided: return "undecided"
        case .granted: return "granted"
        case .denied: return "denied"
        }
    }
}
