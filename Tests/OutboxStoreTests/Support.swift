import Foundation
import OutboxTestSupport
import XCTest

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The `outbox` executable built with these tests, or nil.
///
/// SwiftPM puts it beside the test bundle: on macOS the bundle is
/// `.build/<config>/OutboxPackageTests.xctest`, on Linux the test binary itself is
/// in `.build/<config>/`. `OUTBOX_BINARY` names another one; the package's
/// `.build/debug/outbox` is the last resort. Only a regular executable file counts.
func builtBinary() -> String? {
    var candidates: [String] = []
    if let env = ProcessInfo.processInfo.environment["OUTBOX_BINARY"], !env.isEmpty { candidates.append(env) }
    let bundle = Bundle(for: StoreTests.self).bundleURL
    candidates.append(bundle.deletingLastPathComponent().appendingPathComponent("outbox").path)
    candidates.append(bundle.appendingPathComponent("outbox").path)
    if let exe = Bundle.main.executableURL {
        candidates.append(exe.deletingLastPathComponent().appendingPathComponent("outbox").path)
    }
    candidates.append(packageRoot + "/.build/debug/outbox")
    return candidates.first { path in
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
    }
}

/// The built binary, or a skip saying why the test cannot run.
func requireBinary() throws -> String {
    guard let b = builtBinary() else {
        throw XCTSkip(
            "the built `outbox` executable was not found beside the test bundle or in .build/debug; build it (`swift build`) or set OUTBOX_BINARY"
        )
    }
    return b
}

/// Starts `args` (args[0] a path) with stdin from /dev/null and stdout and stderr
/// to files; its pid, or nil when it could not start. Callers signal only this pid.
/// `environment` adds or replaces variables (`NAME=value`) of this process's.
func spawnChild(_ args: [String], stdout: String, stderr: String = "/dev/null", environment: [String] = []) -> pid_t? {
    var pid: pid_t = 0
    #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t = nil
    #else
        var actions = posix_spawn_file_actions_t()
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
    let names = Set(environment.map { $0.prefix { $0 != "=" } })
    let inherited = ProcessInfo.processInfo.environment.filter { !names.contains(Substring($0.key)) }.map { "\($0)=\($1)" }
    let envp: [UnsafeMutablePointer<CChar>?] = (environment + inherited).map { strdup($0) } + [nil]
    defer { for a in argv + envp { free(a) } }
    guard posix_spawn(&pid, args[0], &actions, nil, argv, envp) == 0, pid > 0 else { return nil }
    return pid
}

/// Waits for a child started here; its exit status, or 128 + the signal that ended it.
func waitExit(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}

#if !canImport(Darwin)
    // Glibc's module map leaves out the pseudo-terminal calls (they sit behind
    // _XOPEN_SOURCE): declared here by their C names, for the tests only.
    @_silgen_name("posix_openpt") func posix_openpt(_ flags: Int32) -> Int32
    @_silgen_name("grantpt") func grantpt(_ fd: Int32) -> Int32
    @_silgen_name("unlockpt") func unlockpt(_ fd: Int32) -> Int32
    @_silgen_name("ptsname") func ptsname(_ fd: Int32) -> UnsafeMutablePointer<CChar>?
#endif

/// Runs `args` on a new pseudo-terminal (TERM=xterm) until it exits; its exit
/// status and everything it wrote to the terminal.
func runOnTerminal(_ args: [String]) -> (status: Int32, output: String)? {
    let master = posix_openpt(O_RDWR | O_NOCTTY)
    guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else { return nil }
    defer { close(master) }
    let slave = String(cString: name)
    var pid: pid_t = 0
    #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t = nil
    #else
        var actions = posix_spawn_file_actions_t()
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, slave, O_RDWR, 0) }
    let argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
    defer { for a in argv { free(a) } }
    let env = ["TERM=xterm", "HOME=" + NSTemporaryDirectory(), "PATH=/usr/bin:/bin"]
    let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
    defer { for e in envp { free(e) } }
    guard posix_spawn(&pid, args[0], &actions, nil, argv, envp) == 0, pid > 0 else { return nil }
    var output: [UInt8] = []
    var status: Int32 = 0
    var exited = false
    // Read while it runs (a full terminal buffer would stop it), then what is left.
    while true {
        var p = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        if poll(&p, 1, 50) > 0 {
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = read(master, &buf, buf.count)
            if n > 0 {
                output += buf[0..<n]
                continue
            }
            if exited { break }
            usleep(10_000)
        } else if exited {
            break
        }
        if !exited && waitpid(pid, &status, WNOHANG) == pid { exited = true }
    }
    let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return (code, String(decoding: output, as: UTF8.self))
}

/// Runs `body` as a user without the test's rights: when the tests run as root
/// (who may write any file), the effective user and group become nobody's for the
/// call; otherwise the permission bits the test set already apply.
func withoutRoot<T>(_ body: () throws -> T) rethrows -> T {
    guard geteuid() == 0 else { return try body() }
    guard setegid(65534) == 0, seteuid(65534) == 0 else {
        _ = seteuid(0)
        _ = setegid(0)
        return try body()
    }
    defer {
        _ = seteuid(0)
        _ = setegid(0)
    }
    return try body()
}

/// A file's bytes, or nil when it cannot be read.
func bytes(_ path: String) -> Data? {
    FileManager.default.contents(atPath: path)
}
