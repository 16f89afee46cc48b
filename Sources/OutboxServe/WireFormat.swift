import OutboxCore
import OutboxFoundation

/// One HTTP request as the server read it: what the wire formats look at.
public struct WireRequest: Sendable {
    public var method: String
    /// The path with its query (`/batch/?ver=1`).
    public var target: String
    /// Header names as sent; looked up without regard to case.
    public var headers: [(name: String, value: String)]
    /// The body as it came (compressed if it was).
    public var body: [UInt8]

    public init(method: String, target: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        let n = name.lowercased()
        return headers.first { $0.name.lowercased() == n }?.value
    }

    /// The path without its query.
    public var path: String { String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]) }

    /// The query's value for `key`, percent-decoded.
    public func query(_ key: String) -> String? {
        guard let q = target.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        return WireFormat.formValue(String(q), key)
    }
}

/// One event a request carried: its id (the same across retries), its name and kind.
public struct WireEvent: Equatable, Sendable {
    public var id: String
    public var name: String
    public var kind: String
    /// The event's object as sent, for the detail pane.
    public var payload: JSONValue

    public init(id: String, name: String, kind: String, payload: JSONValue = .null) {
        self.id = id
        self.name = name
        self.kind = kind
        self.payload = payload
    }
}

/// The real SDKs' wire formats (docs/wire-formats.md), told apart by path, then by body.
public enum WireFormat: String, Sendable, CaseIterable {
    /// Segment's (`/v1/batch`, `/v1/track`, ...; `messageId`).
    case segment
    /// RudderStack's: Segment's form, its events marked `"channel"` (the server SDK's `server`).
    case rudder
    /// PostHog's (`/batch/`, `/capture/`, `/e/`, `/i/v0/e/`; `uuid`).
    case posthog
    /// Amplitude's (`/2/httpapi`, `/batch`; `insert_id`).
    case amplitude
    /// Mixpanel's (`/track`, `/engage`, `/import`, `/groups`; form `data=` or JSON; `$insert_id`).
    case mixpanel
    /// Sentry's envelopes (`/api/N/envelope/`; `event_id`) and its older `/api/N/store/`.
    case sentry
    /// JSON whose events carry the id field the user named (`--id-field`).
    case generic

    /// What one request was read as: a format and its events, or why it was not.
    public struct Reading: Sendable {
        public var format: WireFormat?
        public var events: [WireEvent]
        /// Why the request was not recognised (nil when it was).
        public var problem: String?
        /// The body after inflating: what the detail pane shows.
        public var body: [UInt8]
    }

    /// The largest body read after inflating: 32 MB (Segment's limit is 500 KB a batch).
    public static let maxBody = 32 * 1024 * 1024

    /// Reads a request: inflates its body, finds its format from the path and the
    /// body, and lists its events. `idField`: the generic form's id field.
    public static func read(_ r: WireRequest, idField: String? = nil) -> Reading {
        var body = r.body
        let encodingHeader = r.header("Content-Encoding")
        if let enc = Inflate.encoding(encodingHeader) {
            switch Inflate.inflate(r.body, enc, limit: maxBody) {
            case .success(let b): body = b
            case .failure(let f):
                return Reading(format: nil, events: [], problem: "\(enc.rawValue) body: " + f.message, body: r.body)
            }
        } else if let h = encodingHeader?.trimmingSpaces, !h.isEmpty, h.lowercased() != "identity" {
            return Reading(
                format: nil, events: [],
                problem: "Content-Encoding `\(h)` is not read (expected gzip, deflate or none)", body: r.body)
        }
        func done(_ f: WireFormat, _ ev: Result<[WireEvent], WireProblem>) -> Reading {
            switch ev {
            case .success(let e): return Reading(format: f, events: e, problem: nil, body: body)
            case .failure(let why): return Reading(format: nil, events: [], problem: why.message, body: body)
            }
        }
        let path = r.path
        if path.hasPrefix("/api/") && (path.hasSuffix("/envelope/") || path.hasSuffix("/envelope")) {
            return done(.sentry, readSentryEnvelope(body))
        }
        if path.hasPrefix("/api/") && (path.hasSuffix("/store/") || path.hasSuffix("/store")) {
            return done(.sentry, readSentryStore(body))
        }
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        if ["track", "engage", "import", "groups"].contains(last) && !path.hasPrefix("/v1/") {
            return done(.mixpanel, readMixpanel(r, body))
        }
        let json = JSONValue.parse(body)
        if let idField, let json {
            let ev = readGeneric(json, idField: idField)
            if case .success(let e) = ev, !e.isEmpty { return done(.generic, ev) }
        }
        if path.hasPrefix("/2/httpapi") || (json?["events"]?.array != nil && path.hasPrefix("/batch")) {
            return done(.amplitude, readAmplitude(json))
        }
        if path.hasPrefix("/v1/") {
            let ev = readSegment(json, path: path)
            let rudder = (try? ev.get())?.contains { $0.payload["channel"] != nil } ?? false
            return done(rudder ? .rudder : .segment, ev)
        }
        if ["/batch", "/capture", "/e", "/i/v0/e", "/i/v1/analytics/events", "/track"].contains(where: {
            path == $0 || path.hasPrefix($0 + "/")
        }) {
            return done(.posthog, readPosthog(json))
        }
        let what = json == nil ? "a body that is not JSON" : "a JSON body"
        return Reading(
            format: nil, events: [],
            problem: "no wire format has \(r.method) \(SafeText.escaped(path, max: 80)) with \(what)"
                + (idField == nil ? "" : " (no event carries `\(idField!)`)"), body: body)
    }

