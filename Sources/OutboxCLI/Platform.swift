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
        /// The line it concerns; nil when the whole file is at fault (no such file,
        /// a directory, too large): a message then names no line.
        var line: Int? = nil
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

    /// Forces a file's written bytes to the disk; why it failed, or nil.
    static func syncFile(_ fd: Int32) -> String? {
        while fsync(fd) != 0 {
            if errno == EINTR { continue }
            return errorText(errno)
        }
        return nil
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

    /// The path with every symbolic link, `.` and `..` resolved (`realpath`);
    /// nil when something on the way does not exist.
    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}

extension Platform {
    /// What a watched file looks like: which file is at the path (a rename puts
    /// another there), its size and when it last changed. nil: nothing is there.
    struct FileStamp: Equatable {
        let device: UInt64, inode: UInt64, size: Int64, seconds: Int64, nanoseconds: Int64
    }

    static func stamp(_ path: String) -> FileStamp? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        #if canImport(Darwin)
            let (s, ns) = (Int64(st.st_mtimespec.tv_sec), Int64(st.st_mtimespec.tv_nsec))
        #else
            let (s, ns) = (Int64(st.st_mtim.tv_sec), Int64(st.st_mtim.tv_nsec))
        #endif
        return FileStamp(
            device: UInt64(truncatingIfNeeded: st.st_dev), inode: UInt64(truncatingIfNeeded: st.st_ino),
            size: Int64(st.st_size), seconds: s, nanoseconds: ns)
    }

    /// Waits for files to change (`outbox run --watch`): written, replaced (an
    /// editor that saves by renaming), removed or created. On Linux inotify on
    /// their folders wakes it; elsewhere it looks every 300 ms. Either way the
    /// stamps decide, so a change to another file in a folder wakes it for nothing.
    final class FileWatcher {
        /// The inotify descriptor, or -1 (not Linux, or inotify is unavailable).
        private var fd: Int32 = -1
        /// The folders watched so far (inotify watches a folder once).
        private var folders = Set<String>()
        /// Some folder could not be watched: look every 300 ms as well.
        private var blind = false

        init() {
            #if canImport(Glibc)
                fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
            #endif
        }

        deinit { if fd >= 0 { _ = close(fd) } }

        /// Blocks until the stamp of one of `paths` differs from `seen` (the
        /// stamps they had when last read, in the same order), then until the
        /// files hold still for 100 ms, so a save in several writes is one change.
        func wait(for paths: [String], seen: [FileStamp?]) {
            watchFolders(of: paths)
            while paths.map(Platform.stamp) == seen { sleep() }
            var last = paths.map(Platform.stamp)
            while true {
                usleep(100_000)
                let now = paths.map(Platform.stamp)
                if now == last { return }
                last = now
            }
        }

        private func watchFolders(of paths: [String]) {
            #if canImport(Glibc)
                guard fd >= 0 else { return }
                for p in paths {
                    let folder = p.lastIndex(of: "/").map { $0 == p.startIndex ? "/" : String(p[..<$0]) } ?? "."
                    guard folders.insert(folder).inserted else { continue }
                    let mask = UInt32(
                        IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM)
                    if inotify_add_watch(fd, folder, mask) < 0 { blind = true }
                }
            #endif
        }

        /// Until something may have changed: an event on a watched folder (or a
        /// look every 2 s all the same), else 300 ms.
        private func sleep() {
            #if canImport(Glibc)
                if fd >= 0 {
                    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    _ = poll(&p, 1, blind ? 300 : 2000)
                    // The events only wake us: read them all and forget them.
                    var buf = [UInt8](repeating: 0, count: 4096)
                    while buf.withUnsafeMutableBytes({ read(fd, $0.baseAddress!, $0.count) }) > 0 {}
                    return
                }
            #endif
            usleep(300_000)
        }
    }
}

extension Platform {
    /// This process's resident memory in bytes now, or 0 when it cannot be told
    /// (`outbox bench`): Linux's /proc/self/statm, macOS's Mach task info.
    static func residentBytes() -> Int {
        #if canImport(Darwin)
            var info = mach_task_basic_info()
            var count = mach_msg_type_number_t(MemoryLayout<mach_task_basic_info>.size / MemoryLayout<natural_t>.size)
            let r = withUnsafeMutablePointer(to: &info) {
                $0.withMemoryRebound(to: integer_t.self, capacity: Int(count)) {
                    task_info(mach_task_self_, task_flavor_t(MACH_TASK_BASIC_INFO), $0, &count)
                }
            }
            return r == KERN_SUCCESS ? Int(info.resident_size) : 0
        #else
            // "size resident shared ...", in pages.
            guard case .success(let bytes) = readFile("/proc/self/statm", limit: 4096) else { return 0 }
            let fields = bytes.split(separator: UInt8(ascii: " "))
            guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return 0 }
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #endif
    }

    /// Runs `args` (args[0] a path) with its output to /dev/null and waits: its
    /// peak resident bytes (its own, from `wait4`) and its exit status (128 + the
    /// signal when a signal ended it, as a shell shows it); nil if it did not start.
    static func runQuietly(_ args: [String]) -> (peakBytes: Int, status: Int32)? {
        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t?
            let maxrssUnit = 1  // bytes on macOS
        #else
            var actions = posix_spawn_file_actions_t()
            let maxrssUnit = 1024  // kilobytes on Linux
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, args[0], &actions, nil, argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { return nil }
        }
        let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (Int(usage.ru_maxrss) * maxrssUnit, code)
    }
}

extension Platform {
    /// Replaces a file's contents whole or not at all: the bytes go to a new
    /// file beside it (given the old one's permission bits), which is then
    /// renamed over it. A symbolic link is followed: the file it names is
    /// replaced and the link stays. Returns why it failed, or nil.
    static func replaceAtomically(_ path: String, with bytes: [UInt8]) -> String? {
        guard let resolved = realpath(path, nil) else { return errorText(errno) }
        let target = String(cString: resolved)
        free(resolved)
        var st = stat()
        guard stat(target, &st) == 0 else { return errorText(errno) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return "it is not a regular file" }
        let slash = target.lastIndex(of: "/")
        let dir = slash.map { String(target[...$0]) } ?? ""
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        let temp = dir + "." + name + ".update-\(getpid())"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return "cannot make \(temp): " + errorText(errno) }
        var failure: String?
        if let why = write(fd, bytes) {
            if case .other(let text) = why {
                failure = "cannot write \(temp): " + text
            } else {
                failure = "cannot write \(temp)"
            }
        } else if fchmod(fd, st.st_mode & 0o7777) != 0 {
            failure = "cannot give \(temp) the file's permissions: " + errorText(errno)
        } else if fsync(fd) != 0 {
            failure = "cannot write \(temp): " + errorText(errno)
        }
        close(fd)
        if failure == nil && rename(temp, target) != 0 {
            failure = "cannot rename \(temp) over it: " + errorText(errno)
        }
        if failure != nil { unlink(temp) }
        return failure
    }
}
