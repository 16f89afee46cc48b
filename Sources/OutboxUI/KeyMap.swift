import OutboxCore

/// A mouse event, decoded by the terminal layer from SGR mouse reports
/// (`ESC [ < b ; x ; y M|m`) or curses' KEY_MOUSE: what happened and the cell
/// under the pointer (0-based column and row).
public struct MouseEvent: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// A button went down (`button` 0 left, 1 middle, 2 right).
        case press
        /// A button went up.
        case release
        /// The wheel turned: `lines` < 0 up (away from the user), > 0 down.
        case wheel
    }
    public var kind: Kind
    public var button: Int
    public var lines: Int
    public var x: Int
    public var y: Int

    public init(_ kind: Kind, button: Int = 0, lines: Int = 0, x: Int, y: Int) {
        self.kind = kind
        self.button = button
        self.lines = lines
        self.x = x
        self.y = y
    }

    /// A left click at a cell.
    public static func click(x: Int, y: Int) -> MouseEvent { MouseEvent(.press, x: x, y: y) }
    /// The wheel turned at a cell: `lines` < 0 up, > 0 down.
    public static func wheel(_ lines: Int, x: Int, y: Int) -> MouseEvent {
        MouseEvent(.wheel, lines: lines, x: x, y: y)
    }

    /// Decodes the body of an SGR mouse report, `b;x;y` and its final `M`
    /// (press) or `m` (release); x and y count from 1. Motion, and buttons past
    /// the wheel, are nil (not asked for; ignored).
    public static func sgr(_ body: String, final: Character) -> MouseEvent? {
        let parts = body.split(separator: ";", omittingEmptySubsequences: false)
        guard parts.count == 3, let b = Int(parts[0]), let x = Int(parts[1]), let y = Int(parts[2]),
            b >= 0, x >= 1, y >= 1, final == "M" || final == "m"
        else { return nil }
        if b & 32 != 0 { return nil }  // motion (a drag): not asked for
        let button = b & 3
        if b & 64 != 0 {
            guard final == "M", button <= 1 else { return nil }  // wheel left/right: nothing here
            return .wheel(button == 0 ? -1 : 1, x: x - 1, y: y - 1)
        }
        guard b & 128 == 0, button <= 2 else { return nil }
        return MouseEvent(final == "M" ? .press : .release, button: button, x: x - 1, y: y - 1)
    }

    /// The event with its place and amount forgotten: what the key table keys on.
    var pattern: MouseEvent { MouseEvent(kind, button: kind == .wheel ? 0 : button, x: -1, y: -1) }
}

/// A key press, decoded by the terminal layer.
public enum Key: Hashable, Sendable {
    case char(Unicode.Scalar)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, tab, backTab, escape, backspace, delete
    case resize
    /// A click or the wheel (SGR mouse reporting; off with `--no-mouse`).
    case mouse(MouseEvent)

    /// The key table's entry for a left click, anywhere.
    public static let click = Key.mouse(MouseEvent(.press, x: -1, y: -1))
    /// The key table's entry for the wheel, either way, anywhere.
    public static let wheel = Key.mouse(MouseEvent(.wheel, x: -1, y: -1))

    /// How the help screen and docs write it; `ascii` spells out the arrows.
    public func label(ascii: Bool) -> String {
        guard ascii else { return label }
        switch self {
        case .up: return "Up"
        case .down: return "Down"
        case .left: return "Left"
        case .right: return "Right"
        default: return label
        }
    }

    /// How the help screen and docs write it.
    public var label: String {
        switch self {
        case .char(" "): return "space"
        case .char(let c): return String(Character(c))
        case .up: return "↑"
        case .down: return "↓"
        case .left: return "←"
        case .right: return "→"
        case .pageUp: return "PgUp"
        case .pageDown: return "PgDn"
        case .home: return "Home"
        case .end: return "End"
        case .enter: return "Enter"
        case .tab: return "Tab"
        case .backTab: return "Shift-Tab"
        case .escape: return "Esc"
        case .backspace: return "Backspace"
        case .delete: return "Del"
        case .resize: return "resize"
        case .mouse(let e):
            switch e.kind {
            case .press: return e.button == 0 ? "click" : "button \(e.button + 1)"
            case .release: return "release"
            case .wheel: return "wheel"
            }
        }
    }
}

