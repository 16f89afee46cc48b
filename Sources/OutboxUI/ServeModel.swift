import OutboxCore
import OutboxServe

/// What a key on serve's live screen asks of the session (the loop applies it
/// through the hub, under its lock, at the time now): nothing is changed by the
/// model itself, so the session stays the one place the run's facts live.
public enum ServeEffect: Equatable, Sendable {
    case quit
    /// A step as a script line plays it: a plan (`x`, `:server`), the network
    /// (`o`, `:network`), the latency (`:set latency`).
    case play(ServeScript.Step)
    /// Arm the breakpoint, or (nil) disarm it.
    case arm(ServeSession.Breakpoint?)
    /// Answer the held request `token` with `answer` (nil: the plan's).
    case release(token: Int, answer: Answer?)

    /// Applies the effect to a session at `now` (the tests' loop, and the live
    /// loop's for all but `release`, which the hub sends on the wire); a release's reply.
    @discardableResult
    public func apply(to s: inout ServeSession, at now: Millis) -> ServeSession.Reply? {
        switch self {
        case .quit: return nil
        case .play(let step):
            s.play(step, at: now)
            return nil
        case .arm(let b):
            s.arm(b, at: now)
            return nil
        case .release(let token, let answer): return s.release(token, answer: answer, at: now)
        }
    }
}

/// The live screen of `outbox serve`: what the user looks at (the selected
/// row, the focused pane, its scroll, an open chooser or command line). The
/// session is not kept here: keys and the view read it where it is
/// (`ServeListener.reading`), and `handle` returns what to change in it.
public struct ServeModel {
    /// A row of the list: an event (an index into the session's events) or an
    /// unrecognised request (an index into its requests).
    public enum Row: Equatable, Sendable {
        case event(Int)
        case request(Int)
    }

    public enum Mode: Equatable, Sendable {
        case normal
        /// The help screen, scrolled by this many rows.
        case help(Int)
        /// The `:` line, with what is typed so far.
        case command(String)
        /// The backend chooser (`x`), the simulator's.
        case chooseAnswer(AnswerChoice)
    }

    /// Where it listens, as the header shows it: `http://127.0.0.1:40213`.
    public let address: String
    /// `--profile`: what each event is held to.
    public let profile: (Profile, Settings)?
    /// The time now, in ms since the server started (the loop passes it in each frame).
    public internal(set) var now: Millis = 0
    /// The selected row; nil: the first.
    public internal(set) var selected: Row?
    public internal(set) var focus: Pane = .list
    /// The detail's first line shown.
    public internal(set) var detailScroll = 0
    /// How many lines the log is scrolled up from its end.
    public internal(set) var logScroll = 0
    public internal(set) var mode: Mode = .normal
    /// The answer picked for the held request, before Enter sends it.
    public internal(set) var heldAnswer: Answer?
    /// A line in place of the status bar's keys (the loop clears it after a while).
    public var message: (text: String, isError: Bool)?
    /// The screen's size (`setScreen`): a page is the focused pane's height.
    public internal(set) var width = 80
    public internal(set) var height = 24

    public init(address: String, profile: (Profile, Settings)? = nil) {
        self.address = address
        self.profile = profile
    }

