/// A numbered rule of `shared/spec/delivery-rules.md`.
///
/// Every transition the model makes cites one, so the timeline and the UI can
/// answer "why did this happen?".
public enum RuleID: UInt8, CaseIterable, Sendable {
    // Shared parts.
    case net, lat, tmo, ans, cancel, backoff, retryable, lost, backend, order
    // LinkTrail.
    case lt1, lt1a, lt2, lt3, lt4, lt5, lt6, lt7, lt8, lt9, lt10, lt11, lt12, lt13
    // iOS.
    case ios1, ios2, ios3, ios4, ios5, ios6, ios7
    // Android.
    case and1, and2, and3, and4, and5, and6
    // Flutter.
    case fl1, fl2, fl3, fl4, fl5

    /// The ID as the rules page writes it (`LT-6`, `IOS-4`, `NET`).
    public var id: String { Rules.info[Int(rawValue)].id }
    /// The profile the rule belongs to, or nil for a shared rule.
    public var profile: Profile? { Rules.info[Int(rawValue)].profile }
    /// One line saying what the rule does.
    public var text: String { Rules.info[Int(rawValue)].text }
    /// Whether the rule is an assumption Outbox made where the documents are silent.
    public var isAssumption: Bool { Rules.info[Int(rawValue)].assumption }

    public init?(id: String) {
        guard let i = Rules.info.firstIndex(where: { $0.id == id }) else { return nil }
        self = RuleID(rawValue: UInt8(i))!
    }

    /// The rules of a profile, shared ones first.
    public static func rules(for profile: Profile) -> [RuleID] {
        allCases.filter { $0.profile == nil || $0.profile == profile }
    }
}

enum Rules {
    struct Info {
        let id: String
        let profile: Profile?
        let text: String
        let assumption: Bool
    }

