import CNcurses
import Glibc
import OutboxUI

/// Set by the signal handlers; the loop reads it and shuts down cleanly.
nonisolated(unsafe) private var pendingSignal: Int32 = 0

/// The terminal: the only place that talks to ncurses.
public final class Terminal {
    public private(set) var width: Int = 0
    public private(set) var height: Int = 0
    public let utf8: Bool
    public private(set) var colors: Bool
    private var screen: OpaquePointer?
    private var last: ScreenBuffer?
    private var attrs: [Role: (attr_t, Int16)] = [:]
    private var open = false
    /// Cells sent to ncurses by the last `draw` (0 when nothing changed).
    public private(set) var lastWrite = 0

    /// Why the interactive screen cannot start here, or nil.
    public static func unusableReason() -> String? {
        if isatty(0) == 0 || isatty(1) == 0 {
            return "standard input and output must be a terminal for the interactive screen"
        }
        guard let term = getenv("TERM").map({ String(cString: $0) }), !term.isEmpty else {
            return "TERM is not set, so the terminal type is unknown"
        }
        if outbox_term_known(term) == 0 {
            return "the terminal type TERM=\(term) is unknown here (no terminfo entry)"
        }
        return nil
    }

    /// Starts curses. Call `unusableReason()` first.
    public init(noColor: Bool) {
        outbox_setlocale()
        utf8 = outbox_locale_is_utf8() != 0
        screen = outbox_newterm()
        _ = set_term(screen)
        open = true
        Terminal.installSignalHandlers()
        cbreak()
        noecho()
        nonl()
        _ = keypad(outbox_stdscr(), true)
        _ = curs_set(0)
        set_escdelay(25)
        colors = !noColor && has_colors()
        if colors {
            start_color()
            use_default_colors()
        }
        width = Int(outbox_cols())
        height = Int(outbox_lines())
    }

    /// A terminal that writes to a file instead of the screen, to count the bytes
    /// each frame sends (`outbox bench`). TERM is xterm-256color, the size fixed.
    public init(measuringTo path: String, width: Int, height: Int) {
        setenv("LINES", String(height), 1)
        setenv("COLUMNS", String(width), 1)
        outbox_setlocale()
        utf8 = outbox_locale_is_utf8() != 0
        file = outbox_fopen(path, "w+")
        screen = outbox_newterm_file("xterm-256color", file)
        _ = set_term(screen)
        open = true
        noecho()
        _ = curs_set(0)
        colors = has_colors()
        if colors {
            start_color()
            use_default_colors()
        }
        self.width = Int(outbox_cols())
        self.height = Int(outbox_lines())
    }

    private var file: UnsafeMutablePointer<FILE>?

    /// Bytes written to the measuring file so far.
    public var bytesWritten: Int { file.map { Int(outbox_ftell_flushed($0)) } ?? 0 }

    deinit { restore() }

    /// Gives the terminal back as it was: on quit, on a signal, on an error.
    public func restore() {
        guard open else { return }
        open = false
        _ = curs_set(1)
        endwin()
        if let s = screen { delscreen(s) }
        screen = nil
    }

    /// The signal that asked us to stop (SIGINT, SIGTERM, SIGHUP), or 0.
    public var stopSignal: Int32 { pendingSignal }

    static func installSignalHandlers() {
        for s in [SIGINT, SIGTERM, SIGHUP] {
            signal(s) { sig in pendingSignal = sig }
        }
        // A crash must not leave the terminal raw: give it back, then die as we would have.
        for s in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
            signal(s) { sig in
                endwin()
                signal(sig, SIG_DFL)
                raise(sig)
            }
        }
    }

    /// Maps every role of a theme to curses attributes and a color pair.
    public func use(_ theme: Theme) {
        attrs = [:]
        var pairs: [String: Int16] = [:]
        for role in Role.allCases {
            let s = theme.style(role)
            var a = outbox_a_normal()
            if s.bold { a |= outbox_a_bold() }
            if s.dim { a |= outbox_a_dim() }
            if s.reverse { a |= outbox_a_reverse() }
            if s.underline { a |= outbox_a_underline() }
            var pair: Int16 = 0
            if colors {
                let fg = color(s.fg), bg = color(s.bg)
                if fg != -1 || bg != -1 {
                    let key = "\(fg)/\(bg)"
                    if let p = pairs[key] {
                        pair = p
                    } else if pairs.count + 1 < Int(outbox_color_pairs()) {
                        pair = Int16(pairs.count + 1)
                        init_pair(pair, fg, bg)
                        pairs[key] = pair
                    }
                }
            }
            attrs[role] = (a, pair)
        }
        last = nil  // everything must be drawn again in the new colors
    }

    private func color(_ c: ThemeColor) -> Int16 {
        switch c {
        case .terminalDefault: return -1
        case .indexed(let n): return n < Int(outbox_colors()) ? Int16(n) : (n < 16 ? Int16(n % 8) : -1)
        }
    }

    /// Picks up a new size after KEY_RESIZE.
    public func refreshSize() {
        width = Int(outbox_cols())
        height = Int(outbox_lines())
        last = nil
        _ = clear()
    }

    /// Sends the cells that changed since the last frame; nothing when none did.
    public func draw(_ buf: ScreenBuffer) {
        lastWrite = 0
        let full = last == nil || last!.width != buf.width || last!.height != buf.height
        var text = [wchar_t](repeating: 0, count: 2)
        for y in 0..<buf.height {
            for x in 0..<buf.width {
                let c = buf[x, y]
                if !full && last![x, y] == c { continue }
                let (a, p) = attrs[c.role] ?? (outbox_a_normal(), 0)
                text[0] = wchar_t(bitPattern: c.char.value)
                _ = outbox_put(Int32(y), Int32(x), &text, a, p)
                lastWrite += 1
            }
        }
        last = buf
        if lastWrite > 0 { _ = refresh() }
    }

    /// Waits up to `timeoutMs` for a key (-1: forever); nil on timeout.
    public func readKey(timeoutMs: Int32) -> Key? {
        timeout(timeoutMs)
        var isCode: Int32 = 0
        var ch: UInt32 = 0
        let rc = outbox_get_key(&isCode, &ch)
        if rc == ERR { return nil }
        if isCode != 0 {
            switch Int32(ch) {
            case outbox_key_resize(): return .resize
            case outbox_key_up(): return .up
            case outbox_key_down(): return .down
            case outbox_key_left(): return .left
            case outbox_key_right(): return .right
            case outbox_key_ppage(): return .pageUp
            case outbox_key_npage(): return .pageDown
            case outbox_key_home(): return .home
            case outbox_key_end(): return .end
            case outbox_key_enter(): return .enter
            case outbox_key_backspace(): return .backspace
            case outbox_key_btab(): return .backTab
            case outbox_key_dc(): return .delete
            default: return nil
            }
        }
        switch ch {
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        default:
            guard let u = Unicode.Scalar(ch), ch >= 0x20 else { return nil }
            return .char(u)
        }
    }
}