/// What a key does in the main screen.
public enum Command: Hashable, Sendable, CaseIterable {
    case help, quit
    case toggleNetwork, toggleConsent, trackPurchase, trackBurst
    /// An app call of the profile's vocabulary, by its word (`AppCall`: its key comes from its `call` line).
    case call(String)
    case chooseAnswer, relaunch, getInstance, chooseFlap, chooseJitter
    /// The app to the background, or back to the foreground (Policy/Lifecycle.swift).
    case toggleBackground
    case pause, faster, slower, jumpNext, breakpoints
    case down, up, pageDown, pageUp, top, bottom, detail, nextPane, previousPane, nextTab, previousTab
    case filterName, export, commandLine, cycleTheme
    case zoomIn, zoomOut, fitTimeline
    case back, nextMatch, previousMatch, logRequest
    case sort, click, wheel
    case pin

    /// Every command: the fixed ones and the built-in vocabulary's calls.
    public static var allCases: [Command] {
        [
            .help, .quit, .toggleNetwork, .toggleConsent, .trackPurchase, .trackBurst, .chooseAnswer, .relaunch,
            .getInstance, .toggleBackground, .chooseFlap, .chooseJitter, .pause, .faster, .slower, .jumpNext,
            .breakpoints, .down, .up,
            .pageDown, .pageUp, .top, .bottom, .detail, .nextPane, .previousPane, .nextTab, .previousTab,
            .filterName, .export, .commandLine, .cycleTheme, .zoomIn, .zoomOut, .fitTimeline, .back, .nextMatch,
            .previousMatch, .logRequest, .sort, .click, .wheel, .pin,
        ] + Vocabulary.builtin.callWords.map(Command.call)
    }
}

/// What a key needs of the profile: a capability not every profile has
/// (`Profile`'s capabilities, docs/profiles.md). The help, the status bar and the
/// key handling offer a key only where a profile on the screen has what it needs.
public enum KeyNeed: Sendable, Equatable {
    /// `component consent-gate`.
    case consentGate
    /// `resend on getinstance`.
    case getInstance
    /// The app lifecycle (`background rule`, `on background flush`, `background limit`).
    case lifecycle
    /// An app call (`requests WORD`, or a `call` line of the profile's own).
    case call(AppCall)

    public func has(_ p: Profile) -> Bool {
        switch self {
        case .consentGate: return p.hasConsentGate
        case .getInstance: return p.hasGetInstance
        case .lifecycle: return p.hasLifecycle
        case .call(let c): return p.vocabulary.call(c.word).map(p.has) ?? false
        }
    }

    /// What it is, as the help and docs/keys.md name it.
    public var word: String {
        switch self {
        case .consentGate: return "the consent gate"
        case .getInstance: return "getInstance()"
        case .lifecycle: return "the app lifecycle"
        case .call(let c): return c.need
        }
    }

    /// The same without its article ("consent gate"), after "has no".
    public var bareWord: String {
        switch self {
        case .consentGate: return "consent gate"
        case .lifecycle: return "app lifecycle"
        default: return word
        }
    }

    /// Where a profile file gets it (docs/keys.md).
    public var profileLine: String {
        switch self {
        case .consentGate: return "`component consent-gate`"
        case .getInstance: return "`resend on getinstance`"
        case .lifecycle: return "`background rule`, `on background flush` or `background limit`"
        case .call(let c): return "`requests \(c.word)`"
        }
    }
}

