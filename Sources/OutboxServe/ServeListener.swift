import OutboxCore

/// A running `outbox serve` server as the command sees it: its port, its clock,
/// its session. The HTTP server (OutboxServer, on SwiftNIO) is one; the command
/// line reaches it through `ServeListeners.make`, set by the `outbox` executable,
/// so the command line's module (and the fuzz targets built from it) does not
/// link SwiftNIO.
public protocol ServeListener: AnyObject {
    /// The port it listens on (the one the system picked for port 0).
    var port: Int { get }
    /// Milliseconds since it started.
    func now() -> Millis
    /// Plays the script's steps due now; whether the backend is online.
    func tick() -> Bool
    /// Follows the network: offline refuses connections, online accepts them again.
    func follow(online: Bool) throws
    /// The session as it is now: a copy, which the next request then copies
    /// whole (copy on write), so a loop reads it with `reading` instead.
    var snapshot: ServeSession { get }
    /// Reads the session where it is, under its lock: nothing is copied.
    func reading<T>(_ body: (ServeSession) -> T) -> T
    /// Changes the session where it is, under its lock, at the time now: the
    /// live screen's plans, network and breakpoint.
    func changing<T>(_ body: (inout ServeSession, Millis) -> T) -> T
    /// Answers a request held at the breakpoint with `answer` (nil: the plan's);
    /// false when it is held no longer (its client closed, or it was answered).
    @discardableResult
    func release(_ token: Int, answer: Answer?) -> Bool
    /// Stops serving; requests still held are closed unanswered (recorded as lost).
    func shutdown()
}

public enum ServeListeners {
    /// Starts a server on host and port for a session; nil in a build without one.
    nonisolated(unsafe) public static var make: ((String, Int, ServeSession) throws -> any ServeListener)?
}

/// `outbox bench --only serve`'s load runs, which need the HTTP server: the
/// executable sets them (OutboxServer's `ServeBench.install`), as it sets `make`.
public enum ServeBenchmarks {
    public enum Server: Sendable { case bare, serve }
    /// Requests a second to N closed-loop keep-alive connections for S seconds,
    /// and the events observed; nil when it could not run.
    nonisolated(unsafe) public static var throughput: ((Server, Int, Double) -> (perSecond: Double, events: Int)?)?
    /// Each answer's latency in µs, sorted, at R requests a second for S seconds.
    nonisolated(unsafe) public static var latency: ((Server, Int, Double) -> [Double]?)?
}
