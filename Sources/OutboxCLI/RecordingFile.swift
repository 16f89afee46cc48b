import OutboxCore
import OutboxUI

/// `--record FILE`: the live session as a scenario file, written as it happens
/// (docs/reliability.md, "Recordings").
///
/// `--force` over an existing file writes the new recording to a hidden file
/// beside it (`.outbox-record-PID`) until the first write (the header) landed,
/// then renames it over the file: a recording that cannot even start (a full
/// disk) leaves the old file as it was, never emptied.
///
/// The file is opened once. Its header and the device's starting contents are
/// written when the session starts, then each action the user takes is one
/// `write(2)` of one line at the end (O_APPEND): the file is never rewritten, and
/// a crash at any moment leaves the lines written so far, each whole. Each part
/// is `fsync`ed when it ends (a new clock, or the end of the session).
///
/// A write that fails or lands only in part (a full disk, a file size limit) is
/// cut back (`Platform.appendWhole`): the file ends with the last whole line, so
/// it replays as far as it got, an `E` block is in it whole or not at all, and
/// the recording stops there (a line missing in the middle would replay another
/// session). `actions` and `checks` count what is in the files, not what was tried.
///
/// A new clock (`:profile P`, `:compare ...`, `:compare off`) starts a new part: a
/// comment at the end of the file names the next one, and the session goes on in
/// `FILE-2.outbox` (then `-3`, ...; the first free name, never one that exists),
/// which replays on its own.
struct RecordingFile {
    /// The files written so far, in order: the path given first.
    private(set) var parts: [String]
    /// Whether the first file was made by this process (not an existing one replaced).
    let madeFirst: Bool
    private var fd: Int32
    /// With `--force` over a file: the hidden file written until the first
    /// write landed, and the old file's permission bits it then takes; nil
    /// once renamed over `parts[0]` (or for a new file).
    private var pending: (temp: String, mode: UInt32)?
    /// Temporaries of killed writes removed from the folder when the file was opened.
    private(set) var removedStale: [Platform.StaleTemporary] = []
    /// How many of the model's recorded lines were handed to the current part.
    private var written = 0
    /// The `at` lines (actions) and `expect` lines in the files, every part: what landed.
    private(set) var actions = 0
    private(set) var checks = 0
    /// Why the last write failed, or nil. Nothing is written after it.
    private(set) var failure: String?
    /// The first write (the header) failed: nothing was recorded; a file this
    /// process made is removed, one `--force` would have replaced is as it was.
    private(set) var empty = false
    /// A test's byte budget, as on a disk with that much room (`Platform.write(_:_:budget:)`); nil: none.
    var budget: Int?
    let version: String
    let seed: UInt64

    var path: String { parts[parts.count - 1] }

    /// Which file the recording is writing (its device and inode), or nil once closed.
    var identity: (device: UInt64, inode: UInt64)? { fd >= 0 ? Platform.identity(of: fd) : nil }

    /// Opens the file: a new one, or with `force` a hidden one beside a regular
    /// file that exists, to replace it once the first write landed (`start`).
    /// An existing file without `force` is refused and left untouched. The
    /// folder's temporaries of killed writes are removed first (`removedStale`).
    static func open(_ path: String, force: Bool, seed: UInt64, version: String) -> Result<RecordingFile, Problem> {
        if force, let mode = Platform.fileMode(path) {
            switch Platform.createTemporary(beside: path, .record, append: true) {
            case .success(let t):
                var r = RecordingFile(parts: [path], madeFirst: false, fd: t.fd, version: version, seed: seed)
                r.pending = (t.path, mode)
                r.removedStale = t.removedStale
                return .success(r)
            case .failure(let f):
                let why: String
                if case .other(let w) = f { why = w } else { why = "no free name for a hidden file beside it" }
                return .failure(
                    Problem(
                        "cannot write the recording to `\(SafeText.escaped(path, max: 200))`: \(why); "
                            + "the file there was left as it was"))
            }
        }
        let existed = force && Platform.exists(path)
        let stale = Platform.removeStaleTemporaries(in: Platform.folder(of: path))
        switch Platform.create(path, replace: force, append: true) {
        case .success(let fd):
            var r = RecordingFile(parts: [path], madeFirst: !existed, fd: fd, version: version, seed: seed)
            r.removedStale = stale
            return .success(r)
        case .failure(.exists):
            return .failure(Problem(existsMessage(path)))
        case .failure(.other(let why)):
            return .failure(
                Problem("cannot write the recording to `\(SafeText.escaped(path, max: 200))`: \(why)"))
        }
    }

    static func existsMessage(_ path: String) -> String {
        "--record \(SafeText.escaped(path, max: 200)): the file exists and was left as it is; "
            + "expected a new file: give another name, or --force to replace it"
    }

