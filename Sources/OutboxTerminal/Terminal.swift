import CNcurses
import OutboxUI

/// Set by the stop-signal handler; the loop reads it and shuts down cleanly.
/// A plain global with a literal value: no lazy initialization in the handler.
nonisolated(unsafe) private var pendingSignal: Int32 = 0
/// The descriptor of the real terminal while mouse reporting is on, else -1: a
/// crash turns reporting off there (a plain global, read by the crash handler).
nonisolated(unsafe) private var mouseReportingFd: Int32 = -1
/// Set by SIGWINCH (and SIGCONT): the terminal's size must be read again.
nonisolated(unsafe) private var pendingResize: Int32 = 0
/// Set by SIGCONT: the process was stopped (Ctrl-Z, kill -STOP) and goes on.
nonisolated(unsafe) private var pendingContinue: Int32 = 0

/// The terminal: the only place that talks to ncurses.
public final class Terminal {
    /// The area curses keeps and the screen draws: the terminal's size, at most
    /// `AppView.maxWidth` × `AppView.maxHeight` (a bigger terminal's rest stays blank).
    public private(set) var width: Int = 0
    public private(set) var height: Int = 0
    /// The terminal's own size, which may be bigger than the drawn area.
    public private(set) var realWidth: Int = 0
    public private(set) var realHeight: Int = 0
    public let utf8: Bool
    public private(set) var colors: Bool
    private var screen: OpaquePointer?
    private var last: ScreenBuffer?
    private var attrs: [Role: (attr_t, Int16)] = [:]
    private var open = false
    /// Cells sent to ncurses by the last `draw` (0 when nothing changed).
    public private(set) var lastWrite = 0
    /// Whether standard input's terminal went away (hung up, closed) without a
    /// signal saying so, e.g. under nohup: the loop must stop, not spin.
    public private(set) var inputLost = false

    /// Why the live screen cannot run here.
    public enum Unusable: Equatable, Sendable {
        /// Standard input or output is not a terminal.
        case notATerminal
        /// TERM is unset or empty.
        case termUnset
        /// No terminfo database at all.
        case noTerminfo(term: String)
        /// TERM names a type terminfo does not know, or a generic one.
        case unknownTerm(String)
        /// TERM names a hard-copy terminal.
        case hardcopy(String)
        /// TERM names a terminal without cursor addressing (`cup`), e.g. `dumb`.
        case noCursorAddressing(String)
    }

    /// Why the live screen cannot start here, or nil. Looks only: nothing is
    /// written to the terminal and its modes are untouched (terminfo is read
    /// with setupterm, not newterm).
    public static func unusable(environment term: String? = getenv("TERM").map { String(cString: $0) }) -> Unusable? {
        if isatty(0) == 0 || isatty(1) == 0 { return .notATerminal }
        guard let term, !term.isEmpty else { return .termUnset }
        switch Int(outbox_term_check(term)) {
        case Int(OUTBOX_TERM_USABLE): return nil
        case Int(OUTBOX_TERM_NO_DATABASE): return .noTerminfo(term: term)
        case Int(OUTBOX_TERM_HARDCOPY): return .hardcopy(term)
        case Int(OUTBOX_TERM_NO_CURSOR): return .noCursorAddressing(term)
        default: return .unknownTerm(term)
        }
    }

    // MARK: Signals

    /// The signals that stop the live screen cleanly.
    public static let stopSignals: [Int32] = [SIGHUP, SIGINT, SIGQUIT, SIGTERM]

    /// From now on SIGHUP, SIGINT, SIGQUIT and SIGTERM only note themselves in
    /// `stopSignal`; the loop then quits as on `q`. Call before the terminal starts,
    /// so curses installs no handler of its own for them. A signal ignored when
    /// Outbox started (nohup) stays ignored.
    public static func catchStopSignals() {
        _ = pendingSignal  // initialized before any handler can run
        for s in stopSignals {
            _ = outbox_catch_signal(s) { sig in
                if pendingSignal == 0 { pendingSignal = sig }
            }
        }
    }

    /// The first stop signal received, or 0.
    public static var stopSignal: Int32 { pendingSignal }

