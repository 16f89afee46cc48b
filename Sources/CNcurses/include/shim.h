// The only C the terminal layer sees. The headers are picked per platform
// (Debian's <ncursesw/curses.h> and <pty.h>, macOS's <curses.h> and <util.h>),
// the wide-character API is switched on here (no pkg-config flags reach a C
// target), and macros, globals and variadic functions that Swift cannot import
// are wrapped as static inline functions. The C library reaches OutboxTerminal
// through this header too, so its Swift files import no Glibc or Darwin.
#ifndef OUTBOX_CNCURSES_SHIM_H
#define OUTBOX_CNCURSES_SHIM_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <stdio.h>
#include <stdlib.h>
#include <locale.h>
#include <langinfo.h>
#include <wchar.h>
#ifdef __APPLE__
#include <curses.h>
#else
#include <ncursesw/curses.h>
#endif
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#ifdef __APPLE__
#include <util.h>
#else
#include <pty.h>
#endif

/// errno and SIG_DFL come from the Swift overlays of Glibc and Darwin, which the
/// terminal layer does not import: they are read here.
static inline int outbox_errno(void) { return errno; }
static inline void outbox_default_signal(int sig) { signal(sig, SIG_DFL); }

/// Starts `argv[0]` on a new pseudo-terminal of the given size; returns the
/// child's pid (or -1) and the master side in *master (for `outbox bench`).
static inline int outbox_spawn_pty(char *const argv[], int rows, int cols, int *master) {
    struct winsize ws = {0};
    ws.ws_row = (unsigned short)rows;
    ws.ws_col = (unsigned short)cols;
    pid_t pid = forkpty(master, NULL, NULL, &ws);
    if (pid == 0) {
        setenv("TERM", "xterm-256color", 1);
        setenv("LANG", "C.UTF-8", 1);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

static inline WINDOW *outbox_stdscr(void) { return stdscr; }
static inline int outbox_lines(void) { return LINES; }
static inline int outbox_cols(void) { return COLS; }

/// The size of the terminal on `fd` (rows, columns); -1 when it cannot be read.
static inline int outbox_winsize(int fd, int *rows, int *cols) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0) return -1;
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return 0;
}

/// Curses' windows made `rows` × `cols` (the live screen's drawn area).
static inline int outbox_resizeterm(int rows, int cols) { return resizeterm(rows, cols); }

/// Sets or clears an environment variable (LINES and COLUMNS before newterm).
static inline void outbox_setenv(const char *name, const char *value) {
    if (value) setenv(name, value, 1); else unsetenv(name);
}
static inline int outbox_colors(void) { return COLORS; }
static inline int outbox_color_pairs(void) { return COLOR_PAIRS; }

static inline attr_t outbox_a_normal(void) { return A_NORMAL; }
static inline attr_t outbox_a_bold(void) { return A_BOLD; }
static inline attr_t outbox_a_dim(void) { return A_DIM; }
static inline attr_t outbox_a_reverse(void) { return A_REVERSE; }
static inline attr_t outbox_a_underline(void) { return A_UNDERLINE; }

static inline int outbox_key_resize(void) { return KEY_RESIZE; }
static inline int outbox_key_up(void) { return KEY_UP; }
static inline int outbox_key_down(void) { return KEY_DOWN; }
static inline int outbox_key_left(void) { return KEY_LEFT; }
static inline int outbox_key_right(void) { return KEY_RIGHT; }
static inline int outbox_key_ppage(void) { return KEY_PPAGE; }
static inline int outbox_key_npage(void) { return KEY_NPAGE; }
static inline int outbox_key_home(void) { return KEY_HOME; }
static inline int outbox_key_end(void) { return KEY_END; }
static inline int outbox_key_enter(void) { return KEY_ENTER; }
static inline int outbox_key_backspace(void) { return KEY_BACKSPACE; }
static inline int outbox_key_btab(void) { return KEY_BTAB; }
static inline int outbox_key_dc(void) { return KEY_DC; }

// MARK: The mouse (outbox --no-mouse turns it off)

static inline int outbox_key_mouse(void) { return KEY_MOUSE; }

