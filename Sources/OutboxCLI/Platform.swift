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

    /// Opens /dev/null on each of descriptors 0, 1 and 2 that is closed
    /// (`outbox run ... >&-`), so that no file Outbox opens later (the device's
    /// lock, a recording) takes the number and gets the output meant for it.
    /// Returns the ones that were closed: writes meant for them fail as writes to
    /// a closed descriptor do (`Console`).
    static func fillClosedStandardDescriptors() -> Set<Int32> {
        var closed = Set<Int32>()
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            closed.insert(fd)
            let null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY)
            // Lower ones are open by now, so open gives `fd` itself; else moved there.
            if null >= 0 && null != fd {
                _ = dup2(null, fd)
                _ = close(null)
            }
        }
        return closed
    }

    /// Writes to a closed pipe fail with EPIPE instead of killing the process;
    /// and writes past a file size limit (`ulimit -f`) fail with EFBIG instead
    /// of SIGXFSZ killing it with the terminal still raw: a full disk's path.
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
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

    /// Whether a descriptor is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Why a file could not be read.
    struct ReadFailure: Error, Equatable {
        let message: String
        /// The line it concerns; nil when the whole file is at fault (no such file,
        /// a directory, too large): a message then names no line.
        var line: Int? = nil
    }

    /// Reads a whole file of at most `limit` bytes. A directory, a file past the
    /// limit and any error of the system are failures that say what was wrong.
    /// Only a regular file is read: a FIFO, a terminal (`/dev/tty`), a device or
    /// a socket is refused at once by what it is (`it is a FIFO, expected a
    /// regular file`), never opened in a way that waits, so a path named inside a
    /// file or in an option cannot hang Outbox. `streams` lets a pipe or a
    /// terminal be read as a stream, blocking as `cat` would: only for a
    /// scenario file named on the command line (`outbox run <(...)`, `/dev/stdin`).
    static func readFile(_ path: String, limit: Int, streams: Bool = false) -> Result<[UInt8], ReadFailure> {
        readStamped(path, limit: limit, streams: streams).map(\.bytes)
    }

    /// `readFile`, with the stamp of the file read (from the descriptor it was
    /// read through, after the read): `run --update` replaces the file only if
    /// it is still this one.
    static func readStamped(_ path: String, limit: Int, streams: Bool = false) -> Result<
        (bytes: [UInt8], stamp: FileStamp), ReadFailure
    > {
        // Looked at before it is opened: opening a device may itself do something.
        var before = stat()
        guard stat(path, &before) == 0 else { return .failure(ReadFailure(message: errorText(errno))) }
        if let refusal = readRefusal(before.st_mode, streams: streams) { return .failure(refusal) }
        // O_NONBLOCK: a FIFO put at the path since the look is opened without waiting for a writer.
        let stream = (before.st_mode & S_IFMT) != S_IFREG
        let fd = open(path, O_RDONLY | O_CLOEXEC | (stream ? 0 : O_NONBLOCK))
        guard fd >= 0 else { return .failure(ReadFailure(message: errorText(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(ReadFailure(message: errorText(errno))) }
        if let refusal = readRefusal(st.st_mode, streams: streams) { return .failure(refusal) }
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
        var after = stat()
        guard fstat(fd, &after) == 0 else { return .failure(ReadFailure(message: errorText(errno))) }
        return .success((out, stamp(of: after)))
    }

    /// Why a file of this type is not read, or nil (a regular file; with
    /// `streams`, a FIFO or a terminal too).
    private static func readRefusal(_ mode: mode_t, streams: Bool) -> ReadFailure? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return ReadFailure(message: "it is a directory")
        case S_IFIFO, S_IFCHR:
            if streams { return nil }
            return ReadFailure(message: "it is \(kind(mode)), expected a regular file")
        default: return ReadFailure(message: "it is \(kind(mode)), expected a regular file")
        }
    }

    /// What a file of this mode is, for messages: "a FIFO", "a character device" ...
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFLNK: return "a symbolic link"
        default: return "not a regular file"
        }
    }

    /// Makes a FIFO (tests of the refusals above); 0 or the errno.
    static func makeFIFO(_ path: String) -> Int32 {
        mkfifo(path, 0o644) == 0 ? 0 : errno
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
            // A FIFO no one reads says ENXIO ("No such device or address"): say what it is.
            if let what = notAFile(path) { return .failure(.other(what)) }
            return .failure(.other(errorText(e)))
        }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return .failure(.other(notAFile(path) ?? "it is not a regular file"))
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
    /// This user's home folder, for `~/` in a profile path, the user profiles
    /// folder and an export's path: HOME when it is an absolute path, else the
    /// user database's (`getpwuid`), as the state directory's default is found
    /// (a relative HOME would move with the working folder, an empty one would be
    /// the root); nil when neither is an absolute path.
    static func homeFolder() -> String? {
        if let h = getenv("HOME").map({ String(cString: $0) }), h.hasPrefix("/") { return h }
        guard let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir else { return nil }
        let home = String(cString: dir)
        return home.hasPrefix("/") ? home : nil
    }

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
        return stamp(of: st)
    }

    static func stamp(of st: stat) -> FileStamp {
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
    /// Replaces a file's contents whole or not at all: `prepareReplace`, then
    /// `landReplace`. Returns why it failed, or nil.
    static func replaceAtomically(_ path: String, with bytes: [UInt8]) -> String? {
        switch prepareReplace(path, with: bytes, unless: nil) {
        case .failure(let why): return why.message
        case .success(let pending):
            if let why = landReplace(pending) {
                discardReplace(pending)
                return why
            }
            return nil
        }
    }

    /// What a file held when it was read: `run --update` replaces it only if it
    /// still holds it.
    struct ReadContents {
        let bytes: [UInt8]
        let stamp: FileStamp
    }

    /// Why a file is not replaced.
    struct ReplaceFailure: Error, Equatable {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// A replacement ready to land: the new bytes whole in a temporary file
    /// beside the target, with its owner and mode.
    struct PendingReplace {
        /// The file replaced (a symbolic link followed) and the temporary.
        let target: String, temp: String
        let expected: ReadContents?
        /// Temporaries of earlier writes that were killed, removed on the way, and who left each.
        let removedStale: [StaleTemporary]
    }

    /// Checks a file may be replaced and writes its new bytes beside it: the
    /// first half of an update that is whole or not at all, for several files
    /// together (every file prepared before any is renamed). A symbolic link is
    /// followed: the file it names is replaced and the link stays. Refused, with
    /// why (nothing left behind):
    /// - a file that changed since it was read (`expected`: its stamp, then its bytes);
    /// - a file with other names (hard links), which a rename would leave with the old text;
    /// - a read-only file: judged by its mode bits for this user's class (owner,
    ///   group, others; root as the owner, since the kernel lets root write
    ///   anything), then by `access` (a read-only file system, an ACL);
    /// - a file whose owner and group the new file cannot be given (`fchown`).
    /// The temporary is `.NAME.update-PID`, mode 0600 until it is whole; the
    /// folder's temporaries left by killed writes (`removeStaleTemporaries`) are removed first.
    static func prepareReplace(_ path: String, with bytes: [UInt8], unless expected: ReadContents?) -> Result<
        PendingReplace, ReplaceFailure
    > {
        guard let resolved = realpath(path, nil) else { return .failure(ReplaceFailure(errorText(errno))) }
        let target = String(cString: resolved)
        free(resolved)
        var st = stat()
        guard stat(target, &st) == 0 else { return .failure(ReplaceFailure(errorText(errno))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            return .failure(ReplaceFailure("it is \(kind(st.st_mode)), expected a regular file"))
        }
        if let expected, let why = changed(target, since: expected) { return .failure(ReplaceFailure(why)) }
        if st.st_nlink > 1 {
            return .failure(
                ReplaceFailure(
                    "it has \(st.st_nlink) names (hard links), and the others would keep the old text; "
                        + "expected a file with one name (update a copy, or edit it by hand)"))
        }
        if let why = readOnly(target, st) { return .failure(ReplaceFailure(why)) }
        let slash = target.lastIndex(of: "/")
        let dir = slash.map { String(target[...$0]) } ?? ""
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        let stale = removeStaleTemporaries(in: dir)
        let temp = dir + "." + name + ".update-\(getpid())"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return .failure(ReplaceFailure("cannot make \(temp): " + errorText(errno))) }
        var failure: String?
        var made = stat()
        if let why = write(fd, bytes) {
            if case .other(let text) = why {
                failure = "cannot write \(temp): " + text
            } else {
                failure = "cannot write \(temp)"
            }
        } else if fstat(fd, &made) != 0 {
            failure = "cannot write \(temp): " + errorText(errno)
        } else if (made.st_uid != st.st_uid || made.st_gid != st.st_gid) && fchown(fd, st.st_uid, st.st_gid) != 0 {
            // Before the mode: a change of owner may clear set-id bits.
            failure =
                "cannot give the new file its owner and group (uid \(st.st_uid), gid \(st.st_gid)): "
                + errorText(errno) + "; expected a file this user owns (or update it as its owner)"
        } else if fchmod(fd, st.st_mode & 0o7777) != 0 {
            failure = "cannot give \(temp) the file's permissions: " + errorText(errno)
        } else if fsync(fd) != 0 {
            failure = "cannot write \(temp): " + errorText(errno)
        }
        close(fd)
        if let failure {
            unlink(temp)
            return .failure(ReplaceFailure(failure))
        }
        return .success(PendingReplace(target: target, temp: temp, expected: expected, removedStale: stale))
    }

    /// Renames a prepared temporary over its file, once more making sure the
    /// file still holds what was read. Why it failed, or nil; on a failure the
    /// temporary is still there, for `discardReplace`.
    static func landReplace(_ p: PendingReplace) -> String? {
        if let expected = p.expected, let why = changed(p.target, since: expected) { return why }
        if rename(p.temp, p.target) != 0 { return "cannot rename \(p.temp) over it: " + errorText(errno) }
        return nil
    }

    /// Whether a prepared file still holds what was read: its stamp, then its bytes; why not, or nil.
    static func stillAsRead(_ p: PendingReplace) -> String? {
        p.expected.flatMap { changed(p.target, since: $0) }
    }

    /// Removes a prepared temporary that will not be renamed.
    static func discardReplace(_ p: PendingReplace) {
        unlink(p.temp)
    }

    /// Why `path` no longer holds what was read (another file at the path, or
    /// the same one with another size, time or bytes), or nil.
    private static func changed(_ path: String, since expected: ReadContents) -> String? {
        let message =
            "it changed on disk while the run played (saved by an editor, or another update?); "
            + "expected the file as it was read: run --update again"
        guard let now = stamp(path), now == expected.stamp else { return message }
        // The time may not move for a quick write (a coarse clock): the bytes decide too.
        guard case .success(let again) = readFile(path, limit: expected.bytes.count + 1), again == expected.bytes
        else { return message }
        return nil
    }

    /// Why this user may not write the file, or nil. The mode bits of the
    /// class the user is in decide first (root is judged as the owner: the
    /// kernel would let root write a 0444 file, which its owner made read-only);
    /// then `access`, for what the bits do not show.
    private static func readOnly(_ path: String, _ st: stat) -> String? {
        let uid = geteuid()
        let bit: mode_t
        if uid == 0 || uid == st.st_uid {
            bit = S_IWUSR
        } else if isMember(of: st.st_gid) {
            bit = S_IWGRP
        } else {
            bit = S_IWOTH
        }
        let mode = String(st.st_mode & 0o7777, radix: 8)
        let shown = String(repeating: "0", count: max(0, 4 - mode.count)) + mode
        if st.st_mode & bit == 0 {
            return
                "it is read-only (mode \(shown)); expected a file you may write: make it writable first (chmod u+w), or edit it by hand"
        }
        if faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0 {
            let e = errno
            if e == EROFS { return "it is on a read-only file system" }
            return "it is read-only for this user (" + errorText(e) + ")"
        }
        return nil
    }

    private static func isMember(of gid: gid_t) -> Bool {
        if getegid() == gid { return true }
        let n = getgroups(0, nil)
        guard n > 0 else { return false }
        var groups = [gid_t](repeating: 0, count: Int(n))
        let got = getgroups(n, &groups)
        return got > 0 && groups.prefix(Int(got)).contains(gid)
    }

    /// Outbox's hidden temporaries, each beside the file it becomes, named
    /// with the pid of the process that writes it: `.outbox-export-PID`,
    /// `.outbox-record-PID` and `.outbox-cast-PID` (each maybe `-N`, when the
    /// name was taken), and `--update`'s `.NAME.update-PID` (NAME: the file it
    /// replaces, in the same folder). A kill before the rename leaves one: the
    /// next write of Outbox in that folder removes it (`removeStaleTemporaries`).
    enum TemporaryKind: String {
        case export, record, cast
        /// Who leaves a temporary of this kind, for the note that one was removed.
        var writer: String {
            switch self {
            case .export: return "an export"
            case .record: return "a recording"
            case .cast: return "a cast"
            }
        }
    }

    /// A temporary removed because its writer was gone: its path, and who left
    /// it ("an export", "a recording", "a cast", "an update").
    typealias StaleTemporary = (path: String, writer: String)

    /// A hidden file made by `createTemporary`: its path, the descriptor open
    /// on it, and the stale temporaries removed from its folder on the way.
    typealias Temporary = (path: String, fd: Int32, removedStale: [StaleTemporary])

    /// The pid in `name` when it is one of Outbox's temporaries (`TemporaryKind`),
    /// and who writes it; an update's only when its file is among `names` (the folder's).
    static func temporary(_ name: String, among names: Set<String>) -> (pid: Int32, writer: String)? {
        func pid<S: StringProtocol>(_ digits: S) -> Int32? {
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let p = Int32(digits), p > 0
            else { return nil }
            return p
        }
        for kind in [TemporaryKind.export, .record, .cast] {
            let prefix = ".outbox-\(kind.rawValue)-"
            guard name.hasPrefix(prefix) else { continue }
            let rest = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
            guard rest.count == 1 || (rest.count == 2 && pid(rest[1]) != nil), let p = pid(rest[0]) else { return nil }
            return (p, kind.writer)
        }
        // `.NAME.update-PID`
        let digits = name.utf8.reversed().prefix { $0 >= 0x30 && $0 <= 0x39 }.count
        let head = name.utf8.dropLast(digits)
        let suffix = ".update-".utf8
        guard name.hasPrefix("."), head.count > suffix.count + 1, head.reversed().starts(with: suffix.reversed()),
            let p = pid(String(decoding: name.utf8.suffix(digits), as: UTF8.self))
        else { return nil }
        let file = String(decoding: head.dropFirst().dropLast(suffix.count), as: UTF8.self)
        guard names.contains(file) else { return nil }
        return (p, "an update")
    }

    /// Removes Outbox's temporaries in `dir` (`temporary(_:among:)`) whose
    /// process is gone (`kill(pid, 0)` says no such process): left by a write
    /// killed before its rename. One of a live pid, of another user's process
    /// (EPERM) or of this process is left alone, as is anything not a regular
    /// file. Returns what was removed: each path and who left it.
    static func removeStaleTemporaries(in dir: String) -> [StaleTemporary] {
        var removed: [StaleTemporary] = []
        let all = names(in: dir.isEmpty ? "." : dir)
        let set = Set(all)
        for name in all.sorted() {
            guard let (pid, writer) = temporary(name, among: set) else { continue }
            // This process's own may be another file's of this write (a link and its target).
            guard pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            let path = dir + name
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            if unlink(path) == 0 { removed.append((path, writer)) }
        }
        return removed
    }

    /// The folder part of `path` with its slash (`dir/`), or "" for a bare name.
    static func folder(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
    }

    /// A new hidden file of `kind` beside `path` (`.outbox-KIND-PID`, or
    /// `-PID-N` when taken), opened to write (O_EXCL, no link followed), after
    /// the stale temporaries of that folder are removed.
    static func createTemporary(beside path: String, _ kind: TemporaryKind, append: Bool = false) -> Result<
        Temporary, CreateFailure
    > {
        let folder = folder(of: path)
        let stale = removeStaleTemporaries(in: folder)
        var temp = "", fd: Int32 = -1
        for n in 0..<100 {
            temp = folder + ".outbox-\(kind.rawValue)-\(getpid())" + (n == 0 ? "" : "-\(n)")
            fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | (append ? O_APPEND : 0), 0o644)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else {
            let e = errno
            if e == ENOENT { return .failure(.other("its folder does not exist")) }
            return .failure(.other(errorText(e)))
        }
        return .success((temp, fd, stale))
    }

    /// The permission bits of the regular file at `path` (no link followed), or nil.
    static func fileMode(_ path: String) -> UInt32? {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return UInt32(st.st_mode & 0o7777)
    }

    /// Puts a whole temporary (from `createTemporary`) in place of the regular
    /// file at `path`: given `mode` (the old file's bits), then renamed over it.
    /// Why not, or nil; on a failure the temporary is removed and `path` is as it was.
    static func replace(_ path: String, with temp: String, fd: Int32, mode: UInt32) -> String? {
        if fchmod(fd, mode_t(mode)) != 0 || rename(temp, path) != 0 {
            let why = errorText(errno)
            unlink(temp)
            return why
        }
        return nil
    }

    /// The names in a folder (`.` and `..` left out); none when it cannot be read.
    static func names(in dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var out: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { out.append(name) }
        }
        return out
    }
}