/// One row of the key table.
public struct KeyBinding: Sendable {
    public let keys: [Key]
    public let command: Command
    public let section: String
    public let help: String
    /// Shown in the status bar, in this order; nil when not shown there.
    public let status: (order: Int, label: String)?
    /// What the key needs of the profile; nil: every profile has it.
    public let needs: KeyNeed?

    /// Whether one of these profiles (the screen's columns) has what the key needs.
    public func applies(to profiles: [Profile]) -> Bool {
        guard let needs else { return true }
        return profiles.contains(where: needs.has)
    }
}

/// The one key table: key handling, the help screen, the status bar and
/// docs/keys.md all come from it.
public enum KeyMap {
    /// The key table of the built-in vocabulary's calls (docs/keys.md).
    public static let bindings: [KeyBinding] = bindings(calls: Vocabulary.builtin.calls)

    /// The key table with a row for each of `calls` (the screen's profiles'),
    /// after the fixed rows of their section; a call whose key a fixed row holds
    /// is left without one (`:WORD` still runs it).
    public static func bindings(calls: [AppCall]) -> [KeyBinding] {
        let taken = Set(fixed.flatMap(\.keys))
        var rows: [KeyBinding] = []
        var seen = taken
        for c in calls {
            guard let k = c.key, seen.insert(.char(k)).inserted else { continue }
            rows.append(b([.char(k)], .call(c.word), "requests", c.help, nil, .call(c)))
        }
        guard let at = fixed.lastIndex(where: { $0.section == "requests" }) else { return fixed + rows }
        return Array(fixed[...at]) + rows + fixed[(at + 1)...]
    }

