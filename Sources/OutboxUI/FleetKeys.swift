import OutboxCore

/// What a key does on `outbox fleet --live`'s screen.
public enum FleetAction: Hashable, Sendable, CaseIterable {
    case help, quit, toggleBackend, commandLine, pause, faster, slower, step, fastForward
}

/// `outbox fleet --live`'s key table, beside the simulator's (`KeyMap`) and
/// serve's (`ServeKeys`): the key handling (`FleetLiveModel`), the help screen,
/// the status bar and docs/keys.md's fleet section all come from it. The clock's
/// keys are the simulator's keys with the simulator's words.
public enum FleetKeys {
    public typealias Binding = ScreenKeys<FleetAction>.Binding

    static func b(_ keys: [Key], _ a: FleetAction, _ section: String, _ help: String, _ status: String? = nil)
        -> Binding
    {
        Binding(keys, a, section, help, status)
    }

    /// The simulator's key and words for one of its clock commands.
    static func main(_ c: Command) -> (keys: [Key], help: String) {
        let row = KeyMap.fixed.first { $0.command == c }!
        return (row.keys, row.help)
    }

    public static let bindings: [Binding] = [
        b(
            [.char("o")], .toggleBackend, "backend",
            "backend down / up for every device, now: server timeout always, then server ok (network online after the file's network offline)",
            "down"),
        b(
            [.char(":")], .commandLine, "backend",
            "a line every device plays now: server ANSWER ... (the scenario's server line), network offline|online",
            "command"),
        b([.char(" ")], .pause, "clock", "pause/resume the clock", "pause"),
        b(main(.faster).keys, .faster, "clock", main(.faster).help, "speed"),
        b(main(.slower).keys, .slower, "clock", "slower: down to ¼× then ⅒×"),
        b(main(.jumpNext).keys, .step, "clock", "step: play the next second of virtual time and pause there", "step"),
        b(
            [.char(">")], .fastForward, "clock",
            "fast-forward: as fast as the machine steps the fleet; again: back to the speed", "ffwd"),
        b([.char("?")], .help, "general", "show or hide this help", "help"),
        b(
            [.char("q")], .quit, "general", "quit: the terminal is restored and the lines played live are printed",
            "quit"),
    ]

    public static let sections = ["backend", "clock", "general"]

    public static let keys = ScreenKeys(bindings, sections: sections)

    /// The action a key runs, or nil.
    public static func action(for key: Key) -> FleetAction? { keys.action(for: key) }

    /// Keys bound to more than one action: must be empty (tested).
    public static var conflicts: [Key] { keys.conflicts }

    /// The help screen's lines: the keys, then what the screen shows.
    public static func helpLines(ascii: Bool = false) -> [(keys: String, help: String, section: String)] {
        keys.helpLines(ascii: ascii) + [
            (
                "chart",
                "a column a second: attempts stacked ok, over capacity, failed; a dot the requests delivered; the dashed line the capacity",
                "the screen"
            ),
            ("shaded", "an outage: the file's or one played here", "the screen"),
        ]
    }

    /// docs/keys.md's section on `outbox fleet --live`.
    public static var markdown: String {
        var out = "\n## outbox fleet --live\n\n"
        out += "The live screen of `outbox fleet FILE --live` has keys of its own, from its own table"
        out += " (`FleetKeys` in `Sources/OutboxUI/FleetKeys.swift`); docs/fleet.md (\"Live\") has the screen.\n\n"
        out += keys.markdownTable
        out += "\nIn the command line (`:`): Enter plays the line on every device at the current second, Esc cancels,"
        out += " Backspace deletes.\n"
        return out
    }
}