    /// Writes the whole recording of `model` so far: the start of a part; with
    /// `--force` over a file, the hidden file then takes the file's place. When
    /// even that fails nothing was recorded: a file this process made is
    /// removed, and a file it would have replaced is left as it was.
    mutating func start(_ model: AppModel) {
        written = model.recorded.count
        put(model.recording(seed: seed, version: version, path: path), lines: model.recorded[...])
        if failure == nil, let p = pending {
            pending = nil
            if let why = Platform.replace(parts[0], with: p.temp, fd: fd, mode: p.mode) {
                failure = "cannot put the recording in place of \(parts[0]): \(why)"
            }
        }
        if failure != nil && parts.count == 1 {
            empty = true
            discard()
        }
    }

    /// Ends a recording that never started: closed, and what this process made
    /// removed (the new file, or the hidden one; a file `--force` would have
    /// replaced stays as it was).
    mutating func discard() {
        end()
        if let p = pending {
            Platform.remove(p.temp)
            pending = nil
        } else if madeFirst {
            Platform.remove(path)
        }
    }

    /// Appends the lines the model recorded since the last call.
    mutating func append(_ model: AppModel) {
        let lines = model.recorded
        guard lines.count > written else { return }
        let text = lines[written...].joined(separator: "\n") + "\n"
        let new = lines[written...]
        written = lines.count
        put(text, lines: new)
    }

    /// The session goes on with a new clock: writes `model` (just started) to a
    /// new file, then ends this part with a comment naming it. When the new
    /// file cannot be made or written, it is removed and the recording stops
    /// with this part, whole.
    mutating func newPart(_ model: AppModel, why: String) {
        guard fd >= 0, failure == nil else { return }
        var n = parts.count + 1
        while true {
            let next = RecordingFile.partPath(parts[0], n)
            switch Platform.create(next, replace: false, append: true) {
            case .success(let newFD):
                let previous = path
                let head =
                    "# part \(parts.count + 1) of a session; before: \(SafeText.escaped(previous, max: 1000)) (\(why))\n"
                    + model.recording(seed: seed, version: version, path: next)
                if let f = Platform.appendWhole(newFD, Array(head.utf8), budget: &budget) {
                    failure = "cannot write \(next): \(RecordingFile.text(f))"
                    Platform.closeFile(newFD)
                    Platform.remove(next)
                    end()
                    return
                }
                // The comment is a pointer for people: the part replays without it.
                _ = Platform.appendWhole(
                    fd, Array("# the session went on in \(SafeText.escaped(next, max: 1000)) (\(why))\n".utf8),
                    budget: &budget)
                end()
                fd = newFD
                parts.append(next)
                written = model.recorded.count
                count(model.recorded[...])
                return
            case .failure(.exists) where n < parts.count + 1000:
                n += 1
            case .failure(.exists):
                failure = "no free name for the next part beside \(parts[0])"
                return
            case .failure(.other(let e)):
                failure = "cannot create \(next): \(e)"
                return
            }
        }
    }

    /// Ends the recording: its bytes are forced to the disk (`fsync`) before the
    /// file is closed, so a power cut after Outbox said "recorded" loses nothing;
    /// a failure there is kept in `failure` and said in the closing line.
    mutating func close() {
        end()
    }

    /// Forces the current part to the disk and closes it.
    private mutating func end() {
        guard fd >= 0 else { return }
        if let why = Platform.syncFile(fd), failure == nil { failure = "cannot write \(path) to the disk: \(why)" }
        Platform.closeFile(fd)
        fd = -1
    }

    /// `dir/session.outbox` -> `dir/session-2.outbox`; `rec` -> `rec-2`.
    static func partPath(_ path: String, _ n: Int) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let name = path[slash...]
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return String(path[..<dot]) + "-\(n)" + String(path[dot...])
        }
        return path + "-\(n)"
    }

    /// Appends `text` whole, or cuts the file back and stops; `lines` are the
    /// model's lines in it, counted once they landed.
    private mutating func put(_ text: String, lines: ArraySlice<String>) {
        guard fd >= 0, failure == nil else { return }
        if let f = Platform.appendWhole(fd, Array(text.utf8), budget: &budget) {
            failure = "cannot write \(path): \(RecordingFile.text(f))"
        } else {
            count(lines)
        }
    }

    private mutating func count(_ lines: ArraySlice<String>) {
        actions += lines.reduce(0) { $0 + ($1.hasPrefix("at ") ? 1 : 0) }
        checks += lines.reduce(0) { $0 + ($1.hasPrefix("expect ") ? 1 : 0) }
    }

    static func text(_ f: Platform.WriteFailure) -> String {
        switch f {
        case .brokenPipe: return "broken pipe"
        case .other(let why): return why
        }
    }
}