    static let fixed: [KeyBinding] = [
        b([.char("?")], .help, "general", "show or hide this help", (20, "help")),
        b([.char("q")], .quit, "general", "quit Outbox (the device keeps what the rules save)", (21, "quit")),
        b([.char("o")], .toggleNetwork, "device", "network online/offline", (1, "offline")),
        b([.char("c")], .toggleConsent, "device", "consent grant/deny", (2, "consent"), .consentGate),
        b([.char("L")], .relaunch, "device", "quit and relaunch the app (launch when closed)", (9, "relaunch")),
        b(
            [.char("g")], .getInstance, "device", "call getInstance(): the saved requests go out again", nil,
            .getInstance),
        b(
            [.char("B")], .toggleBackground, "device",
            "the app to the background, or back to the foreground (:background, :foreground)", nil, .lifecycle),
        b(
            [.char("F")], .chooseFlap, "device",
            "network flap: online/offline over and over (5s/2s, ...; s stops); :network flap UP DOWN", nil),
        b(
            [.char("J")], .chooseJitter, "device",
            "latency jitter: each attempt's latency drawn from latency ± D; :set latency.jitter D", nil),
        b([.char("t")], .trackPurchase, "requests", "track a test purchase (49.99 USD)", (0, "track")),
        b([.char("T")], .trackBurst, "requests", "track a burst of 20 events", nil),
        b(
            [.char("x")], .chooseAnswer, "backend",
            "choose what the backend answers next (once, N times, always, a chance N%; R: a Retry-After; for the selected request or its kind)",
            (3, "backend")),
        b(
            [.char(" ")], .pause, "clock", "pause/resume the clock (resumes from a breakpoint or a step too)",
            (8, "pause")),
        b([.char("+"), .char("=")], .faster, "clock", "faster: ⅒×, ¼×, 1×, 10×, 60×, 600×, 3600×", (10, "speed")),
        b(
            [.char("-")], .slower, "clock", "slower: from 1× to ¼× then ⅒× (slow motion: a 200 ms attempt lasts 2 s)",
            nil),
        b(
            [.char(".")], .jumpNext, "clock",
            "step: play the next scheduled moment (a timer, or a played file's next line) and pause there", (4, "step")),
        b(
            [.char("b")], .breakpoints, "clock",
            "breakpoints: pause when a request becomes a state, cites a rule, or the selected one moves", nil),
        b([.char("j"), .down], .down, "moving", "next request", nil),
        b([.char("k"), .up], .up, "moving", "previous request", nil),
        b([.pageDown], .pageDown, "moving", "a page down", nil),
        b([.pageUp], .pageUp, "moving", "a page up", nil),
        b([.home], .top, "moving", "first request", nil),
        b([.end], .bottom, "moving", "last request", nil),
        b(
            [.enter], .detail, "moving", "full-screen detail of the selected request (Enter or Esc closes)",
            (6, "detail")),
        b([.escape], .back, "moving", "close the full-screen detail; clear the log search", nil),
        b(
            [.tab], .nextPane, "moving", "next pane (requests, detail, log); the moving keys then scroll it",
            (7, "pane")),
        b([.backTab], .previousPane, "moving", "previous pane", nil),
        b([.char("]"), .right], .nextTab, "moving", "next state tab", nil),
        b([.char("["), .left], .previousTab, "moving", "previous state tab", nil),
        b(
            [.char("S")], .sort, "moving",
            "sort the list: id, state, next attempt, attempts (most first), name; the column's title is marked", nil),
        b(
            [.char("/")], .filterName, "moving",
            "filter the list (see filter and log); the log focused: search the log", (5, "find")),
        b([.char(">")], .nextMatch, "moving", "log search: next (later) match", nil),
        b([.char("<")], .previousMatch, "moving", "log search: previous (earlier) match", nil),
        b(
            [.char("l")], .logRequest, "moving",
            "log: only the selected request's lines, or all again (:log request N, :log all)", nil),
        b([.char("z")], .zoomIn, "timeline", "zoom the timeline in: fewer seconds a column (down to 100 ms)", nil),
        b([.char("Z")], .zoomOut, "timeline", "zoom the timeline out: more time a column (up to 1 h)", nil),
        b(
            [.char("f")], .fitTimeline, "timeline", "fit the selected request's whole life (the default; undoes z/Z)",
            nil),
        b([.char("e")], .export, "general", "export the timeline (asks where)", nil),
        b([.char("E")], .pin, "general", "pin the state now as expect lines in the recording (--record)", nil),
        b(
            [.char(":")], .commandLine, "general",
            "command line (↑ ↓ history, Tab completes): any scenario action (:track signup value=9 currency=EUR, :server 503 x3, :set retry.attempts 5, :profile ios)",
            (11, "command")),
        b([.char("C")], .cycleTheme, "general", "next theme", nil),
        b(
            [.click], .click, "mouse",
            "selects a row, shows a tab, sorts by a column's title, focuses the detail or the log", nil),
        b(
            [.wheel], .wheel, "mouse", "scrolls the pane under the pointer (list, detail, log) 3 lines; the help too",
            nil),
    ]

    /// The calls of the screen's profiles, each word once, in the first profile's order.
    public static func calls(of profiles: [Profile]) -> [AppCall] {
        var out: [AppCall] = []
        for p in profiles {
            for c in p.vocabulary.calls where !out.contains(where: { $0.word == c.word }) { out.append(c) }
        }
        return out
    }

    static func b(
        _ keys: [Key], _ c: Command, _ section: String, _ help: String, _ status: (Int, String)?,
        _ needs: KeyNeed? = nil
    ) -> KeyBinding {
        KeyBinding(
            keys: keys, command: c, section: section, help: help, status: status.map { (order: $0.0, label: $0.1) },
            needs: needs)
    }

    /// Why a key is not offered on these profiles (none of them has what it needs), or nil.
    public static func lacking(_ c: Command, on profiles: [Profile]) -> String? {
        guard let b = binding(c, calls: calls(of: profiles)), let need = b.needs, !b.applies(to: profiles) else {
            return nil
        }
        let names = profiles.map(\.rawValue).joined(separator: ", ")
        let key = b.keys[0].label
        return
            "`\(key)` needs \(need.word); \(names) \(profiles.count > 1 ? "have" : "has") none (? lists the keys here)"
    }

