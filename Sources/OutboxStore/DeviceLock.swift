import Dispatch

/// The one-writer lock of a device: an `fcntl` write lock on `<profile>.lock`
/// beside its database, held while the device is open for writing.
///
/// Record locks, not `flock`, so that when another process holds the lock the
/// kernel names it (`F_GETLK`): the message gives the real holder's pid, never a
/// pid left in a file (docs/DECISIONS.md, D204). Record locks belong to the
/// process and closing *any* descriptor of the file lets them go, so a process
/// opens each lock file once: a table of the locks it holds (by device and inode)
/// answers a second open in the same process before the file is touched.
///
/// The lock file is never followed through a symbolic link, never truncated and
/// never written: it only carries the lock.
final class DeviceLock {
    let path: String
    private var fd: Int32
    private let key: FileKey

    struct FileKey: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    /// The lock files this process holds, by device and inode.
    private final class Held: @unchecked Sendable {
        // Only touched inside `queue.sync`.
        var keys: Set<FileKey> = []
        let queue = DispatchQueue(label: "outbox.store.locks")
    }
    private static let held = Held()

    private init(path: String, fd: Int32, key: FileKey) {
        self.path = path
        self.fd = fd
        self.key = key
    }

    /// Why a lock could not be taken: `database` is the device's path, named first
    /// in messages.
    enum Refusal: Error {
        case inUse(pid: Int32?)
        case unusable(String)
    }

    /// Takes the lock at `path`, creating the file when missing.
    static func acquire(_ path: String) -> Result<DeviceLock, Refusal> {
        held.queue.sync { () -> Result<DeviceLock, Refusal> in
            switch StorePlatform.entry(path) {
            case .missing:
                break
            case .regular(_, _, let device, let inode):
                if held.keys.contains(FileKey(device: device, inode: inode)) {
                    return .failure(.inUse(pid: StorePlatform.pid))
                }
            case .symlink:
                return .failure(
                    .unusable(
                        "is a symbolic link; Outbox never opens its lock file through a link. Remove the link (its target is not touched)"
                    ))
            case let other:
                return .failure(.unusable("is \(other.word), expected a regular file (the device's lock file)"))
            }
            let (fd, e) = StorePlatform.openLockFile(path)
            guard fd >= 0 else {
                if e == StorePlatform.isLink {
                    return .failure(
                        .unusable(
                            "is a symbolic link; Outbox never opens its lock file through a link. Remove the link (its target is not touched)"
                        ))
                }
                return .failure(.unusable("cannot open the lock file for writing (\(StorePlatform.describe(e)))"))
            }
            guard case .regular(_, _, let device, let inode) = StorePlatform.entry(fd: fd) else {
                let what = StorePlatform.entry(fd: fd).word
                StorePlatform.close(fd)
                return .failure(.unusable("is \(what), expected a regular file (the device's lock file)"))
            }
            let key = FileKey(device: device, inode: inode)
            // The path changed between the look and the open and now names a lock this
            // process holds: closing this descriptor would let that lock go, so keep it.
            if held.keys.contains(key) { return .failure(.inUse(pid: StorePlatform.pid)) }
            switch StorePlatform.writeLock(fd) {
            case .locked:
                held.keys.insert(key)
                return .success(DeviceLock(path: path, fd: fd, key: key))
            case .heldBy(let pid):
                StorePlatform.close(fd)
                return .failure(.inUse(pid: pid))
            case .failed(let e):
                StorePlatform.close(fd)
                return .failure(.unusable("cannot take the lock (\(StorePlatform.describe(e)))"))
            }
        }
    }

    /// Lets the lock go (closing the file does); once.
    func release() {
        guard fd >= 0 else { return }
        DeviceLock.held.queue.sync {
            StorePlatform.close(fd)
            DeviceLock.held.keys.remove(key)
        }
        fd = -1
    }

    deinit { release() }
}