    /// SIGWINCH and SIGCONT only note themselves: the loop reads the new size
    /// (`refreshSize`, bounded: curses never holds a 10000×10000 screen) and
    /// learns that the process was stopped (`takeContinued`). Installed before
    /// curses starts, so curses installs no SIGWINCH handler of its own (its
    /// SIGTSTP handler, which gives the terminal back during Ctrl-Z, stays).
    static func catchScreenSignals() {
        _ = pendingResize
        _ = pendingContinue
        _ = outbox_catch_signal_restarting(SIGWINCH) { _ in pendingResize = 1 }
        _ = outbox_catch_signal_restarting(SIGCONT) { _ in
            pendingContinue = 1
            pendingResize = 1
        }
    }

    /// Whether the process was stopped and continued since the last call
    /// (SIGCONT: after Ctrl-Z and `fg`, or kill -STOP and -CONT). The loop then
    /// counts none of the stopped time on the virtual clock.
    public static func takeContinued() -> Bool {
        guard pendingContinue != 0 else { return false }
        pendingContinue = 0
        return true
    }

    /// Ends the process as the signal would have, once everything is restored and
    /// saved: the parent sees a death by that signal (`$?` = 128 + the number).
    /// Returns only if the signal's default action does not end the process.
    public static func die(of sig: Int32) {
        outbox_die_of_signal(sig)
    }

    /// The signal's usual name: SIGHUP, SIGINT, ...
    public static func signalName(_ sig: Int32) -> String {
        switch sig {
        case SIGHUP: return "SIGHUP"
        case SIGINT: return "SIGINT"
        case SIGQUIT: return "SIGQUIT"
        case SIGTERM: return "SIGTERM"
        default: return "signal \(sig)"
        }
    }

    /// Writes text to standard error, ignoring failure: after a hangup the
    /// terminal is gone, and a message that cannot be shown must not crash.
    public static func writeError(_ text: String) {
        var t = text
        t.withUTF8 { b in
            b.withMemoryRebound(to: CChar.self) { outbox_write_all(2, $0.baseAddress, $0.count) }
        }
    }

    /// Starts curses; nil when it cannot (then the terminal is untouched). Call
    /// `unusable()` and `catchStopSignals()` first. With `cast`, curses writes
    /// through a pseudo-terminal and every byte that reaches the screen is also
    /// handed to `cast`, in order, on another thread (ScreenTap).
    /// `mouse`: clicks and the wheel are reported (`Key.mouse`); off with `--no-mouse`.
    public init?(noColor: Bool, mouse: Bool = true, cast: (@Sendable (UnsafeRawBufferPointer) -> Void)? = nil) {
        outbox_setlocale()
        utf8 = outbox_locale_is_utf8() != 0
        Terminal.catchScreenSignals()
        if let cast {
            guard let t = ScreenTap(real: 1, sink: cast) else { return nil }
            tap = t
        }
        // A terminal bigger than the drawn area: curses starts at the bounded size
        // (it reads LINES and COLUMNS first), not with screens of 10^8 cells.
        let real = Terminal.size()
        let big = real.map { $0.columns > AppView.maxWidth || $0.rows > AppView.maxHeight } ?? false
        let saved = (getenv("LINES").map { String(cString: $0) }, getenv("COLUMNS").map { String(cString: $0) })
        if big, let r = real {
            outbox_setenv("LINES", String(min(r.rows, AppView.maxHeight)))
            outbox_setenv("COLUMNS", String(min(r.columns, AppView.maxWidth)))
        }
        let started = tap.map({ outbox_newterm_out($0.file) }) ?? outbox_newterm()
        if big {
            outbox_setenv("LINES", saved.0)
            outbox_setenv("COLUMNS", saved.1)
        }
        guard let s = started else {
            tap?.finish()
            return nil
        }
        screen = s
        _ = set_term(s)
        open = true
        Terminal.catchCrashes()
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
        (realWidth, realHeight) = real.map { ($0.columns, $0.rows) } ?? (width, height)
        if mouse { startMouse() }
        tap?.started()
    }

