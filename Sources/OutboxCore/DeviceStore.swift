/// What the device keeps of one saved request: everything needed to resend it.
public struct SavedRequest: Equatable, Sendable {
    public var id: Int32
    public var kind: RequestKind
    public var name: String
    public var createdAt: Millis
    public var idempotencyKey: UInt64
    public var value: Amount?
    public var currency: String
    public var attributes: [Attribute]
    public var attempts: Int32
    /// Waiting for consent (a LinkTrail install, LT-3) rather than for a flush.
    public var waitingForConsent: Bool

    public init(
        id: Int32, kind: RequestKind, name: String, createdAt: Millis, idempotencyKey: UInt64,
        value: Amount?, currency: String, attributes: [Attribute], attempts: Int32, waitingForConsent: Bool
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.createdAt = createdAt
        self.idempotencyKey = idempotencyKey
        self.value = value
        self.currency = currency
        self.attributes = attributes
        self.attempts = attempts
        self.waitingForConsent = waitingForConsent
    }
}

/// An event attribute: `key=value`.
public struct Attribute: Equatable, Hashable, Sendable {
    public var key: String
    public var value: String
    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// What survives the app closing, per the rules: saved requests, the consent
/// decision (LT-1) and whether the install was created (LT-3). Nothing else.
///
/// The model calls it synchronously, so a change is stored before the model
/// goes on as if it were saved. A store that cannot write sets `failure`; its
/// driver must then stop the model and say so.
public protocol DeviceStore: AnyObject {
    /// Stores a request (insert or replace).
    func save(_ request: SavedRequest)
    /// An attempt of a saved request went out: its count changed and it no
    /// longer waits for consent.
    func attempted(id: Int32, attempts: Int32)
    func remove(id: Int32)
    /// Every saved request, oldest (lowest id) first.
    func loadAll() -> [SavedRequest]
    var consent: Consent { get set }
    var installCreated: Bool { get set }
    /// Why the last write failed, or nil.
    var failure: String? { get }
    /// How many times this device was opened before (0 for a fresh or in-memory
    /// device). Salts idempotency keys: ids restart with each process, keys must not.
    var epoch: UInt64 { get }
}

/// A device that lives in memory: the default for `outbox run` and tests.
///
/// Compact: one fixed-size row per id in a dense array (ids are small and dense),
/// strings interned, attributes aside. A dictionary of full records cost about
/// 230 bytes a request at 10^6 (docs/performance.md).
public final class InMemoryDeviceStore: DeviceStore {
    struct Row {
        var createdAt: Millis
        var key: UInt64
        /// Int64.min means no value.
        var valueMicros: Int64
        var name: Int32
        var currency: Int32
        var attempts: Int32
        /// Index into `attributeLists`, or -1.
        var attributes: Int32
        var kind: RequestKind
        var present: Bool
        var waiting: Bool
    }

    // Only this class touches these, one call at a time: the runtime's dynamic
    // exclusivity checks on them cost 15% of a long run (docs/performance.md).
    @exclusivity(unchecked) private var rows: [Row] = []
    @exclusivity(unchecked) private var strings: [String] = []
    @exclusivity(unchecked) private var stringIndex: [String: Int32] = [:]
    @exclusivity(unchecked) private var attributeLists: [[Attribute]] = []
    @exclusivity(unchecked) public private(set) var count = 0
    public var consent: Consent = .undecided
    public var installCreated = false
    public var failure: String? { nil }
    public var epoch: UInt64 { 0 }
    /// How many writes reached the store, for tests.
    @exclusivity(unchecked) public private(set) var writes = 0

    public init() {}

    private func intern(_ s: String) -> Int32 {
        if let i = stringIndex[s] { return i }
        let i = Int32(strings.count)
        strings.append(s)
        stringIndex[s] = i
        return i
    }

    public func save(_ r: SavedRequest) {
        let i = Int(r.id)
        if i >= rows.count {
            let blank = Row(createdAt: 0, key: 0, valueMicros: 0, name: 0, currency: 0, attempts: 0, attributes: -1,
                            kind: .event, present: false, waiting: false)
            rows.append(contentsOf: repeatElement(blank, count: i + 1 - rows.count))
        }
        var attrs: Int32 = -1
        if !r.attributes.isEmpty {
            attrs = Int32(attributeLists.count)
            attributeLists.append(r.attributes)
        }
        if !rows[i].present { count += 1 }
        rows[i] = Row(createdAt: r.createdAt, key: r.idempotencyKey, valueMicros: r.value?.micros ?? Int64.min,
                      name: intern(r.name), currency: intern(r.currency), attempts: r.attempts, attributes: attrs,
                      kind: r.kind, present: true, waiting: r.waitingForConsent)
        writes += 1
    }

    public func attempted(id: Int32, attempts: Int32) {
        let i = Int(id)
        guard i < rows.count, rows[i].present else { return }
        rows[i].attempts = attempts
        rows[i].waiting = false
        writes += 1
    }

    public func remove(id: Int32) {
        let i = Int(id)
        guard i < rows.count, rows[i].present else { return }
        rows[i].present = false
        count -= 1
        writes += 1
    }

    public func loadAll() -> [SavedRequest] {
        var out: [SavedRequest] = []
        out.reserveCapacity(count)
        for (i, r) in rows.enumerated() where r.present {
            out.append(SavedRequest(
                id: Int32(i), kind: r.kind, name: strings[Int(r.name)], createdAt: r.createdAt, idempotencyKey: r.key,
                value: r.valueMicros == Int64.min ? nil : Amount(micros: r.valueMicros), currency: strings[Int(r.currency)],
                attributes: r.attributes >= 0 ? attributeLists[Int(r.attributes)] : [], attempts: r.attempts,
                waitingForConsent: r.waiting))
        }
        return out
    }
}