    // Order matches RuleID's cases.
    static let info: [Info] = [
        Info(id: "NET", profile: nil, text: "While offline every attempt fails at once as a transport error (not on iOS); going offline fails every attempt on the wire.", assumption: false),
        Info(id: "LAT", profile: nil, text: "An attempt takes `latency` from send to answer and reaches the backend at half of it.", assumption: false),
        Info(id: "TMO", profile: nil, text: "`server timeout`, or a timeout shorter than the latency, fails the attempt as a transport error after `timeout`.", assumption: false),
        Info(id: "ANS", profile: nil, text: "The backend's answer is fixed when the attempt is sent; only attempts made online use the plan up.", assumption: false),
        Info(id: "CANCEL", profile: nil, text: "A cancelled attempt never reaches the backend if it had not yet; its answer is ignored.", assumption: false),
        Info(id: "BACKOFF", profile: nil, text: "A retry delay starts when the attempt fails; a short delay list repeats its last delay.", assumption: false),
        Info(id: "RETRYABLE", profile: nil, text: "1xx and 3xx answers are treated like 4xx.", assumption: false),
        Info(id: "LOST", profile: nil, text: "`server lost`: the backend records and counts the request, the client sees a timeout.", assumption: false),
        Info(id: "BACKEND", profile: nil, text: "The backend records every request, counts once per idempotency key, keeps totals and revenue.", assumption: false),
        Info(id: "ORDER", profile: nil, text: "At an instant: due timers first, then actions in order, then what they set for that instant.", assumption: false),

        Info(id: "LT-1", profile: .linktrail, text: "trackEvent while consent is denied, or undecided under requireConsent, drops the event (consent); the decision is saved.", assumption: false),
        Info(id: "LT-1a", profile: .linktrail, text: "A request is saved on the device as soon as it is accepted and removed when delivered or dropped.", assumption: true),
        Info(id: "LT-2", profile: .linktrail, text: "setConsent(false) clears the saved queue and drops every request in flight or waiting for a retry (consent).", assumption: false),
        Info(id: "LT-3", profile: .linktrail, text: "The first launch creates the install; the gate holds it pending until consent is granted; a denial drops it.", assumption: true),
        Info(id: "LT-4", profile: .linktrail, text: "A request is sent at once and retried after retry.delays, up to retry.attempts attempts in this run.", assumption: false),
        Info(id: "LT-5", profile: .linktrail, text: "Transport errors, 408, 429 and 5xx are retried; after the last attempt: onError, saved in the offline queue.", assumption: false),
        Info(id: "LT-6", profile: .linktrail, text: "Any other non-2xx: onError, dropped (rejected) at once with a warning in the log, never retried.", assumption: true),
        Info(id: "LT-7", profile: .linktrail, text: "Each request gets an idempotency key when created; a resend keeps it, so the backend never counts it twice.", assumption: false),
        Info(id: "LT-8", profile: .linktrail, text: "The saved queue is flushed at launch, when consent is granted and after a successful send outside a flush.", assumption: false),
        Info(id: "LT-9", profile: .linktrail, text: "One flush at a time: a trigger during a flush asks for one more pass when it ends.", assumption: true),
        Info(id: "LT-10", profile: .linktrail, text: "A flush sends nothing while the consent gate is closed and stops at once if consent is withdrawn.", assumption: false),
        Info(id: "LT-11", profile: .linktrail, text: "A flush sends saved requests oldest first, one attempt each; a retryable failure leaves it queued and ends the flush.", assumption: true),
        Info(id: "LT-12", profile: .linktrail, text: "The offline queue survives the app closing; requests in flight or retrying turn queued; a pending install stays pending.", assumption: false),
        Info(id: "LT-13", profile: .linktrail, text: "value and currency are optional; the backend sums revenue by currency for counted events.", assumption: false),

        Info(id: "IOS-1", profile: .ios, text: "Pings, events, screen and product events and notification reports go into one queue saved on the device.", assumption: false),
        Info(id: "IOS-2", profile: .ios, text: "No head-of-line blocking: every request whose time has come goes out at once, oldest first.", assumption: true),
        Info(id: "IOS-3", profile: .ios, text: "2xx: delivered, completion true; 4xx: dropped (rejected), completion false; 5xx or transport error: retried.", assumption: false),
        Info(id: "IOS-4", profile: .ios, text: "Up to retry.attempts attempts, waiting retry.delays; when the last fails: dropped (exhausted), completion false.", assumption: false),
        Info(id: "IOS-5", profile: .ios, text: "Offline: nothing is sent, nothing counts as an attempt; requests wait queued and go out when the network returns.", assumption: false),
        Info(id: "IOS-6", profile: .ios, text: "A request saved when the app closes goes out at once after the next launch, budget reset, completion never called.", assumption: false),
        Info(id: "IOS-7", profile: .ios, text: "logout sends logout, token-removal and anonymous-ping outside the queue; never saved or retried (not-saved).", assumption: true),

        Info(id: "AND-1", profile: .android, text: "Each request is sent at once; there is no queue for the first attempt.", assumption: false),
        Info(id: "AND-2", profile: .android, text: "A failed event, screen, product, notification or logout event is saved; pings and the other logout requests are not.", assumption: false),
        Info(id: "AND-3", profile: .android, text: "Every getInstance() resends every saved request not on the wire, oldest first, with no attempt limit; launch calls it.", assumption: false),
        Info(id: "AND-4", profile: .android, text: "A rejected (4xx) request is never dropped: it stays saved and is resent on every getInstance().", assumption: false),
        Info(id: "AND-5", profile: .android, text: "An attempt while offline fails as a transport error.", assumption: false),
        Info(id: "AND-6", profile: .android, text: "The app's code gets no completion.", assumption: false),

        Info(id: "FL-1", profile: .flutter, text: "Each request is sent at once.", assumption: false),
        Info(id: "FL-2", profile: .flutter, text: "A request that fails with a transport error is saved; an unsaved one on the wire when the app closes is lost.", assumption: false),
        Info(id: "FL-3", profile: .flutter, text: "Server answers are final: 4xx drops it (rejected), 5xx drops it (not-saved).", assumption: false),
        Info(id: "FL-4", profile: .flutter, text: "Saved requests are resent all at once, oldest first, at the next launch.", assumption: true),
        Info(id: "FL-5", profile: .flutter, text: "The app's code gets no completion.", assumption: false),
    ]
}
