import Dispatch
import OutboxCore
import OutboxFoundation

/// asciicast v2, the format `asciinema play` reads: a header line, then one
/// event a line. Pure: times and bytes are handed in.
enum Asciicast {
    /// `{"version":2,"width":W,"height":H,"timestamp":T,"env":{"TERM":...,"SHELL":...}}`;
    /// an env entry that is not set is left out.
    static func header(width: Int, height: Int, timestamp: Int, term: String?, shell: String?) -> String {
        var env = JSONObject()
        if let term { env.string("TERM", term) }
        if let shell { env.string("SHELL", shell) }
        var o = JSONObject()
        o.number("version", "2")
        o.number("width", String(width))
        o.number("height", String(height))
        o.number("timestamp", String(timestamp))
        o.number("env", env.text)
        return o.text
    }

    /// `[1.234567, "o", "DATA"]`: output at a time in microseconds since the start.
    /// JSON strings escape every control character, so the line holds none.
    static func output(micros: Int, _ data: String) -> String {
        "[" + seconds(micros) + ", \"o\", " + JSONObject.quote(data) + "]"
    }

    /// `[1.234567, "r", "100x30"]`: the terminal took a new size (columns x rows).
    static func resize(micros: Int, width: Int, height: Int) -> String {
        "[" + seconds(micros) + ", \"r\", \"\(width)x\(height)\"]"
    }

    /// Seconds with six decimals.
    static func seconds(_ micros: Int) -> String {
        let m = max(0, micros)
        var frac = String(m % 1_000_000)
        while frac.count < 6 { frac = "0" + frac }
        return String(m / 1_000_000) + "." + frac
    }

    /// Bytes as text: UTF-8 as it is; a sequence cut at the end of `bytes` is
    /// returned in `rest` (it is completed by the next chunk); a byte that is
    /// not UTF-8 becomes U+FFFD, as a terminal shows it (and as asciinema's own
    /// recorder writes it). With `final`, nothing is held back.
    static func text(_ bytes: [UInt8], final: Bool = false) -> (text: String, rest: [UInt8]) {
        var cut = bytes.count
        if !final {
            // Look back at most 3 bytes for the lead byte of an unfinished sequence.
            var i = bytes.count - 1
            while i >= 0 && i >= bytes.count - 3 {
                let b = bytes[i]
                if b & 0xC0 == 0x80 {
                    i -= 1
                    continue
                }
                let need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
                if need > bytes.count - i { cut = i }
                break
            }
        }
        return (String(decoding: bytes[0..<cut], as: UTF8.self), Array(bytes[cut...]))
    }
}

/// `outbox --cast FILE`: the live screen as an asciicast v2 file, every byte
/// curses sent to the terminal as an `"o"` event at the moment it was sent.
///
/// Output comes from the terminal's relay thread, resizes from the main
/// thread; a lock keeps their lines whole and their times in order. Closed by
/// the main thread once the terminal is restored (which waits for the relay).
///
/// Each event is one line appended whole or not at all (`Platform.appendWhole`):
/// on a full disk the file is cut back to its last whole line and the cast stops
/// there, `events` counting what is in the file.
final class CastFile: @unchecked Sendable {
    private let queue = DispatchQueue(label: "outbox.cast")
    let path: String
    private var fd: Int32
    private let start = ContinuousClock.now
    private var rest: [UInt8] = []
    /// Output events in the file.
    private(set) var events = 0
    private(set) var lastMicros = 0
    /// The time of the last output event in the file.
    private(set) var lastLanded = 0
    /// Why writing stopped, or nil.
    private(set) var failure: String?
    /// Whether this run made the file (it did not replace one).
    let madeFirst: Bool
    /// A test's byte budget (`Platform.write(_:_:budget:)`); nil: none.
    private var budget: Int?
    /// Temporaries of killed writes removed from the folder when the file was opened.
    let removedStale: [Platform.StaleTemporary]

    private init(path: String, fd: Int32, madeFirst: Bool, budget: Int?, removedStale: [Platform.StaleTemporary]) {
        self.path = path
        self.fd = fd
        self.madeFirst = madeFirst
        self.budget = budget
        self.removedStale = removedStale
    }

