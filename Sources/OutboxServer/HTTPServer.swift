import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import OutboxCore
import OutboxServe

/// The session behind the server, under a lock, with the clock it is stepped
/// by: milliseconds since the server started, from the monotonic clock. The
/// session itself never reads a clock (ServeSession); this is where time comes from.
public final class ServeHub: @unchecked Sendable {
    private let lock = NIOLock()
    private var session: ServeSession
    private let start = NIODeadline.now()
    /// Each request held at the breakpoint: what sends its reply once chosen
    /// (on its channel's event loop).
    private var parked: [Int: @Sendable (ServeSession.Reply) -> Void] = [:]

    public init(_ session: ServeSession) { self.session = session }

    /// Milliseconds since the start.
    public func now() -> Millis { Millis((NIODeadline.now() - start).nanoseconds / 1_000_000) }

    /// Reads and answers a request; one held at the breakpoint is parked with
    /// `whenReleased`, which later gets its reply (`release`, or `.close` when the
    /// server stops).
    public func receive(
        _ r: WireRequest, whenReleased: @escaping @Sendable (ServeSession.Reply) -> Void = { _ in }
    ) -> ServeSession.Reply {
        let t = now()
        return lock.withLock {
            let reply = session.receive(r, at: t)
            if case .held(let token) = reply { parked[token] = whenReleased }
            return reply
        }
    }

    /// Changes the session under the lock at the time now.
    public func changing<T>(_ body: (inout ServeSession, Millis) -> T) -> T {
        let t = now()
        return lock.withLock { body(&session, t) }
    }

    /// Answers a held request: recorded with `answer` (nil: the plan's), then its
    /// reply sent; false when it is held no longer.
    @discardableResult
    public func release(_ token: Int, answer: Answer?) -> Bool {
        let t = now()
        let out = lock.withLock { () -> (ServeSession.Reply, @Sendable (ServeSession.Reply) -> Void)? in
            guard let send = parked.removeValue(forKey: token),
                let reply = session.release(token, answer: answer, at: t)
            else { return nil }
            return (reply, send)
        }
        guard let (reply, send) = out else { return false }
        send(reply)
        return true
    }

    /// A held request's client closed its connection: recorded as timed out (it saw no answer).
    func abandon(_ token: Int) {
        let t = now()
        lock.withLock {
            guard parked.removeValue(forKey: token) != nil else { return }
            session.abandon(token, as: .timeout, at: t, why: "closed by the client while held")
        }
    }

    /// Every held request closed unanswered (the server stops): recorded as lost.
    func releaseAll() {
        let t = now()
        let sends = lock.withLock { () -> [@Sendable (ServeSession.Reply) -> Void] in
            let all = parked
            parked = [:]
            for token in all.keys.sorted() {
                session.abandon(token, as: .lost, at: t, why: "closed unanswered: the server stopped")
            }
            return Array(all.values)
        }
        for send in sends { send(.close) }
    }

    /// Plays the script's steps due now; returns whether the backend is online.
    @discardableResult
    public func tick() -> Bool {
        let t = now()
        return lock.withLock {
            session.advance(to: t)
            return session.online
        }
    }

    /// A copy of the session as it is now.
    public var snapshot: ServeSession { lock.withLock { session } }

    /// Reads the session where it is, under the lock (no copy).
    public func reading<T>(_ body: (ServeSession) -> T) -> T { lock.withLock { body(session) } }
}

/// `outbox serve`'s HTTP/1.1 server: SwiftNIO's parser and pipeline (keep-alive,
/// chunked bodies, pipelined requests answered in order), `Expect: 100-continue`
/// answered, bodies capped, each request read and answered by the hub's session.
/// `network offline` closes the listening socket and every connection, so
/// clients are refused until `online` binds the same port again.
public final class ServeServer: ServeListener, @unchecked Sendable {
    public let hub: ServeHub
    public let host: String
    /// The port it listens on (the one the system picked for port 0).
    public private(set) var port: Int
    let group: MultiThreadedEventLoopGroup
    private let lock = NIOLock()
    private var listener: Channel?
    /// The open connections (no weak reference to the server: the channels' closures hold this).
    private let tracker = Connections()

