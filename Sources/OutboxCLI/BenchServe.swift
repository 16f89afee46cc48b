import OutboxCore
import OutboxFoundation
import OutboxServe

/// `outbox bench --only serve` (issue 25): `outbox serve`'s requests a second
/// beside a bare SwiftNIO server in the same run, its answer latency at a
/// steady 1,000 requests a second, and its memory per observed event.
enum BenchServe {
    /// Bytes of memory per observed event at `n` events, `perRequest` to a
    /// request (Segment batches, each event new), in the session the server
    /// steps; resident growth over the events. The session is returned, so
    /// the next measure (held beside it) cannot grow into memory it freed.
    static func memoryPerEvent(_ n: Int, perRequest: Int) -> (bytes: Double, session: ServeSession) {
        var session = ServeSession()
        let before = BenchFigures.rss()
        var made = 0, t: Millis = 0
        while made < n {
            let k = min(perRequest, n - made)
            var body = #"{"batch":["#
            for j in 0..<k {
                if j > 0 { body += "," }
                // A messageId as the SDKs make them: a UUID's 36 characters.
                let id = String(made + j, radix: 16)
                body +=
                    #"{"type":"track","event":"Screen Viewed","messageId":"6f9619ff-8b86-d011-b42d-\#(String(repeating: "0", count: max(0, 12 - id.count)) + id)","properties":{"screen":"home"}}"#
            }
            body += "]}"
            made += k
            t += 1
            _ = session.receive(
                WireRequest(
                    method: "POST", target: "/v1/batch", headers: [("Content-Type", "application/json")],
                    body: Array(body.utf8)), at: t)
        }
        let after = BenchFigures.rss()
        precondition(session.events.count == n, "the bench's events are all distinct")
        return (Double(after - before) / Double(n), session)
    }

    /// The serve figures, emitted; false when one could not be measured.
    static func run(
        quick: Bool, memory: (one: Double, batched: Double, n: Int)?, emit: (String, [(String, String)], String) -> Void
    )
        -> Bool
    {
        func r3(_ v: Double) -> String { String(Double(Int(v * 1000)) / 1000) }
        guard let throughput = ServeBenchmarks.throughput, let latency = ServeBenchmarks.latency else {
            emit("serve", [], "serve: NOT MEASURED: this build has no HTTP server (run the outbox executable's bench)")
            return false
        }
        let seconds = quick ? 0.5 : 3, rounds = quick ? 1 : 5, connections = 16
        var bare: [Double] = [], serve: [Double] = [], events = 0
        // Alternately, so a slow moment of the machine hits both.
        for _ in 0..<rounds {
            guard let b = throughput(.bare, connections, seconds), let s = throughput(.serve, connections, seconds)
            else {
                emit("serve_requests_per_second", [], "serve requests/s: NOT MEASURED: a load run failed")
                return false
            }
            bare.append(b.perSecond)
            serve.append(s.perSecond)
            events = s.events
        }
        let b = BenchCommand.median(bare), s = BenchCommand.median(serve)
        emit(
            "serve_requests_per_second",
            [
                ("connections", String(connections)), ("serve", String(Int(s))), ("bare_nio", String(Int(b))),
                ("ratio", r3(s / b)), ("events_last_run", String(events)),
            ],
            "serve requests/s, \(connections) keep-alive connections of one-event POSTs: serve \(BenchCommand.format(s))  bare SwiftNIO 200 \(BenchCommand.format(b))  ratio \(Decimals.fixed(s / b, 2))×  (\(events) events observed in the last run; target ≥ 0.7×)"
        )
        let rate = 1000, span = quick ? 1.0 : 5.0
        guard let ls = latency(.serve, rate, span), let lb = latency(.bare, rate, span) else {
            emit("serve_latency_us", [], "serve answer latency: NOT MEASURED: a load run failed")
            return false
        }
        func pct(_ v: [Double], _ p: Double) -> Double { v[min(v.count - 1, Int(Double(v.count) * p))] }
        emit(
            "serve_latency_us",
            [
                ("rate", String(rate)), ("answers", String(ls.count)), ("p50", r3(pct(ls, 0.5))),
                ("p99", r3(pct(ls, 0.99))), ("bare_p50", r3(pct(lb, 0.5))), ("bare_p99", r3(pct(lb, 0.99))),
            ],
            "serve answer latency at \(rate) requests/s (\(ls.count) answers): p50 \(Decimals.fixed(pct(ls, 0.5), 0)) µs, p99 \(Decimals.fixed(pct(ls, 0.99), 0)) µs; bare SwiftNIO p50 \(Decimals.fixed(pct(lb, 0.5), 0)) µs, p99 \(Decimals.fixed(pct(lb, 0.99), 0)) µs  (target p99 ≤ 2000 µs)"
        )
        if let m = memory {
            emit(
                "serve_memory_per_event",
                [("events", String(m.n)), ("one_a_request", r3(m.one)), ("hundred_a_request", r3(m.batched))],
                "serve memory per observed event at \(m.n) events: one a request \(Decimals.fixed(m.one, 0)) B, a hundred a request \(Decimals.fixed(m.batched, 0)) B  (session, bodies kept up to 64 MB; target ≤ 512 B at 10^6)"
            )
        }
        return true
    }
}
