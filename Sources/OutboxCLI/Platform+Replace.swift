#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

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