/// SGR mouse reporting (1006) on or off, asked of the terminal directly: curses
/// turns on the reports (1000) and decodes the format terminfo names (kmous);
/// with 1006 the terminal reports in SGR form, which curses decodes when
/// kmous says `\E[<` and Terminal.swift decodes when it does not.
/// Written to `out`, the stream curses writes to (NULL: stdout), its own
/// buffer flushed first, so the bytes keep their order.
static inline void outbox_sgr_mouse(FILE *out, int on) {
    if (out == NULL) out = stdout;
    refresh();
    fputs(on ? "\033[?1006h" : "\033[?1006l", out);
    fflush(out);
}

/// Asks for presses, releases and the wheel (no motion), each reported at once
/// (no click timing). 0 when the terminal has no mouse.
static inline int outbox_mouse_on(void) {
    mmask_t old = 0;
    mmask_t want = BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON2_PRESSED | BUTTON3_PRESSED | BUTTON4_PRESSED;
#ifdef BUTTON5_PRESSED
    want |= BUTTON5_PRESSED;
#endif
    mouseinterval(0);
    return mousemask(want, &old) != 0;
}

static inline void outbox_mouse_off(void) {
    mmask_t old = 0;
    mousemask(0, &old);
}

/// The mouse event curses decoded (after KEY_MOUSE): kind 1 press, 2 release,
/// 3 wheel up, 4 wheel down; button 0 left, 1 middle, 2 right. 0 when none.
static inline int outbox_get_mouse(int *kind, int *button, int *x, int *y) {
    MEVENT e;
    if (getmouse(&e) != OK) return 0;
    *x = e.x;
    *y = e.y;
    *button = 0;
    mmask_t b = e.bstate;
    if (b & BUTTON4_PRESSED) { *kind = 3; return 1; }
#ifdef BUTTON5_PRESSED
    if (b & BUTTON5_PRESSED) { *kind = 4; return 1; }
#endif
    if (b & (BUTTON1_PRESSED | BUTTON1_CLICKED)) { *kind = 1; return 1; }
    if (b & BUTTON1_RELEASED) { *kind = 2; return 1; }
    if (b & BUTTON2_PRESSED) { *kind = 1; *button = 1; return 1; }
    if (b & BUTTON3_PRESSED) { *kind = 1; *button = 2; return 1; }
    return 0;
}

/// Gives a key back to curses' input (read again next): a character or a key code.
static inline void outbox_unget(int is_key_code, unsigned int ch) {
    if (is_key_code) ungetch((int)ch); else unget_wch((wchar_t)ch);
}

/// Mouse reporting off, written straight to `fd` (async-signal-safe): a crash
/// must not leave the terminal sending mouse reports to the shell.
static inline void outbox_mouse_off_raw(int fd) {
    static const char off[] = "\033[?1006l\033[?1000l";
    ssize_t n = write(fd, off, sizeof off - 1);
    (void)n;
}

/// Draws one cell: a wide character with attributes and a color pair.
static inline int outbox_put(int y, int x, const wchar_t *text, attr_t attrs, short pair) {
    cchar_t cc;
    setcchar(&cc, text, attrs, pair, NULL);
    return mvadd_wch(y, x, &cc);
}

/// Whether the locale's character set is UTF-8.
static inline int outbox_locale_is_utf8(void) {
    const char *cs = nl_langinfo(CODESET);
    return cs && (cs[0] == 'U' || cs[0] == 'u') && (cs[1] == 'T' || cs[1] == 't') && (cs[2] == 'F' || cs[2] == 'f');
}

static inline void outbox_setlocale(void) { setlocale(LC_ALL, ""); }

/// Reads one key; wide characters come through get_wch.
static inline int outbox_get_key(int *is_key_code, unsigned int *out) {
    wint_t ch = 0;
    int rc = get_wch(&ch);
    *is_key_code = (rc == KEY_CODE_YES);
    *out = (unsigned int)ch;
    return rc;
}

/// A new screen on stdout/stdin; NULL when the terminal type is unknown.
static inline SCREEN *outbox_newterm(void) { return newterm(NULL, stdout, stdin); }

static inline int outbox_ok(void) { return OK; }

