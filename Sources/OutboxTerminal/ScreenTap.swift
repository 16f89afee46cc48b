import CNcurses
import Dispatch

/// A pseudo-terminal between curses and the real terminal, so that every byte
/// curses writes can be kept (`outbox --cast`, docs/DECISIONS.md).
///
/// Curses writes to the slave side as to any terminal: it sets its modes there
/// and reads its size there. A relay thread reads the master side and passes
/// each chunk to the real terminal, then to `sink`. The real terminal gets the
/// slave's modes (so keys, read from standard input as always, arrive as curses
/// expects) with output processing off (the slave did it already), and its size
/// goes to the slave on SIGWINCH before curses looks.
final class ScreenTap {
    private let master: Int32
    private let slave: Int32
    private let real: Int32
    /// curses' output: a FILE on a copy of the slave.
    let file: UnsafeMutablePointer<FILE>
    private let done = DispatchSemaphore(value: 0)
    private var finished = false

    /// Opens the pseudo-terminal, sized and set as the real terminal on `real`,
    /// and starts the relay; nil when the system has no pseudo-terminal to give.
    /// `sink` runs on the relay thread, once per chunk, in order.
    init?(real: Int32, sink: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        var m: Int32 = -1, s: Int32 = -1
        guard outbox_tap_open(real, &m, &s) == 0 else { return nil }
        guard let f = outbox_tap_file(s) else {
            close(m)
            close(s)
            return nil
        }
        master = m
        slave = s
        self.real = real
        file = f
        let done = self.done, from = m
        DispatchQueue.global().async {
            ScreenTap.relay(from: from, to: real, sink: sink)
            done.signal()
        }
    }

    /// Copies until the slave side is closed by everyone (EIO, or 0 on macOS).
    private static func relay(from master: Int32, to real: Int32, sink: (UnsafeRawBufferPointer) -> Void) {
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        var realGone = false
        while true {
            let n = buf.withUnsafeMutableBytes { read(master, $0.baseAddress!, $0.count) }
            if n < 0 && outbox_errno() == EINTR { continue }
            if n <= 0 { return }
            buf.withUnsafeBytes { b in
                let chunk = UnsafeRawBufferPointer(rebasing: b[0..<n])
                // The screen first; a terminal that went away still leaves the recording.
                var done = 0
                while !realGone && done < n {
                    let w = write(real, chunk.baseAddress! + done, n - done)
                    if w < 0 && outbox_errno() == EINTR { continue }
                    if w <= 0 {
                        realGone = true
                        break
                    }
                    done += w
                }
                sink(chunk)
            }
        }
    }

    /// Starts listening for resizes; call once curses has started.
    func started() {
        _ = outbox_tap_chain_winch()
        mirror()
    }

    /// Puts curses' modes on the real terminal when they differ there.
    func mirror() {
        outbox_tap_mirror(slave)
    }

    /// After endwin and delscreen: closes the slave side, waits until the relay
    /// has passed on every byte, and gives the real terminal its modes back.
    func finish() {
        guard !finished else { return }
        finished = true
        outbox_tap_unchain_winch()
        _ = outbox_fclose(file)
        close(slave)
        done.wait()
        close(master)
        outbox_tap_restore()
    }

    /// A crash: the real terminal's modes back (async-signal-safe), best effort.
    static func restoreForCrash() {
        outbox_tap_restore()
    }
}