    /// The command a key runs, or nil.
    /// `calls`: the screen's profiles' (`calls(of:)`), whose keys follow the fixed ones.
    public static func command(for key: Key, calls: [AppCall] = Vocabulary.builtin.calls) -> Command? {
        if case .mouse(let e) = key { return table[.mouse(e.pattern)] }
        if let c = table[key] { return c }
        guard case .char(let k) = key, let c = calls.first(where: { $0.key == k }) else { return nil }
        return .call(c.word)
    }

    static let table: [Key: Command] = {
        var t: [Key: Command] = [:]
        for binding in fixed {
            for k in binding.keys { t[k] = binding.command }
        }
        return t
    }()

    public static func binding(_ c: Command, calls: [AppCall] = Vocabulary.builtin.calls) -> KeyBinding? {
        if case .call(let word) = c {
            guard let call = calls.first(where: { $0.word == word }) else { return nil }
            return bindings(calls: [call]).first { $0.command == c }
                ?? b([], c, "requests", call.help, nil, .call(call))
        }
        return fixed.first { $0.command == c }
    }

    /// Keys bound to more than one command: must be empty (tested).
    public static var conflicts: [Key] { conflicts(bindings.map { ($0.keys, $0.command) }) }

    /// The keys of a table bound to more than one of its commands.
    static func conflicts<C: Equatable>(_ table: [(keys: [Key], command: C)]) -> [Key] {
        var seen: [Key: C] = [:]
        var out: [Key] = []
        for (keys, command) in table {
            for k in keys {
                if let c = seen[k], c != command { out.append(k) }
                seen[k] = command
            }
        }
        return out
    }

    /// What a key does on a help screen scrolled by `scroll` rows (the
    /// simulator's and serve's): j/k and the pages scroll, q quits, any other closes it.
    enum HelpKey: Equatable {
        case scroll(Int)
        case quit
        case close
    }

    static func helpKey(_ key: Key, scroll: Int) -> HelpKey {
        switch key {
        case .char("j"), .down: return .scroll(scroll + 1)
        case .char("k"), .up: return .scroll(max(0, scroll - 1))
        case .pageDown, .char(" "): return .scroll(scroll + 10)
        case .pageUp: return .scroll(max(0, scroll - 10))
        case .char("q"): return .quit
        default: return .close
        }
    }

    public static let sections = ["device", "requests", "backend", "clock", "moving", "timeline", "mouse", "general"]

    /// Not keys: the live compare's option and `:` commands (issue 11), listed
    /// after the keys in the help screen and docs/keys.md.
    public static let compareLines: [(keys: String, help: String)] = [
        ("--compare", "P,P,...: 2 to 4 profiles side by side (devices in memory); keys act on all"),
        (":compare", "P,P,... compares afresh from 0; :compare off keeps the first column"),
        ("tabs", "comparing, a row counts in each state any column is in (the tabs may add up to more than all)"),
        ("saved", "comparing, each column's device: saved ios 0 · android 1, or 0/1 in column order when narrow"),
    ]

    /// Not keys: breakpoints and playing a file from the command line (issue 12),
    /// listed after the keys in the help screen and docs/keys.md.
    public static let timeLines: [(keys: String, help: String)] = [
        (
            ":break",
            "STATE: pause when a request becomes STATE (pending, in-flight, retrying, queued, delivered, dropped)"
        ),
        (":break", "rule ID: pause when a transition cites the rule (:break rule LT-2)"),
        (":break", "request N: pause when request N (comparing: row N) changes state"),
        (":break", "clear: clear every breakpoint; :break alone lists them"),
        (":play", "FILE: play a scenario file here from 0, paused: space plays, . steps"),
        ("--speed", "S: start at \(Speed.expected)"),
        ("--play", "FILE: start playing a scenario file (as :play)"),
    ]

