import OutboxCore
import OutboxUI

/// `--record FILE`: the live session as a scenario file, written as it happens
/// (docs/reliability.md, "Recordings").
///
/// The file is opened once. Its header and the device's starting contents are
/// written when the session starts, then each action the user takes is one
/// `write(2)` of one line at the end (O_APPEND): the file is never rewritten, and
/// a crash at any moment leaves the lines written so far, each whole. Each part
/// is `fsync`ed when it ends (a new clock, or the end of the session).
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
    /// How many of the model's recorded lines are in the current part.
    private var written = 0
    /// Why the last write failed, or nil.
    private(set) var failure: String?
    let version: String
    let seed: UInt64

    var path: String { parts[parts.count - 1] }

    /// Opens the file: a new one, or with `force` one that exists is emptied. An
    /// existing file without `force` is refused and left untouched.
    static func open(_ path: String, force: Bool, seed: UInt64, version: String) -> Result<RecordingFile, Problem> {
        let existed = force && Platform.exists(path)
        switch Platform.create(path, replace: force, append: true) {
        case .success(let fd):
            return .success(RecordingFile(parts: [path], madeFirst: !existed, fd: fd, version: version, seed: seed))
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

    /// Writes the whole recording of `model` so far: the start of a part.
    mutating func start(_ model: AppModel) {
        written = model.recorded.count
        put(model.recording(seed: seed, version: version, path: path))
    }

    /// Appends the lines the model recorded since the last call.
    mutating func append(_ model: AppModel) {
        let lines = model.recorded
        guard lines.count > written else { return }
        let text = lines[written...].joined(separator: "\n") + "\n"
        written = lines.count
        put(text)
    }

    /// The session goes on with a new clock: ends this part with a comment naming
    /// the next, and writes `model` (just started) to that new file.
    mutating func newPart(_ model: AppModel, why: String) {
        guard fd >= 0 else { return }
        var n = parts.count + 1
        while true {
            let next = RecordingFile.partPath(parts[0], n)
            switch Platform.create(next, replace: false, append: true) {
            case .success(let newFD):
                put("# the session went on in \(SafeText.escaped(next, max: 1000)) (\(why))\n")
                if failure == nil, let why = Platform.syncFile(fd) {
                    failure = "cannot write \(path) to the disk: \(why)"
                }
                Platform.closeFile(fd)
                fd = newFD
                let previous = path
                parts.append(next)
                written = model.recorded.count
                put(
                    "# part \(parts.count) of a session; before: \(SafeText.escaped(previous, max: 1000)) (\(why))\n"
                        + model.recording(seed: seed, version: version, path: next))
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
        guard fd >= 0 else { return }
        if failure == nil, let why = Platform.syncFile(fd) { failure = "cannot write \(path) to the disk: \(why)" }
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

    private mutating func put(_ text: String) {
        guard fd >= 0, failure == nil else { return }
        switch Platform.write(fd, Array(text.utf8)) {
        case nil: break
        case .brokenPipe?: failure = "cannot write \(path): broken pipe"
        case .other(let why)?: failure = "cannot write \(path): \(why)"
        }
    }
}