    /// The real terminal's size (standard output), or nil.
    static func size() -> (columns: Int, rows: Int)? {
        var rows: Int32 = 0, cols: Int32 = 0
        guard outbox_winsize(1, &rows, &cols) == 0 else { return nil }
        return (Int(cols), Int(rows))
    }

    /// Whether the terminal's size may have changed (SIGWINCH, SIGCONT) since the
    /// last `refreshSize`; `readKey` then returns `.resize`.
    public var resizePending: Bool { pendingResize != 0 }

    /// Whether mouse reports are asked for (until `restore`).
    public private(set) var mouse = false

    /// Asks for clicks and the wheel, in SGR form (1000 and 1006). Curses sends
    /// 1000 (and 1006 when terminfo's kmous says so) and turns it off in endwin,
    /// so a suspend (Ctrl-Z) gives the shell a terminal without reports; 1006 is
    /// asked for here too, so the reports come in one form whatever TERM says.
    /// Written through curses' output: the screen recording (`--cast`) keeps the
    /// same bytes, and tmux, which reads them, forwards reports to this pane.
    private func startMouse() {
        guard outbox_mouse_on() != 0 else { return }
        outbox_sgr_mouse(tap?.file, 1)
        mouse = true
        // The terminal the bytes end on: the real one behind a screen tap too.
        mouseReportingFd = 1
    }