    /// Not keys: the list filter's words and the `:log` command (issue 12), listed
    /// after the keys in the help screen and docs/keys.md.
    public static let paneLines: [(keys: String, help: String)] = [
        ("/ words", "all must match: name, rule:LT-5, kind:ping, state:retrying, 503, timeout"),
        ("/ a,b", "commas: either value (state:retrying,queued); state:ret is enough"),
        (":log", "request N: only its lines (no N: the selected one's); :log all: every line"),
    ]

    /// The help screen's lines: the keys that apply to `profiles` (the screen's
    /// columns; nil: every key), and one line naming the keys left out and why.
    public static func helpLines(ascii: Bool = false, profiles: [Profile]? = nil)
        -> [(keys: String, help: String, section: String)]
    {
        var out: [(String, String, String)] = []
        var hidden: [KeyBinding] = []
        for s in sections {
            for binding in (profiles.map { bindings(calls: calls(of: $0)) } ?? bindings) where binding.section == s {
                if let profiles, !binding.applies(to: profiles) {
                    hidden.append(binding)
                    continue
                }
                out.append((binding.keys.map { $0.label(ascii: ascii) }.joined(separator: " "), binding.help, s))
            }
        }
        if let profiles, !hidden.isEmpty {
            var needs: [String] = []
            for b in hidden where !needs.contains(b.needs!.bareWord) { needs.append(b.needs!.bareWord) }
            let names = profiles.map(\.rawValue).joined(separator: ", ")
            out.append(
                (
                    "not here",
                    hidden.map { $0.keys[0].label(ascii: ascii) }.joined(separator: " ")
                        + ": \(names) \(profiles.count > 1 ? "have" : "has") no "
                        + needs.joined(separator: ", ") + " (docs/keys.md lists every key)", "general"
                ))
        }
        for l in compareLines { out.append((l.keys, l.help, "compare")) }
        for l in timeLines { out.append((l.keys, l.help, "breakpoints and play")) }
        for l in paneLines { out.append((l.keys, l.help, "filter and log")) }
        return out
    }