extension Platform {
    /// What is at `path` when it is something no file is written to (not
    /// following a link): "it is a symbolic link", "a directory", "a FIFO", "a
    /// device", "a socket"; nil for a regular file or nothing.
    static func notAFile(_ path: String) -> String? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFLNK: return "it is a symbolic link"
        case S_IFDIR: return "it is a directory"
        case S_IFIFO: return "it is a FIFO"
        case S_IFCHR, S_IFBLK: return "it is a device"
        case S_IFSOCK: return "it is a socket"
        default: return "it is not a regular file"
        }
    }

    /// Writes `bytes` to `fd`, as `write(_:_:)` does, within a test's byte
    /// budget: with `budget` set, only that many more bytes land and the write
    /// that would pass it lands its part and then fails as on a full disk
    /// (ENOSPC), as a real short write does. nil: no budget (every real write).
    static func write(_ fd: Int32, _ bytes: [UInt8], budget: inout Int?) -> WriteFailure? {
        guard let left = budget else { return write(fd, bytes) }
        let n = max(0, min(left, bytes.count))
        budget = left - n
        if n > 0, let f = write(fd, Array(bytes[0..<n])) { return f }
        return n < bytes.count ? .other(errorText(ENOSPC)) : nil
    }

    /// Appends `bytes` (whole lines) to a file this process alone writes at its
    /// end (a recording, a cast), whole or not at all: after a short or failed
    /// write (a full disk, a file size limit) the file is cut back to its size
    /// before (`ftruncate`), so it still ends with the last whole line. Why it
    /// failed, or nil; when even the cut failed, the reason says so.
    static func appendWhole(_ fd: Int32, _ bytes: [UInt8], budget: inout Int?) -> WriteFailure? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .other(errorText(errno)) }
        let before = st.st_size
        guard let failure = write(fd, bytes, budget: &budget) else { return nil }
        while ftruncate(fd, before) != 0 {
            if errno == EINTR { continue }
            let why = "and it could not be cut back to its last whole line: " + errorText(errno)
            if case .other(let w) = failure { return .other(w + ", " + why) }
            return .other("broken pipe, " + why)
        }
        return failure
    }

    /// Which file is open on `fd` (its device and inode), or nil.
    static func identity(of fd: Int32) -> (device: UInt64, inode: UInt64)? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return (UInt64(truncatingIfNeeded: st.st_dev), UInt64(truncatingIfNeeded: st.st_ino))
    }

    /// Whether two paths name one file: the same device and inode when both
    /// exist (whatever the spelling: `./F`, `dir/../F`, a link, a hard link, a
    /// case-insensitive disk); else the same last name in the same folder,
    /// its links resolved (`realpath`), for a file not made yet.
    static func sameFile(_ a: String, _ b: String) -> Bool {
        if let x = stamp(a), let y = stamp(b) { return x.device == y.device && x.inode == y.inode }
        func location(_ p: String) -> String? {
            let slash = p.lastIndex(of: "/")
            let name = slash.map { String(p[p.index(after: $0)...]) } ?? p
            let folder = slash.map { $0 == p.startIndex ? "/" : String(p[..<$0]) } ?? "."
            guard !name.isEmpty, name != ".", name != "..", let dir = realPath(folder) else { return nil }
            return (dir.hasSuffix("/") ? dir : dir + "/") + name
        }
        guard let x = location(a), let y = location(b) else { return false }
        return x == y
    }

    /// What `writeDocument` did: why it failed (nil: the document is in
    /// place), and the stale temporaries it removed from the folder on the way.
    struct DocumentWrite {
        let failure: CreateFailure?
        let removedStale: [StaleTemporary]
    }

    /// Writes a whole document (an export) to `path`, whole or not at all: the
    /// bytes go to a new hidden file beside it (`.outbox-export-PID`, see
    /// `TemporaryKind`), are forced to the disk, then take the path: by `link`
    /// for a new file (so a file that
    /// appeared there meanwhile is refused as `.exists`, never replaced), by
    /// `rename` over a regular file with `replace` (given its permission bits).
    /// On any failure the hidden file is removed and nothing at `path` changed:
    /// a full disk never leaves a half-written or empty file. A link, a
    /// directory, a FIFO or a device is refused by name at once (replace or not:
    /// it can never be written); a regular file there without `replace` is
    /// `.exists`. Temporaries that killed writes left in the folder are removed
    /// first. `budget` is the test seam of `write(_:_:budget:)`.
    static func writeDocument(_ path: String, _ bytes: [UInt8], replace: Bool, budget: Int? = nil)
        -> DocumentWrite
    {
        var removed: [StaleTemporary] = []
        let failure = writeDocument(path, bytes, replace: replace, budget: budget, removed: &removed)
        return DocumentWrite(failure: failure, removedStale: removed)
    }

    private static func writeDocument(
        _ path: String, _ bytes: [UInt8], replace: Bool, budget: Int?, removed: inout [StaleTemporary]
    ) -> CreateFailure? {
        var st = stat()
        var mode: mode_t = 0o644
        if lstat(path, &st) == 0 {
            if let what = notAFile(path) { return .other(what) }
            if !replace { return .exists }
            mode = st.st_mode & 0o7777
        } else if errno != ENOENT {
            return .other(errorText(errno))
        }
        let temp: String, fd: Int32
        switch createTemporary(beside: path, .export) {
        case .failure(let f): return f
        case .success(let t):
            (temp, fd, removed) = t
        }
        var left = budget
        var failure: String?
        if let f = write(fd, bytes, budget: &left) {
            if case .other(let why) = f { failure = why } else { failure = "broken pipe" }
        } else if replace && fchmod(fd, mode) != 0 {
            failure = errorText(errno)
        } else if let why = syncFile(fd) {
            failure = why
        }
        close(fd)
        if let failure {
            unlink(temp)
            return .other(failure)
        }
        if replace {
            guard rename(temp, path) == 0 else {
                let why = errorText(errno)
                unlink(temp)
                return .other(why)
            }
            return nil
        }
        if link(temp, path) != 0 {
            let e = errno
            // A file system without hard links: rename, if the path is still free.
            if e == EEXIST || lstat(path, &st) == 0 {
                unlink(temp)
                return notAFile(path).map { .other($0) } ?? .exists
            }
            guard e == EPERM || e == ENOTSUP || e == EOPNOTSUPP || e == EMLINK || e == EXDEV,
                rename(temp, path) == 0
            else {
                unlink(temp)
                return .other(errorText(e))
            }
            return nil
        }
        unlink(temp)
        return nil
    }
}
