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
public final class InMemoryDeviceStore: DeviceStore {
    private var rows: [Int32: SavedRequest] = [:]
    public var consent: Consent = .undecided
    public var installCreated = false
    public var failure: String? { nil }
    public var epoch: UInt64 { 0 }
    /// How many writes reached the store, for tests.
    public private(set) var writes = 0

    public init() {}

    public func save(_ request: SavedRequest) {
        rows[request.id] = request
        writes += 1
    }

    public func attempted(id: Int32, attempts: Int32) {
        // Mutate in place: `rows[id]?.attempts = ...` copies the whole record out and back.
        guard let i = rows.index(forKey: id) else { return }
        rows.values[i].attempts = attempts
        rows.values[i].waitingForConsent = false
        writes += 1
    }

    public func remove(id: Int32) {
        rows[id] = nil
        writes += 1
    }

    public func loadAll() -> [SavedRequest] {
        rows.values.sorted { $0.id < $1.id }
    }

    public var count: Int { rows.count }
}
