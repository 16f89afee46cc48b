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

    public var word: String {
        switch self {
        case .consent: return "consent"
        case .rejected: return "rejected"
        case .exhausted: return "exhausted"
        case .notSaved: return "not-saved"
        case .overflow: return "overflow"
        case .expired: return "expired"
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

    public var word: String {
        switch self {
        case .ok: return "ok"
        case .status(let s): return String(s)
        case .timeout: return "timeout"
        case .lost: return "lost"
        case .partial: return "partial"
        }
    }

    public init?(word: String) {
        switch word {
        case "ok": self = .ok
        case "timeout": self = .timeout
        case "lost": self = .lost
        case "partial": self = .partial
        default:
            guard word.count == 3, let n = Int(word), (100...599).contains(n) else { return nil }
            self = .status(n)
        }
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

    public static func http(_ status: Int) -> Outcome { Outcome(code: Int16(status)) }

    public var isNone: Bool { code == 0 }
    public var httpStatus: Int? { code > 0 ? Int(code) : nil }
    public var isTransportError: Bool { code == -1 || code == -2 || code == -3 }
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