/// A screen that writes to a file (for measuring bytes per frame): TERM `term`, input from /dev/null.
static inline SCREEN *outbox_newterm_file(const char *term, FILE *out) {
    FILE *in = fopen("/dev/null", "r");
    return newterm(term, out, in);
}

static inline FILE *outbox_fopen(const char *path, const char *mode) { return fopen(path, mode); }
static inline long outbox_ftell_flushed(FILE *f) { fflush(f); return ftell(f); }

#ifdef __APPLE__
#include <term.h>
#else
#include <ncursesw/term.h>
#endif

/// What terminfo says of a terminal type, found without starting curses and
/// without writing anything to the terminal (newterm/initscr would start it, and
/// initscr exits the process when it cannot).
enum {
    OUTBOX_TERM_USABLE = 0,
    OUTBOX_TERM_NO_DATABASE = 1,   /* no terminfo database at all */
    OUTBOX_TERM_UNKNOWN = 2,       /* not in terminfo, or a generic type */
    OUTBOX_TERM_HARDCOPY = 3,      /* prints on paper: no screen to draw on */
    OUTBOX_TERM_NO_CURSOR = 4      /* no cursor addressing (cup), e.g. dumb */
};

static inline int outbox_term_check(const char *name) {
    int err = 0;
    TERMINAL *saved = cur_term;
    if (setupterm(name, 1, &err) != OK) {
        set_curterm(saved);
        if (err == -1) return OUTBOX_TERM_NO_DATABASE;
        if (err == 1) return OUTBOX_TERM_HARDCOPY;
        return OUTBOX_TERM_UNKNOWN;
    }
    int result = OUTBOX_TERM_USABLE;
    if (tigetflag("hc") > 0) {
        result = OUTBOX_TERM_HARDCOPY;
    } else if (tigetflag("gn") > 0) {
        result = OUTBOX_TERM_UNKNOWN;
    } else {
        const char *cup = tigetstr("cup");
        if (cup == NULL || cup == (const char *)-1) result = OUTBOX_TERM_NO_CURSOR;
    }
    TERMINAL *mine = cur_term;
    set_curterm(saved);
    del_curterm(mine);
    return result;
}

/// Calls `handler` on `sig` from now on, interrupting a wait (no SA_RESTART).
/// A signal the process was started with ignored (nohup, a background job of a
/// shell without job control) stays ignored. Returns -1 on failure.
static inline int outbox_catch_signal(int sig, void (*handler)(int)) {
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0) return -1;
    if (old.sa_handler == SIG_IGN) return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, NULL) == 0 ? 1 : -1;
}

/// As `outbox_catch_signal`, with SA_RESTART: a read or write it interrupts goes
/// on (curses' own SIGWINCH handler is installed so), while a wait for a key
/// (poll) still ends early.
static inline int outbox_catch_signal_restarting(int sig, void (*handler)(int)) {
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0) return -1;
    if (old.sa_handler == SIG_IGN) return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, NULL) == 0 ? 1 : -1;
}

/// Dies of `sig` as if it had never been caught: its default action, unblocked,
/// raised. Returns only if the default action does not end the process.
static inline void outbox_die_of_signal(int sig) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
}

