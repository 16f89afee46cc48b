#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The command line's calls into the C library, in one place with a branch per
/// platform where they differ (docs/reliability.md).
enum Platform {
    /// Why a write failed.
    enum WriteFailure: Error, Equatable {
        /// The reader went away (`outbox run FILE | head`): not worth a message.
        case brokenPipe
        case other(String)
    }

    /// Writes all of `bytes` to `fd`, retrying short and interrupted writes.
    static func write(_ fd: Int32, _ bytes: [UInt8]) -> WriteFailure? {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { buf in
                #if canImport(Darwin)
                    Darwin.write(fd, buf.baseAddress! + done, buf.count - done)
                #else
                    Glibc.write(fd, buf.baseAddress! + done, buf.count - done)
                #endif
            }
            if n < 0 {
                if errno == EINTR { continue }
                return errno == EPIPE ? .brokenPipe : .other(errorText(errno))
            }
            if n == 0 { return .other("nothing was written") }
            done += n
        }
        return nil
    }

    /// Writes to a closed pipe fail with EPIPE instead of killing the process.
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// The C library's text for an errno value, e.g. "No space left on device".
    static func errorText(_ code: Int32) -> String {
        guard let p = strerror(code) else { return "error \(code)" }
        return String(cString: p)
    }

    /// The width of the terminal on `fd` in columns, or nil when it is not a
    /// terminal (`outbox compare` lays its tables out to it).
    static func terminalColumns(_ fd: Int32) -> Int? {
        guard isatty(fd) == 1 else { return nil }
        var ws = winsize()
        #if canImport(Darwin)
            let r = ioctl(fd, TIOCGWINSZ, &ws)
        #else
            let r = ioctl(fd, UInt(TIOCGWINSZ), &ws)
        #endif
        return r == 0 && ws.ws_col > 0 ? Int(ws.ws_col) : nil
    }

    /// Why a file could not be read.
    struct ReadFailure: Error, Equatable {
        let message: String
        /// The line it concerns (1 when the whole file is at fault).
        var line = 1
    }

    /// Reads a whole file of at most `limit` bytes. A directory, a file past the
    /// limit and any error of the system are failures that say what was wrong.
    static func readFile(_ path: String, limit: Int) -> Result<[UInt8], ReadFailure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(ReadFailure(message: errorText(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(ReadFailure(message: errorText(errno))) }
        if (st.st_mode & S_IFMT) == S_IFDIR { return .failure(ReadFailure(message: "it is a directory")) }
        var out: [UInt8] = []
        if (st.st_mode & S_IFMT) == S_IFREG {
            out.reserveCapacity(min(Int(st.st_size), limit) + 1)
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { buf in read(fd, buf.baseAddress!, buf.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(ReadFailure(message: errorText(errno)))
            }
            if n == 0 { break }
            if out.count + n > limit {
                return .failure(
                    ReadFailure(message: "it is larger than \(limit / (1 << 20)) MB, the most Outbox reads"))
            }
            out.append(contentsOf: chunk[0..<n])
        }
        return .success(out)
    }
}