    /// docs/keys.md, generated from the table.
    public static var markdown: String {
        var out = "# Keys\n\nGenerated from the key table (`Sources/OutboxUI/KeyMap.swift`) by `outbox keys`;"
        out += " a test checks this page matches it.\n"
        out += "\nA key whose **needs** column names a capability is offered (in the help, the status bar) and"
        out += " taken only on a profile that has it (comparing: when one column's profile has it; the others skip"
        out += " it with a note). Pressed on a profile without it, the key says what it needs, and `?` lists"
        out += " the keys left out on that line: on `ios`, `c` (the consent gate) and `g` (getInstance()).\n"
        for s in sections {
            out += "\n## \(s)\n\n| key | what it does | needs |\n|---|---|---|\n"
            for binding in bindings where binding.section == s {
                let keys = binding.keys.map { "`\($0.label == "`" ? "backtick" : $0.label)`" }.joined(separator: " ")
                let needs = binding.needs.map { "\($0.word) (\($0.profileLine))" } ?? ""
                out += "| \(keys) | \(binding.help.replacingPipes) | \(needs) |\n"
            }
        }
        out += "\n## compare\n\n| option or command | what it does |\n|---|---|\n"
        out +=
            "| `--compare P,P,...` | start with 2 to 4 profiles side by side, e.g. `outbox --compare ios,android,flutter`;"
        out +=
            " one clock, network and backend plan; every key and `:` command acts on all columns, and an action a profile"
        out += " lacks is skipped in its column with a note; the devices are in memory |\n"
        out += "| `:compare P,P,...` | switch to a compare of these profiles, afresh from 0 |\n"
        out += "| `:compare off` | back to one column: the first, with its clock and requests |\n"
        out += "\nComparing, the list's rows are requests matched across the columns; a state tab keeps the rows where"
        out += " any column is in that state, so a row counts in each such tab and the tabs may add up to more than"
        out += " `all`. `saved` names each column's saved count (`saved ios 0 · android 1 · flutter 0`), or lists"
        out += " them in column order (`saved 0/1/0`) when the line is narrow. Enter makes the detail taller when"
        out += " there is more of the columns' histories to show (Enter or Esc goes back, and the status bar says"
        out += " so); when everything shows already it says that instead.\n"
        out += "\n## breakpoints and play\n\n| option or command | what it does |\n|---|---|\n"
        out +=
            "| `:break STATE` | pause the clock when a request enters STATE: `pending`, `in-flight`, `retrying`, `queued`,"
        out += " `delivered` or `dropped`; the clock stops before the next instant is processed, the header says why"
        out += " (`#3 → retrying (LT-4)`), that request is selected, space resumes |\n"
        out += "| `:break rule ID` | pause when a transition cites rule ID, e.g. `:break rule LT-2` |\n"
        out += "| `:break request N` | pause when request N changes state (comparing: row N, in any column) |\n"
        out +=
            "| `:break clear` | clear every breakpoint; `:break` alone lists them (the status bar shows them while set) |\n"
        out +=
            "| `:play FILE` | play a scenario file on this screen from 0, paused: space plays, `.` steps from line to"
        out += " line; speeds and breakpoints apply, `expect` lines show as they are reached; left alone it ends where"
        out += " `outbox run FILE` ends; a file with a `compare` line opens as a compare, each column ending as"
        out += " `outbox compare FILE` plays it |\n"
        out +=
            "| `--play FILE` | start the screen playing FILE (as `:play`); a bad file exits 2 before the terminal is touched |\n"
        out += "| `--speed S` | the starting speed: `0.1`, `0.25`, `1`, `10`, `60`, `600` or `3600` |\n"
        out += "\n## timeline glyphs\n\n| glyph | without UTF-8 | what it marks |\n|---|---|---|\n"
        for (u, a) in zip(AppView.timelineLegend(.unicode), AppView.timelineLegend(.ascii)) {
            out += "| `\(u.0)` | `\(a.0)` | \(u.1) |\n"
        }
        out +=
            "\nIn the backend chooser (`x`): pick an answer with its letter, then `1`, `3`, `5` times or `a` always; Esc cancels.\n"
        out +=
            "There, `%` asks for a chance instead: type a percent (`30`, `0.5`; Tab offers 10, 25, 50, 75) and Enter,"
        out += " for `server 503 30%`; before or after the answer, `r` makes it for the selected request's name only"
        out +=
            " (`for purchase`) and `k` for its kind (`for kind:event`), pressed again back to every request; `o` with"
        out += " `r` or `k` clears that plan. The header shows every plan in force (`503 30% +1 for purchase`).\n"
        out +=
            "After a status, `R` adds a Retry-After header to its answers: 1s, 10s, 60s, then none again"
        out += " (`server 429 retry-after 10s`; `:server` takes any time).\n"
        out +=
            "In the flap chooser (`F`): `1` to `4` flap the network (5s/2s, 10s/5s, 30s/10s, 2s/1s online/offline), `s`"
        out +=
            " stops it (online); the header shows `flap 5s/2s`. In the jitter chooser (`J`): `0` none, `1` to `4` ±20ms,"
        out += " ±50ms, ±100ms, ±500ms; the header shows `lat ±50ms`. Both are scenario lines (`:network flap 5s 2s`,"
        out += " `:set latency.jitter 50ms`) and recorded.\n"
        out +=
            "In the breakpoint chooser (`b`): `p` `f` `r` `q` `d` `x` set or clear a state (pending, in-flight, retrying,"
        out +=
            " queued, delivered, dropped), `s` the selected request, `l` the rule of its last transition, `c` clears all;"
        out += " Esc cancels.\n"
        out += "In the command line (`:`) and the name filter (`/`): Enter runs, Esc cancels, Backspace deletes.\n"
        out += "In the command line, ↑ and ↓ recall the lines run before in this session (kept across `:profile`,"
        out += " `:compare` and `:play`, not saved), and Tab completes the word being typed: the first word from the"
        out +=
            " actions and commands, then setting keys after `set`, profile names after `profile` and `compare`, states"
        out += " and `rule`, `request`, `clear` after `break`, the profile's rule IDs after `break rule`, answers after"
        out += " `server`; one candidate is completed, several are completed as far as they agree and listed.\n"
        out +=
            "\nThe mouse (SGR reporting, off with `outbox --no-mouse`, which gives the terminal's own text selection back;"
        out +=
            " most terminals select with Shift held while the mouse is on): a click on a row selects it, on a state tab"
        out +=
            " shows that tab, on a sortable column's title sorts by it, in the detail or the log focuses that pane; the"
        out +=
            " wheel scrolls the list, the detail or the log, whichever is under the pointer, by 3 lines (the list keeps its"
        out += " selection in view). `S` sorts the list by id, state (pending first), next attempt (soonest first; the"
        out +=
            " rest after, by id), attempts (most first) or name, ties by id; a compare sorts its rows by the first column"
        out += " that has the request.\n"
        out +=
            "At the export question (`e`): Enter writes the timeline as JSONL to the path shown (edit it first; a compare writes every column, with `\"profile\"`), or as one self-contained HTML page with the timeline picture when the path ends `.html` (what `outbox run --format html` writes, for what happened so far), Esc cancels; a file that exists is replaced only after `y`; a link, a folder, a FIFO or a device is refused at once (never asked about). `:export PATH` writes there (asking only when the file exists); `:export! PATH` replaces it without asking. The file is written whole or not at all: a write that fails (a full disk) leaves none, half or empty.\n"
        out += "\n## filter and log\n\n"
        out += "`/` with the list focused filters it by space-separated words, all of which a request must match"
        out += " (a compare's row matches when one of its columns' requests does):\n\n"
        out += "| word | keeps the requests |\n|---|---|\n"
        out += "| `rule:LT-5` | whose last transition cites the rule (the list's `rule` column) |\n"
        out += "| `kind:ping` | of that kind; a prefix naming one kind is enough (`kind:notif`) |\n"
        out += "| `state:retrying` | in that state; a prefix naming one state is enough (`state:ret`) |\n"
        out +=
            "| `503`, `timeout`, `offline`, `network-lost`, `partial`, `status:503` | whose last attempt got that answer"
        out += " (the list's `last` column) |\n"
        out += "| `purch`, `name:503` | whose name contains the text, ignoring case |\n"
        out +=
            "\nA value may list alternatives with commas (`state:retrying,queued`). The tab counts count what the filter"
        out += " keeps; an empty list says which word matched nothing (`no request matches rule:LT-99`).\n\n"
        out +=
            "`/` with the log focused (Tab) searches the log: Enter selects the latest line holding the text (ignoring"
        out +=
            " case) and marks the others' text; `<` goes to the earlier match, `>` to the later one (not `n`: that key"
        out += " sends a notification report); Esc clears the search.\n\n"
        out +=
            "`l` shows only the selected request's log lines (made for it, or naming it as `#4`), `l` again every line;"
        out +=
            " `:log request N`, `:log request` (the selected one) and `:log all` do the same from the command line.\n\n"
        out += "Tab focuses the detail or the log (its title is marked `▶`, `>` under `LANG=C`) and makes it taller;"
        out +=
            " then j, k, the arrows, PgUp, PgDn, Home and End scroll it. Enter shows the detail full-screen; Enter or Esc"
        out += " goes back.\n"
        out += ServeKeys.markdown
        out += FleetKeys.markdown
        return out
    }
}

extension String {
    var replacingPipes: String {
        var s = ""
        for c in self { s += c == "|" ? "\\|" : String(c) }
        return s
    }
}