/// Whether standard input's terminal is gone (hung up, closed): a read would
/// never wait again, so the loop must stop rather than spin.
static inline int outbox_input_lost(void) {
    struct pollfd p;
    p.fd = 0;
    p.events = POLLIN;
    p.revents = 0;
    if (poll(&p, 1, 0) < 0) return 0;
    return (p.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/// Writes all of `len` bytes to `fd`, ignoring failure (a terminal that is gone).
static inline void outbox_write_all(int fd, const char *text, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        text += n;
        len -= (size_t)n;
    }
}

// MARK: The screen tap (outbox --cast)
//
// Curses writes to a pseudo-terminal instead of the real one; a relay copies
// every byte it writes to the real terminal and to the recording. Curses sets
// its modes on the pseudo-terminal (the terminal it writes to); they are
// mirrored onto the real terminal, whose output processing is switched off so
// the bytes reach the screen exactly as recorded. Its state is used from
// ScreenTap.swift alone (one copy of it).

#include <termios.h>

struct outbox_tap_state {
    int real, master, saved_ok;
    struct termios saved;
    struct sigaction prev_winch;
};

/// The tap's one state (a function's static: Swift's importer emits no file-scope struct statics).
static inline struct outbox_tap_state *outbox_tap(void) {
    static struct outbox_tap_state state = {-1, -1, 0};
    return &state;
}

/// Opens the pseudo-terminal: the real terminal's modes and size, its slave
/// side open twice (for curses' FILE and for the tap). -1 on failure.
static inline int outbox_tap_open(int real, int *master, int *slave) {
    struct termios t;
    struct winsize ws;
    if (tcgetattr(real, &t) != 0) return -1;
    if (ioctl(real, TIOCGWINSZ, &ws) != 0) return -1;
    if (openpty(master, slave, NULL, &t, &ws) != 0) return -1;
    outbox_tap()->saved = t;
    outbox_tap()->saved_ok = 1;
    outbox_tap()->real = real;
    outbox_tap()->master = *master;
    return 0;
}

/// Curses' output: a FILE on (a copy of) the slave side.
static inline FILE *outbox_tap_file(int slave) {
    int fd = dup(slave);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "w");
    if (f == NULL) close(fd);
    return f;
}

/// A new screen writing to `out`, reading keys from stdin.
static inline SCREEN *outbox_newterm_out(FILE *out) { return newterm(NULL, out, stdin); }

static inline int outbox_fclose(FILE *f) { return fclose(f); }

/// Puts the slave's modes (curses' cbreak, noecho, ...) on the real terminal,
/// with output processing off: the bytes were processed on the slave already.
/// Nothing is changed when the real terminal has them (checked on every key
/// read, so a shell that changed them during a suspend is undone).
static inline void outbox_tap_mirror(int slave) {
    struct termios want, have;
    if (tcgetattr(slave, &want) != 0 || tcgetattr(outbox_tap()->real, &have) != 0) return;
    want.c_oflag &= ~(tcflag_t)OPOST;
    if (want.c_iflag == have.c_iflag && want.c_oflag == have.c_oflag && want.c_lflag == have.c_lflag
        && want.c_cflag == have.c_cflag && memcmp(want.c_cc, have.c_cc, sizeof want.c_cc) == 0)
        return;
    tcsetattr(outbox_tap()->real, TCSANOW, &want);
}

/// Gives the real terminal back its modes from before the tap (async-signal-safe).
static inline void outbox_tap_restore(void) {
    struct outbox_tap_state *t = outbox_tap();
    if (t->saved_ok && t->real >= 0) tcsetattr(t->real, TCSANOW, &t->saved);
}

static void outbox_tap_on_winch(int sig, siginfo_t *info, void *ctx) {
    struct outbox_tap_state *t = outbox_tap();
    struct winsize ws;
    if (ioctl(t->real, TIOCGWINSZ, &ws) == 0) ioctl(t->master, TIOCSWINSZ, &ws);
    if (t->prev_winch.sa_flags & SA_SIGINFO) {
        if (t->prev_winch.sa_sigaction) t->prev_winch.sa_sigaction(sig, info, ctx);
    } else if (t->prev_winch.sa_handler != SIG_DFL && t->prev_winch.sa_handler != SIG_IGN) {
        t->prev_winch.sa_handler(sig);
    }
}

/// On SIGWINCH, the real terminal's size goes to the pseudo-terminal first, then
/// curses' own handler runs: curses reads the new size from the terminal it
/// writes to. Install after curses started (it installs its handler then).
static inline int outbox_tap_chain_winch(void) {
    struct sigaction sa;
    struct sigaction *prev = &outbox_tap()->prev_winch;
    if (sigaction(SIGWINCH, NULL, prev) != 0) return -1;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = outbox_tap_on_winch;
    sa.sa_flags = SA_SIGINFO | (prev->sa_flags & SA_RESTART);
    sa.sa_mask = prev->sa_mask;
    return sigaction(SIGWINCH, &sa, NULL);
}

/// Puts curses' SIGWINCH handler back.
static inline void outbox_tap_unchain_winch(void) { sigaction(SIGWINCH, &outbox_tap()->prev_winch, NULL); }

#endif
