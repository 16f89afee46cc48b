import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import OutboxCore
import OutboxServe

/// `outbox bench --only serve`: `outbox serve`'s server beside a bare SwiftNIO
/// server that answers 200 and reads nothing (the floor), driven by the same
/// load client on loopback in the same run: small keep-alive POSTs of one
/// Segment event each, every one a new event the session observes.
public enum ServeBench {
    /// Which server a run measures.
    public enum Server: Sendable {
        /// A SwiftNIO HTTP/1.1 pipeline and a handler that answers 200 `{}`.
        case bare
        /// `outbox serve`'s server, its session holding every event.
        case serve
    }

    /// Sets `ServeBenchmarks.run` (the executable does, as it sets the listener).
    public static func install() {
        ServeBenchmarks.throughput = { server, connections, seconds in
            throughput(server == .bare ? .bare : .serve, connections: connections, seconds: seconds)
        }
        ServeBenchmarks.latency = { server, rate, seconds in
            latency(server == .bare ? .bare : .serve, rate: rate, seconds: seconds)
        }
    }

    /// A server of the kind, listening on a free loopback port, and how to stop it.
    static func start(_ server: Server) throws -> (port: Int, stop: () -> Void, events: () -> Int) {
        switch server {
        case .serve:
            let s = try ServeServer(host: "127.0.0.1", port: 0, hub: ServeHub(ServeSession()))
            return (s.port, { s.shutdown() }, { s.reading { $0.events.count } })
        case .bare:
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let ch = try ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(BareHandler())
                    }
                }
                .bind(host: "127.0.0.1", port: 0).wait()
            let port = ch.localAddress?.port ?? 0
            return (
                port,
                {
                    try? ch.close().wait(); try? group.syncShutdownGracefully()
                }, { 0 }
            )
        }
    }

    /// Requests a second answered by `server` to `connections` keep-alive
    /// connections, each sending its next POST when the last is answered, for
    /// `seconds`; and the events the server observed (0 for the bare one).
    public static func throughput(_ server: Server, connections: Int, seconds: Double) -> (
        perSecond: Double, events: Int
    )? {
        guard let s = try? start(server) else { return nil }
        defer { s.stop() }
        let client = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? client.syncShutdownGracefully() }
        let counter = NIOLockedValueBox(0)
        let stopAt = NIODeadline.now() + .nanoseconds(Int64(seconds * 1e9))
        let started = NIODeadline.now()
        drive(client, port: s.port, connections: connections, stopAt: stopAt, interval: nil) { _ in
            counter.withLockedValue { $0 += 1 }
        }
        let elapsed = Double((NIODeadline.now() - started).nanoseconds) / 1e9
        let n = counter.withLockedValue { $0 }
        return n == 0 ? nil : (Double(n) / elapsed, s.events())
    }

    /// Answer latency at a steady `rate` of requests a second (open loop: a
    /// request every 1/rate s, spread over 8 connections, each sent on time
    /// whether or not the last was answered), for `seconds`: microseconds from
    /// the request written to its answer read, every one, sorted.
    public static func latency(_ server: Server, rate: Int, seconds: Double) -> [Double]? {
        guard let s = try? start(server) else { return nil }
        defer { s.stop() }
        let client = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? client.syncShutdownGracefully() }
        let samples = NIOLockedValueBox([Double]())
        let connections = 8
        let interval = TimeAmount.nanoseconds(Int64(1e9 * Double(connections) / Double(rate)))
        let stopAt = NIODeadline.now() + .nanoseconds(Int64(seconds * 1e9))
        drive(client, port: s.port, connections: connections, stopAt: stopAt, interval: interval) { us in
            samples.withLockedValue { $0.append(us) }
        }
        let all = samples.withLockedValue { $0 }.sorted()
        return all.isEmpty ? nil : all
    }
}

extension ServeBench {
    /// Opens `connections` load connections to `port` and waits until each has
    /// stopped (at `stopAt`, its last answer read) or failed.
    static func drive(
        _ client: MultiThreadedEventLoopGroup, port: Int, connections: Int, stopAt: NIODeadline,
        interval: TimeAmount?, answered: @escaping @Sendable (Double) -> Void
    ) {
        var done: [EventLoopFuture<Void>] = []
        for c in 0..<connections {
            let finished = client.next().makePromise(of: Void.self)
            let handler = LoadHandler(
                connection: c, stopAt: stopAt, interval: interval, finished: finished, answered: answered)
            let connected = ClientBootstrap(group: client)
                .channelInitializer { ch in
                    ch.eventLoop.makeCompletedFuture {
                        try ch.pipeline.syncOperations.addHTTPClientHandlers()
                        try ch.pipeline.syncOperations.addHandler(handler)
                    }
                }
                .connect(host: "127.0.0.1", port: port)
            connected.whenFailure { finished.fail($0) }
            done.append(finished.futureResult)
        }
        for f in done { try? f.wait() }
    }
}

/// The floor: answers every request 200 `{}` once it has been read, keeping nothing.
final class BareHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: "2")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        var buf = context.channel.allocator.buffer(capacity: 2)
        buf.writeString("{}")
        context.write(wrapOutboundOut(.body(.byteBuffer(buf))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

/// One load connection: POSTs a one-event Segment batch (a new `messageId`
/// each time), and sends the next when the last is answered (closed loop) or
/// every `interval` (open loop), until `stopAt`; reports each answer's latency.
final class LoadHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    let connection: Int
    let stopAt: NIODeadline
    let interval: TimeAmount?
    let finished: EventLoopPromise<Void>
    let answered: (Double) -> Void
    var sent = 0
    /// When each request still unanswered was written, oldest first.
    var pending: [NIODeadline] = []
    var stopping = false

    init(
        connection: Int, stopAt: NIODeadline, interval: TimeAmount?, finished: EventLoopPromise<Void>,
        answered: @escaping (Double) -> Void
    ) {
        self.connection = connection
        self.stopAt = stopAt
        self.interval = interval
        self.finished = finished
        self.answered = answered
    }

    func channelActive(context: ChannelHandlerContext) {
        if let interval {
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            // Connections start spread over one interval, so the rate is even.
            let offset = TimeAmount.nanoseconds(interval.nanoseconds * Int64(connection % 8) / 8)
            context.eventLoop.scheduleRepeatedTask(initialDelay: offset, delay: interval) { task in
                if NIODeadline.now() >= self.stopAt {
                    task.cancel()
                    self.stop(bound.value)
                } else {
                    self.send(bound.value)
                }
            }
        } else {
            send(context)
        }
    }

    func send(_ context: ChannelHandlerContext) {
        sent += 1
        let body = #"{"batch":[{"type":"track","event":"bench","messageId":"b\#(connection)-\#(sent)"}]}"#
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "127.0.0.1")
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        context.write(
            wrapOutboundOut(
                .head(HTTPRequestHead(version: .http1_1, method: .POST, uri: "/v1/batch", headers: headers))),
            promise: nil)
        var buf = context.channel.allocator.buffer(capacity: body.utf8.count)
        buf.writeString(body)
        context.write(wrapOutboundOut(.body(.byteBuffer(buf))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        pending.append(.now())
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data), !pending.isEmpty else { return }
        let at = pending.removeFirst()
        answered(Double((NIODeadline.now() - at).nanoseconds) / 1000)
        if interval == nil {
            if NIODeadline.now() < stopAt { send(context) } else { stop(context) }
        } else if stopping && pending.isEmpty {
            context.close(promise: nil)
        }
    }

    func stop(_ context: ChannelHandlerContext) {
        stopping = true
        if pending.isEmpty { context.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) { finished.succeed(()) }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