    /// The most connections open at once: 512 (each SDK opens one or a few).
    public static let defaultMaxConnections = 512
    /// The most connections open at once for this server.
    public let maxConnections: Int

    /// A connection silent this long is closed.
    public static let idleSeconds: Int64 = 300

    /// The largest body read as it comes: 16 MB (a larger one is answered 413).
    public static let maxRawBody = 16 * 1024 * 1024

    public enum StartFailure: Error, CustomStringConvertible {
        case bind(String, Int, String)
        public var description: String {
            switch self {
            case .bind(let h, let p, let why): return "cannot listen on \(h):\(p): \(why)"
            }
        }
    }

    /// Binds `host:port` (port 0: a free one) and starts serving.
    public init(host: String, port: Int, hub: ServeHub, maxConnections: Int = ServeServer.defaultMaxConnections) throws
    {
        self.hub = hub
        self.maxConnections = maxConnections
        self.host = host
        self.port = port
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try bind()
        } catch {
            try? group.syncShutdownGracefully()
            throw StartFailure.bind(host, port, "\(error)")
        }
    }

    private func bootstrap() -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [tracker, hub, maxConnections] channel in
                // Past the limit a new connection is closed at once (a client that
                // opens thousands cannot take the process's descriptors).
                guard tracker.track(channel, limit: maxConnections) else {
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    // A connection that sends nothing for 5 minutes is closed (a
                    // client that opens many and goes quiet does not hold them for ever).
                    try channel.pipeline.syncOperations.addHandler(
                        IdleStateHandler(readTimeout: .seconds(ServeServer.idleSeconds)))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(ServeHandler(hub: hub))
                }
            }
            .childChannelOption(.socketOption(.so_reuseaddr), value: 1)
    }

    private func bind() throws {
        let ch = try bootstrap().bind(host: host, port: port).wait()
        lock.withLock {
            listener = ch
            if let p = ch.localAddress?.port { port = p }
        }
    }

    /// Whether it listens now.
    public var listening: Bool { lock.withLock { listener != nil } }

    /// Follows the session's network: offline closes the listener and every
    /// connection; online binds the same port again.
    public func follow(online: Bool) throws {
        if online && !listening {
            try bind()
        } else if !online && listening {
            let (l, cs) = lock.withLock { () -> (Channel?, [Channel]) in
                let l = listener
                listener = nil
                return (l, tracker.all)
            }
            try? l?.close().wait()
            for c in cs { c.close(promise: nil) }
        }
    }

    public func now() -> Millis { hub.now() }
    public func tick() -> Bool { hub.tick() }
    public var snapshot: ServeSession { hub.snapshot }
    public func reading<T>(_ body: (ServeSession) -> T) -> T { hub.reading(body) }
    public func changing<T>(_ body: (inout ServeSession, Millis) -> T) -> T { hub.changing(body) }
    @discardableResult
    public func release(_ token: Int, answer: Answer?) -> Bool { hub.release(token, answer: answer) }

    /// `ServeListeners.make`: the executable sets it to this.
    public static func start(host: String, port: Int, session: ServeSession) throws -> any ServeListener {
        try ServeServer(host: host, port: port, hub: ServeHub(session))
    }

    /// Stops serving: closes everything and the event loop; held requests are
    /// closed unanswered first (recorded as lost).
    public func shutdown() {
        hub.releaseAll()
        let (l, cs) = lock.withLock { () -> (Channel?, [Channel]) in
            let l = listener
            listener = nil
            return (l, tracker.all)
        }
        try? l?.close().wait()
        for c in cs { try? c.close().wait() }
        try? group.syncShutdownGracefully()
    }
}

/// The server's open connections, kept to close them when the network goes
/// offline or the server stops; a channel leaves it when it closes.
final class Connections: @unchecked Sendable {
    private let lock = NIOLock()
    private var open: [ObjectIdentifier: Channel] = [:]

