import CNcurses

/// A program running on a pseudo-terminal, read and typed into by `outbox bench`.
public final class PseudoTerminal {
    public let pid: pid_t
    private let fd: Int32
    /// Everything the program wrote so far.
    public private(set) var output: [UInt8] = []

    /// Starts `args` (args[0] a path) on a new pseudo-terminal of the given size.
    public init?(_ args: [String], rows: Int, cols: Int) {
        let argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var master: Int32 = -1
        let p = argv.withUnsafeBufferPointer { outbox_spawn_pty($0.baseAddress, Int32(rows), Int32(cols), &master) }
        guard p > 0 else { return nil }
        pid = p
        fd = master
    }

    deinit {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(fd)
    }

    public func type(_ text: String) {
        _ = text.withCString { write(fd, $0, strlen($0)) }
    }

    /// Reads until the output from `from` on contains `marker`; false on timeout.
    public func wait(for marker: String, from: Int = 0, timeoutMs: Int = 10_000) -> Bool {
        let needle = Array(marker.utf8)
        var waited = 0
        while waited < timeoutMs {
            if contains(needle, from: from) { return true }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, 5)
            waited += 5
            if r > 0 {
                var buf = [UInt8](repeating: 0, count: 65536)
                let n = read(fd, &buf, buf.count)
                if n <= 0 { return contains(needle, from: from) }
                output.append(contentsOf: buf[0..<n])
            }
        }
        return contains(needle, from: from)
    }

    /// Reads until the program has written nothing for `quietMs` (the end of a
    /// frame: curses writes a frame in one burst), or `capMs` have passed.
    public func settle(quietMs: Int = 15, capMs: Int = 500) {
        var waited = 0, quiet = 0
        while waited < capMs && quiet < quietMs {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, 5)
            waited += 5
            guard r > 0 else {
                quiet += 5
                continue
            }
            var buf = [UInt8](repeating: 0, count: 65536)
            let n = read(fd, &buf, buf.count)
            if n <= 0 { return }
            output.append(contentsOf: buf[0..<n])
            quiet = 0
        }
    }

    private func contains(_ needle: [UInt8], from: Int) -> Bool {
        guard output.count - from >= needle.count, !needle.isEmpty else { return false }
        var i = max(0, from)
        while i + needle.count <= output.count {
            if output[i] == needle[0] && Array(output[i..<(i + needle.count)]) == needle { return true }
            i += 1
        }
        return false
    }

    /// Asks the program to stop (SIGTERM) and returns at once, without waiting:
    /// `deinit` kills and reaps it.
    public func stop() {
        kill(pid, SIGTERM)
    }
}