    /// Creates FILE (refusing one that exists unless `force`) and writes the
    /// header; when that fails, a file this run made is removed. With `force`
    /// over a regular file the header goes to a hidden file beside it
    /// (`.outbox-cast-PID`), renamed over FILE once it landed: a cast that
    /// cannot even start leaves the old file as it was. The folder's
    /// temporaries of killed writes are removed first. `budget` is a test's
    /// byte budget.
    static func open(_ path: String, force: Bool, width: Int, height: Int, budget: Int? = nil) -> Result<
        CastFile, Problem
    > {
        let shownPath = SafeText.escaped(path, max: 200)
        let existed = Platform.exists(path)
        let opened: Result<Platform.Temporary, Platform.CreateFailure>
        let replacing = force ? Platform.fileMode(path) : nil
        if replacing != nil {
            opened = Platform.createTemporary(beside: path, .cast, append: true)
        } else {
            let stale = Platform.removeStaleTemporaries(in: Platform.folder(of: path))
            opened = Platform.create(path, replace: force, append: true).map { (path, $0, stale) }
        }
        let kept = replacing == nil ? "" : "; the file there was left as it was"
        switch opened {
        case .failure(.exists) where replacing == nil:
            return .failure(Problem(existsMessage(path)))
        case .failure(.exists):
            return .failure(
                Problem("cannot write the cast to `\(shownPath)`: no free name for a hidden file beside it" + kept))
        case .failure(.other(let why)):
            return .failure(Problem("cannot write the cast to `\(shownPath)`: \(why)" + kept))
        case .success(let t):
            let env = ProcessInfo.processInfo.environment
            let cast = CastFile(
                path: path, fd: t.fd, madeFirst: !existed, budget: budget, removedStale: t.removedStale)
            // The wall clock belongs here, in the command line: the header says when.
            let header = Asciicast.header(
                width: width, height: height, timestamp: Int(Date().timeIntervalSince1970),
                term: env["TERM"], shell: env["SHELL"])
            _ = cast.write(header)
            if cast.failure == nil, let mode = replacing,
                let why = Platform.replace(path, with: t.path, fd: t.fd, mode: mode)
            {
                cast.failure = "cannot put the cast in place of it: " + why
            }
            if let why = cast.failure {
                cast.close()
                if replacing != nil { Platform.remove(t.path) } else if cast.madeFirst { Platform.remove(path) }
                return .failure(Problem("cannot write the cast to `\(shownPath)`: \(why)" + kept))
            }
            return .success(cast)
        }
    }

    static func existsMessage(_ path: String) -> String {
        "--cast \(SafeText.escaped(path, max: 200)): the file exists and was left as it is; "
            + "expected a new file: give another name, or --force to replace it"
    }

    /// One chunk the terminal was sent (on the relay thread).
    func output(_ chunk: UnsafeRawBufferPointer) {
        let (text, rest) = Asciicast.text(self.rest + Array(chunk))
        self.rest = rest
        emit(text)
    }

    private func emit(_ text: String) {
        guard !text.isEmpty else { return }
        queue.sync {
            let t = now()
            if write(Asciicast.output(micros: t, text)) {
                events += 1
                lastLanded = t
            }
        }
    }

    /// Why the cast stopped, or nil (read from the main thread while the relay writes).
    var stopped: String? { queue.sync { failure } }

    /// The terminal took a new size (on the main thread, before it redraws).
    /// The same size told twice (curses' KEY_RESIZE and the loop's own SIGWINCH
    /// check can both report one change) is one event.
    func resized(width: Int, height: Int) {
        queue.sync {
            guard lastSize?.width != width || lastSize?.height != height else { return }
            lastSize = (width, height)
            _ = write(Asciicast.resize(micros: now(), width: width, height: height))
        }
    }

    /// The size the last `"r"` event gave (touched on `queue` only).
    private var lastSize: (width: Int, height: Int)?

    /// Microseconds since the start, never earlier than the event before.
    private func now() -> Int {
        let d = (ContinuousClock.now - start).components
        lastMicros = max(lastMicros, Int(d.seconds) * 1_000_000 + Int(d.attoseconds / 1_000_000_000_000))
        return lastMicros
    }

    /// Appends one line, whole or not at all; whether it landed.
    private func write(_ line: String) -> Bool {
        guard failure == nil, fd >= 0 else { return false }
        switch Platform.appendWhole(fd, Array((line + "\n").utf8), budget: &budget) {
        case nil: return true
        case .brokenPipe?: failure = "the reader went away"
        case .other(let why)?: failure = why
        }
        return false
    }

    /// Writes what is held back (an unfinished sequence, as U+FFFD) and closes.
    func close() {
        let (text, _) = Asciicast.text(rest, final: true)
        rest = []
        emit(text)
        guard fd >= 0 else { return }
        // As a recording's end: once Outbox said "recorded", a power cut loses nothing.
        if let why = Platform.syncFile(fd), failure == nil { failure = why }
        Platform.closeFile(fd)
        fd = -1
    }

    /// The line printed after the screen closed.
    var summary: String {
        var line =
            "outbox: recorded the screen to \(SafeText.line(path)) (\(events) writes, \(Asciicast.seconds(lastLanded).prefix { $0 != "." }) s); "
            + "play it with `asciinema play \(SafeText.line(path))`"
        if let why = failure {
            line += "; but the cast stopped there: " + SafeText.line(why) + " (the file ends with its last whole event)"
        }
        return line
    }
}
