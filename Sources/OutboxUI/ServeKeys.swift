import OutboxCore

/// What a key does on `outbox serve`'s live screen.
public enum ServeAction: Hashable, Sendable, CaseIterable {
    case help, quit, toggleNetwork, chooseAnswer, breakpoint, commandLine
    case down, up, pageDown, pageUp, top, bottom, detail, nextPane, back
}

/// `outbox serve`'s key table, beside the simulator's (`KeyMap`): the key
/// handling (`ServeModel`), the help screen, the status bar and docs/keys.md's
/// serve section all come from it.
public enum ServeKeys {
    public typealias Binding = ScreenKeys<ServeAction>.Binding

    static func b(_ keys: [Key], _ a: ServeAction, _ section: String, _ help: String, _ status: String? = nil)
        -> Binding
    {
        Binding(keys, a, section, help, status)
    }

    public static let bindings: [Binding] = [
        b(
            [.char("x")], .chooseAnswer, "backend",
            "choose what the backend answers next (once, N times, always, a chance N%; R: a Retry-After; r/k: for the selected event's name or kind)",
            "backend"),
        b(
            [.char("b")], .breakpoint, "backend",
            "breakpoint: hold the next request; again: only the next carrying the selected event's name; again: off",
            "break"),
        b([.char("o")], .toggleNetwork, "backend", "network offline (connections refused) / online", "offline"),
        b(
            [.char(":")], .commandLine, "backend",
            "a line to play now: server ANSWER ..., network offline|online, set latency D", "command"),
        b([.char("j"), .down], .down, "moving", "next row", nil),
        b([.char("k"), .up], .up, "moving", "previous row", nil),
        b([.pageDown], .pageDown, "moving", "a page down (the focused pane)", nil),
        b([.pageUp], .pageUp, "moving", "a page up (the focused pane)", nil),
        b([.home], .top, "moving", "first row (the focused pane's top)", nil),
        b([.end], .bottom, "moving", "last row (the focused pane's end)", nil),
        b([.enter], .detail, "moving", "focus the detail (taller; j/k scroll it); again: back to the list", "detail"),
        b([.tab], .nextPane, "moving", "next pane: list, detail, log", "pane"),
        b([.escape], .back, "moving", "back to the list", nil),
        b([.char("?")], .help, "general", "show or hide this help", "help"),
        b(
            [.char("q")], .quit, "general",
            "quit: the terminal is restored and the report headless prints is printed (--format, --report, --record)",
            "quit"),
    ]

    public static let sections = ["backend", "moving", "general"]

    public static let keys = ScreenKeys(bindings, sections: sections)

    /// The action a key runs, or nil.
    public static func action(for key: Key) -> ServeAction? { keys.action(for: key) }

    /// Keys bound to more than one action: must be empty (tested).
    public static var conflicts: [Key] { keys.conflicts }

    /// Not keys: what the held request's box takes (a breakpoint caught one).
    public static let heldLines: [(keys: String, help: String)] = [
        (
            "letter",
            "an answer: "
                + AppModel.answerChoices.map { "\(Character($0.key)) \($0.answer.word)" }.joined(separator: ", ")
        ),
        ("R", "after a status: a Retry-After (1s, 10s, 60s, then none)"),
        ("Enter", "answer it (with none picked: the plan's answer, as if it had not been held)"),
        ("Esc", "unpick the answer; the request stays held"),
    ]

    /// The help screen's lines, by section.
    public static func helpLines(ascii: Bool = false) -> [(keys: String, help: String, section: String)] {
        keys.helpLines(ascii: ascii) + heldLines.map { ($0.keys, $0.help, "a held request") }
    }

    /// docs/keys.md's section on serve.
    public static var markdown: String {
        var out = "\n## outbox serve\n\n"
        out += "The live screen of `outbox serve` (without `--headless`) has keys of its own, from its own table"
        out += " (`ServeKeys` in `Sources/OutboxUI/ServeKeys.swift`); docs/serve.md has the screen.\n\n"
        out += keys.markdownTable
        out += "\nA request the breakpoint holds shows in a box (its method, path, events and payload) until its"
        out += " answer is chosen there:\n\n| key | what it does |\n|---|---|\n"
        for l in heldLines { out += "| \(l.keys) | \(l.help.replacingPipes) |\n" }
        out += "\nThe backend chooser (`x`) is the simulator's (above): the plan it makes is the session's, as a"
        out += " script's `server` line would make it.\n"
        return out
    }
}
