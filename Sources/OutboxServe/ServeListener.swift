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
    /// The session as it is now.
    var snapshot: ServeSession { get }
    /// Stops serving.
    func shutdown()
}

public enum ServeListeners {
    /// Starts a server on host and port for a session; nil in a build without one.
    nonisolated(unsafe) public static var make: ((String, Int, ServeSession) throws -> any ServeListener)?
}
