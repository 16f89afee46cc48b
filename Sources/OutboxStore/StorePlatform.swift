#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The store's only contact with the C library: files, locks, the process.
/// Every open flag, `stat` field and `fcntl` call of the module is here, so the
/// macOS and Linux differences live in one place.
enum StorePlatform {
    /// What is at a path, without following a final symbolic link (`lstat`).
    enum Entry: Equatable {
        case missing
        case regular(size: Int64, links: Int, device: UInt64, inode: UInt64)
        case directory
        case symlink
        /// A FIFO, socket or device node.
        case other(String)
        /// `lstat` failed for another reason than the path being absent.
        case unreadable(String)

        /// For messages: what the path is, when it is not what was wanted.
        var word: String {
            switch self {
            case .missing: return "missing"
            case .regular: return "a regular file"
            case .directory: return "a directory"
            case .symlink: return "a symbolic link"
            case .other(let w): return w
            case .unreadable(let why): return "unreadable (\(why))"
            }
        }
    }

    static func entry(_ path: String) -> Entry {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            let e = errno
            return e == ENOENT || e == ENOTDIR ? .missing : .unreadable(describe(e))
        }
        return entry(st)
    }

    /// What an open descriptor is (`fstat`).
    static func entry(fd: Int32) -> Entry {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .unreadable(describe(errno)) }
        return entry(st)
    }

    private static func entry(_ st: stat) -> Entry {
        switch Int32(st.st_mode) & Int32(S_IFMT) {
        case Int32(S_IFREG):
            // dev_t is signed on macOS: its bits, not its value, identify the device.
            return .regular(
                size: Int64(st.st_size), links: Int(st.st_nlink), device: UInt64(bitPattern: Int64(st.st_dev)),
                inode: UInt64(st.st_ino))
        case Int32(S_IFDIR): return .directory
        case Int32(S_IFLNK): return .symlink
        case Int32(S_IFIFO): return .other("a FIFO")
        case Int32(S_IFSOCK): return .other("a socket")
        case Int32(S_IFCHR), Int32(S_IFBLK): return .other("a device node")
        default: return .other("not a regular file")
        }
    }

    /// Whether `path` (following links: a state directory may be reached through
    /// one) is a directory; nil when nothing is there.
    static func isDirectory(_ path: String) -> Bool? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Int32(st.st_mode) & Int32(S_IFMT) == Int32(S_IFDIR)
    }

    /// `mkdir`, 0755; 0 or the errno.
    static func makeDirectory(_ path: String) -> Int32 {
        mkdir(path, 0o755) == 0 ? 0 : errno
    }

    /// Whether this process may create and write files in `dir` (the effective
    /// user, as the kernel will judge it; a read-only file system says EROFS).
    /// 0 or the errno.
    static func canWriteDirectory(_ dir: String) -> Int32 {
        faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) == 0 ? 0 : errno
    }

    /// Opens (creating it when missing) a lock file for writing, never through a
    /// symbolic link, never truncating, without blocking on a FIFO.
    /// Never on descriptors 0 to 2 (a process started with stdout closed): a
    /// write meant for stdout must not land in it, so it is moved to 3 or above.
    static func openLockFile(_ path: String) -> (fd: Int32, errno: Int32) {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o644)
        guard fd >= 0 else { return (fd, errno) }
        guard fd <= 2 else { return (fd, 0) }
        let high = fcntl(fd, F_DUPFD_CLOEXEC, 3)
        let e = errno
        _ = closeFD(fd)
        return (high, high >= 0 ? 0 : e)
    }

    /// Opens a file to read it, never through a symbolic link.
    static func openForReading(_ path: String) -> (fd: Int32, errno: Int32) {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        return (fd, fd >= 0 ? 0 : errno)
    }

    static func read(_ fd: Int32, _ count: Int) -> [UInt8] {
        var buf = [UInt8](repeating: 0, count: count)
        let n = buf.withUnsafeMutableBytes { readFully(fd, $0.baseAddress!, count) }
        return Array(buf.prefix(max(0, n)))
    }

    private static func readFully(_ fd: Int32, _ p: UnsafeMutableRawPointer, _ count: Int) -> Int {
        var done = 0
        while done < count {
            let n = pread(fd, p + done, count - done, off_t(done))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            done += n
        }
        return done
    }

    static func close(_ fd: Int32) {
        _ = closeFD(fd)
    }

    /// What came of asking for the write lock on a whole file.
    enum LockResult: Equatable {
        case locked
        /// Held by another process; its pid when the kernel says (nil for an
        /// owner it does not name, like a lock on another host).
        case heldBy(Int32?)
        case failed(Int32)
    }

    /// An `fcntl` record lock on the whole file, not waiting. When another process
    /// holds it, the kernel names that process (`F_GETLK`).
    static func writeLock(_ fd: Int32) -> LockResult {
        for _ in 0..<3 {
            var fl = wholeFile(F_WRLCK)
            if fcntl(fd, F_SETLK, &fl) == 0 { return .locked }
            let e = errno
            if e == EINTR { continue }
            guard e == EACCES || e == EAGAIN else { return .failed(e) }
            var probe = wholeFile(F_WRLCK)
            guard fcntl(fd, F_GETLK, &probe) == 0 else { return .heldBy(nil) }
            // Let go between the two calls: try again.
            if Int32(probe.l_type) == Int32(F_UNLCK) { continue }
            return .heldBy(probe.l_pid > 0 ? Int32(probe.l_pid) : nil)
        }
        return .heldBy(nil)
    }

    private static func wholeFile(_ type: Int32) -> flock {
        var fl = flock()
        fl.l_type = numericCast(type)
        fl.l_whence = numericCast(SEEK_SET)
        fl.l_start = 0
        fl.l_len = 0
        return fl
    }

    /// A second name for a file, failing (EEXIST) rather than replacing anything
    /// already there; a symbolic link is linked itself, never followed.
    static func link(_ from: String, _ to: String) -> Int32 {
        linkat(AT_FDCWD, from, AT_FDCWD, to, 0) == 0 ? 0 : errno
    }

    static func unlink(_ path: String) -> Int32 {
        unlinkFile(path) == 0 ? 0 : errno
    }

    static func rename(_ from: String, _ to: String) -> Int32 {
        renameFile(from, to) == 0 ? 0 : errno
    }

    /// Whether `link` failed only because the file system has no hard links,
    /// so moving by `rename` is the way left.
    static func noHardLinks(_ e: Int32) -> Bool {
        e == EPERM || e == EXDEV || e == EMLINK || e == ENOTSUP || e == EOPNOTSUPP
    }

    static var pid: Int32 { getpid() }

    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// This user's home folder as the user database has it (when HOME is unset).
    static func passwordHome() -> String? {
        guard let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir else { return nil }
        let home = String(cString: dir)
        return home.hasPrefix("/") ? home : nil
    }

    static func describe(_ e: Int32) -> String {
        String(cString: strerror(e))
    }

    /// The errno values the store tells apart in its messages.
    static let notFound = ENOENT
    static let exists = EEXIST
    static let denied = EACCES
    static let notPermitted = EPERM
    static let readOnlyFileSystem = EROFS
    static let isLink = ELOOP
}

// The C functions under names the enum's own members do not shadow.
private func closeFD(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
        Darwin.close(fd)
    #else
        Glibc.close(fd)
    #endif
}

private func unlinkFile(_ path: String) -> Int32 {
    #if canImport(Darwin)
        Darwin.unlink(path)
    #else
        Glibc.unlink(path)
    #endif
}

private func renameFile(_ from: String, _ to: String) -> Int32 {
    #if canImport(Darwin)
        Darwin.rename(from, to)
    #else
        Glibc.rename(from, to)
    #endif
}
