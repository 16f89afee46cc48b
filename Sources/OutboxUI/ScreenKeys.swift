import OutboxCore

/// The key table of a screen beside the simulator's (`KeyMap`): serve's
/// (`ServeKeys`) and the fleet's (`FleetKeys`). The screen's key handling, its
/// help, its status bar and its section of docs/keys.md all come from it.
public struct ScreenKeys<Action: Hashable & Sendable>: Sendable {
    public struct Binding: Sendable {
        public let keys: [Key]
        public let action: Action
        public let section: String
        public let help: String
        /// Shown in the status bar with this label, in the table's order; nil when not.
        public let status: String?

        public init(_ keys: [Key], _ action: Action, _ section: String, _ help: String, _ status: String? = nil) {
            self.keys = keys
            self.action = action
            self.section = section
            self.help = help
            self.status = status
        }
    }

    public let bindings: [Binding]
    public let sections: [String]
    let table: [Key: Action]

    public init(_ bindings: [Binding], sections: [String]) {
        self.bindings = bindings
        self.sections = sections
        var t: [Key: Action] = [:]
        for b in bindings { for k in b.keys { t[k] = b.action } }
        table = t
    }

    /// The action a key runs, or nil.
    public func action(for key: Key) -> Action? { table[key] }

    /// Keys bound to more than one action: must be empty (tested).
    public var conflicts: [Key] { KeyMap.conflicts(bindings.map { ($0.keys, $0.action) }) }

    /// The help screen's lines of the keys, by section.
    public func helpLines(ascii: Bool = false) -> [(keys: String, help: String, section: String)] {
        var out: [(String, String, String)] = []
        for s in sections {
            for b in bindings where b.section == s {
                out.append((b.keys.map { $0.label(ascii: ascii) }.joined(separator: " "), b.help, s))
            }
        }
        return out
    }

    /// The keys as a docs/keys.md table.
    public var markdownTable: String {
        var out = "| key | what it does |\n|---|---|\n"
        for s in sections {
            for b in bindings where b.section == s {
                let keys = b.keys.map { "`\($0.label)`" }.joined(separator: " ")
                out += "| \(keys) | \(b.help.replacingPipes) |\n"
            }
        }
        return out
    }
}
