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
        terminalSize(fd)?.columns
    }

    /// The size of the terminal on `fd`, or nil when it is not a terminal
    /// (`outbox --cast` writes it in the recording's header).
    static func terminalSize(_ fd: Int32) -> (columns: Int, rows: Int)? {
        guard isatty(fd) == 1 else { return nil }
        var ws = winsize()
        #if canImport(Darwin)
            let r = ioctl(fd, TIOCGWINSZ, &ws)
        #else
            let r = ioctl(fd, UInt(TIOCGWINSZ), &ws)
        #endif
        return r == 0 && ws.ws_col > 0 ? (Int(ws.ws_col), Int(ws.ws_row)) : nil
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

extension Platform {
    /// Why a file could not be created.
    enum CreateFailure: Error, Equatable {
        /// Something is already there and `replace` was not given.
        case exists
        case other(String)
    }

    /// Opens a file to write: a new one (`replace` false: anything already at the
    /// path is refused and left as it is), or one emptied first (`replace`).
    /// Never through a symbolic link, and only a regular file; `append` opens it
    /// with O_APPEND, so each `write` lands whole at the end (a recording).
    static func create(_ path: String, replace: Bool, append: Bool) -> Result<Int32, CreateFailure> {
        var flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        flags |= replace ? O_TRUNC : O_EXCL
        if append { flags |= O_APPEND }
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else {
            let e = errno
            if e == EEXIST { return .failure(.exists) }
            if e == ELOOP { return .failure(.other("it is a symbolic link")) }
            if e == EISDIR { return .failure(.other("it is a directory")) }
            if e == ENOENT { return .failure(.other("its folder does not exist")) }
            return .failure(.other(errorText(e)))
        }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return .failure(.other("it is not a regular file"))
        }
        return .success(fd)
    }

    static func closeFile(_ fd: Int32) {
        _ = close(fd)
    }

    /// Removes a file this process made and will not keep (a recording that never started).
    static func remove(_ path: String) {
        _ = unlink(path)
    }
}

extension Platform {
    /// Whether anything (a file, a directory, a link, even a broken one) is at `path`.
    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }
}