    public mutating func setScreen(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The time moved on (the loop, each frame).
    public mutating func tick(now: Millis) { self.now = max(self.now, now) }

    /// The list's rows: each event in the order it first came, then each unrecognised request.
    public static func rows(_ s: ServeSession) -> [Row] {
        var out = s.events.indices.map(Row.event)
        for (i, r) in s.requests.enumerated() where r.format == nil { out.append(.request(i)) }
        return out
    }

    /// The row the screen shows selected: the chosen one while it exists, else the first.
    public func selectedRow(_ s: ServeSession) -> Row? {
        if let r = selected, Self.exists(r, s) { return r }
        return s.events.isEmpty ? Self.rows(s).first : .event(0)
    }

    static func exists(_ r: Row, _ s: ServeSession) -> Bool {
        switch r {
        case .event(let i): return s.events.indices.contains(i)
        case .request(let i): return s.requests.indices.contains(i) && s.requests[i].format == nil
        }
    }

    /// The selected event's name and kind, for the chooser's `r` and `k` and the breakpoint.
    func selectedNameAndKind(_ s: ServeSession) -> (name: String, kind: String)? {
        guard case .event(let i)? = selectedRow(s) else { return nil }
        return (s.events[i].name, s.events[i].kind)
    }

    /// Handles one key, reading the session as it is; returns what to change in it.
    public mutating func handle(_ key: Key, _ s: ServeSession) -> ServeEffect? {
        if key == .resize { return nil }
        switch mode {
        case .help(let scroll):
            switch KeyMap.helpKey(key, scroll: scroll) {
            case .scroll(let to): mode = .help(to)
            case .quit: return .quit
            case .close: mode = .normal
            }
            return nil
        case .command(let text):
            return commandKey(text, key)
        case .chooseAnswer(let c):
            switch c.step(key, selected: selectedNameAndKind(s)) {
            case .unchanged: break
            case .choosing(let next):
                message = nil
                mode = .chooseAnswer(next)
            case .cancelled: mode = .normal
            case .hint(let text): message = (text, true)
            case .plan(let a, let rep, let target):
                mode = .normal
                return .play(.server(a, rep, target))
            }
            return nil
        case .normal:
            break
        }
        if let h = s.held.first, case .taken(let effect) = heldKey(key, h) { return effect }
        guard let action = ServeKeys.action(for: key) else {
            if case .char(let c) = key { message = ("no key `\(Character(c))` here; ? lists the keys", true) }
            return nil
        }
        message = nil
        switch action {
        case .help: mode = .help(0)
        case .quit: return .quit
        case .toggleNetwork: return .play(.network(online: !s.online))
        case .chooseAnswer: mode = .chooseAnswer(AnswerChoice())
        case .commandLine: mode = .command("")
        case .breakpoint:
            // Off → the next request → the next carrying the selected event's name → off.
            switch s.breakpoint {
            case nil: return .arm(.next)
            case .next?:
                if let n = selectedNameAndKind(s)?.name { return .arm(.name(n)) }
                return .arm(nil)
            case .name?: return .arm(nil)
            }
        case .down, .up, .pageDown, .pageUp, .top, .bottom: move(action, s)
        case .detail:
            focus = focus == .detail ? .list : .detail
        case .nextPane:
            focus = Pane(rawValue: (focus.rawValue + 1) % Pane.allCases.count)!
        case .back: focus = .list
        }
        return nil
    }

    /// What the held request's box did with a key.
    enum HeldKey {
        /// Taken by the box (and what it asks of the session, if anything).
        case taken(ServeEffect?)
        /// Not the box's: it keeps its meaning (`q`, `?`, moving).
        case passed
    }

    /// A key while a request is held at the breakpoint (its box is on screen):
    /// an answer's letter picks it, `R` its Retry-After, Enter sends it.
    mutating func heldKey(_ key: Key, _ h: ServeSession.Held) -> HeldKey {
        switch key {
        case .enter:
            let answer = heldAnswer
            heldAnswer = nil
            message = nil
            return .taken(.release(token: h.token, answer: answer))
        case .escape:
            heldAnswer = nil
            return .taken(nil)
        case .char("R"):
            guard let next = heldAnswer?.nextRetryAfter else {
                message = ("R adds a Retry-After to a status: pick one first (a to j)", true)
                return .taken(nil)
            }
            heldAnswer = next
            message = nil
            return .taken(nil)
        case .char(let c):
            guard let pick = AppModel.answerChoices.first(where: { $0.key == c }) else { return .passed }
            heldAnswer = pick.answer
            message = nil
            return .taken(nil)
        default:
            return .passed
        }
    }

    /// A key in the `:` line: typing, Backspace, Esc; Enter reads and plays it.
    mutating func commandKey(_ text: String, _ key: Key) -> ServeEffect? {
        switch ServeModel.typing(text, key) {
        case nil: break
        case .editing(let t): mode = .command(t)
        case .cancelled: mode = .normal
        case .done(let line):
            mode = .normal
            switch ServeScript.line(line) {
            case .success(let step):
                message = nil
                return .play(step)
            case .failure(let p):
                message = (":" + SafeText.escaped(line, max: 60) + ": " + p.message, true)
            }
        }
        return nil
    }

    /// A key in a `:` line of serve's or the fleet's screen: a character on the
    /// end (up to 1000: a paste of a megabyte is not kept whole), Backspace, Esc,
    /// Enter (the line, its leading `:` dropped); nil: a key the line ignores.
    static func typing(_ text: String, _ key: Key) -> AppModel.LineEdit? {
        switch key {
        case .char(let c) where c.value >= 0x20:
            return .editing(text.unicodeScalars.count < 1000 ? text + String(Character(c)) : text)
        case .backspace, .delete: return .editing(String(text.dropLast()))
        case .escape: return .cancelled
        case .enter: return .done(text.hasPrefix(":") ? String(text.dropFirst()) : text)
        default: return nil
        }
    }

    mutating func move(_ a: ServeAction, _ s: ServeSession) {
        let page = max(1, ServeView.panes(self).height(of: focus) - 1)
        func step(_ v: Int, _ last: Int) -> Int {
            switch a {
            case .down: return min(last, v + 1)
            case .up: return max(0, v - 1)
            case .pageDown: return min(last, v + page)
            case .pageUp: return max(0, v - page)
            case .top: return 0
            default: return last
            }
        }
        switch focus {
        case .list:
            let rows = Self.rows(s)
            guard !rows.isEmpty else { return }
            let at = selectedRow(s).flatMap { rows.firstIndex(of: $0) } ?? 0
            let next = rows[step(at, rows.count - 1)]
            if next != selectedRow(s) { detailScroll = 0 }
            selected = next
        case .detail:
            let n = ServeView.detailLines(self, s, width: width).count
            detailScroll = step(detailScroll, max(0, n - 1))
        case .log:
            // Up is back in time: the scroll counts lines from the end.
            let n = s.log.count + s.requests.count
            switch a {
            case .up: logScroll = min(max(0, n - 1), logScroll + 1)
            case .down: logScroll = max(0, logScroll - 1)
            case .pageUp: logScroll = min(max(0, n - 1), logScroll + page)
            case .pageDown: logScroll = max(0, logScroll - page)
            case .top: logScroll = max(0, n - 1)
            default: logScroll = 0
            }
        }
    }
}