    /// Tracks a new connection; false (and not tracked) when `limit` are open.
    func track(_ channel: Channel, limit: Int) -> Bool {
        let id = ObjectIdentifier(channel)
        let taken = lock.withLock { () -> Bool in
            guard open.count < limit else { return false }
            open[id] = channel
            return true
        }
        guard taken else { return false }
        channel.closeFuture.whenComplete { [self] _ in
            _ = lock.withLock { open.removeValue(forKey: id) }
        }
        return true
    }

    var all: [Channel] { lock.withLock { Array(open.values) } }
}

/// One connection's requests: the head and body are gathered, then the hub answers.
final class ServeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let hub: ServeHub
    var head: HTTPRequestHead?
    var body: [UInt8] = []
    var tooBig = false
    /// The request held at the breakpoint on this connection, until its reply.
    var heldToken: Int?

    init(hub: ServeHub) { self.hub = hub }

    func channelInactive(context: ChannelHandlerContext) {
        // The client went away while its request was held: nothing is sent.
        if let t = heldToken {
            heldToken = nil
            hub.abandon(t)
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body = []
            tooBig = false
            // A client that waits for leave to send its body (curl does above 1 KB).
            if h.headers["expect"].contains(where: { $0.lowercased() == "100-continue" }) {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: h.version, status: .continue))))
                    .whenFailure { _ in }
            }
        case .body(let buf):
            if tooBig { return }
            if body.count + buf.readableBytes > ServeServer.maxRawBody {
                tooBig = true
                body = []
                return
            }
            body.append(contentsOf: buf.readableBytesView)
        case .end:
            guard let h = head else { return }
            head = nil
            if tooBig {
                return respond(
                    context, h, status: 413, retryAfter: nil,
                    body: #"{"error":"the body is larger than \#(ServeServer.maxRawBody) bytes"}"#, close: true)
            }
            let request = WireRequest(
                method: h.method.rawValue, target: h.uri, headers: h.headers.map { ($0.name, $0.value) }, body: body)
            body = []
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let reply = hub.receive(request) { reply in
                // The user chose (another thread): answered on the channel's loop,
                // unless the client closed meanwhile (channelInactive cleared the token).
                bound.eventLoop.execute {
                    let (handler, context) = bound.value
                    guard handler.heldToken != nil else { return }
                    handler.heldToken = nil
                    handler.perform(reply, context, h)
                }
            }
            if case .held(let token) = reply {
                heldToken = token
            } else {
                perform(reply, context, h)
            }
        }
    }

    /// Sends a reply: an answer (after its delay), nothing (held), or a close.
    func perform(_ reply: ServeSession.Reply, _ context: ChannelHandlerContext, _ h: HTTPRequestHead) {
        switch reply {
        case .hold, .held:
            break
        case .close:
            context.close(promise: nil)
        case .reset:
            // SO_LINGER on, 0 s: the close sends a TCP RST instead of a FIN.
            guard let socket = context.channel as? SocketOptionProvider else { return context.close(promise: nil) }
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in bound.value.close(promise: nil) }
        case .respond(let status, let ra, let text, let delay):
            if delay <= 0 {
                respond(context, h, status: status, retryAfter: ra, body: text, close: false)
            } else {
                let loop = context.eventLoop.assumeIsolated()
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                loop.scheduleTask(in: .milliseconds(Int64(delay))) {
                    self.respond(bound.value, h, status: status, retryAfter: ra, body: text, close: false)
                }
            }
        }
    }

    func respond(
        _ context: ChannelHandlerContext, _ h: HTTPRequestHead, status: Int, retryAfter: Millis?, body: String,
        close: Bool
    ) {
        let keepAlive = h.isKeepAlive && !close
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        // Retry-After in whole seconds (delta-seconds), rounded up.
        if let ra = retryAfter { headers.add(name: "Retry-After", value: String((ra + 999) / 1000)) }
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let head = HTTPResponseHead(
            version: h.version, status: HTTPResponseStatus(statusCode: status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        var buf = context.channel.allocator.buffer(capacity: body.utf8.count)
        buf.writeString(body)
        context.write(wrapOutboundOut(.body(.byteBuffer(buf))), promise: nil)
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            done.whenComplete { _ in bound.value.close(promise: nil) }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
