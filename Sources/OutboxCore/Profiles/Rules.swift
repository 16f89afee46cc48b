/// The shared rules of `shared/spec/delivery-rules.md`: the machinery every
/// profile runs on (the network, latency, timeouts, the backend, order at an
/// instant). They are numbered first in every profile's book; each profile's
/// own rules come from its file (`rule ID "text"`).
extension RuleID {
    public static let net = RuleID(rawValue: 0)
    public static let lat = RuleID(rawValue: 1)
    public static let tmo = RuleID(rawValue: 2)
    public static let ans = RuleID(rawValue: 3)
    public static let cancel = RuleID(rawValue: 4)
    public static let backoff = RuleID(rawValue: 5)
    public static let retryable = RuleID(rawValue: 6)
    public static let lost = RuleID(rawValue: 7)
    public static let backend = RuleID(rawValue: 8)
    public static let order = RuleID(rawValue: 9)
    public static let jitter = RuleID(rawValue: 10)
    public static let chance = RuleID(rawValue: 11)
    public static let target = RuleID(rawValue: 12)
    public static let flap = RuleID(rawValue: 13)
    public static let latJitter = RuleID(rawValue: 14)
    public static let sends = RuleID(rawValue: 15)
    public static let budget = RuleID(rawValue: 16)
    public static let throttle = RuleID(rawValue: 17)
}

public enum Rules {
    /// The shared rules, in raw order.
    static let sharedInfo: [RuleInfo] = [
        RuleInfo(
            id: "NET",
            text:
                "While offline every attempt fails at once as a transport error (not under `offline hold`, which sends nothing); going offline fails every attempt on the wire.",
            isAssumption: false, isShared: true),
        RuleInfo(
            id: "LAT", text: "An attempt takes `latency` from send to answer and reaches the backend at half of it.",
            isAssumption: false, isShared: true),
        RuleInfo(
            id: "TMO",
            text:
                "`server timeout`, or a timeout shorter than the latency, fails the attempt as a transport error after `timeout`.",
            isAssumption: false, isShared: true),
        RuleInfo(
            id: "ANS",
            text: "The backend's answer is fixed when the attempt is sent; only attempts made online use the plan up.",
            isAssumption: false, isShared: true),
        RuleInfo(
            id: "CANCEL",
            text: "A cancelled attempt never reaches the backend if it had not yet; its answer is ignored.",
            isAssumption: false, isShared: true),
        RuleInfo(
            id: "BACKOFF",
            text: "A retry delay starts when the attempt fails; a short delay list repeats its last delay.",
            isAssumption: false, isShared: true),
        RuleInfo(
            id: "RETRYABLE", text: "1xx and 3xx answers are treated like 4xx.", isAssumption: false, isShared: true),
        RuleInfo(
            id: "LOST", text: "`server lost`: the backend records and counts the request, the client sees a timeout.",
            isAssumption: false, isShared: true),
        RuleInfo(
            id: "BACKEND",
            text: "The backend records every request, counts once per idempotency key, keeps totals and revenue.",
            isAssumption: false, isShared: true),
        RuleInfo(
            id: "ORDER",
            text: "At an instant: due timers first, then actions in order, then what they set for that instant.",
            isAssumption: false, isShared: true),
        RuleInfo(
            id: "JITTER",
            text:
                "retry.jitter full waits 0 to the delay, equal half to all of it, drawn from seed, the request and the attempt.",
            isAssumption: true, isShared: true),
        RuleInfo(
            id: "CHANCE",
            text:
                "`server A N%`: each online attempt gets A with chance N%, drawn from seed, request and attempt; else the plan beneath.",
            isAssumption: true, isShared: true),
        RuleInfo(
            id: "TARGET",
            text:
                "`server ... for NAME` or `for kind:K`: the name's plan, then the kind's, then the plan for all; used up, it falls through.",
            isAssumption: true, isShared: true),
        RuleInfo(
            id: "FLAP",
            text:
                "`network flap UP DOWN`: online UP, offline DOWN, repeating until the next network line; each toggle is a NET change.",
            isAssumption: true, isShared: true),
        RuleInfo(
            id: "LATJITTER",
            text:
                "latency.jitter D: each attempt's latency is drawn from latency ± D, never below 0, from seed, request and attempt.",
            isAssumption: true, isShared: true),
        RuleInfo(
            id: "SENDS",
            text:
                "`server A on sends N,...`: the device's Nth attempt made online gets A whatever the plan (a fleet's backend, replayed).",
            isAssumption: true, isShared: true),
        RuleInfo(
            id: "BUDGET",
            text:
                "`retry-budget P%`: a request's first attempt adds P% of a token (up to the bucket), a retry takes one; with none it is not retried.",
            isAssumption: true, isShared: true),
        RuleInfo(
            id: "THROTTLE",
            text:
                "`throttle k K`: before a send, rejected on the device with chance max(0, (requests − K·accepts)/(requests + 1)) over the window.",
            isAssumption: true, isShared: true),
    ]

    public static let shared: [RuleID] = (0..<sharedInfo.count).map { RuleID(rawValue: UInt8($0)) }
}