    // MARK: The formats

    static func readSegment(_ json: JSONValue?, path: String) -> Result<[WireEvent], WireProblem> {
        guard let json, json.isObject else {
            return .failure(WireProblem("a Segment request whose body is not a JSON object"))
        }
        let items = json["batch"]?.array ?? [json]
        let kindOfPath = String(path.dropFirst(4))
        var out: [WireEvent] = []
        for (i, e) in items.enumerated() {
            guard let id = e["messageId"]?.idText else {
                return .failure(WireProblem("Segment event \(i + 1) has no `messageId`"))
            }
            let kind = e["type"]?.string ?? (kindOfPath == "batch" ? "track" : kindOfPath)
            let name = e["event"]?.string ?? e["name"]?.string ?? kind
            out.append(WireEvent(id: id, name: name, kind: kind, payload: e))
        }
        return .success(out)
    }

    static func readPosthog(_ json: JSONValue?) -> Result<[WireEvent], WireProblem> {
        guard let json else { return .failure(WireProblem("a PostHog request whose body is not JSON")) }
        let items = json.array ?? json["batch"]?.array ?? [json]
        var out: [WireEvent] = []
        for (i, e) in items.enumerated() {
            guard let id = e["uuid"]?.idText ?? e["properties"]?["$insert_id"]?.idText else {
                return .failure(WireProblem("PostHog event \(i + 1) has no `uuid`"))
            }
            let name = e["event"]?.string ?? "event"
            out.append(WireEvent(id: id, name: name, kind: name.hasPrefix("$") ? name : "capture", payload: e))
        }
        return .success(out)
    }

    static func readAmplitude(_ json: JSONValue?) -> Result<[WireEvent], WireProblem> {
        guard let events = json?["events"]?.array else {
            return .failure(WireProblem("an Amplitude request without an `events` array"))
        }
        var out: [WireEvent] = []
        for (i, e) in events.enumerated() {
            guard let id = e["insert_id"]?.idText else {
                return .failure(WireProblem("Amplitude event \(i + 1) has no `insert_id`"))
            }
            let name = e["event_type"]?.string ?? "event"
            out.append(WireEvent(id: id, name: name, kind: name.hasPrefix("$") ? name : "event", payload: e))
        }
        return .success(out)
    }

    static func readMixpanel(_ r: WireRequest, _ body: [UInt8]) -> Result<[WireEvent], WireProblem> {
        let last = r.path.split(separator: "/").last.map(String.init) ?? "track"
        var json = JSONValue.parse(body)
        let text = String(decoding: body, as: UTF8.self)
        if json == nil || (json?.array == nil && json?["data"] == nil && !(json?.isObject ?? false)) {
            // Form-encoded: `data=` holds the JSON, or its base64 (older clients); or the query does (GET).
            let data = formValue(text, "data") ?? r.query("data")
            guard let data else { return .failure(WireProblem("a Mixpanel request with no `data` (form or JSON)")) }
            json = JSONValue.parse(Array(data.utf8)) ?? Base64.decode(data).flatMap { JSONValue.parse($0) }
            guard json != nil else {
                return .failure(WireProblem("a Mixpanel `data` that is neither JSON nor base64 JSON"))
            }
        }
        let items = json?.array ?? [json!]
        var out: [WireEvent] = []
        for (i, e) in items.enumerated() {
            let props = e["properties"] ?? e
            let id = props["$insert_id"]?.idText ?? e["$insert_id"]?.idText
            guard let id else { return .failure(WireProblem("Mixpanel \(last) item \(i + 1) has no `$insert_id`")) }
            let name = e["event"]?.string ?? last
            out.append(WireEvent(id: id, name: name, kind: last, payload: e))
        }
        return .success(out)
    }