    /// Set when the screen is recorded (`outbox --cast`).
    private var tap: ScreenTap?

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
        (realWidth, realHeight) = (self.width, self.height)
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
        if mouse {
            // Before endwin, whose flush sends it (and curses' own 1000 off).
            outbox_sgr_mouse(tap?.file, 0)
            outbox_mouse_off()
            mouse = false
        }
        endwin()
        mouseReportingFd = -1
        if let s = screen { delscreen(s) }
        screen = nil
        tap?.finish()
    }

    /// A crash must not leave the terminal raw: give it back, then die as we
    /// would have. Best effort (endwin is not async-signal-safe); the default
    /// action is put back first, so a crash inside endwin still ends the process.
    static func catchCrashes() {
        for s in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
            signal(s) { sig in
                outbox_default_signal(sig)
                endwin()
                if mouseReportingFd >= 0 { outbox_mouse_off_raw(mouseReportingFd) }
                ScreenTap.restoreForCrash()
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

    /// Picks up a new size (after `.resize`): the terminal's, read from it, and
    /// curses' windows made the bounded part of it that is drawn.
    public func refreshSize() {
        pendingResize = 0
        if screen != nil, file == nil, let r = Terminal.size() {
            (realWidth, realHeight) = (r.columns, r.rows)
            let rows = min(r.rows, AppView.maxHeight), cols = min(r.columns, AppView.maxWidth)
            if rows != Int(outbox_lines()) || cols != Int(outbox_cols()) {
                _ = outbox_resizeterm(Int32(rows), Int32(cols))
            }
        } else {
            (realWidth, realHeight) = (Int(outbox_cols()), Int(outbox_lines()))
        }
        width = Int(outbox_cols())
        height = Int(outbox_lines())
        last = nil
        onResize?(width, height)
        _ = clear()
    }

    /// Called with the new width and height when the size changes (`outbox --cast`).
    public var onResize: ((Int, Int) -> Void)?

    /// Sends the cells that changed since the last frame; nothing when none did.
    public func draw(_ buf: ScreenBuffer) {
        lastWrite = 0
        let full = last == nil || last!.width != buf.width || last!.height != buf.height
        var text = [wchar_t](repeating: 0, count: 2)
        // Never more than curses holds; a stop signal ends a long draw between rows.
        for y in 0..<min(buf.height, height) {
            if pendingSignal != 0 {
                last = nil
                return
            }
            for x in 0..<min(buf.width, width) {
                let c = buf[x, y]
                // The second column of a wide character: drawn with the first.
                if c.isWideTail || (!full && last![x, y] == c) { continue }
                let (a, p) = attrs[c.role] ?? (outbox_a_normal(), 0)
                text[0] = wchar_t(bitPattern: shown(c.char.value))
                _ = outbox_put(Int32(y), Int32(x), &text, a, p)
                lastWrite += 1
            }
        }
        last = buf
        if lastWrite > 0 { _ = refresh() }
    }

    /// The character sent for a cell. A cell holds no control character (Cell's
    /// promise; checked again here, the last step before the terminal). Outside a
    /// UTF-8 locale only ASCII can be shown: the typography the view and the
    /// model's log use becomes its nearest ASCII, anything else `?`.
    func shown(_ v: UInt32) -> UInt32 {
        if v >= 0x20 && v < 0x7F { return v }
        if v < 0xA0 { return 0x3F }
        if utf8 { return v }
        guard let u = Unicode.Scalar(v) else { return 0x3F }
        return Glyphs.asciiFold(u).unicodeScalars.first!.value
    }

    /// Waits up to `timeoutMs` for a key (-1: forever); nil on timeout.
    public func readKey(timeoutMs: Int32) -> Key? {
        if pendingResize != 0 { return .resize }
        tap?.mirror()
        timeout(timeoutMs)
        var isCode: Int32 = 0
        var ch: UInt32 = 0
        let rc = outbox_get_key(&isCode, &ch)
        if rc == ERR {
            if outbox_input_lost() != 0 { inputLost = true }
            return nil
        }
        if isCode != 0 {
            switch Int32(ch) {
            case outbox_key_resize(): return .resize
            case outbox_key_mouse(): return cursesMouse().map { .mouse($0) }
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
        case 27:
            // An SGR mouse report curses did not know (terminfo's kmous is `\E[M`): ESC [ < b ; x ; y M|m.
            switch mouse ? sgrReport() : .notOne {
            case .notOne: return .escape
            case .ignored: return nil
            case .event(let e): return .mouse(e)
            }
        case 8, 127: return .backspace
        default:
            guard let u = Unicode.Scalar(ch), ch >= 0x20 else { return nil }
            return .char(u)
        }
    }

    /// The mouse event curses decoded after KEY_MOUSE, or nil (nothing we asked for).
    private func cursesMouse() -> MouseEvent? {
        var kind: Int32 = 0, button: Int32 = 0, x: Int32 = 0, y: Int32 = 0
        guard outbox_get_mouse(&kind, &button, &x, &y) != 0 else { return nil }
        switch kind {
        case 1: return MouseEvent(.press, button: Int(button), x: Int(x), y: Int(y))
        case 2: return MouseEvent(.release, button: Int(button), x: Int(x), y: Int(y))
        case 3: return .wheel(-1, x: Int(x), y: Int(y))
        case 4: return .wheel(1, x: Int(x), y: Int(y))
        default: return nil
        }
    }

    enum SGRReport { case notOne, ignored, event(MouseEvent) }

    /// After an ESC: reads the rest of an SGR mouse report when that is what
    /// follows (curses has already read `[<` ahead, looking for a key). Anything
    /// else goes back to curses' input, unread, and the ESC is Esc.
    private func sgrReport() -> SGRReport {
        var got: [(isCode: Int32, ch: UInt32)] = []
        func next(_ ms: Int32) -> (isCode: Int32, ch: UInt32)? {
            timeout(ms)
            var isCode: Int32 = 0
            var ch: UInt32 = 0
            guard outbox_get_key(&isCode, &ch) != ERR else { return nil }
            got.append((isCode, ch))
            return (isCode, ch)
        }
        func giveBack() -> SGRReport {
            for k in got.reversed() { outbox_unget(k.isCode, k.ch) }
            return .notOne
        }
        guard let a = next(0), a.isCode == 0, a.ch == 0x5B else { return giveBack() }
        guard let b = next(0), b.isCode == 0, b.ch == 0x3C else { return giveBack() }
        var body = ""
        // A report is at most `b;x;y` of a few digits each; its bytes come together.
        for _ in 0..<32 {
            guard let c = next(50), c.isCode == 0 else { return giveBack() }
            if c.ch == 0x4D || c.ch == 0x6D {
                return MouseEvent.sgr(body, final: c.ch == 0x4D ? "M" : "m").map { .event($0) } ?? .ignored
            }
            guard (0x30...0x39).contains(c.ch) || c.ch == 0x3B else { return giveBack() }
            body.unicodeScalars.append(Unicode.Scalar(UInt8(c.ch)))
        }
        return giveBack()
    }
}
