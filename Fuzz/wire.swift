// fuzz-modules: OutboxServe
// fuzz-seeds: Fuzz/seeds/wire/*.txt
// fuzz-max-len: 16384
//
// Fuzz target `wire`: any bytes as a request to `outbox serve`. The first line
// is `METHOD TARGET [ENCODING]` (an ENCODING becomes the Content-Encoding
// header, so gzip and deflate bodies go through zlib), the rest is the body;
// the seeds are the first request of each real SDK in Tests/Fixtures/wire.
// The request is read by every decoder (the format found from its path, and
// the generic one with an id field), then received by a session twice (a
// retry), as the server does. A reading names a format or says why not; its
// events have ids and are no more than the body's bytes; the retry counts each
// event's second attempt; no body kept is larger than the cap.
import OutboxCore
import OutboxServe

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let nl = bytes.firstIndex(of: 10) ?? bytes.count
    let head = String(decoding: bytes[..<nl], as: UTF8.self).split(separator: " ").map(String.init)
    let body = nl < bytes.count ? Array(bytes[(nl + 1)...]) : []
    var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
    if head.count > 2 { headers.append(("Content-Encoding", head[2])) }
    let request = WireRequest(
        method: head.first ?? "POST", target: head.count > 1 ? head[1] : "/", headers: headers, body: body)
    for idField in [nil, "eid"] as [String?] {
        let r = WireFormat.read(request, idField: idField)
        if r.format == nil && r.problem == nil && !r.events.isEmpty {
            fatalError("events read in no format, and no reason given")
        }
        if r.format != nil && r.problem != nil { fatalError("a format found, and a problem too: \(r.problem!)") }
        for e in r.events where e.id.isEmpty { fatalError("an event without an id") }
        if r.body.count > WireFormat.maxBody { fatalError("a body inflated past the cap: \(r.body.count)") }
    }
    var session = ServeSession(idField: "eid")
    _ = session.receive(request, at: 0)
    _ = session.receive(request, at: 1000)
    let firsts = session.requests[0].carried.count, seconds = session.requests[1].carried
    if seconds.count != firsts { fatalError("the same request read twice carried \(firsts), then \(seconds.count)") }
    for c in seconds where c.attempt < 2 {
        // An event carried twice in one request counts two attempts there.
        fatalError("a retried event not counted again: attempt \(c.attempt)")
    }
    if session.requests.contains(where: { $0.body.count > ServeSession.keptBody }) {
        fatalError("a body kept past keptBody")
    }
    return 0
}