    /// An envelope: a header line (JSON, with `event_id`), then items, each a
    /// header line (`type`, optional `length`) and its payload.
    static func readSentryEnvelope(_ body: [UInt8]) -> Result<[WireEvent], WireProblem> {
        var i = 0
        func line() -> [UInt8]? {
            guard i < body.count else { return nil }
            let start = i
            while i < body.count && body[i] != 0x0A { i += 1 }
            let l = Array(body[start..<i])
            if i < body.count { i += 1 }
            return l
        }
        guard let h = line(), let header = JSONValue.parse(h), header.isObject else {
            return .failure(WireProblem("a Sentry envelope whose first line is not a JSON header"))
        }
        var out: [WireEvent] = []
        let envelopeID = header["event_id"]?.idText
        while i < body.count {
            guard let ih = line() else { break }
            if ih.isEmpty { continue }
            guard let itemHeader = JSONValue.parse(ih) else {
                return .failure(WireProblem("a Sentry envelope item header that is not JSON"))
            }
            let type = itemHeader["type"]?.string ?? "item"
            var payload: [UInt8]
            if let len = itemHeader["length"]?.text.flatMap({ Int($0) }) {
                guard len >= 0, i + len <= body.count else {
                    return .failure(WireProblem("a Sentry envelope item longer than the body (`length` \(len))"))
                }
                payload = Array(body[i..<(i + len)])
                i += len
                if i < body.count && body[i] == 0x0A { i += 1 }
            } else {
                payload = line() ?? []
            }
            let p = JSONValue.parse(payload) ?? .null
            guard ["event", "transaction", "error"].contains(type) else { continue }
            guard let id = p["event_id"]?.idText ?? envelopeID else { continue }
            out.append(WireEvent(id: id, name: sentryName(p, type: type), kind: type, payload: p))
        }
        // An envelope of client reports, sessions or attachments alone carries no event.
        return .success(out)
    }

    static func readSentryStore(_ body: [UInt8]) -> Result<[WireEvent], WireProblem> {
        guard let p = JSONValue.parse(body), let id = p["event_id"]?.idText else {
            return .failure(WireProblem("a Sentry store request without an `event_id`"))
        }
        return .success([WireEvent(id: id, name: sentryName(p, type: "event"), kind: "event", payload: p)])
    }

    /// A Sentry event's name: its message, its first exception's type, its transaction, or its type.
    static func sentryName(_ p: JSONValue, type: String) -> String {
        if let m = p["message"]?.string ?? p["message"]?["formatted"]?.string ?? p["logentry"]?["message"]?.string {
            return m
        }
        if let t = p["exception"]?["values"]?.array?.first?["type"]?.string { return t }
        if let t = p["transaction"]?.string { return t }
        return type
    }

    static func readGeneric(_ json: JSONValue, idField: String) -> Result<[WireEvent], WireProblem> {
        var items: [JSONValue] = json.array ?? [json]
        if json.isObject, json[idField] == nil, case .object(let pairs) = json,
            let list = pairs.first(where: { $0.value.array != nil })?.value.array
        {
            items = list
        }
        var out: [WireEvent] = []
        for e in items {
            guard let id = e[idField]?.idText else { continue }
            let name = e["event"]?.string ?? e["name"]?.string ?? e["type"]?.string ?? "event"
            out.append(WireEvent(id: id, name: name, kind: e["type"]?.string ?? "event", payload: e))
        }
        return .success(out)
    }

    // MARK: Form and base64

    /// The value of `key` in a form-encoded `a=1&b=2` text, percent-decoded (`+` is a space).
    static func formValue(_ text: String, _ key: String) -> String? {
        for pair in text.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard kv.count == 2, percentDecoded(String(kv[0])) == key else { continue }
            return percentDecoded(String(kv[1]))
        }
        return nil
    }

    static func percentDecoded(_ s: String) -> String {
        var out: [UInt8] = []
        let u = Array(s.utf8)
        var i = 0
        while i < u.count {
            if u[i] == UInt8(ascii: "+") {
                out.append(0x20)
            } else if u[i] == UInt8(ascii: "%"), i + 2 < u.count, let h = hex(u[i + 1]), let l = hex(u[i + 2]) {
                out.append(h << 4 | l)
                i += 2
            } else {
                out.append(u[i])
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }
}

/// Why a request's body is not what its format's events look like.
public struct WireProblem: Error, Sendable {
    public let message: String
    init(_ message: String) { self.message = message }
}

/// Base64 (standard or URL-safe, padding optional), for Mixpanel's older `data=`.
enum Base64 {
    static func decode(_ s: String) -> [UInt8]? {
        var out: [UInt8] = []
        var acc: UInt32 = 0, bits = 0
        for c in s.utf8 {
            let v: UInt32
            switch c {
            case 0x41...0x5A: v = UInt32(c - 0x41)
            case 0x61...0x7A: v = UInt32(c - 0x61 + 26)
            case 0x30...0x39: v = UInt32(c - 0x30 + 52)
            case UInt8(ascii: "+"), UInt8(ascii: "-"): v = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): v = 63
            case UInt8(ascii: "="): continue
            case 0x0A, 0x0D, 0x20: continue
            default: return nil
            }
            acc = acc << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((acc >> UInt32(bits)) & 0xFF))
            }
        }
        return out.isEmpty ? nil : out
    }
}
